"""The proximal Newton solver of one large fit agrees with the APG solver and with Clarabel on the same objective."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from dp_core.data import make_gaussian_classes
from dp_core.mechanisms.large_margin_gaussian import newton, sample_radial
from dp_core.mechanisms.large_margin_gaussian.mechanism import prepare
from dp_core.mechanisms.large_margin_gaussian.model import sym
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
