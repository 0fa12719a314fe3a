"""Negotiate a privacy budget: the smallest epsilon (or k, or n) that meets a stakeholder's target.

Targets (``METRIC=VALUE``), the measured and theoretical answers and the delta target:
``docs/compare.md`` §"Negotiate (dp_core/negotiate.py)".
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import display, precomputed
from . import status as vocab
from ._blas import single_threaded_blas
from ._validation import check_delta, check_epsilon, check_in_interval, check_int, check_real
from .calibration import solve_monotone
from .compare import ADAPTERS, CompareResult, default_epsilons, make_spec, run_compare
from .compare.budget import VALID_STATUSES as _HEADLINE_STATUSES  # best first; a refuted method is never the answer
from .compare.engine import concat_frames
from .compare.registry import TARGET_COLUMNS as _COLUMNS
from .compare.registry import utility_metric_name
from .data import Dataset, fingerprint_arrays
from .exceptions import PrivacyLeakWarning
from .learning_curve import _OUTCOME_OF, N_BOOTSTRAP, answer_number, fit_utility_model
from .preprocessing import DEFAULT_PREPROCESS
from .risk.targets import RISK_METRICS, risk_answer
from .rng import as_generator

__all__ = [
    "METRICS",
    "Target",
    "parse_target",
    "negotiate",
    "crossing",
    "smallest_n",
    "answer_table",
    "answer_table_for_people",
    "default_target_value",
    "metric_column",
    "answer_sentences",
    "headline",
    "learning_curves",
    "subsample",
    "json_safe",
    "answer_number",
    "status_words",
    "ranked_clause",
    "question_title",
]

#: metric -> (direction, description)
METRICS = {
    "accuracy": (">=", "test accuracy (classification)"),
    "r2": (">=", "test R² (regression)"),
    "mae": ("<=", "test mean absolute error, in the units of the target (regression)"),
    "excess_risk": ("<=", "excess risk of the mechanism's own training objective"),
    "delta": ("<=", "the failure probability δ"),
    **RISK_METRICS,
}

#: metrics measured only on regression data, and only on classification data
REGRESSION_METRICS = ("r2", "mae")
CLASSIFICATION_METRICS = ("accuracy",)
#: why a target metric has no theoretical answer
NO_BOUND_NOTE = {
    "mae": "no bound: no mechanism here has a bound on the test MAE; answered from the measured curves only"
}
_BOUND_ON_EXCESS = "bounds are on the excess risk; state an excess-risk target to use them"

_TARGET_RE = re.compile(r"^\s*([A-Za-z_0-9.]+)\s*(>=|<=|=)\s*([^\s]+)\s*$")


@dataclass(frozen=True)
class Target:
    """A stakeholder's requirement: ``metric direction value``."""

    metric: str
    value: float
    direction: str

    @property
    def text(self) -> str:
        return f"{self.metric} {'≥' if self.direction == '>=' else '≤'} {self.value:g}"

    def met(self, x: float) -> bool:
        return x >= self.value if self.direction == ">=" else x <= self.value

    def as_dict(self) -> dict:
        return {"metric": self.metric, "value": self.value, "direction": self.direction, "text": self.text}


def parse_target(text: str) -> Target:
    """Parse ``METRIC=VALUE`` (or ``METRIC>=VALUE`` / ``METRIC<=VALUE``).

    >>> parse_target("accuracy=0.9").text
    'accuracy ≥ 0.9'
    >>> parse_target("delta<=1e-6").value
    1e-06
    >>> parse_target("mae=50").text
    'mae ≤ 50'
    """
    if not isinstance(text, str):
        raise TypeError(f"target must be a string like 'accuracy=0.9', got {type(text).__name__}.")
    m = _TARGET_RE.match(text)
    if not m:
        raise ValueError(f"target must look like METRIC=VALUE with METRIC in {sorted(METRICS)}, got {text!r}.")
    metric, op, raw = m.group(1).lower(), m.group(2), m.group(3)
    if metric not in METRICS:
        raise ValueError(f"target metric must be one of {sorted(METRICS)}, got {metric!r}.")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"target value must be a number, got {raw!r} in {text!r}.") from None
    direction = METRICS[metric][0]
    if op != "=" and op != direction:
        raise ValueError(
            f"target {metric} must be stated as {metric}{direction}VALUE ({METRICS[metric][1]}), got {text!r}."
        )
    value = check_real("target value", value)
    if metric == "delta":  # (0, 1), InvalidPrivacyParameter
        check_delta(value, name="target delta")
    elif not _TARGET_RANGES[metric][0](value):
        raise ValueError(f"target {metric} must be {_TARGET_RANGES[metric][1]}, got {value:g}.")
    return Target(metric, value, direction)


#: each non-delta target metric's valid values, and how the error message states them
_TARGET_RANGES = {
    **{m: (lambda v: 0.0 < v <= 1.0, "in (0, 1]") for m in RISK_METRICS},
    "accuracy": (lambda v: 0.0 <= v <= 1.0, "in [0, 1]"),
    "r2": (lambda v: v <= 1.0, "at most 1"),
    "excess_risk": (lambda v: v > 0, "in (0, inf)"),
    "mae": (lambda v: v > 0 and math.isfinite(v), "in (0, inf) (a test mean absolute error in the target's units)"),
}


def crossing(eps: Sequence[float], values: Sequence[float], target: Target) -> tuple[float, str]:
    """Smallest epsilon from which the curve meets the target at every larger grid point.

    Interpolates linearly in log epsilon between the last failing grid point and the first
    point of the meeting tail. Returns ``(epsilon, note)`` where note is ``"interpolated"``,
    ``"at or below the smallest epsilon tried"`` (epsilon = grid minimum) or ``"not reached"``
    (epsilon = inf).

    >>> crossing([0.1, 1.0, 10.0], [0.5, 0.8, 0.95], Target("accuracy", 0.9, ">="))[0] > 1.0
    True
    """
    e = np.asarray(eps, dtype=float)
    v = np.asarray(values, dtype=float)
    order = np.argsort(e)
    e, v = e[order], v[order]
    ok = np.array([target.met(x) if math.isfinite(x) else False for x in v])
    if not ok[-1]:
        return math.inf, "not reached"
    j = len(ok) - 1
    while j > 0 and ok[j - 1]:
        j -= 1
    if j == 0:
        return float(e[0]), "at or below the smallest epsilon tried"
    x0, x1 = math.log(e[j - 1]), math.log(e[j])
    y0, y1 = v[j - 1], v[j]
    if not (math.isfinite(y0) and math.isfinite(y1)) or y1 == y0:
        return float(e[j]), "interpolated"
    t = (target.value - y0) / (y1 - y0)
    t = min(max(t, 0.0), 1.0)
    return float(math.exp(x0 + t * (x1 - x0))), "interpolated"


def _meets(v: float, target: Target) -> bool:
    return math.isfinite(v) and target.met(v)


def _first_met(size: int, met: Callable[[int], bool]) -> int | None:
    """Index of the first grid point that meets a target, for a bound that is monotone along the
    grid (misses, then meets): bisection on the indices, so ``O(log size)`` evaluations instead of
    ``size``. ``None`` when even the last point misses."""
    if not met(size - 1):
        return None
    if met(0):
        return 0
    lo, hi = 0, size - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if met(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _bound_crossing(
    adapter, state, method: str, spec, target: Target, grid: np.ndarray, cache: dict | None = None
) -> tuple[float, str]:
    """Smallest ε of ``grid`` at which ``method``'s bound meets ``target`` (safe side: a grid point).

    The bounds are non-increasing in ε, so each label is bisected on the grid (:func:`_first_met`);
    ``cache`` (per adapter) shares the bound tables between the methods of one mechanism.
    """
    cache = {} if cache is None else cache

    def table(i: int) -> pd.DataFrame:
        if i not in cache:
            cache[i] = adapter.bounds(state, [float(grid[i])], spec)
        b = cache[i]
        return b[b["method"] == method] if b is not None and len(b) else pd.DataFrame(columns=["label", "bound"])

    top = table(len(grid) - 1)
    if cache[len(grid) - 1] is None or not len(cache[len(grid) - 1]):
        return math.nan, "no bound for this mechanism"
    if not len(top):
        return math.nan, "no bound for this method"
    out = []
    for lab in dict.fromkeys(top["label"]):

        def met(i: int, _lab=lab) -> bool:
            t = table(i)
            v = t.loc[t["label"] == _lab, "bound"].to_numpy(dtype=float)
            return bool(len(v) and _meets(v[0], target))

        j = _first_met(len(grid), met)
        if j is None:
            out.append((math.inf, f"{lab}: not reached"))
        elif j == 0:
            out.append((float(grid[0]), f"{lab}: at or below the smallest epsilon tried"))
        else:
            out.append((float(grid[j]), f"{lab} (rounded up to a grid of {len(grid)} log-spaced ε)"))
    return min(out, key=lambda t: (math.isnan(t[0]), t[0]))


def smallest_n(
    adapter, state, method: str, *, epsilon: float, spec, target: Target, n_max: float = 1e9
) -> tuple[float, str]:
    """Smallest number of rows at which ``method``'s excess-risk bound meets ``target`` at ``epsilon`` (bisection on
    a log grid of n, then on integers); ``inf`` when ``n_max`` rows do not suffice, ``nan`` without a bound.
    """
    grid = np.unique(np.ceil(np.geomspace(10, n_max, 161)))
    value = functools.cache(lambda i: adapter.bound_at(state, method, epsilon=epsilon, n=float(grid[i]), spec=spec))
    if math.isnan(value(len(grid) - 1)) and math.isnan(value(0)):
        return math.nan, "no bound for this method"
    j = _first_met(len(grid), lambda i: _meets(value(i), target))
    if j is None:
        return math.inf, f"not met for n ≤ {n_max:.0e}"
    if j == 0:
        return float(grid[0]), f"met already at n = {int(grid[0])}"

    def met(n: int) -> float:  # 0/1 indicator, non-decreasing in n on this bracket
        return float(_meets(adapter.bound_at(state, method, epsilon=epsilon, n=float(n), spec=spec), target))

    hi = solve_monotone(
        met, 1.0, lo=int(grid[j - 1]), hi=int(grid[j]), increasing=True, safe="upper", integer=True, what="n"
    )
    return float(hi), "smallest n (bound, integer bisection)"


# --------------------------------------------------------------------------- learning curves
#: Training-set fractions at which the learning curves are measured (1.0 is the full dataset).
LC_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
#: Trials per point of a subsample run (the full dataset keeps the comparison's trials).
LC_TRIAL_CAP = 20
#: Fewest training rows a learning-curve subsample may have (smaller fractions are left out).
LC_MIN_TRAIN = 24
#: Largest multiple of the current rows an extrapolated answer may reach (beyond: "not reached").
LC_MAX_FACTOR = 1000.0


def subsample(ds: Dataset, n_train: int, *, test_fraction: float = 0.2, seed: int = 0) -> tuple[Dataset, float]:
    """A nested, seeded subsample of ``ds`` with ``n_train`` training rows and an unchanged test size; returns it
    (same name) and the test fraction that keeps the test size (``docs/compare.md`` §"negotiate.subsample").
    """
    n_train = check_int("n_train", n_train, lo=1)
    n_test = max(1, int(round(test_fraction * ds.n)))
    if n_train + n_test > ds.n:
        raise ValueError(f"n_train must be at most {ds.n - n_test} for dataset {ds.name!r}, got {n_train}.")
    n_sub = n_train + n_test
    # a stream of its own (entropy [seed, 0x1C]), independent of the split and trial streams of ``seed``
    perm = as_generator(np.random.SeedSequence([int(seed), 0x1C])).permutation(ds.n)
    idx = np.sort(perm[:n_sub])
    X, y = np.ascontiguousarray(ds.X[idx]), np.ascontiguousarray(ds.y[idx])
    X.setflags(write=False)
    y.setflags(write=False)
    sub = dataclasses.replace(ds, X=X, y=y, fingerprint=fingerprint_arrays(X, y))
    return sub, n_test / n_sub


def learning_curves(
    ds: Dataset,
    spec,
    *,
    mechanisms: Sequence[str] | None = None,
    fractions: Sequence[float] = LC_FRACTIONS,
    result: CompareResult | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Each method's measured utility and excess risk on nested subsamples of ``ds`` (at most :data:`LC_TRIAL_CAP`
    trials each; ``result`` reused for ``f = 1``): summary rows with ``n_rows`` and ``n_train`` added
    (``docs/compare.md`` §"negotiate.learning_curves").
    """
    return _lc_frame(_lc_runs(ds, spec, mechanisms=mechanisms, fractions=fractions, result=result, progress=progress))


def _lc_runs(
    ds: Dataset,
    spec,
    *,
    mechanisms: Sequence[str] | None,
    fractions: Sequence[float],
    result: CompareResult | None,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[int, int, CompareResult]]:
    """``(n_rows, n_train, comparison)`` per learning-curve size (see :func:`learning_curves`)."""
    n_test = max(1, int(round(spec.test_fraction * ds.n)))
    n_train_full = ds.n - n_test
    fracs = sorted({float(check_in_interval("fraction", f, 0.0, 1.0, closed="right")) for f in fractions})
    sizes = sorted({max(1, int(round(f * n_train_full))) for f in fracs})
    sizes = [s for s in sizes if s >= min(LC_MIN_TRAIN, n_train_full)]
    out = []
    for i, n_tr in enumerate(sizes):
        # each size's own runs move the progress too: size i's (done, total) maps to (i·total + done, sizes·total)
        step = None if progress is None else functools.partial(_size_progress, progress, i, len(sizes))
        if n_tr == n_train_full:
            reuse = result is not None and result.spec == spec
            res = result if reuse else run_compare(ds, spec, mechanisms=mechanisms, progress=step)
        else:
            sub, tf = subsample(ds, n_tr, test_fraction=spec.test_fraction, seed=spec.seed)
            sub_spec = dataclasses.replace(spec, test_fraction=tf, n_trials=min(spec.n_trials, LC_TRIAL_CAP))
            res = run_compare(sub, sub_spec, mechanisms=mechanisms, progress=step)
        if progress is not None:
            progress(i + 1, len(sizes))
        n_rows = ds.n if n_tr == n_train_full else int(math.ceil(n_tr * ds.n / n_train_full))
        out.append((n_rows, n_tr, res))
    return out


def _size_progress(progress: Callable[[int, int], None], i: int, sizes: int, done: int, total: int) -> None:
    if total > 0:
        progress(i * total + done, sizes * total)


def _setting(spec) -> tuple:
    """What a delta-only negotiation needs to match (everything but the grid and the trials)."""
    return (spec.delta, spec.seed, spec.params, spec.preprocess, spec.test_fraction)


def negotiate(
    ds: Dataset,
    targets: Sequence[Target | str],
    *,
    epsilon: float = 1.0,
    delta: float = 1e-5,
    mechanisms: Sequence[str] | None = None,
    n_trials: int = 50,
    seed: int = 0,
    eps_min: float = 0.01,
    eps_max: float = 20.0,
    n_points: int = 10,
    preprocess: str = DEFAULT_PREPROCESS,
    progress: Callable[[int, int], None] | None = None,
    result: CompareResult | None = None,
    solve_for: str = "epsilon",
    rows_factor: float = 1.0,
    fractions: Sequence[float] | None = None,
    **params: Any,
) -> dict:
    """Answer targets for every applicable mechanism on ``ds``; returns a JSON-ready dict (:func:`json_safe`).

    Parameters, ``solve_for="n"``, ``rows_factor`` and the returned keys: ``docs/compare.md`` §"negotiate()".
    """
    parsed, t, delta_t, rows_factor = _checked_targets(ds, targets, solve_for, rows_factor)
    risk_t = [x for x in parsed if x.metric in RISK_METRICS]
    eps_chosen = check_epsilon(epsilon, allow_inf=False)
    delta_used = delta_t[0].value if delta_t else check_delta(delta)
    n_trials = check_int("n_trials", n_trials, lo=1, hi=100_000)
    grid = default_epsilons(eps_min, eps_max, n_points)
    common = {"delta": delta_used, "seed": seed, "preprocess": preprocess, **params}
    spec = make_spec(epsilons=grid, n_trials=n_trials, **common)
    wants_lc = solve_for == "n" or rows_factor != 1.0
    lc_fractions = (LC_FRACTIONS if fractions is None else fractions) if wants_lc else None
    result, runs, lc = _measure(ds, t, spec, common, eps_chosen, mechanisms, progress, result, lc_fractions)
    n_target = ds.n * rows_factor
    rows, curves = _method_rows(
        ds, result, runs, t, (delta_t, delta_used), seed, eps_chosen, solve_for, rows_factor, lc is not None
    )
    answer = {
        "dataset": ds.name,
        "task": ds.task,
        "n": ds.n,
        "fingerprint": ds.fingerprint,
        "targets": [x.as_dict() for x in parsed],
        "epsilon_chosen": eps_chosen,
        "delta_used": delta_used,
        "grid": list(grid) if t is not None and solve_for == "epsilon" else [],
        "bootstrap_replicates": N_BOOTSTRAP if t is not None else 0,
        "seed": seed,
        "solve_for": solve_for,
        "rows_factor": rows_factor,
        "n_current": ds.n,
        "n_answer": int(round(n_target)),
        "methods": rows,
        "k_answers": _all_k_answers(ds, result, eps_chosen, delta_used),
        "skipped": dict(result.skipped),
        "notes": _answer_notes(ds, t, solve_for, eps_chosen, lc),
        "target": (t or (delta_t or risk_t)[0]).as_dict(),
        "learning_curve": [] if lc is None else _curve_records(lc, result),
        "model_curve": [c for c in curves if c is not None],
    }
    answer["headline"] = headline(answer)
    if risk_t:  # a risk cap: the largest ε under it, and whether the utility target is met there
        answer["risk"] = risk_answer(risk_t[0], delta_used, rows)
        answer["headline"] = f"{answer['headline']} {answer['risk']['sentence']}".strip()
    return json_safe(answer)


def _method_rows(ds, result, runs, t, deltas, seed, eps_chosen, solve_for, rows_factor, with_curves):
    """One answer row per method of ``result``, and each method's model curve at the chosen ε."""
    delta_t, delta_used = deltas
    n_target = ds.n * rows_factor
    rows, curves = [], []  # curves: each method's model at the chosen ε, drawn by the learning-curve chart
    bound_cache: dict[str, dict] = {}
    for mi in result.methods:
        row = _method_head(mi, delta_used, delta_t)
        if t is not None:
            model, why = _method_model(runs, mi, t, ds.n, seed, extra_n=(n_target,), extra_eps=(eps_chosen,))
            if with_curves and model is not None and mi["status"] != "none":
                curves.append(_model_curve(model, mi, eps_chosen))
            if solve_for == "n":
                row.update(_row_n(model, why, mi, t, eps_chosen, ds.n, result))
            else:
                row.update(_answer_eps(model, why, mi, t, result, ds.n, rows_factor))
                row.update(_row_bound_eps(mi, t, result, rows_factor, n_target, bound_cache))
        rows.append(row)
    return rows, curves


def _checked_targets(ds: Dataset, targets, solve_for: str, rows_factor: float):
    """The parsed targets: all, the utility one (or ``None``), the delta ones; and the checked ``rows_factor``."""
    parsed = [parse_target(t) if isinstance(t, str) else t for t in targets]
    if not parsed:
        raise ValueError("targets must contain at least one target like 'accuracy=0.9', got none.")
    for t in parsed:
        if not isinstance(t, Target):
            raise TypeError(f"targets must be strings or Target objects, got {type(t).__name__}.")
    util_t = [t for t in parsed if t.metric != "delta" and t.metric not in RISK_METRICS]
    delta_t = [t for t in parsed if t.metric == "delta"]
    if len(util_t) > 1 or len(delta_t) > 1 or sum(t.metric in RISK_METRICS for t in parsed) > 1:
        raise ValueError(
            "give at most one utility or excess-risk target, one delta target and one risk cap, got "
            f"{[t.text for t in parsed]}."
        )
    if util_t:
        check_target_fits(util_t[0], ds)
    if solve_for not in ("epsilon", "n"):
        raise ValueError(f"solve_for must be 'epsilon' or 'n', got {solve_for!r}.")
    if solve_for == "n" and not util_t:
        raise ValueError(
            f"solve_for='n' needs an accuracy, r2, mae or excess_risk target, got {[t.text for t in parsed]}."
        )
    rows_factor = check_real("rows_factor", rows_factor)
    if not 1.0 <= rows_factor <= LC_MAX_FACTOR:
        raise ValueError(f"rows_factor must be in [1, {LC_MAX_FACTOR:g}], got {rows_factor:g}.")
    if rows_factor != 1.0 and (solve_for != "epsilon" or not util_t):
        raise ValueError(
            f"rows_factor applies to solve_for='epsilon' with a utility target, got rows_factor={rows_factor:g} "
            f"with solve_for={solve_for!r}."
        )
    return parsed, (util_t[0] if util_t else None), delta_t, rows_factor


def _measure(ds, t, spec, common, eps_chosen, mechanisms, progress, result, lc_fractions):
    """The comparison behind the answers, its runs per size and the learning-curve frame (or ``None``)."""
    lc = None
    runs: list[tuple[int, int, CompareResult]] = []
    if t is not None:
        if lc_fractions is not None:  # the full size is one of the learning curve's (progress over all of them)
            runs = _lc_runs(ds, spec, mechanisms=mechanisms, fractions=lc_fractions, result=result, progress=progress)
            lc = _lc_frame(runs)
            result = next((r for n_rows, _, r in runs if n_rows == ds.n), result)
        if result is None or result.spec != spec:
            result = run_compare(ds, spec, mechanisms=mechanisms, progress=progress)
        runs = runs or [(ds.n, 0, result)]
    elif result is None or _setting(result.spec) != _setting(spec):
        # delta-only negotiation: no Monte-Carlo needed, just the prepared states
        result = run_compare(ds, make_spec(epsilons=(eps_chosen,), n_trials=1, **common), mechanisms=mechanisms)
    return result, runs, lc


def _method_head(mi: dict, delta_used: float, delta_t: list) -> dict:
    """The identity of one method's answer row (and whether it meets a delta target)."""
    row = {k: mi[k] for k in ("mechanism", "adapter", "method", "label", "status", "pure", "label_dp")}
    row["delta"] = 0.0 if mi["pure"] else delta_used
    if "sampler_status" in mi:  # approximate samplers: never counted as a private answer unless converged
        row["sampler_status"] = mi["sampler_status"]
        row["sampler_diagnostics"] = mi.get("sampler_diagnostics", [])
    if delta_t:
        row["meets_delta"] = bool(mi["pure"] or delta_used <= delta_t[0].value)
    return row


def _row_n(model, why: str, mi: dict, t: Target, eps: float, n_data: int, result: CompareResult) -> dict:
    """The smallest n of one method: from its model, else from its bound when only the bound answers."""
    row = _answer_n(model, why, mi, t, eps, n_data)
    row.update(_bound_n(ADAPTERS[mi["adapter"]], result.states[mi["adapter"]], mi, t, eps, result.spec))
    if row["n_min_outcome"] not in _ANSWERED and row["n_bound_outcome"] in _ANSWERED:
        nb = row["n_bound"]
        row.update(n_min=nb, n_min_lo=nb, n_min_hi=nb, n_min_source="bound", n_min_note=row["n_note"])
        row["n_min_outcome"] = row["n_bound_outcome"]
    return row


def _row_bound_eps(mi: dict, t: Target, result: CompareResult, rows_factor: float, n_target: float, cache: dict):
    """The smallest ε of one method's theoretical bound (excess-risk targets only)."""
    if t.metric != "excess_risk" or mi["status"] == "none":
        eb, bnote = math.nan, _no_bound_note(t.metric)
    else:
        adapter, state = ADAPTERS[mi["adapter"]], result.states[mi["adapter"]]
        fine = np.geomspace(1e-3, 1e3, 241)
        with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
            if rows_factor == 1.0:
                own = cache.setdefault(mi["adapter"], {})
                eb, bnote = _bound_crossing(adapter, state, mi["method"], result.spec, t, fine, own)
            else:
                eb, bnote = _bound_crossing_at_n(adapter, state, mi["method"], result.spec, t, fine, n_target)
    return {"epsilon_bound": eb, "bound_note": bnote, "bound_outcome": _outcome(eb)}


def _all_k_answers(ds: Dataset, result: CompareResult, eps: float, delta: float) -> list[dict]:
    """The smallest bag size k of every mechanism with a ``negotiate_k`` hook, at (ε, δ)."""
    out = []
    for key, state in result.states.items():
        hook = getattr(ADAPTERS[key], "negotiate_k", None)
        if hook is not None:
            # deterministic in (data, spec, ε, δ): answered from the shipped demo results when stored
            compute = functools.partial(_k_answers, hook, state, eps, delta, result.spec)
            out.extend(precomputed.memo(ds, key, result.spec, "negotiate_k", {"epsilon": eps, "delta": delta}, compute))
    return out


def _answer_notes(ds: Dataset, t: Target | None, solve_for: str, eps_chosen: float, lc) -> list[str]:
    """How to read the answer: the model, and what the bound, smallest n, MAE and learning curve mean."""
    notes = [
        "Every answer (smallest ε at n rows, fewest rows at ε, smallest ε with N times the rows) comes from one "
        f"model of the measured utility over (rows, ε), refitted on {N_BOOTSTRAP} bootstrap replicates that "
        "resample each measured point's trials and the subsample sizes. 95% range of an ε: the 2.5% and 97.5% "
        "percentiles of the answer over the replicates; of the rows needed: where the 95% range of the modelled "
        "utility (those percentiles at each size, beyond the data no narrower than at its size) meets the target, "
        "as the learning-curve chart draws it. A target is met at (n, ε) exactly when ε is at least the smallest "
        "ε at n and exactly when n is at least the rows needed at ε."
    ]
    if t is not None and t.metric == "excess_risk":  # the only metric a theoretical bound speaks to
        notes.append(
            "Smallest ε (bound): the smallest ε on a fine log grid at which the theoretical bound meets the "
            "target (rounded up); never = not met for ε ≤ 1000."
        )
    if solve_for == "n":
        notes.append(
            f"Smallest n: the fewest rows at which the model meets the target at ε = {display.epsilon(eps_chosen)}. "
            "Smallest n (bound): the fewest rows at which the theoretical bound meets an excess-risk target."
        )
    if t is not None and t.metric == "mae":
        notes.append(
            f"Test MAE: the mean absolute error of the released model's predictions on the held-out rows, in the "
            f"units of the target ({display.header(ds.target_name)}); lower is better. No mechanism here has a "
            "theoretical bound on it, so every answer is measured (no bound)."
        )
    if lc is not None:
        sizes = sorted({int(v) for v in lc["n_rows"]}) if len(lc) else []
        notes.append(
            "Learning curve: each mechanism run on nested subsamples of "
            + ", ".join(display.integer(v) for v in sizes)
            + " rows (same test rows); beyond the data the model adds to the measured value the gain of "
            "y = a + b·n^(−p), p ∈ {½, 1}, fitted to the measured points: an extrapolation, not a guarantee; its "
            "95% range is never narrower than the measured one. The chart draws this model at "
            f"ε = {display.epsilon(eps_chosen)}: solid over the measured sizes, dotted beyond, its 95% range shaded."
        )
    return notes


def json_safe(obj: Any) -> Any:
    """``obj`` with every non-finite float as ``None`` and NumPy scalars as Python numbers (JSON has no NaN
    or infinity; an answer's ``*_outcome`` says whether a ``None`` is "not reached" or "no answer").

    >>> json_safe({"a": [float("nan"), 1.5, float("inf")]})
    {'a': [None, 1.5, None]}
    """
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def _k_answers(hook, state, epsilon: float, delta: float, spec) -> list[dict]:
    """A mechanism's bag-size answers with one BLAS thread: the same numbers in every process (a Dask worker
    or the precomputed store's regeneration has one BLAS thread; the label-DP bound's k can differ by one
    between thread counts)."""
    with single_threaded_blas():
        return hook(state, epsilon=epsilon, delta=delta, spec=spec)


def _curve_records(lc: pd.DataFrame, result: CompareResult) -> list[dict]:
    keep = {(m["adapter"], m["method"]) for m in result.methods if m["status"] != "none"}
    cols = ["adapter", "method", "epsilon", "n_rows", "utility_mean", "utility_lo", "utility_hi"]
    cols += ["excess_risk_mean", "excess_risk_lo", "excess_risk_hi"]
    if "mae_mean" in lc.columns and np.isfinite(lc["mae_mean"].to_numpy(dtype=float)).any():  # regression
        cols += ["mae_mean", "mae_lo", "mae_hi"]
    cols += ["n_trials"]
    out = []
    for r in lc[cols].to_dict("records"):
        if (r["adapter"], r["method"]) in keep:
            out.append({k: (int(v) if k in ("n_rows", "n_trials") else v) for k, v in r.items()})
    return out


def _model_curve(model, mi: dict, epsilon: float) -> dict | None:
    """One method's model at ``epsilon`` over the rows, as the learning-curve chart draws it: the model's n
    nodes with its value and 95% range (:meth:`~dp_core.learning_curve.UtilityModel.curve`, linear in log n
    between nodes), the surface the rows-needed answer inverts (``None``: ``epsilon`` outside the grid)."""
    curve = model.curve(epsilon)
    if curve is None:
        return None
    curve_lists = [v.tolist() for v in curve]
    keys = ("n_rows", "value", "lo", "hi")
    return {"adapter": mi["adapter"], "method": mi["method"], "epsilon": epsilon, **dict(zip(keys, curve_lists))}


def metric_column(metric: str) -> str:
    """The measured column behind a target metric: ``utility`` (accuracy, R²), ``mae`` or ``excess_risk``.

    >>> metric_column("mae")
    'mae'
    """
    if metric not in _COLUMNS:
        raise ValueError(f"metric must be one of {sorted(_COLUMNS)}, got {metric!r}.")
    return _COLUMNS[metric]


def check_target_fits(target: Target, ds: Dataset) -> None:
    """``ValueError`` naming the problem when a utility target does not fit the dataset's task
    (accuracy needs classification; R² and MAE need regression)."""
    metric = utility_metric_name(ds.task)
    if target.metric in REGRESSION_METRICS and ds.task != "regression":
        raise ValueError(
            f"target {target.metric!r} needs a regression dataset, but dataset {ds.name!r} has a {ds.task} "
            f"target; use {metric!r} or 'excess_risk'."
        )
    if target.metric in CLASSIFICATION_METRICS and ds.task == "regression":
        raise ValueError(
            f"target {target.metric!r} does not fit the {ds.task} task of dataset {ds.name!r}; "
            "use 'r2', 'mae' or 'excess_risk'."
        )


def _no_bound_note(metric: str) -> str:
    return "no privacy claim" if metric == "excess_risk" else NO_BOUND_NOTE.get(metric, _BOUND_ON_EXCESS)


def _measured(summary: pd.DataFrame, mi: dict, col: str) -> pd.DataFrame:
    """One method's summary rows (none when the table has no ``col``: a comparison made before it existed)."""
    if summary is None or not len(summary) or f"{col}_mean" not in summary.columns:
        return pd.DataFrame(columns=["epsilon", "n_trials", f"{col}_mean", f"{col}_lo", f"{col}_hi"])
    return summary[(summary["adapter"] == mi["adapter"]) & (summary["method"] == mi["method"])]


def default_target_value(result: CompareResult, metric: str, *, sig: int = 2) -> float:
    """A sensible starting value of a ``metric`` target on this comparison (``nan``: none measured).

    Only ``mae`` depends on the data (its unit is the target's): halfway between the best non-private
    test MAE and the worst point of the best private curve (the smallest private MAE measured at the
    grid's smallest ε, what almost no budget buys), rounded to ``sig`` significant digits. Such a
    target lies inside what the measured curves cover, so the answer is a crossing, not "not reached".

    >>> import math
    >>> math.isnan(default_target_value(None, "accuracy"))
    True
    """
    if metric != "mae" or result is None or not result.has_mae:
        return math.nan
    ref = result.reference_mae
    s = result.summary
    claimed = {(m["adapter"], m["method"]) for m in result.methods if m["status"] != "none"}
    s = s[[(a, m) in claimed for a, m in zip(s["adapter"], s["method"])]]
    s = s[np.isfinite(s["mae_mean"].to_numpy(dtype=float))]
    if not len(s) or not math.isfinite(ref):
        return math.nan
    worst = float(s[s["epsilon"] == s["epsilon"].min()]["mae_mean"].min())
    mid = 0.5 * (ref + max(worst, ref))
    if not mid > 0:
        return math.nan
    step = 10.0 ** (math.floor(math.log10(mid)) - (sig - 1))
    return float(round(round(mid / step) * step, 12))


#: outcomes of an answer that carry a number (its ends may still be open: ``None`` in the JSON)
_ANSWERED = ("reached",)


def _outcome(v: float) -> str:
    """``reached`` (a number), ``not reached`` (``inf``) or ``no answer`` (``nan``)."""
    return "no answer" if math.isnan(v) else ("not reached" if math.isinf(v) else "reached")


def _lc_frame(runs: list) -> pd.DataFrame:
    """The learning-curve summaries of :func:`_lc_runs` (as :func:`learning_curves` returns them)."""
    frames = [res.summary.assign(n_train=n_tr, n_rows=n_rows) for n_rows, n_tr, res in runs if res.summary is not None]
    return concat_frames(frames, ["adapter", "method", "epsilon", "n_rows", "n_train"])


def _method_cells(runs: list, mi: dict, col: str) -> dict:
    """One method's per-trial values of ``col`` per ``(n_rows, ε)`` over the learning-curve runs."""
    cells = {}
    for n_rows, _n_tr, res in runs:
        tr = res.trials
        if tr is None or not len(tr) or col not in tr.columns:
            continue
        g = tr[(tr["adapter"] == mi["adapter"]) & (tr["method"] == mi["method"])]
        for e, ge in g.groupby("epsilon"):
            cells[(float(n_rows), float(e))] = ge[col].to_numpy(dtype=float)
    return cells


def _method_model(runs: list, mi: dict, t: Target, n_data: int, seed: int, *, extra_n, extra_eps):
    """One method's :class:`~dp_core.learning_curve.UtilityModel` of the target's metric, or ``None`` and why
    (``"single"``: measured at one ε only; ``"not run"``; or a "could not be run: ..." sentence)."""
    col = metric_column(t.metric)
    cells = _method_cells(runs, mi, col)
    full = {e: v for (n, e), v in cells.items() if n == float(n_data)}
    if not full:
        return None, "not run"
    if len(full) == 1:
        return None, "single"
    model = fit_utility_model(
        cells,
        n_data=float(n_data),
        metric=t.metric,
        direction=t.direction,
        seed=seed,
        key=f"{mi['adapter']}/{mi['method']}",
        n_max_factor=LC_MAX_FACTOR,
        extra_n=extra_n,
        extra_eps=extra_eps,
    )
    if model is not None:
        return model, ""
    ok = [int(np.isfinite(v).sum()) for v in full.values()]
    tot = [len(v) for v in full.values()]
    if max(ok) == 0:
        return None, f"could not be run: none of its {display.integer(sum(tot))} trials returned a model at any ε"
    k = int(np.argmax(ok))
    return None, (
        f"could not be run: fewer than half of its trials returned a model at every ε (at best "
        f"{display.integer(ok[k])} of {display.integer(tot[k])}), so no utility is measured"
    )


def _not_modelled(why: str, mi: dict, result: CompareResult | None) -> str:
    """Why a method has no measured answer."""
    if why.startswith("could not be run"):
        return why
    if mi.get("status") == "none" and mi.get("statement"):  # say why it was not run
        text = str(mi["statement"])
        return f"not run: {text[:1].lower()}{text[1:]}"
    if result is not None and len(result.summary) and not (result.summary["method"] == mi["method"]).any():
        return "not run in this comparison (its own page runs it)"
    return "no measured curve"


def _answer_eps(model, why: str, mi: dict, t: Target, result: CompareResult, n_data: int, rows_factor: float) -> dict:
    """The smallest ε of one method at ``rows_factor · n_data`` rows, from its utility model."""
    if model is None and why == "single":
        return _single_point(_measured(result.summary, mi, metric_column(t.metric)), t)
    if model is None:
        return {"epsilon_measured": math.nan, "measured_note": _not_modelled(why, mi, result), "measured_outcome": why}
    n_target = n_data * rows_factor
    e, lo, hi = model.eps_needed(n_target, t.value)
    if rows_factor != 1.0:
        lo, hi = _no_narrower(e, lo, hi, model.eps_needed(n_data, t.value))
    note = "not reached" if math.isinf(e) else "interpolated"
    if e == model.epsilons[0]:
        note = "at or below the smallest epsilon tried"
    if rows_factor != 1.0:
        note = f"{note}; extrapolated from the learning curve to {display.integer(n_target)} rows"
    return {
        "epsilon_measured": e,
        "epsilon_measured_lo": lo,
        "epsilon_measured_hi": hi,
        "measured_note": note,
        "measured_outcome": _outcome(e),
        "n_trials": model.n_trials,
    }


def _no_narrower(e: float, lo: float, hi: float, measured: tuple[float, float, float]) -> tuple[float, float]:
    """An extrapolated ε range widened so that, relative to its point, it is no narrower than the
    measured one at the data's own size (each side): an answer about rows we do not have is never
    stated more precisely than the answer about the rows we have."""
    e1, lo1, hi1 = measured
    if not (math.isfinite(e) and math.isfinite(e1) and e1 > 0):
        return lo, hi
    return min(lo, e * lo1 / e1), max(hi, e * hi1 / e1 if math.isfinite(hi1) else math.inf)


def _single_point(s: pd.DataFrame, t: Target) -> dict:
    """A method measured at its own accounted ε only (no curve to cross)."""
    r = s.iloc[0]
    col = metric_column(t.metric)
    return {
        "epsilon_measured": math.nan,
        "measured_note": f"measured at its accounted ε = {display.epsilon(r['epsilon'])} only: "
        f"{_METRIC_NAMES.get(t.metric, t.metric)} = {display.number(r[f'{col}_mean'])} "
        f"({'meets' if t.met(r[f'{col}_mean']) else 'misses'} the target)",
        "measured_outcome": "single",
        "n_trials": int(r["n_trials"]),
    }


def _answer_n(model, why: str, mi: dict, t: Target, eps: float, n_data: int) -> dict:
    """The fewest rows of one method at ``eps``, from its utility model."""
    out = {"n_min": math.nan, "n_min_lo": math.nan, "n_min_hi": math.nan, "n_min_source": "measured"}
    if mi["status"] == "none":
        return {**out, "n_min_note": "no privacy claim", "n_min_outcome": "no answer"}
    if model is None:
        note = "measured at one ε only" if why == "single" else _not_modelled(why, mi, None)
        return {**out, "n_min_note": note, "n_min_outcome": why}
    ans = model.n_needed(eps, t.value)
    if ans is None:
        lo, hi = model.epsilons[0], model.epsilons[-1]
        grid = f"{display.epsilon(lo)} to {display.epsilon(hi)}"
        note = f"ε = {display.epsilon(eps)} is outside the measured grid ({grid})"
        return {**out, "n_min_note": note, "n_min_outcome": "no answer"}
    n, lo, hi = ans
    if math.isinf(n):
        note = f"not reached below {display.integer(LC_MAX_FACTOR * n_data)} rows (extrapolated)"
    elif n <= model.ns[0]:
        note = "met already at the smallest subsample"
    elif n <= n_data:
        note = "measured (interpolated between subsample sizes)"
    else:
        note = "extrapolated from the learning curve"
    out.update(n_min=n, n_min_lo=lo, n_min_hi=hi, n_min_note=note, n_min_outcome=_outcome(n))
    return {**out, "n_trials": model.n_trials}


def _bound_n(adapter, state, mi: dict, t: Target, eps: float, spec) -> dict:
    """The fewest rows at which the method's excess-risk bound meets ``t`` (other metrics: no bound)."""
    if t.metric == "excess_risk" and mi["status"] != "none":
        with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
            nb, nnote = smallest_n(adapter, state, mi["method"], epsilon=eps, spec=spec, target=t)
    else:
        nb, nnote = math.nan, _no_bound_note(t.metric)
    return {"n_bound": nb, "n_note": nnote, "n_bound_outcome": _outcome(nb)}


def _bound_crossing_at_n(adapter, state, method: str, spec, target: Target, grid: np.ndarray, n: float):
    value = functools.cache(lambda i: adapter.bound_at(state, method, epsilon=float(grid[i]), n=float(n), spec=spec))
    if math.isnan(value(len(grid) - 1)):
        return math.nan, "no bound for this method"
    j = _first_met(len(grid), lambda i: _meets(value(i), target))
    if j is None:
        return math.inf, f"not met for ε ≤ 1000 at n = {display.integer(n)}"
    return float(grid[j]), f"bound at n = {display.integer(n)} (rounded up to a grid of {len(grid)} log-spaced ε)"


def status_words() -> dict[str, str]:
    """Each method status in the words the headline prints: the vocabulary's own (:mod:`dp_core.status`), and
    the non-private reference's marker in plain words."""
    return {**{s: s for s in vocab.STATUSES}, vocab.NO_CLAIM: "no privacy claim"}


def ranked_clause(methods: list[dict], status: str) -> str:
    """Which statuses the headline ranks: ``"Ranked among methods whose guarantee is X; 3 methods with
    other statuses (Y: 1, Z: 2) are not ranked."``"""
    words = status_words()
    others: dict[str, int] = {}
    for r in methods:
        if r.get("status") != status:
            w = words.get(r.get("status"), str(r.get("status")))
            others[w] = others.get(w, 0) + 1
    text = f"Ranked among methods whose guarantee is {words.get(status, status)}"
    if not others:
        return text + "."
    n = sum(others.values())
    parts = ", ".join(f"{w}: {display.integer(c)}" for w, c in others.items())
    verb = "is" if n == 1 else "are"
    return (
        f"{text}; {display.integer(n)} method{'' if n == 1 else 's'} with other statuses ({parts}) {verb} not ranked."
    )


def headline(answer: dict) -> str:
    """One sentence with the answer: the best method of the best status with an answer (order of
    :data:`_HEADLINE_STATUSES`; never refuted or unclaimed methods), its number and 95% range, and whether it
    extrapolates; numbers through :mod:`dp_core.display`.
    """
    t = answer.get("target", {})
    if t.get("metric") in (None, "delta", *RISK_METRICS):
        return ""
    what = _target_words(t)
    where = f"on {answer['dataset']}"
    methods = answer["methods"]
    if answer.get("solve_for") == "n":
        r, status = _best(methods, "n_min")
        eps_txt = display.epsilon(answer["epsilon_chosen"])
        if r is None:
            return (
                f"No method reaches {what} {where} at ε = {eps_txt} with up to {_rows(LC_MAX_FACTOR * answer['n'])}. "
                + ranked_clause(methods, status)
            )
        src = "from its bound" if r["n_min_source"] == "bound" else "measured"
        extra = " (extrapolated beyond the data)" if "extrapolated" in r.get("n_min_note", "") else ""
        return (
            f"{_cap(what)} {where} at ε = {eps_txt} needs about {_rows(answer_number(r, 'n_min'))} "
            f"(95% range {_n(answer_number(r, 'n_min_lo'))} to {_n(answer_number(r, 'n_min_hi'))}; {src}{extra}) with "
            f"{_method_words(r)}; the dataset has {_rows(answer['n'])}. " + ranked_clause(methods, status)
        )
    r, status = _best(methods, "epsilon_measured")
    rows_txt = ""
    if answer.get("rows_factor", 1.0) != 1.0:
        rows_txt = f" with {rows_factor_words(answer['rows_factor'])} ({_rows(answer['n_answer'])}, extrapolated)"
    if r is None:
        eb, _ = _best(methods, "epsilon_bound")
        if eb is not None:
            return (
                f"{_cap(what)} {where}{rows_txt}: not reached by any measured curve; the bound of "
                f"{eb['label']} guarantees it from ε = {display.epsilon(answer_number(eb, 'epsilon_bound'))}."
            )
        return f"{_cap(what)} {where}{rows_txt}: not reached on the ε grid by any method with a privacy claim."
    return (
        f"The smallest ε for {what} {where}{rows_txt} is about {display.epsilon(answer_number(r, 'epsilon_measured'))} "
        f"(95% range {display.epsilon(answer_number(r, 'epsilon_measured_lo'), inf=BEYOND_GRID)} to "
        f"{display.epsilon(answer_number(r, 'epsilon_measured_hi'), inf=BEYOND_GRID)}), with {_method_words(r)} "
        f"({status_words().get(r['status'], r['status'])}). " + ranked_clause(methods, status)
    )


def question_title(answer: dict) -> str:
    """The negotiation's question in a few words, naming the rows factor and the chosen ε where they
    matter: ``"accuracy ≥ 0.9 with 2× the rows (1,138 rows)"``, ``"accuracy ≥ 0.9: fewest rows at ε = 1"``.

    >>> question_title({"target": {"text": "accuracy ≥ 0.9"}, "rows_factor": 2.0, "n": 569, "solve_for": "epsilon"})
    'accuracy ≥ 0.9 with 2× the rows (1,138 rows)'
    """
    text = answer["target"]["text"]
    if answer.get("solve_for") == "n":
        return f"{text}: fewest rows at ε = {display.epsilon(answer['epsilon_chosen'])}"
    factor = float(answer.get("rows_factor", 1.0))
    if factor != 1.0:
        return f"{text} with {display.number(factor)}× the rows ({display.integer(factor * answer['n'])} rows)"
    return text


def rows_factor_words(factor: float) -> str:
    """``"twice the rows"``, ``"4 times the rows"``, ``"the same rows"``.

    >>> rows_factor_words(2)
    'twice the rows'
    """
    return {1: "the same rows", 2: "twice the rows"}.get(factor, f"{display.number(factor)} times the rows")


def _method_words(r: dict) -> str:
    """A method's name in the headline, saying when it protects the labels only."""
    return f"{r['label']} (protects labels only)" if r.get("label_dp") else r["label"]


#: each target metric in words (answers and notes)
_METRIC_NAMES = {"accuracy": "test accuracy", "r2": "test R²", "mae": "test MAE", "excess_risk": "excess risk"}


def _target_words(t: dict) -> str:
    rel = "≥" if t["direction"] == ">=" else "≤"
    return f"{_METRIC_NAMES.get(t['metric'], t['metric'])} {rel} {display.number(t['value'])}"


def _cap(text: str) -> str:
    """The first letter in capitals, the rest unchanged (``str.capitalize`` would write "Test r²")."""
    return text[:1].upper() + text[1:]


def _n(v: float) -> str:
    return display.integer(v, inf="more than the extrapolation reaches")


def _rows(v: float) -> str:
    return f"{display.integer(v)} rows"


def _best(rows: list[dict], key: str) -> tuple[dict | None, str]:
    """The row with the smallest finite ``key`` among the first status of :data:`_HEADLINE_STATUSES` that has
    one (a sampler that did not converge never counts), and that status (the first when none has one)."""
    for status in _HEADLINE_STATUSES:
        cands = [
            r
            for r in rows
            if r["status"] == status
            and r.get("sampler_status") != "not_converged"
            and math.isfinite(answer_number(r, key))
        ]
        if cands:
            return min(cands, key=lambda r: answer_number(r, key)), status
    return None, _HEADLINE_STATUSES[0]


def _warn_refuted(row: dict, text: str) -> str:
    """``text`` about a refuted method, prefixed as a warning (a refuted method is never quoted otherwise)."""
    return f"Warning, not private ({vocab.REFUTED}): {text}" if row.get("status") == vocab.REFUTED else text


def answer_sentences(answer: dict) -> list[str]:
    """One plain sentence per method: the smallest epsilon (or n), its 95% range, and the bound's answer;
    a method that could not be run says why, with no number."""
    if answer.get("solve_for") == "n":
        return [_warn_refuted(r, _sentence_n(r, answer)) for r in answer["methods"] if r.get("status") != "none"]
    return [_warn_refuted(r, _sentence_eps(r)) for r in answer["methods"] if "epsilon_measured" in r]


def _sentence_n(r: dict, answer: dict) -> str:
    eps_txt = display.epsilon(answer["epsilon_chosen"])
    nm = answer_number(r, "n_min")
    if math.isfinite(nm):
        src = "its bound" if r.get("n_min_source") == "bound" else "the model of the measured utility"
        txt = (
            f"{r['label']}: n ≈ {display.integer(nm)} rows at ε = {eps_txt} (95% range "
            f"{_n(answer_number(r, 'n_min_lo'))} to {_n(answer_number(r, 'n_min_hi'))}; "
            f"from {src}, {r.get('n_min_note', '')})"
        )
    else:
        txt = f"{r['label']}: {r.get('n_min_note', 'no answer')}"
    nb = answer_number(r, "n_bound")
    if r.get("n_min_source") != "bound" and math.isfinite(nb):
        txt += f"; the bound meets it from n = {display.integer(nb)} rows"
    elif r.get("n_min_source") != "bound" and math.isinf(nb):
        txt += f"; the bound: {r['n_note']}"
    return txt + "."


def _sentence_eps(r: dict) -> str:
    e = answer_number(r, "epsilon_measured")
    if math.isfinite(e):
        txt = (
            f"{r['label']}: ε ≈ {display.epsilon(e)} (95% range "
            f"{display.epsilon(answer_number(r, 'epsilon_measured_lo'), inf=BEYOND_GRID)} to "
            f"{display.epsilon(answer_number(r, 'epsilon_measured_hi'), inf=BEYOND_GRID)}; "
            f"{display.integer(r['n_trials'])} trials per point)"
        )
        if r.get("measured_note", "").startswith("at or below"):
            txt = f"{r['label']}: met already at the smallest ε tried ({display.epsilon(e)})"
    elif math.isinf(e):
        txt = f"{r['label']}: not reached on the grid"
    else:
        txt = f"{r['label']}: {r.get('measured_note', 'no measured curve')}"
    if r.get("sampler_status") == "not_converged":
        txt += " (not proved: the sampler did not converge, so these releases carry no privacy guarantee)"
    eb = answer_number(r, "epsilon_bound")
    if math.isfinite(eb):
        txt += f"; the theoretical bound guarantees it from ε = {display.epsilon(eb)}"
    elif math.isinf(eb):
        txt += "; the theoretical bound never guarantees it (ε ≤ 1000)"
    return txt + "."


def answer_table(answer: dict) -> pd.DataFrame:
    """The per-method answers as a table (for the page and the report)."""
    cols = (
        "label status sampler_status epsilon_measured epsilon_measured_lo epsilon_measured_hi epsilon_bound n_min "
        "n_min_lo n_min_hi n_min_source n_min_note n_bound n_note delta meets_delta n_trials measured_note "
        "bound_note mechanism"
    ).split()
    df = pd.DataFrame([{**r, **{k: answer_number(r, k) for k in _OUTCOME_OF if k in r}} for r in answer["methods"]])
    return df[[c for c in cols if c in df.columns]]


#: How the sentences and the table for people write an end of the 95% range past the ε grid.
BEYOND_GRID = "beyond the grid"


def answer_table_for_people(answer: dict) -> pd.DataFrame:
    """:func:`answer_table` formatted for people with :mod:`dp_core.display`: human headers and the
    same numbers, rounded the same way, as :func:`answer_sentences`."""

    eps_measured = functools.partial(display.epsilon, inf=display.NOT_REACHED)
    n_reached = functools.partial(display.integer, inf=display.NOT_REACHED)
    formats = {
        "epsilon_measured": eps_measured,
        "epsilon_measured_lo": eps_measured,
        "epsilon_measured_hi": lambda v: display.epsilon(v, inf=BEYOND_GRID),
        "epsilon_bound": lambda v: display.epsilon(v, inf="never (ε ≤ 1000)"),
        "n_bound": lambda v: display.integer(v, inf="never"),
        "n_min": n_reached,
        "n_min_lo": n_reached,
        "n_min_hi": _n,
        "delta": display.delta,
        "n_trials": display.integer,
    }
    headers = {
        "n_note": "smallest n (bound): note",
        "n_bound": "smallest n (bound)",
        "n_min": "smallest n",
        "n_min_lo": "smallest n: 95% low",
        "n_min_hi": "smallest n: 95% high",
        "n_min_source": "smallest n: from",
        "n_min_note": "smallest n: how",
        "meets_delta": "meets the δ target",
    }
    return display.table(answer_table(answer), formats=formats, headers=headers)
