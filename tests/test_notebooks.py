"""The notebooks in notebooks/ run top to bottom (executed in CI with tiny budgets).

Each is executed with nbclient in a fresh python3 kernel from the repository root, with the
budgets its parameter cell sets; any error fails the test with the failing cell's traceback.
The committed notebooks carry their outputs (pictures and tables show when browsing the
repository), written by `python scripts/run_notebooks.py`; the stored outputs must come from
one clean top-to-bottom run, without errors and within a size budget.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="notebook tests need nbformat (dev extra)")
nbclient = pytest.importorskip("nbclient", reason="notebook tests need nbclient (dev extra)")
pytest.importorskip("ipykernel", reason="notebook tests need ipykernel (dev extra)")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
NAMES = ("01_quickstart", "02_train_and_evaluate", "03_your_own_agent", "04_bidding_agents")
#: Seconds any one cell may take on a loaded CI machine (each whole notebook takes ~10 s).
CELL_TIMEOUT = 180
NEEDS_TORCH = {"02_train_and_evaluate", "04_bidding_agents"}
#: Largest notebook file, outputs included (pictures are base64 PNG).
MAX_NOTEBOOK_BYTES = 400_000


def read(name: str):
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def test_every_notebook_is_listed_in_the_readme() -> None:
    found = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert found == sorted(NAMES)
    readme = (NOTEBOOKS / "README.md").read_text()
    for name in NAMES:
        assert f"{name}.ipynb" in readme, name


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_stored_with_the_outputs_of_one_clean_run(name: str) -> None:
    nb = read(name)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    regenerate = "run `python scripts/run_notebooks.py` and commit the result"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), regenerate
    outputs = [output for cell in code for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"], regenerate
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "a picture shows on the page"
    assert all("execution" not in cell.metadata for cell in code), "no timestamps in the file"
    size = (NOTEBOOKS / f"{name}.ipynb").stat().st_size
    assert size < MAX_NOTEBOOK_BYTES, f"{size:,} bytes: keep figures and printouts small"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_parametrised_and_installs_from_the_repository(name: str) -> None:
    nb = read(name)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    prose = " ".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert "pip install farlight-env" not in prose, "the package is not on PyPI"
    assert 'pip install "farlight-env' not in prose, "the package is not on PyPI"
    assert sum(cell.cell_type == "markdown" for cell in nb.cells) >= len(code) // 2
    # the first code cell holds the budgets: upper-case names assigned constants
    first = code[0].source.splitlines()
    assignments = [line for line in first if line and not line.startswith("#")]
    assert assignments and all(line.split("=")[0].strip().isupper() for line in assignments)


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_top_to_bottom(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if name in NEEDS_TORCH:
        pytest.importorskip("torch", reason="needs the train extra")
        pytest.importorskip("sb3_contrib", reason="needs the train extra")
    nb = read(name)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    # the kernel's connection files and the notebooks' temporary run directories go to the
    # test's directory, not the user's home or /tmp
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors, json.dumps(errors, indent=1)[:3000]
    text = "".join(
        output.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream" and output.get("name") == "stdout"
    )
    assert "Traceback" not in text
    images = sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert images >= 1, "every notebook shows at least one picture"
