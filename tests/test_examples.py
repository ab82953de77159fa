"""The notebooks in examples/ run from top to bottom without an error (issue 32 item 5), each in
a fresh python3 kernel working in a temporary directory, and are committed without outputs.
The kernel imports nicsim as installed (in CI, `pip install .[test]`; locally, the PYTHONPATH
it inherits)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the test extra's nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra's nbclient")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = ("placements.ipynb", "design_space_sweep.ipynb", "check_against_measurements.ipynb")
# Each runs in seconds on a two-core machine; the margin is for a loaded CI runner.
TIMEOUT_S = 120


def test_the_examples_are_the_three_notebooks():
    assert sorted(p.name for p in EXAMPLES.glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_is_committed_without_outputs(name):
    nb = json.loads((EXAMPLES / name).read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{name} has no code"
    dirty = [i for i, c in enumerate(code) if c.get("outputs") or c.get("execution_count") is not None]
    assert not dirty, f"{name}: code cells {dirty} carry outputs; clear them before committing"


def kernel_env(tmp: Path) -> dict[str, str]:
    """This process's environment with PYTHONPATH's relative entries made absolute: the kernel
    works in another directory, where `PYTHONPATH=python` would silently find the installed
    package instead of the one under test. The notebooks' temporary directories go under `tmp`,
    which pytest cleans up."""
    env = dict(os.environ, TMPDIR=str(tmp))
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return env


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_runs_without_an_error(name, tmp_path):
    import nicsim

    nb = nbformat.read(EXAMPLES / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import nicsim; print(nicsim.__file__)"))
    client = nbclient.NotebookClient(nb, timeout=TIMEOUT_S, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=kernel_env(tmp_path))  # raises CellExecutionError, naming the cell, on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(o.output_type == "display_data" and "image/png" in o.data for o in outputs), f"{name} drew no figure"
    assert nb.cells[-1].outputs[0].text.strip() == nicsim.__file__, "the kernel ran another nicsim than the one under test"


@pytest.mark.parametrize("module", ["nicsim.plot", "nicsim.analytic.plot"])
def test_importing_nicsim_keeps_the_backend_a_notebook_chose(module):
    """`%matplotlib inline` imports pyplot with its backend; nicsim's plotting modules, which
    pick Agg for the command line, must not take it away (the notebooks' figures vanished)."""
    def backend(first: str) -> str:
        env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
        code = f"import matplotlib; {first}; import {module}; print(matplotlib.get_backend().lower())"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    assert backend("matplotlib.use('svg'); import matplotlib.pyplot") == "svg"
    assert backend("pass") == "agg"
