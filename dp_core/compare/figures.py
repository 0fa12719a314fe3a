"""Figures of the comparison (pure plotly; no streamlit).

One chart of utility (or excess risk) against epsilon for every method, with 95% bands and the
number of trials, the non-private reference as a horizontal line, theoretical bounds dashed, and
the chosen epsilon marked.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import display
from ..figures import add_bound_trace, color_of, hex_to_rgba, hline, label_of, line_ci_figure, vline

__all__ = ["METRIC_TITLES", "compare_figure", "negotiation_figure"]

METRIC_TITLES = {
    "accuracy": "Test accuracy",
    "r2": "Test R² (labels on [-1, 1])",
    "excess_risk": "Excess risk (own training objective)",
}


def _label_for(result, method: str) -> str:
    try:
        return result.method_info(method)["label"]
    except KeyError:
        return label_of(method)


_SPARE = ["#332288", "#88CCEE", "#44AA99", "#999933", "#882255", "#AA4499", "#DDCC77", "#661100", "#6699CC", "#888888"]


def _distinct_colors(methods: list[str]) -> dict[str, str]:
    """Each method's shared colour, unless an earlier method on the same chart already has it."""
    used: set[str] = {color_of("nonprivate").upper()}
    out = {}
    spare = iter(c for c in _SPARE)
    for m in methods:
        c = color_of(m)
        if c.upper() in used:
            c = next((x for x in spare if x.upper() not in used), c)
        used.add(c.upper())
        out[m] = c
    return out


def _recolor(fig: go.Figure, colors: dict[str, str]) -> None:
    for tr in fig.data:
        m = tr.legendgroup
        if m in colors and colors[m] != color_of(m):
            c = colors[m]
            if getattr(tr, "fill", None) == "toself":
                tr.fillcolor = hex_to_rgba(c, 0.18)
            else:
                tr.line.color = c


def compare_figure(
    result,
    *,
    y: str = "utility",
    eps_marker: float | None = None,
    show_bounds: bool = True,
    methods: list[str] | None = None,
    height: int = 480,
) -> go.Figure:
    """Utility (``y="utility"``) or excess risk (``y="excess_risk"``) against epsilon.

    Parameters
    ----------
    result : dp_core.compare.CompareResult
    y : {"utility", "excess_risk"}
    eps_marker : float, optional
        Draw a vertical line at the chosen epsilon.
    show_bounds : bool
        Add the theoretical bounds as dashed lines (excess-risk view only: the bounds are on the
        excess risk).
    methods : list of str, optional
        Methods to draw (default all).
    """
    if y not in ("utility", "excess_risk"):
        raise ValueError(f"y must be 'utility' or 'excess_risk', got {y!r}.")
    s = result.summary
    if s is None or not len(s):
        fig = go.Figure()
        fig.update_layout(title="No results", template="plotly_white")
        return fig
    if methods is not None:
        s = s[s["method"].isin(methods)]
    metric = result.metric if y == "utility" else "excess_risk"
    log_y = y == "excess_risk"
    fig = line_ci_figure(
        s,
        x="epsilon",
        y=y,
        method_col="method",
        log_x=True,
        log_y=log_y,
        x_title="Privacy budget ε (log scale)",
        y_title=METRIC_TITLES[metric],
        height=height,
    )
    colors = _distinct_colors(list(dict.fromkeys(s["method"])))
    _recolor(fig, colors)
    # readable legend labels from the adapters (keep the trials count)
    for tr in fig.data:
        if tr.name and " (" in tr.name and tr.legendgroup:
            tr.name = f"{_label_for(result, tr.legendgroup)} ({tr.name.rsplit(' (', 1)[1]}"
    if y == "utility":
        ref = result.reference_utility
        if math.isfinite(ref):  # a real trace over the epsilon range (a legend entry that draws)
            eps = s["epsilon"].to_numpy(dtype=float)
            fig.add_trace(
                go.Scatter(
                    x=[float(eps.min()), float(eps.max())],
                    y=[ref, ref],
                    mode="lines",
                    name=f"Non-private fit ({display.number(ref)})",
                    legendgroup="nonprivate",
                    line={"color": color_of("nonprivate"), "width": 1.5, "dash": "dot"},
                    hovertemplate=f"non-private fit: {display.number(ref)}<extra></extra>",
                )
            )
        lo = float(np.nanmin(s["utility_mean"])) if len(s) else 0.0
        if result.metric == "r2":
            fig.update_yaxes(range=[max(-1.0, min(lo, 0.0)) - 0.05, 1.02])
        else:
            fig.update_yaxes(range=[max(0.0, lo - 0.05), 1.02])
    elif show_bounds and result.bounds is not None and len(result.bounds):
        b = result.bounds if methods is None else result.bounds[result.bounds["method"].isin(methods)]
        for (meth, lab), g in b.groupby(["method", "label"], sort=False):
            g = g.sort_values("epsilon")
            add_bound_trace(
                fig, g["epsilon"], g["bound"], method=str(meth), name=f"{_label_for(result, str(meth))}: {lab}"
            )
        _recolor(fig, colors)
    if eps_marker is not None and math.isfinite(eps_marker) and eps_marker > 0:
        vline(
            fig,
            eps_marker,
            log_x=True,
            line={"color": "#555555", "width": 1, "dash": "dash"},
            annotation_text=f"ε = {display.epsilon(eps_marker)}",
            annotation_position="top right",
        )
    return fig


def negotiation_figure(result, answer: dict, *, height: int = 420) -> go.Figure:
    """The measured curves with the target as a horizontal line and each method's answer marked."""
    target = answer["target"]
    y = "excess_risk" if target["metric"] == "excess_risk" else "utility"
    fig = compare_figure(result, y=y, show_bounds=(y == "excess_risk"), height=height)
    colors = _distinct_colors(list(dict.fromkeys(result.summary["method"]))) if len(result.summary) else {}
    metric = METRIC_TITLES.get(target["metric"], str(target["metric"]).replace("_", " ")).lower()
    relation = "≤" if target["metric"] == "excess_risk" else "≥"
    value = target["value"]
    if y == "excess_risk" and not value > 0:
        raise ValueError(f"an excess-risk target must be > 0 to be drawn on a log axis, got {value!r}.")
    hline(
        fig,
        value,
        log_y=(y == "excess_risk"),
        line={"color": "#D55E00", "width": 2},
        annotation_text=f"target: {metric} {relation} {display.number(value)}",
        annotation_position="bottom right",
    )
    for row in answer["methods"]:
        e = row.get("epsilon_measured")
        if isinstance(e, (int, float)) and math.isfinite(e):
            fig.add_trace(
                go.Scatter(
                    x=[e],
                    y=[target["value"]],
                    mode="markers",
                    showlegend=False,
                    marker={"symbol": "x", "size": 12, "color": colors.get(row["method"], color_of(row["method"]))},
                    hovertemplate=f"{row['label']}: ε ≈ {display.epsilon(e)}<extra></extra>",
                )
            )
    return fig


def results_table(result) -> pd.DataFrame:
    """The summary as a readable table (one row per method and epsilon)."""
    s = result.summary.copy()
    labels = {m["method"]: m["label"] for m in result.methods}
    s.insert(0, "label", s["method"].map(lambda m: labels.get(m, label_of(m))))
    return s


__all__.append("results_table")
