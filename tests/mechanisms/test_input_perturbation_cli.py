"""CLI of input perturbation: calibrate (reference values), simulate, reproduce --quick, errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import run_main as run

ROOT = Path(__file__).resolve().parents[2]


def test_calibrate_s1_check_values(capsys):
    code, out = run(
        capsys,
        "calibrate",
        "input-perturbation",
        "--n",
        "10000",
        "--d",
        "10",
        "--eps",
        "1",
        "--delta",
        "1e-5",
        "--zeta",
        "1",
        "--lam",
        "1",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    for key, want in [
        ("sigma_b", 10.35),
        ("sigma_u", 1.653),
        ("Delta", 131.0),
        ("Delta_in", 129.0),
        ("eps_run", 1.0),
        ("eps_local_paper", 679.8),
        ("eps_local_exact", 8008),
        ("delta_local", 2e-5),
        ("bound_theorem2", 0.01315),
        ("bound_lemma2", 0.01641),
        ("sigma_u_corr", 11.16),
    ]:
        assert r[key] == pytest.approx(want, rel=1e-3), key
    assert r["valid"] is True and "as claimed by the paper" in r["central_guarantee"]


def test_calibrate_s3_from_model_and_alpha(capsys):
    code, out = run(
        capsys,
        "calibrate",
        "input-perturbation",
        "--n",
        "128",
        "--d",
        "13",
        "--eps",
        "1",
        "--delta",
        "0.01",
        "--model",
        "logistic",
    )
    r = json.loads(out.out)
    assert r["zeta"] == 0.75 and r["lam"] == 0.25
    assert r["sigma_u"] == pytest.approx(1.594, rel=1e-3) and r["bound_theorem2"] == pytest.approx(0.6239, rel=1e-3)
    code, out = run(
        capsys,
        "calibrate",
        "input-perturbation",
        "--n",
        "10000",
        "--d",
        "10",
        "--eps",
        "1",
        "--delta",
        "1e-5",
        "--zeta",
        "1",
        "--lam",
        "1",
        "--alpha",
        "0.25",
    )
    assert json.loads(out.out)["sigma_u"] == pytest.approx(3.117, rel=1e-3)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--n", "50"], "n must be greater than 4 ln(8/delta)"),
        (["--eps", "0"], "epsilon must be in"),
        (["--delta", "1.5"], "delta must be in"),
        (["--alpha", "2"], "alpha must be one of"),
        (["--Delta", "1"], "Delta must be greater than"),
    ],
)
def test_calibrate_errors_exit_2_with_one_line(capsys, args, needle):
    base = {"--n": "10000", "--d": "10", "--eps": "1", "--delta": "1e-5"}
    extra = dict(zip(args[::2], args[1::2]))
    argv = ["calibrate", "input-perturbation"] + [x for kv in {**base, **extra}.items() for x in kv]
    code, out = run(capsys, *argv)
    assert code == 2 and out.out == ""
    assert needle in out.err and out.err.count("\n") == 1


def test_simulate_json_keys_and_values(capsys):
    code, out = run(
        capsys,
        "simulate",
        "input-perturbation",
        "--dataset",
        "census",
        "--n",
        "4000",
        "--eps",
        "1",
        "--delta",
        "1e-5",
        "--trials",
        "30",
        "--seed",
        "3",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    assert set(r["methods"]) == {"input", "objective", "output", "nonprivate"}
    for m in ("input", "objective", "output"):
        v = r["methods"][m]
        assert 0 < v["excess_risk_mean"] < v["bound"] and v["excess_risk_se"] > 0 and v["n_trials"] == 30
        assert v["rmse_mean"] >= r["methods"]["nonprivate"]["rmse_mean"] - 1e-9
    assert r["n"] == 4000 and r["d"] == 14 and r["metric"] == "rmse"
    assert 0 <= r["privacy_diagnostic"]["measured_fraction_lemma1_pointwise"] <= 1


def test_simulate_logistic_records_on_a_demo_dataset(capsys):
    code, out = run(
        capsys,
        "simulate",
        "input-perturbation",
        "--dataset",
        "breast_cancer",
        "--eps",
        "2",
        "--delta",
        "1e-3",
        "--trials",
        "10",
        "--sampler",
        "records",
        "--model",
        "logistic",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    assert r["metric"] == "accuracy" and 0.3 < r["methods"]["input"]["accuracy_mean"] <= 1
    # breast_cancer ships documented public ranges: nothing is read off the data
    assert r["leak_warnings"] == [] and r["preprocess"] == "normalize" and r["eta_rule"]


def test_simulate_preprocess_option(capsys):
    args = ("simulate", "input-perturbation", "--dataset", "breast_cancer", "--eps", "2", "--delta", "1e-3")
    code, out = run(capsys, *args, "--trials", "5", "--model", "logistic", "--preprocess", "minmax", "--eta", "2")
    assert code == 0, out.err
    r = json.loads(out.out)
    assert r["preprocess"] == "minmax" and r["eta"] == 2.0 and not r["eta_rule"]
    assert any("minimum and maximum taken from the data" in w for w in r["leak_warnings"])
    code, out = run(capsys, *args, "--preprocess", "standardise")
    assert code == 2 and "--preprocess" in out.err


def test_simulate_least_squares_on_classes_is_a_clear_error(capsys):
    code, out = run(
        capsys, "simulate", "input-perturbation", "--dataset", "iris", "--eps", "1", "--delta", "1e-3", "--trials", "5"
    )
    assert code == 2 and "logistic" in out.err


def test_reproduce_quick_writes_both_figures(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_core",
            "reproduce",
            "input-perturbation",
            "--out",
            str(tmp_path),
            "--quick",
            "--trials",
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    names = sorted(Path(f).name for f in r["files"])
    assert names == [
        "input_perturbation_figure1_rmse.html",
        "input_perturbation_figure2_accuracy.html",
        "input_perturbation_reproduction.csv",
    ]
    for f in r["files"]:
        assert Path(f).stat().st_size > 1000
    csv = (tmp_path / "input_perturbation_reproduction.csv").read_text()
    assert "least_squares" in csv and "logistic_taylor" in csv
    assert r["n_grid"] == [128, 512, 2048, 8192]
    tuned = r["tuned_Delta_multipliers"]
    assert set(tuned) == {
        "least_squares_eps0.1",
        "least_squares_eps1",
        "logistic_taylor_eps0.1",
        "logistic_taylor_eps1",
    }
    assert all(
        set(v) == {"input", "objective", "output"} and set(v.values()) <= {0.1, 0.3, 1.0, 3.0, 10.0}
        for v in tuned.values()
    )
    # the gap to the non-private RMSE shrinks with n (paper's finding 1)
    c = r["shape_checks"]["least_squares_eps1"]
    assert c["input_minus_nonprivate_at_n_max"] < c["input_minus_nonprivate_at_n_min"]
