"""Execute the notebooks in notebooks/ in place, so the repository shows them with outputs.

    python scripts/run_notebooks.py                    # all of them
    python scripts/run_notebooks.py 01_quickstart      # some of them, by name

Each notebook runs top to bottom in a fresh python3 kernel from the repository root, with the
budgets of its parameter cell, and is written back (atomically) with its outputs. A failing
cell stops the run with its error and leaves that notebook file untouched. Notebooks 02 and 04
need the `train` extra. tests/test_notebooks.py checks that the stored outputs are complete and
re-executes every notebook.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: Seconds any one cell may take (each whole notebook takes well under a minute).
CELL_TIMEOUT = 300


def execute(path: Path) -> None:
    """Run the notebook at `path` and store it with its outputs."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="farlight-notebook-") as scratch:
        # the kernel's connection files and the notebooks' temporary directories stay here
        os.environ["JUPYTER_RUNTIME_DIR"] = str(Path(scratch) / "runtime")
        os.environ["TMPDIR"] = scratch
        client = nbclient.NotebookClient(
            nb,
            timeout=CELL_TIMEOUT,
            kernel_name="python3",
            record_timing=False,  # no timestamps: re-running changes only what the code prints
            resources={"metadata": {"path": str(ROOT)}},
        )
        client.execute()
    nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    fd, tmp = tempfile.mkstemp(suffix=".ipynb", dir=path.parent)
    os.close(fd)
    try:
        nbformat.write(nb, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: every notebook)")
    args = parser.parse_args(argv)
    every = sorted(NOTEBOOKS.glob("*.ipynb"))
    chosen = [p for p in every if not args.names or p.stem in args.names]
    unknown = set(args.names) - {p.stem for p in every}
    if unknown:
        print(f"run_notebooks: no notebook named {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # tqdm.auto warns in every kernel without ipywidgets (even with progress bars off); that
    # says something about this machine, not the notebook, so it is not stored
    os.environ["PYTHONWARNINGS"] = "ignore:IProgress not found"
    for path in chosen:
        print(f"running {path.relative_to(ROOT)} ...", flush=True)
        execute(path)
        print(f"  wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
