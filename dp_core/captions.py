"""Caption sentences of the mechanism pages, each computed from the table its chart draws, so that a caption
cannot contradict its chart (pure; numbers through :mod:`dp_core.display`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import display

__all__ = ["bags_needed_story", "delta_k_story", "leak_story", "tightness_story"]


def _span(lo: float, hi: float, fmt) -> str:
    a, b = fmt(lo), fmt(hi)
    return a if a == b else f"{a}–{b}"


def tightness_story(tight: pd.DataFrame, labels: Mapping[str, str]) -> str:
    """How far the mean pathwise bound sits above the measured mean excess, per mode, from the tightness table
    (``method``, ``epsilon``, ``bound_over_measured``; ``large_margin_gaussian.experiments.bound_tightness``).
    """
    t = tight[np.isfinite(tight["bound_over_measured"].to_numpy(float))]
    if t.empty:
        return "No mode has a finite pathwise bound and a positive measured excess here: no ratio to show."
    parts = []
    for method, g in t.groupby("method", sort=False):
        r = g["bound_over_measured"].to_numpy(float)
        span = _span(r.min(), r.max(), lambda v: display.number(v, sig=2))
        parts.append(f"{span} times the measured mean excess for {labels.get(method, method)} ({len(g)} values of ε)")
    return "Here the mean pathwise bound is " + "; ".join(parts) + "."


def leak_story(summary: pd.DataFrame, labels: Mapping[str, str], broken: tuple[str, ...]) -> str:
    """At the smallest ε of the accuracy table (``method``, ``epsilon``, ``accuracy_mean``, ``n_trials``):
    each mode's accuracy next to the non-private one, and whether the modes in ``broken`` (not private as
    printed) score closer to the non-private fit than the others do."""
    s = summary[(summary["n_trials"] > 0) & np.isfinite(summary["accuracy_mean"].to_numpy(float))]
    if s.empty:
        return "No mode has a successful run here."
    eps = float(s.loc[s["method"] != "nonprivate", "epsilon"].min())
    at = s[np.isclose(s["epsilon"], eps)].set_index("method")["accuracy_mean"]
    nonpriv = s.loc[s["method"] == "nonprivate", "accuracy_mean"]
    modes = [m for m in labels if m in at.index]
    listed = ", ".join(f"{labels[m]} {display.percent(at[m])}" for m in modes)
    text = f"At the smallest ε here ({display.epsilon(eps)}): {listed}"
    missing = [labels[m] for m in labels if m not in at.index and m in set(summary["method"])]
    if missing:
        text += f" ({' and '.join(missing)}: no successful run at this ε)"
    if nonpriv.empty:
        return text + "."
    ref = float(nonpriv.iloc[0])
    text += f"; without privacy {display.percent(ref)}."
    bad = [m for m in modes if m in broken]
    good = [m for m in modes if m not in broken]
    if bad and good:
        closer = max(abs(at[m] - ref) for m in bad) < min(abs(at[m] - ref) for m in good)
        names, others = " and ".join(labels[m] for m in bad), " and ".join(labels[m] for m in good)
        verb = ("stay", "do") if len(bad) > 1 else ("stays", "does")
        text += (
            f" {names} {verb[0]} closer to the non-private accuracy than {others}: that is the leak, not a good "
            "mechanism."
            if closer
            else f" Here {names} {verb[1]} not stay closer to the non-private accuracy than {others}."
        )
    return text


def delta_k_story(table: pd.DataFrame, *, n: int, m: int, target_delta: float, labels: Mapping[str, str]) -> str:
    """From the δ-against-k table (``epsilon``, ``k``, ``accounting``, ``delta``) at its largest ε: the bag size
    each explicit accounting in ``labels`` needs for δ ≤ ``target_delta``, against the largest feasible
    k = ⌊n/m⌋, and the smallest δ the exact accounting reaches at feasible k."""
    if table.empty:
        return "No accounting could be plotted at this setting."
    eps = float(table["epsilon"].max())
    at = table[np.isclose(table["epsilon"], eps)]
    k_max = max(1, int(n) // int(m))
    parts = []
    for acc, label in labels.items():
        g = at[at["accounting"] == acc]
        if g.empty:
            continue
        ok = g.loc[g["delta"] <= target_delta, "k"]  # the smallest plotted k with δ ≤ target_delta
        k = float(ok.min()) if len(ok) else float("nan")
        parts.append(
            f"k ≥ {display.number(k, sig=2)} ({label}; {display.number(k / k_max, sig=2)} times the largest feasible k)"
            if np.isfinite(k)
            else f"a k beyond the plotted range (up to {display.number(g['k'].max(), sig=2)}; {label})"
        )
    text = (
        f"At ε = {display.epsilon(eps)} (the largest plotted), δ ≤ {display.delta(target_delta)} needs "
        + " and ".join(parts)
        + f"; the largest feasible k here is n/m = {display.integer(k_max)}."
    )
    ex = at[at["accounting"] == "exact"]
    if not ex.empty:
        best = ex.loc[ex["delta"].idxmin()]
        side = "below" if best["delta"] <= target_delta else "above"
        text += (
            f" The exact accounting's smallest δ at feasible k is {display.delta(best['delta'])} "
            f"(k = {display.integer(best['k'])}), {side} the target."
        )
    return text


def bags_needed_story(m_required: float, m: int) -> str:
    """The paper's utility bound for wtd-LBA against the number of bags used: how many bags it needs and how
    many times the current ``m`` that is (``m_required`` from ``label_dp_bags.utility_requirement``).
    """
    if not np.isfinite(float(m_required)):
        return "The paper's own utility bound (Theorem 1.2) cannot be met on these data with any number of bags."
    ratio = float(m_required) / max(1, int(m))
    where = "times this" if ratio >= 1 else "of this"
    return (
        f"The paper's own utility bound (Theorem 1.2) needs m ≥ {display.integer(m_required)} bags, "
        f"{display.number(ratio, sig=2)} {where} m = {display.integer(m)}."
    )
