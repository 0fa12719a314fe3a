"""Plotly figure builders of the large-margin Gaussian classifier page (pure functions, no streamlit)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ...figures import (
    REFUTED_COLOR,
    apply_layout,
    band_trace,
    color_of,
    hex_to_rgba,
    label_of,
    line_ci_figure,
    style_refuted,
    use_white_template,
)
from .experiments import decision_grid
from .model import gaussian_params
from .privacy import NOT_PRIVATE_REASONS

#: The modes whose ε-DP claim is refuted (drawn grey and dashed on every chart, issue 23).
REFUTED_MODES = tuple(NOT_PRIVATE_REASONS)

__all__ = [
    "CLASS_COLORS",
    "accuracy_bars_figure",
    "accuracy_figure",
    "decision_regions_figure",
    "excess_vs_epsilon_figure",
    "excess_vs_n_figure",
    "noise_norm_figure",
    "test_loss_figure",
    "tradeoff_figure",
    "unbounded_figure",
]

CLASS_COLORS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#000000",
    "#999999",
    "#882255",
)


_LIM = 1.05  # half-width of the decision-region panels (the unit disk and a margin)


def _line(x, y, name: str, line: dict, mode: str = "lines", **kw) -> go.Scatter:
    """A line trace named ``name`` drawn in the style ``line`` (``mode`` ``lines`` or ``lines+markers``)."""
    return go.Scatter(x=x, y=y, mode=mode, name=name, line=line, **kw)


def _level(xs, y: float, name: str) -> go.Scatter:
    """A dotted grey horizontal line at ``y`` across the range of ``xs``."""
    return _line([xs.min(), xs.max()], [y, y], name, {"color": "#888888", "dash": "dot", "width": 1})


def _ellipse(mu_c, Psi, n=80):
    """Points of ``{x : (x - mu)' Psi (x - mu) = 1}`` (2-D, Psi PD)."""
    w, V = np.linalg.eigh(Psi)
    t = np.linspace(0, 2 * np.pi, n)
    circ = np.stack([np.cos(t), np.sin(t)])
    pts = V @ (circ / np.sqrt(w)[:, None])
    return mu_c[0] + pts[0], mu_c[1] + pts[1]


def _add_regions(fig: go.Figure, phi, j: int, colors: list, *, scale: float, resolution: int) -> None:
    """Panel ``j``: the decision regions of ``phi`` and each class's ellipse and centroid where shown."""
    C = len(colors)
    xs, ys_, lab = decision_grid(phi, scale=scale, resolution=resolution)
    cs = [[i / max(C - 1, 1), hex_to_rgba(colors[i], 0.28)] for i in range(C)]
    if C == 1:
        cs = [[0, hex_to_rgba(colors[0], 0.28)], [1, hex_to_rgba(colors[0], 0.28)]]
    fig.add_trace(
        go.Heatmap(
            x=xs,
            y=ys_,
            z=lab,
            zmin=0,
            zmax=C - 1,
            colorscale=cs,
            showscale=False,
            hovertemplate="x1=%{x:.2f}, x2=%{y:.2f}: class %{z}<extra></extra>",
        ),
        row=1,
        col=j,
    )
    shapes = []  # each class's ellipse and centroid, where the panel shows them
    for c, (mu_c, Psi, _theta, pd_) in enumerate(gaussian_params(phi, scale=scale)):
        if pd_ and np.all(np.isfinite(mu_c)) and np.linalg.norm(mu_c) < 3:
            ex, ey = _ellipse(mu_c, Psi)
            if np.any((np.abs(ex) <= _LIM) & (np.abs(ey) <= _LIM)):
                line = {"color": colors[c], "width": 1.5}
                shapes.append(go.Scatter(x=ex, y=ey, mode="lines", line=line, showlegend=False, hoverinfo="skip"))
            if np.all(np.abs(mu_c) <= _LIM):
                shapes.append(
                    go.Scatter(
                        x=[mu_c[0]],
                        y=[mu_c[1]],
                        mode="markers",
                        marker={"symbol": "x", "size": 10, "color": colors[c]},
                        showlegend=False,
                        hovertemplate=f"centroid of class {c}<extra></extra>",
                    )
                )
    if shapes:
        fig.add_traces(shapes, rows=1, cols=j)


def decision_regions_figure(
    panels, X, y, *, scale: float, resolution: int = 101, n_points: int = 400, title: str = ""
) -> go.Figure:
    """Side-by-side decision regions ``argmin_c z' Phi_c z`` over the unit disk (d = 2).
    Parameters: docs/large_margin_gaussian.md §"figures.decision_regions_figure"."""
    k = len(panels)
    fig = make_subplots(rows=1, cols=k, subplot_titles=[p[0] for p in panels], horizontal_spacing=0.06)
    X = np.asarray(X)
    y = np.asarray(y).astype(int)
    step = max(1, len(X) // n_points)
    Xs, ys = X[::step], y[::step]
    C = int(max(y.max() + 1, max((p[1].shape[0] for p in panels if p[1] is not None), default=2)))
    colors = [CLASS_COLORS[c % len(CLASS_COLORS)] for c in range(C)]
    for j, (_sub, phi) in enumerate(panels, start=1):
        if phi is not None and np.all(np.isfinite(phi)):
            _add_regions(fig, phi, j, colors, scale=scale, resolution=resolution)
        else:
            fig.add_annotation(
                text="no release:<br>objective unbounded below",
                x=0,
                y=0,
                showarrow=False,
                row=1,
                col=j,
                font={"size": 14, "color": "#B00020"},
            )
        points = [
            go.Scatter(
                x=Xs[ys == c, 0],
                y=Xs[ys == c, 1],
                mode="markers",
                name=f"class {c}",
                legendgroup=f"c{c}",
                showlegend=(j == 1),
                marker={"size": 4, "color": colors[c], "line": {"width": 0.3, "color": "white"}},
                hovertemplate=f"class {c}<extra></extra>",
            )
            for c in range(C)
        ]
        fig.add_traces(points, rows=1, cols=j)
        fig.update_xaxes(range=[-_LIM, _LIM], title_text="x₁", row=1, col=j, constrain="domain")
        fig.update_yaxes(
            range=[-_LIM, _LIM], title_text="x₂", row=1, col=j, scaleanchor=f"x{'' if j == 1 else j}", scaleratio=1
        )
    use_white_template(fig)
    fig.update_layout(
        height=430, title=title, margin={"l": 50, "r": 20, "t": 60, "b": 40}, legend={"orientation": "h", "y": -0.15}
    )
    return fig


_BAR_COLORS = ("#BBBBBB", "#0072B2", "#444444")  # chance, private, non-private (in the page's order)


def accuracy_bars_figure(
    bars: list[tuple[str, float]], *, title: str = "", x_title: str = "test accuracy"
) -> go.Figure:
    """Horizontal bars of test accuracies (``(label, value)`` pairs, missing values drawn as empty bars)."""
    labels = [b[0] for b in bars]
    values = [float(b[1]) if b[1] is not None and math.isfinite(float(b[1])) else 0.0 for b in bars]
    texts = [f"{v:.2f}" if b[1] is not None and math.isfinite(float(b[1])) else "none" for b, v in zip(bars, values)]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=labels,
            orientation="h",
            text=texts,
            textposition="auto",
            marker={"color": [_BAR_COLORS[i % len(_BAR_COLORS)] for i in range(len(labels))]},
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
            showlegend=False,
        )
    )
    apply_layout(fig, title=title, x_title=x_title, y_title="classifier")
    fig.update_xaxes(range=[0, 1.02])
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=260)
    return fig


def accuracy_figure(
    summary: pd.DataFrame, *, chance: float, y: str = "accuracy", title: str = "", y_title: str = "test accuracy"
) -> go.Figure:
    """Mean test accuracy (or agreement) against epsilon per mode with 95% bands, plus chance level."""
    fig = line_ci_figure(
        summary,
        x="epsilon",
        y=y,
        method_col="method",
        log_x=True,
        title=title,
        x_title="ε (privacy budget)",
        y_title=y_title,
    )
    if chance is not None and math.isfinite(chance):
        xs = summary["epsilon"].to_numpy(dtype=float)
        fig.add_trace(_level(xs, chance, "chance level 1/C"))
    return style_refuted(fig, REFUTED_MODES)


def excess_vs_n_figure(summary: pd.DataFrame, bounds: pd.DataFrame, *, method: str, title: str = "") -> go.Figure:
    """Measured ``J(Phi^p) - J(Phi*)`` against n (log-log) with the bound tiers as dashed/dotted lines."""
    fig = line_ci_figure(
        summary,
        x="n",
        y="excess",
        method_col="method",
        log_x=True,
        log_y=True,
        title=title,
        x_title="n (training size)",
        y_title="J(Φᵖ) − J(Φ*) (per example)",
    )
    dashes = {"printed": "dot", "tier_u": "dashdot", "tier_c": "dash"}
    tier_names = {"printed": "as printed", "tier_u": "Tier U", "tier_c": "Tier C (corrected)"}
    grey = {"printed": "#B00020", "tier_u": "#7F7F7F", "tier_c": color_of(method)}
    if bounds is not None and not bounds.empty:
        if "quantity" in bounds:
            bounds = bounds[bounds["quantity"] == "empirical"]
        for (tier, name), g in bounds.groupby(["tier", "bound"], sort=False):
            g = g.sort_values("n")
            fig.add_trace(
                _line(
                    g["n"],
                    g["value"],
                    f"{tier_names[tier]}: {name}",
                    {"color": grey[tier], "dash": dashes[tier], "width": 1.5},
                    hovertemplate=f"{tier_names[tier]}: {name}: %{{y:.3g}}<extra></extra>",
                )
            )
    return fig


def excess_vs_epsilon_figure(summary: pd.DataFrame, *, title: str = "") -> go.Figure:
    """Measured ``J(Phi^p) - J(Phi*)`` against epsilon (log-log) per mode, with each mode's mean pathwise
    bound ``2 rho^2/(n^2 mu_eff)`` as a dashed line (P has none: its objective is not strongly convex)."""
    s = summary[summary["method"] != "nonprivate"]
    fig = line_ci_figure(
        s,
        x="epsilon",
        y="excess",
        method_col="method",
        log_x=True,
        log_y=True,
        title=title,
        x_title="ε (privacy budget)",
        y_title="J(Φᵖ) − J(Φ*) (per example)",
    )
    for m, g in s.groupby("method", sort=False):
        g = g.sort_values("epsilon")
        vals = g["pathwise_bound_mean"].to_numpy(dtype=float)
        if np.all(~np.isfinite(vals)):
            continue
        fig.add_trace(
            _line(
                g["epsilon"],
                vals,
                f"{label_of(str(m))}: mean pathwise bound",
                {"color": REFUTED_COLOR if m in REFUTED_MODES else color_of(str(m)), "dash": "dash", "width": 1.5},
                hovertemplate="pathwise bound %{y:.3g}<extra></extra>",
            )
        )
    return style_refuted(fig, REFUTED_MODES)


def tradeoff_figure(summary: pd.DataFrame, *, parameter: str, title: str = "") -> go.Figure:
    """Accuracy (left axis) and excess with its mean pathwise bound (right axis, log) against ``mu`` or ``h``."""
    s = summary.sort_values("value")
    sym = {"mu": "μ", "h": "h"}[parameter]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    col = color_of("corrected")
    n = int(s["n_trials"].min()) if len(s) else 0
    fig.add_trace(
        go.Scatter(
            x=s["value"],
            y=s["accuracy_mean"],
            mode="lines+markers",
            name=f"test accuracy, R ({n} trials)",
            line={"color": col, "width": 2},
            error_y={"type": "data", "array": (s["accuracy_hi"] - s["accuracy_mean"]).to_numpy(), "visible": True},
        ),
        secondary_y=False,
    )
    reference = {"color": color_of("nonprivate"), "width": 1}
    excess, bound = {"color": "#D55E00", "width": 2}, {"color": "#D55E00", "dash": "dash", "width": 1.5}
    for column, name, line, mode, right in (
        ("nonprivate_accuracy_mean", "non-private accuracy", reference, "lines", False),
        ("excess_mean", "measured excess (right)", excess, "lines+markers", True),
        ("pathwise_bound_mean", "mean pathwise bound (right)", bound, "lines", True),
    ):
        fig.add_trace(_line(s["value"], s[column], name, line, mode), secondary_y=right)
    apply_layout(fig, title=title, x_title=sym, y_title="test accuracy", log_x=True, height=400)
    fig.update_yaxes(title_text="J(Φᵖ) − J(Φ*)", type="log", secondary_y=True)
    return fig


def test_loss_figure(summary: pd.DataFrame, bounds: pd.DataFrame, *, method: str, title: str = "") -> go.Figure:
    """Test-loss excess against n beside the corrected C5.3 bound, and the share of each C5.3 term.

    Left (log-log): measured ``L(Phi^p) - L(Phi*)`` on the test set (mean, 95% band) and the C5.3 total. Right: the
    terms A (trace), B (Frobenius), E (empirical) and S (sample) as shares of the total, so one sees which term
    dominates (docs/large_margin_gaussian.md §"Plots")."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["measured test-loss excess and C5.3", "C5.3: share of each term"],
        horizontal_spacing=0.12,
    )
    s = summary.sort_values("n")
    col = color_of(method)
    n_tr = int(s["n_trials"].min()) if len(s) else 0
    xs = s["n"].to_numpy(dtype=float)
    mean, lo, hi = (s[f"test_loss_excess_{q}"].to_numpy(dtype=float) for q in ("mean", "lo", "hi"))
    pos = np.where(np.isfinite(lo) & (lo > 0), lo, np.abs(mean) / 10)
    name = f"{label_of(method)}: measured ({n_tr} trials)"
    fig.add_traces(
        [band_trace(xs, pos, hi, col), _line(xs, mean, name, {"color": col, "width": 2}, "lines+markers")],
        rows=1,
        cols=1,
    )
    tb = (
        bounds[bounds.get("quantity", pd.Series(dtype=str)) == "true_risk"]
        if bounds is not None and len(bounds)
        else None
    )
    if tb is not None and not tb.empty:
        tot = tb[tb["bound"] == "C5.3 total"].sort_values("n")
        dashed = {"color": col, "dash": "dash", "width": 1.5}
        fig.add_trace(_line(tot["n"], tot["value"], "C5.3 total (corrected; prob ≥ 1 − 2δ)", dashed), row=1, col=1)
        bars = []
        for key, c in {"A": "#56B4E9", "B": "#E69F00", "E": "#D55E00", "S": "#999999"}.items():
            g = tb[tb["bound"].str.startswith(f"C5.3 term {key}")].sort_values("n")
            share = 100 * g["value"].to_numpy() / tot.set_index("n").loc[g["n"], "value"].to_numpy()
            bars.append(
                go.Bar(
                    x=[str(int(v)) for v in g["n"]],
                    y=share,
                    name=g["bound"].iloc[0],
                    marker_color=c,
                    hovertemplate="%{y:.1f}% of C5.3<extra></extra>",
                )
            )
        fig.add_traces(bars, rows=1, cols=2)
    use_white_template(fig)
    fig.update_layout(
        barmode="stack",
        height=420,
        title=title,
        margin={"l": 60, "r": 20, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    fig.update_xaxes(type="log", title_text="n", row=1, col=1)
    fig.update_yaxes(type="log", title_text="L(Φᵖ) − L(Φ*) on the test set", row=1, col=1)
    fig.update_xaxes(title_text="n", type="category", row=1, col=2)
    fig.update_yaxes(title_text="% of the C5.3 total", row=1, col=2, range=[0, 100])
    return fig


def unbounded_figure(df: pd.DataFrame, *, title: str = "") -> go.Figure:
    """Share of noise draws whose literal (printed) objective is unbounded below, against epsilon."""
    fig = go.Figure()
    col = color_of("printed")
    x = df["epsilon"].to_numpy(dtype=float)
    m = df["share"].to_numpy(dtype=float)
    se = df["se"].to_numpy(dtype=float)
    nd = int(df["n_draws"].iloc[0]) if len(df) else 0
    fig.add_trace(band_trace(x, m - 1.96 * se, m + 1.96 * se, col))
    fig.add_trace(
        _line(
            x,
            m,
            f"{label_of('printed')} ({nd:,} draws per ε)",
            {"color": col, "width": 2},
            "lines+markers",
            hovertemplate="ε=%{x:.3g}: %{y:.3f} of draws unbounded<extra></extra>",
        )
    )
    fig.add_trace(_level(x, 0.5, "lower limit ½ (b_pp < 0)"))
    apply_layout(fig, title=title, x_title="ε", y_title="share of draws with no minimiser", log_x=True, height=380)
    fig.update_yaxes(range=[0, 1.02])
    return fig


def noise_norm_figure(
    norms: np.ndarray, *, dim: int, beta: float, radii: dict, method: str, title: str = ""
) -> go.Figure:
    """Histogram of sampled noise norms with the ``Gamma(dim, 1/beta)`` density and the radii."""
    from scipy import stats

    norms = np.asarray(norms, dtype=float)
    fig = go.Figure()
    fig.add_trace(
        go.Histogram(
            x=norms,
            histnorm="probability density",
            name=f"sampled ‖N‖ ({len(norms)} draws)",
            marker_color=hex_to_rgba(color_of(method), 0.5),
            nbinsx=40,
        )
    )
    hi = max(float(norms.max()) if norms.size else 1.0, max(radii.values()) * 1.05)
    xs = np.linspace(0, hi, 300)
    fig.add_trace(
        _line(
            xs,
            stats.gamma(a=dim, scale=1 / beta).pdf(xs),
            f"Gamma({dim}, scale 1/β) density",
            {"color": "#000000", "width": 1.5},
        )
    )
    styles = {"printed": "dot", "union": "dash", "exact": "solid"}
    for name, r in radii.items():
        fig.add_vline(
            x=r,
            line={"dash": styles.get(name.split()[0], "dash"), "color": "#7F7F7F"},
            annotation_text=name,
            annotation_position="top",
        )
    return apply_layout(fig, title=title, x_title="‖N‖_F", y_title="density", height=360)
