"""Cached wrappers of the privacy audit page (pure ``dp_core.audit``; the dataset passed unhashed, keyed on
its fingerprint and ``dp_core.__version__``; scope: ``ui.cached_scope``).
"""

from __future__ import annotations

import dp_core
from dp_core.audit import make_target
from dp_core.audit.report import AuditReport, audit_report

from . import cached_scope as scoped


@scoped.cache_data(max_entries=24, show_spinner="Running the mechanism on both neighbouring datasets...")
def audit(
    mechanism: str,
    mode: str,
    pair: str,
    epsilon: float,
    delta: float,
    runs: int,
    seed: int,
    pair_seed: int,
    options: tuple,
    dataset_name: str,
    fingerprint: str,
    _dataset,
    _version: str = dp_core.__version__,
) -> AuditReport:
    target = make_target(
        mechanism,
        mode=mode,
        pair=pair,
        epsilon=epsilon,
        delta=delta,
        dataset=_dataset,
        pair_seed=pair_seed,
        **dict(options),
    )
    return audit_report(target, runs=runs, seed=seed)


@scoped.cache_data(max_entries=64, show_spinner=False, upload_independent=True)
def audit_table_row(mechanism: str, mode: str, _version: str = dp_core.__version__) -> dict | None:
    """The stored audit-table row of ``mechanism`` in ``mode`` (``None`` if there is none)."""
    from dp_core.audit.table import audit_row

    return audit_row(mechanism, mode)


@scoped.cache_resource(max_entries=24, show_spinner=False)
def audit_figures(
    mechanism: str,
    mode: str,
    pair: str,
    epsilon: float,
    delta: float,
    runs: int,
    seed: int,
    pair_seed: int,
    options: tuple,
    dataset_name: str,
    fingerprint: str,
    _report: AuditReport,
    _version: str = dp_core.__version__,
) -> tuple:
    """``(histogram, convergence)`` figures of the audit with these arguments (built once; never modified)."""
    from dp_core.audit.report import convergence_figure, histogram_figure

    return histogram_figure(_report), convergence_figure(_report)
