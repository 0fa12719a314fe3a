"""The CLI's JSON holds no non-finite number in any form, and no option is accepted and then ignored.

Issue 24, part 7: ``calibrate gaussian --sensitivity 0`` printed ``"nan"`` as a string and
``simulate l1-exponential --bounds ...`` silently ignored the option. Every command's quick form
(``tests/_hostile.py``) is run; ``reproduce`` (tens of seconds, writes files) is left to its own tests.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from _hostile import QUICK, argv_for, base_settings, commands, run_cli

from dp_core.cli import to_jsonable
from dp_core.data import load_dataset

#: every spelling of a non-finite number a JSON writer could produce
NON_FINITE = re.compile(r'"-?(nan|inf|infinity)"|\bNaN\b|-?\bInfinity\b', re.IGNORECASE)

QUICK_COMMANDS = [c for c in commands() if c.verb != "reproduce"]
BOUNDS_COMMANDS = [c for c in QUICK_COMMANDS if any(o.flag == "--bounds" for o in c.options)]


def _strict(text: str):
    def refuse(token):
        raise AssertionError(f"non-JSON constant {token} in the output")

    return json.loads(text, parse_constant=refuse)


def test_to_jsonable_writes_every_non_finite_number_as_null():
    got = to_jsonable({"a": float("nan"), "b": (np.float32("inf"), -np.inf, 2.5), "c": np.array([np.nan, 1.0])})
    assert got == {"a": None, "b": [None, None, 2.5], "c": [None, 1.0]}
    assert NON_FINITE.search(json.dumps(got, allow_nan=False)) is None


def test_the_pattern_catches_every_spelling():
    for bad in ('{"x": "nan"}', '{"x": "-inf"}', '{"x": NaN}', '{"x": -Infinity}', '{"x": "Infinity"}'):
        assert NON_FINITE.search(bad), bad
    assert NON_FINITE.search('{"note": "infinite values", "inference": 1}') is None


@pytest.mark.parametrize("cmd", QUICK_COMMANDS, ids=lambda c: c.name)
def test_every_command_prints_strict_json_without_non_finite_numbers(cmd, tmp_path):
    if cmd.verb in ("report", "notebook", "brief"):  # the commands of a JSON configuration
        from _hostile import write_report_config

        write_report_config(tmp_path)
    res = run_cli(argv_for(cmd, base_settings(cmd, tmp_path)), limit=120)
    assert not res.timed_out and res.code == 0, res.err[-500:]
    assert NON_FINITE.search(res.out) is None, NON_FINITE.search(res.out).group(0)
    _strict(res.out)


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate", "gaussian", "--eps", "1", "--delta", "1e-5", "--sensitivity", "0"],  # ratio 0/0
        ["calibrate", "gaussian", "--eps", "3", "--delta", "1e-5"],  # classic formula outside its range
    ],
    ids=["sensitivity-0", "classic-invalid"],
)
def test_undefined_numbers_are_null(argv):
    res = run_cli(argv)
    assert res.code == 0, res.err
    out = _strict(res.out)
    assert NON_FINITE.search(res.out) is None
    assert None in out.values()  # the undefined number is there, as null


def _narrow_bounds(name: str) -> str:
    """Bounds clipping every feature of ``name`` to its middle half (so they must change a result that uses them)."""
    X = load_dataset(name).X
    lo, hi = np.quantile(X, 0.25, axis=0), np.quantile(X, 0.75, axis=0)
    hi = np.where(hi > lo, hi, lo + 1.0)
    return ",".join(f"{a!r}:{b!r}" for a, b in zip(lo.tolist(), hi.tolist()))


@pytest.mark.parametrize("cmd", BOUNDS_COMMANDS, ids=lambda c: c.name)
def test_bounds_change_the_output_or_are_refused(cmd, tmp_path):
    settings = base_settings(cmd, tmp_path)
    base = run_cli(argv_for(cmd, settings), limit=120)
    assert base.code == 0, base.err
    out = _strict(base.out)
    name = settings.get("--dataset") or out.get("dataset") or "census"
    res = run_cli(argv_for(cmd, {**settings, "--bounds": _narrow_bounds(name)}), limit=120)
    if res.code == 2:
        assert len(res.err_lines) == 1 and "--bounds" in res.err, res.err
        return
    assert res.code == 0, res.err
    assert _strict(res.out) != out, f"{cmd.name} accepted --bounds and printed the same result"


def test_l1_exponential_simulate_refuses_bounds_naming_the_option():
    res = run_cli(["simulate", "l1-exponential", *argv_for_quick("simulate l1-exponential"), "--bounds", "0:1"])
    assert res.code == 2 and len(res.err_lines) == 1
    assert "--bounds does not apply to simulate l1-exponential" in res.err


def argv_for_quick(name: str) -> list[str]:
    return [w for flag, value in QUICK[name].items() for w in ([flag] if value is None else [flag, value])]


def test_calibrate_label_dp_bags_with_a_dataset_refuses_bounds():
    argv = ["calibrate", "label-dp-bags", "--variant", "wtd-lba", "--eps", "1", "--k", "8", "--m", "10"]
    res = run_cli([*argv, "--dataset", "diabetes", "--bounds", _narrow_bounds("diabetes")])
    assert res.code == 2 and len(res.err_lines) == 1
    assert "--bounds does not apply to calibrate label-dp-bags" in res.err
