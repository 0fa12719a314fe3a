"""CLI: ``calibrate large-margin-gaussian`` and ``simulate large-margin-gaussian``."""

import json
import subprocess
import sys

import pytest
from _helpers import run_main


def run_cli(capsys, *args):
    code, captured = run_main(capsys, *args)
    return code, captured.out, captured.err


def test_calibrate_printed_reports_eps_prime_and_label(capsys):
    code, out, _ = run_cli(
        capsys,
        "calibrate",
        "large-margin-gaussian",
        "--mode",
        "printed",
        "--n",
        "1000",
        "--d",
        "2",
        "--classes",
        "3",
        "--eps",
        "1",
        "--lam",
        "0.01",
        "--h",
        "0.5",
        "--bdelta",
        "0.05",
    )
    assert code in (0, None)
    d = json.loads(out)
    assert d["beta"] == pytest.approx(0.5) and d["expected_noise_norm"] == pytest.approx(18.0)
    assert d["eps_prime"] == pytest.approx(1.191, rel=1e-3)
    assert d["private"] is False and d["privacy_status"] == "not differentially private as printed"
    assert d["privacy_reason"].startswith("Not differentially private as printed:")
    assert d["bounds"]["printed"]["thm52"] == pytest.approx(2.645e6, rel=1e-3)
    assert "tier_c" not in d["bounds"]


def test_calibrate_corrected_reports_split_and_tier_c(capsys):
    code, out, _ = run_cli(
        capsys,
        "calibrate",
        "large-margin-gaussian",
        "--mode",
        "corrected",
        "--n",
        "1000",
        "--d",
        "2",
        "--eps",
        "1",
        "--phi-star-norm",
        "10",
    )
    d = json.loads(out)
    assert d["eps_noise"] == pytest.approx(0.5) and d["Delta"] == pytest.approx(0.01253, rel=1e-3)
    assert d["beta"] == pytest.approx(0.1021, rel=1e-3) and d["private"] is True
    assert d["bounds"]["tier_c"]["c53_total"] == pytest.approx(677.8, rel=1e-3)
    assert d["bounds"]["tier_c"]["c52_exact"] == pytest.approx(11.09, rel=1e-3)


def test_calibrate_repaired_has_three_tiers(capsys):
    _, out, _ = run_cli(
        capsys,
        "calibrate",
        "large-margin-gaussian",
        "--mode",
        "repaired",
        "--n",
        "1000",
        "--d",
        "2",
        "--eps",
        "1",
        "--sem",
        "paper",
    )
    d = json.loads(out)
    assert set(d["bounds"]) >= {"printed", "tier_u", "tier_c"}
    assert d["bounds"]["tier_u"]["u52"] == pytest.approx(2.645, rel=1e-3)
    assert d["eps_claimed_label"] == "refuted (the paper's claim)"
    assert "shared by all classes" in d["privacy_reason"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--mode", "paper"], "invalid choice: 'paper'"),
        (["--eps", "-1"], "epsilon must be in"),
        (["--bdelta", "2"], "delta must be in"),
    ],
)
def test_calibrate_bad_input_exits_2_with_one_line(capsys, args, needle):
    base = ["calibrate", "large-margin-gaussian", "--n", "100", "--d", "2", "--eps", "1"]
    code, out, err = run_cli(capsys, *(base + args))
    assert code == 2 and needle in err and err.strip().count("\n") == 0


def test_simulate_reports_modes_and_nonprivate(capsys):
    code, out, _ = run_cli(
        capsys,
        "simulate",
        "large-margin-gaussian",
        "--n",
        "300",
        "--trials",
        "6",
        "--eps",
        "2",
        "--modes",
        "repaired,corrected",
        "--seed",
        "1",
    )
    d = json.loads(out)
    res = d["results"]
    assert set(res) == {"repaired", "corrected", "nonprivate"}
    for m in ("repaired", "corrected"):
        assert 0 <= res[m]["accuracy_mean"] <= 1 and res[m]["excess_risk_mean"] >= 0
        assert res[m]["trials"] == 6 and res[m]["unbounded_share"] == 0
    assert res["repaired"]["private"] is False and res["corrected"]["private"] is True
    assert res["nonprivate"]["excess_risk_mean"] == 0


def test_simulate_printed_unbounded_share_on_iris(capsys):
    code, out, _ = run_cli(
        capsys,
        "simulate",
        "large-margin-gaussian",
        "--dataset",
        "iris",
        "--trials",
        "8",
        "--modes",
        "printed",
        "--eps",
        "1",
    )
    d = json.loads(out)
    p = d["results"]["printed"]
    share = p["unbounded_share"]
    assert 0 <= share <= 1 and abs(share * 8 - round(share * 8)) < 1e-12
    assert (p["accuracy_mean"] is None) == (share == 1.0)
    assert p["privacy_status"] == "not differentially private as printed"
    # iris ships documented public bounds (dp_core.data.PUBLIC_BOUNDS): its preprocessing is not data-dependent
    assert d["data_dependent_preprocessing"] is False


def test_module_entry_point_runs():
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_core",
            "calibrate",
            "large-margin-gaussian",
            "--n",
            "50",
            "--d",
            "1",
            "--eps",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and json.loads(r.stdout)["mode"] == "corrected"
