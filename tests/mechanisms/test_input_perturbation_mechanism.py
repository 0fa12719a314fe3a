"""Input perturbation (Fukuchi, Tran, Sakuma 2017): exact solver, the two samplers, baselines, diagnostic."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from dp_core.data import load_dataset, make_census
from dp_core.exceptions import DataValidationError
from dp_core.mechanisms.input_perturbation.bounds import theorem2_bound
from dp_core.mechanisms.input_perturbation.diagnostic import pointwise_event_probability, privacy_diagnostic
from dp_core.mechanisms.input_perturbation.experiment import (
    SimulationConfig,
    default_n_grid,
    prepare_data,
    simulate_over_n,
)
from dp_core.mechanisms.input_perturbation.mechanism import (
    InputPerturbation,
    input_perturbation_thetas,
    logistic_nonprivate_fit,
    nonprivate_theta,
    objective_perturbation_thetas,
    objective_sigma,
    output_beta,
    output_perturbation_thetas,
    release_thetas,
    release_thetas_xy,
    sample_server_inputs,
)
from dp_core.mechanisms.input_perturbation.model import (
    empirical_risk,
    model_constants,
    prefix_stats,
    quadratic_features,
    sufficient_stats,
)
from dp_core.mechanisms.input_perturbation.params import input_perturbation_params
from dp_core.mechanisms.input_perturbation.solver import solve_ball


def _sphere(g, n, d):
    z = g.standard_normal((n, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True)


def _regression(n, d, seed=0, w_norm=0.8, noise=0.1):
    g = np.random.default_rng(seed)
    X = _sphere(g, n, d) * g.random(n)[:, None] ** (1.0 / d)  # uniform in the unit ball
    wt = _sphere(g, 1, d)[0] * w_norm
    y = np.clip(X @ wt + noise * g.standard_normal(n), -1.0, 1.0)
    return X, y


# ------------------------------------------------------------------------------------ solver
def _random_psd(g, d, rank=None):
    B = g.standard_normal((rank or d + 3, d))
    return B.T @ B


def test_solve_ball_closed_form_inside():
    g = np.random.default_rng(1)
    for _ in range(20):
        d = int(g.integers(1, 12))
        A = _random_psd(g, d) + np.eye(d)
        w0 = np.linalg.solve(A, g.standard_normal(d))
        eta = 1.5 * np.linalg.norm(w0)
        sol = solve_ball(A, A @ w0, eta, return_info=True)
        assert not sol.on_boundary and sol.mu == 0
        np.testing.assert_allclose(sol.w, w0, rtol=1e-10, atol=1e-12)


def test_solve_ball_boundary_exact_norm_and_kkt():
    g = np.random.default_rng(2)
    A = np.stack([_random_psd(g, 7) + 0.01 * np.eye(7) for _ in range(50)])
    h = g.standard_normal((50, 7)) * 30
    sol = solve_ball(A, h, 0.7, return_info=True)
    assert sol.on_boundary.all()
    np.testing.assert_allclose(np.linalg.norm(sol.w, axis=1), 0.7, rtol=1e-10)
    # KKT: (A + mu I) w = h with mu > 0
    resid = np.einsum("tij,tj->ti", A, sol.w) + sol.mu[:, None] * sol.w - h
    assert np.abs(resid).max() < 1e-8 * np.abs(h).max()
    assert (sol.mu > 0).all()


def test_solve_ball_singular_min_norm():
    g = np.random.default_rng(3)
    Q = g.standard_normal((3, 6))  # rank 3 in dimension 6
    A, h = Q.T @ Q, Q.T @ g.standard_normal(3)
    w = solve_ball(A, h, 1e6)
    np.testing.assert_allclose(w, np.linalg.pinv(A) @ h, rtol=1e-7, atol=1e-9)
    wb = solve_ball(A, h, 0.01)
    assert abs(np.linalg.norm(wb) - 0.01) < 1e-12


def test_solve_ball_rejects_bad_input():
    with pytest.raises(ValueError, match="eta must be in"):
        solve_ball(np.eye(2), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="positive semi-definite"):
        solve_ball(-np.eye(2), np.ones(2), 1.0)
    with pytest.raises(ValueError, match="shape"):
        solve_ball(np.eye(2), np.ones(3), 1.0)


def test_solve_ball_matches_cvxpy():
    import cvxpy as cp

    g = np.random.default_rng(4)
    for trial in range(12):
        d = int(g.integers(2, 9))
        A = _random_psd(g, d) + (0.05 if trial % 2 else 2.0) * np.eye(d)
        h = g.standard_normal(d) * (10 if trial % 3 else 0.3)
        eta = float(g.uniform(0.2, 2.0))
        w = cp.Variable(d)
        prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(w, cp.psd_wrap(A)) - h @ w), [cp.norm(w, 2) <= eta])
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
        ours = solve_ball(A, h, eta)
        f = lambda v, A=A, h=h: 0.5 * v @ A @ v - h @ v  # noqa: E731
        assert f(ours) <= f(w.value) + 1e-7 * max(1.0, abs(f(ours)))
        np.testing.assert_allclose(ours, w.value, atol=1e-5 * max(1.0, eta))


# ------------------------------------------------------------------------------------ features
def test_quadratic_features_and_constants():
    X = np.array([[0.6, 0.8], [3.0, 4.0]])
    y = np.array([0.5, -2.0])
    Q, P, s = quadratic_features(X, y, "least_squares")
    np.testing.assert_allclose(Q[1], [0.6, 0.8])  # clipped to the unit ball
    np.testing.assert_allclose(P[1], [-0.6, -0.8])  # y clipped to -1
    np.testing.assert_allclose(s, [0.125, 0.5])
    Ql, Pl, sl = quadratic_features(X, np.array([1.0, -1.0]), "logistic_taylor")
    np.testing.assert_allclose(Ql[0], [0.3, 0.4])
    np.testing.assert_allclose(Pl[1], [-0.3, -0.4])
    np.testing.assert_allclose(sl, math.log(2.0))
    with pytest.raises(DataValidationError, match="-1 or \\+1"):
        quadratic_features(X, np.array([0.0, 1.0]), "logistic_taylor")
    c = model_constants("least_squares", eta=2.0)
    assert (c.lam, c.zeta) == (1.0, 3.0)


def test_empirical_risk_matches_direct_loss():
    X, y = _regression(300, 4)
    st = sufficient_stats(X, y)
    w = np.array([0.1, -0.2, 0.3, 0.05])
    direct = np.mean(0.5 * (y - X @ w) ** 2)
    assert abs(empirical_risk(st, w) - direct) < 1e-12
    Xl = X
    yl = np.where(y > 0, 1.0, -1.0)
    stl = sufficient_stats(Xl, yl, "logistic_taylor")
    m = yl * (Xl @ w)
    assert abs(empirical_risk(stl, w) - np.mean(math.log(2) - m / 2 + m * m / 8)) < 1e-12


def test_prefix_stats_match_direct():
    X, y = _regression(500, 3)
    for st, n in zip(prefix_stats(X, y, [50, 200, 500]), [50, 200, 500]):
        direct = sufficient_stats(X[:n], y[:n])
        np.testing.assert_allclose(st.S, direct.S, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(st.p, direct.p, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(st.R.T @ st.R, st.S, atol=1e-10)


# ------------------------------------------------------------------------------------ samplers
def _moment_check(A, p_t, st, params, label):
    T, d = p_t.shape
    mean = A.mean(axis=0)
    se = A.std(axis=0, ddof=1) / math.sqrt(T)
    expected = st.S + params.sigma_u**2 * np.eye(d)
    assert np.all(np.abs(mean - expected) < 4.5 * se + 1e-12), label
    cov = np.cov(p_t.T)
    # variance of a sample variance of a normal: 2 sigma^4 / (T - 1)
    se_var = params.sigma_b2 * math.sqrt(2.0 / (T - 1))
    assert np.all(np.abs(np.diag(cov) - params.sigma_b2) < 4.5 * se_var), label
    assert np.all(np.abs(p_t.mean(axis=0) - st.p) < 4.5 * params.sigma_b / math.sqrt(T)), label


@pytest.mark.parametrize("n,d", [(400, 5), (30, 20)])
def test_both_samplers_have_the_right_moments(n, d):
    X, y = _regression(n, d, seed=5)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=n, d=d, epsilon=1.0, delta=0.01, zeta=2.0, lam=1.0)
    A1, p1 = sample_server_inputs(st, p, n_trials=3000, rng=11)
    _moment_check(A1, p1, st, p, "stats")
    A2, p2 = sample_server_inputs(st, p, rng=list(np.random.SeedSequence(12).spawn(600)), sampler="records", X=X, y=y)
    _moment_check(A2, p2, st, p, "records")
    # same spread of the quadratic part (a Wishart-type variance): compare variances of the diagonal
    v1, v2 = A1.var(axis=0, ddof=1), A2.var(axis=0, ddof=1)
    ratio = np.diag(v2) / np.diag(v1)
    assert np.all(np.abs(ratio - 1) < 4.5 * math.sqrt(2.0 / 600 + 2.0 / 3000) + 0.05)


def test_samplers_give_the_same_excess_risk_distribution():
    """Seeded two-sample comparison of the released model's excess risk: records vs stats sampler."""
    n, d = 80, 6  # small n: the quadratic noise matters, so a wrong sampler would show
    X, y = _regression(n, d, seed=6, w_norm=0.9, noise=0.05)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=n, d=d, epsilon=1.0, delta=0.01, zeta=2.0, lam=1.0, Delta_multiplier=0.1)
    w_hat = nonprivate_theta(st, p.eta)
    J0 = empirical_risk(st, w_hat)
    ws = input_perturbation_thetas(st, p, n_trials=4000, rng=21)
    wr = input_perturbation_thetas(st, p, rng=list(np.random.SeedSequence(22).spawn(1500)), sampler="records", X=X, y=y)
    es, er = empirical_risk(st, ws) - J0, empirical_risk(st, wr) - J0
    se = math.sqrt(es.var(ddof=1) / es.size + er.var(ddof=1) / er.size)
    assert abs(es.mean() - er.mean()) < 4 * se
    assert sps.ks_2samp(es, er).pvalue > 1e-3
    # and the comparison has power: a sampler with the wrong quadratic-noise scale (sigma_u doubled) is detected
    p_wrong = input_perturbation_params(
        n=n, d=d, epsilon=1.0, delta=0.01, zeta=2.0, lam=1.0, Delta_multiplier=0.1, sigma_u_margin=1.0
    )
    ew = empirical_risk(st, input_perturbation_thetas(st, p_wrong, n_trials=4000, rng=23)) - J0
    assert sps.ks_2samp(ew, er).pvalue < 1e-6


def test_per_trial_seeds_are_batch_independent_and_reproducible():
    X, y = _regression(500, 4, seed=7)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=500, d=4, epsilon=0.5, delta=1e-5, zeta=2.0, lam=1.0)
    seeds = np.random.SeedSequence(3).spawn(10)
    all_at_once = input_perturbation_thetas(st, p, rng=seeds)
    one_by_one = np.concatenate([input_perturbation_thetas(st, p, rng=[s]) for s in seeds])
    np.testing.assert_array_equal(all_at_once, one_by_one)
    a = release_thetas(st, p, 50, seed=9)
    b = release_thetas(st, p, 50, seed=9)
    c = release_thetas(st, p, 50, seed=10)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c) and a.shape == (50, 4)
    assert np.all(np.linalg.norm(a, axis=1) <= p.eta * (1 + 1e-12))


def test_large_epsilon_recovers_nonprivate():
    X, y = _regression(5000, 5, seed=8)
    # As eps -> inf, sigma_b and Delta vanish; sigma_u keeps its Lemma-7 part 2 sqrt(2d) lam a2 (Step 0),
    # whose implicit ridge sigma_u^2 / n is tiny, so the release approaches the non-private fit.
    mech = InputPerturbation(epsilon=1e9, delta=1e-5)
    res, diag = mech.run(X, y, rng=1, diagnostics=True)
    assert res.sigma_b < 1e-3 and res.Delta_in < 1e-2
    assert diag.excess_risk < 1e-6
    np.testing.assert_allclose(res.theta, diag.theta_nonprivate, atol=1e-2)
    _, diag2 = InputPerturbation(epsilon=1e9, delta=1e-5).run(X, y, rng=1, sampler="stats", diagnostics=True)
    assert diag2.excess_risk < 1e-6
    _, low = InputPerturbation(epsilon=0.1, delta=1e-5).run(X, y, rng=1, sampler="stats", diagnostics=True)
    assert low.excess_risk > 100 * diag2.excess_risk


def test_baseline_noise_distributions():
    X, y = _regression(2000, 3, seed=9)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=2000, d=3, epsilon=1.0, delta=1e-5, eta=1e6, zeta=2.0, lam=1.0)
    # Obj-Gauss with a huge ball: (S + Delta I) w = p - b exactly, so b is recovered
    w = objective_perturbation_thetas(st, p, n_trials=4000, rng=1)
    b = st.p[None] - w @ (st.S + p.Delta * np.eye(3))
    se = objective_sigma(p) ** 2 * math.sqrt(2.0 / 3999)
    assert np.all(np.abs(b.var(axis=0, ddof=1) - objective_sigma(p) ** 2) < 4.5 * se)
    # Output perturbation: E||b|| = d / beta_out (Gamma(d, 1/beta) norm)
    w_lam = solve_ball(st.S + p.Delta * np.eye(3), st.p, p.eta)
    wo = output_perturbation_thetas(st, p, n_trials=4000, rng=2)
    norms = np.linalg.norm(wo - w_lam, axis=1)
    assert abs(norms.mean() - 3 / output_beta(p)) < 4.5 * norms.std(ddof=1) / math.sqrt(4000)


def test_logistic_nonprivate_fit_is_optimal_on_the_ball():
    g = np.random.default_rng(10)
    X = _sphere(g, 400, 3)
    yl = np.where(X @ np.array([1.0, -1.0, 0.5]) + 0.3 * g.standard_normal(400) > 0, 1.0, -1.0)
    for eta in (0.5, 50.0):
        w = logistic_nonprivate_fit(X, yl, eta)
        f = lambda v: np.mean(np.logaddexp(0, -yl * (X @ v)))  # noqa: E731
        assert np.linalg.norm(w) <= eta * (1 + 1e-9)
        for _ in range(50):  # no feasible random perturbation does better
            v = w + 0.01 * g.standard_normal(3)
            v *= min(1.0, eta / np.linalg.norm(v))
            assert f(v) >= f(w) - 1e-10


# ------------------------------------------------------------------ measured excess risks, the diagnostic
def test_simulated_sanity_check_spec_7_5():
    n, d = 10_000, 10
    X, y = _regression(n, d, seed=11)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=n, d=d, epsilon=1.0, delta=1e-5, zeta=2.0, lam=1.0)
    assert abs(p.Delta - 261.9) < 0.1
    w_hat = nonprivate_theta(st, 1.0)
    J0 = empirical_risk(st, w_hat)
    e_in = empirical_risk(st, input_perturbation_thetas(st, p, n_trials=200, rng=1)) - J0
    e_obj = empirical_risk(st, objective_perturbation_thetas(st, p, n_trials=200, rng=2)) - J0
    e_out = empirical_risk(st, output_perturbation_thetas(st, p, n_trials=200, rng=3)) - J0
    B = theorem2_bound(p)
    assert abs(B - 0.026) < 0.001
    for e in (e_in, e_obj, e_out):  # reference orders of magnitude (1.7e-3, 1.65e-3, 2.6e-3)
        assert 5e-4 < e.mean() < 6e-3 and e.mean() < B / 4
    se = math.sqrt(e_in.var(ddof=1) / 200 + e_obj.var(ddof=1) / 200)
    assert abs(e_in.mean() - e_obj.mean()) < 4 * se + 0.2 * e_obj.mean()


def _s1_sphere_stats(n=10_000, d=10, seed=12, worst=False):
    g = np.random.default_rng(seed)
    X = np.tile(np.eye(d)[0], (n, 1)) if worst else _sphere(g, n, d)
    return sufficient_stats(X, np.zeros(n))


def test_privacy_diagnostic_spec_7_6():
    st = _s1_sphere_stats()
    p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)
    w = np.eye(10)[0]
    res = privacy_diagnostic(st, p, n_draws=2000, seed=5, w=w)
    approx = pointwise_event_probability(st, p, w)
    assert abs(approx - 0.758) < 0.02
    assert abs(res.frac_lemma1 - approx) < 4 * res.frac_lemma1_se
    assert res.frac_lemma1 < res.promised  # the paper's promise (>= 1 - 5e-6) fails
    assert res.frac_lmin_only == 0.0
    lmin_se = res.lmin.std(ddof=1) / math.sqrt(res.n_draws)
    assert abs(res.lmin.mean() - (-1.14)) < 0.1 + 4 * lmin_se
    assert res.frac_needed == 1.0  # Delta_in = 129 rescues the event the proof needs
    quad_sd = float(res.quad_form.std(ddof=1))
    assert abs(quad_sd - 2 * p.sigma_u / math.sqrt(10)) < 0.1
    summary = res.summary()
    assert summary["needed_consistent"] and not summary["lemma1_consistent"]
    # worst case: all q_i equal to w
    worst = privacy_diagnostic(_s1_sphere_stats(worst=True), p, n_draws=2000, seed=6, w=w)
    assert abs(worst.lemma1_normal_approx - 0.588) < 0.01
    assert abs(worst.frac_lemma1 - 0.588) < 4 * worst.frac_lemma1_se
    # the CORR value makes both pointwise fractions 1 (docs/input_perturbation.md §"Corrected σ_u (CORR)")
    pc = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0, sigma_u_mode="CORR")
    assert privacy_diagnostic(st, pc, n_draws=400, seed=7, w=w).frac_lemma1 == 1.0
    # Delta close to 2 lambda / eps: the needed event fails often
    tight = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0, Delta=2.5)
    assert privacy_diagnostic(st, tight, n_draws=400, seed=8, w=w).frac_needed < 0.5


# ------------------------------------------------------------------------------------ experiments
def test_prepare_data_rules():
    census = make_census(500, seed=1)
    d = prepare_data(census, "least_squares")
    assert d.d == 14 and not d.leaks
    assert np.all(np.linalg.norm(d.X_train, axis=1) <= 1 + 1e-12)
    dl = prepare_data(census, "logistic_taylor")
    assert set(np.unique(dl.y_train)) == {-1.0, 1.0} and any("median" in s for s in dl.leaks)
    iris = load_dataset("iris")
    with pytest.raises(DataValidationError, match="logistic"):
        prepare_data(iris, "least_squares")
    di = prepare_data(iris, "logistic_taylor", positive_class=2.0)
    assert np.mean(di.y_train == 1.0) == pytest.approx(1 / 3, abs=0.1)
    assert not di.leaks  # iris ships documented public ranges
    assert prepare_data(iris, "logistic_taylor", preprocess="minmax").leaks  # the historical rule reads the data
    with pytest.raises(DataValidationError, match="positive_class"):
        prepare_data(iris, "logistic_taylor", positive_class=7.0)


def test_simulate_over_n_decreases_and_is_reproducible():
    data = prepare_data(make_census(6000, seed=2), "least_squares", seed=0)
    cfg = SimulationConfig(epsilon=1.0, delta=1e-5)
    ns = default_n_grid(data.n_train, n_min=256)
    df = simulate_over_n(data, cfg, ns, n_trials=40, seed=3)
    again = simulate_over_n(data, cfg, ns, n_trials=40, seed=3)
    np.testing.assert_array_equal(df["excess_risk"].to_numpy(), again["excess_risk"].to_numpy())
    means = df[df["method"] == "input"].groupby("n")["excess_risk"].mean()
    assert means.iloc[0] > 10 * means.iloc[-1]
    assert (df[df["method"] == "nonprivate"]["excess_risk"] < 1e-12).all()
    assert set(df["method"]) == {"input", "objective", "output", "nonprivate"}
    assert (df.loc[df["method"] == "input", "excess_risk"] <= df.loc[df["method"] == "input", "bound"] * 5).all()


def test_release_thetas_xy_matches_stats_path_and_neighbours_share_parameters():
    X, y = _regression(300, 4, seed=13)
    a = release_thetas_xy(X, y, epsilon=1.0, delta=1e-5, n_runs=20, seed=5)
    st = sufficient_stats(X, y)
    p = input_perturbation_params(n=300, d=4, epsilon=1.0, delta=1e-5, zeta=2.0, lam=1.0)
    np.testing.assert_array_equal(a, release_thetas(st, p, 20, seed=5))
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = X2[1], -y2[0]  # a neighbouring dataset: same n, same public parameters
    b = release_thetas_xy(X2, y2, epsilon=1.0, delta=1e-5, n_runs=20, seed=5)
    assert a.shape == b.shape and not np.array_equal(a, b)


@pytest.mark.parametrize("piece", [128, 1024])
@pytest.mark.parametrize("model", ["least_squares", "logistic_taylor"])
def test_streamed_sufficient_stats_equal_the_whole_matrix_pass(model, piece, monkeypatch):
    """Issue 29: the one-off pass streams blocks of rows, each filled a piece at a time; the numbers are those of
    the whole matrices, bit for bit (rows clipped to x_bound, labels to y_bound; n not a multiple of the block,
    the block not a multiple of the piece)."""
    import tracemalloc

    from dp_core.mechanisms.input_perturbation import model as m

    monkeypatch.setattr(m, "_CHUNK", 1000)  # blocks small against the data, as at n = 10^6
    monkeypatch.setattr(m, "_PIECE", piece)  # 128: eight pieces a block, the last one short
    rng = np.random.default_rng(29)
    n, d = 20 * m._CHUNK + 123, 20
    X = rng.standard_normal((n, d)) * rng.exponential(size=(n, 1))
    y = rng.standard_normal(n) * 2 if model == "least_squares" else np.sign(rng.standard_normal(n))
    Q, P, s = m.quadratic_features(X, y, model, x_bound=1.5, y_bound=1.2)
    S = np.zeros((d, d))
    for start in range(0, n, m._CHUNK):
        S += Q[start : start + m._CHUNK].T @ Q[start : start + m._CHUNK]
    del Q
    tracemalloc.start()
    st = m.sufficient_stats(X, y, model, x_bound=1.5, y_bound=1.2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(st.S, 0.5 * (S + S.T))
    np.testing.assert_array_equal(st.p, P.sum(axis=0))
    assert st.s_sum == float(s.sum())
    assert peak < 0.5 * X.nbytes  # a few blocks of rows, never a copy of the data (the old pass: 2x)
