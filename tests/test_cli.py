import json
import subprocess
import sys
from pathlib import Path

import pytest

from dp_core.cli import discover_commands, main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "dp_core", *args], cwd=ROOT, capture_output=True, text=True)


def test_calibrate_gaussian_check_values():
    out = run_cli("calibrate", "gaussian", "--eps", "1", "--delta", "1e-5", "--sensitivity", "1")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["sigma_analytic"] == pytest.approx(3.7306, rel=1e-3)
    assert res["sigma_classic"] == pytest.approx(4.8448, rel=1e-3)


def test_calibrate_gaussian_large_eps_marks_classic_invalid(capsys):
    assert main(["calibrate", "gaussian", "--eps", "3", "--delta", "1e-5"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["sigma_classic"] is None and res["classic_valid"] is False  # not defined: null


def test_calibrate_laplace(capsys):
    assert main(["calibrate", "laplace", "--eps", "0.5", "--sensitivity", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"] == 4.0


@pytest.mark.parametrize(
    "args, needle",
    [
        (["calibrate", "gaussian", "--eps", "-1", "--delta", "1e-5"], "epsilon must be in"),
        (["calibrate", "gaussian", "--eps", "1", "--delta", "2"], "delta must be in"),
        (["calibrate", "gaussian", "--eps", "1"], "required"),
        (["calibrate", "gaussian", "--eps", "abc", "--delta", "0.1"], "invalid float"),
        (["calibrate", "nosuch"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_errors_exit_2_with_one_line(args, needle):
    out = run_cli(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in out.stderr


def test_every_command_has_help_and_json_runner():
    cmds = discover_commands()
    assert {("calibrate", "gaussian"), ("calibrate", "laplace")} <= {(c.command, c.mechanism) for c in cmds}
    for c in cmds:
        assert c.help and callable(c.run) and callable(c.add_arguments)


def test_help_exits_zero():
    out = run_cli("--help")
    assert out.returncode == 0 and "calibrate" in out.stdout
