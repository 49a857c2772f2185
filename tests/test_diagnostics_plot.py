"""auction_diagnostics.png reads at a glance (#48): no legend covers a bar, and the agents come
in the order ratings.png shows them (best rated first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.farlight.diagnostics import diagnostics_figure
from evaluation.tournament import run_tournament
from evaluation.tournament.results import write_results


@pytest.fixture(scope="module")
def result():
    lineup = ["random", "heuristic", "ismcts"]
    kwargs = {"ismcts": {"iterations": 5}}
    return run_tournament(lineup, 3, games=6, seed=1, progress=False, agent_kwargs=kwargs)


def test_no_legend_covers_a_bar(result) -> None:
    diagnostics = result.diagnostics()
    fig = diagnostics_figure(diagnostics, "t", list(diagnostics))
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    for ax in fig.axes:
        legend = ax.get_legend().get_window_extent(renderer)
        for bar in ax.patches:
            box = bar.get_window_extent(renderer)
            if box.height > 0:
                assert not legend.overlaps(box), ax.get_ylabel()


def test_agents_come_in_the_ratings_order(result, tmp_path: Path, monkeypatch) -> None:
    seen: dict[str, list[str]] = {}
    import evaluation.tournament.results as results

    original = results.plot_diagnostics

    def spy(diagnostics, path, title, labels):
        seen["order"] = list(diagnostics)
        original(diagnostics, path, title, labels)

    monkeypatch.setattr(results, "plot_diagnostics", spy)
    paths = write_results(result, tmp_path)
    ranked = [r.agent for r in sorted(result.summary, key=lambda r: -r.rating)]
    assert seen["order"] == ranked and paths["diagnostics_plot"].stat().st_size > 0
