"""Published differential-privacy deployments, to place an ε among (``deployments.csv``).

Every row is a deployment whose ε (and δ), unit of privacy and period were published by the
organisation; the ``source`` column cites the public document. Only values the project could check
against a public document are listed; deployments whose parameters it could not check are left out.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

__all__ = ["CAVEAT", "DEPLOYMENTS_PATH", "COLUMNS", "deployments", "place_epsilon"]

#: The shipped table.
DEPLOYMENTS_PATH = Path(__file__).with_name("deployments.csv")

#: Its columns, in order.
COLUMNS = ("organisation", "what", "epsilon", "delta", "unit", "period", "model", "year", "source")

#: Shown wherever the table is shown.
CAVEAT = (
    "These ε are not on one scale: each protects a different unit (a user's day of activity, a member's "
    "month, a birth record, a whole census response) over a different period, in the local model (each "
    "device randomises its own report) or the central one (a trusted curator adds the noise), some with a "
    "δ. An ε per user-day repeated every day adds up over a year; an ε for a one-off release does not. "
    "Compare an ε with these only together with its unit, period and model."
)


def deployments(path: Path | str = DEPLOYMENTS_PATH) -> list[dict[str, Any]]:
    """The table's rows, ``epsilon``/``delta`` as floats and ``year`` as an int."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["epsilon"], r["delta"], r["year"] = float(r["epsilon"]), float(r["delta"]), int(r["year"])
    return rows


def place_epsilon(epsilon: float) -> dict[str, Any]:
    """Where ``epsilon`` falls among the published ε: counts below/equal/above and the table, sorted by ε."""
    rows = sorted(deployments(), key=lambda r: r["epsilon"])
    return {
        "epsilon": float(epsilon),
        "below": sum(r["epsilon"] < epsilon for r in rows),
        "equal": sum(r["epsilon"] == epsilon for r in rows),
        "above": sum(r["epsilon"] > epsilon for r in rows),
        "deployments": rows,
        "caveat": CAVEAT,
    }
