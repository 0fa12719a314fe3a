"""Non-private l1 (least absolute deviation) regression: the reference B0. docs/l1_exponential.md §"Non-private LAD"
(dual LP, SOCP); Koenker & Bassett (1978), *Regression quantiles*, Econometrica 46 (the LP form of median regression).
See docs/l1_exponential.md §"lad (module)"."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog

from ..._validation import check_positive, check_Xy
from ...exceptions import SolverFailed
from ...publication import NonPublicDiagnostics

__all__ = ["LadFit", "lad_fit_1d", "lad_fit_linprog", "lad_fit_ball", "lad_fit", "l1_risk"]


@dataclass(frozen=True, eq=False)
class LadFit(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: a non-private LAD solution (the reference of every excess risk).
    See docs/l1_exponential.md §"lad.LadFit"."""

    w: NDArray[np.float64] = field(repr=False)
    objective: float
    solver: str
    constrained: bool
    status: str


def l1_risk(w: ArrayLike, X: ArrayLike, y: ArrayLike) -> NDArray[np.float64] | float:
    """Empirical l1 risk ``mean_i |y_i - <x_i, w>|`` for one ``w`` (d,) or a batch (k, d)."""
    X, y = check_Xy(X, y, min_rows=1)
    W = np.asarray(w, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    out = np.empty(W.shape[0])
    rows = max(1, (1 << 20) // X.shape[0])
    for s in range(0, W.shape[0], rows):
        out[s : s + rows] = np.abs(y - W[s : s + rows] @ X.T).mean(axis=1)
    return float(out[0]) if single else out


def lad_fit_linprog(X: ArrayLike, y: ArrayLike) -> LadFit:
    """Unconstrained LAD through the dual LP ``max y'a s.t. X'a = 0, -1 <= a <= 1`` (HiGHS). See docs/l1_exponential.md
    §"lad.lad_fit_linprog"."""
    X, y = check_Xy(X, y, min_rows=1)
    n, d = X.shape
    res = linprog(c=-y, A_eq=X.T, b_eq=np.zeros(d), bounds=(-1.0, 1.0), method="highs")
    if res.status != 0 or res.eqlin is None:
        raise SolverFailed(f"HiGHS could not solve the LAD dual LP (status {res.status}: {res.message}).")
    w = -np.asarray(res.eqlin.marginals, dtype=np.float64)
    obj = float(np.mean(np.abs(y - X @ w)))
    return LadFit(w=w, objective=obj, solver="highs-dual-lp", constrained=False, status="optimal")


def lad_fit_1d(X: ArrayLike, y: ArrayLike, radius: float | None = None) -> LadFit:
    """Exact LAD in one dimension: the weighted median of ``y_i/x_i`` with weights ``|x_i|``. See docs/l1_exponential.md
    §"lad.lad_fit_1d"."""
    X, y = check_Xy(X, y, min_rows=1)
    if X.shape[1] != 1:
        raise ValueError(f"X must have exactly 1 column for lad_fit_1d, got {X.shape[1]}.")
    x = X[:, 0]
    nz = x != 0
    if not np.any(nz):
        w = 0.0
    else:
        z = y[nz] / x[nz]
        wt = np.abs(x[nz])
        order = np.argsort(z, kind="stable")
        cw = np.cumsum(wt[order])
        w = float(z[order][np.searchsorted(cw, 0.5 * cw[-1])])
    constrained = False
    if radius is not None:
        R = check_positive("radius", radius)
        if abs(w) > R:
            w, constrained = float(np.clip(w, -R, R)), True
    obj = float(np.mean(np.abs(y - x * w)))
    return LadFit(w=np.array([w]), objective=obj, solver="weighted-median", constrained=constrained, status="optimal")


def lad_fit_ball(X: ArrayLike, y: ArrayLike, radius: float) -> LadFit:
    """LAD over the ball ``||w|| <= R`` as a second-order cone program (cvxpy, Clarabel; SCS fallback)."""
    import cvxpy as cp

    X, y = check_Xy(X, y, min_rows=1)
    R = check_positive("radius", radius)
    n, d = X.shape
    w = cp.Variable(d)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.abs(y - X @ w)) / n), [cp.norm(w, 2) <= R])
    status = "error"
    for solver in ("CLARABEL", "SCS"):
        try:
            prob.solve(solver=solver)
            status = prob.status
        except cp.SolverError:
            continue
        if status in ("optimal", "optimal_inaccurate") and w.value is not None:
            break
    if w.value is None or status not in ("optimal", "optimal_inaccurate"):
        raise SolverFailed(f"cvxpy could not solve the ball-constrained LAD problem (status {status}).")
    wv = np.asarray(w.value, dtype=np.float64)
    nrm = float(np.linalg.norm(wv))
    if nrm > R:
        wv = wv * (R / nrm)
    obj = float(np.mean(np.abs(y - X @ wv)))
    return LadFit(w=wv, objective=obj, solver="cvxpy-socp", constrained=True, status=status)


def lad_fit(X: ArrayLike, y: ArrayLike, radius: float | None = None) -> LadFit:
    """Non-private LAD (B0): the LP, and the SOCP when ``radius`` is given and the LP leaves the ball.
    docs/l1_exponential.md §"Non-private LAD". See docs/l1_exponential.md §"lad.lad_fit"."""
    X, y = check_Xy(X, y, min_rows=1)
    if X.shape[1] == 1:
        return lad_fit_1d(X, y, radius)
    fit = lad_fit_linprog(X, y)
    if radius is None:
        return fit
    R = check_positive("radius", radius)
    if float(np.linalg.norm(fit.w)) <= R * (1.0 + 1e-9) or not math.isfinite(R):
        return fit
    return lad_fit_ball(X, y, R)
