"""Every place the code unpickles or runs code it is handed is listed in docs/safety.md (#53),
so a new one cannot slip in unreviewed: the test reads the code (its syntax tree, so comments
and docstrings that only mention pickles do not count) and the inventory's table, and fails on
a site missing from the table or a listed site that is gone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("farlight_env", "agents", "training", "farlight_cli", "farlight_web", "scripts")
PAGE = ROOT / "docs" / "safety.md"
HEADING = "### Where anything is unpickled or run as code"
#: Modules that turn bytes into objects (or code) with no schema.
MODULES = {"pickle", "_pickle", "cloudpickle", "marshal", "shelve", "dill"}
#: Methods that decide what unpickling an object of the class runs.
HOOKS = {"__reduce__", "__reduce_ex__", "__setstate__"}


def risky(name: str) -> bool:
    return "pickle" in name.lower() or name in MODULES


def _weights_only(call: ast.Call) -> bool:
    return any(
        k.arg == "weights_only" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )


def _call_site(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name) and func.id in ("eval", "exec"):
        return f"{func.id}("
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "load"
        and ast.unparse(func) == "torch.load"
    ):
        return "torch.load(weights_only=True)" if _weights_only(node) else "torch.load("
    return None


def sites(source: str) -> set[str]:
    """What the inventory must explain in one file's code, as the table writes it."""
    tree = ast.parse(source)
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {f"import {a.name}" for a in node.names if risky(a.name.split(".")[0])}
        elif isinstance(node, ast.ImportFrom):
            if node.module and risky(node.module.split(".")[0]):
                found.add(f"from {node.module} import")
            found |= {f"import {a.name}" for a in node.names if risky(a.name)}
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            text = ast.unparse(node)
            if risky(node.attr) or risky(text.split(".")[0]):
                found.add(text)
        elif isinstance(node, ast.Name) and id(node) not in inner and risky(node.id):
            found.add(node.id)
        elif isinstance(node, ast.Call) and _call_site(node):
            found.add(_call_site(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in HOOKS:
            found.add(f"def {node.name}")
    return found


def code_sites() -> set[tuple[str, str]]:
    """(file, site) for every site in the source tree."""
    return {
        (path.relative_to(ROOT).as_posix(), site)
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for site in sites(path.read_text(encoding="utf-8"))
    }


def inventory() -> tuple[set[tuple[str, str]], set[str]]:
    """The table's (file, site) pairs, and every file it names."""
    text = PAGE.read_text(encoding="utf-8")
    assert HEADING in text, f"{PAGE.name} lost its inventory ({HEADING!r})"
    table = text.split(HEADING, 1)[1].split("\n#", 1)[0]
    listed, files = set(), set()
    for row in table.splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        files |= set(names)
        listed |= {(name, site) for name in names for site in re.findall(r"`([^`]+)`", cells[1])}
    return listed, files


def test_the_site_finder_sees_what_a_grep_would_and_skips_prose() -> None:
    source = '''
"""Never a pickle: eval( in a docstring."""
import pickle, marshal as m
from cloudpickle import dumps
from shelve import open as shelf
import dill.source
net.eval()  # a torch module's eval, and a comment about exec(
exec("x = 1")
eval("1")
torch.load(path)
torch.load(path, weights_only=False)
torch.load(path, map_location="cpu", weights_only=True)
obj = pickle.loads(data)
wrap = CloudpickleWrapper(fn)
class A:
    def __reduce__(self): ...
'''
    assert sites(source) == {
        "import pickle", "import marshal", "from cloudpickle import", "from shelve import",
        "import dill.source", "exec(", "eval(", "torch.load(", "torch.load(weights_only=True)",
        "pickle.loads", "CloudpickleWrapper", "def __reduce__",
    }  # fmt: skip


def test_every_unpickling_site_is_in_the_inventory() -> None:
    """#53: a site in the code that docs/safety.md does not explain fails here; so does a
    listed site the code no longer has (the table stays true both ways)."""
    found = code_sites()
    listed, files = inventory()
    missing = sorted(found - listed)
    assert not missing, f"add to {PAGE.name}'s table (and say whose data it reads): {missing}"
    stale = sorted(listed - found)
    assert not stale, f"{PAGE.name} lists sites the code no longer has: {stale}"
    absent = sorted(name for name in files if not (ROOT / name).is_file())
    assert not absent, f"{PAGE.name}'s inventory names files that do not exist: {absent}"


def test_no_torch_load_without_weights_only_and_no_eval_anywhere() -> None:
    """The inventory may explain sites, but these never belong in it."""
    forbidden = {"torch.load(", "eval(", "exec("}
    assert not [(f, s) for f, s in code_sites() if s in forbidden]
