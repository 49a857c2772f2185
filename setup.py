"""Builds the hot modules with Cython when it can; pyproject.toml holds everything else.

The compiled modules are the unchanged Python sources (`farlight_env/compiled.py` lists them);
a failed or skipped build leaves the package pure Python, only slower. Set
FARLIGHT_NO_COMPILE=1 to skip the build.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "farlight_env"))  # compiled.py alone, without the package
from compiled import BUILD_RECORD, COMPILED_MODULES, source_digest, source_path  # noqa: E402

DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,  # annotations stay documentation: Python semantics throughout
    "binding": True,
}
#: Calls into libpython through the GOT rather than each module's PLT stubs: the engine's hot
#: path crosses ~10 compiled modules, and every module's stubs otherwise crowd the CPU's
#: instruction caches (engine steps ~3% faster, #27). ELF toolchains (gcc, clang) only.
COMPILE_ARGS = ["-fno-plt"] if sys.platform.startswith("linux") else []


def extensions() -> list[Extension]:
    if os.environ.get("FARLIGHT_NO_COMPILE", "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("farlight-env: Cython not found, installing pure Python", file=sys.stderr)
        return []
    paths = {name: source_path(name, ROOT).relative_to(ROOT) for name in COMPILED_MODULES}
    digests = {name: source_digest(ROOT / path) for name, path in paths.items()}
    record = {"sources": digests, "cython": __import__("Cython").__version__}
    BUILD_RECORD.write_text(json.dumps(record, indent=1) + "\n")
    modules = [
        Extension(name, [str(p)], optional=True, extra_compile_args=COMPILE_ARGS)
        for name, p in paths.items()
    ]
    jobs = os.cpu_count() or 1
    built = cythonize(modules, compiler_directives=DIRECTIVES, quiet=True, nthreads=jobs)
    for extension in built:  # cythonize drops the flag: a module that fails stays pure Python
        extension.optional = True
    return built


setup(ext_modules=extensions(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
