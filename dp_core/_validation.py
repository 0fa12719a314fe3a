"""Parameter validation shared by every module of :mod:`dp_core`.

One message format: name, valid range, value received (``TypeError`` for wrong kinds, ``ValueError`` or
:class:`~dp_core.exceptions.InvalidPrivacyParameter` out of range); ``docs/engine.md`` §"Validation".
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .exceptions import DataValidationError, InvalidPrivacyParameter

__all__ = [
    "HUGE",
    "INT_MAX",
    "TINY",
    "check_Xy",
    "check_array_size",
    "check_choice",
    "check_count",
    "check_delta",
    "check_epsilon",
    "check_in_interval",
    "check_int",
    "check_matrix",
    "check_output_dir",
    "check_output_file",
    "check_positive",
    "check_probability",
    "check_real",
    "check_seed",
    "computable",
]

#: Non-zero reals must have ``TINY <= |x| <= HUGE``: smaller values are subnormal (1e-320 makes
#: ``1 / x`` overflow) and larger ones overflow as soon as they are squared or exponentiated.
TINY = 1e-300
HUGE = 1e300
#: Integers above this do not fit numpy's int64 (``10**20`` raises OverflowError deep in numpy).
INT_MAX = 2**63 - 1

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
    if math.isfinite(x) and x != 0.0 and not (TINY <= abs(x) <= HUGE):
        raise ValueError(f"{name} must be 0 or between {TINY:g} and {HUGE:g} in absolute value, got {x!r}.")
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
    lo_t = "-inf" if lo is None else str(lo)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        hi_t = "inf" if hi is None else str(hi)
        raise ValueError(f"{name} must be an integer in [{lo_t}, {hi_t}], got {_int_text(v)}.")
    if hi is None and abs(v) > INT_MAX:
        raise ValueError(
            f"{name} must be an integer in [{lo_t}, {INT_MAX}] (it must fit in 64 bits), got {_int_text(v)}."
        )
    return v


def _int_text(v: int) -> str:
    """An integer for a message; a 5,000-digit one is described, not printed."""
    return (
        str(v)
        if abs(v) < 10**30
        else f"an integer of {len(str(abs(v)).lstrip('0')) if abs(v) < 10**4000 else 'over 4000'} digits"
    )


def check_in_interval(
    name: str, value: Any, lo: float, hi: float, *, closed: str = "both", error: type[ValueError] = ValueError
) -> float:
    """Return ``value`` as a float inside the interval from ``lo`` to ``hi``.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.

    >>> check_in_interval("delta", 0.5, 0, 1, closed="neither")
    0.5
    """
    check_choice("closed", closed, ("both", "left", "right", "neither"))
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
    closed = ("both" if allow_zero else "right") if allow_inf else ("left" if allow_zero else "neither")
    return check_in_interval(name, x, 0.0, math.inf, closed=closed, error=err)


def check_probability(name: str, value: Any, *, closed: str = "both") -> float:
    """Return ``value`` as a float in the unit interval (closed as requested)."""
    err = InvalidPrivacyParameter if name in _PRIVACY_NAMES else ValueError
    return check_in_interval(name, value, 0.0, 1.0, closed=closed, error=err)


def check_epsilon(epsilon: Any, *, allow_inf: bool = True, name: str = "epsilon") -> float:
    """Validate a privacy budget epsilon in (0, inf] (``inf`` means no privacy).

    >>> check_epsilon(1)
    1.0
    """
    closed = "right" if allow_inf else "neither"
    return check_in_interval(name, epsilon, 0.0, math.inf, closed=closed, error=InvalidPrivacyParameter)


def check_delta(delta: Any, *, allow_zero: bool = False, name: str = "delta") -> float:
    """Validate delta in (0, 1) (or [0, 1) with ``allow_zero``).

    >>> check_delta(1e-5)
    1e-05
    """
    return check_in_interval(
        name, delta, 0.0, 1.0, closed="left" if allow_zero else "neither", error=InvalidPrivacyParameter
    )


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


def check_seed(value: Any, *, name: str = "seed") -> int:
    """A root seed: an integer in [0, 2**64 - 1] (numpy's SeedSequence takes any such integer).

    >>> check_seed(7)
    7
    """
    return check_int(name, value, lo=0, hi=2**64 - 1)


def check_array_size(name: str, n_elements: int, *, limit: int = 10_000_000) -> int:
    """Refuse arrays with more than ``limit`` elements (80 MB of float64 by default) before allocating them.

    >>> check_array_size("draws x dim", 1000)
    1000
    """
    if n_elements > limit:
        raise ValueError(f"{name} must be at most {limit:,} elements, got {n_elements:,}.")
    return n_elements


def check_count(name: str, value: Any, *, lo: int = 1, hi: int = 1_000_000) -> int:
    """A number of trials, runs or draws: an integer in [lo, hi] (huge counts would run for hours).

    >>> check_count("trials", 20)
    20
    """
    return check_int(name, value, lo=lo, hi=hi)


F = TypeVar("F", bound=Callable[..., Any])

_NUMERIC_FAILURES = (OverflowError, ZeroDivisionError, FloatingPointError, MemoryError)


def _shown(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, numbers.Real):
        return _fmt(float(v)) if isinstance(v, float) else _fmt(v) if abs(int(v)) < 10**30 else "a huge integer"
    if isinstance(v, str):
        return repr(v if len(v) <= 40 else v[:40] + "...")
    return type(v).__name__


def computable(func: F) -> F:
    """Decorator: a computation that overflows, divides by zero or runs out of memory raises ``ValueError``
    naming the function and its numeric arguments (docs/engine.md §"Validation")."""
    sig = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except _NUMERIC_FAILURES as exc:
            try:
                bound = sig.bind_partial(*args, **kwargs).arguments
            except TypeError:
                bound = {}
            given = ", ".join(
                f"{k}={_shown(v)}" for k, v in bound.items() if isinstance(v, (numbers.Real, str)) and k != "self"
            )
            what = (
                "needs more memory than is available"
                if isinstance(exc, MemoryError)
                else (f"cannot be computed in floating point ({type(exc).__name__})")
            )
            raise ValueError(
                f"{func.__name__} {what} for these values: {given or 'see the arguments'}; use values of moderate size."
            ) from None

    return wrapper  # type: ignore[return-value]


def _output_path(name: str, path: Any, what: str):
    """``path`` as a :class:`pathlib.Path` (no expanduser: the shell expands ~, and "~nosuchuser" would raise)."""
    from pathlib import Path

    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError(f"{name} must be a {what} path, got {path!r}.")
    return Path(path)


def _parent_ok(name: str, target) -> None:
    parent = target.parent if str(target.parent) else target.cwd()
    if not parent.exists():
        raise ValueError(f"{name} must be in an existing folder; {str(parent)!r} does not exist (create it first).")
    if not parent.is_dir():
        raise ValueError(f"{name} must be in a folder; {str(parent)!r} is a file.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{name} must be in a folder you can write to; {str(parent)!r} is not writable.")


def check_output_dir(name: str, path: Any, *, prefix: str = "", overwrite: bool = False):
    """Check an output folder BEFORE any computation (created if missing, its parent must exist; ``prefix*``
    files in it are an error unless ``overwrite``); returns it as a :class:`pathlib.Path`."""
    target = _output_path(name, path, "folder")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{name} must be a folder, but {str(target)!r} is a file.")
    if not target.exists():
        _parent_ok(name, target.absolute())
        try:
            target.mkdir()
        except OSError as exc:
            raise ValueError(f"{name}: cannot create the folder {str(target)!r} ({exc.strerror or exc}).") from None
    if not os.access(target, os.W_OK | os.X_OK):
        raise ValueError(f"{name} must be a folder you can write to; {str(target)!r} is not writable.")
    if prefix and not overwrite:
        existing = sorted(p.name for p in target.glob(f"{prefix}*"))
        if existing:
            more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
            raise ValueError(
                f"{name} folder {str(target)!r} already holds {existing[0]!r}{more} from an earlier run; "
                "pass --force to overwrite."
            )
    return target


def check_output_file(name: str, path: Any, *, overwrite: bool = False):
    """Check an output file path BEFORE any computation: its folder must exist and be writable; an
    existing file is an error unless ``overwrite`` is true."""
    target = _output_path(name, path, "file")
    if target.is_dir():
        raise ValueError(f"{name} must be a file, but {str(target)!r} is a folder.")
    if target.exists() and not overwrite:
        raise ValueError(f"{name} file {str(target)!r} already exists; pass --force to overwrite it.")
    _parent_ok(name, target.absolute())
    if len(target.name.encode()) > 255:
        raise ValueError(f"{name} file name must be at most 255 bytes long, got {len(target.name.encode())}.")
    return target
