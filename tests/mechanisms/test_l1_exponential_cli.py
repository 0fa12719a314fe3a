"""The l1-exponential commands of ``python -m dp_core`` (calibrate, simulate, reproduce --quick)."""

import json

import pytest
from _helpers import run_main as run


def test_calibrate_e1_check_values(capsys):
    code, out = run(
        capsys,
        "calibrate",
        "l1-exponential",
        "--n",
        "10000",
        "--d",
        "5",
        "--eps",
        "1",
        "--theta",
        "1.5",
        "--tau",
        "1",
        "--sigma",
        "1",
        "--eta",
        "0.05",
        "--assumption",
        "A3",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    assert r["sensitivity"] == pytest.approx(1.989e-3, rel=1e-3)
    assert r["sensitivity_paper"] == pytest.approx(3.979e-3, rel=1e-3)
    assert r["kappa"] == pytest.approx(1.233, rel=1e-3)
    assert r["iota_star"] == pytest.approx(0.02038, rel=1e-3)
    assert r["bound_explicit"] == pytest.approx(3.412, rel=1e-3)
    assert r["bound_privacy"] == pytest.approx(0.2372, rel=1e-3)
    assert r["rate_paper"] == pytest.approx(0.2398, rel=1e-3)
    assert r["iota_paper"] == pytest.approx(0.05752, rel=1e-3)
    assert "constant" in r["rate_label"]


def test_calibrate_e2_and_paper_box_label(capsys):
    code, out = run(
        capsys,
        "calibrate",
        "l1-exponential",
        "--n",
        "1000",
        "--d",
        "2",
        "--eps",
        "0.5",
        "--theta",
        "2",
        "--assumption",
        "A1",
        "--conv",
        "paper_box",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    assert r["kappa_tight"] == pytest.approx(0.3607, rel=1e-3)
    assert r["kappa"] == pytest.approx(0.7213, rel=1e-3)
    assert r["replace_one_epsilon"] == pytest.approx(1.0)  # 2 eps: the printed temperature is not eps-DP
    assert "not ε-DP" in r["guarantee"]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--eps", "0"], "epsilon must be in"),
        (["--eps", "1", "--theta", "2.5"], "theta must be in [1.05, 2]"),
        (["--eps", "1", "--ci", "-1"], "--ci"),
    ],
)
def test_calibrate_bad_input_exits_2(capsys, args, needle):
    code, out = run(capsys, "calibrate", "l1-exponential", "--n", "100", "--d", "2", *args)
    assert code == 2
    assert needle in out.err and out.err.count("\n") == 1


def test_simulate_synthetic(capsys):
    code, out = run(capsys, "simulate", "l1-exponential", "--n", "500", "--d", "1", "--trials", "3", "--seed", "2")
    assert code == 0, out.err
    r = json.loads(out.out)
    assert set(r["methods"]) == {"em_l1", "em_clipped", "dp_gd", "nonprivate"}
    em = r["methods"]["em_l1"]
    assert em["n_trials"] == 3 and em["excess_risk_mean"] > 0 and em["excess_risk_se"] > 0
    assert "exact ε-DP" in r["privacy_label"]


def test_simulate_real_dataset_mcmc_diagnostics(capsys):
    code, out = run(
        capsys,
        "simulate",
        "l1-exponential",
        "--dataset",
        "diabetes",
        "--eps",
        "1",
        "--trials",
        "4",
        "--mode",
        "mcmc",
        "--preset",
        "quick",
    )
    assert code == 0, out.err
    r = json.loads(out.out)
    assert r["mode"] == "mcmc" and "not proved" in r["privacy_label"]
    assert 0 < r["sampler_diagnostics"]["acceptance"] < 1


@pytest.mark.slow
def test_reproduce_quick(capsys, tmp_path):
    code, out = run(capsys, "reproduce", "l1-exponential", "--out", str(tmp_path), "--quick", "--trials", "2")
    assert code == 0, out.err
    r = json.loads(out.out)
    assert (tmp_path / "l1_exponential_F1_rates.csv").exists()
    assert (tmp_path / "l1_exponential_F5_sampler.csv").exists()
    assert set(r["F1_fitted_slopes"]) == {"theta=1.2", "theta=1.5", "theta=2"}
