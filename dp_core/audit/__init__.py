"""Privacy audit: measured lower bounds on a mechanism's epsilon from repeated runs.

Run a mechanism many times on two neighbouring datasets, reduce each output to a scalar statistic,
and bound epsilon from below with the best threshold test (Clopper–Pearson intervals, test chosen
on a separate split). An audit can show that a privacy claim is false; it can never prove that a
mechanism is private. When the output's law on one dataset is known exactly (a Gaussian release),
:func:`audit_exact_null` takes the false-positive rate from that law, which demonstrates losses far
beyond ``ln(runs)``.

The audit table (:mod:`dp_core.audit.table`, stored in ``audit_table.json``) holds one seeded
audit per mechanism and mode; the app's status badges read it. Refresh it with
``python -m dp_core audit all --quick --write``.

References
----------
.. [JUO20] M. Jagielski, J. Ullman and A. Oprea, *Auditing Differentially Private Machine
   Learning: How Private is Private SGD?*, NeurIPS 2020, Algorithm 2.
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
