"""Learning curves: the model ``y(n) = a + b * n**(-p)`` fitted to measured utility at several sizes.

Pure numpy, below the comparison and the negotiation (both use it): :func:`fit_learning_curve`
fits the model by least squares for each candidate exponent and keeps the better fit;
:func:`extrapolate` evaluates it at a new size, kept inside the metric's range. The model is our
choice [ours]: the ``1/sqrt(n)`` and ``1/n`` rates are the usual rates of excess risk in the
papers' bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._validation import check_choice, check_positive

__all__ = ["LC_EXPONENTS", "extrapolate", "fit_learning_curve"]

#: Candidate exponents p of the learning-curve model ``y(n) = a + b * n**(-p)`` [ours].
LC_EXPONENTS = (0.5, 1.0)


def _curve_arrays(n, y) -> tuple[np.ndarray, np.ndarray]:
    try:
        nn, yy = np.asarray(n, dtype=float), np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"n and y must be sequences of numbers, got {type(n).__name__} and {type(y).__name__}: {exc}"
        ) from None
    if nn.ndim != 1 or yy.ndim != 1 or len(nn) != len(yy):
        raise ValueError(f"n and y must be 1-D sequences of the same length, got shapes {nn.shape} and {yy.shape}.")
    return nn, yy


def fit_learning_curve(
    n: Sequence[float], y: Sequence[float], exponent: float | None = None
) -> tuple[float, float, float]:
    """Least-squares fit of ``y(n) = a + b * n**(-p)`` for ``p`` in :data:`LC_EXPONENTS` [ours].

    Returns ``(a, b, p)`` of the exponent with the smaller residual (or of ``exponent`` when given:
    the band's edges are fitted with the mean curve's exponent so the three curves stay comparable).
    The model is the usual shape of a learning curve (the sampling error falls like ``n**-0.5``, the privacy noise of an
    ε-DP empirical risk minimiser like ``1/(n ε)``: Chaudhuri, Monteleoni & Sarwate, *Differentially
    Private Empirical Risk Minimization*, Theorems 18 and 26); it is a heuristic for extrapolation,
    not a guarantee. With one finite point the curve is flat (``b = 0``).

    >>> a, b, p = fit_learning_curve([100, 400], [0.8, 0.9])
    >>> round(a + b * 1600 ** (-p), 3)
    0.95
    """
    n, y = _curve_arrays(n, y)
    ok = np.isfinite(n) & np.isfinite(y) & (n > 0)
    n, y = n[ok], y[ok]
    if len(n) == 0:
        return math.nan, math.nan, LC_EXPONENTS[0]
    if len(np.unique(n)) < 2:
        return float(np.mean(y)), 0.0, LC_EXPONENTS[0]
    best = None
    exps = LC_EXPONENTS if exponent is None else (check_positive("exponent", exponent),)
    for p in exps:
        A = np.column_stack([np.ones_like(n), n ** (-p)])
        coef, *_ = np.linalg.lstsq(A, y, rcond=None)
        res = float(np.sum((A @ coef - y) ** 2))
        if best is None or res < best[0] - 1e-15:
            best = (res, float(coef[0]), float(coef[1]), p)
    return best[1], best[2], best[3]


def _clip_metric(v: float, metric: str) -> float:
    if metric == "accuracy":
        return min(max(v, 0.0), 1.0)
    if metric == "r2":
        return min(v, 1.0)
    if metric in ("excess_risk", "mae"):
        return max(v, 0.0)
    return v


def extrapolate(
    n: Sequence[float], y: Sequence[float], n_new: float, metric: str, exponent: float | None = None
) -> float:
    """The learning curve :func:`fit_learning_curve` of ``(n, y)`` evaluated at ``n_new`` (kept in
    the metric's range: accuracy in [0, 1], R² at most 1, excess risk and MAE at least 0)."""
    n_new = check_positive("n_new", n_new)
    metric = check_choice("metric", metric, ("accuracy", "r2", "excess_risk", "mae"))
    a, b, p = fit_learning_curve(n, y, exponent)
    if not math.isfinite(a):
        return math.nan
    return _clip_metric(a + b * float(n_new) ** (-p), metric)
