"""Per-record preprocessing from public per-column bounds: centre, scale, then bound the row norm.

Each output row depends on its own record and public constants only (Dwork and Roth 2014, Proposition
2.1, applied record-wise): ``docs/preprocessing.md`` §"dp_core/preprocessing.py in brief".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_positive

__all__ = [
    "PREPROCESS_METHODS",
    "DEFAULT_PREPROCESS",
    "INTERCEPT_CONSTANT",
    "append_intercept",
    "PREPROCESS_HELP",
    "PublicBounds",
    "bounds_from_data",
    "DECLARED_SOURCE",
    "check_declared_bounds",
    "format_bounds",
    "parse_bounds",
    "bounds_from_records",
    "clipped_counts",
    "rounded_bounds",
    "DATA_STATISTIC",
    "data_derived_matches",
    "coarse_public_bounds",
    "preprocess_rows",
    "default_eta",
    "reference_eta",
    "eta_cap_note",
]

#: The per-record row-bounding rules, in the order the CLI and the app list them.
PREPROCESS_METHODS: tuple[str, ...] = ("normalize", "clip", "scale", "minmax")
DEFAULT_PREPROCESS = "normalize"

#: The public constant appended to unit-ball rows as the intercept feature (the row is then divided by
#: ``sqrt(1 + c^2)``). A small constant keeps most of each row's norm for the features; measured on
#: breast_cancer (12 seeds, objective perturbation, default eta): c = 0.25 gives 0.926 at epsilon = 1 and
#: 0.953 at epsilon = 10, c = 1 gives 0.900 and 0.939.
INTERCEPT_CONSTANT = 0.25

#: One sentence per rule (CLI help, app tooltips).
PREPROCESS_HELP: dict[str, str] = {
    "normalize": "centre and scale each column by public constants, then divide each row by its own norm",
    "clip": "centre and scale by public constants, clip rows to norm 2 sqrt(d), divide by that radius",
    "scale": "centre and scale by public constants, divide every row by the largest norm the ranges allow",
    "minmax": "historical rule: each column to [0, 1] by its range, rows divided by sqrt(d)",
}


@dataclass(frozen=True)
class PublicBounds:
    """Per-column ranges ``[lo, hi]`` of the features (``hi > lo``), and where they come from.

    ``centre``/``scale`` default to the midpoint and half-width; ``data_derived=True`` marks ranges computed
    from the records (the leak warning). Fields: ``docs/preprocessing.md`` §"PublicBounds fields".
    """

    lo: tuple[float, ...]
    hi: tuple[float, ...]
    centre: tuple[float, ...] | None = None
    scale: tuple[float, ...] | None = None
    source: str = ""
    data_derived: bool = False

    def __post_init__(self) -> None:
        lo = tuple(float(v) for v in self.lo)
        hi = tuple(float(v) for v in self.hi)
        if len(lo) != len(hi) or not lo:
            raise ValueError(f"lo and hi must be non-empty and of the same length, got {len(lo)} and {len(hi)}.")
        for j, (a, b) in enumerate(zip(lo, hi)):
            if not (math.isfinite(a) and math.isfinite(b)):
                raise ValueError(f"bounds of column {j} must be finite, got [{a!r}, {b!r}].")
            if not b > a:
                raise ValueError(f"hi must exceed lo in column {j}, got [{a:g}, {b:g}].")
        c = tuple((a + b) / 2.0 for a, b in zip(lo, hi)) if self.centre is None else tuple(map(float, self.centre))
        s = tuple((b - a) / 2.0 for a, b in zip(lo, hi)) if self.scale is None else tuple(map(float, self.scale))
        if len(c) != len(lo) or len(s) != len(lo):
            raise ValueError(f"centre and scale must have {len(lo)} entries, got {len(c)} and {len(s)}.")
        for j, (cj, sj) in enumerate(zip(c, s)):
            if not (math.isfinite(cj) and math.isfinite(sj) and sj > 0):
                raise ValueError(f"column {j} needs a finite centre and a scale > 0, got centre={cj!r}, scale={sj!r}.")
        if not isinstance(self.source, str):
            raise TypeError(f"source must be a string, got {type(self.source).__name__}.")
        checked = {"lo": lo, "hi": hi, "centre": c, "scale": s, "data_derived": bool(self.data_derived)}
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def d(self) -> int:
        return len(self.lo)

    @property
    def leak_warning(self) -> str:
        """The sentence the app shows when (and only when) the ranges came from the data."""
        if not self.data_derived:
            return ""
        return (
            "The feature ranges were computed from the uploaded records: that choice depends on the private data, "
            "so it leaks information and the privacy guarantee does not cover that step. Declare public ranges "
            "instead."
        )


def bounds_from_data(X: np.ndarray) -> PublicBounds:
    """The data's own column minima and maxima, means and standard deviations, marked ``data_derived=True``
    (an upload with no public range).

    >>> b = bounds_from_data(np.array([[0.0, 5.0], [2.0, 5.0]]))
    >>> b.lo, b.hi, b.centre, b.scale, b.data_derived
    ((0.0, 4.5), (2.0, 5.5), (1.0, 5.0), (1.0, 0.5), True)
    """
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {A.shape}.")
    if not np.all(np.isfinite(A)):
        raise ValueError("X must contain only finite values.")
    lo, hi = A.min(axis=0), A.max(axis=0)
    flat = ~(hi > lo)
    lo = np.where(flat, lo - 0.5, lo)
    hi = np.where(flat, hi + 0.5, hi)
    # mean and spread computed on columns scaled by their largest magnitude (no overflow near 1e308)
    mag = np.maximum(np.abs(lo), np.abs(hi))
    mag = np.where(mag > 0, mag, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = (A / mag).mean(axis=0) * mag
        sd = (A / mag).std(axis=0) * mag
    mid, half = lo / 2.0 + hi / 2.0, hi / 2.0 - lo / 2.0
    mean = np.where(np.isfinite(mean), mean, mid)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, half)
    source = "computed from the data (column minima, maxima, means and standard deviations)"
    return PublicBounds(*map(tuple, (lo, hi, mean, sd)), source=source, data_derived=True)


#: ``PublicBounds.source`` of ranges a person declared (the app's "Declare" button, the CLI's ``--bounds``).
DECLARED_SOURCE = "declared by the user"
#: The longest text form :func:`parse_bounds` reads (a link is untrusted input).
MAX_BOUNDS_TEXT = 20_000


def _check_type(name: str, bounds: object) -> None:
    if not isinstance(bounds, PublicBounds):
        raise TypeError(f"{name} must be PublicBounds, got {type(bounds).__name__}.")


def _rows(X: np.ndarray, bounds: PublicBounds) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != bounds.d:
        raise ValueError(f"X must have shape (n, {bounds.d}) to match the bounds, got {A.shape}.")
    return A


def _column(names: Sequence[str] | None, j: int) -> str:
    if names is not None and j < len(names):
        return f"column {names[j]!r}"
    return f"column {j + 1}"


def check_declared_bounds(bounds: PublicBounds, feature_names: Sequence[str] | None = None) -> PublicBounds:
    """Check ranges a person declares (not ``data_derived``, one per feature, centres inside their ranges);
    ``ValueError`` naming the column otherwise.

    >>> check_declared_bounds(PublicBounds((0.0,), (1.0,), (2.0,), (1.0,)), ["age"])
    Traceback (most recent call last):
    ...
    ValueError: bounds of column 'age': the centre must lie in [lo, hi] = [0, 1], got 2.
    """
    _check_type("bounds", bounds)
    if bounds.data_derived:
        raise ValueError("declared bounds must not be data_derived: ranges computed from the records are not public.")
    if feature_names is not None and len(feature_names) != bounds.d:
        raise ValueError(
            f"bounds must give one (lo, hi) per feature: {len(feature_names)} features "
            f"({', '.join(map(str, feature_names))}), got {bounds.d}."
        )
    for j, (a, b, c) in enumerate(zip(bounds.lo, bounds.hi, bounds.centre)):
        if not a <= c <= b:
            raise ValueError(
                f"bounds of {_column(feature_names, j)}: the centre must lie in [lo, hi] = [{a:g}, {b:g}], got {c:g}."
            )
    return bounds


def _num_text(v: float) -> str:
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def format_bounds(bounds: PublicBounds) -> str:
    """The compact text form of ``bounds`` (links, the CLI's ``--bounds``): ``lo:hi`` per feature, or
    ``lo:hi:centre:scale`` when they are not the midpoint and half-width; exact, so :func:`parse_bounds` inverts it.

    >>> format_bounds(PublicBounds((0.0, -1.5), (90.0, 2.5), (40.0, 0.5), (10.0, 2.0)))
    '0:90:40:10,-1.5:2.5'
    """
    _check_type("bounds", bounds)
    parts = []
    for a, b, c, s in zip(bounds.lo, bounds.hi, bounds.centre, bounds.scale):
        entry = f"{_num_text(a)}:{_num_text(b)}"
        if c != (a + b) / 2.0 or s != (b - a) / 2.0:
            entry += f":{_num_text(c)}:{_num_text(s)}"
        parts.append(entry)
    return ",".join(parts)


def _finite(text: str, what: str, where: str) -> float:
    try:
        v = float(text.strip())
    except ValueError:
        raise ValueError(f"bounds of {where}: {what} {text.strip()!r} is not a number.") from None
    if not math.isfinite(v):
        raise ValueError(f"bounds of {where}: {what} must be finite, got {text.strip()!r}.")
    return v


def _entry_bounds(
    rows: Iterable[tuple[float, float, float | None, float | None]], feature_names: Sequence[str] | None, source: str
) -> PublicBounds:
    entries = []
    for j, (a, b, c, s) in enumerate(rows):
        where = _column(feature_names, j)
        if not b > a:
            raise ValueError(f"bounds of {where}: lo must be below hi, got [{a:g}, {b:g}].")
        c = (a + b) / 2.0 if c is None else c
        s = (b - a) / 2.0 if s is None else s
        if not a <= c <= b:
            raise ValueError(f"bounds of {where}: the centre must lie in [lo, hi] = [{a:g}, {b:g}], got {c:g}.")
        if not s > 0:
            raise ValueError(f"bounds of {where}: the scale must be > 0, got {s:g}.")
        entries.append((a, b, c, s))
    lo, hi, centre, scale = (tuple(v) for v in zip(*entries)) if entries else ((),) * 4
    return check_declared_bounds(PublicBounds(lo, hi, centre, scale, source=source))


def parse_bounds(
    text: str, feature_names: Sequence[str] | None = None, *, source: str = DECLARED_SOURCE
) -> PublicBounds:
    """Read the text form of :func:`format_bounds` (``lo:hi`` or ``lo:hi:centre:scale`` per feature) into declared
    :class:`PublicBounds`; ``ValueError`` naming the column otherwise (``docs/preprocessing.md`` §"parse_bounds").

    >>> b = parse_bounds("0:90, -1:1:0.5:0.25", ["age", "score"])
    >>> b.lo, b.hi, b.centre, b.scale, b.data_derived
    ((0.0, -1.0), (90.0, 1.0), (45.0, 0.5), (45.0, 0.25), False)
    >>> parse_bounds("5:3", ["age"])
    Traceback (most recent call last):
    ...
    ValueError: bounds of column 'age': lo must be below hi, got [5, 3].
    """
    if not isinstance(text, str):
        raise TypeError(f"bounds must be text like 'lo:hi,lo:hi', got {type(text).__name__}.")
    if len(text) > MAX_BOUNDS_TEXT:
        raise ValueError(f"bounds text must be at most {MAX_BOUNDS_TEXT:,} characters, got {len(text):,}.")
    entries = [e.strip() for e in text.strip().split(",")]
    if not text.strip() or any(not e for e in entries):
        raise ValueError(f"bounds must be 'lo:hi' per feature separated by commas, got {text[:60]!r}.")
    if feature_names is not None and len(entries) != len(feature_names):
        raise ValueError(
            f"bounds must give one lo:hi per feature, in column order: {len(feature_names)} features "
            f"({', '.join(map(str, feature_names))}), got {len(entries)}."
        )
    rows = []
    for j, entry in enumerate(entries):
        where = _column(feature_names, j)
        fields = entry.split(":")
        if len(fields) not in (2, 4):
            raise ValueError(f"bounds of {where}: expected lo:hi or lo:hi:centre:scale, got {entry[:60]!r}.")
        vals = [_finite(f, what, where) for f, what in zip(fields, ("lo", "hi", "centre", "scale"))]
        rows.append((vals[0], vals[1], *(vals[2:] if len(vals) == 4 else (None, None))))
    return _entry_bounds(rows, feature_names, source)


def bounds_from_records(
    records: Iterable[Mapping[str, object]], feature_names: Sequence[str], *, source: str = DECLARED_SOURCE
) -> PublicBounds:
    """Declared bounds from one record per feature, ``{"column", "lo", "hi"[, "centre", "scale"]}``.

    Columns are matched by name (any order); every feature needs exactly one record. This is the
    reader of a bounds file (CSV or JSON) and of the app's bounds table.

    >>> bounds_from_records([{"column": "b", "lo": 0, "hi": 2}, {"column": "a", "lo": -1, "hi": 1}], ["a", "b"]).lo
    (-1.0, 0.0)
    """
    names = [str(n) for n in feature_names]
    by_name: dict[str, tuple] = {}
    for rec in records:
        if not isinstance(rec, Mapping):
            raise TypeError(f"each bounds record must be a mapping with column, lo, hi, got {type(rec).__name__}.")
        col = str(rec.get("column", "")).strip()
        if col not in names:
            raise ValueError(f"bounds name an unknown column {col!r}; the features are {', '.join(names)}.")
        if col in by_name:
            raise ValueError(f"bounds give column {col!r} twice.")
        where = f"column {col!r}"
        vals = []
        for key in ("lo", "hi", "centre", "scale"):
            raw = rec.get(key)
            blank = raw is None or (isinstance(raw, str) and not raw.strip())
            if blank or (isinstance(raw, float) and math.isnan(raw)):
                if key in ("lo", "hi"):
                    raise ValueError(f"bounds of {where}: {key} is missing.")
                vals.append(None)
            else:
                vals.append(_finite(str(raw), key, where))
        by_name[col] = tuple(vals)
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ValueError(f"bounds are missing for column(s) {', '.join(map(repr, missing))}.")
    return _entry_bounds([by_name[n] for n in names], names, source)


def rounded_bounds(bounds: PublicBounds, sig: int = 4) -> PublicBounds:
    """``bounds`` rounded to ``sig`` significant digits (a table a person edits): ``lo`` down, ``hi`` up, the
    centre kept inside.

    >>> rounded_bounds(PublicBounds((0.123456,), (9.87654,), (3.33333,), (1.23456,))).lo
    (0.1234,)
    """
    if isinstance(sig, bool) or not isinstance(sig, int) or not 1 <= sig <= 17:
        raise ValueError(f"sig must be an integer in [1, 17], got {sig!r}.")

    def rnd(v: float, how) -> float:
        return 0.0 if v == 0 else _grid(v, math.floor(math.log10(abs(v))) - (sig - 1), how)

    lo = tuple(min(rnd(v, math.floor), v) for v in bounds.lo)
    hi = tuple(max(rnd(v, math.ceil), v) for v in bounds.hi)
    centre = tuple(min(max(rnd(v, round), a), b) for v, a, b in zip(bounds.centre, lo, hi))
    scale = tuple(rnd(v, round) or v for v in bounds.scale)
    return PublicBounds(lo, hi, centre, scale, source=bounds.source, data_derived=bounds.data_derived)


def clipped_counts(X: np.ndarray, bounds: PublicBounds) -> tuple[int, ...]:
    """How many values of each column lie outside its range (and get clipped): a data-dependent diagnostic
    for the data's owner, never part of a released output.

    >>> clipped_counts(np.array([[0.0, 5.0], [3.0, -1.0]]), PublicBounds((0.0, 0.0), (2.0, 4.0)))
    (1, 2)
    """
    _check_type("bounds", bounds)
    A = _rows(X, bounds)
    out = (A < np.asarray(bounds.lo)) | (A > np.asarray(bounds.hi))
    return tuple(int(v) for v in out.sum(axis=0))


def preprocess_rows(X: np.ndarray, bounds: PublicBounds, method: str = DEFAULT_PREPROCESS) -> np.ndarray:
    """Map every row into the unit ball using public constants only (``method`` of :data:`PREPROCESS_METHODS`).

    Values outside a column's range are clipped to it first (a per-record map with public constants: Dwork
    and Roth 2014, Proposition 2.1). Rows end with norm <= 1 (exactly 1 for ``"normalize"``, but rows at the
    centre stay 0); ``docs/preprocessing.md`` §"preprocess_rows".

    >>> b = PublicBounds((0.0, 0.0), (2.0, 4.0))
    >>> preprocess_rows(np.array([[2.0, 4.0], [1.0, 2.0]]), b).round(4).tolist()
    [[0.7071, 0.7071], [0.0, 0.0]]
    >>> preprocess_rows(np.array([[2.0, 4.0]]), b, "scale").round(4).tolist()
    [[0.7071, 0.7071]]
    """
    check_choice("method", method, PREPROCESS_METHODS)
    _check_type("bounds", bounds)
    A = _rows(X, bounds)
    if not np.all(np.isfinite(A)):
        raise ValueError("X must contain only finite values.")
    lo, hi = np.asarray(bounds.lo), np.asarray(bounds.hi)
    A = np.clip(A, lo, hi)
    d = A.shape[1]
    if method == "minmax":
        return (A - lo) / (hi - lo) / math.sqrt(d)
    centre, scale = np.asarray(bounds.centre), np.asarray(bounds.scale)
    Z = (A - centre) / scale
    norms = np.linalg.norm(Z, axis=1)
    if method == "normalize":
        return Z / np.where(norms > 0, norms, 1.0)[:, None]
    # the largest norm the box allows after centring and scaling: a public constant
    r = float(np.linalg.norm(np.maximum(hi - centre, centre - lo) / scale))
    if method == "clip":
        r = min(r, 2.0 * math.sqrt(d))
        Z = Z * np.minimum(1.0, r / np.maximum(norms, 1e-300))[:, None]
    return Z / r


def append_intercept(Z: np.ndarray, constant: float = INTERCEPT_CONSTANT) -> np.ndarray:
    """Append the public ``constant`` to every row and divide by ``sqrt(1 + constant^2)`` (norms stay <= 1).

    >>> append_intercept(np.array([[1.0, 0.0]]), 1.0).round(4).tolist()
    [[0.7071, 0.0, 0.7071]]
    """
    c = check_positive("constant", constant)
    A = np.asarray(Z, dtype=np.float64)
    return np.column_stack([A, np.full(A.shape[0], c)]) / math.sqrt(1.0 + c * c)


def default_eta(d: int, epsilon: float | None = None, method: str = DEFAULT_PREPROCESS) -> float:
    """The default parameter bound ``eta`` (``||w|| <= eta``) for rows prepared by ``method``.

    Rule [ours]: ``eta = max(1, sqrt(d) * min(1, epsilon / 10))`` (``sqrt(d)`` without ``epsilon``), doubled
    for ``"minmax"``; why and measured: ``docs/preprocessing.md`` §"default_eta: the rule".

    >>> round(default_eta(31, 10.0), 4)
    5.5678
    >>> default_eta(31, 1.0)
    1.0
    """
    check_choice("method", method, PREPROCESS_METHODS)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be an integer >= 1, got {d!r}.")
    share = 1.0 if epsilon is None else min(1.0, check_positive("epsilon", epsilon) / 10.0)
    eta = max(1.0, math.sqrt(float(d)) * share)
    return 2.0 * eta if method == "minmax" else eta


def reference_eta(d: int, method: str = DEFAULT_PREPROCESS) -> float:
    """The ball ``||w|| <= 2 sqrt(d)`` of the non-private reference fit, twice the largest default (on
    breast_cancer it matches a standardised logistic regression within 0.01).

    >>> round(reference_eta(4), 4)
    4.0
    """
    return 2.0 * default_eta(d, None, method)


def eta_cap_note(w_norm: float, eta: float, *, tol: float = 0.02) -> str:
    """A sentence when the non-private fit sits on the ball ``||w|| = eta`` ('' otherwise).

    >>> eta_cap_note(1.0, 1.0) != ""
    True
    >>> eta_cap_note(0.5, 1.0)
    ''
    """
    eta = check_positive("eta", eta)
    if float(w_norm) < (1.0 - tol) * eta:
        return ""
    return (
        f"The non-private model reaches the parameter bound ‖w‖ ≤ η = {eta:.3g}: the bound limits accuracy. "
        "A larger η can fit better, at the price of more noise in every private mechanism."
    )


# ------------------------------------------------------------------ declared values that are the data's own
#: What each field of :class:`PublicBounds` reveals when it is copied from the data (:func:`bounds_from_data`).
DATA_STATISTIC: dict[str, str] = {"lo": "minimum", "hi": "maximum", "centre": "mean", "scale": "standard deviation"}
#: Significant digits of the table a person edits (:func:`rounded_bounds`): values within one unit of the last
#: of them are the data's own statistics, rounded for display.
MATCH_DIGITS = 4


def _unit(value: float, width: float, digits: int) -> float:
    """One unit in the ``digits``-th significant digit of ``max(|value|, width)`` (``width`` covers a zero)."""
    mag = max(abs(value), width)
    return 10.0 ** (math.floor(math.log10(mag)) - (digits - 1))


def data_derived_matches(
    declared: PublicBounds, derived: PublicBounds, feature_names: Sequence[str] | None = None
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The declared values that are the data's own statistics: ``((column, statistics), ...)``, matches only.

    A declared value matches a :func:`bounds_from_data` value within one unit of its :data:`MATCH_DIGITS`-th
    significant digit (``docs/preprocessing.md`` §"data_derived_matches").

    >>> derived = PublicBounds((2.06,), (4.0,), (3.1171,), (0.45943,), data_derived=True)
    >>> data_derived_matches(PublicBounds((2.06,), (4.0,), (3.117,), (0.4594,)), derived, ["x"])
    (('x', ('minimum', 'maximum', 'mean', 'standard deviation')),)
    >>> data_derived_matches(PublicBounds((2.0,), (4.1,)), derived, ["x"])
    ()
    """
    _check_type("declared", declared)
    _check_type("derived", derived)
    if declared.d != derived.d:
        raise ValueError(
            f"declared and derived must have the same number of columns, got {declared.d} and {derived.d}."
        )
    names = [f"column {j + 1}" for j in range(derived.d)] if feature_names is None else [str(n) for n in feature_names]
    if len(names) != derived.d:
        raise ValueError(f"feature_names must have {derived.d} entries, got {len(names)}.")
    out = []
    for j in range(derived.d):
        width = derived.hi[j] - derived.lo[j]
        stats = tuple(
            what
            for key, what in DATA_STATISTIC.items()
            if abs(getattr(declared, key)[j] - getattr(derived, key)[j])
            < _unit(getattr(derived, key)[j], width, MATCH_DIGITS)
        )
        if stats:
            out.append((names[j], stats))
    return tuple(out)


def _grid(value: float, step_exp: int, how) -> float:
    return float(f"{how(value / 10.0**step_exp)}e{step_exp}")


def coarse_public_bounds(derived: PublicBounds, sig: int = 2) -> PublicBounds:
    """A helper for declaring: each range widened outward to a coarse grid, centre and scale from the range.

    No bound is then the data's minimum or maximum and nothing is clipped, but the result is still chosen
    by looking at the data (``docs/preprocessing.md`` §"coarse_public_bounds").

    >>> b = coarse_public_bounds(PublicBounds((2.06,), (4.0,), (3.117,), (0.4594,), data_derived=True))
    >>> b.lo, b.hi, b.centre, b.data_derived, format_bounds(b)
    ((2.0,), (4.1,), (3.05,), False, '2:4.1')
    """
    _check_type("derived", derived)
    if isinstance(sig, bool) or not isinstance(sig, int) or not 1 <= sig <= 3:
        raise ValueError(f"sig must be an integer in [1, 3], got {sig!r}.")
    lo, hi, centre = [], [], []
    for a, b, mean in zip(derived.lo, derived.hi, derived.centre):
        width = b - a
        step = math.floor(math.log10(width)) - (sig - 1)
        lo.append(min(_grid(a - _unit(a, width, MATCH_DIGITS), step, math.floor), a))
        hi.append(max(_grid(b + _unit(b, width, MATCH_DIGITS), step, math.ceil), b))
        centre.append(_centre_off_mean(lo[-1], hi[-1], mean, _unit(mean, width, MATCH_DIGITS), 10.0**step))
    scale = tuple((b - a) / 2.0 for a, b in zip(lo, hi))
    source = "the data's ranges rounded outward to a coarse grid"
    return PublicBounds(tuple(lo), tuple(hi), tuple(centre), scale, source=source, data_derived=False)


def _centre_off_mean(lo: float, hi: float, mean: float, unit: float, step: float) -> float:
    """The midpoint of ``[lo, hi]``, moved by whole grid steps when it is the data's mean (a symmetric or
    constant column); ``hi`` itself is at least ``unit`` above the data, so it never matches."""
    mid = (lo + hi) / 2.0  # as PublicBounds computes its default centre: the link then writes only lo:hi
    if abs(mid - mean) >= unit:
        return mid
    return min(mid + step * max(1, math.ceil(2.0 * unit / step)), hi)
