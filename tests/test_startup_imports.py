"""Start-up (issue 29): ``python -m dp_core calibrate`` of the textbook mechanisms imports neither pandas nor
scipy.stats (calibrate spent 90 % of its 1.1 s of CPU importing pandas, pyarrow and scipy). Checked on the
modules loaded after the command, in a fresh interpreter (no time is measured)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "pyarrow", "scipy.stats")

_PROBE = """
import io, json, runpy, sys, contextlib
sys.argv = ["dp_core", *json.loads(sys.argv[1])]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        runpy.run_module("dp_core", run_name="__main__")
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _run(*argv: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "argv",
    [
        ("calibrate", "gaussian", "--eps", "1", "--delta", "1e-5"),
        ("calibrate", "laplace", "--eps", "0.5", "--sensitivity", "2"),
    ],
)
def test_calibrate_imports_neither_pandas_nor_scipy_stats(argv):
    run = _run(*argv)
    assert run["code"] == 0
    assert "sigma_analytic" in run["out"] or "scale" in run["out"]
    assert [m for m in HEAVY if m in run["modules"]] == []
    assert "dp_core.calibration" in run["modules"]  # the probe really ran the command


def test_the_probe_sees_pandas_when_a_command_loads_it():
    run = _run("compare", "--dataset", "iris", "--trials", "2", "--n-eps", "2")
    assert run["code"] == 0
    assert "pandas" in run["modules"]
