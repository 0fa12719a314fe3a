"""How numbers and names are shown to people: the one formatting module of the project.

Every number that reaches a person (page text, metric tiles, tables, chart hover text, CSV/HTML
downloads, error messages) goes through these functions, so that nobody sees a repr
(``np.int64(1)``), a ``nan``/``inf`` string, floating-point dust (``2e-18`` where 0 is meant) or a
snake_case column name.

Rules
-----
* Finite numbers below 1,000 get ``sig`` significant digits (3 by default); from 1,000 on they are
  rounded to whole units with thousands separators (a count is never rounded to 1,150 when it is
  1,149); scientific notation only outside [1e-4, 1e12).
* Values whose magnitude is below ``zero_below`` relative to a given ``scale`` are written ``0``
  (a standard error of ``5e-152`` beside a mean of 0.3 is 0).
* Infinity is written by context: ``"∞"`` by default, or a caller-chosen word such as
  ``"not reached"``, ``"no guarantee"`` or ``"unbounded"``.
* Missing values (``None``, NaN, ``pd.NA``) are written ``"—"`` or a caller-chosen word.
* Column names are turned into headers with :func:`header`, from an explicit table of known names
  and a readable fallback for any other snake_case name.

The module is pure (no Streamlit) so that the engine's reports and the app share it.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Mapping

import numpy as np
import pandas as pd

__all__ = [
    "MISSING", "INFINITY", "is_missing", "number", "integer", "percent", "epsilon", "delta",
    "interval", "pm", "value", "header", "HEADERS", "table", "plain",
]

MISSING = "—"
INFINITY = "∞"


def is_missing(x: Any) -> bool:
    """True for ``None``, NaN (float or NumPy) and ``pd.NA``/``pd.NaT``."""
    if x is None:
        return True
    try:
        return bool(pd.isna(x)) if np.ndim(x) == 0 else False
    except (TypeError, ValueError):
        return False


def _as_float(x: Any) -> float | None:
    if isinstance(x, bool | np.bool_):
        return None
    if isinstance(x, numbers.Real | np.integer | np.floating):
        return float(x)
    return None


def number(x: Any, *, sig: int = 3, scale: float | None = None, zero_below: float = 1e-12,
           inf: str = INFINITY, missing: str = MISSING, signed: bool = False) -> str:
    """A real number for people.

    Parameters
    ----------
    x : real number (Python or NumPy), or None/NaN.
    sig : significant digits, at least 1.
    scale : typical magnitude of the quantity (for example the mean beside a standard error).
        Values with ``|x| < zero_below * scale`` are written ``0``. Without a scale, only values
        with ``|x| < 1e-300`` (or exact zeros) are written ``0``.
    inf : the word for ±infinity (a minus sign is prefixed for −∞).
    missing : the word for None/NaN.
    signed : write a ``+`` in front of positive values.

    Examples
    --------
    >>> number(3.730588)
    '3.73'
    >>> number(12345.678)
    '12,346'
    >>> number(0.000012345)
    '1.23e-05'
    >>> number(5e-152, scale=0.3)
    '0'
    >>> number(float("inf"), inf="not reached")
    'not reached'
    >>> number(np.int64(1))
    '1'
    """
    if sig < 1:
        raise ValueError(f"sig must be at least 1, got {sig!r}.")
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return str(x)
    if math.isinf(v):
        return inf if v > 0 else f"−{inf}" if inf == INFINITY else inf
    a = abs(v)
    if a == 0.0 or a < 1e-300 or (scale is not None and math.isfinite(scale) and a < zero_below * abs(scale)):
        return "0"
    if isinstance(x, numbers.Integral | np.integer) and a < 1e15:
        text = f"{int(x):,}"
    elif 1e3 <= a < 1e12:  # large values: whole units, never rounded to sig digits (1,149 stays 1,149)
        text = f"{round(v):,}"
    elif 1e-4 <= a < 1e3:
        digits = sig - 1 - math.floor(math.log10(a))
        rounded = round(v, digits)
        if rounded != 0 and abs(rounded) >= 10 ** (math.floor(math.log10(a)) + 1):  # 9.996 -> 10.0
            digits -= 1
            rounded = round(v, digits)
        text = f"{rounded:,.{max(digits, 0)}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    else:
        mant, _, exp = f"{v:.{sig - 1}e}".partition("e")
        if "." in mant:
            mant = mant.rstrip("0").rstrip(".")
        e = int(exp)
        text = f"{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if signed and v > 0:
        text = "+" + text
    return text


def integer(x: Any, *, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A count with thousands separators; non-integral values are rounded to the nearest integer.

    >>> integer(np.int64(1149))
    '1,149'
    >>> integer(1149.6)
    '1,150'
    """
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return str(x)
    if math.isinf(v):
        return inf
    return f"{int(round(v)):,}"


def percent(x: Any, *, sig: int = 3, missing: str = MISSING, inf: str = INFINITY) -> str:
    """A fraction in [0, 1] as a percentage: ``0.9134 -> '91.3 %'``.

    >>> percent(0.9134)
    '91.3 %'
    >>> percent(1.0)
    '100 %'
    """
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return str(x)
    if math.isinf(v):
        return inf
    return f"{number(100.0 * v, sig=sig, scale=100.0)} %"


def epsilon(x: Any, *, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A privacy parameter ε: up to 3 significant digits, ∞ for no privacy.

    >>> epsilon(0.5)
    '0.5'
    >>> epsilon(1.23456)
    '1.23'
    """
    return number(x, sig=3, inf=inf, missing=missing)


def delta(x: Any, *, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A privacy parameter δ: scientific below 0.001 (``1e-05`` style is avoided: ``1e-5``).

    >>> delta(1e-5)
    '1e-5'
    >>> delta(2.5e-7)
    '2.5e-7'
    >>> delta(0.05)
    '0.05'
    >>> delta(0.0)
    '0'
    """
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return str(x)
    if math.isinf(v):
        return inf
    if v == 0.0:
        return "0"
    if abs(v) >= 1e-3:
        return number(v, sig=3)
    mant, _, exp = f"{v:.2e}".partition("e")
    mant = mant.rstrip("0").rstrip(".")
    return f"{mant}e{int(exp)}"


def pm(mean: Any, se: Any, *, sig: int = 3, missing: str = MISSING) -> str:
    """``mean ± se`` where the standard error is written 0 when negligible beside the mean.

    >>> pm(0.91342, 0.0041)
    '0.913 ± 0.0041'
    >>> pm(0.3, 5e-152)
    '0.3 ± 0'
    """
    if is_missing(mean):
        return missing
    m = _as_float(mean)
    scale = abs(m) if m not in (None, 0.0) and math.isfinite(m) else 1.0
    se_text = number(se, sig=2, scale=scale, missing=missing)
    return f"{number(mean, sig=sig)} ± {se_text}"


def interval(lo: Any, hi: Any, *, sig: int = 3, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A closed range ``[lo, hi]`` with the same formatting on both ends.

    >>> interval(0.1234, 0.5678)
    '[0.123, 0.568]'
    >>> interval(2, float("inf"))
    '[2, ∞]'
    """
    return f"[{number(lo, sig=sig, inf=inf, missing=missing)}, {number(hi, sig=sig, inf=inf, missing=missing)}]"


def value(x: Any, *, sig: int = 3, inf: str = INFINITY, missing: str = MISSING) -> str:
    """Any scalar for people: numbers via :func:`number`, booleans as yes/no, text unchanged.

    >>> value(np.float64(0.1) + np.float64(0.2))
    '0.3'
    >>> value(np.bool_(True))
    'yes'
    >>> value(None)
    '—'
    """
    if isinstance(x, bool | np.bool_):
        return "yes" if bool(x) else "no"
    if is_missing(x):
        return missing
    if _as_float(x) is not None:
        return number(x, sig=sig, inf=inf, missing=missing)
    if isinstance(x, np.generic):
        return str(x.item())
    return str(x)


def plain(x: Any) -> Any:
    """Turn NumPy scalars into Python ones (for messages built with f-strings and for JSON).

    >>> plain(np.int64(3)), plain(np.float64(0.5)), plain("a")
    (3, 0.5, 'a')
    """
    return x.item() if isinstance(x, np.generic) else x


#: Column names used across the engine and their headers for people.
HEADERS: dict[str, str] = {
    "epsilon": "ε", "eps": "ε", "delta": "δ", "sigma": "σ", "rho": "ρ", "k": "k", "m": "m", "n": "n", "d": "d",
    "lam": "λ", "eta": "η", "tau": "τ", "gamma": "γ", "theta": "θ",
    "eps_claimed": "ε claimed", "epsilon_claimed": "ε claimed",
    "eps_lower": "ε lower bound", "epsilon_lower": "ε lower bound",
    "epsilon_measured": "ε measured", "epsilon_measured_lo": "ε measured (low)",
    "epsilon_measured_hi": "ε measured (high)",
    "n_min": "smallest n", "n_min_lo": "smallest n (low)", "n_min_hi": "smallest n (high)",
    "n_min_source": "smallest n from", "eps_min": "smallest ε", "epsilon_min": "smallest ε",
    "se": "standard error", "mean": "mean", "std": "standard deviation", "sd": "standard deviation",
    "n_trials": "trials", "trials": "trials", "trial": "trial", "method": "method", "mechanism": "mechanism",
    "mode": "mode", "status": "status", "accuracy": "accuracy", "test_mse": "test MSE", "mse": "MSE",
    "mae": "MAE", "r2": "R²", "excess_risk": "excess risk", "risk": "risk", "bound": "bound",
    "nonprivate_risk": "non-private risk", "ratio": "ratio", "rhat": "R̂", "r_hat": "R̂",
    "ess": "effective sample size", "acceptance": "acceptance rate", "seed": "seed", "runs": "runs",
}

_WORDS = {"eps": "ε", "epsilon": "ε", "delta": "δ", "sigma": "σ", "rho": "ρ", "lam": "λ", "eta": "η",
          "lo": "(low)", "hi": "(high)", "se": "standard error", "n": "n", "mse": "MSE", "mae": "MAE",
          "nonprivate": "non-private", "pct": "%", "num": "number of", "ci": "confidence interval"}


def header(name: Any) -> str:
    """A column name for people: known names from :data:`HEADERS`, otherwise snake_case → words.

    >>> header("epsilon_measured_lo")
    'ε measured (low)'
    >>> header("noise_std_label")
    'noise std label'
    >>> header("Income")
    'Income'
    """
    key = str(name)
    if key in HEADERS:
        return HEADERS[key]
    if "_" not in key:
        return key
    words = [_WORDS.get(w.lower(), w) for w in key.split("_") if w]
    return " ".join(words)


def table(df: pd.DataFrame, *, formats: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None,
          sig: int = 3, inf: str = INFINITY, missing: str = MISSING) -> pd.DataFrame:
    """A copy of ``df`` ready to show: every cell a string formatted here, every header human.

    ``formats`` maps a column to a callable (for example :func:`percent`) or to a word for ∞
    (``{"n_min": "not reached"}``); ``headers`` overrides :func:`header` for some columns.
    """
    formats = dict(formats or {})
    headers = dict(headers or {})
    out = pd.DataFrame(index=df.index)
    for col in df.columns:
        spec = formats.get(col)
        if callable(spec):
            fn = spec
        else:
            word = spec if isinstance(spec, str) else inf
            fn = (lambda w: (lambda v: value(v, sig=sig, inf=w, missing=missing)))(word)
        out[headers.get(col, header(col))] = [fn(v) for v in df[col].tolist()]
    return out.reset_index(drop=True)
