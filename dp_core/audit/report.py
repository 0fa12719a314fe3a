"""What the audit page shows: one audit, the histograms of its statistic and the bound against runs.

Pure functions (no Streamlit): :func:`audit_report` runs an audit and summarises it in small
tables; :func:`histogram_figure` and :func:`convergence_figure` draw them with Plotly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import display
from ..figures import apply_layout, corner_note
from ..rng import RngLike
from .core import AuditResult, AuditTarget, audit_convergence, run_audit, runs_grid

__all__ = [
    "EXTREME",
    "SIDE_COLORS",
    "AuditReport",
    "audit_report",
    "convergence_figure",
    "histogram_figure",
    "histogram_table",
]

#: Statistic values at or beyond this magnitude are sentinels (no release, a noiseless bag): they
#: are counted separately instead of being drawn on the histogram's axis.
EXTREME = 1.0e4

SIDE_COLORS = {"D": "#0072B2", "D'": "#D55E00"}
_HIST_COLUMNS = ["side", "left", "right", "centre", "count", "share"]


@dataclass(frozen=True)
class AuditReport:
    """An audit and the tables the page draws (it pickles cleanly, so the app can cache it)."""

    result: AuditResult
    histogram: pd.DataFrame
    extremes: pd.DataFrame
    convergence: pd.DataFrame
    statistic: str
    pair: str
    note: str
    details: dict


def histogram_table(stats_d, stats_dprime, *, bins: int = 60) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Shared-bin histograms ``(histogram, extremes)`` of the statistic on ``D`` and ``D'``: bins over the
    0.1%–99.9% pooled quantiles (every value when few are distinct), columns ``side, left, right, centre, count,
    share``; values with ``|s| >= EXTREME`` (sentinels) counted apart (``side, value, count, share``)."""
    s0 = np.asarray(stats_d, dtype=np.float64)
    s1 = np.asarray(stats_dprime, dtype=np.float64)
    ext_rows = []
    for side, s in (("D", s0), ("D'", s1)):
        big = s[np.abs(s) >= EXTREME]
        for value in np.unique(big):
            n = int(np.count_nonzero(big == value))
            ext_rows.append({"side": side, "value": float(value), "count": n, "share": float(n) / max(s.size, 1)})
    f0, f1 = s0[np.abs(s0) < EXTREME], s1[np.abs(s1) < EXTREME]
    pooled = np.concatenate([f0, f1])
    rows = []
    if pooled.size:
        if np.unique(pooled).size <= bins:
            lo, hi = float(pooled.min()), float(pooled.max())
        else:
            lo, hi = (float(v) for v in np.quantile(pooled, [0.001, 0.999]))
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        pad = 0.02 * (hi - lo)
        edges = np.linspace(lo - pad, hi + pad, bins + 1)
        for side, s, total in (("D", f0, s0.size), ("D'", f1, s1.size)):
            counts, _ = np.histogram(np.clip(s, edges[0], edges[-1]), bins=edges)
            for i, c in enumerate(counts):
                left, right = edges[i], edges[i + 1]
                share = c / max(total, 1)
                rows.append(dict(zip(_HIST_COLUMNS, (side, left, right, 0.5 * (left + right), int(c), share))))
    hist = pd.DataFrame(rows, columns=_HIST_COLUMNS)
    ext = pd.DataFrame(ext_rows, columns=["side", "value", "count", "share"])
    return hist, ext


def audit_report(
    target: AuditTarget, *, runs: int, seed: RngLike = 0, confidence: float = 0.95, bins: int = 60, grid_points: int = 6
) -> AuditReport:
    """Run the audit of ``target`` and build the page's tables.

    The convergence table repeats the audit on the first ``r`` runs for a geometric grid of ``r``
    up to ``runs`` (same draws, so it shows how the bound tightens as runs are added).
    """
    run = run_audit(target, runs=runs, seed=seed, confidence=confidence)
    hist, ext = histogram_table(run.stats_d, run.stats_dprime, bins=bins)
    grid = runs_grid(runs, points=grid_points, smallest=min(100, runs))
    claim = {"eps_claimed": target.eps_claimed, "delta": target.delta, "null_log_sf": target.null_log_sf}
    conv = audit_convergence(run.stats_d, run.stats_dprime, grid=grid, confidence=confidence, **claim)
    return AuditReport(
        result=run.result,
        histogram=hist,
        extremes=ext,
        convergence=conv,
        statistic=target.statistic,
        pair=target.pair,
        note=target.note,
        details=dict(target.details),
    )


def histogram_figure(report: AuditReport, *, title: str = "") -> go.Figure:
    """Overlaid histograms of the statistic on D and D', with the chosen threshold as a line.

    Coded outcomes (``|s| >= EXTREME``: no release, an aggregate that reveals the label exactly) are
    drawn as separate bars beyond the ends of the axis, labelled with their code, so that a
    deterministic leak is visible.
    """
    r = report.result
    hist = report.histogram
    fig = go.Figure()
    if len(hist):
        lo, hi = float(hist["left"].min()), float(hist["right"].max())
    else:
        lo, hi = -1.0, 1.0
    span = hi - lo
    codes = sorted(set(report.extremes["value"])) if len(report.extremes) else []
    neg = [v for v in codes if v < 0]
    pos = [v for v in codes if v > 0]
    place = {v: lo - 0.12 * span * (i + 1) for i, v in enumerate(sorted(neg, reverse=True))}
    place.update({v: hi + 0.12 * span * (i + 1) for i, v in enumerate(sorted(pos))})
    for side in ("D", "D'"):
        part = hist[hist["side"] == side]
        name = f"on {side} ({r.runs:,} runs)"
        bar = {"marker_color": SIDE_COLORS[side], "opacity": 0.55, "legendgroup": side}
        fig.add_bar(
            x=part["centre"],
            y=part["share"],
            width=(part["right"] - part["left"]),
            name=name,
            **bar,
            hovertemplate="statistic ≈ %{x:.4g}<br>share of runs %{y:.3%}<extra>" + name + "</extra>",
        )
        ext = report.extremes[report.extremes["side"] == side] if len(report.extremes) else report.extremes
        if len(ext):
            fig.add_bar(
                x=[place[v] for v in ext["value"]],
                y=ext["share"],
                width=0.06 * span,
                name=f"on {side}: coded outcome",
                **bar,
                marker_pattern_shape="/",
                showlegend=False,
                customdata=ext["value"],
                hovertemplate="coded outcome %{customdata:.0e}<br>share of runs %{y:.3%}<extra>" + side + "</extra>",
            )
    for v, x in place.items():
        fig.add_annotation(
            x=x, y=0, yshift=-12, text=f"coded {display.number(v, signed=True)}", showarrow=False, font={"size": 10}
        )
    fig.update_layout(barmode="overlay")
    t = r.threshold
    if abs(t) < EXTREME or codes:
        x_t = t if lo <= t <= hi else (hi + 0.06 * span if t > hi else lo - 0.06 * span)
        rel = ">" if r.side == "above" else "≤"
        fig.add_vline(
            x=x_t,
            line_dash="dash",
            line_color="#000000",
            annotation_text=f"threshold: guess {r.positive} if statistic {rel} {display.number(t)}",
            annotation_position="top",
        )
    apply_layout(
        fig,
        title=title or "The statistic on the two neighbouring datasets",
        x_title="statistic",
        y_title="share of runs",
    )
    return fig


def convergence_figure(report: AuditReport, *, title: str = "") -> go.Figure:
    """The audited lower bound (and the point estimate) against the number of runs, with the claim."""
    conv = report.convergence
    r = report.result
    fig = go.Figure()
    est = conv["eps_estimate"].where(np.isfinite(conv["eps_estimate"]))
    if est.notna().any():
        fig.add_scatter(
            x=conv["runs"],
            y=est,
            mode="lines+markers",
            name="point estimate of the chosen test",
            line={"color": "#999999", "dash": "dot"},
            hovertemplate="%{x:,} runs per side<br>estimate %{y:.3f}<extra></extra>",
        )
    elif len(conv):  # an infinite estimate at every run count: say so instead of drawing an empty trace
        corner_note(fig, "point estimate of the chosen test: ∞ at every number of runs (it never errs on one side)")
    fig.add_scatter(
        x=conv["runs"],
        y=conv["eps_lower"],
        mode="lines+markers",
        name=f"measured lower bound ({display.percent(r.confidence)} confidence)",
        line={"color": "#D55E00"},
        hovertemplate="%{x:,} runs per side<br>ε ≥ %{y:.3f}<extra></extra>",
    )
    claimed = r.eps_claimed
    if math.isfinite(claimed):
        fig.add_hline(
            y=claimed,
            line_dash="dash",
            line_color="#0072B2",
            annotation_text=f"claimed ε = {display.epsilon(claimed)}",
            annotation_position="top left",
        )
    apply_layout(
        fig, title=title or "How the bound tightens as runs grow", x_title="runs per side", y_title="ε", log_x=True
    )
    return fig
