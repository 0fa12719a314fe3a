"""Cached wrappers of the compare page (pure dp_core calls; the data passed unhashed; keyed on the dataset's
fingerprint, the frozen spec, mechanisms, targets and ``dp_core.__version__``; scope: ``ui.cached_scope``).
"""

from __future__ import annotations

import dp_core
from dp_core.compare import (
    CompareResult,
    CompareSpec,
    ExplorerConfig,
    applicable_adapters,
    combine_results,
    config_from_json,
    run_compare,
)
from dp_core.negotiate import negotiate
from dp_core.report import build_report

from . import cached_scope as scoped

V = dp_core.__version__


@scoped.cache_data(max_entries=16, show_spinner="Running every mechanism...")
def compare(
    name: str, fingerprint: str, spec: CompareSpec, mechanisms: tuple[str, ...] | None, _ds, _v: str = V
) -> CompareResult:
    return run_compare(_ds, spec, mechanisms=mechanisms)


def sweep_blocks(ds, spec: CompareSpec, mechanisms: tuple[str, ...] | None) -> tuple[list[str], list]:
    """The comparison as background blocks, one ``run_compare(ds, spec, mechanisms=(key,))`` per applicable
    mechanism: ``(adapter keys, blocks)``, joined by :func:`~dp_core.compare.combine_results`.
    """
    from .background import Block

    keys = [a.key for a in applicable_adapters(ds.task, mechanisms)]
    if not keys:
        run_compare(ds, spec, mechanisms=mechanisms)  # raises the engine's message
    return keys, [Block(k, run_compare, args=(ds, spec), kwargs={"mechanisms": (k,)}) for k in keys]


def all_stored(ds, spec: CompareSpec, keys: list[str]) -> bool:
    """Whether every block among ``keys`` is answered by the shipped demo results (:mod:`dp_core.precomputed`):
    then the sweep takes milliseconds and the page runs it inline instead of in the background."""
    from dp_core import precomputed

    return bool(keys) and all(precomputed.lookup(ds, k, spec) is not None for k in keys)


def combined(results: dict, keys: list[str]) -> CompareResult | None:
    """:func:`~dp_core.compare.combine_results` of the finished blocks among ``keys`` (``None`` if none)."""
    parts = [results[k] for k in keys if k in results]
    return combine_results(parts) if parts else None


def negotiation_blocks(
    name: str,
    fingerprint: str,
    spec: CompareSpec,
    mechanisms: tuple[str, ...] | None,
    targets: tuple[str, ...],
    epsilon: float,
    solve_for: str,
    ds,
    result: CompareResult,
    rows_factor: float = 1.0,
) -> tuple[str, list]:
    """``(job key, blocks)`` of the negotiation: one block, :func:`dp_core.negotiate.negotiate` (it reports its
    progress), run off the page thread by ``ui.background`` (learning curves take minutes off the defaults)."""
    from .background import Block

    kwargs = dict(
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
        result=result,
        solve_for=solve_for,
        rows_factor=rows_factor,
    )
    key = repr((V, "negotiate", name, fingerprint, spec, mechanisms, targets, epsilon, solve_for, rows_factor))
    return key, [Block("answer", negotiate, (ds, list(targets)), kwargs)]


@scoped.cache_data(max_entries=8, show_spinner="Writing the report...")
def report(
    config_json: str, fingerprint: str, _ds, _result: CompareResult, _negotiation: dict | None, _v: str = V
) -> tuple[str, str]:
    cfg: ExplorerConfig = config_from_json(config_json)
    rep = build_report(cfg, dataset=_ds, result=_result, negotiation=_negotiation)
    return rep.html, rep.csv


# ------------------------------------------------------------------ figures (built once per result and view)
# A Plotly figure of a comparison costs 0.1-0.3 s to build; a rerun that changes nothing it shows (another
# tab, the negotiation target, a text box) reuses it. Keyed like the result it draws; never modified.
@scoped.cache_resource(max_entries=32, show_spinner=False)
def compare_chart(
    name: str,
    fingerprint: str,
    spec: CompareSpec,
    mechanisms: tuple[str, ...] | None,
    view: str,
    eps_marker: float,
    _result: CompareResult,
    _v: str = V,
):
    from dp_core.compare.figures import compare_figure

    return compare_figure(_result, y=view, eps_marker=eps_marker)


@scoped.cache_resource(max_entries=32, show_spinner=False)
def negotiation_charts(
    name: str,
    fingerprint: str,
    spec: CompareSpec,
    mechanisms: tuple[str, ...] | None,
    targets: tuple[str, ...],
    epsilon: float,
    solve_for: str,
    rows_factor: float,
    _answer: dict,
    _result: CompareResult | None,
    _v: str = V,
) -> dict:
    """The negotiation's figures: ``learning_curve`` and ``negotiation`` (each a figure or ``None``).

    ``_result`` is the comparison at the answer's δ (``None`` when the negotiation figure is not shown).
    """
    from dp_core.compare.figures import learning_curve_figure, negotiation_figure

    return {
        "learning_curve": learning_curve_figure(_answer) if _answer.get("learning_curve") else None,
        "negotiation": negotiation_figure(_result, _answer) if _result is not None else None,
    }
