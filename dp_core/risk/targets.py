"""Risk caps as negotiation targets (``tpr_at_fpr_0.01<=0.05``, ``mia_advantage<=0.1``).

The largest ε whose worst-case guarantee (any ε-DP mechanism, or any (ε, δ)-DP one at the δ used) keeps
an attack figure under the cap, by bisection on the risk engine's curves (``docs/risk.md`` §"Risk targets").
"""

from __future__ import annotations

import math
from typing import Any

from ..status import NO_CLAIM, REFUTED
from .curves import advantage, alpha_grid, approx_profile, pure_profile, tpr_at_fpr

__all__ = ["RISK_METRICS", "largest_epsilon", "risk_answer", "risk_of"]

#: metric -> (direction, description), as :data:`dp_core.negotiate.METRICS`
RISK_METRICS = {
    "tpr_at_fpr_0.01": ("<=", "an attacker's true-positive rate at a 1% false-positive rate (risk cap)"),
    "tpr_at_fpr_0.001": ("<=", "an attacker's true-positive rate at a 0.1% false-positive rate (risk cap)"),
    "mia_advantage": ("<=", "the membership-inference advantage, TPR − FPR at best (risk cap)"),
}
EPS_MAX = 200.0


def risk_of(metric: str, epsilon: float, delta: float = 0.0) -> float:
    """``metric`` of the worst-case ε-DP (``delta = 0``) or (ε, δ)-DP guarantee."""
    prof = approx_profile(epsilon, delta) if delta > 0 else pure_profile(epsilon)
    if metric == "mia_advantage":
        alpha = alpha_grid(prof)
        return advantage(alpha, prof.tradeoff(alpha))
    level = float(metric.removeprefix("tpr_at_fpr_"))
    return tpr_at_fpr(prof, (level,))[f"{level:g}"]


def largest_epsilon(metric: str, cap: float, delta: float = 0.0) -> float:
    """The largest ε (≤ :data:`EPS_MAX`, else ``inf``) with ``risk_of(metric, ε, delta) <= cap``; 0 when none.

    The risk grows with ε, so bisection in log ε; the answer is on the safe side (its risk is under the cap).
    """
    lo, hi = 1e-9, EPS_MAX
    if risk_of(metric, hi, delta) <= cap:
        return math.inf
    if risk_of(metric, lo, delta) > cap:
        return 0.0
    for _ in range(80):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if risk_of(metric, mid, delta) <= cap else (lo, mid)
    return lo


def risk_answer(target, delta_used: float, rows: list[dict]) -> dict[str, Any]:
    """The risk cap's answer; adds ``epsilon_risk_max`` and ``utility_within_risk`` to each method row.

    ``utility_within_risk``: whether the smallest measured ε meeting the utility target is at most the
    largest ε the cap allows at the row's δ (None when the row has no utility answer).
    """
    cap = {d: largest_epsilon(target.metric, target.value, d) for d in {0.0, float(delta_used)}}
    for row in rows:
        row["epsilon_risk_max"] = e_max = cap[0.0 if row.get("pure") else float(delta_used)]
        e = row.get("epsilon_measured")
        ok = None if e is None or not math.isfinite(e) else bool(e <= e_max)
        row["utility_within_risk"] = ok
    pure, approx = cap[0.0], cap[float(delta_used)]
    private = [r for r in rows if r.get("status") not in (REFUTED, NO_CLAIM)]  # a refuted claim meets no cap
    met = [r["method"] for r in private if r["utility_within_risk"]]
    answered = sum(r["utility_within_risk"] is not None for r in private)
    sentence = (
        f"The risk cap {target.text} allows ε up to {pure:.4g} for a pure ε-DP method and {approx:.4g} for an "
        f"(ε, δ = {delta_used:g}) method"
        + (
            f"; {len(met)} of the {answered} private methods meeting the utility target meet it under the cap."
            if answered
            else "."
        )
    )
    return {
        "target": target.as_dict(),
        "epsilon_max_pure": pure,
        "epsilon_max_approx": approx,
        "delta": float(delta_used),
        "methods_within": met,
        "sentence": sentence,
    }
