"""Plotly figure builders: pure functions from tidy tables to ``plotly.graph_objects.Figure``.

Every method has one colour on every page (:data:`METHOD_COLORS`); bounds are dashed lines of
the method's colour; every Monte-Carlo estimate shows its number of trials (in the legend name and
the hover text). Log axes are used where quantities span decades.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["METHOD_COLORS", "METHOD_LABELS", "color_of", "label_of", "line_ci_figure", "add_bound_trace",
           "bound_traces", "noise_scale_figure", "apply_layout", "hex_to_rgba"]

#: One colour per method, shared by every page (Okabe-Ito-like, colour-blind safe where possible).
METHOD_COLORS: dict[str, str] = {
    # generic
    "nonprivate": "#000000",
    "laplace": "#CC79A7",
    "gaussian": "#0072B2",
    "gaussian_classic": "#56B4E9",
    "gaussian_analytic": "#0072B2",
    # input perturbation and its baselines
    "input": "#D55E00",
    "objective": "#0072B2",
    "output": "#009E73",
    "dp_sgd": "#E69F00",
    # label-DP by aggregation
    "naive_lba": "#999999",
    "naive_llp": "#6B6B6B",
    "wtd_lba": "#E69F00",
    "wtd_llp": "#56B4E9",
    "noisy_wtd_llp": "#D55E00",
    "gaussian_label": "#0072B2",
    "laplace_label": "#CC79A7",
    # large-margin Gaussian classifier
    "printed": "#CC79A7",
    "repaired": "#E69F00",
    "corrected": "#009E73",
    # heavy-tailed l1 regression
    "em_l1": "#D55E00",
    # compare page: output-perturbation baselines and the large-margin modes under their own keys
    "output_gaussian": "#009E73",
    "output_laplace": "#117733",
    "lmg_printed": "#CC79A7",
    "lmg_repaired": "#E69F00",
    "lmg_corrected": "#332288",
    "em_clipped": "#56B4E9",
    "dp_gd": "#E69F00",
}

METHOD_LABELS: dict[str, str] = {
    "nonprivate": "Non-private",
    "laplace": "Laplace",
    "gaussian": "Gaussian",
    "gaussian_classic": "Gaussian (classic)",
    "gaussian_analytic": "Gaussian (analytic)",
    "input": "Input perturbation",
    "objective": "Objective perturbation",
    "output": "Output perturbation",
    "dp_sgd": "DP-SGD",
    "naive_lba": "Naive LBA",
    "naive_llp": "Naive LLP",
    "wtd_lba": "Weighted LBA",
    "wtd_llp": "Weighted LLP (no noise)",
    "noisy_wtd_llp": "Noisy weighted LLP",
    "gaussian_label": "Gaussian label noise",
    "laplace_label": "Laplace label noise",
    "printed": "P: as printed (not differentially private as printed)",
    "repaired": "P+: repaired (not differentially private as printed)",
    "corrected": "R: corrected",
    "em_l1": "Exponential mechanism (truncated l1)",
    "output_gaussian": "Output perturbation (Gaussian)",
    "output_laplace": "Output perturbation (Laplace-norm)",
    "lmg_printed": "Large-margin P: as printed",
    "lmg_repaired": "Large-margin P+: repaired",
    "lmg_corrected": "Large-margin R: corrected",
    "em_clipped": "EM on clipped data",
    "dp_gd": "DP gradient descent",
}

_FALLBACK = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"]


def color_of(method: str) -> str:
    """The colour of ``method`` (a stable fallback colour for unknown names)."""
    if method in METHOD_COLORS:
        return METHOD_COLORS[method]
    return _FALLBACK[sum(map(ord, method)) % len(_FALLBACK)]


def label_of(method: str) -> str:
    return METHOD_LABELS.get(method, method.replace("_", " "))


def hex_to_rgba(color: str, alpha: float) -> str:
    c = color.lstrip("#")
    r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def apply_layout(fig: go.Figure, *, title: str = "", x_title: str = "", y_title: str = "", log_x: bool = False,
                 log_y: bool = False, height: int = 420) -> go.Figure:
    """The common layout: white template, legend below the plot, axis types and titles."""
    fig.update_layout(
        template="plotly_white", title=title, height=height, margin=dict(l=60, r=20, t=50 if title else 20, b=40),
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0), hovermode="x unified",
    )
    fig.update_xaxes(title_text=x_title, type="log" if log_x else "linear")
    fig.update_yaxes(title_text=y_title, type="log" if log_y else "linear")
    return fig


def line_ci_figure(
    summary: pd.DataFrame, *, x: str, y: str, method_col: str = "method", title: str = "", x_title: str | None = None,
    y_title: str | None = None, log_x: bool = False, log_y: bool = False, methods: Sequence[str] | None = None,
    band: bool = True, height: int = 420,
) -> go.Figure:
    """Mean curves with 95% bands from a :func:`dp_core.experiments.summarize` table.

    ``summary`` needs columns ``x``, ``method_col``, ``{y}_mean``, ``{y}_lo``, ``{y}_hi`` and
    ``n_trials``. On log axes the band's lower edge is floored at a fraction of the mean so it stays
    drawable.
    """
    fig = go.Figure()
    todo = list(dict.fromkeys(summary[method_col])) if methods is None else list(methods)
    for m in todo:
        s = summary[summary[method_col] == m].sort_values(x)
        if s.empty:
            continue
        col = color_of(m)
        mean = s[f"{y}_mean"].to_numpy(dtype=float)
        lo = s[f"{y}_lo"].to_numpy(dtype=float)
        hi = s[f"{y}_hi"].to_numpy(dtype=float)
        if log_y:
            lo = np.where(np.isfinite(lo) & (lo > 0), lo, mean / 10)
        trials = s["n_trials"].to_numpy() if "n_trials" in s else np.full(len(s), np.nan)
        t_text = f"{int(np.min(trials))}" if np.all(trials == trials[0]) else f"{int(np.min(trials))}-{int(np.max(trials))}"
        name = f"{label_of(m)} ({t_text} trials)"
        xs = s[x].to_numpy()
        if band and np.any(np.isfinite(hi)):
            fig.add_trace(go.Scatter(x=np.concatenate([xs, xs[::-1]]), y=np.concatenate([hi, lo[::-1]]), mode="lines", fill="toself",
                                     fillcolor=hex_to_rgba(col, 0.18), line=dict(width=0), hoverinfo="skip",
                                     showlegend=False, legendgroup=m, name=f"{label_of(m)} 95% interval"))
        fig.add_trace(go.Scatter(
            x=xs, y=mean, mode="lines+markers", name=name, legendgroup=m, line=dict(color=col, width=2),
            customdata=np.column_stack([lo, hi, trials]),
            hovertemplate=f"{label_of(m)}: %{{y:.4g}} [95%: %{{customdata[0]:.3g}}, %{{customdata[1]:.3g}}], "
                          "%{customdata[2]} trials<extra></extra>",
        ))
    return apply_layout(fig, title=title, x_title=x if x_title is None else x_title,
                        y_title=y if y_title is None else y_title, log_x=log_x, log_y=log_y, height=height)


def add_bound_trace(fig: go.Figure, x: Iterable[float], y: Iterable[float], *, method: str, name: str,
                    dash: str = "dash") -> go.Figure:
    """Add a theoretical bound as a dashed line in the method's colour (non-finite points are skipped)."""
    xs = np.asarray(list(x), dtype=float)
    ys = np.asarray(list(y), dtype=float)
    ok = np.isfinite(ys)
    fig.add_trace(go.Scatter(x=xs[ok], y=ys[ok], mode="lines", name=name, legendgroup=method,
                             line=dict(color=color_of(method), dash=dash, width=1.5),
                             hovertemplate=f"{name}: %{{y:.4g}}<extra></extra>"))
    return fig


def bound_traces(fig: go.Figure, table: pd.DataFrame, *, x: str, y: str = "bound", method_col: str = "method",
                 label: str = "bound") -> go.Figure:
    """Add one dashed bound line per method from a tidy table with columns ``x``, ``y``, ``method_col``."""
    for m, s in table.groupby(method_col, sort=False):
        s = s.sort_values(x)
        add_bound_trace(fig, s[x], s[y], method=str(m), name=f"{label_of(str(m))}: {label}")
    return fig


def noise_scale_figure(table: pd.DataFrame, *, x: str, y: str, method_col: str = "method", title: str = "",
                       x_title: str = "", y_title: str = "", log_x: bool = True, log_y: bool = True) -> go.Figure:
    """Deterministic curves (noise scales, bounds) per method, no bands."""
    fig = go.Figure()
    for m, s in table.groupby(method_col, sort=False):
        s = s.sort_values(x)
        ys = s[y].to_numpy(dtype=float)
        ys = np.where(np.isfinite(ys), ys, math.nan)
        fig.add_trace(go.Scatter(x=s[x], y=ys, mode="lines", name=label_of(str(m)), line=dict(color=color_of(str(m)))))
    return apply_layout(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y)
