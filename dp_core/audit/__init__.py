"""Privacy audit: measured lower bounds on a mechanism's epsilon from repeated runs.

Run a mechanism many times on two neighbouring datasets and bound ε from below with the best
threshold test [JUO20, Algorithm 2]; the stored audit table backs the app's status badges. An audit
can show a privacy claim false, never prove a mechanism private. See ``docs/audit.md``.
"""

from .core import (
    VERDICT_CONSISTENT,
    VERDICT_VIOLATION,
    AuditResult,
    AuditRun,
    AuditTarget,
    ThresholdTest,
    audit_convergence,
    audit_exact_null,
    audit_statistics,
    clopper_pearson,
    run_audit,
    runs_grid,
)
from .registry import MECHANISMS, AuditableMechanism, Option, make_target

__all__ = [
    "MECHANISMS",
    "VERDICT_CONSISTENT",
    "VERDICT_VIOLATION",
    "AuditResult",
    "AuditRun",
    "AuditTarget",
    "AuditableMechanism",
    "Option",
    "ThresholdTest",
    "audit_convergence",
    "audit_exact_null",
    "audit_statistics",
    "clopper_pearson",
    "gaussian_target",
    "laplace_target",
    "make_target",
    "run_audit",
    "runs_grid",
]


def __getattr__(name: str):
    # the textbook targets live in their mechanism folder; imported on first use (no upward import)
    if name in ("gaussian_target", "laplace_target"):
        from ..mechanisms.textbook import audit as _textbook

        return getattr(_textbook, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
