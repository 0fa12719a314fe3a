"""Regression tests for the hostile CLI inputs of issue 11 (each case was a crash, a hang or a
silent acceptance on main). In-process through ``dp_core.cli.main`` unless a real process is the
point (Ctrl-C)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _hostile as H

from dp_core.cli import main

ROOT = Path(__file__).resolve().parent.parent


def one_error_line(res: H.Result, *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line containing every needle, no traceback."""
    assert not res.timed_out
    assert res.code == 2, (res.code, res.err)
    assert res.out == ""
    assert "Traceback" not in res.err
    lines = res.err.splitlines()
    assert len(lines) == 1, res.err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --- internal errors on main: ZeroDivisionError, OverflowError, AttributeError, hangs ------------


@pytest.mark.parametrize(
    "argv, needles",
    [
        (
            ["calibrate", "l1-exponential", "--n", "0", "--d", "2", "--eps", "1"],
            ["n must be an integer in [1,", "got 0"],
        ),
        (
            ["calibrate", "l1-exponential", "--n", "1000", "--d", "2", "--eps", "1", "--tau", "1e308"],
            ["tau", "1e+308"],
        ),
        (
            ["calibrate", "input-perturbation", "--n", "1000", "--d", "3", "--eps", "1e-320", "--delta", "1e-5"],
            ["epsilon", "1e-320"],
        ),
        (
            "calibrate input-perturbation --n 1000 --d 3 --eps 1 --delta 1e-5 --alpha 1e-320".split(),
            ["alpha"],
        ),
        (
            ["calibrate", "label-dp-bags", "--n", "100000000000000000000", "--k", "8", "--m", "10", "--eps", "1"],
            ["n must be an integer in [2, 9223372036854775807]"],
        ),
        (
            "calibrate label-dp-bags --n 1000 --k 8 --m 10 --eps 1 --noise-std 0".split(),
            ["noise_std must be in (0, inf), got 0"],
        ),
        (["calibrate", "large-margin-gaussian", "--n", "100", "--d", "2", "--eps", "1e-320"], ["epsilon", "1e-320"]),
        (
            ["calibrate", "large-margin-gaussian", "--n", "100", "--d", "2", "--eps", "1", "--mode", "nan"],
            ["--mode", "invalid choice"],
        ),
        (
            ["audit", "laplace", "--eps", "1000", "--runs", "200"],
            ["epsilon must be in (0, 100] for an audit, got 1000"],
        ),
        (["audit", "large-margin-gaussian", "--h", "1e-320", "--runs", "20"], ["h must be 0 or between", "1e-320"]),
        (
            ["simulate", "l1-exponential", "--trials", "100000000000000000000"],
            ["trials must be an integer in [1, 10000]"],
        ),
    ],
)
def test_former_internal_errors_are_one_line_errors(argv, needles):
    one_error_line(H.run_cli(argv, limit=60), *needles)


def test_engine_overflow_names_the_function_and_values():
    """Values that pass their own range checks but overflow together: ValueError naming them."""
    from dp_core.mechanisms.large_margin_gaussian import privacy_params

    with pytest.raises(ValueError, match=r"privacy_params cannot be computed .* epsilon=1e-300"):
        privacy_params(epsilon=1e-300, n=100, d=2, n_classes=3, lam=0.1, h=0.5)


# --- nan / inf / -1 silently accepted --------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309"])
@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "label-dp-bags", "--runs", "50", "--n", "400", "--k", "8", "--m", "10", "--rho"],
        ["calibrate", "label-dp-bags", "--n", "1000", "--k", "8", "--m", "10", "--eps", "1", "--rho"],
        (
            "calibrate label-dp-bags --variant wtd-lba --n 1000 --k 8 --m 10 --eps 1 --d 2 --gamma 0.1 --lam 1 --b2"
        ).split(),
        (
            "calibrate label-dp-bags --variant wtd-lba --n 1000 --k 8 --m 10 --eps 1 --d 2 --b2 1 --lam 1 --gamma"
        ).split(),
        (
            "calibrate label-dp-bags --variant wtd-lba --n 1000 --k 8 --m 10 --eps 1 --d 2 --b2 1 --gamma 0.1 --lam"
        ).split(),
        "simulate label-dp-bags --n 400 --k 8 --m 10 --trials 2 --hi 1 --lo".split(),
    ],
)
def test_non_finite_numbers_are_refused_by_the_parser(argv, value):
    argv = argv[:-1] + [f"{argv[-1]}={value}"]  # --rho=-inf: otherwise argparse reads -inf as an option
    one_error_line(H.run_cli(argv), "must be a finite number", repr(value))


@pytest.mark.parametrize(
    "flag, needle", [("--b2", "b2 must be in (0, inf), got -1"), ("--gamma", "gamma"), ("--lam", "lam")]
)
def test_negative_label_dp_constants_are_refused(flag, needle):
    argv = (
        "calibrate label-dp-bags --variant wtd-lba --n 1000 --k 8 --m 10 --eps 1 --d 2 --b2 1 --gamma 0.1 --lam 1"
    ).split()
    argv[argv.index(flag) + 1] = "-1"
    one_error_line(H.run_cli(argv), needle)


def test_negative_rho_is_refused_and_rho_does_not_apply_to_wtd_lba():
    base = ["calibrate", "label-dp-bags", "--n", "1000", "--k", "8", "--m", "10", "--eps", "1"]
    one_error_line(H.run_cli(base + ["--rho", "-1"]), "rho must be in [0, 1], got -1")
    one_error_line(
        H.run_cli(
            base + ["--variant", "wtd-lba", "--d", "2", "--b2", "1", "--gamma", "0.1", "--lam", "1", "--rho", "0.2"]
        ),
        "--rho does not apply to --variant wtd-lba",
    )
    one_error_line(H.run_cli(base + ["--b2", "1"]), "--b2 does not apply to --variant noisy-wtd-llp")


def test_label_range_must_be_ordered():
    res = H.run_cli("simulate label-dp-bags --n 400 --k 8 --m 10 --trials 2 --lo 1 --hi -1".split())
    one_error_line(res)


def test_huge_and_malformed_numbers_give_short_messages():
    res = H.run_cli(["calibrate", "laplace", "--eps", "1", "--sensitivity", "9" * 5000])
    line = one_error_line(res, "--sensitivity", "must be a finite number")
    assert len(line) < 300
    res = H.run_cli(["simulate", "label-dp-bags", "--trials", "9" * 5000])
    line = one_error_line(res, "--trials", "at most 30 digits")
    assert len(line) < 300


# --- --dataset / --target where a command does not use them ---------------------------------


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["audit", "gaussian", "--runs", "200", "--dataset", "iris"], "--dataset does not apply to audit gaussian"),
        (["audit", "laplace", "--runs", "200", "--pair", "boundary", "--target", "y"], "--target does not apply"),
        (
            ["simulate", "label-dp-bags", "--dataset", "census", "--target", "income", "--trials", "2"],
            "--target does not apply to the demo dataset 'census'",
        ),
        (["simulate", "l1-exponential", "--target", "y", "--trials", "2"], "--target does not apply"),
        (
            ["calibrate", "label-dp-bags", "--n", "1000", "--k", "8", "--m", "10", "--eps", "1", "--target", "y"],
            "--target does not apply without --dataset",
        ),
        (
            ["negotiate", "--dataset", "iris", "--target", "accuracy=0.5", "--target-column", "x"],
            "--target-column does not apply",
        ),
    ],
)
def test_options_that_do_not_apply_are_refused(argv, needle):
    one_error_line(H.run_cli(argv), needle)


def test_dataset_still_used_where_it_applies():
    res = H.run_cli(["audit", "gaussian", "--runs", "200", "--pair", "random", "--dataset", "diabetes"])
    assert res.code == 0, res.err
    assert json.loads(res.out)["dataset"] == "diabetes"


# --- output paths: checked before any computation --------------------------------------------


@pytest.fixture
def no_compute(monkeypatch):
    """Make every reproduce/report computation fail loudly: the checks must come first."""
    import dp_core.mechanisms.label_dp_bags.reproduce as lbl
    import dp_core.report

    def boom(*args, **kwargs):
        raise AssertionError("the computation started before the output path was checked")

    monkeypatch.setattr(lbl, "reproduce", boom)
    monkeypatch.setattr(dp_core.report, "build_report", boom)


def test_reproduce_out_is_an_existing_file(tmp_path, no_compute):
    f = tmp_path / "x.csv"
    f.write_text("keep me")
    one_error_line(H.run_cli(["reproduce", "label-dp-bags", "--out", str(f), "--quick"]), "--out", "is a file")
    one_error_line(H.run_cli(["reproduce", "label-dp-bags", "--out", str(f), "--quick", "--force"]), "is a file")
    assert f.read_text() == "keep me"


def test_reproduce_out_in_a_missing_folder_is_refused_at_once(tmp_path, no_compute):
    target = tmp_path / "nonexistent" / "dir" / "x.csv"
    one_error_line(H.run_cli(["reproduce", "label-dp-bags", "--out", str(target), "--quick"]), "does not exist")
    assert not (tmp_path / "nonexistent").exists()


def test_reproduce_refuses_to_overwrite_an_earlier_run_without_force(tmp_path, monkeypatch):
    import dp_core.mechanisms.label_dp_bags.reproduce as lbl

    calls = []
    monkeypatch.setattr(lbl, "reproduce", lambda out, **kw: calls.append(out) or {"out": str(out)})
    (tmp_path / "label_dp_bags_tables.csv").write_text("earlier run")
    one_error_line(
        H.run_cli(["reproduce", "label-dp-bags", "--out", str(tmp_path), "--quick"]),
        "label_dp_bags_tables.csv",
        "--force",
    )
    assert calls == []
    assert H.run_cli(["reproduce", "label-dp-bags", "--out", str(tmp_path), "--quick", "--force"]).code == 0
    assert calls == [str(tmp_path)]
    (tmp_path / "unrelated.txt").write_text("x")  # other files in the folder do not block a run
    other = tmp_path / "fresh"
    assert H.run_cli(["reproduce", "label-dp-bags", "--out", str(other), "--quick"]).code == 0
    assert other.is_dir()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only folders")
def test_reproduce_unwritable_folder(tmp_path, no_compute):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        one_error_line(H.run_cli(["reproduce", "label-dp-bags", "--out", str(ro / "x"), "--quick"]), "writ")
    finally:
        ro.chmod(0o700)


def test_reproduce_checks_seed_and_trials_before_computing(tmp_path, no_compute):
    one_error_line(H.run_cli(["reproduce", "label-dp-bags", "--out", str(tmp_path), "--seed", "-1"]), "seed")
    one_error_line(H.run_cli(["reproduce", "large-margin-gaussian", "--out", str(tmp_path), "--trials", "0"]), "trials")
    one_error_line(
        H.run_cli(["reproduce", "large-margin-gaussian", "--out", str(tmp_path), "--trials", "100000000000000000000"]),
        "trials",
    )


def test_report_out_exists_or_folder_missing(tmp_path, no_compute):
    cfg = H.write_report_config(tmp_path)
    existing = tmp_path / "r.html"
    existing.write_text("old")
    one_error_line(H.run_cli(["report", "--config", str(cfg), "--out", str(existing)]), "already exists", "--force")
    one_error_line(
        H.run_cli(["report", "--config", str(cfg), "--out", str(tmp_path / "no" / "r.html")]), "does not exist"
    )
    one_error_line(
        H.run_cli(["report", "--config", str(cfg), "--out", str(tmp_path / "new.html"), "--csv", str(existing)]),
        "--csv",
        "already exists",
    )
    assert existing.read_text() == "old"


def test_report_force_overwrites(tmp_path):
    cfg = H.write_report_config(tmp_path)
    existing = tmp_path / "r.html"
    existing.write_text("old")
    res = H.run_cli(["report", "--config", str(cfg), "--out", str(existing), "--force"], limit=60)
    assert res.code == 0, res.err
    assert existing.read_text().lstrip().lower().startswith("<!doctype html")


# --- Ctrl-C and other exceptions ---------------------------------------------------------------


def test_keyboard_interrupt_is_one_line_and_exit_130(monkeypatch, capsys):
    import dp_core.calibration as cal

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cal, "laplace_scale", interrupted)
    assert main(["calibrate", "laplace", "--eps", "1"]) == 130
    cap = capsys.readouterr()
    assert cap.err == "interrupted\n" and cap.out == ""


@pytest.mark.parametrize(
    "exc",
    [RuntimeError("solver exploded"), AttributeError("'NoneType' has no x"), RecursionError("deep"), IndexError("0")],
)
def test_unexpected_exception_is_still_one_line(monkeypatch, capsys, exc):
    import dp_core.calibration as cal

    def broken(**kwargs):
        raise exc

    monkeypatch.setattr(cal, "laplace_scale", broken)
    assert main(["calibrate", "laplace", "--eps", "1"]) == 1
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("internal error: ") and type(exc).__name__ in lines[0]
    assert "Traceback" not in cap.err


def test_warnings_do_not_break_the_one_line_error(monkeypatch, capsys):
    import warnings

    import dp_core.calibration as cal

    def noisy(**kwargs):
        warnings.warn("overflow encountered in exp", RuntimeWarning, stacklevel=2)
        raise ValueError("sensitivity must be in (0, inf), got 0.")

    monkeypatch.setattr(cal, "laplace_scale", noisy)
    assert main(["calibrate", "laplace", "--eps", "1"]) == 2
    assert capsys.readouterr().err == "error: sensitivity must be in (0, inf), got 0.\n"


def test_ctrl_c_in_a_real_process():
    """SIGINT while a long simulation runs: "interrupted" on stderr, exit 130, no traceback."""
    # ``python -m dp_core`` with Python's own SIGINT handler installed first: a shell's background job
    # would otherwise pass SIGINT down as ignored and the child would never see Ctrl-C
    launcher = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv = ['dp_core', 'simulate', 'label-dp-bags', '--trials', '100000']; "
        "runpy.run_module('dp_core', run_name='__main__', alter_sys=True)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", launcher], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(4.0)  # let it import and start computing (the exit status is the same if it is still importing)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert err == "interrupted\n" and out == ""


# --- lazy command discovery --------------------------------------------------------------------


def test_declared_cli_names_match_the_commands_of_each_module():
    import importlib

    from dp_core.cli._lazy import declared_names

    declared = declared_names()
    assert declared and all(v is not None for v in declared.values()), declared
    for name, pairs in declared.items():
        module = importlib.import_module(f"dp_core.cli.{name}")
        actual = {(c.command, c.mechanism) for c in module.COMMANDS}
        if any(m == "*" for _, m in pairs):
            assert {v for v, _ in actual} == {v for v, _ in pairs}, name
        else:
            assert actual == set(pairs), name


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["calibrate", "gaussian", "--eps", "1"], ["mechanisms.textbook"]),
        (["audit", "laplace"], ["audit"]),
        (["negotiate", "--dataset", "iris"], ["compare"]),
        (["simulate", "label-dp-bags", "--trials", "2"], ["mechanisms.label_dp_bags"]),
        (["simulate", "label-aggregation", "--trials", "2"], ["mechanisms.label_dp_bags"]),
        (["release", "label-dp-bags"], ["release"]),
        (["calibrate", "nosuch"], None),
        (["--help"], None),
        ([], None),
    ],
)
def test_only_the_needed_command_module_is_imported(argv, expected):
    from dp_core.cli._lazy import modules_for

    assert modules_for(argv) == expected
