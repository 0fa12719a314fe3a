"""Plain-language quantities that explain what (epsilon, delta) mean."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from . import display
from ._validation import check_delta, check_epsilon
from .figures import apply_layout, noise_scale_figure, vline

__all__ = ["posterior_bounds", "budget_meaning", "posterior_figure", "noise_curves", "noise_figure", "NOISE_EPS_RANGE"]

#: The ε range of the noise-against-ε chart (the app's privacy-budget slider runs over it).
NOISE_EPS_RANGE = (0.01, 10.0)


def posterior_bounds(prior: float | np.ndarray, *, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Range of an observer's belief after seeing an epsilon-DP output, for a given prior belief.

    Formula: ``docs/tour.md`` §"Formulas of dp_core/explain.py and dp_core/tour.py"."""
    eps = check_epsilon(epsilon)
    p = np.asarray(prior, dtype=float)
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"prior must be in [0, 1], got values outside it (min {p.min():g}, max {p.max():g}).")
    if math.isinf(eps):
        return np.where(p < 1, 0.0, 1.0), np.where(p > 0, 1.0, 0.0)
    f = math.exp(eps)
    hi = p * f / (p * f + (1 - p))
    lo = p / (p + (1 - p) * f)
    return lo, hi


def budget_meaning(*, epsilon: float, delta: float, n: int | None = None) -> dict:
    """Numbers that explain a privacy budget in words."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    lo, hi = posterior_bounds(0.5, epsilon=eps)
    out = {
        "epsilon": eps,
        "delta": d,
        "odds_factor": math.exp(eps) if eps < 700 else math.inf,
        "posterior_from_half": (float(lo), float(hi)),
        "delta_times_n": None if n is None else d * n,
    }
    if n is not None:
        out["delta_warning"] = d * n >= 1.0
    return out


def posterior_figure(*, epsilon: float) -> go.Figure:
    """The band of possible posteriors for every prior, at this epsilon."""
    eps = check_epsilon(epsilon)
    p = np.linspace(0, 1, 201)
    lo, hi = posterior_bounds(p, epsilon=eps)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=p, y=hi, mode="lines", line=dict(color="#D55E00"), name="highest possible belief"))
    fig.add_trace(
        go.Scatter(
            x=p,
            y=lo,
            mode="lines",
            line=dict(color="#0072B2"),
            fill="tonexty",
            fillcolor="rgba(213,94,0,0.12)",
            name="lowest possible belief",
        )
    )
    fig.add_trace(go.Scatter(x=p, y=p, mode="lines", line=dict(color="#999999", dash="dot"), name="no change"))
    return apply_layout(
        fig,
        title=f"What an observer can conclude about one person at ε = {display.epsilon(eps)}",
        x_title="belief before seeing the output",
        y_title="belief after",
        height=360,
    )


def noise_curves(*, delta: float, sensitivity: float = 1.0, n_points: int = 25):
    """The curves of :func:`noise_figure`: :func:`dp_core.tour.noise_scale_table` on a log grid over
    :data:`NOISE_EPS_RANGE` (they depend on δ only, so a page can keep them while ε moves)."""
    from .tour import noise_scale_table

    lo, hi = NOISE_EPS_RANGE
    return noise_scale_table(np.geomspace(lo, hi, n_points), delta=check_delta(delta), sensitivity=sensitivity)


def noise_figure(*, epsilon: float, delta: float, sensitivity: float = 1.0, curves=None) -> go.Figure:
    """Noise for one count against ε, with the current setting marked (Home's first chart; Dwork et al. 2006,
    Balle and Wang 2018): ``docs/tour.md`` §"Formulas of dp_core/explain.py and dp_core/tour.py"."""
    from .tour import noise_scale_table

    eps = check_epsilon(epsilon, allow_inf=False)
    d = check_delta(delta)
    table = noise_curves(delta=d, sensitivity=sensitivity) if curves is None else curves
    fig = noise_scale_figure(
        table,
        x="epsilon",
        y="scale",
        title=f"Noise added to one count, against ε (now ε = {display.epsilon(eps)})",
        x_title="privacy budget ε (smaller = more private)",
        y_title="noise scale (Laplace b, Gaussian σ)",
    )
    here = noise_scale_table([eps], delta=d, sensitivity=sensitivity)
    for trace in list(fig.data):
        row = here[here["method"].map(lambda m, name=trace.name: name.lower().startswith(str(m)))]
        if len(row):
            value = float(row["scale"].iloc[0])
            fig.add_trace(
                go.Scatter(
                    x=[eps],
                    y=[value],
                    mode="markers",
                    marker={"color": trace.line.color, "size": 10},
                    name=f"{trace.name} at ε = {display.epsilon(eps)}: {display.number(value)}",
                    showlegend=False,
                    hovertemplate=f"{trace.name}: {display.number(value)} at ε = {display.epsilon(eps)}<extra></extra>",
                )
            )
    vline(fig, eps, log_x=True, line_dash="dot", line_color="#444")
    fig.update_layout(height=340)
    return fig
