"""The small computations of the guided tour ("Start here"): a noisy count and noise scales against ε (pure).

The Laplace scale b = Δ₁/ε (Dwork and Roth 2014, Theorem 3.6); the analytic Gaussian σ (Balle and Wang,
ICML 2018, Theorem 8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from . import calibration, display
from ._validation import check_choice, check_count, check_epsilon, check_in_interval, check_seed
from .audit.table import row_status
from .rng import as_generator
from .status import REFUTED  # a method whose guarantee an audit showed false is never named the best

__all__ = [
    "GUESS_TOLERANCE",
    "accuracy_story",
    "audit_story",
    "best_method",
    "coin_game",
    "coin_story",
    "guess_groups",
    "guessing_score",
    "noise_scale_table",
    "noise_story",
    "noisy_counts",
    "tradeoff_story",
]


def noisy_counts(true_count: int, *, epsilon: float, n_draws: int = 5, seed: int = 0) -> dict:
    """``n_draws`` releases of a count (sensitivity 1) with Laplace noise at ``epsilon`` [Dwork & Roth 2014,
    Theorem 3.6]: ``docs/tour.md`` §"Formulas of dp_core/explain.py and dp_core/tour.py"."""
    true_count = check_count("true_count", true_count, lo=0, hi=10**12)
    n_draws = check_count("n_draws", n_draws, lo=1, hi=10_000)
    seed = check_seed(seed)
    b = calibration.laplace_scale(epsilon=epsilon, sensitivity=1.0)
    g = as_generator(seed)
    released = true_count + g.laplace(0.0, b, size=n_draws)
    return {"true": true_count, "scale": b, "released": released, "typical_error": b}


def coin_game(n: int, share: float, *, seed: int = 0) -> dict:
    """Randomized response in a class of ``n``: each flips a fair coin, heads answers truthfully, tails
    flips again and answers yes on heads (Warner 1965; Dwork & Roth 2014, §3.2).

    A true yes is answered yes with probability 3/4, a true no with 1/4: ε = ln 3. The estimate of the
    share of true yes is 2·q − 1/2 from the share q of yes answers; its standard error 2·√(λ(1 − λ)/n),
    λ = share/2 + 1/4. Returns ``n``, ``truth`` (true yes), ``yes`` (answers yes), ``estimate``,
    ``std_error``, ``epsilon``, ``share``. Same seed, same class.
    """
    n = check_count("n", n, lo=1, hi=1_000_000)
    share = check_in_interval("share", share, 0.0, 1.0)
    g = as_generator(check_seed(seed))
    truth = g.random(n) < share
    heads = g.random(n) < 0.5
    second = g.random(n) < 0.5
    answers = np.where(heads, truth, second)
    lam = share / 2 + 0.25
    return {
        "n": n,
        "share": share,
        "truth": int(truth.sum()),
        "yes": int(answers.sum()),
        "estimate": 2 * float(answers.mean()) - 0.5,
        "std_error": 2 * float(np.sqrt(lam * (1 - lam) / n)),
        "epsilon": float(np.log(3.0)),
    }


def coin_story(game: dict) -> list[str]:
    """The coin game's sentences (computed from :func:`coin_game`)."""
    n, est, se = game["n"], game["estimate"], game["std_error"]
    return [
        f"Of {display.integer(n)} students, {display.integer(game['truth'])} would truly answer yes; "
        f"{display.integer(game['yes'])} said yes after the coin.",
        f"Estimated share of true yes: 2 × {display.percent(game['yes'] / n)} − 50 % = {display.percent(est)} "
        f"(true: {display.percent(game['truth'] / n)}); the coin's noise is about ± {display.percent(se)} "
        "(one standard error), and shrinks like 1/√n as the class grows.",
        "Why ε = ln 3: a student whose true answer is yes says yes with probability 1/2 + 1/4 = 3/4, one whose "
        "answer is no says yes with probability 1/4. Whatever the answer, it is at most 3 times as likely for "
        f"one truth as for the other: e^ε = 3, ε = ln 3 = {display.number(game['epsilon'])}. No one can be sure "
        "of any single student's truth.",
    ]


def noise_scale_table(epsilons: Sequence[float], *, delta: float, sensitivity: float = 1.0) -> pd.DataFrame:
    """Noise scales of one query against ε (tidy: ``method``, ``epsilon``, ``scale``).

    Methods: ``laplace`` (b = Δ₁/ε, pure ε-DP) and ``gaussian`` (analytic σ at ``delta``,
    Balle & Wang 2018, Theorem 8). Both fall as ε grows; the Laplace scale exactly like 1/ε.
    """
    eps = [float(e) for e in epsilons]
    if not eps:
        raise ValueError("epsilons must contain at least one value (ε > 0).")
    rows = []
    for e in eps:
        b = calibration.laplace_scale(epsilon=e, sensitivity=sensitivity)
        sigma = calibration.gaussian_sigma_analytic(epsilon=e, delta=delta, sensitivity=sensitivity)
        rows += [{"method": "laplace", "epsilon": e, "scale": b}, {"method": "gaussian", "epsilon": e, "scale": sigma}]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ sentences computed from the step's data
#: How far (in the metric's units: 0.05 = 5 percentage points of accuracy, or 0.05 of R²) a measured value
#: may lie from the guessing score and still be called "close to guessing".
GUESS_TOLERANCE = 0.05


def guessing_score(y: np.ndarray, task: str) -> float:
    """What a model that ignores the features scores: the majority-class share (classification accuracy)
    or 0 (regression R², predicting the mean).
    """
    task = check_choice("task", task, ("binary", "multiclass", "regression"))
    if task == "regression":
        return 0.0
    y = np.asarray(y)
    if y.size == 0:
        raise ValueError("y must hold at least one label (got an empty array).")
    _, counts = np.unique(y, return_counts=True)
    return float(counts.max() / y.size)


def _metric_words(metric: str) -> tuple[str, str, Callable[[float], str]]:
    """(name of the metric, what guessing means, formatter) for ``metric`` ``accuracy`` or ``r2``."""
    if metric == "accuracy":
        return "accuracy", "guessing the majority class", lambda v: display.percent(v)
    return "R²", "predicting the mean", lambda v: display.number(v)


def _points_at(summary: pd.DataFrame, methods: Sequence[dict], epsilon: float) -> pd.DataFrame:
    """Per method measured at ``epsilon``: label, value, refuted; methods without a successful run are dropped."""
    info = {m["method"]: m for m in methods}
    at = summary[np.isclose(summary["epsilon"].to_numpy(float), epsilon)]
    at = at[(at["n_trials"] > 0) & np.isfinite(at["utility_mean"].to_numpy(float))]
    return pd.DataFrame(
        {
            "method": at["method"].to_numpy(),
            "label": [info.get(m, {}).get("label", m) for m in at["method"]],
            "value": at["utility_mean"].to_numpy(float),
            "refuted": [info.get(m, {}).get("status") == REFUTED for m in at["method"]],
        }
    )


def best_method(summary: pd.DataFrame, methods: Sequence[dict], epsilon: float) -> dict | None:
    """The highest mean utility at ``epsilon`` among the methods whose status is not refuted and that have at
    least one successful run: ``{"value", "labels"}`` (every method reaching that value, in table order), or
    ``None``."""
    pts = _points_at(summary, methods, epsilon)
    pts = pts[~pts["refuted"]]
    if pts.empty:
        return None
    top = float(pts["value"].max())
    return {"value": top, "labels": [str(x) for x in pts.loc[pts["value"] >= top, "label"]]}


def guess_groups(
    summary: pd.DataFrame, methods: Sequence[dict], epsilon: float, guess: float, tolerance: float = GUESS_TOLERANCE
) -> dict[str, list[tuple[str, float]]]:
    """Methods at ``epsilon`` grouped by their mean utility against ``guess``: ``"above"`` (more than
    ``tolerance`` above), ``"close"`` (within ``tolerance``), ``"below"``; refuted methods are left out."""
    tolerance = check_in_interval("tolerance", tolerance, 0.0, 1.0, closed="right")
    pts = _points_at(summary, methods, epsilon)
    pts = pts[~pts["refuted"]].sort_values("value", ascending=False, kind="stable")
    out: dict[str, list[tuple[str, float]]] = {"above": [], "close": [], "below": []}
    for label, v in zip(pts["label"], pts["value"]):
        side = "close" if abs(v - guess) <= tolerance else ("above" if v > guess else "below")
        out[side].append((str(label), float(v)))
    return out


def accuracy_story(
    summary: pd.DataFrame, methods: Sequence[dict], *, metric: str, guess: float, tolerance: float = GUESS_TOLERANCE
) -> str:
    """The tour's step-3 sentences from the chart's ``summary`` and ``methods`` tables: the best non-refuted
    method at the largest ε; at the smallest, which are above, within ``tolerance`` of, or below ``guess``.
    """
    name, guess_words, fmt = _metric_words(metric)
    eps = sorted(set(summary["epsilon"].astype(float)))
    if not eps:
        raise ValueError("summary must hold at least one ε (got an empty table).")
    lo, hi = eps[0], eps[-1]
    parts = []
    best = best_method(summary, methods, hi)
    if best is not None:
        parts.append(
            f"At ε = {display.epsilon(hi)} the best {name} among the mechanisms whose guarantee is not refuted "
            f"is **{fmt(best['value'])}**, reached by {' and '.join(best['labels'])}."
        )
    tol = display.percent(tolerance) if metric == "accuracy" else display.number(tolerance)
    groups = guess_groups(summary, methods, lo, guess, tolerance)
    words = {"above": "above it", "close": f"close to it (within {tol})", "below": "below it"}
    clauses = [
        f"{words[k]}: " + ", ".join(f"{label} at {fmt(v)}" for label, v in groups[k]) for k in words if groups[k]
    ]
    if clauses:
        parts.append(f"At ε = {display.epsilon(lo)}, {guess_words} scores {fmt(guess)}; " + "; ".join(clauses) + ".")
    parts.extend(_not_counted(summary, methods, lo))
    return " ".join(parts)


def _not_counted(summary: pd.DataFrame, methods: Sequence[dict], epsilon: float) -> list[str]:
    """Sentences naming the refuted methods and those without a successful run at ``epsilon``."""
    refuted = [m["label"] for m in methods if m.get("status") == REFUTED and m["method"] in set(summary["method"])]
    measured = set(_points_at(summary, methods, epsilon)["method"])
    empty = [
        m["label"]
        for m in methods
        if m["method"] in set(summary["method"]) and m["method"] not in measured and m.get("status") != REFUTED
    ]
    out = []
    if refuted:
        out.append("Not counted, their guarantee is refuted: " + ", ".join(refuted) + ".")
    if empty:
        out.append(f"No successful run at ε = {display.epsilon(epsilon)}: " + ", ".join(empty) + ".")
    return out


def _change(name: str, v0: float, v1: float, fmt: Callable[[float], str]) -> str:
    """``"name grows from a to b"`` / ``falls`` / ``stays at a``, the verb read off the two values."""
    a, b = fmt(v0), fmt(v1)
    if a == b:
        return f"{name} stays at {a}"
    return f"{name} {'grows' if v1 > v0 else 'falls'} from {a} to {b}"


def noise_story(table: pd.DataFrame, epsilon: float) -> str:
    """The tour's step-2 sentences, from the chart's table (:func:`noise_scale_table`) at the marked ``epsilon``:
    how each scale changes across the chart's ε range and the ratio σ / b at ``epsilon``."""
    epsilon = check_epsilon(epsilon, allow_inf=False)
    lap = table[table["method"] == "laplace"].sort_values("epsilon")
    gau = table[table["method"] == "gaussian"].sort_values("epsilon")
    if lap.empty or gau.empty:
        raise ValueError("table must hold the methods 'laplace' and 'gaussian' (from noise_scale_table).")
    lo, hi = float(lap["epsilon"].iloc[0]), float(lap["epsilon"].iloc[-1])
    first = (
        f"From ε = {display.epsilon(lo)} to ε = {display.epsilon(hi)}, "
        + _change("the Laplace scale b", lap["scale"].iloc[0], lap["scale"].iloc[-1], display.number)
        + " and "
        + _change("the Gaussian σ", gau["scale"].iloc[0], gau["scale"].iloc[-1], display.number)
        + "."
    )
    at = np.isclose(lap["epsilon"].to_numpy(float), epsilon)
    if not at.any():  # the marked ε is not a point of the chart: no ratio read off it
        return first
    b = float(lap["scale"].to_numpy(float)[at][0])
    s = float(gau.loc[np.isclose(gau["epsilon"].to_numpy(float), epsilon), "scale"].iloc[0])
    return first + f" At ε = {display.epsilon(epsilon)} the Gaussian σ is {display.number(s / b)} times the Laplace b."


def tradeoff_story(trade: pd.DataFrame) -> str:
    """The tour's step-4 sentence, from the α trade-off table (``alpha``, ``central_epsilon``,
    ``local_epsilon_exact``, ``sigma_b``): how each column changes from the smallest to the largest α."""
    t = trade.sort_values("alpha")
    if len(t) < 2:
        raise ValueError(f"trade must hold at least two values of α, got {len(t)}.")
    a, z = t.iloc[0], t.iloc[-1]
    return (
        f"From α = {display.number(a['alpha'])} to α = {display.number(z['alpha'])}, "
        + _change("the central ε", a["central_epsilon"], z["central_epsilon"], display.number)
        + ", "
        + _change("one contributor's local ε", a["local_epsilon_exact"], z["local_epsilon_exact"], display.number)
        + " and "
        + _change("σ_b", a["sigma_b"], z["sigma_b"], display.number)
        + "."
    )


def audit_story(row: dict, title: str) -> str:
    """One sentence from a stored audit row (:func:`dp_core.audit.table.audit_row`): the measured lower
    bound on ε against the claimed ε, whether it lies above the claim, and the row's status."""
    lower, claimed = float(row["eps_lower"]), float(row["eps_claimed"])
    side = "above" if lower > claimed else "not above"
    return (
        f"{title}: the audit measured ε ≥ {display.number(lower)} ({display.percent(row['confidence'])} "
        f"confidence, {display.integer(row['runs'])} runs) against the claimed ε = {display.epsilon(claimed)}, "
        f"{side} the claim; status: {row_status(row)}."
    )
