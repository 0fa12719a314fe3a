"""dp_core.risk: profiles, trade-off curves, risk figures, audit points and the ``risk`` CLI (issue 26)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dp_core.audit.table import load_audit_table
from dp_core.calibration import gaussian_sigma
from dp_core.risk import (
    approx_profile,
    audit_points,
    compose,
    gaussian_profile,
    laplace_profile,
    mechanism_risk,
    pure_profile,
    tabulated_profile,
)
from dp_core.risk.curves import alpha_grid, envelope, epsilon_at, fit_mu, gaussian_tradeoff

ROOT = Path(__file__).resolve().parent.parent
ALPHA = np.concatenate([[0.0], np.geomspace(1e-6, 0.5, 60), np.linspace(0.5, 1.0, 21)])
EPS = np.array([0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0])


@pytest.mark.parametrize(("eps", "delta", "sens"), [(1.0, 1e-5, 1.0), (0.3, 1e-6, 2.5), (4.0, 1e-3, 0.2)])
def test_gaussian_curve_is_phi_of_phi_inverse_minus_mu(eps, delta, sens):
    sigma = gaussian_sigma(epsilon=eps, delta=delta, sensitivity=sens)
    g = mechanism_risk("gaussian", eps=eps, delta=delta, sensitivity=sens, with_audit=False)
    a, b = np.array(g["tradeoff"]).T
    mu = sens / sigma
    assert g["mu"] == pytest.approx(mu, rel=1e-12)
    np.testing.assert_allclose(b, stats.norm.cdf(stats.norm.ppf(1 - a) - mu), rtol=0, atol=1e-9)
    # the same curve from the Neyman-Pearson test of N(0, σ²) against N(Δ, σ²), threshold t
    t = stats.norm.isf(ALPHA[1:-1], loc=0, scale=sigma)
    np.testing.assert_allclose(gaussian_tradeoff(ALPHA[1:-1], mu), stats.norm.cdf(t, loc=sens, scale=sigma), atol=1e-9)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_laplace_curve_and_profile_closed_forms(eps):
    b = 1.0 / eps  # sensitivity 1, scale 1/ε
    t = np.linspace(-8.0, 8.0 + eps, 401)  # Neyman-Pearson: reject "not in" when x > t
    fpr, fnr = stats.laplace.sf(t, 0, b), stats.laplace.cdf(t, 1.0, b)
    np.testing.assert_allclose(laplace_profile(eps).tradeoff(fpr), fnr, rtol=0, atol=1e-9)
    # δ(ε') = ∫ max(0, p − e^ε' q), by quadrature
    x = np.linspace(-40 * b, 40 * b + 1, 400_001)
    p, q = stats.laplace.pdf(x, 0, b), stats.laplace.pdf(x, 1, b)
    for e in (0.0, eps / 3, eps / 2):
        hockey = np.trapezoid(np.maximum(0.0, p - math.exp(e) * q), x)
        assert float(laplace_profile(eps).delta_at(e)) == pytest.approx(hockey, abs=1e-6)


def test_dp_accounting_agrees_with_the_closed_forms():
    from dp_accounting.pld import privacy_loss_mechanism as plm

    for sigma, sens in [(3.7306, 1.0), (0.8, 1.0), (2.0, 0.5)]:
        ours = gaussian_profile(sens / sigma).delta_at(EPS)
        theirs = plm.GaussianPrivacyLoss(sigma, sensitivity=sens).get_delta_for_epsilon(EPS)
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
    for eps in (0.2, 1.0, 2.5):
        ours = laplace_profile(eps).delta_at(EPS)
        theirs = plm.LaplacePrivacyLoss(1.0 / eps, sensitivity=1.0).get_delta_for_epsilon(EPS)
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


def test_compositions_by_pld():
    # Gaussian: closed form μ√k; Laplace: dp_accounting's PLD (pessimistic) bounds the exact k = 1 curve
    assert compose(gaussian_profile(0.3), 4).mu == pytest.approx(0.6)
    one = compose(laplace_profile(1.0), 1)
    two = compose(laplace_profile(1.0), 2)
    assert two.kind == "tabulated" and one.kind == "laplace"
    assert float(two.delta_at(0.0)) > float(one.delta_at(0.0))
    # a tabulated Gaussian profile's envelope is below the exact curve and close to it
    e = np.concatenate([[0.0], np.geomspace(1e-3, 20, 2000)])
    tab = tabulated_profile(e, gaussian_profile(1.0).delta_at(e))
    gap = gaussian_tradeoff(ALPHA, 1.0) - tab.tradeoff(ALPHA)
    assert gap.min() >= -1e-12 and gap.max() < 2e-3


@pytest.mark.parametrize(
    "profile",
    [gaussian_profile(0.7), laplace_profile(1.3), pure_profile(0.5), approx_profile(1.0, 1e-3)],
    ids=["gaussian", "laplace", "pure", "approx"],
)
def test_advantage_and_tpr_are_their_definitions_on_the_curve(profile):
    from dp_core.risk import risk_summary

    s = risk_summary(profile)
    a, b = np.array(s["tradeoff"]).T
    assert s["mia_advantage"] == pytest.approx(float(np.max(1 - a - b)), abs=1e-15)
    for key, tpr in s["tpr_at_fpr"].items():
        (i,) = np.flatnonzero(a == float(key))
        assert tpr == pytest.approx(1 - b[i], abs=1e-15)
    # the advantage is δ(0) [KOV15], the total-variation distance
    assert s["mia_advantage"] == pytest.approx(float(profile.delta_at(0.0)), abs=1e-12)


def test_advantage_closed_forms():
    from dp_core.risk import risk_summary

    mu, e, d = 0.9, 1.2, 1e-4
    assert risk_summary(gaussian_profile(mu))["mia_advantage"] == pytest.approx(2 * stats.norm.cdf(mu / 2) - 1)
    assert risk_summary(laplace_profile(e))["mia_advantage"] == pytest.approx(1 - math.exp(-e / 2))
    expect = (math.exp(e) - 1 + 2 * d) / (math.exp(e) + 1)
    assert risk_summary(approx_profile(e, d))["mia_advantage"] == pytest.approx(expect)


def test_mu_fit_of_a_gaussian_curve_is_exact_and_otherwise_reports_its_error():
    a = alpha_grid(gaussian_profile(1.0))
    mu, err = fit_mu(a, gaussian_tradeoff(a, 1.0))
    assert mu == pytest.approx(1.0, abs=1e-5) and err < 1e-5
    s = mechanism_risk("laplace", eps=1.0, compose_k=30, with_audit=False)
    assert s["mu"] is None and s["mu_fit_error"] < 0.02  # many Laplace releases are nearly Gaussian


def test_stored_audit_rows_lie_where_their_verdict_says():
    rows = load_audit_table()
    assert rows
    for row in rows:
        pts = audit_points(row)
        assert pts["reproduces"], pts["key"]
        lo, hi = pts["fpr_box"]
        assert lo <= pts["fpr"] <= hi and pts["fnr_box"][0] <= pts["fnr"] <= pts["fnr_box"][1]
        if row["verdict"] == "consistent with the claim":
            assert pts["consistent"], pts["key"]
        else:
            assert row["status"] == "refuted" and not pts["consistent"], pts["key"]


def test_refuted_claims_show_the_claim_and_what_holds():
    r = mechanism_risk("l1-exponential", eps=1.0, conv="paper_box")
    assert r["refuted"] and r["actual"]["mia_advantage"] > r["mia_advantage"]
    assert r["audit"]["consistent"] is False
    ok = mechanism_risk("l1-exponential", eps=1.0, conv="tight")
    assert not ok["refuted"] and ok["actual"] is None and ok["audit"]["consistent"]


@pytest.mark.parametrize(
    ("mechanism", "setting"),
    [
        ("gaussian", {"delta": 1e-5}),
        ("laplace", {}),
        ("pure", {}),
        ("approx", {"delta": 1e-6}),
        ("l1-exponential", {}),
        ("large-margin-gaussian", {"n": 1000}),
        ("input-perturbation", {"delta": 1e-5, "n": 1000, "d": 10}),
    ],
)
def test_more_epsilon_more_risk(mechanism, setting):
    adv = [mechanism_risk(mechanism, eps=e, with_audit=False, **setting)["mia_advantage"] for e in (0.25, 1.0, 4.0)]
    tpr = [mechanism_risk(mechanism, eps=e, with_audit=False, **setting)["tpr_at_fpr"]["0.01"] for e in (0.25, 4.0)]
    assert adv[0] < adv[1] < adv[2] and tpr[0] < tpr[1]


def test_label_dp_profile_is_the_exact_accounting():
    from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_delta

    r = mechanism_risk("label-dp-bags", n=20_000, k=64, m=100, rho=0.1, with_audit=False)
    prof = dict((round(e, 12), d) for e, d in r["profile"])
    assert prof[0.0] == pytest.approx(llp_exact_delta(0.0, 20_000, 64, 100, 0.1).delta, rel=1e-9)
    assert r["mu"] is None and 0 < r["mia_advantage"] <= prof[0.0] + 1e-12
    assert r["epsilon"] == math.inf  # the δ floor (bags without a noisy label) is above 1e-5


def test_epsilon_at_inverts_the_profile():
    p = gaussian_profile(0.5)
    e = epsilon_at(p, 1e-5)
    assert float(p.delta_at(e)) == pytest.approx(1e-5, rel=1e-8)
    assert epsilon_at(approx_profile(1.0, 1e-3), 1e-3) == pytest.approx(1.0, rel=1e-9)


def test_profile_checks():
    with pytest.raises(ValueError, match="start at 0"):
        tabulated_profile([0.5, 1.0], [0.1, 0.0])
    with pytest.raises(ValueError, match="mu"):
        gaussian_profile(-1.0)
    assert envelope(0.0, [0.0], [0.25]) == pytest.approx(0.75)


def _cli(capsys, *args):
    from dp_core.cli import main

    code = main(["risk", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_shape_and_bad_input(capsys):
    code, out, err = _cli(capsys, "gaussian", "--eps", "1", "--delta", "1e-5")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) >= {"mu", "mia_advantage", "tpr_at_fpr", "tradeoff", "profile"}
    assert set(doc["tpr_at_fpr"]) == {"0.01", "0.001"} and doc["mu"] > 0
    assert all(len(p) == 2 for p in doc["tradeoff"]) and all(len(p) == 2 for p in doc["profile"])
    lap = json.loads(_cli(capsys, "laplace", "--eps", "1")[1])
    assert lap["mu"] is None and lap["mia_advantage"] == pytest.approx(1 - math.exp(-0.5))
    bad = [
        (("laplace", "--eps", "-1"), "--eps"),
        (("gaussian", "--eps", "1", "--delta", "2"), "--delta"),
        (("label-dp-bags", "--k", "1"), "--k"),  # an engine check, named by its option
        (("l1-exponential", "--theta", "9"), "--theta"),
    ]
    for args, flag in bad:
        code, _, err = _cli(capsys, *args)
        assert code == 2 and flag in err and len(err.strip().splitlines()) == 1


def test_cli_runs_as_a_module():
    out = subprocess.run(
        [sys.executable, "-m", "dp_core", "risk", "pure", "--eps", "1"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0 and json.loads(out.stdout)["mia_advantage"] == pytest.approx(math.tanh(0.5))


def test_deployments_table():
    from dp_core.risk import CAVEAT, deployments, place_epsilon
    from dp_core.risk.deployments import COLUMNS

    rows = deployments()
    assert len(rows) >= 12 and len({r["organisation"] for r in rows}) >= 5
    for r in rows:
        assert set(r) == set(COLUMNS) and all(str(r[c]).strip() for c in COLUMNS)
        assert 0 < r["epsilon"] < 100 and 0 <= r["delta"] < 1e-3 and r["model"] in ("local", "central")
    p = place_epsilon(4.0)
    assert p["below"] + p["equal"] + p["above"] == len(rows) and p["caveat"] == CAVEAT and "unit" in CAVEAT


def test_panel_result_has_sentences_and_says_whether_the_audit_tested_this_claim():
    same = mechanism_risk("gaussian", eps=1.0, delta=1e-5)
    other = mechanism_risk("gaussian", eps=2.0, delta=1e-5)
    assert same["audit"]["matches_claim"] and not other["audit"]["matches_claim"]
    first = same["sentences"][0]
    assert "1 person in 100" in first and f"{100 * same['tpr_at_fpr']['0.01']:.1f} in 100" in first
    refuted = mechanism_risk("large-margin-gaussian", eps=1.0, n=1000, mode="printed")
    assert refuted["refuted"] and refuted["sentences"][0].startswith("If the claim held")


@pytest.mark.parametrize(
    "profile",
    [gaussian_profile(1.3), laplace_profile(0.8), approx_profile(1.5, 1e-3), pure_profile(2.0)],
    ids=["gaussian", "laplace", "approx", "pure"],
)
def test_each_closed_form_curve_is_the_envelope_of_its_own_profile(profile):
    # [DRS22] Prop. 2.12: the curve is the sup of the (ε, δ(ε)) regions; on a grid it is approached from below
    e = np.concatenate([[0.0], np.geomspace(1e-4, 30, 4000)])
    env = envelope(ALPHA, e, profile.delta_at(e))
    gap = profile.tradeoff(ALPHA) - env
    assert gap.min() >= -1e-9 and gap.max() < 2e-3


@pytest.mark.parametrize(("n", "k", "m"), [(16000, 551, 29), (20000, 64, 100), (5000, 12, 40)])
def test_label_dp_panel_epsilon_is_the_pages_epsilon(n, k, m):
    """The panel and the Label-DP page answer "which ε at this δ" with the same number (the exact root)."""
    from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_min_eps

    r = mechanism_risk("label-dp-bags", n=n, k=k, m=m, rho=0.1, noise_std=1.0, b1=1.0, delta=1e-5)
    exact = llp_exact_min_eps(1e-5, n, k, m, 0.1, 1.0, noise_std=1.0)
    if exact is None:  # the δ floor of bags without a noisy label is above δ: no ε on either side
        assert r["epsilon"] is None or r["epsilon"] == math.inf
    else:
        assert r["epsilon"] == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("name", ["census", "randhie", "heavy_tailed", "diabetes"])
def test_label_dp_panel_agrees_with_the_pages_default_on_each_dataset(name):
    """At each dataset's default bags (the rule of the Label-DP page and Compare), the panel's ε at δ is the ε the
    page shows (census 2.7695, randhie 2.1717, heavy_tailed 2.6842; diabetes: none at δ = 1e-5 on either side)."""
    from dp_core.data import load_dataset
    from dp_core.mechanisms.label_dp_bags import auto_bag_setting

    ds = load_dataset(name)
    n = int(round(ds.n * 0.8))
    a = auto_bag_setting(n, d=ds.d + 1, delta=1e-5, rho=0.1)
    r = mechanism_risk("label-dp-bags", n=n, k=a.k, m=a.m, rho=0.1, noise_std=1.0, b1=1.0, delta=1e-5)
    if a.epsilon is None:
        assert r["epsilon"] is None or r["epsilon"] == math.inf
    else:
        assert r["epsilon"] == pytest.approx(a.epsilon, rel=1e-12)
