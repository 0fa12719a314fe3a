"""Engine tests of the large-margin Gaussian classifier (docs/large_margin_gaussian.md
§"Our corrections and choices")."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from dp_core.data import make_gaussian_classes
from dp_core.exceptions import UnboundedProblem
from dp_core.mechanisms.large_margin_gaussian import (
    LargeMarginGaussian,
    fit_apg,
    fit_cvxpy,
    fit_nonprivate,
    gaussian_params,
    gradient,
    huber_hinge,
    huber_hinge_grad,
    leak_direction,
    literal_objective_bounded,
    objective,
    phi_from_gaussian,
    predict,
    prepare,
    preprocess,
    release_many,
    sample_radial,
)
from dp_core.mechanisms.large_margin_gaussian.model import sym

# ---------------------------------------------------------------- section 7.2 deterministic fixture
X2 = np.array([[0.5], [-0.8]])
Y2 = np.array([0, 1])
PHI2 = np.array([[[2.0, -1.0], [-1.0, 1.0]], [[1.0, 0.5], [0.5, 1.0]]])
B2 = np.array([[0.3, -0.2], [0.1, 0.4]])


def test_fixture_inputs_quadratic_forms_and_predictions():
    Z = preprocess(X2)
    np.testing.assert_allclose(Z, [[0.3535534, 0.7071068], [-0.5656854, 0.7071068]], rtol=1e-6)
    Q = np.einsum("ia,cab,ib->ic", Z, PHI2, Z)
    np.testing.assert_allclose(Q, [[0.25, 0.875], [1.94, 0.42]], rtol=1e-12)
    assert predict(PHI2, Z).tolist() == [0, 1]
    assert float(huber_hinge(np.array(0.375), 0.5)) == pytest.approx(0.3828125, rel=1e-12)
    assert float(huber_hinge(np.array(-0.52), 0.5)) == 0.0


def test_fixture_objective_and_gradient():
    Z = preprocess(X2)
    assert float(objective(PHI2, Z, Y2, 0.1, 0.1, 0.5)) == pytest.approx(0.96640625, rel=1e-12)
    G = gradient(PHI2, Z, Y2, 0.1, 0.1, 0.5)
    np.testing.assert_allclose(G[0], [[0.3546875, 0.009375], [0.009375, 0.31875]], rtol=1e-12)
    np.testing.assert_allclose(G[1], [[0.1453125, -0.059375], [-0.059375, -0.11875]], rtol=1e-12)
    assert float(objective(PHI2, Z, Y2, 0.1, 0.1, 0.5, noise=B2, shared=True)) == pytest.approx(1.84140625, rel=1e-12)
    Gp = gradient(PHI2, Z, Y2, 0.1, 0.1, 0.5, noise=B2, shared=True)
    np.testing.assert_allclose(Gp[0], [[0.5046875, -0.015625], [-0.015625, 0.51875]], rtol=1e-12)


def test_fixture_finite_difference_along_symmetric_direction():
    Z = preprocess(X2)
    E = np.zeros_like(PHI2)
    E[1, 0, 1] = E[1, 1, 0] = 1.0
    t = 1e-6
    fd = (objective(PHI2 + t * E, Z, Y2, 0.1, 0.1, 0.5) - objective(PHI2 - t * E, Z, Y2, 0.1, 0.1, 0.5)) / (2 * t)
    assert fd == pytest.approx(-0.11875, rel=1e-6)
    assert float(np.sum(gradient(PHI2, Z, Y2, 0.1, 0.1, 0.5) * E)) == pytest.approx(-0.11875, rel=1e-12)


def test_gradient_matches_finite_differences_on_random_batch():
    rng = np.random.default_rng(3)
    ds = make_gaussian_classes(60, d=3, n_classes=4, seed=1)
    data = prepare(ds.X, ds.y)
    Phi = sym(rng.standard_normal((2, 4, 4, 4)))
    N = rng.standard_normal((2, 4, 4, 4))
    G = gradient(Phi, data.Z, data.y, 0.05, 0.02, 0.3, noise=N)
    E = sym(rng.standard_normal(Phi.shape))
    t = 1e-6
    f = lambda P: objective(P, data.Z, data.y, 0.05, 0.02, 0.3, noise=N)  # noqa: E731
    fd = (f(Phi + t * E) - f(Phi - t * E)) / (2 * t)
    np.testing.assert_allclose(fd, np.sum(G * E, axis=(1, 2, 3)), rtol=1e-5)


def test_huber_hinge_properties():
    t = np.linspace(-3, 3, 2001)
    for h in (0.01, 0.5, 1.0):
        ell = huber_hinge(t, h)
        hinge = np.maximum(t, 0)
        assert np.all(ell >= hinge - 1e-15) and np.all(ell <= hinge + h / 4 + 1e-15)
        g = huber_hinge_grad(t, h)
        assert np.all((g >= 0) & (g <= 1)) and np.all(np.diff(g) >= 0)  # convex, |l'| <= 1
        # continuity at the kinks
        for k in (-h, h):
            assert float(huber_hinge(np.array(k - 1e-9), h)) == pytest.approx(
                float(huber_hinge(np.array(k + 1e-9), h)), abs=1e-8
            )
    assert float(huber_hinge(np.array(0.0), 1e-6)) == pytest.approx(0.0, abs=1e-6)


# ---------------------------------------------------------------- section 7.3 round trip
def test_gaussian_parameter_round_trip():
    mu, Psi, theta = np.array([0.2, -0.1]), np.array([[4.0, 1.0], [1.0, 2.0]]), 0.3
    Phi = phi_from_gaussian(mu, Psi, theta)
    np.testing.assert_allclose(Phi / 2, [[4, 1, -0.7], [1, 2, 0], [-0.7, 0, 0.44]], atol=1e-12)
    x = np.array([[0.5, 0.5]])
    z = preprocess(x)[0]
    assert z @ Phi @ z == pytest.approx(1.74, rel=1e-12)
    assert (x[0] - mu) @ Psi @ (x[0] - mu) + theta == pytest.approx(1.74, rel=1e-12)
    mu_r, Psi_r, theta_r, pd = gaussian_params(Phi[None])[0]
    np.testing.assert_allclose(mu_r, mu, atol=1e-12)
    np.testing.assert_allclose(Psi_r, Psi, atol=1e-12)
    assert theta_r == pytest.approx(0.3, rel=1e-12) and pd


# ---------------------------------------------------------------- section 7.4 sampler
def test_radial_sampler_norm_moments_and_ks():
    m, beta, N = 9, 0.5, 20_000
    v = sample_radial(m, beta, rng=2024, size=N)
    r = np.linalg.norm(v, axis=1)
    se = 6.0 / math.sqrt(N)  # SD of Gamma(9, scale 2) is 6
    assert abs(r.mean() - 18.0) < 4 * se
    assert stats.kstest(r, stats.gamma(a=m, scale=1 / beta).cdf).pvalue > 1e-3
    u = v / r[:, None]
    assert np.all(np.abs(u.mean(axis=0)) < 4 / math.sqrt(N))  # each coordinate has variance 1/m <= 1
    M = np.einsum("ia,ib->ab", u, u) / N
    assert np.max(np.abs(M - np.eye(m) / m)) < 4 * math.sqrt(2.0 / (m * m) / N) + 4 / (m * math.sqrt(N))


def test_radial_sampler_is_reproducible_and_validates():
    a, b = sample_radial(4, 1.0, rng=5, size=3), sample_radial(4, 1.0, rng=5, size=3)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, sample_radial(4, 1.0, rng=6, size=3))
    with pytest.raises(ValueError, match=r"beta must be in \(0, inf\), got 0"):
        sample_radial(4, 0.0)
    with pytest.raises(ValueError, match=r"dim must be an integer in \[1, inf\], got 0"):
        sample_radial(0, 1.0)


def test_literal_boundedness_probability_matches_spec():
    # docs §"Modes and why P...": bounded with probability ~0.23 for d = 2, n lam = 10, eps = 1; ~0.50 for n lam = 1000
    for nl, expected in ((10.0, 0.23), (1000.0, 0.50)):
        b = sample_radial(9, 0.5, rng=11, size=20_000).reshape(-1, 3, 3)
        share = literal_objective_bounded(b, 1, nl).mean()
        se = math.sqrt(expected * (1 - expected) / 20_000)
        assert abs(share - expected) < 4 * se + 0.005  # the spec quotes two digits


# ---------------------------------------------------------------- solvers agree (section 7.5 item 5)
@pytest.fixture(scope="module")
def small_data():
    ds = make_gaussian_classes(150, d=2, n_classes=3, seed=7)
    return prepare(ds.X, ds.y)


@pytest.mark.parametrize("psd", [True, False])
def test_apg_matches_clarabel_without_and_with_noise(small_data, psd):
    data = small_data
    lam, mu, h = 0.01, 0.02, 0.5
    P_apg = fit_apg(data.Z, data.y, 3, lam, mu, h, psd=psd, tol=1e-11).phi[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P_cvx, status = fit_cvxpy(data.Z, data.y, 3, lam, mu, h, psd=psd)
    assert np.max(np.abs(P_apg - P_cvx)) < 1e-6 * max(1.0, np.max(np.abs(P_apg)))
    N = sample_radial(27, 1.0, rng=1).reshape(3, 3, 3)
    lin = sym(N)[None] / data.n
    P_apg = fit_apg(data.Z, data.y, 3, lam, mu, h, psd=psd, linear=lin, tol=1e-11).phi[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P_cvx, _ = fit_cvxpy(data.Z, data.y, 3, lam, mu, h, psd=psd, noise=N)
    # 1e-6 in max-abs entry, relative to the size of the entries (Clarabel's own accuracy limit)
    assert np.max(np.abs(P_apg - P_cvx)) < 1e-6 * max(1.0, np.max(np.abs(P_apg)))


def test_apg_matches_scs_shared_noise(small_data):
    data = small_data
    b = sample_radial(9, 0.5, rng=4).reshape(3, 3)
    lin = np.broadcast_to(sym(b)[None, None] / data.n, (1, 3, 3, 3)).copy()
    P_apg = fit_apg(data.Z, data.y, 3, 0.01, 0.01, 0.5, linear=lin, tol=1e-11).phi[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P_scs, _ = fit_cvxpy(data.Z, data.y, 3, 0.01, 0.01, 0.5, noise=b, shared=True, solver="SCS")
    # SCS is a first-order conic solver: agreement to its own accuracy
    assert np.max(np.abs(P_apg - P_scs)) < 1e-4
    J = lambda P: float(objective(P, data.Z, data.y, 0.01, 0.01, 0.5, noise=b, shared=True))  # noqa: E731
    assert J(P_apg) <= J(P_scs) + 1e-8


def test_literal_objective_unbounded_exactly_when_eigen_test_fails(small_data):
    # section 7.5 item 2: cvxpy reports 'unbounded' whenever n lam I_Phi + sym(b) is not PSD
    data = small_data
    rng = np.random.default_rng(8)
    seen = {True: 0, False: 0}
    for _ in range(40):
        b = sample_radial(9, 0.5, rng=rng).reshape(3, 3)
        bounded = bool(literal_objective_bounded(b, data.n, 0.01))
        if seen[bounded] >= 2:
            continue
        seen[bounded] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if bounded:
                fit_cvxpy(data.Z, data.y, 3, 0.01, 0.0, 0.5, noise=b, shared=True)
            else:
                with pytest.raises(UnboundedProblem):
                    fit_cvxpy(data.Z, data.y, 3, 0.01, 0.0, 0.5, noise=b, shared=True)
        if min(seen.values()) >= 2:
            break
    assert seen[True] >= 1 and seen[False] >= 2


# ---------------------------------------------------------------- pathwise chain (section 7.5 item 1)
@pytest.fixture(scope="module")
def data300():
    ds = make_gaussian_classes(300, d=2, n_classes=3, seed=3)
    return ds


@pytest.mark.parametrize(
    "mode,psd", [("corrected", True), ("corrected", False), ("repaired", True), ("repaired", False)]
)
def test_pathwise_chain_holds_for_every_draw(data300, mode, psd):
    cfg = LargeMarginGaussian(mode=mode, epsilon=0.7, psd=psd, tol=1e-11)
    b, g = release_many(data300.X, data300.y, cfg, n_runs=20, seed=9, diagnostics=True)
    n, mu = g.data.n, b.accounting.mu_eff
    assert g.converged.all()
    D = g.phi_star[None] - b.phi
    N = g.noise[:, None] if cfg.mode == "repaired" else g.noise
    inner = np.sum(N * D, axis=(1, 2, 3)) / n
    tol = 1e-6 * np.maximum(1.0, g.pathwise_bound)
    assert np.all(g.excess >= -tol)
    assert np.all(g.excess <= inner + tol)
    assert np.all(inner <= g.pathwise_bound + tol)
    assert np.all(np.sqrt(np.sum(D**2, axis=(1, 2, 3))) <= 2 * g.rho / (n * mu) * (1 + 1e-6))


# ---------------------------------------------------------------- leak (section 7.5 item 3)
def test_shared_noise_leaves_class_differences_untouched(data300):
    cfg = LargeMarginGaussian(mode="repaired", epsilon=0.05, psd=False, tol=1e-11)
    b, g = release_many(data300.X, data300.y, cfg, n_runs=10, seed=1, diagnostics=True)
    assert np.max(g.class_difference_error(b)) < 1e-6
    # the class average moves by exactly -sym(b)/(n mu_eff)
    shift = b.phi.mean(axis=1) - g.phi_star.mean(axis=0)[None]
    np.testing.assert_allclose(shift, -sym(g.noise) / (g.data.n * b.accounting.mu_eff), atol=1e-6)
    Xt = make_gaussian_classes(2000, seed=99).X
    ref = predict(g.phi_star, preprocess(Xt))
    assert np.all(b.predictions(Xt) == ref[None])
    # the shared-noise direction statistic is deterministic under P+, random under R
    assert np.std(g.direction_stat) < 1e-6 * (1 + abs(np.mean(g.direction_stat)))
    r, rg = release_many(
        data300.X, data300.y, LargeMarginGaussian(epsilon=0.05, psd=False), n_runs=10, seed=1, diagnostics=True
    )
    assert np.std(rg.direction_stat) > 0.1
    assert np.max(rg.class_difference_error(r)) > 1.0


def test_direction_statistic_separates_neighbours_for_shared_noise(data300):
    # substitute one record: the audit's shared-noise direction statistic shifts deterministically
    X2, y2 = data300.X.copy(), data300.y.copy()
    X2[0], y2[0] = [0.9, 0.0], (y2[0] + 1) % 3
    cfg = LargeMarginGaussian(mode="repaired", epsilon=1.0, psd=False, tol=1e-11)
    _, a = release_many(data300.X, data300.y, cfg, n_runs=5, seed=0, diagnostics=True)
    _, b0 = release_many(X2, y2, cfg, n_runs=5, seed=0, diagnostics=True)
    e = leak_direction(a.phi_star, b0.phi_star)
    _, a = release_many(
        data300.X, data300.y, cfg, n_runs=50, seed=1, direction=e, phi_star=a.phi_star, diagnostics=True
    )
    _, b = release_many(X2, y2, cfg, n_runs=50, seed=2, direction=e, phi_star=b0.phi_star, diagnostics=True)
    assert a.direction_stat.min() > b.direction_stat.max()  # perfectly separated: no finite epsilon


# ---------------------------------------------------------------- modes, limits, reproducibility
def test_printed_mode_reports_unbounded_draws_instead_of_crashing(data300):
    cfg = LargeMarginGaussian(mode="printed", epsilon=1.0)
    b, g = release_many(data300.X, data300.y, cfg, n_runs=40, seed=5, diagnostics=True)
    expected = ~literal_objective_bounded(g.noise, g.data.n, cfg.lam)
    np.testing.assert_array_equal(b.unbounded, expected)
    assert b.unbounded.mean() >= 0.5
    assert np.all(np.isnan(b.phi[b.unbounded])) and np.all(np.isfinite(b.phi[~b.unbounded]))
    assert np.all(b.predictions(data300.X[:5])[b.unbounded] == -1)
    assert b.accounting.eps_prime == pytest.approx(1.0 + b.accounting.k_printed)
    assert not b.accounting.private and "not differentially private as printed" in b.accounting.reason.lower()


def test_epsilon_infinity_recovers_the_nonprivate_fit(data300):
    b, g = release_many(data300.X, data300.y, LargeMarginGaussian(epsilon=math.inf), n_runs=3, seed=0, diagnostics=True)
    np.testing.assert_allclose(b.phi, np.broadcast_to(g.phi_star, b.phi.shape))
    assert np.all(g.excess == 0)


def test_large_epsilon_approaches_nonprivate(data300):
    excess = [
        np.mean(
            release_many(data300.X, data300.y, LargeMarginGaussian(epsilon=e), n_runs=10, seed=0, diagnostics=True)[
                1
            ].excess
        )
        for e in (1.0, 10.0, 100.0)
    ]
    assert excess[0] > excess[1] > excess[2] >= 0


def test_same_seed_same_release_different_seed_different(data300):
    cfg = LargeMarginGaussian(epsilon=1.0)
    a = cfg.run(data300.X, data300.y, rng=3)
    b = cfg.run(data300.X, data300.y, rng=3)
    c = cfg.run(data300.X, data300.y, rng=4)
    np.testing.assert_array_equal(a.phi, b.phi)
    assert not np.allclose(a.phi, c.phi)


def test_nonprivate_fit_classifies_gaussian_classes_well():
    ds = make_gaussian_classes(1000, seed=0)
    test = make_gaussian_classes(5000, seed=1)
    data = prepare(ds.X, ds.y)
    P = fit_nonprivate(data, lam=0.01, mu=0.01, h=0.5)
    assert np.mean(predict(P, preprocess(test.X)) == test.y) > 0.98  # reference pilot: 0.9958


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(epsilon=0.0), ValueError, r"epsilon must be in \(0, inf\], got 0"),
        (dict(mode="x"), ValueError, "mode must be one of"),
        (dict(lam=-1.0), ValueError, r"lam must be in \(0, inf\), got -1"),
        (dict(mu=0.0), ValueError, r"mu must be in \(0, inf\), got 0"),
        (dict(psd="yes"), TypeError, "psd must be a bool"),
        (dict(mode="printed", psd=False), ValueError, "psd must be True for mode='printed'"),
    ],
)
def test_config_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        LargeMarginGaussian(**kwargs)


def test_release_many_validates_data():
    with pytest.raises(ValueError, match="class labels"):
        release_many(np.zeros((5, 2)), np.array([0, 1, 2, 0.5, 1]), LargeMarginGaussian(), n_runs=1, seed=0)
    with pytest.raises(ValueError, match="at least two classes"):
        release_many(np.zeros((5, 2)), np.zeros(5), LargeMarginGaussian(), n_runs=1, seed=0)
    with pytest.raises(ValueError, match=r"n_runs must be an integer in \[1, inf\], got 0"):
        release_many(np.zeros((5, 2)), np.array([0, 1, 0, 1, 0]), LargeMarginGaussian(), n_runs=0, seed=0)
