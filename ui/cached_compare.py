"""Cached wrappers of the compare page (pure dp_core calls; the data passed unhashed).

Keys: the dataset's name and fingerprint, a frozen :class:`~dp_core.compare.CompareSpec`, the
mechanism keys, targets as text, and ``dp_core.__version__``. Cached functions are pure: no Streamlit
element is created inside them and none is passed in (the spinner is the cache's ``show_spinner``).
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

import dp_core
from dp_core.compare import CompareResult, CompareSpec, ExplorerConfig, config_from_json, run_compare
from dp_core.negotiate import negotiate
from dp_core.report import build_report

from . import cached_scope as scoped

V = dp_core.__version__


@scoped.cache_data(max_entries=16, show_spinner="Running every mechanism...")
def compare(
    name: str, fingerprint: str, spec: CompareSpec, mechanisms: tuple[str, ...] | None, _ds, _v: str = V
) -> CompareResult:
    return run_compare(_ds, spec, mechanisms=mechanisms)


@scoped.cache_data(max_entries=32, show_spinner="Negotiating...")
def negotiation(
    name: str,
    fingerprint: str,
    spec: CompareSpec,
    mechanisms: tuple[str, ...] | None,
    targets: tuple[str, ...],
    epsilon: float,
    solve_for: str,
    _ds,
    _result: CompareResult,
    rows_factor: float = 1.0,
    _v: str = V,
) -> dict:
    return negotiate(
        _ds,
        list(targets),
        epsilon=epsilon,
        delta=spec.delta,
        mechanisms=mechanisms,
        n_trials=spec.n_trials,
        seed=spec.seed,
        eps_min=min(spec.epsilons),
        eps_max=max(spec.epsilons),
        n_points=len(spec.epsilons),
        preprocess=spec.preprocess,
        **dict(spec.params),
        result=_result,
        solve_for=solve_for,
        rows_factor=rows_factor,
    )


@scoped.cache_data(max_entries=8, show_spinner="Writing the report...")
def report(
    config_json: str, fingerprint: str, _ds, _result: CompareResult, _negotiation: dict | None, _v: str = V
) -> tuple[str, str]:
    cfg: ExplorerConfig = config_from_json(config_json)
    rep = build_report(cfg, dataset=_ds, result=_result, negotiation=_negotiation)
    return rep.html, rep.csv
