"""Run every applicable mechanism on one dataset and gather one tidy result (:func:`run_compare`: the engine
of the compare page, ``negotiate`` and the report; trial ``t`` shares its seed across the ε grid).
"""

from __future__ import annotations

import dataclasses
import math
import threading
import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import status as vocab
from .._blas import single_threaded_blas
from .._validation import check_choice, check_delta, check_epsilon, check_in_interval, check_int
from ..data import Dataset
from ..exceptions import DPCoreError, PrivacyLeakWarning
from ..experiments import summarize
from ..plugin import ParamSpec
from ..preprocessing import DEFAULT_PREPROCESS, PREPROCESS_METHODS
from ..publication import NonPublicDiagnostics
from ..registry import plugins
from .registry import STATUS_LABELS, CompareSpec, MethodInfo, applicable_adapters, utility_metric_name

__all__ = [
    "TRIAL_COLUMNS",
    "TRIAL_VALUES",
    "CompareResult",
    "LazyState",
    "combine_results",
    "compare_param_specs",
    "make_spec",
    "default_epsilons",
    "run_compare",
    "utility_at",
]


#: The measured values of one trial (``mae``: regression only, ``nan`` otherwise).
TRIAL_VALUES = ["utility", "excess_risk", "mae"]
#: The columns of :attr:`CompareResult.trials`.
TRIAL_COLUMNS = ["adapter", "method", "epsilon", "trial", *TRIAL_VALUES]
_BOUND_COLUMNS = ["adapter", "method", "epsilon", "bound", "label"]
#: What each mechanism's part of a comparison gives per adapter key (fields of CompareResult and of a stored Entry).
_PER_ADAPTER = ("nonprivate", "nonprivate_mae", "notes", "leaks")


def concat_frames(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    """The non-empty ``frames`` end to end (a new index), or an empty table of ``columns`` when none is left."""
    frames = [f for f in frames if f is not None and len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def _trial_frame(df: pd.DataFrame) -> pd.DataFrame:
    """An adapter's sweep with every column of :data:`TRIAL_COLUMNS` (``mae`` is optional: ``nan``)."""
    if "mae" not in df.columns:
        df = df.assign(mae=math.nan)
    return df[TRIAL_COLUMNS]


def _summarize_trials(trials: pd.DataFrame) -> pd.DataFrame:
    if not len(trials):
        return pd.DataFrame()
    if "mae" not in trials.columns:  # a table from before the MAE column
        trials = trials.assign(mae=math.nan)
    return summarize(trials, by=["adapter", "method", "epsilon"], values=TRIAL_VALUES)


def default_epsilons(lo: float = 0.05, hi: float = 10.0, n_points: int = 8) -> tuple[float, ...]:
    """A log-spaced epsilon grid, rounded to 3 significant digits.

    >>> default_epsilons(0.1, 10.0, 3)
    (0.1, 1.0, 10.0)
    """
    lo = check_epsilon(lo, allow_inf=False, name="eps_min")
    hi = check_epsilon(hi, allow_inf=False, name="eps_max")
    if not hi > lo:
        raise ValueError(f"eps_max must be greater than eps_min, got eps_min={lo:g}, eps_max={hi:g}.")
    n_points = check_int("n_points", n_points, lo=2, hi=60)
    grid = np.geomspace(lo, hi, n_points)
    return tuple(float(f"{v:.3g}") for v in grid)


def make_spec(
    *,
    epsilons: Sequence[float],
    delta: float,
    n_trials: int,
    seed: int,
    test_fraction: float = 0.2,
    preprocess: str = DEFAULT_PREPROCESS,
    **params: Any,
) -> CompareSpec:
    """A validated :class:`CompareSpec` (epsilons sorted, deduplicated); ``preprocess`` of
    :data:`~dp_core.preprocessing.PREPROCESS_METHODS`; ``params`` validated by their plug-ins' ``ParamSpec``.
    """
    eps = tuple(sorted({check_epsilon(float(e), allow_inf=False) for e in epsilons}))
    if not eps:
        raise ValueError("epsilons must contain at least one value, got an empty list.")
    specs = compare_param_specs()
    unknown = sorted(set(params) - set(specs))
    if unknown:
        raise TypeError(f"unknown comparison parameter(s) {unknown}; valid: {sorted(specs)}.")
    values = tuple(
        (name, s.validate(params[name]) if name in params else s.default) for name, s in sorted(specs.items())
    )
    return CompareSpec(
        epsilons=eps,
        delta=check_delta(delta),
        n_trials=check_int("n_trials", n_trials, lo=1, hi=100_000),
        seed=check_int("seed", seed, lo=0),
        params=values,
        test_fraction=check_in_interval("test_fraction", test_fraction, 0.0, 1.0, closed="neither"),
        preprocess=check_choice("preprocess", preprocess, PREPROCESS_METHODS),
    )


def compare_param_specs(*, reserved: Collection[str] = ()) -> dict[str, ParamSpec]:
    """``{name: ParamSpec}`` of every plug-in's comparison parameters (``Mechanism.compare_params``); a name in
    ``reserved`` (the shared settings of :mod:`.config`) is refused."""
    out: dict[str, ParamSpec] = {}
    for plugin in plugins():
        for name in plugin.compare_params:
            spec = plugin.param(name)
            if name in reserved:
                raise ValueError(f"mechanism {plugin.name}: comparison parameter {name!r} is a shared setting's name.")
            if name in out and out[name] != spec:
                raise ValueError(f"comparison parameter {name!r} is declared differently by two mechanisms.")
            out[name] = spec
    return out


@dataclass(frozen=True, eq=False)
class CompareResult:
    """Everything the compare page, the negotiation and the report show.

    ``trials`` (one row per adapter, method, epsilon, trial), ``summary``, ``bounds``, ``nonprivate``,
    ``nonprivate_mae``, ``methods``, ``notes``/``leaks``, ``skipped``; ``states`` holds each adapter's data and
    non-private fits, NOT FOR PUBLICATION. Field by field: ``docs/compare.md`` §"CompareResult".
    """

    dataset: str
    task: str
    metric: str
    spec: CompareSpec
    trials: pd.DataFrame = field(repr=False)
    summary: pd.DataFrame = field(repr=False)
    bounds: pd.DataFrame = field(repr=False)
    nonprivate: dict = field(default_factory=dict)
    methods: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    leaks: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    states: dict = field(default_factory=dict, repr=False)
    nonprivate_mae: dict = field(default_factory=dict)

    @property
    def reference_utility(self) -> float:
        """The best non-private utility (the reference line)."""
        vals = [v for v in self.nonprivate.values() if math.isfinite(v)]
        return max(vals) if vals else math.nan

    @property
    def reference_mae(self) -> float:
        """The smallest non-private test MAE (the reference line of the MAE view; ``nan``: none)."""
        vals = [v for v in self.nonprivate_mae.values() if math.isfinite(v)]
        return min(vals) if vals else math.nan

    @property
    def has_mae(self) -> bool:
        """Whether any method measured a test MAE (regression adapters)."""
        s = self.summary
        return bool(s is not None and "mae_mean" in s.columns and np.isfinite(s["mae_mean"].to_numpy(float)).any())

    def method_info(self, method: str) -> dict:
        for m in self.methods:
            if m["method"] == method:
                return m
        raise KeyError(method)


def run_compare(
    ds: Dataset,
    spec: CompareSpec,
    *,
    mechanisms: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    preprocess: str | None = None,
) -> CompareResult:
    """Sweep every applicable mechanism over ``spec.epsilons`` on ``ds``.

    ``mechanisms``: adapter keys (default: every registered adapter for the task); ``progress(done, total)``
    over all trials; ``preprocess`` overrides ``spec.preprocess``. Adapters that reject the dataset
    (``ValueError``) are listed in ``skipped`` with the reason (``docs/compare.md`` §"run_compare").
    """
    if not isinstance(spec, CompareSpec):
        raise TypeError(f"spec must be a CompareSpec, got {type(spec).__name__}.")
    if preprocess is not None and preprocess != spec.preprocess:
        spec = dataclasses.replace(spec, preprocess=check_choice("preprocess", preprocess, PREPROCESS_METHODS))
    adapters = applicable_adapters(ds.task, mechanisms)
    if not adapters:
        raise ValueError(
            f"no mechanism applies to the {ds.task} task of dataset {ds.name!r}"
            + (f" among {list(mechanisms)}." if mechanisms is not None else ".")
        )
    with single_threaded_blas():  # many small products: BLAS threads only contend for the shared cores
        return _run_compare(ds, spec, adapters, progress)


def _run_compare(ds: Dataset, spec: CompareSpec, adapters: list, progress) -> CompareResult:
    from .. import precomputed

    states, skipped, stored = _prepare_states(ds, spec, adapters)
    active = [a for a in adapters if a.key in states]
    totals = {
        a.key: stored[a.key].total if a.key in stored else len(a.points(states[a.key], spec)) * a.n_trials(spec)
        for a in active
    }
    grand = sum(totals.values())
    offset = 0
    frames, bframes, methods = [], [], []
    per_adapter: dict[str, dict] = {name: {} for name in _PER_ADAPTER}
    for a in active:
        base = offset

        def prog(done, total, _base=base):
            if progress is not None:
                progress(_base + done, grand)

        part = stored.get(a.key)
        if part is None:
            part = _run_adapter(a, states[a.key], spec, prog, totals[a.key])
            precomputed.remember(ds, a.key, spec, part)
        elif progress is not None:
            progress(base + totals[a.key], grand)
        offset += totals[a.key]
        if part.skipped is not None:  # a failed solve or a rejected setting: report, keep the rest
            skipped[a.key] = part.skipped
            del states[a.key]
            continue
        df, b = part.trials, part.bounds
        if len(df):
            frames.append(_trial_frame(df))
        if len(b):
            bframes.append(b.assign(adapter=a.key)[_BOUND_COLUMNS])
        for name, store in per_adapter.items():
            store[a.key] = getattr(part, name)
        methods.extend(_weakened(dict(m), spec.delta, ds.n) for m in part.methods)
    return _result(
        ds.name,
        ds.task,
        utility_metric_name(ds.task),
        spec,
        frames,
        bframes,
        methods=methods,
        skipped=skipped,
        states=states,
        **per_adapter,
    )


def _result(dataset, task, metric, spec, frames, bframes, **fields) -> CompareResult:
    """A :class:`CompareResult` of the trial and bound tables ``frames``/``bframes`` (concatenated, summarized)."""
    trials = concat_frames(frames, TRIAL_COLUMNS)
    bounds = concat_frames(bframes, _BOUND_COLUMNS)
    return CompareResult(dataset, task, metric, spec, trials, _summarize_trials(trials), bounds, **fields)


def _prepare_states(ds: Dataset, spec: CompareSpec, adapters: list) -> tuple[dict, dict, dict]:
    """Each adapter's prepared state (lazy when a shipped result answers), the refusals, the shipped entries."""
    from .. import precomputed

    states, skipped = {}, {}
    stored: dict[str, precomputed.Entry] = {}
    for a in adapters:
        hit = precomputed.lookup(ds, a.key, spec)  # a shipped result of this exact run (None: compute it)
        if hit is not None:
            stored[a.key] = hit
            if hit.skipped is None or hit.phase != "prepare":
                states[a.key] = LazyState(a.key, ds, spec)  # prepared only if something needs it
            else:
                skipped[a.key] = hit.skipped
            continue
        try:
            with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
                states[a.key] = a.prepare(ds, spec)
        except ValueError as exc:
            skipped[a.key] = str(exc)
            precomputed.remember(ds, a.key, spec, precomputed.Entry(skipped=str(exc), phase="prepare"))
    return states, skipped, stored


def _run_adapter(a, st, spec: CompareSpec, prog, total: int):
    """One mechanism's part of a comparison: its sweep, bounds, non-private utility, notes and statuses
    (a :class:`dp_core.precomputed.Entry`; ``skipped`` set when the sweep or the bounds refused)."""
    from ..precomputed import Entry

    try:
        with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
            df = a.sweep(st, spec, progress=prog)
            b = a.bounds(st, spec.epsilons, spec)
    except (ValueError, DPCoreError) as exc:
        return Entry(skipped=f"{type(exc).__name__}: {exc}", phase="sweep", total=total)
    details = getattr(a, "method_details", None)  # optional per-method extras (e.g. sampler status)
    rows = [{**_method_row(a, mi), **(details(st, mi.key) if details else {})} for mi in a.statuses(st, spec)]
    return Entry(
        trials=df,
        bounds=b,
        total=total,
        nonprivate=float(a.nonprivate_utility(st)),
        nonprivate_mae=float(a.nonprivate_mae(st)),
        notes=tuple(a.notes(st)),
        leaks=tuple(a.leaks(st)),
        methods=rows,
    )


def combine_results(parts: Sequence[CompareResult]) -> CompareResult:
    """One comparison from comparisons of disjoint sets of mechanisms on the same data and spec (same tables as
    one :func:`run_compare`); ``ValueError`` for no parts, differing parts or a repeated mechanism
    (``docs/compare.md`` §"combine_results").
    """
    parts = list(parts)
    if not parts:
        raise ValueError("parts must hold at least one CompareResult, got none.")
    for p in parts:
        if not isinstance(p, CompareResult):
            raise TypeError(f"parts must be CompareResult objects, got {type(p).__name__}.")
    first = parts[0]
    for p in parts[1:]:
        if (p.dataset, p.task, p.spec) != (first.dataset, first.task, first.spec):
            raise ValueError(
                "parts must come from the same dataset and spec, got "
                f"{first.dataset!r} and {p.dataset!r} (specs {'equal' if p.spec == first.spec else 'different'})."
            )
    seen: set[str] = set()
    for p in parts:
        keys = set(p.states) | set(p.skipped)
        if keys & seen:
            raise ValueError(f"parts must run disjoint mechanisms; repeated: {sorted(keys & seen)}.")
        seen |= keys
    merged: dict[str, dict] = {name: {} for name in (*_PER_ADAPTER, "skipped", "states")}
    for p in parts:
        for name, store in merged.items():
            store.update(getattr(p, name))
    frames, bframes = [p.trials for p in parts], [p.bounds for p in parts]
    methods = [m for p in parts for m in p.methods]
    return _result(first.dataset, first.task, first.metric, first.spec, frames, bframes, methods=methods, **merged)


def _weakened(row: dict, delta: float, n: int) -> dict:
    """``row`` with a proved (ε, δ) guarantee marked "proved but weak" when δ > 1/n (:mod:`dp_core.status`)."""
    reason = None if row.get("pure") else vocab.weak_reason(delta, n)
    status = vocab.with_weakness(row["status"], reason)
    if status != row["status"]:
        row.update(status=status, status_label=STATUS_LABELS[status], statement=f"{row['statement']} {reason}")
    return row


def _method_row(adapter, mi: MethodInfo) -> dict:
    return {
        "adapter": adapter.key,
        "mechanism": adapter.title,
        "method": mi.key,
        "label": mi.label,
        "status": mi.status,
        "status_label": STATUS_LABELS[mi.status],
        "statement": mi.statement,
        "pure": mi.pure,
        "label_dp": mi.label_dp,
        "page": adapter.page,
        "audit": mi.audit,
    }


def utility_at(result: CompareResult, epsilon: float) -> pd.DataFrame:
    """Per method: the measured utility and excess risk at ``epsilon`` (log-linear interpolation; ``nan`` outside
    the grid; a method measured at one ε only there), with the 95% interval and trials.
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    rows = []
    s = result.summary
    if s is None or not len(s):
        return pd.DataFrame(
            columns=["adapter", "method", "epsilon", "utility", "utility_lo", "utility_hi", "excess_risk", "n_trials"]
        )
    for (ad, meth), g in s.groupby(["adapter", "method"], sort=False):
        g = g.sort_values("epsilon")
        with np.errstate(divide="ignore"):  # a method accounted at epsilon = 0 (label-DP bags at a large delta)
            xs = np.log(g["epsilon"].to_numpy(dtype=float))
        le = math.log(eps)
        near = g[(xs >= le - 1e-12) | (g["epsilon"] == g["epsilon"].max()).to_numpy()]
        lo_side = g[xs <= le + 1e-12]
        bracket = pd.concat([lo_side.tail(1), near.head(1)])
        row = {"adapter": ad, "method": meth, "epsilon": eps, "n_trials": int(bracket["n_trials"].min())}
        for col in ("utility_mean", "utility_lo", "utility_hi", "excess_risk_mean"):
            ys = g[col].to_numpy(dtype=float)
            if len(xs) == 1:
                v = ys[0] if math.isclose(xs[0], le, rel_tol=0, abs_tol=1e-9) else math.nan
            elif xs[0] - 1e-12 <= le <= xs[-1] + 1e-12:
                v = float(np.interp(le, xs, ys))
            else:
                v = math.nan
            row[col.replace("_mean", "")] = v
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ states of stored parts
_UNSET = object()


class LazyState(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: a mechanism's prepared state that is prepared on first use.

    Attribute access prepares it once and forwards to it (``docs/compare.md`` §"LazyState").
    """

    __slots__ = ("_adapter", "_ds", "_spec", "_value", "_lock")

    def __init__(self, adapter_key: str, ds, spec) -> None:
        object.__setattr__(self, "_adapter", adapter_key)
        object.__setattr__(self, "_ds", ds)
        object.__setattr__(self, "_spec", spec)
        object.__setattr__(self, "_value", _UNSET)
        object.__setattr__(self, "_lock", threading.Lock())

    def resolve(self) -> Any:
        """The prepared state (prepared now if needed)."""
        if self._value is _UNSET:
            with self._lock:
                if self._value is _UNSET:
                    from .registry import ADAPTERS

                    with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
                        value = ADAPTERS[self._adapter].prepare(self._ds, self._spec)
                    object.__setattr__(self, "_value", value)
        return self._value

    def __getattr__(self, name: str) -> Any:
        if name in LazyState.__slots__:
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.resolve(), name, value)

    def __reduce__(self):
        return (_restore_lazy, (self._adapter, self._ds, self._spec, None if self._value is _UNSET else self._value))

    def __repr__(self) -> str:
        return f"LazyState({self._adapter!r}, prepared={self._value is not _UNSET})"


def _restore_lazy(adapter_key: str, ds, spec, value) -> LazyState:
    s = LazyState(adapter_key, ds, spec)
    if value is not None:
        object.__setattr__(s, "_value", value)
    return s
