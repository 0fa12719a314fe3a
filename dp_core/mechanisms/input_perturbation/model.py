"""Quadratic losses admissible for input perturbation (l(w, z) = 1/2 w^T q q^T w - p^T w + s, [FTS17] Fukuchi,
Tran & Sakuma 2017, section 3) and their sufficient statistics: least squares and the logistic Taylor surrogate
(docs/input_perturbation.md §"Loss constants").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validation import check_choice, check_int, check_positive, check_Xy
from ...exceptions import DataValidationError

__all__ = [
    "MODELS",
    "ModelConstants",
    "model_constants",
    "quadratic_features",
    "SufficientStats",
    "sufficient_stats",
    "prefix_stats",
    "empirical_risk",
]

#: Model names accepted everywhere.
MODELS = ("least_squares", "logistic_taylor")

_CHUNK = 1 << 16
#: Rows whose clipping and ``p`` terms are computed together inside a block (their work arrays stay in cache).
_PIECE = 1024


@dataclass(frozen=True, slots=True)
class ModelConstants:
    """Smoothness lambda = sup||q||^2 and Lipschitz zeta = lambda eta + sup||p|| on W ([FTS17] section 3)."""

    model: str
    lam: float
    zeta: float
    q_bound: float
    p_bound: float
    x_bound: float
    y_bound: float


def model_constants(model: str, *, eta: float = 1.0, x_bound: float = 1.0, y_bound: float = 1.0) -> ModelConstants:
    """Derive (lambda, zeta) from the declared bounds ||x|| <= x_bound, |y| <= y_bound."""
    check_choice("model", model, MODELS)
    eta = check_positive("eta", eta)
    xb = check_positive("x_bound", x_bound)
    yb = check_positive("y_bound", y_bound)
    if model == "least_squares":
        qb, pb = xb, xb * yb
    else:
        qb, pb = xb / 2.0, xb / 2.0
        yb = 1.0
    lam = qb * qb
    return ModelConstants(model=model, lam=lam, zeta=lam * eta + pb, q_bound=qb, p_bound=pb, x_bound=xb, y_bound=yb)


def _checked(X, y, model: str, y_bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``X`` (not copied when already float64) and the clipped labels."""
    X, y = check_Xy(X, y, min_rows=1)
    check_choice("model", model, MODELS)
    if model == "least_squares":
        return X, np.clip(y, -y_bound, y_bound)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise DataValidationError("labels for model 'logistic_taylor' must be -1 or +1; map {0, 1} by 2y - 1 first.")
    return X, y


def _clip_rows(X: np.ndarray, x_bound: float) -> np.ndarray:
    """Rows clipped inside the mechanism to ``x_bound`` (the constants rely on it); row by row, so a block of
    rows gives the same numbers as the whole matrix."""
    return X * _clip_scale(X, x_bound)[:, None]


def _clip_scale(X: np.ndarray, x_bound: float) -> np.ndarray:
    """Each row's factor ``min(1, x_bound / ||x||)``; the norms as ``np.linalg.norm(X, axis=1)`` computes them
    (same operations, without its copy of ``X``)."""
    norms = np.sqrt(np.add.reduce(X * X, axis=1))
    return np.minimum(1.0, x_bound / np.maximum(norms, 1e-300))


def _prepare(X, y, model: str, x_bound: float, y_bound: float) -> tuple[np.ndarray, np.ndarray]:
    X, y = _checked(X, y, model, y_bound)
    return _clip_rows(X, x_bound), y


def quadratic_features(X, y, model: str = "least_squares", *, x_bound: float = 1.0, y_bound: float = 1.0):
    """(Q, P, s): rows q(x_i, y_i), p(x_i, y_i), s(x_i, y_i), after clipping rows to ``x_bound`` and labels to
    ``y_bound`` so the declared constants hold ([FTS17] section 3; docs/input_perturbation.md §"Loss constants")."""
    X, y = _prepare(X, y, model, x_bound, y_bound)
    if model == "least_squares":
        return X, y[:, None] * X, 0.5 * y * y
    return 0.5 * X, 0.5 * y[:, None] * X, np.full(X.shape[0], math.log(2.0))


@dataclass(frozen=True, eq=False)
class SufficientStats:
    """What the server and the excess risk need: S = Q^T Q, p = sum p_i, sum s_i, n; ``R`` (k x d, R^T R = S,
    k = min(n, d)) for the exact fast sampler."""

    n: int
    d: int
    S: np.ndarray
    p: np.ndarray
    s_sum: float
    R: np.ndarray
    model: str

    @staticmethod
    def from_moments(n: int, S: np.ndarray, p: np.ndarray, s_sum: float, model: str) -> SufficientStats:
        S = 0.5 * (S + S.T)
        vals, vecs = np.linalg.eigh(S)
        k = min(int(n), S.shape[0])
        vals, vecs = vals[::-1][:k], vecs[:, ::-1][:, :k]
        R = np.sqrt(np.maximum(vals, 0.0))[:, None] * vecs.T
        return SufficientStats(
            n=int(n), d=S.shape[0], S=S, p=np.asarray(p, float), s_sum=float(s_sum), R=R, model=model
        )


def sufficient_stats(
    X, y, model: str = "least_squares", *, x_bound: float = 1.0, y_bound: float = 1.0
) -> SufficientStats:
    """The one O(n d^2) pass over the data: Q^T Q, sum p_i, sum s_i, streamed over blocks of rows (no copy of
    the whole data: issue 29). The same numbers as from the whole matrices: the blocks of Q^T Q as before,
    sum p_i accumulated row after row as numpy sums a column, sum s_i over the whole (n,) vector."""
    X, y = _checked(X, y, model, y_bound)
    n, d = X.shape
    S = np.zeros((d, d))
    p = np.zeros(d)
    Q = np.empty((min(n, _CHUNK), d))  # one block of Q, filled a cache-sized piece at a time
    P = np.empty((_PIECE + 1, d))  # row 0: the running sum p, then one piece of rows p(x_i, y_i)
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        for a in range(0, m, _PIECE):
            b = min(a + _PIECE, m)
            Xp, yb = X[start + a : start + b], y[start + a : start + b]
            Xb = np.multiply(Xp, _clip_scale(Xp, x_bound)[:, None], out=Q[a:b])  # the clipped rows, in place
            P[0] = p
            np.multiply(yb[:, None] if model == "least_squares" else (0.5 * yb)[:, None], Xb, out=P[1 : b - a + 1])
            p = P[: b - a + 1].sum(axis=0)  # sequential over rows, like the whole P.sum(axis=0)
            if model != "least_squares":  # q = x / 2 (p = (y / 2) x above)
                Xb *= 0.5
        S += Q[:m].T @ Q[:m]
    s_sum = float((0.5 * y * y).sum()) if model == "least_squares" else float(np.full(n, math.log(2.0)).sum())
    return SufficientStats.from_moments(n, S, p, s_sum, model)


def prefix_stats(
    X, y, ns, model: str = "least_squares", *, x_bound: float = 1.0, y_bound: float = 1.0
) -> list[SufficientStats]:
    """Sufficient statistics of the first ``n`` rows for every ``n`` in ``ns`` (one pass, increasing n)."""
    Q, P, s = quadratic_features(X, y, model, x_bound=x_bound, y_bound=y_bound)
    ns_sorted = sorted({check_int("n", v, lo=1, hi=Q.shape[0]) for v in ns})
    d = Q.shape[1]
    S = np.zeros((d, d))
    p = np.zeros(d)
    ssum = 0.0
    done = 0
    out = {}
    for n in ns_sorted:
        block = Q[done:n]
        S = S + block.T @ block
        p = p + P[done:n].sum(axis=0)
        ssum += float(s[done:n].sum())
        done = n
        out[n] = SufficientStats.from_moments(n, S.copy(), p.copy(), ssum, model)
    return [out[check_int("n", v, lo=1)] for v in ns]


def empirical_risk(stats: SufficientStats, W: np.ndarray) -> np.ndarray:
    """J(w) = (1/n) (1/2 w^T S w - p^T w + sum s_i) for each row of ``W`` (shape (T, d) or (d,))."""
    W = np.asarray(W, dtype=np.float64)
    quad = 0.5 * np.einsum("...i,ij,...j->...", W, stats.S, W)
    return (quad - W @ stats.p + stats.s_sum) / stats.n
