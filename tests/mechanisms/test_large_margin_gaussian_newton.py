"""The proximal Newton solver of one large fit agrees with the APG solver and with Clarabel on the same objective."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from dp_core.data import make_gaussian_classes
from dp_core.mechanisms.large_margin_gaussian import newton, sample_radial
from dp_core.mechanisms.large_margin_gaussian.mechanism import prepare
from dp_core.mechanisms.large_margin_gaussian.model import loss_gradient, objective, outer_vectors, sym
from dp_core.mechanisms.large_margin_gaussian.solvers import fit_apg, fit_cvxpy


def _noise(C, p, n, seed):
    N = sample_radial(C * p * p, 1.0, rng=seed).reshape(C, p, p)
    return N, sym(N)[None] / n


def _sklearn(loader, k):
    X, y = loader(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return prepare(X[:, :k] / np.sqrt(k), y)


@pytest.mark.parametrize("psd", [True, False])
def test_newton_matches_clarabel(psd):
    ds = make_gaussian_classes(150, d=2, n_classes=3, seed=7)
    data = prepare(ds.X, ds.y)
    N, lin = _noise(3, 3, data.n, 1)
    res = newton.fit_newton(data.Z, data.y, 3, 0.01, 0.02, 0.5, linear=lin, psd=psd, tol=1e-11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P_cvx, _ = fit_cvxpy(data.Z, data.y, 3, 0.01, 0.02, 0.5, psd=psd, noise=N)
    assert res.converged.all() and res.grad_map_norm[0] < 1e-11
    assert np.max(np.abs(res.phi[0] - P_cvx)) < 1e-6 * max(1.0, np.max(np.abs(P_cvx)))


@pytest.mark.parametrize(("loader", "k", "mu"), [(load_breast_cancer, 8, 1e-3), (load_wine, 6, 3e-3)])
def test_newton_agrees_with_apg_on_real_data(loader, k, mu):
    """Both stop at a gradient-mapping norm below tol, so both lie within tol / mu of the one minimiser."""
    data = _sklearn(loader, k)
    C, p = data.n_classes, data.Z.shape[1]
    _, lin = _noise(C, p, data.n, 3)
    tol = 1e-9
    a = fit_apg(data.Z, data.y, C, mu / 10, mu, 0.5, linear=lin, tol=tol)
    b = newton.fit_newton(data.Z, data.y, C, mu / 10, mu, 0.5, linear=lin, tol=tol)
    assert b.converged.all() and b.iterations < a.iterations / 5
    assert np.max(np.abs(a.phi - b.phi)) <= 2 * tol / mu
    assert np.linalg.eigvalsh(b.phi[0]).min() > -1e-12


def test_the_staged_warm_start_and_the_fallback_reach_the_same_minimiser(monkeypatch):
    ds = make_gaussian_classes(4000, d=4, n_classes=2, seed=5)
    data = prepare(ds.X, ds.y)
    _, lin = _noise(2, 5, data.n, 9)
    ref = fit_apg(data.Z, data.y, 2, 1e-4, 1e-3, 0.5, linear=lin, tol=1e-10).phi
    monkeypatch.setattr(newton, "STAGE_ROWS", 400)  # 4000 rows >= 8 x 400: solved on every 8th row first
    staged = newton.fit_newton(data.Z, data.y, 2, 1e-4, 1e-3, 0.5, linear=lin, tol=1e-10)
    short = newton.fit_newton(data.Z, data.y, 2, 1e-4, 1e-3, 0.5, linear=lin, tol=1e-10, max_iter=1)
    for res in (staged, short):
        assert res.converged.all()
        assert np.max(np.abs(res.phi - ref)) <= 2e-10 / 1e-3


def test_an_unknown_solver_is_refused_by_name():
    from dp_core.mechanisms.large_margin_gaussian import LargeMarginGaussian

    ds = make_gaussian_classes(60, d=2, n_classes=2, seed=1)
    with pytest.raises(ValueError, match="solver"):
        LargeMarginGaussian(epsilon=1.0).run(ds.X, ds.y, rng=0, solver="bfgs")


def _fitted(C: int, n: int = 3000):
    """Rows of ``C`` Gaussian classes and the minimiser of a perturbed objective on them."""
    data = prepare(*(lambda ds: (ds.X, ds.y))(make_gaussian_classes(n, d=3, n_classes=C, seed=4)))
    _, lin = _noise(C, 4, data.n, 6)
    return data, newton.fit_newton(data.Z, data.y, C, 1e-4, 1e-3, 0.5, linear=lin).phi[0]


def _band(Phi, Z, y, h):
    """The band pairs ``(row, class)`` straight from the margins ``1 + z'Phi_y z - z'Phi_c z``."""
    Q = np.einsum("ij,cjk,ik->ic", Z, Phi, Z)
    T = 1.0 + Q[np.arange(len(y)), y][:, None] - Q
    T[np.arange(len(y)), y] = np.inf
    return set(zip(*np.nonzero(np.abs(T) < h)))


@pytest.mark.parametrize("C", [2, 3])
def test_a_pass_reads_the_loss_its_gradient_and_the_band_the_model_defines(C):
    """Only ``C - 1`` quadratic forms a row are computed (the differences ``Phi_c - Phi_0``); the model's own
    functions, which read all ``C``, give the same loss, gradient and band."""
    data, Phi = _fitted(C)
    Phi = Phi + sym(np.random.default_rng(1).normal(scale=0.05, size=Phi.shape))
    val, G, rows, cls = newton._Loss(data.Z, data.y, C, 0.5)(Phi)
    assert val == pytest.approx(float(objective(Phi, data.Z, data.y, 0.0, 0.0, 0.5)), rel=1e-12)
    np.testing.assert_allclose(G, loss_gradient(Phi, outer_vectors(data.Z), data.y, 0.5), rtol=0, atol=1e-13)
    assert set(zip(rows, cls)) == _band(Phi, data.Z, data.y, 0.5) and len(rows)


@pytest.mark.parametrize("C", [2, 3])
def test_screened_reads_equal_whole_reads_while_no_margin_can_cross_the_band(C):
    data, Phi = _fitted(C)
    loss = newton._Loss(data.Z, data.y, C, 0.5)
    loss(Phi)
    step = sym(np.random.default_rng(2).normal(size=Phi.shape))
    step *= 1e-4 / np.linalg.norm(step)
    loss.screen(Phi, 2.0 * loss.move(Phi + step, Phi))
    assert loss.ref is not None and loss.ref["idx"].size < 0.6 * data.n  # most rows frozen
    for near in (Phi + step, Phi - 0.5 * step):
        got, want = loss(near), newton._Loss(data.Z, data.y, C, 0.5)(near)
        assert loss.last[0] is Phi  # read from the screen, not whole
        assert got[0] == pytest.approx(want[0], rel=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-14)
        assert set(zip(got[2], got[3])) == set(zip(want[2], want[3]))
    far = Phi + 10.0 * step
    loss(far)
    assert loss.last[0] is far  # beyond the slack: read whole again


def test_the_model_step_backtracks_from_a_curvature_estimate_that_is_too_small():
    data, Phi = _fitted(2, n=800)
    C, p = 2, data.Z.shape[1]
    S = newton._Sym(p)
    _, G, rows, cls = newton._Loss(data.Z, data.y, C, 0.5)(Phi)
    H = newton._hessian(data.Z, data.y, rows, cls, C, 0.5, data.n) + 1e-3 * np.eye(C * S.a.size)
    x, g = S.vec(Phi), S.vec(G + 0.01)  # a point that is not the minimiser
    top = float(np.linalg.eigvalsh(H)[-1])
    assert newton._top_eigenvalue(H) == pytest.approx(top, rel=1e-3)
    v_small, q_small = newton._model_step(x, g, H, 1e-3 * top, S, C, 1e-9, True)
    v_exact, q_exact = newton._model_step(x, g, H, top, S, C, 1e-9, True)
    assert q_small < 0 and q_small == pytest.approx(q_exact, rel=1e-6, abs=1e-12)
    assert np.linalg.eigvalsh(S.mat(v_small)).min() > -1e-12
