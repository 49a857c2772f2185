import sys

from farlight_cli.main import main

sys.exit(main())
