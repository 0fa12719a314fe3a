"""How numbers and names are shown to people: the one formatting module of the project (pure, no Streamlit).

Every number that reaches a person goes through these functions; no function here raises on a number, a
NumPy scalar or a missing value. The rules (significant digits, zero dust, ∞ and missing words, headers):
``docs/engine.md`` §"Showing numbers (dp_core/display.py)".
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._lazy import pandas as pd

__all__ = [
    "HEADERS",
    "INFINITY",
    "MISSING",
    "NOT_REACHED",
    "NO_GUARANTEE",
    "UNBOUNDED",
    "delta",
    "download_frame",
    "epsilon",
    "header",
    "integer",
    "interval",
    "is_missing",
    "message",
    "number",
    "percent",
    "plain",
    "pm",
    "table",
    "value",
]

MISSING = "—"
INFINITY = "∞"
#: Words for ∞ by context: a target no ε on the grid reaches, a bound that guarantees nothing
#: (ε = ∞ or δ ≥ 1), a quantity that grows without limit (an objective unbounded below).
NOT_REACHED = "not reached"
NO_GUARANTEE = "no guarantee"
UNBOUNDED = "unbounded"

_SCI_LO, _SCI_HI = 1e-4, 1e12


def is_missing(x: Any) -> bool:
    """True for ``None``, NaN (float or NumPy) and ``pd.NA``/``pd.NaT``."""
    if x is None:
        return True
    try:
        return bool(pd.isna(x)) if np.ndim(x) == 0 else False
    except (TypeError, ValueError):
        return False


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real | np.integer | np.floating) and not isinstance(x, bool | np.bool_)


def _as_float(x: Any) -> float | None:
    """``float(x)`` for real numbers (±inf when out of float range), None otherwise."""
    if not _is_number(x):
        return None
    try:
        return float(x)
    except OverflowError:  # a Python int beyond 1.8e308
        return math.inf if x > 0 else -math.inf


def _sci(mant_exp: str) -> str:
    """``'1.230e-05'`` -> ``'1.23e-5'``: no trailing zeros, no zero padding, no plus sign."""
    mant, _, exp = mant_exp.partition("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}e{int(exp)}"


def _int_text(n: int, sig: int) -> str:
    """An integer: thousands separators below 1e15, short scientific notation above."""
    if abs(n) < 10**15:
        return f"{n:,}"
    return _sci(f"{decimal.Decimal(n):.{sig - 1}e}")


def number(
    x: Any,
    *,
    sig: int = 3,
    scale: Any = None,
    zero_below: float = 1e-12,
    inf: str = INFINITY,
    missing: str = MISSING,
    signed: bool = False,
) -> str:
    """A real number for people (see ``docs/engine.md`` §"Showing numbers (dp_core/display.py)").

    ``sig``: significant digits (>= 1); values with ``|x| < zero_below * |scale|`` are written ``0`` (without a
    finite non-zero ``scale`` only ``|x| < 1e-300``); ``inf``/``missing``: the words for ±∞ and None/NaN;
    ``signed``: a ``+`` in front of positive values.
    """
    sig = max(1, int(sig))
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return str(x.item()) if isinstance(x, np.generic) else str(x)
    if isinstance(x, numbers.Integral | np.integer) and not math.isfinite(v):  # beyond 1.8e308
        return ("+" if signed and x > 0 else "") + _int_text(int(x), sig)
    if math.isinf(v):
        return (f"−{inf}" if inf == INFINITY else inf) if v < 0 else inf
    a = abs(v)
    s = _as_float(scale) if scale is not None else None
    if a == 0.0 or a < 1e-300 or (s is not None and math.isfinite(s) and a < zero_below * abs(s)):
        return "0"
    if isinstance(x, numbers.Integral | np.integer):
        text = _int_text(int(x), sig)
    elif 1e3 <= a < _SCI_HI:  # large values: whole units, never rounded to sig digits (1,149 stays 1,149)
        text = f"{round(v):,}"
    elif _SCI_LO <= a < 1e3:
        digits = sig - 1 - math.floor(math.log10(a))
        rounded = round(v, digits)
        if rounded != 0 and abs(rounded) >= 10 ** (math.floor(math.log10(a)) + 1):  # 9.996 -> 10.0
            digits -= 1
            rounded = round(v, digits)
        if abs(rounded) >= 1e3:  # 999.7 -> 1,000
            text = f"{round(rounded):,}"
        else:
            text = f"{rounded:.{max(digits, 0)}f}"
            if "." in text:
                text = text.rstrip("0").rstrip(".")
        if text in ("-0", "0"):  # rounding to the precision asked for gave zero
            text = _sci(f"{v:.{sig - 1}e}")
    else:
        text = _sci(f"{v:.{sig - 1}e}")
    if signed and v > 0:
        text = "+" + text
    return text


def integer(x: Any, *, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A count with thousands separators; non-integral values are rounded to the nearest integer."""
    if is_missing(x):
        return missing
    v = _as_float(x)
    if v is None:
        return number(x, inf=inf, missing=missing)
    if math.isinf(v) and not isinstance(x, numbers.Integral | np.integer):
        return number(v, inf=inf)
    n = int(x) if isinstance(x, numbers.Integral | np.integer) else round(v)
    return _int_text(n, 3)


def _not_finite(x: Any, v: float | None, missing: str, inf: str) -> str:
    """The text of a missing value, a non-number or an infinity."""
    if is_missing(x):
        return missing
    return number(x, missing=missing) if v is None else number(v, inf=inf)


def percent(x: Any, *, sig: int = 3, missing: str = MISSING, inf: str = INFINITY) -> str:
    """A fraction as a percentage: ``0.9134 -> '91.3 %'``."""
    v = _as_float(x)
    if is_missing(x) or v is None or math.isinf(v):
        return _not_finite(x, v, missing, inf)
    p = 100.0 * v
    if math.isinf(p):
        return number(p, inf=inf)
    return f"{number(p, sig=sig, scale=100.0)} %"


def epsilon(x: Any, *, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A privacy parameter ε: up to 3 significant digits, ∞ (or a word) for no privacy."""
    return number(x, sig=3, inf=inf, missing=missing)


def delta(x: Any, *, sig: int = 2, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A probability δ: scientific below 0.001, written the short way (``1e-5``, not ``1e-05``)."""
    v = _as_float(x)
    if is_missing(x) or v is None or math.isinf(v):
        return _not_finite(x, v, missing, inf)
    if v == 0.0:
        return "0"
    sig = max(1, int(sig))
    if abs(v) >= 1e-3:
        return number(v, sig=max(sig, 3))
    return _sci(f"{v:.{sig - 1}e}")


def _decimals_of(text: str) -> int | None:
    """Decimal places of a fixed-point number text, None for other texts."""
    if "e" in text or not any(c.isdigit() for c in text):
        return None
    return len(text.split(".", 1)[1]) if "." in text else 0


def pm(mean: Any, se: Any, *, sig: int = 3, missing: str = MISSING, inf: str = INFINITY) -> str:
    """``mean ± se``: the standard error with 2 significant digits (0 when negligible beside the
    mean), and the mean with at least ``sig`` significant digits and as many decimals as the error.
    """
    if is_missing(mean):
        return missing
    m = _as_float(mean)
    scale = abs(m) if m is not None and m != 0.0 and math.isfinite(m) else 1.0
    se_text = number(se, sig=2, scale=scale, missing=missing, inf=inf)
    mean_text = number(mean, sig=sig, inf=inf, missing=missing)
    dm, ds = _decimals_of(mean_text), _decimals_of(se_text)
    if m is not None and _SCI_LO <= abs(m) < 1e3 and dm is not None and ds is not None and dm < ds <= 12:
        mean_text = f"{m:.{ds}f}"
    return f"{mean_text} ± {se_text}"


def interval(lo: Any, hi: Any, *, sig: int = 3, inf: str = INFINITY, missing: str = MISSING) -> str:
    """A closed range ``[lo, hi]`` with the same formatting on both ends."""
    return f"[{number(lo, sig=sig, inf=inf, missing=missing)}, {number(hi, sig=sig, inf=inf, missing=missing)}]"


def value(x: Any, *, sig: int = 3, inf: str = INFINITY, missing: str = MISSING) -> str:
    """Any scalar for people: numbers via :func:`number`, booleans as yes/no, text unchanged."""
    if isinstance(x, bool | np.bool_):
        return "yes" if bool(x) else "no"
    if is_missing(x):
        return missing
    if _is_number(x):
        return number(x, sig=sig, inf=inf, missing=missing)
    if isinstance(x, np.generic):
        return str(x.item())
    return str(x)


def plain(x: Any) -> Any:
    """Turn NumPy scalars into Python ones (for messages built with f-strings and for JSON)."""
    return x.item() if isinstance(x, np.generic) else x


_GREEK = {
    "eps": "ε",
    "epsilon": "ε",
    "delta": "δ",
    "sigma": "σ",
    "rho": "ρ",
    "lam": "λ",
    "eta": "η",
    "iota": "ι",
    "kappa": "κ",
    "theta": "θ",
    "tau": "τ",
    "gamma": "γ",
    "beta": "β",
    "mse": "MSE",
    "mae": "MAE",
    "std": "standard deviation",
    "sd": "standard deviation",
    "rhat": "R̂",
    "r2": "R²",
}
#: Column names used across the engine whose headers for people :func:`header` would not derive from the words.
HEADERS: dict[str, str] = {
    **_GREEK,
    "eps_lower": "ε lower bound",
    "epsilon_lower": "ε lower bound",
    "eps_upper": "ε upper end",
    "epsilon_upper": "ε upper end",
    "epsilon_measured": "smallest ε (measured)",
    "epsilon_measured_lo": "smallest ε (95% band, low)",
    "epsilon_measured_hi": "smallest ε (95% band, high)",
    "epsilon_bound": "smallest ε (bound)",
    "n_bound": "smallest n (bound)",
    "measured_note": "measured",
    "bound_note": "bound",
    "n_min": "smallest n",
    "n_min_lo": "smallest n (low)",
    "n_min_hi": "smallest n (high)",
    "n_min_source": "smallest n from",
    "eps_min": "smallest ε",
    "epsilon_min": "smallest ε",
    "k_min": "smallest k",
    "se": "standard error",
    "n_trials": "trials",
    "r_hat": "R̂",
    "rhat_max": "R̂ (max)",
    "ess": "effective sample size",
    "acceptance": "acceptance rate",
    "utility_lo": "utility (95% low)",
    "utility_hi": "utility (95% high)",
    "utility_mean": "utility",
    "excess_risk_mean": "excess risk",
    "label": "method",
    "rate_paper": "paper rate",
}

_WORDS = {
    **_GREEK,
    "lo": "(low)",
    "hi": "(high)",
    "se": "(standard error)",
    "np": "non-private",
    "nonprivate": "non-private",
    "pct": "%",
    "num": "number of",
    "ci": "confidence interval",
    "min": "smallest",
    "max": "largest",
    "ess": "ESS",
    "lad": "LAD",
    "ols": "OLS",
    "dp": "DP",
}


def header(name: Any) -> str:
    """A column name for people: known names from :data:`HEADERS`, otherwise snake_case → words."""
    key = str(plain(name))
    if key in HEADERS:
        return HEADERS[key]
    if "_" not in key:
        return key
    words = [_WORDS.get(w.lower(), w) for w in key.split("_") if w]
    if len(words) >= 2 and words[-1] == "mean":  # "excess_risk_mean" -> "excess risk (mean)"
        words[-1] = "(mean)"
    return " ".join(words) or key


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    return out


def _formatter(spec: Any, *, sig: int, inf: str, missing: str) -> Callable[[Any], str]:
    if callable(spec):
        return spec
    word = spec if isinstance(spec, str) else inf
    return lambda v: value(v, sig=sig, inf=word, missing=missing)


def table(
    df: Any,
    *,
    formats: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    sig: int = 3,
    inf: str = INFINITY,
    missing: str = MISSING,
    index: bool | None = None,
) -> pd.DataFrame:
    """A copy of ``df`` (or anything ``pd.DataFrame`` accepts) ready to show: every cell a string, every header human.

    ``formats``: column -> callable or word for ∞; ``headers`` overrides :func:`header`; ``index``: keep the
    index as first column (default: only when it is not 0, 1, 2, ...); missing cells are written ``missing``.
    """
    if not isinstance(df, pd.DataFrame):
        df = pd.DataFrame(df)
    formats = dict(formats or {})
    headers = dict(headers or {})
    if index is None:
        index = not (isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1)
    unnamed_index = None
    if index:
        unnamed_index = "index" if df.index.name is None and "index" not in df.columns else None
        df = df.reset_index()
    names = _unique([headers[c] if c in headers else "" if c == unnamed_index else header(c) for c in df.columns])
    cols = {}
    for name, col in zip(names, df.columns):
        fn = _formatter(formats.get(col), sig=sig, inf=inf, missing=missing)
        cols[name] = [fn(v) if not is_missing(v) else missing for v in df[col].tolist()]
    out = pd.DataFrame(cols, columns=names)
    return out.astype(object) if len(out) else out


def download_frame(df: pd.DataFrame, *, headers: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A copy of ``df`` for a CSV download: human headers, numbers kept as numbers (full
    precision, so the file can be re-analysed), NumPy scalars as Python values, NaN left empty
    and ±∞ written ``inf``/``-inf`` (the spelling spreadsheet and pandas readers understand).
    """
    headers = dict(headers or {})
    out = df.copy()
    out.columns = _unique([headers[c] if c in headers else header(c) for c in df.columns])
    return out


_NP_REPR = re.compile(r"\b(?:np|numpy)\.(?:float|int|uint|bool_|bool|str_|complex)\d*\(\s*([^()]*?)\s*\)")
_RAW_WORDS = {
    "nan": "not a number",
    "NaN": "not a number",
    "inf": INFINITY,
    "-inf": f"−{INFINITY}",
    "Infinity": INFINITY,
    "None": "nothing",
}
_RAW_WORD = re.compile(r"(?<![\w\\.])(-inf|nan|NaN|inf|Infinity|None)(?![\w(])")


def message(text: Any) -> str:
    """An error or warning text for people (for messages that may hold ``{x!r}`` of a value): NumPy scalar reprs
    become their value, Python's words for special values readable ones.
    """
    out = _NP_REPR.sub(lambda m: _literal(m.group(1)), str(text))
    return _RAW_WORD.sub(lambda m: _RAW_WORDS[m.group(1)], out)


def _literal(inner: str) -> str:
    """The value inside a NumPy scalar repr, written by this module (``'1e-05'`` -> ``'1e-5'``)."""
    inner = inner.strip().strip("'\"")
    for kind in (int, float):
        try:
            return number(kind(inner), sig=6, missing="not a number")
        except ValueError:
            continue
    return inner
