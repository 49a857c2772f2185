"""DESIGN layers: farlight_env never imports agents or training and never needs torch."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import farlight_env

#: farlight_env modules that import an optional extra's module at import time, and that module:
#: the import check passes over such a module only when that very dependency is missing.
OPTIONAL = {
    "farlight_env.openspiel": "pyspiel",
    "farlight_env.openspiel_state_text": "pyspiel",
    "farlight_env.platform.openspiel": "pyspiel",
    "farlight_env.platform.spiel_strings": "pyspiel",
}
UPPER = (
    "torch",
    "agents",
    "evaluation",
    "training",
    "stable_baselines3",
    "sb3_contrib",
    "farlight_cli",
    "farlight_web",
    "starlette",
    "uvicorn",
)


def _import_every_module(prelude: str = "") -> tuple[list[str], list[str]]:
    """Import every farlight_env module in a fresh interpreter (after `prelude`): the upper-layer
    modules that pulled in, and the modules passed over because their optional extra is missing."""
    modules = [m.name for m in pkgutil.walk_packages(farlight_env.__path__, "farlight_env.")]
    assert "farlight_env.game.game" in modules and "farlight_env.env.aec" in modules
    code = prelude + (
        "import importlib, sys\n"
        "skipped = []\n"
        f"for name in {modules!r}:\n"
        "    if name.endswith('__main__'):\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as exc:\n"
        f"        dep = {OPTIONAL!r}.get(name)\n"
        "        if dep is None or dep not in (exc.name, getattr(exc.__cause__, 'name', None)):\n"
        "            raise\n"
        "        skipped.append(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {UPPER!r})\n"
        "print(','.join(bad))\n"
        "print(','.join(skipped))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    bad, skipped = out.stdout.split("\n")[:2]
    return [b for b in bad.split(",") if b], [s for s in skipped.split(",") if s]


def test_farlight_env_imports_no_upper_layer_and_no_torch() -> None:
    bad, skipped = _import_every_module()
    assert bad == [], f"farlight_env pulled in: {bad}"
    missing = [name for name, dep in OPTIONAL.items() if importlib.util.find_spec(dep) is None]
    assert skipped == missing  # passed over: exactly the modules whose extra is not installed


def test_the_import_check_passes_over_a_module_whose_extra_is_missing() -> None:
    """Without OpenSpiel (the interop extra) only the OpenSpiel modules are passed over,
    and the other modules are still checked."""
    bad, skipped = _import_every_module("import sys\nsys.modules['pyspiel'] = None\n")
    assert bad == [] and sorted(skipped) == sorted(OPTIONAL)


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_rules_engine_and_cards_import_no_rl_library() -> None:
    """The engine is pure: its modules import numpy and the standard library only. (The
    package's __init__ registers the envs by name, which is what imports gymnasium.)"""
    root = Path(farlight_env.__file__).parent
    files = sorted((root / "game").glob("*.py")) + sorted((root / "cards").glob("*.py"))
    assert len(files) >= 6
    banned = {
        "pettingzoo",
        "gymnasium",
        "torch",
        "PIL",
        "matplotlib",
        "agents",
        "evaluation",
        "training",
    }
    for path in files:
        assert not (_imported_roots(path) & banned), (
            f"{path.name} imports {banned & _imported_roots(path)}"
        )


def test_farlight_env_holds_logic_only_the_command_line_lives_in_farlight_cli() -> None:
    """Every subcommand's argument wiring is in farlight_cli/<name>_cmd.py; no farlight_env
    module parses arguments or imports the command line above it."""
    import farlight_cli

    root = Path(farlight_env.__file__).parent
    for path in sorted(root.rglob("*.py")):
        roots = _imported_roots(path)
        assert "argparse" not in roots, f"{path.relative_to(root)} parses arguments"
        assert "farlight_cli" not in roots, f"{path.relative_to(root)} imports farlight_cli"
    package = Path(farlight_cli.__file__).parent
    commands = {p.stem for p in [*package.glob("*_cmd.py"), *package.glob("*/*_cmd.py")]}
    assert {"random_cmd", "bench_cmd", "rules_cmd", "tournament_cmd", "play_cmd"} <= commands
    assert {"replay_cmd", "train_cmd"} <= commands


def test_every_option_is_declared_in_farlight_cli_and_nowhere_else() -> None:
    """One home for the command line: no package below farlight_cli builds a parser, handles
    arguments or runs as a script of its own (`python -m training.farlight.sb3.train_ppo` once
    duplicated `farlight train ppo`). The training configs are dataclasses;
    farlight_cli/config_flags.py
    turns them into flags."""
    root = Path(farlight_env.__file__).parent.parent
    for package in ("farlight_env", "agents", "evaluation", "training", "farlight_web"):
        for path in sorted((root / package).rglob("*.py")):
            name = str(path.relative_to(root))
            text = path.read_text()
            assert "ArgumentParser(" not in text, f"{name} builds its own parser"
            assert "__main__" not in text, f"{name} runs as a script of its own"
            assert "argparse" not in _imported_roots(path), f"{name} handles arguments"


#: The packages from the bottom up (DESIGN.md, "Layers"): each may import those below it and
#: none above. The web server sits above training (it never needs it) and below the command
#: line, which serves it (`farlight serve`).
LAYERS = ("farlight_env", "agents", "evaluation", "training", "farlight_web", "farlight_cli")
#: Inside farlight_env, from the bottom up: untrusted (bounded JSON, clipped messages) < cards <
#: game (the rules engine) < records (game records) < encode < view (what a seat may see, step
#: events) < env < tools (bench, stats, the rules page).
ENV_LAYERS = ("untrusted", "cards", "game", "records", "encode", "view", "env", "tools")


def _imported_modules(path: Path) -> set[str]:
    """Every absolute import of a file, at any depth (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _upward_imports(layers: tuple[str, ...], folder: Path, prefix: str) -> list[str]:
    """'file imports module' for every import of a layer above the file's own."""
    rank = {name: i for i, name in enumerate(layers)}
    found = []
    for layer in layers:
        for path in sorted((folder / layer).rglob("*.py")):
            for module in _imported_modules(path):
                parts = module.split(".")
                if prefix:
                    if parts[0] != prefix or len(parts) < 2:
                        continue
                    parts = parts[1:]
                if rank.get(parts[0], -1) > rank[layer]:
                    found.append(f"{path.relative_to(folder)} imports {module}")
    return found


def test_no_layer_imports_a_layer_above_it() -> None:
    """Dependencies point down only, with no exemption: farlight_env < agents < evaluation <
    training <
    farlight_web < farlight_cli, and inside farlight_env untrusted < cards < game < records <
    encode < view < env < tools."""
    root = Path(farlight_env.__file__).parent.parent
    assert _upward_imports(LAYERS, root, "") == []
    env_root = Path(farlight_env.__file__).parent
    assert _upward_imports(ENV_LAYERS, env_root, "farlight_env") == []


#: Parts of farlight_env that hold no game: the platform and plumbing (files, messages, seeds).
GAME_FREE = (
    "farlight_env.platform",
    "farlight_env.measure",
    "farlight_env.untrusted",
    "farlight_env.processes",
    "farlight_env.seeding",
)


@pytest.mark.parametrize("package", ["platform", "measure"])
def test_the_platform_imports_no_game(package: str) -> None:
    """#50: farlight_env/platform (the protocol, the registry, the generic env and records)
    names its built-in games by string only, so it serves any game without importing one; of
    the rest of farlight_env it uses only the game-free plumbing (bounded files, seeds). So do
    the measurements written for every game (farlight_env/measure)."""
    folder = Path(farlight_env.__file__).parent / package
    found = [
        f"{path.name} imports {module}"
        for path in sorted(folder.rglob("*.py"))
        for module in _imported_modules(path)
        if module.startswith("farlight_env") and not module.startswith(GAME_FREE)
    ]
    assert found == []


#: The layers above the engine. Each keeps one game's own code in a subpackage named after the
#: game (agents/farlight, training/farlight, ...); every other module serves any game (#50).
UPPER_LAYERS = ("agents", "evaluation", "training", "farlight_cli", "farlight_web")


def _farlight_imports(path: Path) -> set[str]:
    """The parts of farlight_env outside the game-free plumbing that a file imports, a name
    imported from the package itself counted as `farlight_env.NAME` (its version excepted)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
            if node.module == "farlight_env":
                modules = [f"farlight_env.{a.name}" for a in node.names if a.name != "__version__"]
        found |= {
            m for m in modules if m.startswith("farlight_env.") and not m.startswith(GAME_FREE)
        }
    return found


def _generic_modules(root: Path) -> list[Path]:
    """Every module of the upper layers outside a game's subpackage."""
    return [
        path
        for layer in UPPER_LAYERS
        for path in sorted((root / layer).rglob("*.py"))
        if "farlight" not in path.relative_to(root).parts[1:-1]
    ]


def test_outside_the_game_subpackages_no_module_imports_farlight() -> None:
    """#50: above the engine, a module outside `<layer>/farlight/` uses of farlight_env only the
    platform and the game-free plumbing: it reaches a game through the registry."""
    root = Path(farlight_env.__file__).parent.parent
    found = [
        f"{path.relative_to(root)} imports {module}"
        for path in _generic_modules(root)
        for module in sorted(_farlight_imports(path))
    ]
    assert found == []
    assert len(_generic_modules(root)) > 60  # the walk found the layers (78 today)


def test_the_game_import_check_sees_a_farlight_import(tmp_path: Path) -> None:
    """The check is not vacuous: a Farlight import inside a function, or a name taken from
    the package itself, is found; the platform and the version are not."""
    path = tmp_path / "x.py"
    path.write_text(
        "from farlight_env import __version__\n"
        "from farlight_env.platform import get_game\n"
        "from farlight_env import FarlightGame\n"
        "def f():\n    import farlight_env.encode.codec\n"
    )
    assert _farlight_imports(path) == {"farlight_env.FarlightGame", "farlight_env.encode.codec"}


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The check above is not vacuous: an import of an upper layer, even inside a function,
    is found."""
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "x.py").write_text("def f():\n    from farlight_cli import argtypes\n")
    for layer in ("farlight_env", "agents", "evaluation", "farlight_web", "farlight_cli"):
        (tmp_path / layer).mkdir()
    assert _upward_imports(LAYERS, tmp_path, "") == ["training/x.py imports farlight_cli"]


# ------------------------------------------------------------ the engine's private names
GAME_DIR = Path(farlight_env.__file__).parent / "game"
#: Packages above the engine; none may read the engine's private attributes.
READERS = ("farlight_env", "agents", "evaluation", "training", "farlight_cli", "farlight_web")


def _engine_private_names() -> set[str]:
    """Every `_name` the rules engine uses as an attribute (its private state and methods)."""
    names = set()
    for path in GAME_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                names.add(node.attr)
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                names.add(node.targets[0].id)  # class attributes such as `_install = ...`
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_no_module_outside_the_engine_reads_its_private_names() -> None:
    """Agents, encoders, the env, the CLI and the web read the engine's public API (issue
    #27): `obj._name` for an engine private `_name` on anything but `self`/`cls`, and
    `from farlight_env.game... import _name`, are refused."""
    private = _engine_private_names()
    assert {"_phase", "_current", "_completers", "_place_tile"} <= private
    root = GAME_DIR.parent.parent
    found = []
    for package in READERS:
        for path in sorted((root / package).rglob("*.py")):
            if GAME_DIR in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "farlight_env.game"
                ):
                    for alias in node.names:
                        if alias.name.startswith("_"):
                            found.append(f"{path.relative_to(root)}:{node.lineno}: {alias.name}")
                    continue
                if not (isinstance(node, ast.Attribute) and node.attr in private):
                    continue
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                if isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super":
                    continue
                found.append(f"{path.relative_to(root)}:{node.lineno}: .{node.attr}")
    assert not found, "reads of the engine's private names:\n" + "\n".join(found)


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _game_imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The farlight_env.game modules `module` imports at run time, anywhere in its code
    (function-level imports too; `if TYPE_CHECKING:` blocks are annotations only)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking_block(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                base = ".".join(module.split(".")[: -node.level] + [node.module])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return {m for m in found if m in modules and m != module}


def test_the_engine_has_no_import_circle() -> None:
    """farlight_env/game/ imports form no circle, counting imports inside functions (which
    once hid game.py <-> scoring, serialize and validate); the phase modules reach one another
    only through the game object, and game.py imports what it uses."""
    files = {}
    for path in GAME_DIR.rglob("*.py"):
        parts = path.relative_to(GAME_DIR.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        files[name] = path
    modules = set(files)
    graph = {name: _game_imports(path, name, modules) for name, path in files.items()}
    assert "farlight_env.game.scoring" in graph["farlight_env.game.game"]
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []

    def walk(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                circle = stack[stack.index(dep) :] + [dep]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if dep not in state:
                walk(dep)
        stack.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name)
