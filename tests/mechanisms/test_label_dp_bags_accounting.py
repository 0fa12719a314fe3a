"""Check values of the label-DP aggregation spec (section 7) and properties of the accounting."""

from __future__ import annotations

import math

import pytest

from dp_core.calibration import gaussian_epsilon_analytic
from dp_core.mechanisms.label_dp_bags import bounds as acc

REL = 1e-3


def close(a, b, rel=REL):
    return a == pytest.approx(b, rel=rel)


# --- 7.4 term-level vectors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "eps,kappa,zeta,fixed,optimized",
    [(1, 1e-4, 0.5, 0.7624, 0.3251), (1, 1e-5, 0.5, 0.06636, 2.738e-9), (2, 1e-3, 1.0, 0.6479, 0.1184)],
)
def test_lemma23_values(eps, kappa, zeta, fixed, optimized):
    assert close(acc.lemma23_delta(eps, kappa, zeta, "fixed"), fixed)
    assert close(acc.lemma23_delta(eps, kappa, zeta, "optimized"), optimized)


def test_lemma23_log_values_and_no_guarantee():
    assert close(acc.lemma23_log_delta(0.5, 1e-6, 2.0, "fixed"), -108.5)
    assert close(acc.lemma23_log_delta(0.5, 1e-6, 2.0, "optimized"), -945.5)
    assert acc.lemma23_delta(1, 0.01, 0.5, "fixed") == 1.0
    assert acc.lemma23_delta(1, 0.01, 0.5, "optimized") == 1.0


def test_lemma23_counterexample_shows_printed_lemma_false():
    c = acc.lemma23_counterexample()
    assert close(c["epsilon"], 0.176, rel=1e-2)
    assert close(c["claimed_delta"], 1.389e-11)
    assert close(c["true_delta"], 0.06553)
    assert c["true_delta"] > c["claimed_delta"]


def test_llp_terms_moderate():
    p = acc.terms_noisy_wtd_llp(1, 400, 50, 0.3, 1, variant="paper", mode="fixed")
    r = acc.terms_noisy_wtd_llp(1, 400, 50, 0.3, 1)
    assert close(p["weights"], 0.9080) and close(p["count"], 7.615e-7) and close(p["chi"], 0.02765)
    assert close(r["weights"], 0.7245) and close(r["count"], 7.615e-7) and close(r["chi"], 0.1522)
    f = acc.terms_noisy_wtd_llp(1, 1e4, 10, 0.5, 0.01, mode="fixed")
    o = acc.terms_noisy_wtd_llp(1, 1e4, 10, 0.5, 0.01, mode="optimized")
    assert close(f["kappa"], 1.131e-3) and close(f["beta"], 5.946)
    assert close(f["gaussian"], 0.03368) and close(o["gaussian"], 2.945e-11)


def test_lba_net_terms_and_chi_tail():
    p = acc.terms_wtd_lba(1, 1.2e5, 10, 3, 1, 1, 1 / 3, 0.5, variant="paper", form="eq24")
    r = acc.terms_wtd_lba(1, 1.2e5, 10, 3, 1, 1, 1 / 3, 0.5, form="eq22")
    assert close(p["net"], 0.07492) and close(r["net"], 1.640e-8) and close(r["K"], 2.577)
    from scipy import stats

    assert close(float(stats.chi2.sf(20, 10)), 0.02925)
    assert close(acc.terms_wtd_lba(1, 400, 10, 10, 1, 2, 0.25, 0.1)["chi2"], 0.02925)


# --- 7.1 Example A ------------------------------------------------------------------------------


def test_example_a_paper_bounds_are_vacuous():
    p = acc.terms_noisy_wtd_llp(1, 64, 1000, 0.1, 1, variant="paper", mode="fixed")
    r = acc.terms_noisy_wtd_llp(1, 64, 1000, 0.1, 1)
    assert close(p["kappa"], 3.162) and close(p["beta"], 0.3976)
    assert close(p["weights"], 1172) and close(p["count"], 726.1) and close(p["chi"], 670.3)
    assert close(r["weights"], 935.3) and close(r["count"], 726.1) and close(r["chi"], 734.2)
    assert p["delta"] == 1.0 and r["delta"] == 1.0 and p["vacuous"] and r["vacuous"]
    assert acc.naive_delta_lower_bound(100000, 64, 1000) == pytest.approx(0.64)
    assert close(acc.llp_delta_floor(100000, 64, 1000, 0.1), 8.365e-4)
    assert close(float(acc.gaussian_delta_profile(1, 4 / math.sqrt(0.1) / 64**0.25)), 0.9590)


@pytest.mark.parametrize("eps,expected", [(0.5, 0.1138), (1, 0.07891), (2, 0.04467), (4, 0.02085), (8, 0.009243)])
def test_example_a_exact_delta(eps, expected):
    assert close(acc.llp_exact_delta(eps, 100000, 64, 1000, 0.1).delta, expected)


def test_example_a_in_vs_out_case():
    e = acc.llp_exact_delta(1, 100000, 64, 1000, 0.1)
    assert close(e.delta_in, 0.04684) and close(e.delta_out, 0.07891)
    assert e.floor <= e.delta


# --- 7.2 Example B ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k,kappa,paper,rec",
    [
        (1e10, 2.530e-4, 1.0, 0.9256),
        (1e11, 8.000e-5, 1.0, 0.4549),
        (1e12, 2.530e-5, 0.5075, 0.02067),
        (1e13, 8.000e-6, 0.1171, 2.624e-7),
        (1e14, 2.530e-6, 1.134e-3, 6.014e-24),
        (1e15, 8.000e-7, 4.856e-10, 1.270e-78),
    ],
)
def test_example_b(k, kappa, paper, rec):
    p = acc.terms_noisy_wtd_llp(1, k, 1000, 0.1, 1, variant="paper", mode="fixed")
    assert close(p["kappa"], kappa)
    assert close(p["delta"], paper)
    assert close(acc.delta_noisy_wtd_llp(1, k, 1000, 0.1, 1), rec)


def test_example_b_thresholds_and_min_k():
    t1, t2 = acc.fixed_split_k_thresholds(1, 0.1, 1)
    assert close(t1, 1.475e6) and close(t2, 1.359e11)
    P = dict(m=1000, rho=0.1, b1=1.0)
    assert acc.min_k(1e-3, 1, "noisy-wtd-llp", variant="paper", mode="fixed", **P) == pytest.approx(
        103752551153787, rel=1e-9
    )
    assert acc.min_k(1e-3, 1, "noisy-wtd-llp", **P) == pytest.approx(2573298278778, rel=1e-9)
    assert acc.min_k(1e-6, 1, "noisy-wtd-llp", variant="paper", mode="fixed", **P) == pytest.approx(
        415010204615147, rel=1e-9
    )
    assert acc.min_k(1e-6, 1, "noisy-wtd-llp", **P) == pytest.approx(8493046966724, rel=1e-9)
    assert close(acc.min_k(1e-9, 1, "noisy-wtd-llp", variant="paper", mode="fixed", **P), 9.338e14)
    assert close(acc.min_k(1e-9, 1, "noisy-wtd-llp", **P), 1.750e13)
    assert close((147456 * math.log(1e6) / 0.1) ** 2, 4.150e14)
    assert close(acc.min_eps(1e-6, 1e13, "noisy-wtd-llp", **P), 0.9600)
    assert close(acc.min_eps(1e-6, 1e13, "noisy-wtd-llp", variant="paper", mode="fixed", **P), 2.538)


def test_min_k_is_smallest_integer():
    P = dict(m=1000, rho=0.1, b1=1.0)
    k = acc.min_k(1e-6, 1, "noisy-wtd-llp", **P)
    assert acc.delta_noisy_wtd_llp(1, k, 1000, 0.1, 1) <= 1e-6
    assert acc.delta_noisy_wtd_llp(1, k - 1, 1000, 0.1, 1) > 1e-6


# --- 7.3 Example C ------------------------------------------------------------------------------

C = dict(m=100, d=10, b1=1, b2=2, gamma=0.25, lam=0.1)


@pytest.mark.parametrize(
    "k,g_paper,g_rec,d_paper,d_rec",
    [
        (1e9, 1.0, 0.9649, 1.0, 0.9649),
        (1e10, 1.0, 0.5851, 1.0, 0.5851),
        (1e11, 0.5850, 0.05656, 0.5850, 0.05656),
        (1e12, 0.1835, 9.206e-6, 0.1835, 9.206e-6),
        (1e13, 4.694e-3, 9.028e-19, 4.694e-3, 9.028e-19),
    ],
)
def test_example_c(k, g_paper, g_rec, d_paper, d_rec):
    p = acc.terms_wtd_lba(1, k, 100, 10, 1, 2, 0.25, 0.1, variant="paper", mode="fixed", form="eq24")
    r = acc.terms_wtd_lba(1, k, 100, 10, 1, 2, 0.25, 0.1)
    assert close(p["gaussian"], g_paper) and close(r["gaussian"], g_rec)
    assert close(p["delta"], d_paper) and close(r["delta"], d_rec)


def test_example_c_small_k_terms():
    p4 = acc.terms_wtd_lba(1, 1e4, 100, 10, 1, 2, 0.25, 0.1, variant="paper", mode="fixed", form="eq24")
    assert close(p4["chi2"], 5.450e-17) and close(p4["net"], 7.463e46) and p4["delta"] == 1.0
    p8 = acc.terms_wtd_lba(1, 1e8, 100, 10, 1, 2, 0.25, 0.1, variant="paper", mode="fixed", form="eq24")
    r8 = acc.terms_wtd_lba(1, 1e8, 100, 10, 1, 2, 0.25, 0.1)
    assert close(p8["net"], 4.174e33) and close(r8["delta2"], 7.531e-19)
    p9 = acc.terms_wtd_lba(1, 1e9, 100, 10, 1, 2, 0.25, 0.1, variant="paper", mode="fixed", form="eq24")
    assert close(p9["delta2"], 2.178e-86)
    # eigen term at k = 2000, m = 1000: the paper's exponent ln 2 versus the correct 1 - ln 2
    pe = acc.terms_wtd_lba(1, 2000, 1000, 10, 1, 2, 0.25, 0.1, variant="paper", form="eq24")
    ce = acc.terms_wtd_lba(1, 2000, 1000, 10, 1, 2, 0.25, 0.1, variant="corrected", form="eq24")
    assert close(pe["eigen"], 2.980e-4) and close(ce["eigen"], 4.660) and close(ce["chi2"], 2.441e-6)


def test_example_c_min_k():
    assert acc.min_k(1e-3, 1, "wtd-lba", variant="paper", mode="fixed", form="eq24", **C) == pytest.approx(
        16600408184606, rel=1e-9
    )
    assert acc.min_k(1e-3, 1, "wtd-lba", **C) == pytest.approx(411974314919, rel=1e-9)
    assert acc.min_k(1e-6, 1, "wtd-lba", variant="paper", mode="fixed", form="eq24", **C) == pytest.approx(
        66401632738424, rel=1e-9
    )
    assert acc.min_k(1e-6, 1, "wtd-lba", **C) == pytest.approx(1359335532963, rel=1e-9)


def test_example_c_delta2_threshold():
    # delta2 <= 1e-6 needs k >= 80,338,434 (eq22) or 398,941,791 (eq24)
    for form, k_star in (("eq22", 80338434), ("eq24", 398941791)):
        var = "corrected" if form == "eq22" else "paper"
        above = acc.terms_wtd_lba(1, k_star * 1.001, 100, 10, 1, 2, 0.25, 0.1, variant=var, form=form)["delta2"]
        below = acc.terms_wtd_lba(1, k_star * 0.999, 100, 10, 1, 2, 0.25, 0.1, variant=var, form=form)["delta2"]
        assert below > 1e-6 >= above


# --- 7.5 exact LLP accounting, 7.6 baselines, 7.7 utility ---------------------------------------


@pytest.mark.parametrize(
    "args,expected",
    [
        ((1, 100000, 32, 1000, 0.1), 0.09117),
        ((1, 100000, 64, 1000, 0.1), 0.07891),
        ((0.5, 100000, 64, 1000, 0.1), 0.1138),
        ((1, 100000, 64, 1000, 0.5), 0.004878),
        ((1, 1000000, 256, 1000, 0.1), 0.003130),
    ],
)
def test_exact_llp_table(args, expected):
    assert close(acc.llp_exact_delta(*args).delta, expected)


def test_exact_llp_min_eps():
    assert close(acc.llp_exact_min_eps(1e-5, 1000000, 256, 1000, 0.1), 4.545)
    assert close(acc.llp_delta_floor(1000000, 256, 1000, 0.1), 5.477e-13)
    assert acc.llp_exact_min_eps(1e-5, 100000, 64, 1000, 0.1) is None


@pytest.mark.parametrize("eps,M,expected", [(1, 0.5, 0.006830), (1, 2, 0.5099), (0.3, 1, 0.2933)])
def test_gaussian_profile_values(eps, M, expected):
    assert close(float(acc.gaussian_delta_profile(eps, M)), expected)


def test_baselines():
    b = acc.baseline_calibration(1, 1e-5, 1)
    assert close(b["gaussian_sigma"], 7.461) and b["laplace_scale"] == 2.0 and b["laplace_added_variance"] == 8.0
    assert close(acc.baseline_calibration(1, 1e-6, 1)["gaussian_sigma"], 8.449)
    assert close(2 * math.sqrt(2 * math.log(1.25 / 1e-5)), 9.690)
    assert close(gaussian_epsilon_analytic(sigma=1, delta=1e-5, sensitivity=2), 9.997)


def test_utility_predictions():
    got = [acc.predicted_ratio_lba(m, 72) for m in (512, 1024, 2048, 4096)]
    for g, e in zip(got, (1.164, 1.076, 1.036, 1.018)):
        assert close(g, e)
    for m, mse in zip((512, 1024, 2048, 4096), (228.6, 211.2, 203.5, 199.9)):
        assert close(196.35 * acc.predicted_ratio_lba(m, 72), mse)
    for m, mse in zip((1024, 2048, 4096, 8192), (235.2, 177.5, 158.1, 149.9)):
        assert close(142.53 * acc.predicted_ratio_lba(m, 403), mse)


def test_lba_utility_failure_bound():
    assert acc.lba_utility_failure_log_prob(1e9, 64, 10, 0.5, 0.25, 5, 0.5) == 0.0
    assert acc.lba_utility_failure_log_prob(1e9, 64, 10, 0.5, 0.25, 5, 1 / 16) == 0.0
    assert close(math.exp(acc.lba_utility_failure_log_prob(1e10, 64, 10, 0.5, 0.25, 5, 0.5)), 1.562e-119)
    assert close(acc.lba_utility_required_m(0.05, 64, 10, 0.5, 0.25, 5, 0.5), 6.794e9)
    assert close(acc.lba_utility_required_m(0.05, 64, 10, 0.5, 0.25, 5, 1 / 16), 5.832e10)


# --- properties ---------------------------------------------------------------------------------


def test_monotone_in_k_and_eps():
    ks = [16, 64, 1e3, 1e6, 1e9, 1e12, 1e14]
    for var, mode in (("paper", "fixed"), ("corrected", "optimized")):
        llp = [acc.terms_noisy_wtd_llp(1, k, 1000, 0.1, 1, variant=var, mode=mode)["log_delta"] for k in ks]
        assert all(a >= b for a, b in zip(llp, llp[1:]))
        lba = [acc.terms_wtd_lba(1, k, 100, 10, 1, 2, 0.25, 0.1, variant=var, mode=mode)["log_delta"] for k in ks]
        assert all(a >= b for a, b in zip(lba, lba[1:]))
    eps = [0.1, 0.5, 1, 2, 4, 8]
    d = [acc.delta_noisy_wtd_llp(e, 1e12, 1000, 0.1, 1) for e in eps]
    assert all(a >= b for a, b in zip(d, d[1:]))
    ex = [acc.llp_exact_delta(e, 100000, 64, 1000, 0.1).delta for e in eps]
    assert all(a > b for a, b in zip(ex, ex[1:]))


def test_exact_delta_limits():
    # rho = 0: no privacy at all, delta = m k / n
    assert acc.llp_exact_delta(1, 1000, 10, 50, 0.0).delta == pytest.approx(0.5)
    # every label noisy: no floor, only the in-N case exists
    e = acc.llp_exact_delta(1, 1000, 10, 50, 1.0)
    assert math.isnan(e.delta_out) and e.floor == 0.0 and 0 < e.delta < 0.5
    # the exact delta never falls below the floor, and decreases towards it as epsilon grows
    mid = acc.llp_exact_delta(8, 100000, 64, 1000, 0.1)
    hi = acc.llp_exact_delta(50, 100000, 64, 1000, 0.1)
    assert hi.floor <= hi.delta < mid.delta
    # noise std s acts like B1 / s
    a = acc.llp_exact_delta(1, 100000, 64, 1000, 0.1, 2.0, noise_std=2.0).delta
    b = acc.llp_exact_delta(1, 100000, 64, 1000, 0.1, 1.0).delta
    assert a == pytest.approx(b, rel=1e-12)


def test_exact_delta_below_paper_bound():
    for k in (16, 64, 256):
        assert acc.llp_exact_delta(1, 100000, k, 100, 0.3).delta <= acc.delta_noisy_wtd_llp(1, k, 100, 0.3, 1)


def test_summary_keys_and_statements():
    s = acc.accounting_summary(variant="noisy-wtd-llp", epsilon=1, n=100000, k=64, m=1000, rho=0.1, target_delta=1e-6)
    for key in (
        "delta_paper",
        "delta_explicit",
        "delta_exact",
        "delta_floor",
        "k_min_paper",
        "k_min_explicit",
        "paper_gaussian",
        "explicit_chi",
        "k_max_feasible",
    ):
        assert key in s
    assert s["delta_paper"] == 1.0 and "no privacy guarantee" in s["statement_paper"]
    assert close(s["delta_exact"], 0.07891)
    assert s["k_min_explicit"] > s["k_max_feasible"]
    z = acc.accounting_summary(variant="noisy-wtd-llp", epsilon=1, n=1000, k=10, m=10, rho=0.0)
    assert z["delta_exact"] == pytest.approx(0.1) and "not label-DP" in z["statement"]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: acc.terms_noisy_wtd_llp(0, 64, 10, 0.1, 1), "epsilon"),
        (lambda: acc.terms_noisy_wtd_llp(1, 64, 10, 1.5, 1), "rho"),
        (lambda: acc.terms_wtd_lba(1, 64, 10, 3, 1, 1, 0.5, 0.5), "gamma"),
        (lambda: acc.terms_wtd_lba(1, 64, 10, 3, 1, 1, 0.2, 2.0), "lam"),
        (lambda: acc.llp_exact_delta(1, 100, 20, 10, 0.1), "m\\*k"),
        (lambda: acc.accounting_summary(variant="noisy-wtd-llp", epsilon=1, n=100, k=20, m=10), "largest feasible k"),
        (lambda: acc.min_k(1.5, 1, "noisy-wtd-llp", m=10, rho=0.1, b1=1), "target_delta"),
        (lambda: acc.terms_noisy_wtd_llp(1, 64, 10, 0.1, 1, variant="nope"), "variant"),
    ],
)
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_type_errors():
    with pytest.raises(TypeError):
        acc.terms_noisy_wtd_llp("1", 64, 10, 0.1, 1)
    with pytest.raises(TypeError):
        acc.llp_exact_delta(1, 100.5, 10, 2, 0.1)


def test_exact_delta_agrees_with_monte_carlo_estimate():
    """The quadrature against a seeded Monte-Carlo estimate of the same mixture (Example A, eps = 1):
    h ~ Hypergeometric(n-1, |N|, k-1) noisy bag-mates, M = 2 B1 |w| / sqrt(chi2_h), delta_G(eps; M)."""
    import numpy as np

    n, k, m, rho, eps, R = 100000, 64, 1000, 0.1, 1.0, 400000
    g = np.random.default_rng(2024)
    h = g.hypergeometric(int(rho * n), n - 1 - int(rho * n), k - 1, size=R)
    w = g.standard_normal(R)
    V = g.chisquare(np.maximum(h, 1))
    M = np.where(h > 0, 2.0 * np.abs(w) / np.sqrt(V), np.inf)
    vals = (m * k / n) * acc.gaussian_delta_profile(eps, M)
    est, se = vals.mean(), vals.std(ddof=1) / math.sqrt(R)
    exact = acc.llp_exact_delta(eps, n, k, m, rho)
    assert abs(est - exact.delta_out) < 4 * se
    assert se < 3e-4
