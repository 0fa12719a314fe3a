"""What this ε means: the attacker's view of every guarantee, beside the audit that measured it.

* :mod:`.curves`: privacy profiles δ(ε), trade-off curves f(α), Gaussian-DP μ, membership-inference
  advantage, true-positive rates at fixed false-positive rates, posteriors (pure functions);
* :mod:`.guarantees`: each mechanism's guarantee at a setting, from its own accounting, and
  :func:`mechanism_risk`, everything the app panel shows;
* :mod:`.audit_points`: the stored audit's measured points with their confidence boxes;
* :mod:`.deployments`: published DP deployments (``deployments.csv``) to place an ε among.

The formulas and their sources are in ``docs/risk.md``.
"""

from .audit_points import audit_points, audit_points_for
from .curves import (
    FPR_LEVELS,
    Profile,
    advantage,
    approx_profile,
    compose,
    gaussian_profile,
    laplace_profile,
    pure_profile,
    risk_summary,
    tabulated_profile,
    tpr_at_fpr,
)
from .deployments import CAVEAT, deployments, place_epsilon
from .guarantees import GUARANTEES, Guarantee, guarantee, mechanism_risk

__all__ = [
    "CAVEAT",
    "FPR_LEVELS",
    "GUARANTEES",
    "Guarantee",
    "Profile",
    "advantage",
    "approx_profile",
    "audit_points",
    "audit_points_for",
    "compose",
    "deployments",
    "gaussian_profile",
    "guarantee",
    "laplace_profile",
    "mechanism_risk",
    "place_epsilon",
    "pure_profile",
    "risk_summary",
    "tabulated_profile",
    "tpr_at_fpr",
]
