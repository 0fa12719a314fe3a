"""The privacy budget card: what a chosen (epsilon, delta) means, what each mechanism reaches
there, and the status of each guarantee (:mod:`dp_core.status`).
"""

from __future__ import annotations

import math

import pandas as pd

from .. import display
from .. import status as vocab
from .._validation import check_delta, check_epsilon, check_int
from ..explain import posterior_bounds
from .engine import CompareResult, utility_at
from .registry import STATUS_LABELS, STATUSES

__all__ = ["plain_language", "budget_card", "noise_table", "headline", "private_summary"]


def plain_language(*, epsilon: float, delta: float, n: int | None = None) -> list[str]:
    """Sentences explaining (epsilon, delta) to a non-specialist.

    >>> plain_language(epsilon=math.log(3), delta=0.0)[1].startswith("Someone who thought")
    True
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    d = check_delta(delta, allow_zero=True)
    n = None if n is None else check_int("n", n, lo=1)
    lo, hi = (float(v) for v in posterior_bounds(0.5, epsilon=eps))
    f = math.exp(eps) if eps < 700 else math.inf
    out = [
        f"With ε = {display.epsilon(eps)}, adding or removing any one person changes the probability of every "
        f"possible result by a factor of at most e^ε ≈ {display.number(f)}.",
        f"Someone who thought a statement about one person was a coin flip (50%) can end up believing it at most "
        f"{display.percent(hi)} or at least {display.percent(lo)} after seeing the result, whatever else they know.",
    ]
    if d == 0:
        out.append("δ = 0: the guarantee holds always (pure ε-differential privacy).")
    else:
        one_in = 1.0 / d
        txt = (
            f"δ = {display.delta(d)}: the guarantee may fail with probability up to δ (about 1 in "
            f"{display.integer(one_in)}); "
            "mechanisms that claim pure ε-DP are not affected."
        )
        if n is not None:
            dn = d * n
            txt += f" With n = {display.integer(n)} people, δ·n = {display.number(dn, sig=2)}" + (
                ": too large, a mechanism could publish one person's record outright. Choose δ well below "
                f"1/n = {display.delta(1 / n)}."
                if dn >= 1
                else ", below 1 as it should be."
            )
        out.append(txt)
    return out


def noise_table(result: CompareResult, epsilon: float) -> pd.DataFrame:
    """The noise scales of every mechanism at ``epsilon`` (one row per method and quantity)."""
    from .registry import ADAPTERS

    eps = check_epsilon(epsilon, allow_inf=False)
    rows = []
    labels = {m["method"]: m["label"] for m in result.methods}
    for key, state in result.states.items():
        adapter = ADAPTERS[key]
        for r in adapter.noise(state, eps, result.spec):
            rows.append(
                {
                    "mechanism": adapter.title,
                    "method": labels.get(r["method"], r["method"]),
                    "quantity": r["quantity"],
                    "value": float(r["value"]),
                }
            )
    return pd.DataFrame(rows, columns=["mechanism", "method", "quantity", "value"])


def budget_card(result: CompareResult, *, epsilon: float, delta: float, n: int | None = None) -> dict:
    """The budget card's content: ``epsilon``, ``delta``, ``sentences``, ``utility`` (DataFrame), ``groups``, ``metric``
    (``docs/compare.md`` §"budget_card").
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    d = check_delta(delta, allow_zero=True)
    at = utility_at(result, eps)
    info = {m["method"]: m for m in result.methods}
    columns = ["method", "utility", "utility_lo", "utility_hi", "n_trials", "guarantee", "mechanism"]
    rows = []
    for _, r in at.iterrows():
        m = info.get(r["method"], {})
        row = {c: r[c] for c in columns[1:5]}
        guarantee = STATUS_LABELS.get(m.get("status", "none"), "")
        rows.append(
            {
                **row,
                "method": m.get("label", r["method"]),
                "guarantee": guarantee,
                "mechanism": m.get("mechanism", r["adapter"]),
            }
        )
    groups = {s: [] for s in STATUSES}
    for m in result.methods:
        extra = " (pure ε-DP)" if m["pure"] else ""
        extra += " (labels only)" if m["label_dp"] else ""
        item = {"label": m["label"] + extra, "statement": m["statement"], "mechanism": m["mechanism"]}
        groups[m["status"]].append({**item, "audit": m.get("audit", "")})
    return {
        "epsilon": eps,
        "delta": d,
        "metric": result.metric,
        "sentences": plain_language(epsilon=eps, delta=d, n=n),
        "utility": pd.DataFrame(rows, columns=columns),
        "groups": groups,
        "reference_utility": result.reference_utility if math.isfinite(result.reference_utility) else None,
    }


def private_summary(result: CompareResult) -> pd.DataFrame:
    """The rows of ``result.summary`` a headline or caption may quote: methods whose guarantee is not
    refuted and that claim privacy (:func:`dp_core.status.is_private`), at points with at least one
    successful trial."""
    s = result.summary
    if s is None or not len(s):
        return pd.DataFrame(columns=list(getattr(s, "columns", [])))
    private = {m["method"] for m in result.methods if vocab.is_private(m.get("status", vocab.NO_CLAIM))}
    return s[s["method"].isin(private) & (s["n_trials"].to_numpy(dtype=float) >= 1)]


#: Guarantee statuses under which a method counts as private for the headline numbers (never refuted).
VALID_STATUSES = tuple(s for s in vocab.STATUSES if vocab.is_private(s))


def headline(result: CompareResult, epsilon: float) -> dict:
    """The compare page's key numbers at ``epsilon``: the best measured private utility, the non-private one.

    Only methods whose guarantee is not refuted count; the best label-only method is reported beside the best,
    never instead. Keys returned: ``docs/compare.md`` §"budget.headline".
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    at = utility_at(result, eps)
    info = {m["method"]: m for m in result.methods}
    best: dict[bool, dict | None] = {False: None, True: None}
    for _, r in at.iterrows():
        u = float(r["utility"])
        if not math.isfinite(u):
            continue
        m = info.get(r["method"], {})
        if not vocab.is_private(m.get("status", vocab.NO_CLAIM)) or not float(r["n_trials"]) >= 1:
            continue
        labels_only = bool(m.get("label_dp", False))
        if best[labels_only] is None or u > best[labels_only]["utility"]:
            best[labels_only] = {
                "method": r["method"],
                "label": m.get("label", r["method"]),
                "utility": u,
                "utility_lo": float(r["utility_lo"]),
                "utility_hi": float(r["utility_hi"]),
                "audit": m.get("audit", "") or "",
                "status": m.get("status", "none"),
                "statement": m.get("statement", ""),
            }
    ref = float(result.reference_utility)
    top = best[False]
    gap = ref - top["utility"] if top is not None and math.isfinite(ref) else math.nan
    return {
        "metric": result.metric,
        "epsilon": eps,
        "best": top,
        "best_labels_only": best[True],
        "reference": ref,
        "gap": gap,
    }
