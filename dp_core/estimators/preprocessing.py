"""Public-only preprocessing used inside the estimators: row scaling, clipping, intercept column.

Every step is a fixed rule of public settings only, so it costs no privacy (docs/estimators.md).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["augment_intercept", "clip_to_unit_ball", "linear_from_augmented"]


def clip_to_unit_ball(X: np.ndarray, data_norm: float) -> np.ndarray:
    """``x / data_norm``, then rows longer than 1 scaled back onto the unit sphere.

    >>> clip_to_unit_ball(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0).round(3).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    Z = np.asarray(X, dtype=np.float64) / float(data_norm)
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))  # one read of Z, no n x d temporary
    big = norms > 1.0
    if big.any():
        Z[big] /= norms[big, None]
    return Z


def augment_intercept(Z: np.ndarray, scaling: float | None) -> np.ndarray:
    """Append the constant ``scaling`` and divide every row by ``sqrt(1 + scaling^2)`` (rows stay in the unit
    ball); ``scaling=None`` appends nothing.

    >>> augment_intercept(np.array([[1.0, 0.0]]), 1.0).round(4).tolist()
    [[0.7071, 0.0, 0.7071]]
    """
    if scaling is None:
        return Z
    c = math.sqrt(1.0 + scaling * scaling)
    return np.column_stack([Z, np.full(Z.shape[0], scaling)]) / c


def linear_from_augmented(w: np.ndarray, data_norm: float, scaling: float | None) -> tuple[np.ndarray, float]:
    """``(coef, intercept)`` with ``<w, z(x)> = <coef, x> + intercept`` for every row with ``||x|| <= data_norm``.

    >>> coef, b = linear_from_augmented(np.array([2.0, 0.0, 1.0]), 2.0, 1.0)
    >>> coef.round(4).tolist(), round(b, 4)
    ([0.7071, 0.0], 0.7071)
    """
    w = np.asarray(w, dtype=np.float64)
    if scaling is None:
        return w / data_norm, 0.0
    c = math.sqrt(1.0 + scaling * scaling)
    return w[:-1] / (data_norm * c), float(w[-1] * scaling / c)
