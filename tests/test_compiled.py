"""The compiled build of the hot modules is a speed-up of identical code, never a different one.

`farlight_env/compiled.py`: a build is used only when its source digest matches the `.py` on
disk; `FARLIGHT_PURE_PYTHON=1` imports everything from source. The same games, observations
and search decisions come out either way.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from farlight_env import compiled

ROOT = Path(__file__).resolve().parents[1]

#: Plays env games at every player count (observations, masks, rewards), heuristic games and
#: ismcts decisions, and prints one digest of all of it with the build status.
PLAY = textwrap.dedent(
    """
    import hashlib, importlib, json, random
    import numpy as np
    from farlight_env import compiled, farlight_v0
    from farlight_env.game import FarlightGame
    from farlight_env.game.hidden import PlayerView
    from agents.heuristic import HeuristicAgent
    from agents.ismcts import ISMCTSAgent

    digest = hashlib.sha256()
    for players in (2, 3, 4, 5):
        env = farlight_v0.env(num_players=players, rule_options={"edge_connectors": "blocked"})
        env.reset(seed=players)
        rng = random.Random(players)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
            digest.update(repr(reward).encode())
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
    for seed in range(3):
        game, agents = FarlightGame(3, seed=seed), [HeuristicAgent(seed + i) for i in range(3)]
        while not game.is_over:
            game.apply(agents[game.current_player].choose(game, game.current_player))
        digest.update(json.dumps(game.to_json(), sort_keys=True).encode())
        if seed == 0:
            for _ in range(2):
                game = FarlightGame(2, seed=7)
                search = ISMCTSAgent(seed=3, iterations=40)
                for _ in range(12):
                    if game.is_over:
                        break
                    action = search.choose(game, game.current_player)
                    digest.update(str(action).encode())
                    game.apply(action)
    modules = [importlib.import_module(name) for name in compiled.COMPILED_MODULES]
    status = {m.__name__: compiled.is_compiled(m) for m in modules}
    predicted = compiled.build_status()
    print(json.dumps({"digest": digest.hexdigest(), "status": status, "predicted": predicted}))
    """
)


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_PYTHON_VARIABLE}
    if pure:
        env[compiled.PURE_PYTHON_VARIABLE] = "1"
    out = subprocess.run(
        [sys.executable, "-c", PLAY], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_compiled_and_pure_python_play_the_same_games() -> None:
    pure, default = _play(pure=True), _play(pure=False)
    assert not any(pure["status"].values())  # FARLIGHT_PURE_PYTHON=1 really ran the source
    assert pure["digest"] == default["digest"]
    for run in (pure, default):  # what build_status reads from disk is what the imports did
        assert run["predicted"] == run["status"]


@pytest.mark.skipif(
    os.environ.get("REQUIRE_COMPILED", "") in ("", "0"),
    reason="REQUIRE_COMPILED=1 (set by .ci/run) checks that the install compiled the hot modules",
)
def test_the_install_runs_every_hot_module_compiled() -> None:
    assert compiled.read_build_record(), "no _compiled.json: setup.py did not build"
    predicted = compiled.build_status()
    assert all(predicted.values()), {name for name, ok in predicted.items() if not ok}
    imported = {name: importlib.import_module(name) for name in compiled.COMPILED_MODULES}
    assert all(compiled.is_compiled(module) for module in imported.values())


def _fake_tree(tmp_path: Path, text: str = "x = 1\n") -> Path:
    path = compiled.source_path("farlight_env.game.game", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_a_module_whose_source_changed_since_the_build_is_imported_from_source(
    tmp_path: Path,
) -> None:
    path = _fake_tree(tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    record = {"farlight_env.game.game": digest}
    assert compiled.modules_from_source(record, tmp_path) == {}
    path.write_text("x = 2\n")  # an edit, or a checkout of another commit
    assert compiled.modules_from_source(record, tmp_path) == {"farlight_env.game.game": path}
    assert compiled.modules_from_source({}, tmp_path) == {}  # never built: plain import
    forced = compiled.modules_from_source(record, tmp_path, force=True)
    assert forced == {"farlight_env.game.game": path}


def test_the_source_finder_wins_over_a_build_beside_the_source(tmp_path: Path) -> None:
    package = tmp_path / "stale_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hot.py").write_text("WHERE = 'source'\n")
    for suffix in compiled.importlib.machinery.EXTENSION_SUFFIXES:
        (package / f"hot{suffix}").write_bytes(b"not a shared object")  # a broken 'build'
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from farlight_env.compiled import SourceFinder
        try:
            import stale_demo.hot
        except ImportError:
            print("plain import took the build")
        sys.modules.pop("stale_demo.hot", None)
        sys.meta_path.insert(0, SourceFinder({{"stale_demo.hot": {str(package / "hot.py")!r}}}))
        import stale_demo.hot
        print(stale_demo.hot.WHERE)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["plain", "import", "took", "the", "build", "source"]


def test_a_broken_build_record_means_no_build(tmp_path: Path) -> None:
    for text in ("", "{", "[]", json.dumps({"sources": 3})):
        (tmp_path / "r.json").write_text(text)
        assert compiled.read_build_record(tmp_path / "r.json") == {}
    assert compiled.read_build_record(tmp_path / "missing.json") == {}
