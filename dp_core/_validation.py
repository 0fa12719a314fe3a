"""Parameter validation shared by every module of :mod:`dp_core`.

One message format everywhere: the parameter's name, the valid range and the value received,
for example ``epsilon must be in (0, inf], got -1.0.`` Wrong kinds of value raise
``TypeError``; values of the right kind but outside the valid range raise ``ValueError``
(:class:`~dp_core.exceptions.InvalidPrivacyParameter` for privacy parameters).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .exceptions import DataValidationError, InvalidPrivacyParameter

__all__ = [
    "check_real",
    "check_int",
    "check_in_interval",
    "check_positive",
    "check_probability",
    "check_epsilon",
    "check_delta",
    "check_epsilon_delta",
    "check_choice",
    "check_matrix",
    "check_Xy",
]

_PRIVACY_NAMES = {"epsilon", "delta", "eps", "sensitivity", "rho"}


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return repr(x) if isinstance(x, int) else f"{x:g}"


def _range_text(lo: float, hi: float, closed: str) -> str:
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"
    return f"{left}{_fmt(lo)}, {_fmt(hi)}{right}"


def check_real(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a Python float, or raise ``TypeError``/``ValueError``.

    Booleans are rejected (``True`` is not a number the user meant). NaN is always rejected;
    infinities only when ``allow_inf`` is false.

    >>> check_real("lam", 2)
    2.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}.")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} must be a number, got nan.")
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {_fmt(x)}.")
    return x


def check_int(name: str, value: Any, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as a Python int within ``[lo, hi]`` (inclusive bounds, ``None`` = open).

    >>> check_int("n", 10, lo=1)
    10
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}.")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        lo_t = "-inf" if lo is None else str(lo)
        hi_t = "inf" if hi is None else str(hi)
        raise ValueError(f"{name} must be an integer in [{lo_t}, {hi_t}], got {v}.")
    return v


def check_in_interval(
    name: str, value: Any, lo: float, hi: float, *, closed: str = "both", error: type[ValueError] = ValueError
) -> float:
    """Return ``value`` as a float inside the interval from ``lo`` to ``hi``.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.

    >>> check_in_interval("delta", 0.5, 0, 1, closed="neither")
    0.5
    """
    if closed not in ("both", "left", "right", "neither"):
        raise ValueError(f"closed must be one of 'both', 'left', 'right', 'neither', got {closed!r}.")
    x = check_real(name, value, allow_inf=math.isinf(lo) or math.isinf(hi))
    ok_lo = x >= lo if closed in ("both", "left") else x > lo
    ok_hi = x <= hi if closed in ("both", "right") else x < hi
    if not (ok_lo and ok_hi):
        raise error(f"{name} must be in {_range_text(lo, hi, closed)}, got {_fmt(x)}.")
    return x


def check_positive(name: str, value: Any, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a float in (0, inf) (or [0, ...] / ... inf] as allowed).

    >>> check_positive("sigma", 1.5)
    1.5
    """
    err = InvalidPrivacyParameter if name in _PRIVACY_NAMES else ValueError
    x = check_real(name, value, allow_inf=allow_inf)
    hi = math.inf
    closed = ("both" if allow_zero else "right") if allow_inf else ("left" if allow_zero else "neither")
    return check_in_interval(name, x, 0.0, hi, closed=closed, error=err)


def check_probability(name: str, value: Any, *, closed: str = "both") -> float:
    """Return ``value`` as a float in the unit interval (closed as requested)."""
    err = InvalidPrivacyParameter if name in _PRIVACY_NAMES else ValueError
    return check_in_interval(name, value, 0.0, 1.0, closed=closed, error=err)


def check_epsilon(epsilon: Any, *, allow_inf: bool = True, name: str = "epsilon") -> float:
    """Validate a privacy budget epsilon in (0, inf] (``inf`` means no privacy).

    >>> check_epsilon(1)
    1.0
    """
    x = check_real(name, epsilon, allow_inf=True)
    hi = math.inf
    return check_in_interval(
        name, x, 0.0, hi, closed="right" if allow_inf else "neither", error=InvalidPrivacyParameter
    )


def check_delta(delta: Any, *, allow_zero: bool = False, name: str = "delta") -> float:
    """Validate delta in (0, 1) (or [0, 1) with ``allow_zero``).

    >>> check_delta(1e-5)
    1e-05
    """
    return check_in_interval(
        name, delta, 0.0, 1.0, closed="left" if allow_zero else "neither", error=InvalidPrivacyParameter
    )


def check_epsilon_delta(epsilon: Any, delta: Any, *, allow_inf: bool = True, allow_zero_delta: bool = False):
    """Validate an (epsilon, delta) pair; returns them as floats."""
    return check_epsilon(epsilon, allow_inf=allow_inf), check_delta(delta, allow_zero=allow_zero_delta)


def check_choice(name: str, value: Any, choices) -> Any:
    """Return ``value`` if it is one of ``choices``; otherwise raise ``ValueError`` listing them."""
    choices = tuple(choices)
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}.")
    return value


def check_matrix(name: str, X: Any, *, n_cols: int | None = None, min_rows: int = 1) -> np.ndarray:
    """Return ``X`` as a finite 2-D float64 array, or raise a clear error."""
    if not isinstance(X, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be a 2-D array, got {type(X).__name__}.")
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2:
        raise DataValidationError(f"{name} must be 2-D (rows x columns), got an array with {A.ndim} dimension(s).")
    if A.shape[0] < min_rows:
        raise DataValidationError(f"{name} must have at least {min_rows} rows, got {A.shape[0]}.")
    if n_cols is not None and A.shape[1] != n_cols:
        raise DataValidationError(f"{name} must have {n_cols} columns, got {A.shape[1]}.")
    if not np.all(np.isfinite(A)):
        raise DataValidationError(f"{name} contains NaN or infinite values; remove or impute them first.")
    return A


def check_Xy(X: Any, y: Any, *, min_rows: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and a target vector of matching length."""
    A = check_matrix("X", X, min_rows=min_rows)
    if not isinstance(y, (np.ndarray, list, tuple)):
        raise TypeError(f"y must be a 1-D array, got {type(y).__name__}.")
    v = np.asarray(y, dtype=np.float64)
    if v.ndim != 1:
        raise DataValidationError(f"y must be 1-D, got an array with {v.ndim} dimensions.")
    if v.shape[0] != A.shape[0]:
        raise DataValidationError(f"X and y must have the same number of rows, got {A.shape[0]} and {v.shape[0]}.")
    if not np.all(np.isfinite(v)):
        raise DataValidationError("y contains NaN or infinite values; remove or impute them first.")
    return A, v
