"""Plotly figures of the heavy-tailed l1 page and reproduction (pure functions, no Streamlit). docs/l1_exponential.md
§"Synthetic protocol" (F1-F6 and the page's panels). See docs/l1_exponential.md §"figures (module)"."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ... import display
from ... import status as vocab
from ...figures import add_bound_trace, apply_layout, color_of, group_refuted, hline, line_ci_figure, vline
from .bounds import RATE_LABEL, privacy_dominance_epsilon, rate_paper
from .truncation import psi

__all__ = [
    "assumption_rates_figure",
    "baseline_figure",
    "density_figure",
    "epsilon_figure",
    "experiment_figure",
    "fitted_slope",
    "psi_figure",
    "refuted_conventions",
    "releases_figure",
    "rate_figure",
    "residual_histogram",
    "sampler_figure",
    "truncation_figure",
]

_CONVENTION_NAMES = {
    "tight": "tight convention (ε-DP)",
    "paper_proof": "paper's proof convention (ε-DP)",
    "paper_box": "paper's printed convention (2ε-DP)",
}
_THETA_COLORS = {1.2: "#CC79A7", 1.5: "#0072B2", 1.8: "#009E73", 2.0: "#D55E00"}


def refuted_conventions() -> frozenset[str]:
    """The temperature conventions the stored audit table refutes (rows ``l1-exponential:<convention>``)."""
    from ...audit.table import load_audit_table, row_status

    return frozenset(
        r["mode"] for r in load_audit_table() if r["mechanism"] == "l1-exponential" and row_status(r) == vocab.REFUTED
    )


def _at_convention(fig: go.Figure, convention: str, groups: Sequence[str] | None = None) -> go.Figure:
    """When ``convention`` is refuted, the mechanism's curves (legend ``groups``; default: every curve) go
    grey and dashed into the not-private legend group (:func:`dp_core.figures.group_refuted`)."""
    if convention not in refuted_conventions():
        return fig
    drawn = {tr.legendgroup for tr in fig.data if tr.legendgroup}
    return group_refuted(fig, drawn if groups is None else set(groups))


def _theta_color(theta: float) -> str:
    return _THETA_COLORS.get(round(float(theta), 2), color_of(f"theta={theta:g}"))


def _risk_figure(summary: pd.DataFrame, x: str, by: str, title: str, x_title: str, **kw) -> go.Figure:
    """Mean excess population risk against ``x`` on a log y axis (log x unless ``log_x=False``), one curve with its
    95% band per value of column ``by`` (:func:`dp_core.figures.line_ci_figure`)."""
    y_title = "excess population risk (log)"
    kw = {"y": "excess_risk", "log_x": True, **kw}
    return line_ci_figure(summary, x=x, method_col=by, log_y=True, title=title, x_title=x_title, y_title=y_title, **kw)


def psi_figure(thetas: Sequence[float], iota: float, *, r_max: float | None = None) -> go.Figure:
    """Per-sample surrogate loss ``(1/iota) psi_theta(iota |r|)`` against ``|r|`` (panel 1, F6)."""
    r_max = 2.5 / iota if r_max is None else r_max
    r = np.linspace(0, r_max, 400)
    fig = go.Figure()
    fig.add_scatter(x=r, y=r, mode="lines", name="raw |r| (ℓ1 loss)", line={"color": "#000000", "dash": "dot"})
    for th in thetas:
        fig.add_scatter(
            x=r,
            y=psi(iota * r, th) / iota,
            mode="lines",
            name=f"(1/ι) ψ_θ(ι|r|), θ = {display.number(th)}",
            line={"color": _theta_color(th), "width": 2},
        )
        fig.add_hline(
            y=math.log(th) / iota,
            line={"color": _theta_color(th), "dash": "dash", "width": 1},
            annotation_text=f"saturation log θ/ι (θ = {display.number(th)})",
            annotation_position="top left",
        )
    fig.add_vline(
        x=1 / iota,
        line={"color": "#555555", "dash": "dash"},
        annotation_text=f"threshold 1/ι = {display.number(1 / iota)}",
    )
    fig.update_yaxes(range=[0, 1.3 * max(math.log(max(thetas)) / iota, 1e-9)])
    return apply_layout(
        fig, title="Truncated loss: residuals beyond 1/ι exert no pull", x_title="|residual|", y_title="per-sample loss"
    )


def residual_histogram(residuals: np.ndarray, iota: float, *, clip_quantile: float = 0.005) -> go.Figure:
    """Histogram of |residuals| on a log scale with the threshold 1/iota and the share beyond it (panel 1).
    See docs/l1_exponential.md §"figures.residual_histogram"."""
    a = np.abs(np.asarray(residuals, dtype=float))
    a = a[np.isfinite(a)]
    thr = 1.0 / iota
    frac = float(np.mean(a >= thr)) if a.size else math.nan
    pos = a[a > 0]
    zeros = int(a.size - pos.size)
    lx = np.log10(pos) if pos.size else np.array([math.log10(thr)])
    lo = min(float(np.quantile(lx, clip_quantile)), math.log10(thr))
    hi = max(float(lx.max()), math.log10(thr))
    pad = 0.04 * (hi - lo) if hi > lo else 0.5
    lo, hi = lo - pad, hi + pad
    size = (hi - lo) / 50
    fig = go.Figure(
        go.Histogram(
            x=np.maximum(lx, lo + 1e-9 * size),
            xbins={"start": lo, "end": hi, "size": size},
            marker_color="#56B4E9",
            name="residuals (first bin: everything smaller)",
            hovertemplate="%{y:,} residuals<extra></extra>",
        )
    )
    decades = np.arange(math.ceil(lo), math.floor(hi) + 1)
    fig.update_xaxes(
        range=[lo, hi], tickvals=decades.tolist(), ticktext=[display.number(10.0 ** float(k)) for k in decades]
    )
    fig.add_vline(
        x=math.log10(thr),
        line={"color": "#D55E00", "dash": "dash"},
        annotation_text=f"threshold 1/ι = {display.number(thr)}: {display.percent(frac)} of residuals beyond",
        annotation_position="top left",
    )
    title = "Residuals at the non-private fit (log scale)"
    if zeros:
        title += f"; {zeros:,} exact zero{'s' if zeros > 1 else ''} not shown"
    return apply_layout(
        fig, title=title, x_title="|residual| (log scale)", y_title="number of training rows", height=320
    )


def releases_figure(
    draws: np.ndarray, lad_w: np.ndarray, names: Sequence[str], *, convention: str = "tight"
) -> go.Figure:
    """Each private release's coefficients (dots, one column per feature) beside the non-private LAD fit.
    See docs/l1_exponential.md §"figures.releases_figure"."""
    W = np.atleast_2d(np.asarray(draws, dtype=float))
    w = np.ravel(np.asarray(lad_w, dtype=float))
    if W.shape[1] != w.size or w.size != len(names):
        raise ValueError(
            f"draws must have one column per feature ({len(names)}), got {W.shape[1]}; lad_w has {w.size} entries."
        )
    fig = go.Figure()
    refuted = convention in refuted_conventions()
    what = "releases" if refuted else "private releases"
    k = W.shape[0]
    jitter = (np.arange(k) - (k - 1) / 2) / max(k, 1) * 0.3
    for j, name in enumerate(names):
        fig.add_scatter(
            x=j + jitter,
            y=W[:, j],
            mode="markers",
            marker={"size": 7, "color": color_of("em_l1"), "opacity": 0.6},
            name=what,
            legendgroup="private",
            showlegend=j == 0,
            hovertemplate=f"{name}: %{{y:.3g}}<extra>{what}</extra>",
        )
    fig.add_scatter(
        x=np.arange(w.size),
        y=w,
        mode="markers",
        marker={"symbol": "diamond", "size": 14, "color": color_of("nonprivate"), "line": {"width": 1}},
        name="non-private fit (LAD)",
        hovertemplate="%{y:.3g}<extra>non-private fit</extra>",
    )
    fig.update_xaxes(tickmode="array", tickvals=list(range(w.size)), ticktext=[str(n) for n in names])
    title = f"Released coefficients ({vocab.REFUTED}: not private)" if refuted else "Private coefficients"
    apply_layout(
        fig, title=title + " against the non-private fit", x_title="feature", y_title="coefficient", height=380
    )
    return _at_convention(fig, convention, ("private",))


def _law_trace_2d(P: np.ndarray, p, name: str):
    """The output law in d = 2: points of a regular grid net (boundary points projected onto the ball)
    drawn as the square image on the cell lattice, each point in its nearest cell (markers otherwise)."""
    norms = np.linalg.norm(P, axis=1)
    inner = P[norms < 0.999 * norms.max()] if np.any(norms < 0.999 * norms.max()) else P
    ax = np.unique(np.round(inner[:, 0], 10))
    if ax.size > 1 and ax.size <= 2000:
        h = float(np.min(np.diff(ax)))
        lo = float(ax.min()) - h * np.ceil((float(ax.min()) - P.min()) / h)
        size = int(np.round((P.max() - lo) / h)) + 1
        lattice = lo + h * np.arange(size)
        ix = np.clip(np.round((P[:, 0] - lo) / h).astype(int), 0, size - 1)
        iy = np.clip(np.round((P[:, 1] - lo) / h).astype(int), 0, size - 1)
        img = np.zeros((size, size))
        np.add.at(img, (iy, ix), np.asarray(p, dtype=float))
        mask = np.zeros((size, size), dtype=bool)
        mask[iy, ix] = True
        img[~mask] = np.nan
        bar = {"title": "probability"}
        return go.Heatmap(x=lattice, y=lattice, z=img, colorscale="Viridis", colorbar=bar, name=name)
    return go.Scatter(x=P[:, 0], y=P[:, 1], mode="markers", marker={"color": p, "colorscale": "Viridis"}, name=name)


def density_figure(points: np.ndarray, probs: dict, *, marks: dict | None = None) -> go.Figure:
    """The mechanism's output law over W: lines per convention (d = 1) or a heat map (d = 2; first entry).
    See docs/l1_exponential.md §"figures.density_figure"."""
    P = np.asarray(points, dtype=float)
    marks = marks or {}
    probs = {str(k).replace(" ", "_"): v for k, v in probs.items()}
    refuted = refuted_conventions()
    fig = go.Figure()
    if P.shape[1] == 1:
        order = np.argsort(P[:, 0])
        h = float(np.median(np.diff(P[order, 0]))) if P.shape[0] > 1 else 1.0
        for name, p in probs.items():
            fig.add_scatter(
                x=P[order, 0],
                y=np.asarray(p)[order] / h,
                mode="lines",
                name=_CONVENTION_NAMES.get(name, name)
                + (f" ({vocab.REFUTED}: not private)" if name in refuted else ""),
                legendgroup=name,
            )
        group_refuted(fig, refuted)
        for name, w in marks.items():
            fig.add_vline(
                x=float(np.ravel(w)[0]),
                line={"dash": "dash", "color": "#000000" if "LAD" in name else "#009E73"},
                annotation_text=name,
            )
        return apply_layout(
            fig,
            title="Output density of the exponential mechanism over W",
            x_title="w",
            y_title="density (probability / grid step)",
        )
    name, p = next(iter(probs.items()))
    fig.add_trace(_law_trace_2d(P, p, name))
    for label, w in marks.items():
        w = np.ravel(w)
        fig.add_scatter(
            x=[w[0]],
            y=[w[1]],
            mode="markers+text",
            text=[label],
            textposition="top center",
            marker={"symbol": "x", "size": 12, "color": "#FFFFFF" if "LAD" in label else "#FF4B4B"},
            name=label,
        )
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    title = f"Output law over W ({_CONVENTION_NAMES.get(name, name)}"
    title += f"; {vocab.REFUTED}: not private as claimed)" if name in refuted else ")"
    return apply_layout(fig, title=title, x_title="w₁", y_title="w₂", height=480)


def fitted_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of log y against log x (positive finite values only)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def rate_figure(
    summary: pd.DataFrame,
    *,
    x: str = "n",
    series: str = "theta",
    y: str = "excess_risk",
    bounds: pd.DataFrame | None = None,
    title: str = "Excess population risk against n",
    convention: str = "tight",
) -> go.Figure:
    """Excess risk vs n on log-log axes, one curve per theta, reference slopes -(theta-1)/theta (F1, panel 3).
    See docs/l1_exponential.md §"figures.rate_figure"."""
    s = summary.copy()
    s["series"] = [f"θ = {display.number(v)}" for v in s[series]]
    fig = _risk_figure(s, x, "series", title, "n (log)", y=y)
    for th, g in s.groupby(series):
        g = g.sort_values(x)
        slope = fitted_slope(g[x], g[f"{y}_mean"])
        ref = -(th - 1) / th
        x0, y0 = float(g[x].iloc[0]), float(g[f"{y}_mean"].iloc[0])
        xs = g[x].to_numpy(dtype=float)
        if y0 > 0:
            fig.add_scatter(
                x=xs,
                y=y0 * (xs / x0) ** ref,
                mode="lines",
                line={"dash": "dot", "color": _theta_color(th), "width": 1},
                name=(
                    f"θ = {display.number(th)}: reference slope {display.number(ref)} (fitted {display.number(slope)})"
                ),
            )
    if bounds is not None:
        for name, g in bounds.groupby("curve"):
            add_bound_trace(fig, g[x], g["value"], method=str(name), name=str(name))
    for tr in fig.data:
        if tr.name and tr.name.startswith("θ = ") and "trials" in tr.name:
            th = float(tr.name.split("=")[1].split("(")[0])
            tr.line.color = _theta_color(th)
    return _at_convention(fig, convention, set(s["series"]))


def epsilon_figure(
    summary: pd.DataFrame,
    bound: pd.DataFrame,
    *,
    eps_star: float,
    nonprivate: float | None = None,
    convention: str = "tight",
) -> go.Figure:
    """Excess risk vs epsilon with the bound split into statistical and privacy parts (F2, panel 4).
    See docs/l1_exponential.md §"figures.epsilon_figure"."""
    fig = _risk_figure(summary, "epsilon", "method", "Privacy-utility: excess risk against ε", "ε (log)")
    for col, name, dash in (
        ("statistical", "bound: statistical part (non-private)", "dot"),
        ("privacy", "bound: privacy part", "dash"),
        ("total", "explicit bound U(ι*)", "solid"),
    ):
        fig.add_scatter(
            x=bound["epsilon"],
            y=bound[col],
            mode="lines",
            name=name,
            line={"dash": dash, "color": "#777777" if col != "privacy" else "#D55E00", "width": 1.5},
        )
    vline(
        fig,
        eps_star,
        log_x=True,
        line={"color": "#555555", "dash": "dash"},
        annotation_text=f"ε = (2/3) log θ = {display.epsilon(eps_star)}: below it privacy dominates",
    )
    if nonprivate is not None and nonprivate > 0:
        hline(fig, nonprivate, log_y=True, line={"color": "#000000", "dash": "dot"}, annotation_text="non-private LAD")
    return _at_convention(fig, convention, set(summary["method"]))


def truncation_figure(
    summary: pd.DataFrame, bound: pd.DataFrame | None = None, *, convention: str = "tight"
) -> go.Figure:
    """Excess risk vs the multiplier c_iota (iota = c_iota iota*) per noise case (F3, panel 5).
    See docs/l1_exponential.md §"figures.truncation_figure"."""
    s = summary.copy()
    fig = _risk_figure(s, "c_iota", "case", "Truncation trade-off: excess risk against ι/ι*", "c_ι = ι/ι* (log)")
    if bound is not None:
        fig.add_scatter(
            x=bound["c_iota"],
            y=bound["total"],
            mode="lines",
            name="explicit bound U(c_ι ι*)",
            line={"dash": "dash", "color": "#777777"},
            yaxis="y2",
        )
        right = {"overlaying": "y", "side": "right", "type": "log", "title": "bound U (right axis)", "showgrid": False}
        fig.update_layout(yaxis2=right)
    vline(fig, 1.0, log_x=True, line={"color": "#555555", "dash": "dot"}, annotation_text="ι*")
    return _at_convention(fig, convention, set(s["case"]))


def baseline_figure(
    summary: pd.DataFrame, *, x: str = "tail", x_title: str = "tail index α of the features", convention: str = "tight"
) -> go.Figure:
    """EM-L1-HT against the clipped EM (B1) and DP-GD (B2) as the tails get heavier (F4, panel 6).
    See docs/l1_exponential.md §"figures.baseline_figure"."""
    title = "Heavy tails: the paper's mechanism vs non-robust baselines (not from the paper)"
    fig = _risk_figure(summary, x, "method", title, x_title, log_x=False)
    return _at_convention(fig, convention, ("em_l1",))


def experiment_figure(which: str, value, *, theta: float = 1.5, convention: str = "tight") -> go.Figure:
    """The figure of synthetic experiment ``which`` (F1-F4: rates, epsilon, truncation, baselines) from the value
    its sweep returned; the epsilon figure marks the ε below which privacy dominates at ``theta``."""
    if which == "rates":
        return rate_figure(value[0], convention=convention)
    if which == "epsilon":
        s, b = value
        level = float(s[s.method == "nonprivate"]["excess_risk_mean"].mean())
        eps_star = privacy_dominance_epsilon(theta, convention)
        return epsilon_figure(s[s.method == "em_l1"], b, eps_star=eps_star, nonprivate=level, convention=convention)
    if which == "truncation":
        return truncation_figure(*value, convention=convention)
    return baseline_figure(value, convention=convention)


#: Bins of :func:`sampler_figure` (the same for the exact law and the MCMC draws).
_SAMPLER_BINS = 40


def sampler_figure(
    grid_points: np.ndarray,
    grid_probs: np.ndarray,
    mcmc_draws: np.ndarray,
    *,
    coord: int = 0,
    diagnostics: dict | None = None,
) -> go.Figure:
    """Marginal of one coordinate: exact grid law vs MCMC final states (F5, panel 8).
    See docs/l1_exponential.md §"figures.sampler_figure"."""
    P = np.asarray(grid_points, dtype=float)[:, coord]
    p = np.asarray(grid_probs, dtype=float)
    x = np.asarray(mcmc_draws, dtype=float)[:, coord]
    order = np.argsort(P)
    cdf = np.cumsum(p[order]) / p.sum()
    lo = min(float(P[order][np.searchsorted(cdf, 1e-4)]), float(x.min()))
    hi = max(float(P[order][min(np.searchsorted(cdf, 1.0 - 1e-4), P.size - 1)]), float(x.max()))
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    # bins of a whole number of lattice steps, edges halfway between lattice values (no aliasing)
    vals = np.unique(P)
    step = float(np.max(np.diff(vals))) if vals.size > 1 else hi - lo
    width = step * max(1, round((hi - lo) / _SAMPLER_BINS / step))
    anchor = float(P[int(np.argmax(p))]) - step / 2  # a lattice value of the interior, minus half a step
    lo = anchor + math.floor((lo - anchor) / width) * width
    edges = lo + width * np.arange(math.ceil((hi - lo) / width) + 1)
    hi = float(edges[-1])
    mass = np.histogram(P, bins=edges, weights=p)[0] / p.sum()
    fig = go.Figure()
    fig.add_histogram(
        x=x,
        histnorm="probability density",
        xbins={"start": lo, "end": hi + 1e-9 * width, "size": width},
        name="MCMC final states (approximate)",
        marker_color="#56B4E9",
        opacity=0.7,
    )
    fig.add_scatter(
        x=0.5 * (edges[:-1] + edges[1:]),
        y=mass / width,
        mode="lines",
        line_shape="hvh",
        name="exact grid law",
        line={"color": "#D55E00", "width": 2},
    )
    title = f"Sampler honesty: coordinate w{coord + 1}"
    if diagnostics:
        title += (
            f" — acceptance {display.number(diagnostics['acceptance'], sig=2)}, "
            f"R̂ {display.number(diagnostics['rhat_max'], sig=4)}"
        )
    return apply_layout(fig, title=title, x_title=f"w{coord + 1}", y_title="density", height=360)


def assumption_rates_figure(
    *, n: int, epsilon: float, eta_total: float, theta: float, tau: float = 1.0, d_max: int = 50
) -> go.Figure:
    """Panel 7: the paper's rates (constant 1) against d under A1 vs A2 and A3 vs A4.
    See docs/l1_exponential.md §"figures.assumption_rates_figure"."""
    ds = np.unique(np.round(np.logspace(0, math.log10(d_max), 25)).astype(int))
    fig = go.Figure()
    t = display.number(theta)
    for a, col, dash, name in (
        ("A1", "#0072B2", "solid", "A1: E‖x‖² ≤ τ² (θ = 2)"),
        ("A2", "#0072B2", "dash", "A2: E x_j² ≤ τ² (θ = 2)"),
        ("A3", "#D55E00", "solid", f"A3: E‖x‖^θ ≤ τ^θ (θ = {t})"),
        ("A4", "#D55E00", "dash", f"A4: E|x_j|^θ ≤ τ^θ (θ = {t})"),
    ):
        th = 2.0 if a in ("A1", "A2") else theta
        ys = [rate_paper(n, int(d), epsilon, eta_total, th, tau, a) for d in ds]
        fig.add_scatter(x=ds.tolist(), y=ys, mode="lines", name=name, line={"color": col, "dash": dash, "width": 2})
    return apply_layout(
        fig,
        title=f"Norm vs coordinate-wise assumptions: {RATE_LABEL}",
        x_title="d (log)",
        y_title="rate (log)",
        log_x=True,
        log_y=True,
    )
