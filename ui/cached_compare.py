"""Cached wrappers of the compare page (pure dp_core calls; the data passed unhashed).

Keys: the dataset's name and fingerprint, a frozen :class:`~dp_core.compare.CompareSpec`, the
mechanism keys, targets as text, and ``dp_core.__version__``. Cached functions are pure: no Streamlit
element is created inside them and none is passed in (the spinner is the cache's ``show_spinner``).
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

from collections.abc import Callable

import dp_core
from dp_core.compare import (
    ADAPTERS,
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


@scoped.cache_data(max_entries=48, show_spinner=False)
def compare_one(name: str, fingerprint: str, spec: CompareSpec, key: str, _ds, _v: str = V) -> CompareResult:
    """The comparison of one mechanism (adapter ``key``): cached on its own, so a change of the selection
    reruns only the mechanisms added, and a slow mechanism never holds the others back."""
    return run_compare(_ds, spec, mechanisms=(key,))


def compare_by_mechanism(
    name: str,
    fingerprint: str,
    spec: CompareSpec,
    mechanisms: tuple[str, ...] | None,
    ds,
    progress: Callable[[int, int, str], None] | None = None,
) -> CompareResult:
    """:func:`compare` computed one mechanism at a time (each cached by :func:`compare_one`), then combined
    (the same numbers: every mechanism draws from the spec's seed alone).

    ``progress(done, total, title)`` is called before each mechanism and after the last one (with
    ``done == total``): the page shows it as one progress bar.
    """
    keys = [a.key for a in applicable_adapters(ds.task, mechanisms)]
    if not keys:
        return run_compare(ds, spec, mechanisms=mechanisms)  # raises the engine's message
    parts = []
    for i, key in enumerate(keys):
        if progress is not None:
            progress(i, len(keys), ADAPTERS[key].title)
        parts.append(compare_one(name, fingerprint, spec, key, ds))
    if progress is not None:
        progress(len(keys), len(keys), "")
    return combine_results(parts)


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
