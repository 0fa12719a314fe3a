"""The audit table: one seeded audit per mechanism and mode, stored with the package.

Every status badge of the app is backed by a seeded row of this table (claim tested, ε lower bound,
runs, event, date, engine version). Refresh with ``python -m dp_core audit all --quick --write``; the
statuses a row gives (:func:`row_status`) and the row fields are in ``docs/audit.md``
(§"The audit table behind every status badge", §"The audit's registry and table rows"). [JUO20]
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import status as _status
from .._validation import check_choice
from ..data import load_dataset
from .core import VERDICT_VIOLATION, run_audit
from .registry import MECHANISMS, make_target

__all__ = [
    "AUDIT_TABLE_PATH",
    "CLAIM_LABELS",
    "ROW_SPECS",  # noqa: F822 - module __getattr__
    "STATUSES",
    "STATUS_AUDITED",
    "STATUS_CLAIMED",
    "STATUS_PROVED",
    "STATUS_REFUTED",
    "AuditRowSpec",
    "audit_row",
    "compute_audit_table",
    "load_audit_table",
    "row_key",
    "row_runs",
    "row_status",
    "run_row",
    "write_audit_table",
]

#: Where the stored table lives (package data).
AUDIT_TABLE_PATH = Path(__file__).with_name("audit_table.json")

#: The five statuses (:mod:`dp_core.status`, the one place that defines them).
STATUSES = _status.STATUSES
STATUS_PROVED = _status.PROVED
STATUS_CLAIMED = _status.CLAIMED
STATUS_AUDITED = _status.AUDITED
STATUS_REFUTED = _status.REFUTED

#: Claim kinds of a row and the status they give when the audit finds no violation.
CLAIM_LABELS = {"proof": STATUS_PROVED, "paper": STATUS_AUDITED, "none": STATUS_AUDITED}

#: Table format version (bump when the columns change).
TABLE_FORMAT = 1


@dataclass(frozen=True)
class AuditRowSpec:
    """One row of the audit table: what to run and what the project's docs say about it (``claim`` in
    {"proof", "paper", "none"}; ``expected`` in {"violation", "consistent", ""}); fields in docs/audit.md."""

    mechanism: str
    mode: str
    claim: str
    expected: str
    runs: int
    pair: str = "boundary"
    epsilon: float = 1.0
    delta: float = 1e-5
    options: dict = field(default_factory=dict)
    seed: int = 0
    pair_seed: int = 0
    dataset: str = ""

    @property
    def key(self) -> str:
        return row_key(self.mechanism, self.mode)

    def dataset_name(self) -> str:
        m = MECHANISMS[self.mechanism]
        if self.pair not in m.needs_data:
            return ""
        return self.dataset or m.default_dataset


def row_key(mechanism: str, mode: str) -> str:
    """``"mechanism:mode"``, the key of a row (and the ``audit_row`` URL parameter of the audit page)."""
    return f"{mechanism}:{mode}"


def _row_specs() -> tuple[AuditRowSpec, ...]:
    """Every mode of every registered mechanism (the folders' ``catalog.AUDIT_ROWS``), with the runs that
    find each proved violation."""
    from .. import catalog

    return tuple(AuditRowSpec(**row) for row in catalog.joined("AUDIT_ROWS"))


def __getattr__(name: str):
    if name == "ROW_SPECS":  # collected when first used: the folders' catalogs import nothing from here
        return _row_specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _spec(key: str) -> AuditRowSpec:
    for s in _row_specs():
        if s.key == key:
            return s
    raise ValueError(f"no audit-table row {key!r}; valid: {[s.key for s in _row_specs()]}.")


def row_runs(spec: AuditRowSpec, *, quick: bool = True) -> int:
    """Runs per side of a row: the quick (stored) size, or ten times it capped at 10⁵ and the mechanism's cap."""
    if quick:
        return spec.runs
    return max(spec.runs, min(10 * spec.runs, 100_000, MECHANISMS[spec.mechanism].max_runs))


def run_row(spec: AuditRowSpec, *, date: str | None = None, quick: bool = True) -> dict[str, Any]:
    """Run one row's audit and return the table row (a flat dict of JSON-ready values).

    ``quick=False`` runs ten times as many runs (capped at 10⁵ per side): tighter bounds, not stored.

    Columns: ``mechanism, mode, pair, pair_text, claim, status, expected, eps_claimed, delta,
    eps_lower, eps_estimate, confidence, runs, verdict, event, statistic, fpr_source, tpr, fpr,
    threshold, note, seed, pair_seed, epsilon, options, dataset, date, engine_version``.
    """
    from .. import __version__

    m = MECHANISMS[spec.mechanism]
    check_choice("mode", spec.mode, m.modes)
    ds_name = spec.dataset_name()
    dataset = load_dataset(ds_name) if ds_name else None
    delta = spec.delta if m.uses_delta else 0.0
    where = {"mode": spec.mode, "pair": spec.pair, "dataset": dataset, "pair_seed": spec.pair_seed}
    target = make_target(spec.mechanism, epsilon=spec.epsilon, delta=delta, **where, **spec.options)
    res = run_audit(target, runs=row_runs(spec, quick=quick), seed=spec.seed).result
    # the stored column order
    row = {"mechanism": spec.mechanism, "mode": spec.mode, "pair": spec.pair, "pair_text": res.pair}
    row |= {"claim": spec.claim, "expected": spec.expected}
    measured = "eps_claimed delta eps_lower eps_estimate confidence runs verdict event".split()
    row |= {k: getattr(res, k) for k in measured}
    row["statistic"] = target.statistic
    row |= {k: getattr(res, k) for k in ("fpr_source", "tpr", "fpr", "threshold", "note")}
    row |= {"seed": spec.seed, "pair_seed": spec.pair_seed, "epsilon": spec.epsilon, "run_delta": delta}
    row |= {"options": dict(spec.options), "dataset": ds_name}
    row |= {"date": date or _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"), "engine_version": __version__}
    row["status"] = row_status(row)
    return {k: _jsonable(v) for k, v in row.items()}


def _jsonable(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "inf" if v > 0 else ("-inf" if v < 0 else "nan")
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if hasattr(v, "item"):
        return v.item()
    return v


def row_status(row: dict) -> str:
    """The badge status a row backs: refuted on a violation, else the claim's status (docs/audit.md)."""
    if row.get("verdict") == VERDICT_VIOLATION:
        return STATUS_REFUTED
    return CLAIM_LABELS.get(row.get("claim", ""), STATUS_AUDITED)


def compute_audit_table(
    keys: Iterable[str] | None = None, *, quick: bool = True, progress: Callable[[int, int, str], None] | None = None
) -> list[dict[str, Any]]:
    """Run the rows of :data:`ROW_SPECS` (or only ``keys``, ``"mechanism:mode"``) and return them.

    ``quick=True`` (default) gives the stored table's runs; ``quick=False`` ten times as many.
    """
    specs = list(_row_specs()) if keys is None else [_spec(k) for k in keys]
    date = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    rows = []
    for i, spec in enumerate(specs):
        if progress is not None:
            progress(i, len(specs), spec.key)
        rows.append(run_row(spec, date=date, quick=quick))
    return rows


def write_audit_table(rows: list[dict[str, Any]], path: Path | str = AUDIT_TABLE_PATH) -> Path:
    """Write ``rows`` as the stored table (rows of other keys already stored are kept)."""
    path = Path(path)
    old = load_audit_table(path) if path.exists() else []
    new_keys = {row_key(r["mechanism"], r["mode"]) for r in rows}
    merged = [r for r in old if row_key(r["mechanism"], r["mode"]) not in new_keys] + list(rows)
    order = {s.key: i for i, s in enumerate(_row_specs())}
    merged.sort(key=lambda r: order.get(row_key(r["mechanism"], r["mode"]), len(order)))
    doc = {"format": TABLE_FORMAT, "refresh": "python -m dp_core audit all --quick --write", "rows": merged}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_audit_table(path: Path | str = AUDIT_TABLE_PATH) -> list[dict[str, Any]]:
    """The stored table's rows (an empty list if the file is missing)."""
    path = Path(path)
    if not path.exists():
        return []
    doc = json.loads(path.read_text(encoding="utf-8"))
    return list(doc.get("rows", []))


def audit_row(mechanism: str, mode: str, *, path: Path | str = AUDIT_TABLE_PATH) -> dict[str, Any] | None:
    """The stored row of ``mechanism`` in ``mode``, or ``None`` if the table has none."""
    key = row_key(mechanism, mode)
    for r in load_audit_table(path):
        if row_key(r["mechanism"], r["mode"]) == key:
            return r
    return None
