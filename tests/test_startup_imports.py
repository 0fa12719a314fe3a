"""Start-up (issue 29): ``python -m dp_core calibrate`` and ``glossary`` import neither pandas nor
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


#: ``calibrate`` of every mechanism but DP-GD, whose accountant (dp_accounting) loads scipy.stats itself.
CALIBRATE = [
    ("gaussian", "--eps", "1", "--delta", "1e-5"),
    ("laplace", "--eps", "0.5", "--sensitivity", "2"),
    ("input-perturbation", "--eps", "1", "--delta", "1e-5", "--d", "5", "--n", "1000"),
    ("l1-exponential", "--n", "1000", "--d", "5", "--eps", "1"),
    ("label-dp-bags", "--eps", "1", "--k", "10", "--m", "100", "--n", "1000"),
    ("large-margin-gaussian", "--d", "5", "--eps", "1"),
    ("adassp",),
    ("dp-naive-bayes",),
    ("label-rr",),
]


@pytest.mark.parametrize("argv", CALIBRATE, ids=[a[0] for a in CALIBRATE])
def test_calibrate_imports_neither_pandas_nor_scipy_stats(argv):
    run = _run("calibrate", *argv)
    assert run["code"] == 0
    assert run["out"].lstrip().startswith("{")  # the command's JSON answer
    assert [m for m in HEAVY if m in run["modules"]] == []
    assert "dp_core.calibration" in run["modules"] or "dp_core.mechanisms" in run["modules"]  # it really ran


def test_glossary_imports_neither_pandas_nor_scipy_stats():
    run = _run("glossary")
    assert run["code"] == 0 and '"entries"' in run["out"]
    assert [m for m in HEAVY if m in run["modules"]] == []
    # every mechanism folder's entries are there: the registry was read, only lighter
    assert {f"dp_core.mechanisms.{m}" for m in ("input_perturbation", "label_dp_bags", "large_margin_gaussian")} <= set(
        run["modules"]
    )


def test_the_probe_sees_pandas_when_a_command_loads_it():
    run = _run("compare", "--dataset", "iris", "--trials", "2", "--n-eps", "2")
    assert run["code"] == 0
    assert "pandas" in run["modules"]
