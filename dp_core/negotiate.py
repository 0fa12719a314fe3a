"""Negotiate a privacy budget: the smallest epsilon (or k) that meets a stakeholder's target.

A target is ``METRIC=VALUE``: ``accuracy=0.9`` (test accuracy at least 0.9, classification),
``r2=0.3`` (test R^2 at least 0.3, regression), ``excess_risk=0.01`` (excess risk at most 0.01)
or ``delta=1e-6`` (delta at most 1e-6). Explicit comparisons (``accuracy>=0.9``,
``excess_risk<=0.01``) are accepted when they agree with the metric's direction.

For every method of every applicable mechanism, :func:`negotiate` reports

* the smallest epsilon on the **measured** curve (Monte-Carlo means on a log grid, interpolated
  in log epsilon) together with the range where the 95% band crosses the target, and
* the smallest epsilon from the **theoretical bound** (excess-risk targets; the bound is
  monotone in epsilon and solved on a fine log grid, rounded up to the safe side).

A ``delta`` target sets the delta every (epsilon, delta) mechanism is calibrated at (pure
epsilon-DP methods meet any delta target); for label-DP by aggregation it also gives the
smallest bag size k reaching (epsilon, delta) at the chosen epsilon.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import display
from ._validation import check_delta, check_epsilon, check_int, check_real
from .calibration import solve_monotone
from .compare import ADAPTERS, CompareResult, default_epsilons, make_spec, run_compare
from .compare.registry import utility_metric_name
from .data import Dataset
from .exceptions import PrivacyLeakWarning

__all__ = [
    "METRICS",
    "Target",
    "parse_target",
    "negotiate",
    "crossing",
    "smallest_n",
    "answer_table",
    "answer_table_for_people",
    "answer_sentences",
]

#: metric -> (direction, description)
METRICS = {
    "accuracy": (">=", "test accuracy (classification)"),
    "r2": (">=", "test R² (regression)"),
    "excess_risk": ("<=", "excess risk of the mechanism's own training objective"),
    "delta": ("<=", "the failure probability δ"),
}

_TARGET_RE = re.compile(r"^\s*([A-Za-z_0-9]+)\s*(>=|<=|=)\s*([^\s]+)\s*$")


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
    if metric == "delta":
        check_delta(value, name="target delta")
        if value >= 1:
            raise ValueError(f"target delta must be in (0, 1), got {value:g}.")
    elif metric == "accuracy" and not 0.0 <= value <= 1.0:
        raise ValueError(f"target accuracy must be in [0, 1], got {value:g}.")
    elif metric == "r2" and not value <= 1.0:
        raise ValueError(f"target r2 must be at most 1, got {value:g}.")
    elif metric == "excess_risk" and not value > 0:
        raise ValueError(f"target excess_risk must be in (0, inf), got {value:g}.")
    return Target(metric, value, direction)


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


def _bound_crossing(adapter, state, method: str, spec, target: Target, grid: np.ndarray) -> tuple[float, str]:
    b = adapter.bounds(state, list(grid), spec)
    if b is None or not len(b):
        return math.nan, "no bound for this mechanism"
    b = b[b["method"] == method]
    if not len(b):
        return math.nan, "no bound for this method"
    out = []
    for lab, g in b.groupby("label", sort=False):
        g = g.sort_values("epsilon")
        e, note = crossing(g["epsilon"].to_numpy(), g["bound"].to_numpy(), target)
        if note == "interpolated":
            # safe side: the first grid epsilon at which the bound is met
            vals = g["bound"].to_numpy(dtype=float)
            eg = g["epsilon"].to_numpy(dtype=float)
            idx = np.nonzero(eg >= e * (1 - 1e-12))[0]
            first_ok = [i for i in idx if target.met(vals[i])]
            e = float(eg[first_ok[0]]) if first_ok else e
            note = f"{lab} (rounded up to a grid of {len(grid)} log-spaced ε)"
        else:
            note = f"{lab}: {note}"
        out.append((e, note))
    return min(out, key=lambda t: (math.isnan(t[0]), t[0]))


def smallest_n(
    adapter, state, method: str, *, epsilon: float, spec, target: Target, n_max: float = 1e9
) -> tuple[float, str]:
    """Smallest number of rows at which ``method``'s excess-risk bound meets ``target`` at ``epsilon``.

    The bound is evaluated on 161 log-spaced n from 10 to ``n_max``; the answer is the start of the
    tail of grid points that all meet the target, refined by integer bisection below it (the bound
    is non-increasing in n there). ``inf`` when even ``n_max`` rows do not suffice, ``nan`` when the
    method has no bound.
    """
    grid = np.unique(np.ceil(np.geomspace(10, n_max, 161)))
    vals = np.array([adapter.bound_at(state, method, epsilon=epsilon, n=float(n), spec=spec) for n in grid])
    if np.all(np.isnan(vals)):
        return math.nan, "no bound for this method"
    ok = np.array([math.isfinite(v) and target.met(v) for v in vals])
    if not ok[-1]:
        return math.inf, f"not met for n ≤ {n_max:.0e}"
    j = len(ok) - 1
    while j > 0 and ok[j - 1]:
        j -= 1
    if j == 0:
        return float(grid[0]), f"met already at n = {int(grid[0])}"

    def met(n: int) -> float:  # 0/1 indicator, non-decreasing in n on this bracket
        v = adapter.bound_at(state, method, epsilon=epsilon, n=float(n), spec=spec)
        return 1.0 if math.isfinite(v) and target.met(v) else 0.0

    hi = solve_monotone(
        met, 1.0, lo=int(grid[j - 1]), hi=int(grid[j]), increasing=True, safe="upper", integer=True, what="n"
    )
    return float(hi), "smallest n (bound, integer bisection)"


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
    k: int = 64,
    m: int = 100,
    rho: float = 0.1,
    progress: Callable[[int, int], None] | None = None,
    result: CompareResult | None = None,
    solve_for: str = "epsilon",
) -> dict:
    """Answer targets for every applicable mechanism on ``ds``.

    Parameters
    ----------
    ds : Dataset
    targets : sequence of Target or str
        At most one utility/excess-risk target and at most one delta target.
    epsilon : float
        The chosen epsilon (used for the label-DP k answer and reported back).
    delta : float
        delta of the (epsilon, delta) mechanisms when no delta target is given.
    mechanisms : sequence of str, optional
        Adapter keys (default: every applicable one).
    n_trials, seed : int
        Monte-Carlo trials per grid point (each mechanism caps it) and root seed.
    eps_min, eps_max, n_points : float, float, int
        The log grid of the measured curves.
    result : CompareResult, optional
        Reuse an existing comparison (its spec must match) instead of running one.
    solve_for : {"epsilon", "n"}
        ``"n"``: with an excess-risk target, the smallest number of rows at which each method's
        bound meets it at the chosen ``epsilon`` (from the bound only; nothing is simulated).

    Returns
    -------
    dict
        JSON-ready: ``dataset``, ``task``, ``targets``, ``delta_used``, ``grid``, ``methods``
        (one entry per method, see the module docstring), ``k_answers``, ``notes``.
    """
    parsed = [parse_target(t) if isinstance(t, str) else t for t in targets]
    if not parsed:
        raise ValueError("targets must contain at least one target like 'accuracy=0.9', got none.")
    for t in parsed:
        if not isinstance(t, Target):
            raise TypeError(f"targets must be strings or Target objects, got {type(t).__name__}.")
    util_t = [t for t in parsed if t.metric != "delta"]
    delta_t = [t for t in parsed if t.metric == "delta"]
    if len(util_t) > 1 or len(delta_t) > 1:
        raise ValueError(
            "give at most one utility or excess-risk target and at most one delta target, got "
            f"{[t.text for t in parsed]}."
        )
    metric = utility_metric_name(ds.task)
    if util_t and util_t[0].metric in ("accuracy", "r2") and util_t[0].metric != metric:
        raise ValueError(
            f"target {util_t[0].metric!r} does not fit the {ds.task} task of dataset {ds.name!r}; "
            f"use {metric!r} or 'excess_risk'."
        )
    if solve_for not in ("epsilon", "n"):
        raise ValueError(f"solve_for must be 'epsilon' or 'n', got {solve_for!r}.")
    if solve_for == "n" and not (util_t and util_t[0].metric == "excess_risk"):
        raise ValueError(
            "solve_for='n' needs an excess_risk target (the bounds are on the excess risk), got "
            f"{[t.text for t in parsed]}."
        )
    eps_chosen = check_epsilon(epsilon, allow_inf=False)
    delta_used = delta_t[0].value if delta_t else check_delta(delta)
    n_trials = check_int("n_trials", n_trials, lo=1, hi=100_000)
    grid = default_epsilons(eps_min, eps_max, n_points)
    spec = make_spec(epsilons=grid, delta=delta_used, n_trials=n_trials, seed=seed, k=k, m=m, rho=rho)
    if util_t and solve_for == "epsilon":
        if result is None or result.spec != spec:
            result = run_compare(ds, spec, mechanisms=mechanisms, progress=progress)
    elif result is None or (result.spec.delta, result.spec.seed, result.spec.k, result.spec.m, result.spec.rho) != (
        delta_used,
        seed,
        k,
        m,
        rho,
    ):
        # delta-only or n negotiation: no Monte-Carlo needed, just the prepared states
        result = run_compare(
            ds,
            make_spec(epsilons=(eps_chosen,), delta=delta_used, n_trials=1, seed=seed, k=k, m=m, rho=rho),
            mechanisms=mechanisms,
        )
    rows = []
    fine = np.geomspace(1e-3, 1e3, 241)
    for mi in result.methods:
        adapter = ADAPTERS[mi["adapter"]]
        state = result.states[mi["adapter"]]
        row = {
            "mechanism": mi["mechanism"],
            "adapter": mi["adapter"],
            "method": mi["method"],
            "label": mi["label"],
            "status": mi["status"],
            "pure": mi["pure"],
            "label_dp": mi["label_dp"],
            "delta": 0.0 if mi["pure"] else delta_used,
        }
        if "sampler_status" in mi:  # approximate samplers: never counted as a certified answer unless converged
            row["sampler_status"] = mi["sampler_status"]
            row["sampler_diagnostics"] = mi.get("sampler_diagnostics", [])
        if delta_t:
            row["meets_delta"] = bool(mi["pure"] or delta_used <= delta_t[0].value)
        if util_t and solve_for == "n":
            if mi["status"] == "none":
                row.update({"n_bound": math.nan, "n_note": "no privacy claim"})
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PrivacyLeakWarning)
                    nb, nnote = smallest_n(
                        adapter, state, mi["method"], epsilon=eps_chosen, spec=result.spec, target=util_t[0]
                    )
                row.update({"n_bound": nb, "n_note": nnote})
        elif util_t:
            t = util_t[0]
            summ = result.summary
            s = summ[(summ["adapter"] == mi["adapter"]) & (summ["method"] == mi["method"])]
            if len(s) >= 2:
                col = "utility" if t.metric != "excess_risk" else "excess_risk"
                e_mid, note = crossing(s["epsilon"], s[f"{col}_mean"], t)
                opt, pes = (f"{col}_hi", f"{col}_lo") if t.direction == ">=" else (f"{col}_lo", f"{col}_hi")
                e_lo, _ = crossing(s["epsilon"], s[opt], t)
                e_hi, _ = crossing(s["epsilon"], s[pes], t)
                row.update(
                    {
                        "epsilon_measured": e_mid,
                        "epsilon_measured_lo": min(e_lo, e_mid),
                        "epsilon_measured_hi": max(e_hi, e_mid),
                        "measured_note": note,
                        "n_trials": int(s["n_trials"].min()),
                    }
                )
            elif len(s) == 1:
                r = s.iloc[0]
                col = "utility" if t.metric != "excess_risk" else "excess_risk"
                row.update(
                    {
                        "epsilon_measured": math.nan,
                        "measured_note": f"measured at its accounted ε = {r['epsilon']:.3g} only: "
                        f"{col} = {r[f'{col}_mean']:.3g} ({'meets' if t.met(r[f'{col}_mean']) else 'misses'} "
                        "the target)",
                        "n_trials": int(r["n_trials"]),
                    }
                )
            else:
                row.update({"epsilon_measured": math.nan, "measured_note": "no measured curve"})
            if t.metric == "excess_risk" and mi["status"] != "none":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PrivacyLeakWarning)
                    eb, bnote = _bound_crossing(adapter, state, mi["method"], result.spec, t, fine)
                row.update({"epsilon_bound": eb, "bound_note": bnote})
            else:
                row.update(
                    {
                        "epsilon_bound": math.nan,
                        "bound_note": "bounds are on the excess risk; state an excess-risk target to use them"
                        if t.metric != "excess_risk"
                        else "no privacy claim",
                    }
                )
        rows.append(row)
    k_answers = []
    for key, state in result.states.items():
        hook = getattr(ADAPTERS[key], "negotiate_k", None)
        if hook is not None:
            k_answers.extend(hook(state, epsilon=eps_chosen, delta=delta_used, spec=result.spec))
    return {
        "dataset": ds.name,
        "task": ds.task,
        "n": ds.n,
        "fingerprint": ds.fingerprint,
        "targets": [t.as_dict() for t in parsed],
        "epsilon_chosen": eps_chosen,
        "delta_used": delta_used,
        "grid": list(grid) if util_t and solve_for == "epsilon" else [],
        "seed": seed,
        "solve_for": solve_for,
        "n_current": ds.n,
        "methods": rows,
        "k_answers": k_answers,
        "skipped": dict(result.skipped),
        "notes": [
            "Smallest ε (measured): where the mean curve meets the target (interpolated in log ε); "
            "95% band, low / high: where the band's optimistic / pessimistic edge meets it.",
            "Smallest ε (bound): the smallest ε on a fine log grid at which the theoretical bound meets the "
            "target (rounded up); never = not met for ε ≤ 1000.",
        ],
        "target": (util_t or delta_t)[0].as_dict(),
    }


def answer_sentences(answer: dict) -> list[str]:
    """One plain sentence per method: the smallest epsilon, its 95% range, and the bound's answer."""
    out = []
    if answer.get("solve_for") == "n":
        for r in answer["methods"]:
            nb = r.get("n_bound", math.nan)
            if isinstance(nb, float) and math.isfinite(nb):
                out.append(
                    f"{r['label']}: the bound meets it from n = {display.integer(nb)} rows at ε = "
                    f"{display.epsilon(answer['epsilon_chosen'])} (this dataset has "
                    f"{display.integer(answer['n_current'])})."
                )
            elif isinstance(nb, float) and math.isinf(nb):
                out.append(f"{r['label']}: {r['n_note']}.")
        return out
    for r in answer["methods"]:
        e = r.get("epsilon_measured", math.nan)
        if "epsilon_measured" not in r:
            continue
        if isinstance(e, float) and math.isfinite(e):
            hi = r["epsilon_measured_hi"]
            hi_txt = display.epsilon(hi, inf=BEYOND_GRID)
            txt = (
                f"{r['label']}: ε ≈ {display.epsilon(e)} (95% range "
                f"{display.epsilon(r['epsilon_measured_lo'], inf=BEYOND_GRID)} to {hi_txt}; "
                f"{display.integer(r['n_trials'])} trials)"
            )
            if r.get("measured_note", "").startswith("at or below"):
                txt = f"{r['label']}: met already at the smallest ε tried ({display.epsilon(e)})"
        elif isinstance(e, float) and math.isinf(e):
            txt = f"{r['label']}: not reached on the grid"
        else:
            txt = f"{r['label']}: {r.get('measured_note', 'no measured curve')}"
        if r.get("sampler_status") == "not_converged":
            txt += " (not certified: the sampler did not converge, so these releases carry no privacy guarantee)"
        eb = r.get("epsilon_bound", math.nan)
        if isinstance(eb, float) and math.isfinite(eb):
            txt += f"; the theoretical bound guarantees it from ε = {display.epsilon(eb)}"
        elif isinstance(eb, float) and math.isinf(eb):
            txt += "; the theoretical bound never guarantees it (ε ≤ 1000)"
        out.append(txt + ".")
    return out


def answer_table(answer: dict) -> pd.DataFrame:
    """The per-method answers as a table (for the page and the report)."""
    cols = [
        "label",
        "status",
        "sampler_status",
        "epsilon_measured",
        "epsilon_measured_lo",
        "epsilon_measured_hi",
        "epsilon_bound",
        "n_bound",
        "n_note",
        "delta",
        "meets_delta",
        "n_trials",
        "measured_note",
        "bound_note",
        "mechanism",
    ]
    df = pd.DataFrame(answer["methods"])
    return df[[c for c in cols if c in df.columns]]


#: How the sentences and the table for people write an end of the 95% range past the ε grid.
BEYOND_GRID = "beyond the grid"


def answer_table_for_people(answer: dict) -> pd.DataFrame:
    """:func:`answer_table` formatted for people with :mod:`dp_core.display`: human headers and the
    same numbers, rounded the same way, as :func:`answer_sentences`."""

    def eps_measured(v):
        return display.epsilon(v, inf=display.NOT_REACHED)

    formats = {
        "epsilon_measured": eps_measured,
        "epsilon_measured_lo": eps_measured,
        "epsilon_measured_hi": lambda v: display.epsilon(v, inf=BEYOND_GRID),
        "epsilon_bound": lambda v: display.epsilon(v, inf="never (ε ≤ 1000)"),
        "n_bound": lambda v: display.integer(v, inf="never"),
        "delta": display.delta,
        "n_trials": display.integer,
    }
    headers = {"n_note": "smallest n: note", "meets_delta": "meets the δ target"}
    return display.table(answer_table(answer), formats=formats, headers=headers)
