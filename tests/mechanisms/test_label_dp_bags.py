"""Engine of label-DP by aggregation: sampler, mechanisms, fits, identities, data conditions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp_core.data import load_dataset
from dp_core.experiments import summarize
from dp_core.mechanisms import label_dp_bags as lb
from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.rng import spawn_seeds


def _synthetic(n=20000, d=6, seed=0, noise=0.5):
    g = np.random.default_rng(seed)
    X = np.hstack([g.normal(size=(n, d - 1)) / (2 * math.sqrt(d)), np.ones((n, 1))])
    y = np.clip(X @ g.normal(size=d) + noise * g.normal(size=n), -1, 1)
    return X, y


# --- sampler (7.10 item 1) ----------------------------------------------------------------------


def test_sample_bags_shape_disjoint_range():
    S = lb.sample_bags(1000, 30, 20, 3)
    assert S.shape == (30, 20)
    assert len(np.unique(S)) == 600
    assert S.min() >= 0 and S.max() < 1000


def test_sample_bags_infeasible_raises():
    with pytest.raises(ValueError, match=r"m\*k must be <= n.*largest feasible k is 10"):
        lb.sample_bags(100, 10, 11, 0)


def test_sample_bags_uniform_inclusion():
    n, m, k, R = 50, 4, 5, 4000
    counts = np.zeros(n)
    for ss in spawn_seeds(11, R):
        counts[lb.sample_bags(n, m, k, ss).ravel()] += 1
    p = m * k / n
    se = math.sqrt(p * (1 - p) / R)
    assert np.all(np.abs(counts / R - p) < 4.5 * se)


def test_same_seed_same_bags_different_seed_different():
    assert np.array_equal(lb.sample_bags(100, 5, 4, 7), lb.sample_bags(100, 5, 4, 7))
    assert not np.array_equal(lb.sample_bags(100, 5, 4, 7), lb.sample_bags(100, 5, 4, 8))


# --- mechanisms (7.10 items 2-3) ------------------------------------------------------------------


def test_wtd_lba_matches_einsum_and_hides_weights():
    X, y = _synthetic(200, 3)
    rel = lb.wtd_lba(X, y, m=5, k=10, rng=42)
    g = np.random.default_rng(np.random.SeedSequence(42))
    S = g.choice(200, size=50, replace=False).reshape(5, 10)
    W = g.standard_normal((5, 10))
    assert np.array_equal(rel.bags, S)
    np.testing.assert_allclose(rel.xbar, np.einsum("jr,jrd->jd", W, X[S]))
    np.testing.assert_allclose(rel.ybar, np.einsum("jr,jr->j", W, y[S]))
    assert not hasattr(rel, "weights")
    batch = lb.simulate_releases(X, y, mechanism="wtd-lba", m=5, k=10, n_trials=3, seed=0)
    assert batch.weights is None


def test_naive_mechanisms_are_plain_sums():
    X, y = _synthetic(100, 3)
    a = lb.naive_lba(X, y, m=4, k=5, rng=1)
    np.testing.assert_allclose(a.ybar, y[a.bags].sum(axis=1))
    b = lb.naive_llp(X, y, m=4, k=5, rng=1)
    np.testing.assert_allclose(b.aggregated_features(), X[b.bags].sum(axis=1))


def test_noisy_llp_noise_only_on_N_and_rho_zero():
    X, y = _synthetic(300, 3)
    mask = np.zeros(300, dtype=bool)
    mask[:60] = True
    rel = lb.noisy_wtd_llp(X, y, m=10, k=20, rho=0.2, rng=5, noise_mask=mask)
    exact = np.einsum("jr,jr->j", rel.weights, y[rel.bags])
    clean = ~mask[rel.bags].any(axis=1)
    np.testing.assert_allclose(rel.ybar[clean], exact[clean])
    assert np.all(np.abs(rel.ybar[~clean] - exact[~clean]) > 0)
    assert rel.rho == pytest.approx(0.2)
    z = lb.noisy_wtd_llp(X, y, m=10, k=20, rho=0.0, rng=5)
    np.testing.assert_allclose(z.ybar, np.einsum("jr,jr->j", z.weights, y[z.bags]))
    assert z.mechanism == "weighted-llp"


def test_config_validation_and_flags():
    with pytest.raises(ValueError, match="mechanism must be one of"):
        lb.LabelDPBags(mechanism="bogus", m=1, k=2)
    with pytest.raises(ValueError, match="rho must be in"):
        lb.LabelDPBags(m=1, k=2, rho=2.0)
    with pytest.raises(TypeError):
        lb.LabelDPBags(m=1.5, k=2)
    assert lb.LabelDPBags(mechanism="noisy-wtd-llp", m=2, k=3, rho=0.1).is_label_dp
    assert not lb.LabelDPBags(mechanism="noisy-wtd-llp", m=2, k=3, rho=0.0).is_label_dp
    assert not lb.LabelDPBags(mechanism="naive-lba", m=2, k=3).is_label_dp


# --- fitting (7.10 item 4) ----------------------------------------------------------------------


def test_fit_linear_matches_lstsq_and_constrained_matches_cvxpy():
    import cvxpy as cp

    g = np.random.default_rng(3)
    Xb = g.normal(size=(40, 4))
    yb = Xb @ np.array([3.0, -2.0, 1.0, 0.5]) + 0.1 * g.normal(size=40)
    np.testing.assert_allclose(lb.fit_linear(Xb, yb), np.linalg.lstsq(Xb, yb, rcond=None)[0], rtol=1e-10)
    r = lb.fit_linear(Xb, yb, b3=1.0)
    assert np.linalg.norm(r) == pytest.approx(1.0, rel=1e-9)
    v = cp.Variable(4)
    cp.Problem(cp.Minimize(cp.sum_squares(yb - Xb @ v)), [cp.sum_squares(v) <= 1.0]).solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12
    )
    np.testing.assert_allclose(r, v.value, atol=1e-6)
    # KKT: at the constrained optimum the gradient is anti-parallel to r
    grad = Xb.T @ (Xb @ r - yb)
    np.testing.assert_allclose(grad / r, np.full(4, (grad / r)[0]), rtol=1e-8)
    assert (grad / r)[0] < 0
    loose = lb.fit_linear(Xb, yb, b3=100.0)
    np.testing.assert_allclose(loose, lb.fit_linear(Xb, yb))


def test_batched_fits_equal_single_fits():
    X, y = _synthetic(2000, 4)
    seeds = spawn_seeds(9, 3)
    fits = lb.simulate_fits(X, y, m=50, k=20, rho=0.3, seeds=seeds)
    for t, ss in enumerate(seeds):
        g = np.random.Generator(np.random.PCG64(ss))
        S = g.choice(2000, size=1000, replace=False).reshape(50, 20)
        W = g.standard_normal((50, 20))
        xbar = np.einsum("jr,jrd->jd", W, X[S])
        np.testing.assert_allclose(
            fits["weighted"][t], lb.fit_linear(xbar, np.einsum("jr,jr->j", W, y[S])), rtol=1e-7, atol=1e-9
        )
        np.testing.assert_allclose(fits["naive"][t], lb.fit_linear(X[S].sum(1), y[S].sum(1)), rtol=1e-7, atol=1e-9)


# --- identities (I1), (I2) (7.9 / 7.10 item 6) ---------------------------------------------------


def test_identity_I1_wtd_lba():
    X, y = _synthetic(20000, 6, seed=1)
    r = np.linalg.lstsq(X, y, rcond=None)[0] * 0.8
    target = float(np.sum((y - X @ r) ** 2)) / len(y)
    m, k, R = 200, 32, 300
    b = lb.simulate_releases(X, y, mechanism="wtd-lba", m=m, k=k, n_trials=R, seed=2, with_xbar=True)
    vals = np.sum((b.ybar - np.einsum("rjd,d->rj", b.xbar, r)) ** 2, axis=1) / (m * k)
    se = vals.std(ddof=1) / math.sqrt(R)
    assert abs(vals.mean() - target) < 4 * se


def test_identity_I2_noisy_llp():
    X, y = _synthetic(20000, 6, seed=4)
    r = np.linalg.lstsq(X, y, rcond=None)[0]
    rho = 0.3
    target = rho + float(np.sum((y - X @ r) ** 2)) / len(y)
    m, k, R = 200, 32, 300
    b = lb.simulate_releases(X, y, mechanism="noisy-wtd-llp", m=m, k=k, rho=rho, n_trials=R, seed=3, with_xbar=True)
    assert b.noise_mask.sum() == 6000
    vals = np.sum((b.ybar - np.einsum("rjd,d->rj", b.xbar, r)) ** 2, axis=1) / (m * k)
    se = vals.std(ddof=1) / math.sqrt(R)
    assert abs(vals.mean() - target) < 4 * se


def test_naive_llp_release_is_deterministic_given_bags():
    """Why naive aggregation leaks: with the same public randomness, changing one bagged label
    moves that bag's aggregate by exactly the label change."""
    X, y = _synthetic(500, 3)
    a = lb.simulate_releases(X, y, mechanism="naive-llp", m=10, k=20, n_trials=20, seed=1)
    i = int(a.bags[0, 0, 0])
    y2 = y.copy()
    y2[i] = -y[i]
    b = lb.simulate_releases(X, y2, mechanism="naive-llp", m=10, k=20, n_trials=20, seed=1)
    diff = b.ybar - a.ybar
    hit = (a.bags == i).any(axis=2)
    np.testing.assert_allclose(diff[hit], -2 * y[i])
    np.testing.assert_allclose(diff[~hit], 0.0)


# --- utility ------------------------------------------------------------------------------------


def test_utility_trials_table_and_equivalences():
    X, y = _synthetic(6000, 5, seed=2)
    data = lb.prepare(X[:, :-1], y, label_range=(-1, 1), seed=0)
    df = lb.utility_trials(data, m=100, k=30, rho=0.2, seeds=spawn_seeds(0, 20), epsilon=1.0, delta=1e-5)
    assert set(df["method"]) == {
        "naive_lba",
        "naive_llp",
        "wtd_lba",
        "wtd_llp",
        "noisy_wtd_llp",
        "gaussian_label",
        "laplace_label",
        "nonprivate",
    }
    a = df[df.method == "naive_lba"]["test_mse"].to_numpy()
    np.testing.assert_array_equal(a, df[df.method == "naive_llp"]["test_mse"].to_numpy())
    np.testing.assert_array_equal(
        df[df.method == "wtd_lba"]["ratio"].to_numpy(), df[df.method == "wtd_llp"]["ratio"].to_numpy()
    )
    assert np.all(df[df.method == "nonprivate"]["excess_risk"] < 1e-12)
    assert np.all(df["ratio"] >= 1 - 1e-9)


def test_utility_ratio_matches_random_design_prediction():
    X, y = _synthetic(40000, 6, seed=7, noise=0.4)
    data = lb.prepare(X[:, :-1], y, label_range=(-1, 1), test_fraction=0.0, seed=0)
    m, k, R = 60, 64, 300
    df = lb.utility_trials(data, m=m, k=k, rho=0.5, seeds=spawn_seeds(5, R), methods=["wtd_lba", "noisy_wtd_llp"])
    g_hat = data.optimum()["gamma_hat"]
    for meth, pred in (
        ("wtd_lba", acc.predicted_ratio_lba(m, data.d)),
        ("noisy_wtd_llp", acc.predicted_ratio_llp(m, data.d, 0.5, g_hat)),
    ):
        v = df[df.method == meth]["ratio"].to_numpy()
        se = v.std(ddof=1) / math.sqrt(R)
        # the prediction is an approximation (Gaussian design); allow 4 SE plus 5% of the excess
        assert abs(v.mean() - pred) < 4 * se + 0.05 * (pred - 1)


def test_more_bags_help_and_sweep_columns():
    X, y = _synthetic(10000, 5, seed=3)
    data = lb.prepare(X[:, :-1], y, label_range=(-1, 1), seed=0)
    df = lb.utility_sweep(data, [{"k": 20, "m": 30}, {"k": 20, "m": 400}], n_trials=40, seed=1, methods=["wtd_lba"])
    s = summarize(df, by=["m", "method"], values=["excess_risk"])
    lo, hi = s.iloc[0], s.iloc[1]
    assert hi["excess_risk_mean"] + 4 * hi["excess_risk_se"] < lo["excess_risk_mean"]
    with pytest.raises(ValueError, match="m\\*k must be <= n"):
        lb.utility_sweep(data, [{"k": 200, "m": 400}], n_trials=2, seed=0)


# --- data conditions (7.8) ----------------------------------------------------------------------


def test_randhie_data_conditions():
    ds = load_dataset("randhie")
    data = lb.prepare(ds.X, ds.y, label_range=(0, 20), b1=1.0, test_fraction=0.0)
    assert data.b2 == pytest.approx(math.sqrt(2), rel=1e-9)
    c = lb.data_conditions(data.X, data.y, 1.0)
    assert c["n"] == 20190 and c["rank"] == 10
    assert c["opt"] == pytest.approx(2522.68, rel=1e-3)
    assert c["gamma_hat"] == pytest.approx(0.1249, rel=1e-3)
    assert c["gamma"] == pytest.approx(0.1152, rel=1e-3)
    assert c["lam_star"] == pytest.approx(0.002947, rel=1e-3)
    assert c["label_variance"] == pytest.approx(0.1362, rel=1e-3)
    t = acc.terms_wtd_lba(1, 64, 100, 10, 1, c["b2"], c["gamma_hat"], c["lam_star"])
    assert t["chi2"] == pytest.approx(0.6288, rel=1e-3) and t["eigen"] == pytest.approx(985.6, rel=1e-3)
    assert t["net"] == pytest.approx(5.929e57, rel=1e-3) and t["vacuous"]
    assert acc.terms_wtd_lba(1, 64, 100, 10, 1, c["b2"], c["gamma"], c["lam_star"])["net"] == pytest.approx(
        1.189e58, rel=1e-3
    )
    t10 = acc.terms_wtd_lba(1, 1e10, 100, 10, 1, c["b2"], c["gamma_hat"], c["lam_star"])
    assert t10["gaussian"] == pytest.approx(0.8720, rel=1e-3) and t10["net"] == pytest.approx(1.027e49, rel=1e-3)
    assert acc.terms_wtd_lba(1, 1e10, 100, 10, 1, c["b2"], c["gamma"], c["lam_star"])["gaussian"] == pytest.approx(
        0.8937, rel=1e-3
    )
    for k, a, b in ((1e12, 0.006036, 0.009804), (1e13, 3.572e-9, 1.929e-8)):
        assert acc.delta_wtd_lba(1, k, 100, 10, 1, c["b2"], c["gamma_hat"], c["lam_star"]) == pytest.approx(a, rel=1e-3)
        assert acc.delta_wtd_lba(1, k, 100, 10, 1, c["b2"], c["gamma"], c["lam_star"]) == pytest.approx(b, rel=1e-3)


def test_data_conditions_warnings_and_exact_fit():
    X, y = _synthetic(400, 4)
    c = lb.data_conditions(X, y, 1.0, k=3, m=200)
    text = " ".join(c["warnings"])
    assert "no privacy at all" in text and "infeasible" in text
    y_lin = np.clip(X @ np.array([0.1, 0.2, -0.1, 0.0]), -1, 1)
    assert lb.data_conditions(X, y_lin, 1.0)["gamma"] is None


def test_bag_residuals_zero_when_k_at_most_rank():
    X, y = _synthetic(400, 4)
    assert np.all(lb.bag_residuals(X, y, m=10, k=4, rng=0) < 1e-12)
    assert np.all(lb.bag_residuals(X, y, m=10, k=30, rng=0) > 0)


def test_prepare_flags_data_dependent_range_and_classification():
    ds = load_dataset("iris")
    p = lb.prepare_dataset(ds)
    assert p.label_range_from_data and any("leaks" in n for n in p.notes)
    assert any("treated as a number" in n for n in p.notes)
    assert p.y.min() >= -1 and p.y.max() <= 1


def test_paper_utility_statement_needs_billions_of_bags():
    data = lb.prepare_dataset(load_dataset("census"))
    req = lb.utility_requirement(data, k=64)
    assert req["m_required_valid_c0"] > req["m_required_paper_c0"] > 1e9 > data.n
    # the requirement is the smallest m with P_fail <= 5%
    lp = acc.lba_utility_failure_log_prob(
        req["m_required_paper_c0"] * 1.001, 64, data.d, 0.5, req["gamma_hat"], req["B"], 0.5
    )
    assert lp <= math.log(0.05)
    lp2 = acc.lba_utility_failure_log_prob(
        req["m_required_paper_c0"] * 0.999, 64, data.d, 0.5, req["gamma_hat"], req["B"], 0.5
    )
    assert lp2 > math.log(0.05)
