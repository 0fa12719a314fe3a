"""Plotly figures of the input-perturbation page (pure functions of tidy tables; no Streamlit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ... import display
from ...experiments import summarize
from ...figures import (
    METHOD_COLORS,
    add_bound_trace,
    apply_layout,
    band_trace,
    color_of,
    label_of,
    line_ci_figure,
    use_white_template,
)

__all__ = [
    "diagnostic_figure",
    "excess_vs_n_figure",
    "gap_figure",
    "gap_table",
    "local_vs_n_figure",
    "metric_figure",
    "noise_vs_epsilon_figure",
    "reproduction_figure",
    "sigma_u_vs_n_figure",
    "theorem2_stack_figure",
    "tradeoff_figure",
]

_TERM_COLORS = {"T1": "#0072B2", "T2": "#56B4E9", "T3": "#E69F00", "T4": "#D55E00"}
_TERM_TEXT = {"T1": "T1: linear noise b", "T2": "T2: ridge Δ", "T3": "T3: σ_u² − 2λ/ε", "T4": "T4: n^(−3/2) terms"}


def theorem2_stack_figure(terms: dict, *, title: str = "Theorem 2 bound, term by term") -> go.Figure:
    """One horizontal stacked bar: T1 + T2 + T3 + T4 = B_in."""
    fig = go.Figure()
    for k in ("T1", "T2", "T3", "T4"):
        fig.add_trace(
            go.Bar(
                y=["B_in"],
                x=[terms[k]],
                name=_TERM_TEXT[k],
                orientation="h",
                marker_color=_TERM_COLORS[k],
                hovertemplate=f"{_TERM_TEXT[k]}: %{{x:.4g}}<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    apply_layout(fig, title=title, x_title="upper bound on E[excess empirical risk]", height=260)
    fig.update_yaxes(type="category", title_text="bound")
    fig.update_layout(hovermode="closest", legend={"y": -0.45})
    return fig


def _line(fig: go.Figure, x, y, name: str, mode: str = "lines", **line) -> None:
    """Add one line trace (style ``line``: color, dash, width)."""
    fig.add_trace(go.Scatter(x=x, y=y, mode=mode, line=line, name=name))


def _lines_only_bands(fig: go.Figure) -> go.Figure:
    # confidence bands are filled polygons: draw them without markers
    for tr in fig.data:
        if getattr(tr, "fill", None) == "toself":
            tr.mode = "lines"
    return fig


def excess_vs_n_figure(
    df: pd.DataFrame,
    bounds: pd.DataFrame | None = None,
    *,
    show_rates: bool = True,
    title: str = "Excess empirical risk against n",
) -> go.Figure:
    """Mean excess risk per method with 95% bands (log-log), the bound curves, rates and a slope -1 guide."""
    priv = df[df["method"] != "nonprivate"]
    s = summarize(priv, by=["n", "method"], values=["excess_risk"])
    s = s[s["excess_risk_mean"] > 0]
    kw = dict(title=title, x_title="n (contributors)", y_title="excess empirical risk J(w) - J(w^)")
    fig = _lines_only_bands(line_ci_figure(s, x="n", y="excess_risk", log_x=True, log_y=True, **kw))
    if bounds is not None and len(bounds):
        b = bounds.sort_values("n")
        add_bound_trace(fig, b["n"], b["input"], method="input", name="Input: Theorem 2 bound (paper's constants)")
        add_bound_trace(fig, b["n"], b["objective"], method="objective", name="Obj-Gauss: bound derived here")
        add_bound_trace(fig, b["n"], b["output"], method="output", name="Output: bound derived here")
        if show_rates:
            rate = "Table-1 rate, constant = 1 (shape only, up to constants)"
            _line(fig, b["n"], b["rate_input"], rate, color="#777777", dash="dot")
            gd = "DP-GD rate (Bassily et al.), constant = 1, up to constants"
            _line(fig, b["n"], b["rate_dp_gd"], gd, color=METHOD_COLORS.get("dp_gd", "#E69F00"), dash="dot")
    fig.update_layout(
        height=520,
        legend={"orientation": "v", "x": 1.02, "y": 1.0, "yanchor": "top", "xanchor": "left"},
        margin={"r": 20},
    )
    if len(s):
        n0, n1 = float(s["n"].min()), float(s["n"].max())
        y0 = float(s[s["n"] == s["n"].min()]["excess_risk_mean"].max())
        _line(fig, [n0, n1], [y0, y0 * n0 / n1], "slope -1 guide", color="#BBBBBB", dash="longdash", width=1)
    return fig


def gap_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per-trial difference excess(input) - excess(objective) at every n, summarised (mean, 95% CI)."""
    wide = df[df["method"].isin(["input", "objective"])].pivot_table(
        index=["n", "trial"], columns="method", values="excess_risk"
    )
    if not {"input", "objective"} <= set(wide.columns):
        return pd.DataFrame(columns=["n", "gap_mean", "gap_lo", "gap_hi", "n_trials"])
    wide = wide.reset_index()
    wide["gap"] = wide["input"] - wide["objective"]
    wide["method"] = "input"
    return summarize(wide, by=["n", "method"], values=["gap"])


def gap_figure(df: pd.DataFrame) -> go.Figure:
    """Input minus Obj-Gauss excess risk against n (the paper's O(n^-3/2) explanation)."""
    g = gap_table(df)
    kw = dict(title="Input minus Obj-Gauss excess risk", x_title="n (contributors)")
    fig = _lines_only_bands(
        line_ci_figure(g, x="n", y="gap", log_x=True, y_title="mean difference of excess risk", **kw)
    )
    for tr in fig.data:
        if tr.mode != "lines":
            tr.name = tr.name.replace("Input perturbation", "Input − Obj-Gauss (paired by trial)")
    fig.add_hline(y=0.0, line={"color": "#888888", "width": 1})
    return fig


def metric_figure(summary: pd.DataFrame, *, metric_name: str) -> go.Figure:
    """Test RMSE or accuracy against n, one curve per method with 95% bands."""
    kw = dict(title=f"{metric_name} against n", x_title="n (contributors)", y_title=metric_name)
    return _lines_only_bands(line_ci_figure(summary, x="n", y="test_metric", log_x=True, **kw))


def noise_vs_epsilon_figure(table: pd.DataFrame, *, n: int) -> go.Figure:
    """sigma_b and sigma_u against epsilon (log-log) with sigma_u's asymptote sqrt(2 lambda/eps)."""
    fig = go.Figure()
    styles = {
        "sigma_b": ("#0072B2", "solid", "σ_b (linear-term noise, aggregate)"),
        "sigma_u": ("#D55E00", "solid", "σ_u (quadratic-term noise, aggregate)"),
        "sigma_u_limit": ("#D55E00", "dot", "√(2λ/ε): σ_u as n grows"),
    }
    for q, (c, dash, name) in styles.items():
        s = table[table["quantity"] == q].sort_values("epsilon")
        _line(fig, s["epsilon"], s["value"], name, color=c, dash=dash)
    title, x_title = f"Noise scales against ε (n = {n:,})", "central privacy budget ε"
    return apply_layout(fig, title=title, x_title=x_title, y_title="noise standard deviation", log_x=True, log_y=True)


def sigma_u_vs_n_figure(table: pd.DataFrame, *, n_min: float) -> go.Figure:
    """sigma_u against n with the Corollary-3 envelope, its limit and the minimum n."""
    t = table.sort_values("n")
    fig = go.Figure()
    _line(fig, t["n"], t["cor3_upper"], "Corollary 3 upper bound", color="#999999", dash="dash")
    _line(fig, t["n"], t["cor3_lower"], "Corollary 3 lower bound", color="#999999", dash="dot")
    _line(fig, t["n"], t["sigma_u"], "σ_u (in use)", color="#D55E00", width=2.5)
    _line(fig, t["n"], t["limit"], "limit √(2λ/ε)", color="#000000", dash="dot", width=1)
    ys = t[["sigma_u", "cor3_upper"]].to_numpy(dtype=float)
    ys = ys[np.isfinite(ys)]
    if ys.size:  # a vertical segment as a trace (shapes on log axes need log10 coordinates)
        name = f"minimum n = {display.number(n_min, sig=4)}"
        _line(fig, [n_min, n_min], [float(ys.min()), float(ys.max())], name, color="#CC0000", dash="dash")
    y_title = "σ_u (quadratic-term noise std)"
    return apply_layout(fig, title="σ_u against n", x_title="n (contributors)", y_title=y_title, log_x=True, log_y=True)


def tradeoff_figure(table: pd.DataFrame) -> go.Figure:
    """Local epsilon (nominal and exact) against central epsilon = alpha eps, coloured by the bound."""
    t = table.sort_values("central_epsilon")
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=t["central_epsilon"],
            y=t["local_epsilon_nominal"],
            mode="lines+markers",
            name="local ε, Corollary 1 (nominal)",
            line={"color": "#0072B2"},
            marker={
                "size": 9,
                "color": t["bound_theorem2"],
                "colorscale": "Viridis",
                "colorbar": {"title": "Thm 2 bound", "x": 1.02},
                "showscale": True,
            },
            customdata=np.column_stack([t["alpha"], t["bound_theorem2"]]),
            hovertemplate="α = %{customdata[0]:.3g}: central ε %{x:.3g}, local ε %{y:.4g}, "
            "Theorem 2 bound %{customdata[1]:.3g}<extra></extra>",
        )
    )
    exact = "local ε, exact (Gaussian DP)"
    _line(fig, t["central_epsilon"], t["local_epsilon_exact"], exact, "lines+markers", color="#D55E00", dash="dash")
    title, y_title = "Local against central privacy as α varies", "local ε of one contributor's release"
    fig = apply_layout(fig, title=title, x_title="central ε = α × ε", y_title=y_title, log_x=True, log_y=True)
    fig.update_layout(hovermode="closest")
    return fig


def diagnostic_figure(lmin_plus_ridge: np.ndarray, quad_form: np.ndarray, threshold: float) -> go.Figure:
    """Histograms of lambda_min(M) + Delta_in (needed) and w^T M w (the paper's Lemma 1 event), each on its
    0.5%–99.5% quantile range (draws beyond counted in the title), the threshold 2 lambda/eps dashed when near it."""
    texts = ("Needed by the proof: λ<sub>min</sub>(M) + Δ<sub>in</sub>", "Paper's Lemma 1 event: wᵀMw")
    names = ("λ_min(M) + Δ_in", "wᵀMw")
    panels, titles = [], []
    for values, text in zip((lmin_plus_ridge, quad_form), texts):
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        lo, hi, show_mark = _central_range(v, threshold)
        notes = []
        out = int(np.count_nonzero((v < lo) | (v > hi)))
        if out:
            notes.append(f"{out:,} of {v.size:,} draws outside the range shown")
        if not show_mark and v.size:
            side = "below" if threshold < lo else "above"
            notes.append(
                f"threshold {display.number(threshold)} is far {side} the range shown; "
                f"{display.percent(float(np.mean(v >= threshold)))} of draws reach it"
            )
        titles.append(text + "".join(f"<br><sup>{n}</sup>" for n in notes))
        panels.append((v, lo, hi, show_mark))
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles)
    for col, ((v, lo, hi, show_mark), name, colour) in enumerate(zip(panels, names, ("#009E73", "#0072B2")), start=1):
        fig.add_trace(
            go.Histogram(x=v, marker_color=colour, name=name, xbins={"start": lo, "end": hi, "size": (hi - lo) / 40}),
            row=1,
            col=col,
        )
        fig.update_xaxes(range=[lo, hi], title_text=f"{name} (one value per draw)", row=1, col=col)
        fig.update_yaxes(title_text="number of draws", row=1, col=col)
        if show_mark:
            fig.add_vline(x=threshold, line={"color": "#CC0000", "dash": "dash"}, row=1, col=col)
    text = f"threshold 2λ/ε = {display.number(threshold)} (dashed where it falls near the draws)"
    fig.add_annotation(text=text, xref="paper", yref="paper", x=0.5, y=-0.3, showarrow=False)
    use_white_template(fig)
    fig.update_layout(height=380, showlegend=False, margin={"l": 50, "r": 20, "t": 80, "b": 80})
    return fig


def _central_range(v: np.ndarray, mark: float) -> tuple[float, float, bool]:
    """The 0.5%–99.5% quantile range of ``v`` padded by 5%, widened to ``mark`` when that costs at most
    half the range again; the flag says whether ``mark`` is inside the returned range."""
    if v.size == 0:
        return mark - 1.0, mark + 1.0, True
    lo, hi = (float(q) for q in np.quantile(v, [0.005, 0.995]))
    span = hi - lo if hi > lo else max(abs(hi), 1.0) * 0.1
    near = lo - 0.5 * span <= mark <= hi + 0.5 * span
    if near:
        lo, hi = min(lo, mark), max(hi, mark)
        span = hi - lo
    return lo - 0.05 * span, hi + 0.05 * span, near


def reproduction_figure(summary: pd.DataFrame, *, model: str) -> go.Figure:
    """Paper Figure 1 (RMSE, least squares) or Figure 2 (accuracy, logistic): one panel per epsilon."""
    epsilons = sorted(summary["epsilon"].unique())
    metric = "test RMSE" if model == "least_squares" else "test accuracy"
    fig = make_subplots(
        rows=1, cols=len(epsilons), subplot_titles=[f"ε = {display.epsilon(e)}" for e in epsilons], shared_yaxes=True
    )
    for j, e in enumerate(epsilons, start=1):
        s = summary[summary["epsilon"] == e]
        for m in ["input", "output", "objective", "nonprivate"]:
            t = s[s["method"] == m].sort_values("n")
            if t.empty:
                continue
            c = color_of(m)
            trials = int(t["n_trials"].min())
            fig.add_trace(band_trace(t["n"], t["test_metric_lo"], t["test_metric_hi"], c, alpha=0.15), row=1, col=j)
            fig.add_trace(
                go.Scatter(
                    x=t["n"],
                    y=t["test_metric_mean"],
                    mode="lines+markers",
                    name=f"{label_of(m)} ({trials} trials)",
                    line={"color": c},
                    legendgroup=m,
                    showlegend=j == 1,
                ),
                row=1,
                col=j,
            )
        fig.update_xaxes(type="log", title_text="n (training examples)", row=1, col=j)
        if j == 1:  # the panels share the y axis: one title
            fig.update_yaxes(title_text=metric, row=1, col=j)
    name = "Figure 1 (linear regression)" if model == "least_squares" else "Figure 2 (logistic regression)"
    use_white_template(fig)
    fig.update_layout(
        height=460,
        title=name,
        legend={"orientation": "h", "yanchor": "top", "y": -0.28, "xanchor": "left", "x": 0},
        margin={"b": 150},
    )
    return fig


def local_vs_n_figure(table: pd.DataFrame) -> go.Figure:
    """Local epsilon (nominal and exact) against n on log-log axes, with a slope 1/2 guide."""
    t = table.sort_values("n")
    fig = go.Figure()
    _line(fig, t["n"], t["local_epsilon_nominal"], "local ε, Corollary 1 (nominal)", color="#0072B2")
    _line(fig, t["n"], t["local_epsilon_exact"], "local ε, exact (Gaussian DP)", color="#D55E00", dash="dash")
    if len(t) >= 2:
        n0, n1 = float(t["n"].iloc[-1]) / 1e4, float(t["n"].iloc[-1])
        y1 = float(t["local_epsilon_nominal"].iloc[-1])
        guide = "slope 1/2 guide (sqrt n)"
        _line(fig, [n0, n1], [y1 / 100.0, y1], guide, color="#BBBBBB", dash="longdash", width=1)
    y_title = "local ε of one contributor's release"
    title = "Local privacy weakens like sqrt(n)"
    return apply_layout(fig, title=title, x_title="n (contributors)", y_title=y_title, log_x=True, log_y=True)
