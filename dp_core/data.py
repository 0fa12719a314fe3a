"""Datasets: bundled real data, seeded synthetic generators, CSV parsing and explicit preprocessing.

Nothing is downloaded or written; every preprocessing helper says what it did and whether a bound came
from the data (``docs/foundation.md`` §"dp_core/data.py").
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from . import display
from ._lazy import pandas as pd
from ._validation import check_choice, check_in_interval, check_int, check_positive, check_real
from .exceptions import DataValidationError, PrivacyLeakWarning
from .preprocessing import PublicBounds, bounds_from_data, check_declared_bounds, format_bounds
from .rng import RngLike, as_generator

__all__ = [
    "ASSETS_DIR",
    "DATASETS",
    "DatasetInfo",
    "Dataset",
    "PreprocessInfo",
    "CsvTable",
    "LIMITS",
    "dataset_names",
    "load_dataset",
    "load_csv_path",
    "parse_csv",
    "table_to_dataset",
    "make_census",
    "make_gaussian_classes",
    "make_heavy_tailed",
    "sample_heavy_design",
    "sample_heavy_noise",
    "HEAVY_DESIGNS",
    "HEAVY_NOISES",
    "scale_rows_to_ball",
    "clip_rows",
    "scale_labels",
    "split_indices",
    "train_test_split",
    "fingerprint_arrays",
]

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"
if not ASSETS_DIR.is_dir():  # installed with pip: the CSV files ship inside the package (setup.py)
    ASSETS_DIR = Path(__file__).resolve().parent / "_assets"

#: Documented limits for uploaded CSV files.
#: ``max_abs``: the largest magnitude accepted in a feature or target column; the mechanisms square values
#: and sum them over rows and columns (row norms, Gram matrices), which must stay finite (float64 overflows
#: near 1.8e308, so squares of values up to 1e100 summed over 200,000 x 100 cells keep a wide margin).
LIMITS = {"max_bytes": 25 * 1024 * 1024, "max_rows": 200_000, "max_cols": 100, "min_rows": 20, "max_abs": 1e100}


@dataclass(frozen=True)
class DatasetInfo:
    """Catalogue entry of a demo dataset."""

    name: str
    title: str
    task: str
    kind: str  # "real" or "synthetic"
    target: str
    source: str
    description: str
    default_n: int | None = None


#: The demo datasets' catalogue and their documented public bounds live in ``datasets.json``.
_CATALOGUE = json.loads(Path(__file__).with_name("datasets.json").read_text(encoding="utf-8"))
DATASETS: dict[str, DatasetInfo] = {e["name"]: DatasetInfo(**e) for e in _CATALOGUE["datasets"]}


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset ready for a mechanism: a float design matrix ``X`` (n, d) and a float target ``y``.

    ``name``: catalogue name, ``upload:<file>`` or ``csv:<path>``; ``y``: classes coded 0..C-1 for
    classification; ``fingerprint``: SHA-256 of the arrays (and of ``declared_bounds``, when set). Fields:
    ``docs/foundation.md`` §"Dataset fields".
    """

    name: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    feature_names: tuple[str, ...]
    target_name: str
    task: str
    n_classes: int
    source: str = ""
    description: str = ""
    notes: tuple[str, ...] = ()
    fingerprint: str = ""
    declared_bounds: Any = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def is_classification(self) -> bool:
        return self.task in ("binary", "multiclass")

    def with_public_bounds(self, bounds: Any) -> Dataset:
        """A copy of this dataset that carries declared public per-column bounds (``None``: drop them).

        The bounds are checked (:func:`dp_core.preprocessing.check_declared_bounds`) and the copy's fingerprint
        covers them, so results computed with other bounds are never reused.

        >>> ds = load_dataset("iris")
        >>> from dp_core.preprocessing import parse_bounds
        >>> b = parse_bounds("4:8,2:5,1:7,0:3", ds.feature_names)
        >>> declared = ds.with_public_bounds(b)
        >>> public_bounds(declared) is b, declared.fingerprint != ds.fingerprint
        (True, True)
        >>> declared.with_public_bounds(None).fingerprint == ds.fingerprint
        True
        """
        base = self.fingerprint if self.declared_bounds is None else fingerprint_arrays(self.X, self.y)
        if bounds is None:
            return replace(self, declared_bounds=None, fingerprint=base)
        check_declared_bounds(bounds, self.feature_names)
        fp = hashlib.sha256(f"{base}|public-bounds:{format_bounds(bounds)}".encode()).hexdigest()
        return replace(self, declared_bounds=bounds, fingerprint=fp)

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(self.X, columns=list(self.feature_names))
        frame[self.target_name] = self.y
        return frame


def fingerprint_arrays(*arrays: np.ndarray) -> str:
    """SHA-256 hex digest of the arrays' shapes and bytes."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _make_dataset(name, X, y, feature_names, target_name, task, *, source="", description="", notes=()) -> Dataset:
    # own copies: a column taken from a DataFrame is a view of its whole block, and a session holding the
    # target would hold every column of the parsed file with it (issue 24: 19 MB per maximum upload)
    X, y = _own(X), _own(y)
    X.setflags(write=False)
    y.setflags(write=False)
    n_classes = int(len(np.unique(y))) if task in ("binary", "multiclass") else 0
    texts = {"source": source, "description": description, "notes": tuple(notes)}
    return Dataset(
        name, X, y, tuple(feature_names), target_name, task, n_classes, **texts, fingerprint=fingerprint_arrays(X, y)
    )


def _about(name: str) -> dict:
    return {"source": DATASETS[name].source, "description": DATASETS[name].description}


def _x_names(d: int) -> list[str]:
    return [f"x{j + 1}" for j in range(d)]


def _rows_of(ds: Dataset, idx: np.ndarray, name: str, notes: tuple[str, ...]) -> Dataset:
    """The rows ``idx`` of ``ds`` as a new dataset called ``name``."""
    kept = {k: getattr(ds, k) for k in ("feature_names", "target_name", "task", "source", "description")}
    return _make_dataset(name, ds.X[idx], ds.y[idx], **kept, notes=notes)


def _own(a) -> np.ndarray:
    """``a`` as a C-contiguous float64 array that owns its memory (a copy only when ``a`` is a view)."""
    out = np.ascontiguousarray(a, dtype=np.float64)
    return out if out.base is None else out.copy()


def dataset_names() -> list[str]:
    """The names accepted by :func:`load_dataset` (and the CLI's ``--dataset``)."""
    return list(DATASETS)


# ------------------------------------------------------------------------- synthetic generators

CENSUS_FEATURES = tuple(
    "age years_of_schooling hours_per_week weeks_worked is_single is_married is_female household_size children "
    "urban owns_home occupation_score disability".split()
)


def make_census(n: int = 20_000, *, seed: RngLike = 0) -> Dataset:
    """Census-like income data: 13 attributes in [0, 1] by their public domain and an income target in [0, 1].

    Drawn from a fixed, public model (``docs/foundation.md`` §"make_census"); stands in for the IPUMS data of
    Fukuchi, Tran, Sakuma, *Differentially Private ERM with Input Perturbation*, section 6.
    """
    n = check_int("n", n, lo=2, hi=5_000_000)
    g = as_generator(seed)
    age = g.uniform(18, 80, n)
    school = np.clip(g.normal(13, 3, n), 0, 20)
    married_state = g.choice(3, size=n, p=[0.35, 0.5, 0.15])  # single, married, other
    is_single = (married_state == 0).astype(float)
    is_married = (married_state == 1).astype(float)
    female = g.integers(0, 2, n).astype(float)
    hours = np.clip(g.normal(38 - 4 * female, 10, n), 0, 80)
    weeks = np.clip(np.where(g.random(n) < 0.8, 52, g.uniform(0, 52, n)), 0, 52)
    household = np.clip(1 + g.poisson(1.5 + is_married, n), 1, 10)
    children = np.clip(g.poisson(0.6 + 0.8 * is_married, n), 0, 8)
    urban = (g.random(n) < 0.7).astype(float)
    owns = (g.random(n) < 0.35 + 0.25 * is_married + 0.003 * (age - 18)).astype(float)
    occ = np.clip(0.5 * (school - 13) / 3 + g.normal(0, 1, n), -3, 3)
    disab = (g.random(n) < 0.06 + 0.002 * (age - 18)).astype(float)
    log_income = (
        9.2
        + 0.09 * school
        + 0.018 * hours
        + 0.004 * weeks
        + 0.03 * (age - 18)
        - 0.0004 * (age - 18) ** 2
        + 0.12 * is_married
        - 0.15 * female
        + 0.08 * urban
        + 0.2 * occ
        - 0.3 * disab
        + g.normal(0, 0.55, n)
    )
    income_cap = 250_000.0
    income = np.minimum(np.exp(log_income), income_cap) / income_cap
    cols = [
        (age - 18) / 62,
        school / 20,
        hours / 80,
        weeks / 52,
        is_single,
        is_married,
        female,
        (household - 1) / 9,
        children / 8,
        urban,
        owns,
        (occ + 3) / 6,
        disab,
    ]
    note = "Every feature is in [0, 1] by its public domain; income = min(income, 250,000)/250,000."
    X = np.column_stack(cols)
    return _make_dataset(
        "census", X, income, CENSUS_FEATURES, "income", "regression", notes=(note,), **_about("census")
    )


def make_gaussian_classes(
    n: int = 1_000,
    *,
    d: int = 2,
    n_classes: int = 3,
    spread: float = 0.15,
    radius: float = 0.5,
    anisotropic: bool = False,
    seed: RngLike = 0,
) -> Dataset:
    """Gaussian class-conditional data of the project's large-margin pilot (docs/large_margin_gaussian.md): class
    means on a circle of ``radius``, ``spread * N(0, I)`` around them, rows clipped to the unit ball (a public rule)."""
    n = check_int("n", n, lo=2, hi=5_000_000)
    d = check_int("d", d, lo=2, hi=100)
    n_classes = check_int("n_classes", n_classes, lo=2, hi=50)
    spread = check_positive("spread", spread)
    radius = check_positive("radius", radius)
    g = as_generator(seed)
    y = g.integers(0, n_classes, n)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    means = np.zeros((n_classes, d))
    means[:, 0] = radius * np.cos(angles)
    means[:, 1] = radius * np.sin(angles)
    Z = g.standard_normal((n, d)) * spread
    if anisotropic:
        Z[:, 1] *= 0.4
        phi = np.pi * y / n_classes
        c, s = np.cos(phi), np.sin(phi)
        z0, z1 = Z[:, 0].copy(), Z[:, 1].copy()
        Z[:, 0] = c * z0 - s * z1
        Z[:, 1] = s * z0 + c * z1
    X = means[y] + Z
    norms = np.linalg.norm(X, axis=1)
    X = X / np.maximum(1.0, norms)[:, None]
    note = "Rows clipped to the unit ball (a public rule)."
    return _make_dataset(
        "gaussian_classes", X, y, _x_names(d), "class", "multiclass", **_about("gaussian_classes"), notes=(note,)
    )


HEAVY_DESIGNS = ("gaussian", "student_t", "pareto_sphere", "pareto_abs", "lognormal_sphere")
HEAVY_NOISES = ("gaussian", "student_t", "pareto_skewed", "laplace")


def _unit_sphere(g: np.random.Generator, n: int, d: int) -> np.ndarray:
    u = g.standard_normal((n, d))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def sample_heavy_design(
    g: np.random.Generator,
    n: int,
    d: int,
    design: str = "pareto_sphere",
    *,
    tail: float = 1.8,
    scale: float = 1.0,
    log_sigma: float = 0.75,
) -> np.ndarray:
    """Feature rows of the l1 pilot's designs X1-X5 (docs/l1_exponential.md), drawn from ``g``.

    ``gaussian`` X1: ``scale * N(0, I_d)``; ``student_t`` X2: ``scale * t(tail)`` coordinates;
    ``pareto_sphere`` X3: radius Pareto-I(tail, scale) times a uniform direction; ``pareto_abs`` X4:
    as X3 with absolute coordinates; ``lognormal_sphere`` X5: radius ``exp(log(scale) + log_sigma Z)``.
    """
    check_choice("design", design, HEAVY_DESIGNS)
    if design == "gaussian":
        return scale * g.standard_normal((n, d))
    if design == "student_t":
        return scale * g.standard_t(tail, size=(n, d))
    if design in ("pareto_sphere", "pareto_abs"):
        rho = scale * (1.0 + g.pareto(tail, n))
        u = _unit_sphere(g, n, d)
        return rho[:, None] * (np.abs(u) if design == "pareto_abs" else u)
    rho = np.exp(math.log(scale) + log_sigma * g.standard_normal(n))
    return rho[:, None] * _unit_sphere(g, n, d)


def sample_heavy_noise(
    g: np.random.Generator, n: int, noise: str = "student_t", *, noise_tail: float = 1.8, noise_scale: float = 1.0
) -> np.ndarray:
    """Median-zero noise of the l1 pilot's laws N1-N4 (docs/l1_exponential.md), drawn from ``g``.

    ``gaussian`` N1; ``student_t`` N2 (``noise_tail`` degrees of freedom); ``pareto_skewed`` N3
    (``s (P - 2^(1/alpha))`` with ``P ~ Pareto-I(noise_tail, 1)``); ``laplace`` N4 (scale ``noise_scale``).
    """
    check_choice("noise", noise, HEAVY_NOISES)
    if noise == "gaussian":
        return noise_scale * g.standard_normal(n)
    if noise == "student_t":
        return noise_scale * g.standard_t(noise_tail, n)
    if noise == "pareto_skewed":
        return noise_scale * ((1.0 + g.pareto(noise_tail, n)) - 2.0 ** (1.0 / noise_tail))
    return g.laplace(0.0, noise_scale, n)


def make_heavy_tailed(
    n: int = 5_000,
    *,
    d: int = 2,
    design: str = "pareto_sphere",
    noise: str = "student_t",
    tail: float = 1.8,
    noise_tail: float = 1.8,
    scale: float = 1.0,
    noise_scale: float = 1.0,
    w_norm: float = 0.5,
    log_sigma: float = 0.75,
    seed: RngLike = 0,
) -> Dataset:
    """Heavy-tailed linear regression data, ``y = <x, w0> + xi``, designs X1-X5 and noises N1-N4 of the l1 pilot
    (``docs/l1_exponential.md`` §"make_heavy_tailed: designs and noises").
    """
    n = check_int("n", n, lo=2, hi=5_000_000)
    d = check_int("d", d, lo=1, hi=100)
    check_choice("design", design, HEAVY_DESIGNS)
    check_choice("noise", noise, HEAVY_NOISES)
    tail = check_positive("tail", tail)
    noise_tail = check_positive("noise_tail", noise_tail)
    scale = check_positive("scale", scale)
    noise_scale = check_positive("noise_scale", noise_scale)
    w_norm = check_positive("w_norm", w_norm, allow_zero=True)
    log_sigma = check_positive("log_sigma", log_sigma)
    if noise == "pareto_skewed" and noise_tail <= 1.0:
        raise ValueError(
            f"noise_tail must be in (1, inf) for the skewed Pareto noise (finite mean), got {noise_tail:g}."
        )
    g = as_generator(seed)
    X = sample_heavy_design(g, n, d, design, tail=tail, scale=scale, log_sigma=log_sigma)
    xi = sample_heavy_noise(g, n, noise, noise_tail=noise_tail, noise_scale=noise_scale)
    w0 = np.full(d, w_norm / math.sqrt(d))
    y = X @ w0 + xi
    about = {
        "source": DATASETS["heavy_tailed"].source,
        "description": f"design={design} (tail {tail:g}), noise={noise} (tail {noise_tail:g}), d={d}",
        "notes": (f"True parameter w0 = {w_norm:g} * (1, ..., 1)/sqrt(d).",),
    }
    return _make_dataset("heavy_tailed", X, y, _x_names(d), "y", "regression", **about)


# ------------------------------------------------------------------- CSV parsing and validation


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A parsed, validated CSV: the frame plus what the user still has to decide."""

    frame: pd.DataFrame = field(repr=False)
    file_name: str
    numeric_columns: tuple[str, ...]
    non_numeric_columns: tuple[str, ...]
    delimiter: str
    encoding: str
    fingerprint: str
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------- CSV reading
# Every check below is linear in the file size and runs before pandas sees the file, so that a hostile
# or odd file (one line of 150,000 fields, a compressed archive, CR-only line endings) is rejected or
# repaired in well under a second with a message saying what to do.

#: Magic bytes of files people upload by mistake, with what they are and what to do.
_UNPACK = "Unpack it first and upload the CSV file inside."
_GUNZIP = "Unpack it first (for example with 'gunzip' or 7-Zip) and upload the CSV file inside."
_PARQUET = "Convert it to CSV (for example with pandas' read_parquet and to_csv) and upload that."
_SAVE_AS = "Open it in a spreadsheet program, use 'Save as' CSV and upload that."
_MAGIC = (
    (b"\x1f\x8b", "a gzip-compressed file (.gz)", _GUNZIP),
    (b"PK\x03\x04", "a ZIP archive", _UNPACK),
    (b"PK\x05\x06", "an empty ZIP archive", "Put the CSV file itself in the upload box."),
    (b"BZh", "a bzip2-compressed file (.bz2)", _UNPACK),
    (b"\xfd7zXZ\x00", "an xz-compressed file (.xz)", _UNPACK),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", _UNPACK),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-style Excel workbook (.xls)", _SAVE_AS),
    (b"%PDF", "a PDF document", "Export the table as CSV from the program that made it and upload that."),
    (b"PAR1", "a Parquet file", _PARQUET),
)
_CANDIDATE_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_LINES = 50
_MARK_NAMES = {
    ",": "','",
    ".": "'.'",
    " ": "a space",
    "\u00a0": "a non-breaking space",
    "\u202f": "a thin space",
    "'": "an apostrophe",
}
_THOUSANDS_MARKS = tuple(_MARK_NAMES)


def _sniff_binary(raw: bytes, file_name: str) -> None:
    head = bytes(raw[:8])
    for magic, what, todo in _MAGIC:
        if head.startswith(magic):
            if magic == b"PK\x03\x04" and (b"[Content_Types].xml" in raw[:4096] or b"xl/" in raw[:4096]):
                what, todo = "an Excel workbook (.xlsx)", _SAVE_AS
            raise DataValidationError(f"'{file_name}' is {what}, not CSV text. {todo}")
    if b"\x00" in raw[:4096] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataValidationError(
            f"'{file_name}' is a binary file, not CSV text (it contains NUL bytes). Export the "
            "table as CSV (UTF-8) and upload that."
        )


def _decode(raw: bytes) -> tuple[str, str]:
    for enc in ("utf-8-sig", "utf-16") if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else ("utf-8-sig",):
        try:
            return raw.decode(enc), enc
        except UnicodeDecodeError:
            pass
    try:
        text = raw.decode("cp1252")
    except UnicodeDecodeError:
        raise DataValidationError(
            "The file is not valid UTF-8 text (nor Windows-1252). Save it as 'CSV UTF-8' and upload it again."
        ) from None
    return text, "cp1252"


def _normalise_newlines(text: str, notes: list[str]) -> str:
    if "\r" not in text:
        return text
    if "\n" not in text:
        notes.append("The file uses old Mac line endings (CR only); they were read as ordinary line breaks.")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line of ``text``, each found with ``str.find`` (linear, however long a line)."""
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        yield pos, end
        pos = end + 1


def _skip_leading_comments(text: str, notes: list[str]) -> str:
    """Drop leading blank lines and lines starting with '#'."""
    pos, n_comments = len(text), 0
    for start, end in _line_spans(text):
        line = text[start:end].strip()
        if line and not line.startswith("#"):
            pos = start
            break
        n_comments += bool(line)
    if n_comments:
        notes.append(
            f"Skipped {n_comments} comment line{'s' if n_comments > 1 else ''} starting with '#' at the "
            "top of the file."
        )
    return text[pos:]


def _first_lines(text: str, k: int) -> list[str]:
    """The first ``k`` non-blank lines of ``text``."""
    return list(itertools.islice((text[a:b] for a, b in _line_spans(text) if text[a:b].strip()), k))


#: The longest column name or text category kept (characters): a header or a category is a short label, so a
#: longer one is refused with a message naming it (a field of any length is read; only these are limited).
MAX_LABEL_CHARS = 200


def _csv_rows(lines: list[str], delimiter: str) -> list[list[str]]:
    """``csv.reader`` rows of ``lines``; the process-wide ``csv.field_size_limit()`` is raised (never lowered) to
    the longest line, so a 200 KB cell no longer crashes the upload (issue 24).
    """
    longest = max((len(line) for line in lines), default=0)
    if longest >= csv.field_size_limit():
        csv.field_size_limit(longest + 1)
    return list(csv.reader(lines, delimiter=delimiter))


def _detect_delimiter(lines: list[str]) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of fields; ties: the most fields."""
    best, best_score = ",", (-1.0, 0)
    for d in _CANDIDATE_DELIMITERS:
        if not any(d in line for line in lines):
            continue
        try:
            counts = [len(row) for row in _csv_rows(lines, d)]
        except csv.Error:
            continue
        if not counts or max(counts) < 2:
            continue
        consistent = sum(c == counts[0] for c in counts) / len(counts)
        score = (consistent, counts[0])
        if score > best_score:
            best, best_score = d, score
    return best


def _check_field_counts(lines: list[str], delimiter: str, file_name: str, max_cols: int) -> list[str]:
    """Reject a file whose first lines have more fields than the column limit (before pandas reads anything),
    or whose header names a column with more than :data:`MAX_LABEL_CHARS` characters."""
    try:
        rows = _csv_rows(lines, delimiter)
    except csv.Error as exc:
        raise DataValidationError(
            f"'{file_name}' could not be read as CSV ({exc}). Check the quotes: every field that opens a quote "
            "must close it."
        ) from None
    for i, row in enumerate(rows):
        if len(row) > max_cols:
            where = "header row" if i == 0 else f"line {i + 1}"
            raise DataValidationError(
                f"'{file_name}' has {len(row):,} fields on its {where}, so {len(row):,} columns; the limit is "
                f"{max_cols}. Drop columns you do not need before uploading, and check that the file is a table "
                "with one record per line."
            )
    header = [h.strip() for h in rows[0]] if rows else []
    for j, h in enumerate(header):
        if len(h) > MAX_LABEL_CHARS and not _is_number(h):
            raise DataValidationError(
                f"'{file_name}': the name of column {j + 1} on the header row is {len(h):,} characters long; the "
                f"limit is {MAX_LABEL_CHARS}. Give it a short name (or check that the first line is the header)."
            )
    return header


def _is_number(s: str) -> bool:
    try:
        float(s.replace(",", ""))
    except ValueError:
        return False
    return bool(s.strip())


def _number_pattern(decimal: str, thousands: str | None) -> re.Pattern:
    d = re.escape(decimal)
    if thousands is None:
        body = r"\d+"
    else:
        body = rf"(?:\d{{1,3}}(?:{re.escape(thousands)}\d{{3}})+|\d+)"
    return re.compile(rf"^[+-]?(?:{body}(?:{d}\d*)?|{d}\d+)(?:[eE][+-]?\d+)?$")


_NUMBER_CHARS = re.compile(r"[0-9+\-eE.,' \u00a0\u202f]+")


def _formats_supported(values: pd.Series) -> list[tuple[str, str | None]]:
    """Number formats (decimal mark, thousands mark) under which every value of a text column is a number."""
    if not all(bool(v.str.fullmatch(_NUMBER_CHARS).all()) for v in (values.head(20), values)):
        return []  # a text column: one cheap pass instead of one per format
    out = []
    for decimal in (".", ","):
        for thousands in (None, *_THOUSANDS_MARKS):
            if thousands == decimal:
                continue
            pat = _number_pattern(decimal, thousands)
            if bool(values.str.fullmatch(pat).all()):
                out.append((decimal, thousands))
    return out


def _number_format(frame: pd.DataFrame, delimiter: str) -> tuple[tuple[str, str | None] | None, list[str]]:
    """Detect thousands separators and decimal commas in the text columns of a first read: the format to re-read
    with (or None) and the columns it turns into numbers (all sampled values in one non-plain format; '1,234'
    is a decimal comma in a ';'-separated file, a thousands separator in a ','-separated one).
    """
    per_column = {}
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        values = col.dropna().astype(str).str.strip()
        values = values[values != ""].head(2_000)
        if values.empty:
            continue
        formats = _formats_supported(values)
        if formats and (".", None) not in formats:
            per_column[c] = formats
    if not per_column:
        return None, []
    prefer_comma = delimiter != ","

    def rank(fmt):
        decimal, thousands = fmt
        return (sum(fmt in f for f in per_column.values()), (decimal == ",") == prefer_comma, thousands is None)

    fmt = max({f for fs in per_column.values() for f in fs}, key=rank)
    return fmt, [c for c, fs in per_column.items() if fmt in fs]


def _describe_format(fmt: tuple[str, str | None]) -> str:
    decimal, thousands = fmt
    parts = [f"{_MARK_NAMES[decimal]} as the decimal mark"]
    if thousands is not None:
        parts.append(f"{_MARK_NAMES[thousands]} as the thousands separator")
    return " and ".join(parts)


def _read_frame(text: str, delimiter: str, file_name: str, nrows: int, **kw) -> pd.DataFrame:
    try:
        return pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True, nrows=nrows, **kw)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise DataValidationError(
            f"'{file_name}' could not be read as CSV ({str(exc).splitlines()[0]}). "
            "Check that every row has the same number of fields."
        ) from None


def _index_column(frame: pd.DataFrame) -> str | None:
    """The name of a saved pandas index (an unnamed first column holding 0..n-1 or 1..n), if any."""
    if frame.shape[1] < 2:
        return None
    first = frame.columns[0]
    if not (str(first).strip() == "" or str(first).startswith("Unnamed: 0")):
        return None
    col = frame[first]
    if not pd.api.types.is_integer_dtype(col) or len(col) == 0:
        return None
    v = col.to_numpy()
    start = int(v[0])
    return first if start in (0, 1) and np.array_equal(v, np.arange(start, start + len(v))) else None


def parse_csv(raw: bytes, *, file_name: str = "upload.csv", limits: dict | None = None) -> CsvTable:
    """Parse and validate an uploaded CSV file held in memory (linear in its size).

    Detects the delimiter and the encoding, repairs what it can and says so in ``CsvTable.notes``, raises
    :class:`DataValidationError` with an actionable message otherwise; non-numeric columns are reported, not
    rejected. The list: ``docs/foundation.md`` §"parse_csv: detected, repaired, refused".
    """
    lim = dict(LIMITS, **(limits or {}))
    text, encoding, notes = _decoded_text(raw, file_name, lim)
    lines = _first_lines(text, _SNIFF_LINES)
    # the field count of the first lines is checked with every candidate delimiter before any other work
    for d in _CANDIDATE_DELIMITERS:
        if lines[0].count(d) >= lim["max_cols"]:
            _check_field_counts(lines[:1], d, file_name, lim["max_cols"])
    delimiter = _detect_delimiter(lines)
    header = _check_field_counts(lines, delimiter, file_name, lim["max_cols"])
    headerless = len(header) > 1 and all(_is_number(h) for h in header)
    read = {"header": None, "names": [f"column {j + 1}" for j in range(len(header))]} if headerless else {}
    nrows = lim["max_rows"] + 1
    frame = _read_frame(text, delimiter, file_name, nrows, **read)
    _check_header(header, headerless, file_name, notes)
    _reread_numbers(frame, text, delimiter, file_name, nrows, read, notes)
    frame.columns = [str(c).strip() for c in frame.columns]
    index_col = _index_column(frame)
    if index_col is not None:
        frame = frame.drop(columns=[index_col])
        notes.append(
            "The first column has no name and counts the rows (a saved pandas index); it was dropped. "
            "Save the file with index=False to avoid this."
        )
    _check_shape(frame, lines, delimiter, file_name, lim)
    numeric, non_numeric = _numeric_columns(frame)
    fingerprint = hashlib.sha256(bytes(raw)).hexdigest()
    return CsvTable(
        frame, file_name, tuple(numeric), tuple(non_numeric), delimiter, encoding, fingerprint, tuple(notes)
    )


def _decoded_text(raw: bytes, file_name: str, lim: dict) -> tuple[str, str, list[str]]:
    """The checked, decoded text of an upload (newlines normalised, leading comments skipped), its encoding
    and the notes of those repairs."""
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"raw must be bytes, got {type(raw).__name__}.")
    if len(raw) == 0 or not raw.strip():
        raise DataValidationError(
            f"'{file_name}' is empty. Upload a CSV file with a header row and at least {lim['min_rows']} data rows."
        )
    if len(raw) > lim["max_bytes"]:
        raise DataValidationError(
            f"'{file_name}' is {len(raw) / 2**20:.1f} MB; the limit is "
            f"{lim['max_bytes'] / 2**20:.0f} MB. Upload a sample of the rows."
        )
    _sniff_binary(raw, file_name)
    text, encoding = _decode(bytes(raw))
    notes: list[str] = []
    text = _normalise_newlines(text, notes)
    text = _skip_leading_comments(text, notes)
    if not text.strip():
        raise DataValidationError(
            f"'{file_name}' holds only comment lines. Upload a CSV file with a header row and "
            f"at least {lim['min_rows']} data rows."
        )
    return text, encoding, notes


def _check_header(header: list[str], headerless: bool, file_name: str, notes: list[str]) -> None:
    """Note a header-less file; refuse duplicate column names."""
    if headerless:
        notes.append(
            f"The first row holds only numbers, so it was read as data, not as a header; the columns are "
            f"named 'column 1' to 'column {len(header)}'. Add a header row to name them."
        )
    else:
        counts = Counter(header)
        dupes = sorted(h for h, k in counts.items() if k > 1)
        if dupes:
            raise DataValidationError(
                f"'{file_name}' has duplicate column names ({', '.join(map(repr, dupes[:5]))}"
                f"{'...' if len(dupes) > 5 else ''}); rename them so each is unique."
            )


def _reread_numbers(frame: pd.DataFrame, text: str, delimiter: str, file_name: str, nrows: int, read: dict, notes):
    """Re-read, in place, the columns written with thousands separators or decimal commas as numbers."""
    fmt, converted = _number_format(frame, delimiter)
    if fmt is not None:
        decimal, thousands = fmt
        retext = text
        if thousands in ("\u00a0", "\u202f"):  # pandas takes a one-byte thousands mark: read them as spaces
            retext, thousands = text.replace(thousands, " "), " "
        again = _read_frame(retext, delimiter, file_name, nrows, decimal=decimal, thousands=thousands, **read)
        now_numeric = [c for c in converted if c in again.columns and pd.api.types.is_numeric_dtype(again[c])]
        if now_numeric and list(again.columns) == list(frame.columns):
            for c in now_numeric:
                frame[c] = again[c]
            notes.append(
                f"Numbers written with {_describe_format(fmt)} were converted in "
                f"{', '.join(map(repr, map(str, now_numeric[:5])))}{'...' if len(now_numeric) > 5 else ''}. "
                "Check the preview: if that is wrong, save the file with plain numbers (1234.5)."
            )


def _check_shape(frame: pd.DataFrame, lines: list[str], delimiter: str, file_name: str, lim: dict) -> None:
    """Refuse a single column (usually a wrong delimiter) and too few or too many rows or columns."""
    if frame.shape[1] < 2:
        other = [d for d in (";", "\t", "|", ",") if d != delimiter and any(d in line for line in lines)]
        hint = f" The file contains {other[0]!r}: is that the delimiter?" if other else ""
        raise DataValidationError(
            f"'{file_name}' has only one column, so no feature and target can be chosen. "
            f"Use a comma, semicolon or tab between fields.{hint}"
        )
    if frame.shape[0] < lim["min_rows"]:
        raise DataValidationError(
            f"'{file_name}' has {frame.shape[0]} data rows; at least {lim['min_rows']} are needed "
            "to split into training and test data."
        )
    if frame.shape[0] > lim["max_rows"]:
        raise DataValidationError(
            f"'{file_name}' has more than {lim['max_rows']:,} rows; the limit is "
            f"{lim['max_rows']:,}. Upload a random sample of the rows."
        )
    if frame.shape[1] > lim["max_cols"]:
        raise DataValidationError(
            f"'{file_name}' has {frame.shape[1]} columns; the limit is {lim['max_cols']}. "
            "Drop columns you do not need before uploading."
        )


_SPECIAL_TEXT = {"": np.nan, "nan": np.nan, "NaN": np.nan, "inf": np.inf, "-inf": -np.inf}


def _numeric_columns(frame: pd.DataFrame) -> tuple[list, list]:
    """The numeric and the non-numeric columns; booleans and numbers stored as text become numbers in place."""
    numeric, non_numeric = [], []
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_bool_dtype(col):
            frame[c] = col.astype(float)
            numeric.append(c)
        elif pd.api.types.is_numeric_dtype(col):
            numeric.append(c)
        else:
            text = col.astype(str).str.strip().replace(_SPECIAL_TEXT)
            converted = pd.to_numeric(text, errors="coerce")
            if converted.notna().sum() == col.notna().sum() and col.notna().any():
                frame[c] = converted
                numeric.append(c)
            else:
                non_numeric.append(c)
    return numeric, non_numeric


def _check_label_lengths(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    """Refuse a text value longer than :data:`MAX_LABEL_CHARS` in ``columns`` (it would become a feature's
    name or a class label), naming the column and the data row."""
    for c in columns:
        lengths = frame[c].dropna().astype(str).str.len()
        too_long = lengths[lengths > MAX_LABEL_CHARS]
        if not too_long.empty:
            row = int(too_long.index[0]) + 1  # the index is the data row from 0 (kept when rows are dropped)
            raise DataValidationError(
                f"Column {str(c)[:60]!r} holds a value of {int(too_long.iloc[0]):,} characters on data row {row:,}; "
                f"{what} longer than {MAX_LABEL_CHARS} characters cannot be used. Drop the column, or shorten "
                "its values."
            )


def _check_magnitude(frame: pd.DataFrame, columns: list[str], limit: float) -> None:
    """Refuse values so large that the mechanisms' squares and row norms would overflow."""
    too_big = []
    for c in columns:
        col = frame[c]
        if not pd.api.types.is_numeric_dtype(col):
            continue
        v = np.abs(col.to_numpy(dtype=float))
        v = v[np.isfinite(v)]
        if v.size and float(v.max()) > limit:
            too_big.append((c, float(v.max())))
    if too_big:
        c, big = too_big[0]
        others = f" (and {len(too_big) - 1} more column{'s' if len(too_big) > 2 else ''})" if len(too_big) > 1 else ""
        raise DataValidationError(
            f"Column {c!r}{others} holds values as large as {display.number(big)}; the mechanisms square such numbers "
            f"and add them up, which overflows above {display.number(limit)}. Rescale the column (for example "
            "divide it by a power of ten) or drop it, and upload the file again."
        )


def table_to_dataset(
    table: CsvTable,
    *,
    target: str,
    task: str = "auto",
    non_numeric: str = "error",
    missing: str = "error",
    max_categories: int = 30,
) -> Dataset:
    """Turn a parsed CSV into a :class:`Dataset`; ``task="auto"``: a text target or at most 10 distinct integers
    is classification, else regression."""
    if not isinstance(table, CsvTable):
        raise TypeError(f"table must be a CsvTable from parse_csv, got {type(table).__name__}.")
    check_choice("target", target, table.frame.columns)
    check_choice("task", task, ("auto", "regression", "binary", "multiclass"))
    check_choice("non_numeric", non_numeric, ("error", "onehot", "drop"))
    check_choice("missing", missing, ("error", "drop_rows"))
    notes = list(table.notes)
    frame, features, text_features = _usable_rows(table, target, non_numeric, missing, notes)
    feat = _encoded_features(frame[features], text_features if non_numeric == "onehot" else [], max_categories, notes)
    y, task = _target_values(frame[target], target, task, target in table.non_numeric_columns, notes)
    X = feat.to_numpy(dtype=float)
    constant = [c for c, s in zip(feat.columns, np.ptp(X, axis=0)) if s == 0]
    if constant:
        notes.append(f"Constant columns (carry no information): {', '.join(map(str, constant[:5]))}.")
    return _make_dataset(
        f"upload:{table.file_name}",
        X,
        y,
        [str(c) for c in feat.columns],
        target,
        task,
        source=f"uploaded file {table.file_name} (kept in this session's memory only)",
        description=f"{len(frame)} rows, {X.shape[1]} features",
        notes=notes,
    )


def _usable_rows(table: CsvTable, target: str, non_numeric: str, missing: str, notes: list[str]):
    """The rows kept (no NaN or infinity), the feature columns kept and the text ones among them."""
    frame = table.frame.replace([np.inf, -np.inf], np.nan)
    features = [c for c in frame.columns if c != target]
    text_features = [c for c in table.non_numeric_columns if c != target]
    if text_features:
        if non_numeric == "error":
            raise DataValidationError(
                f"Columns {', '.join(map(repr, text_features))} are not numeric. Choose to one-hot encode them "
                "(one 0/1 column per category) or to drop them."
            )
        if non_numeric == "drop":
            features = [c for c in features if c not in text_features]
            notes.append(f"Dropped non-numeric columns: {', '.join(text_features)}.")
    bad_rows = frame[features + [target]].isna().any(axis=1)
    if bad_rows.any():
        if missing == "error":
            cols = [c for c in features + [target] if frame[c].isna().any()]
            raise DataValidationError(
                f"{int(bad_rows.sum())} rows have missing, NaN or infinite values (in {', '.join(map(repr, cols[:5]))}"
                f"{'...' if len(cols) > 5 else ''}). Choose to drop those rows, or fix the file."
            )
        frame = frame.loc[~bad_rows]
        notes.append(f"Dropped {int(bad_rows.sum())} rows with missing or infinite values.")
    if len(frame) < LIMITS["min_rows"]:
        raise DataValidationError(f"Only {len(frame)} usable rows remain; at least {LIMITS['min_rows']} are needed.")
    _check_magnitude(frame, features + [target], LIMITS["max_abs"])
    return frame, features, text_features


def _encoded_features(feat: pd.DataFrame, text_features: list, max_categories: int, notes: list[str]):
    """The feature columns with ``text_features`` one-hot encoded (at most ``max_categories`` each)."""
    if text_features:
        _check_label_lengths(feat, text_features, "a category (one-hot encoded into a column named after it)")
        for c in text_features:
            k = feat[c].nunique()
            if k > max_categories:
                raise DataValidationError(
                    f"Column {c!r} has {k} categories; one-hot encoding is limited to "
                    f"{max_categories}. Drop it instead."
                )
        feat = pd.get_dummies(feat, columns=text_features, dtype=float)
        notes.append(f"One-hot encoded: {', '.join(text_features)}.")
    if feat.shape[1] == 0:
        raise DataValidationError("No feature columns remain after removing the target; keep at least one.")
    return feat


def _target_values(ycol: pd.Series, target: str, task: str, y_is_text: bool, notes: list[str]):
    """The target as floats (class codes for a classification task) and the task, ``auto`` resolved."""
    if y_is_text:
        _check_label_lengths(ycol.to_frame(), [target], "a class label")
    if task == "auto":
        if y_is_text:
            task = "binary" if ycol.nunique() == 2 else "multiclass"
        else:
            vals = ycol.to_numpy(dtype=float)
            integral = np.all(np.equal(np.mod(vals, 1), 0))
            k = len(np.unique(vals))
            task = ("binary" if k == 2 else "multiclass") if integral and k <= 10 else "regression"
    if task == "regression":
        if y_is_text:
            raise DataValidationError(
                f"Target {target!r} is not numeric, so it cannot be a regression target. "
                "Pick a numeric target or a classification task."
            )
        y = ycol.to_numpy(dtype=float)
        if np.ptp(y) == 0:
            raise DataValidationError(f"Target {target!r} has the same value in every row; nothing can be learned.")
    else:
        codes, uniques = pd.factorize(ycol, sort=True)
        if len(uniques) < 2:
            raise DataValidationError(
                f"Target {target!r} has a single class ({display.value(uniques[0])}); a "
                "classifier needs at least two classes."
            )
        if task == "binary" and len(uniques) != 2:
            raise DataValidationError(f"Target {target!r} has {len(uniques)} classes; binary needs exactly 2.")
        if len(uniques) > 20:
            raise DataValidationError(f"Target {target!r} has {len(uniques)} classes; the limit is 20.")
        y = codes.astype(float)
        coded = ", ".join(f"{i} = {display.value(u)}" for i, u in enumerate(uniques[:10]))
        notes.append(f"Classes coded {coded}{'...' if len(uniques) > 10 else ''}.")
    return y, task


def load_csv_path(path: str | Path, *, target: str | None = None, **options) -> Dataset:
    """Load a CSV file from disk (the CLI's ``--dataset path.csv``); the last column is the default target."""
    p = Path(path)
    if not p.is_file():
        raise DataValidationError(
            f"dataset file {str(p)!r} does not exist. Use a demo name ({', '.join(DATASETS)}) or a path to a CSV file."
        )
    table = parse_csv(p.read_bytes(), file_name=p.name)
    target = table.frame.columns[-1] if target is None else target
    ds = table_to_dataset(table, target=target, **options)
    return Dataset(**{**ds.__dict__, "name": f"csv:{p.name}"})


def _load_real(name: str) -> Dataset:
    info = DATASETS[name]
    frame = pd.read_csv(ASSETS_DIR / f"{name}.csv")
    y = frame[info.target].to_numpy(dtype=float)
    X = frame.drop(columns=[info.target]).to_numpy(dtype=float)
    names = [c for c in frame.columns if c != info.target]
    return _make_dataset(name, X, y, names, info.target, info.task, **_about(name))


def load_dataset(name: str, *, n: int | None = None, seed: RngLike = 0, **options) -> Dataset:
    """Load a demo dataset by name (:data:`DATASETS`), or a CSV file by a path ending in ``.csv``; ``n`` rows (a
    seeded subsample of a real dataset), ``**options`` to the generator (``d=5``) or :func:`table_to_dataset`."""
    if not isinstance(name, str):
        raise TypeError(f"dataset must be a name or a path, got {type(name).__name__}.")
    if name.lower().endswith(".csv"):
        return load_csv_path(name, **options)
    check_choice("dataset", name, DATASETS)
    info = DATASETS[name]
    if info.kind == "synthetic":
        gen = {"census": make_census, "gaussian_classes": make_gaussian_classes, "heavy_tailed": make_heavy_tailed}
        return gen[name](info.default_n if n is None else n, seed=seed, **options)
    if options:
        raise ValueError(f"dataset {name!r} is a real dataset and takes no generator options, got {sorted(options)}.")
    ds = _load_real(name)
    if n is not None:
        n = check_int("n", n, lo=2)
        if n < ds.n:
            idx = np.sort(as_generator(seed).choice(ds.n, size=n, replace=False))
            ds = _rows_of(ds, idx, name, (f"Random subsample of {n} of {ds.n} rows.",))
    return ds


# ----------------------------- preprocessing (explicit, and honest about data-dependent bounds)


@dataclass(frozen=True)
class PreprocessInfo:
    """What a preprocessing step did; shown beside every result that depends on it."""

    step: str
    bound: float
    data_dependent: bool
    n_clipped: int
    description: str

    @property
    def leak_warning(self) -> str:
        if not self.data_dependent:
            return ""
        return (
            f"The bound for '{self.step}' was computed from the data itself. That choice depends on the "
            "private records, so it leaks information and the privacy guarantee shown does not cover it. "
            "Declare a public bound instead."
        )


def clip_rows(X: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """Project every row onto the Euclidean ball of ``radius`` (rows inside are unchanged)."""
    r = check_positive("radius", radius)
    A = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(A, axis=1)
    return A * np.minimum(1.0, r / np.maximum(norms, 1e-300))[:, None]


def scale_rows_to_ball(
    X: np.ndarray, bound: float | None = None, *, radius: float = 1.0, center: np.ndarray | None = None
) -> tuple[np.ndarray, PreprocessInfo]:
    """Scale rows so that ``||x|| <= radius``: divided by a declared public ``bound`` (rows still outside clipped,
    counted in ``n_clipped``), or by the data's largest row norm (data-dependent: flagged, and warned with
    :class:`~dp_core.exceptions.PrivacyLeakWarning`).
    """
    A = np.asarray(X, dtype=np.float64)
    if center is not None:
        A = A - np.asarray(center, dtype=np.float64)
    r = check_positive("radius", radius)
    norms = np.linalg.norm(A, axis=1)
    data_dependent = bound is None
    if data_dependent:
        b = float(norms.max()) if norms.size else 1.0
        b = b if b > 0 else 1.0
        warnings.warn("row-norm bound computed from the data; this leaks information", PrivacyLeakWarning, stacklevel=2)
    else:
        b = check_positive("bound", bound)
    scaled = A * (r / b)
    n_out = int((norms * (r / b) > r * (1 + 1e-12)).sum())
    if n_out:
        scaled = clip_rows(scaled, r)
    factor = f"{b:.4g}" if r == 1.0 else f"{b:.4g}/{r:g}"
    origin = "the declared public bound" if not data_dependent else "the largest row norm in the data"
    desc = f"Rows divided by {factor} ({origin}) so that every ||x|| <= {r:g}" + (
        f"; {n_out} rows above the declared bound were clipped." if n_out else "."
    )
    return scaled, PreprocessInfo("row scaling", b, data_dependent, n_out, desc)


def scale_labels(
    y: np.ndarray, lo: float | None = None, hi: float | None = None, *, target: tuple[float, float] = (-1.0, 1.0)
) -> tuple[np.ndarray, PreprocessInfo]:
    """Map labels from ``[lo, hi]`` (default: the data's own range, flagged) affinely onto ``target``, clipping
    outside values."""
    v = np.asarray(y, dtype=np.float64)
    data_dependent = lo is None or hi is None
    if data_dependent:
        warnings.warn("label range computed from the data; this leaks information", PrivacyLeakWarning, stacklevel=2)
    lo_v = float(v.min()) if lo is None else check_real("lo", lo)
    hi_v = float(v.max()) if hi is None else check_real("hi", hi)
    if not hi_v > lo_v:
        raise ValueError(f"hi must be greater than lo, got lo={lo_v:g}, hi={hi_v:g}.")
    t0, t1 = (check_real("target[0]", target[0]), check_real("target[1]", target[1]))
    clipped = np.clip(v, lo_v, hi_v)
    n_clip = int((clipped != v).sum())
    out = t0 + (clipped - lo_v) * (t1 - t0) / (hi_v - lo_v)
    desc = f"Labels mapped from [{lo_v:.4g}, {hi_v:.4g}] to [{t0:g}, {t1:g}]" + (
        f"; {n_clip} labels outside the declared range were clipped." if n_clip else "."
    )
    return out, PreprocessInfo("label scaling", max(abs(t0), abs(t1)), data_dependent, n_clip, desc)


def split_indices(
    n: int,
    *,
    test_fraction: float = 0.2,
    seed: RngLike = 0,
    min_test: int = 1,
    min_train: int = 1,
    shuffle_train: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The one seeded train/test split of :mod:`dp_core`: sorted ``(train, test)`` row indices.

    The first ``max(min_test, round(test_fraction * n))`` entries of ``as_generator(seed).permutation(n)`` are
    the test rows; fewer than ``min_train`` training rows raise :class:`DataValidationError`;
    ``shuffle_train`` keeps the training rows in permutation order. Seed derivation: ``docs/engine.md``
    §"The seeded train/test split".

    >>> tr, te = split_indices(10, test_fraction=0.3, seed=0)
    >>> len(tr), len(te), sorted(tr.tolist() + te.tolist()) == list(range(10))
    (7, 3, True)
    """
    nn = check_int("n", n, lo=1, hi=10_000_000)  # a permutation of n indices: refuse sizes no dataset has
    f = check_in_interval("test_fraction", test_fraction, 0.0, 1.0, closed="left")
    mt = check_int("min_test", min_test, lo=0)
    mtr = check_int("min_train", min_train, lo=1)
    n_test = max(mt, int(round(f * nn)))
    if nn - n_test < mtr:
        raise DataValidationError(
            f"test_fraction={f:g} leaves {nn - n_test} training rows for n={nn}; at least {mtr} are needed."
        )
    perm = as_generator(seed).permutation(nn)
    train = perm[n_test:] if shuffle_train else np.sort(perm[n_test:])
    return train, np.sort(perm[:n_test])


def train_test_split(ds: Dataset, *, test_fraction: float = 0.2, seed: RngLike = 0) -> tuple[Dataset, Dataset]:
    """Seeded random split of a dataset into training and test parts (rows as :func:`split_indices`)."""
    f = check_in_interval("test_fraction", test_fraction, 0.0, 1.0, closed="neither")
    if max(1, int(round(f * ds.n))) >= ds.n:
        raise DataValidationError(f"test_fraction={f:g} leaves no training rows for n={ds.n}.")
    tr, te = split_indices(ds.n, test_fraction=f, seed=seed)
    return _rows_of(ds, tr, f"{ds.name}:train", ds.notes), _rows_of(ds, te, f"{ds.name}:test", ds.notes)


# ------------------------------------------------ public per-column bounds of the demo datasets

#: Documented public ranges ``(lo, hi)`` and, where given, a public centre and scale per feature
#: column (in the dataset's column order), from ``datasets.json``; sources and justification:
#: ``docs/preprocessing.md`` §"Documented public bounds of the demo datasets".
PUBLIC_BOUNDS: dict[str, dict[str, tuple[float, ...]]] = {
    name: {key: tuple(values) for key, values in entry.items()} for name, entry in _CATALOGUE["public_bounds"].items()
}


def public_bounds(ds: Dataset):
    """The per-column bounds (:class:`~dp_core.preprocessing.PublicBounds`) used to preprocess ``ds``.

    Declared bounds first, then documented (:data:`PUBLIC_BOUNDS`) or the generator's public domain, else
    ``bounds_from_data`` marked ``data_derived`` (``docs/preprocessing.md`` §"public_bounds: which bounds").
    """
    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a dp_core Dataset, got {type(ds).__name__}.")
    if ds.declared_bounds is not None:
        return ds.declared_bounds
    d = ds.d
    if ds.name in PUBLIC_BOUNDS and len(PUBLIC_BOUNDS[ds.name]["lo"]) == d:
        entry = PUBLIC_BOUNDS[ds.name]
        return PublicBounds(
            entry["lo"], entry["hi"], entry.get("centre"), entry.get("scale"), source=f"documented ranges of {ds.name}"
        )
    if ds.name == "census":
        return PublicBounds((0.0,) * d, (1.0,) * d, source="public domain of every census column, [0, 1]")
    if ds.name == "gaussian_classes":
        return PublicBounds((-1.0,) * d, (1.0,) * d, source="the generator clips rows to the unit ball")
    if ds.name == "heavy_tailed":
        return PublicBounds((-5.0,) * d, (5.0,) * d, (0.0,) * d, (1.0,) * d, source="public clipping range [-5, 5]")
    return bounds_from_data(ds.X)


__all__ += ["PUBLIC_BOUNDS", "public_bounds"]
