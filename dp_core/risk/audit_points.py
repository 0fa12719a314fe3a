"""The audit's measured (false-positive, false-negative) points, with Clopper–Pearson boxes, derived from the
stored audit rows exactly as :func:`dp_core.audit.core.audit_statistics` computed them, and whether each box
meets the claim's allowed region (``docs/risk.md`` §"The audit's measured points").
"""

from __future__ import annotations

import math
from typing import Any

from .curves import alpha_grid, approx_profile

__all__ = ["audit_points", "audit_points_for", "eval_runs"]


def eval_runs(runs: int, select_fraction: float = 0.2) -> int:
    """Runs per side that evaluated the test (the audit's split, :func:`dp_core.audit.core.audit_statistics`)."""
    n_sel = min(max(1, math.ceil(select_fraction * runs)), runs - 1)
    return runs - n_sel


def _num(v) -> float:
    return float(v) if not isinstance(v, str) else float(v.replace("inf", "Infinity"))


def audit_points(row: dict[str, Any]) -> dict[str, Any]:
    """The measured point of one stored audit row, its box, and where it lies against the row's claim.

    Returns ``fpr``, ``fnr``, ``fpr_box``, ``fnr_box`` (``[low, high]``), ``counts`` (true and false
    positives and ``n_eval``), ``eps_claimed``, ``delta``, ``consistent`` (the box meets the claimed
    region), ``reproduces`` (the derived box gives back the stored ε lower bound), ``claim_tradeoff``
    (the claim's curve, [α, β] pairs), ``verdict``, ``status`` and ``derivation`` (one sentence).
    """
    from ..audit.core import _eps_from_rates, clopper_pearson

    n_eval = eval_runs(int(row["runs"]))
    conf = float(row["confidence"])
    tpr, fpr = float(row["tpr"]), float(row["fpr"])
    kp = int(round(tpr * n_eval))
    tp_lo, tp_hi = (float(v) for v in clopper_pearson(kp, n_eval, conf))
    exact = row.get("fpr_source") == "exact law"
    if exact:
        kn, fp_lo, fp_hi = None, fpr, fpr
    else:
        kn = int(round(fpr * n_eval))
        fp_lo, fp_hi = (float(v) for v in clopper_pearson(kn, n_eval, conf))
    eps_c, delta = _num(row["eps_claimed"]), float(row["delta"])
    claim = approx_profile(eps_c, min(delta, 1.0 - 1e-15))
    fnr_hi = 1.0 - tp_lo
    consistent = bool(fnr_hi >= float(claim.tradeoff(fp_hi)) - 1e-12)
    eps_lower = float(_eps_from_rates(tp_lo, fp_hi, delta)) if not exact else _num(row["eps_lower"])
    alpha = alpha_grid(claim)
    return {
        "key": f"{row['mechanism']}:{row['mode']}",
        "fpr": fpr,
        "fnr": 1.0 - tpr,
        "fpr_box": [fp_lo, fp_hi],
        "fnr_box": [1.0 - tp_hi, fnr_hi],
        "counts": {"true_positives": kp, "false_positives": kn, "n_eval": n_eval},
        "confidence": conf,
        "eps_claimed": eps_c,
        "delta": delta,
        "consistent": consistent,
        "reproduces": math.isclose(eps_lower, _num(row["eps_lower"]), rel_tol=1e-9, abs_tol=1e-12),
        "verdict": row.get("verdict"),
        "status": row.get("status"),
        "claim_tradeoff": [[float(a), float(b)] for a, b in zip(alpha, claim.tradeoff(alpha))],
        "derivation": (
            "counts = round(rate × n_eval) with n_eval = runs − ⌈runs/5⌉; Clopper–Pearson boxes at the row's "
            "confidence" + ("; the false-positive rate is exact (no box)" if exact else "")
        ),
    }


def audit_points_for(key: str) -> dict[str, Any] | None:
    """:func:`audit_points` of the stored row ``"mechanism:mode"`` (None if the table has none)."""
    from ..audit.table import audit_row

    mech, mode = key.split(":", 1)
    row = audit_row(mech, mode)
    return None if row is None else audit_points(row)
