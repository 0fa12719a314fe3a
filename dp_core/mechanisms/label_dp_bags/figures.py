"""Figures and the tables behind them for the label-DP-by-aggregation page (pure, no Streamlit).
Details: docs/label_dp_bags.md §"figures (module)" ([BSHNR], Theorems 1.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ... import display
from ... import status as vocab
from ...figures import (
    REFUTED_COLOR,
    apply_layout,
    color_of,
    group_refuted,
    hex_to_rgba,
    hline,
    hrect,
    label_of,
    line_ci_figure,
    vline,
    vrect,
)
from ...rng import as_generator
from . import bounds as acc

__all__ = [
    "ACCOUNTING_LABELS",
    "bag_illustration",
    "bag_illustration_figure",
    "delta_vs_k_figure",
    "delta_vs_k_table",
    "eps_profile_figure",
    "eps_profile_table",
    "min_k_table",
    "refuted_methods",
    "ratio_figure",
    "reproduction_figure",
    "residual_figure",
    "terms_figure",
    "terms_table",
    "utility_figure",
]

ACCOUNTING_LABELS = {
    "paper": "as claimed by the paper",
    "corrected": "corrected (explicit)",
    "exact": "exact (beyond the paper)",
}
_DASH = {"paper": "dot", "corrected": "dash", "exact": "solid"}
_EPS_COLORS = {0.5: "#0072B2", 1.0: "#D55E00", 2.0: "#009E73", 4.0: "#CC79A7"}
_DISPLAY_CAP = 1e6  # uncapped deltas above 1 are drawn up to here, inside the shaded vacuous band


def refuted_methods() -> frozenset[str]:
    """The method keys (:data:`~dp_core.mechanisms.label_dp_bags.batch.METHOD_KEYS`) the audit table refutes.

    Taken from the stored table's ``label-dp-bags`` rows (:func:`dp_core.audit.table.row_status`), the
    rows that back the page's badges: the variants without noise (naive LBA/LLP, weighted LLP).
    """
    from ...audit.table import STATUS_REFUTED, load_audit_table, row_status
    from .batch import METHOD_KEYS

    return frozenset(
        METHOD_KEYS[r["mode"]]
        for r in load_audit_table()
        if r["mechanism"] == "label-dp-bags" and r["mode"] in METHOD_KEYS and row_status(r) == STATUS_REFUTED
    )


def _k_grid(k_lo: float = 16.0, k_hi: float = 1e16, per_decade: int = 8) -> np.ndarray:
    n = round((math.log10(k_hi) - math.log10(k_lo)) * per_decade) + 1
    return np.unique(np.round(np.logspace(math.log10(k_lo), math.log10(k_hi), n)))


def delta_vs_k_table(
    *,
    mechanism: str,
    epsilons: Sequence[float],
    m: int,
    n: int,
    b1: float = 1.0,
    rho: float = 0.1,
    noise_std: float = 1.0,
    d: int | None = None,
    b2: float | None = None,
    gamma: float | None = None,
    lam: float | None = None,
    k_hi: float = 1e16,
    exact: bool = True,
    exact_points: int = 14,
) -> pd.DataFrame:
    """delta(k) for each epsilon and accounting; columns ``epsilon, k, accounting, delta,
    delta_uncapped`` (the sum of the terms before the cap at 1, for drawing the vacuous band).
    Details: docs/label_dp_bags.md §"figures.delta_vs_k_table".
    """
    ks = _k_grid(16.0, k_hi)
    parts: list[pd.DataFrame] = []
    log_cap = math.log(_DISPLAY_CAP)
    for eps in epsilons:
        for name, (var, mode, form) in acc.ACCOUNTINGS.items():
            if mechanism == "noisy-wtd-llp":
                t = acc.terms_noisy_wtd_llp_over_k(eps, ks, m, rho, b1, variant=var, mode=mode, noise_std=noise_std)
            else:
                t = acc.terms_wtd_lba_over_k(eps, ks, m, d, b1, b2, gamma, lam, variant=var, mode=mode, form=form)
            parts.append(
                pd.DataFrame(
                    {
                        "epsilon": np.full(ks.size, eps, dtype=np.float64),
                        "k": ks.astype(np.float64),
                        "accounting": name,
                        "delta": t["delta"],
                        "delta_uncapped": np.exp(np.minimum(t["log_total"], log_cap)),
                    }
                )
            )
    rows = []
    if exact and mechanism == "noisy-wtd-llp" and rho > 0 and n // m >= 2:
        kx = np.unique(np.round(np.logspace(math.log10(2), math.log10(n // m), exact_points)).astype(int))
        for k in kx:
            for ex in acc.llp_exact_delta_curve(list(epsilons), n, int(k), m, rho, b1, noise_std=noise_std):
                rows.append(
                    dict(epsilon=ex.epsilon, k=float(k), accounting="exact", delta=ex.delta, delta_uncapped=ex.delta)
                )
    if rows:
        parts.append(pd.DataFrame(rows))
    if not parts:
        return pd.DataFrame(columns=["epsilon", "k", "accounting", "delta", "delta_uncapped"])
    return pd.concat(parts, ignore_index=True)


def _target_line(fig: go.Figure, target_delta: float | None, color: str) -> None:
    if target_delta is not None and target_delta > 0:
        line = {"color": color, "dash": "dash"}
        hline(fig, target_delta, log_y=True, line=line, annotation_text=f"target δ = {display.delta(target_delta)}")


def delta_vs_k_figure(
    table: pd.DataFrame,
    *,
    n: int,
    m: int,
    k_current: int | None = None,
    target_delta: float | None = None,
    title: str = "",
) -> go.Figure:
    """Log-log delta against k: one colour per epsilon, one dash per accounting; the vacuous
    region (delta >= 1) shaded red, the feasible band k <= n/m shaded green."""
    fig = go.Figure()
    k_max = n // m
    hrect(
        fig,
        1.0,
        _DISPLAY_CAP,
        log_y=True,
        fillcolor="rgba(213,94,0,0.10)",
        line_width=0,
        annotation_text="vacuous: δ ≥ 1, no guarantee",
        annotation_position="top right",
    )
    if k_max >= 2:
        vrect(
            fig,
            2,
            k_max,
            log_x=True,
            fillcolor="rgba(0,158,115,0.10)",
            line_width=0,
            annotation_text=f"feasible k ≤ n/m = {k_max:,}",
            annotation_position="bottom left",
        )
    for (eps, name), s in table.groupby(["epsilon", "accounting"], sort=False):
        s = s.sort_values("k")
        col = _EPS_COLORS.get(float(eps), color_of(f"eps{eps}"))
        y = s["delta_uncapped"].to_numpy()
        y = np.where(y > 0, y, np.nan)
        fig.add_trace(
            go.Scatter(
                x=s["k"],
                y=y,
                mode="lines+markers" if name == "exact" else "lines",
                name=f"ε = {display.epsilon(eps)}, {ACCOUNTING_LABELS[name]}",
                line={"color": col, "dash": _DASH[name], "width": 2},
                hovertemplate=(
                    f"ε = {display.epsilon(eps)}, {ACCOUNTING_LABELS[name]}<br>k = %{{x:.3g}}<br>δ = "
                    f"%{{y:.3g}}<extra></extra>"
                ),
            )
        )
    if k_current is not None:
        vline(fig, k_current, log_x=True, line={"color": "#444", "dash": "dot"}, annotation_text=f"k = {k_current:,}")
    _target_line(fig, target_delta, "#444")
    apply_layout(fig, title=title, x_title="bag size k", y_title="δ (log scale)", log_x=True, log_y=True, height=480)
    fig.update_yaxes(range=[-30, math.log10(_DISPLAY_CAP)], exponentformat="power")
    k_top = float(table["k"].max()) if len(table) else 1e16
    fig.update_xaxes(range=[math.log10(2.0), math.log10(k_top) + 0.2], exponentformat="power")
    fig.update_layout(hovermode="closest")
    return fig


def terms_table(summary: dict[str, Any]) -> pd.DataFrame:
    """The failure terms of :func:`dp_core.mechanisms.label_dp_bags.bounds.accounting_summary`, long format."""
    names = acc.TERMS[summary["mechanism"]]
    nice = {
        "gaussian": "Gaussian (Lemma 2.3)",
        "weights": "large weight (E1)",
        "count": "few noisy members (E2)",
        "chi": "small noise variance (E3)",
        "chi2": "χ² projection (event A)",
        "eigen": "bag eigenvalue (Lemma B.1)",
        "net": "bag residual net (Lemma B.2)",
    }
    rows = []
    for acc_name, prefix in (("paper", "paper"), ("corrected", "explicit")):
        for t in names:
            v = summary.get(f"{prefix}_{t}")
            if v is None:
                continue
            lab, dom = ACCOUNTING_LABELS[acc_name], summary.get(f"{prefix}_dominant") == t
            rows.append({"accounting": lab, "term": nice[t], "value": float(v), "dominant": dom})
    return pd.DataFrame(rows, columns=["accounting", "term", "value", "dominant"])


def terms_figure(table: pd.DataFrame) -> go.Figure:
    """Bar chart of the failure terms (log scale) for both accountings; terms above 1 make the bound vacuous."""
    fig = go.Figure()
    if table.empty:
        where = dict(showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
        fig.add_annotation(text="no failure terms: this setting has no guarantee to decompose", **where)
    for name, s in table.groupby("accounting", sort=False):
        col = "#999999" if name.startswith("as claimed") else "#E69F00"
        v = np.clip(s["value"].to_numpy(), 1e-300, None)
        fig.add_trace(
            go.Bar(
                x=s["term"].astype(str).tolist(),
                y=v.tolist(),
                name=name,
                marker_color=col,
                hovertemplate="%{x}: %{y:.3g}<extra>" + name + "</extra>",
            )
        )
    hline(
        fig,
        1.0,
        log_y=True,
        line={"color": "#D55E00", "dash": "dash"},
        annotation_text="1 (a term ≥ 1 makes δ vacuous)",
    )
    apply_layout(fig, x_title="failure term", y_title="value (log scale)", log_y=True, height=360)
    fig.update_layout(barmode="group", hovermode="closest")
    return fig


def eps_profile_table(
    *,
    n: int,
    k: int,
    m: int,
    rho: float,
    b1: float = 1.0,
    noise_std: float = 1.0,
    epsilons: Sequence[float] | None = None,
) -> pd.DataFrame:
    """delta(epsilon) at fixed k for noisy-wtd-LLP: the exact profile and both explicit bounds."""
    eps_grid = np.logspace(-1.5, 1.3, 24) if epsilons is None else np.asarray(epsilons, dtype=float)
    rows = []
    for e, ex in zip(eps_grid, acc.llp_exact_delta_curve(eps_grid, n, k, m, rho, b1, noise_std=noise_std)):
        rows.append({"epsilon": float(e), "accounting": "exact", "delta": ex.delta, "floor": ex.floor})
        for name, (var, mode, _) in acc.ACCOUNTINGS.items():
            d_ = acc.delta_noisy_wtd_llp(float(e), k, m, rho, b1, variant=var, mode=mode, noise_std=noise_std)
            rows.append({"epsilon": float(e), "accounting": name, "floor": ex.floor, "delta": d_})
    return pd.DataFrame(rows)


def eps_profile_figure(table: pd.DataFrame, *, target_delta: float | None = None) -> go.Figure:
    """The epsilon-delta profile at fixed k, with the floor (m k / n) P[H = 0] no epsilon removes."""
    fig = go.Figure()
    cols = {"exact": "#D55E00", "paper": "#999999", "corrected": "#E69F00"}
    for name, s in table.groupby("accounting", sort=False):
        fig.add_trace(
            go.Scatter(
                x=s["epsilon"],
                y=s["delta"],
                mode="lines",
                name=ACCOUNTING_LABELS[name],
                line={"color": cols[name], "dash": _DASH[name], "width": 2},
            )
        )
    floor = float(table["floor"].iloc[0])
    if floor > 0:
        hline(
            fig,
            floor,
            log_y=True,
            line={"color": "#444", "dash": "dot"},
            annotation_text=f"floor (mk/n)·P[H=0] = {display.delta(floor)}",
        )
    _target_line(fig, target_delta, "#0072B2")
    apply_layout(fig, x_title="ε", y_title="δ(ε) (log scale)", log_x=True, log_y=True, height=380)
    fig.update_layout(hovermode="closest")
    return fig


def min_k_table(
    *, mechanism: str, epsilons: Sequence[float], target_delta: float, n: int, m: int, **params: Any
) -> pd.DataFrame:
    """k_min(epsilon, target delta) for both explicit accountings, next to the feasibility limit n/m."""
    rows = []
    for e in sorted({float(x) for x in epsilons}):
        row = {"ε": e}
        for name, (var, mode, form) in acc.ACCOUNTINGS.items():
            kw = dict(params, variant=var, mode=mode)
            if mechanism == "wtd-lba":
                kw["form"] = form
            k = acc.min_k(target_delta, e, mechanism, m=m, **kw)
            row[f"k_min ({ACCOUNTING_LABELS[name]})"] = "none below 1e40" if k is None else display.integer(k)
        row["largest feasible k = ⌊n/m⌋"] = display.integer(n // m)
        rows.append(row)
    return pd.DataFrame(rows)


def utility_figure(
    summary: pd.DataFrame,
    *,
    x: str,
    y: str = "test_mse",
    title: str = "",
    y_title: str | None = None,
    log_x: bool = True,
) -> go.Figure:
    """Mean and 95% interval of a utility metric against k or m for every mechanism and baseline.

    The refuted variants (:func:`refuted_methods`) are drawn grey and dashed in the not-private legend group.
    """
    label = {
        "test_mse": "test MSE (labels in [−B1, B1])",
        "excess_risk": "excess risk val/n − opt/n",
        "ratio": "val(D, r̂) / opt(D, F)",
    }.get(y, y)
    x_title = {"k": "bag size k", "m": "number of bags m"}.get(x, x)
    fig = line_ci_figure(
        summary, x=x, y=y, title=title, x_title=x_title, y_title=y_title or label, log_x=log_x, log_y=y != "ratio"
    )
    # drawn half-width on the page: the legend goes lower so that it never covers the x-axis title
    fig.update_layout(hovermode="closest", legend={"y": -0.32})
    return group_refuted(fig, refuted_methods())


def ratio_figure(summary: pd.DataFrame, prediction: pd.DataFrame, *, x: str = "m") -> go.Figure:
    """Measured val(D, r̂)/opt against m with the random-design prediction (dashed, same colour).

    A refuted variant (:func:`refuted_methods`) and its prediction are drawn grey in the not-private legend group.
    """
    fig = line_ci_figure(
        summary, x=x, y="ratio", x_title="number of bags m", y_title="val(D, r̂) / opt(D, F)", log_x=True, log_y=True
    )
    for meth, s in prediction.groupby("method", sort=False):
        s = s.sort_values(x)
        fig.add_trace(
            go.Scatter(
                x=s[x],
                y=s["predicted"],
                mode="lines",
                name=f"{label_of(meth)}: predicted 1 + c·d/(m−d−1)",
                legendgroup=meth,
                line={"color": color_of(meth), "dash": "dash", "width": 1.5},
            )
        )
    fig.update_layout(hovermode="closest")
    return group_refuted(fig, refuted_methods())


def bag_illustration(*, n_items: int = 12, m: int = 3, k: int = 4, rho: float = 0.25, seed: int = 0) -> pd.DataFrame:
    """A small worked example: items with labels, their bag, weight, noise and contribution."""
    g = as_generator(seed)
    y = np.round(g.uniform(-1, 1, n_items), 2)
    perm = g.permutation(n_items)[: m * k].reshape(m, k)
    w = np.round(g.standard_normal((m, k)), 2)
    noisy = np.zeros(n_items, dtype=bool)
    noisy[g.choice(n_items, size=round(rho * n_items), replace=False)] = True
    noise = np.round(np.where(noisy, g.standard_normal(n_items), 0.0), 2)
    i, wi = perm.ravel(), w.ravel()  # row by row: bag 1's members first
    return pd.DataFrame(
        {
            "bag": np.repeat(np.arange(1, m + 1), k),
            "item": i,
            "label y": y[i],
            "weight w": wi,
            "noisy (in N)": noisy[i],
            "noise g": noise[i],
            "w·y": np.round(wi * y[i], 4),
            "w·(y+g)": np.round(wi * (y[i] + noise[i]), 4),
        }
    )


def bag_illustration_figure(table: pd.DataFrame) -> go.Figure:
    """Per bag: the plain label sum (naive), the weighted sum (wtd) and the noisy weighted sum, with
    each member's contribution stacked; the aggregate is the only label information released."""
    fig = go.Figure()
    bags = sorted(table["bag"].unique())
    for col, name, key in (
        ("#999999", "plain sum Σ y (naive)", "label y"),
        ("#E69F00", "weighted Σ w·y", "w·y"),
        ("#D55E00", "noisy weighted Σ w·(y+g)", "w·(y+g)"),
    ):
        sums = [table[table.bag == b][key].sum() for b in bags]
        fig.add_trace(
            go.Bar(
                x=[f"bag {b}" for b in bags],
                y=sums,
                name=name,
                marker_color=col,
                hovertemplate="%{x}: %{y:.3f}<extra>" + name + "</extra>",
            )
        )
    apply_layout(fig, x_title="bag", y_title="released label aggregate", height=320)
    fig.update_layout(barmode="group", hovermode="closest")
    return fig


def residual_figure(rss: np.ndarray, *, k: int, gamma: float | None) -> go.Figure:
    """Histogram of per-bag RSS/k (the conditional noise variance per example) against gamma/4."""
    fig = go.Figure(
        go.Histogram(x=np.asarray(rss) / k, nbinsx=40, marker_color=hex_to_rgba(color_of("wtd_lba"), 0.8), name="bags")
    )
    if gamma is not None:
        fig.add_vline(x=gamma / 4, line={"color": "#D55E00", "dash": "dash"}, annotation_text="γ/4 (Lemma 3.4)")
    apply_layout(fig, x_title="per-bag residual RSS_bag / k", y_title="number of bags", height=300)
    fig.update_layout(hovermode="closest")
    return fig


def reproduction_figure(table: pd.DataFrame) -> go.Figure:
    """Test MSE / instance MSE against m: paper (points), synthetic replica (lines), prediction (dashed)."""
    fig = go.Figure()
    t = table[table["table"] == 1]
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"]
    for (ds, k), s in t.groupby(["dataset", "k"], sort=True):
        s = s.sort_values("m")
        i = sorted(t[t.dataset == ds]["k"].unique()).index(k)
        col = palette[i % 4]
        sym = "circle" if ds == "criteo" else "diamond"
        fig.add_trace(
            go.Scatter(
                x=s["m"],
                y=s["paper_ratio"],
                mode="markers",
                marker={"color": col, "symbol": sym, "size": 9},
                name=f"{ds} k={k}: paper (as printed)",
            )
        )
        ok = s["replica_ratio"].notna()
        if ok.any():
            fig.add_trace(
                go.Scatter(
                    x=s["m"][ok],
                    y=s["replica_ratio"][ok],
                    mode="lines+markers",
                    line={"color": col},
                    marker={"symbol": sym},
                    name=f"{ds} k={k}: replica (synthetic, OLS)",
                )
            )
    for ds, s in t.groupby("dataset"):
        s = s.drop_duplicates("m").sort_values("m")
        fig.add_trace(
            go.Scatter(
                x=s["m"],
                y=s["predicted_ratio"],
                mode="lines",
                line={"color": "#000", "dash": "dash"},
                name=f"{ds}: predicted 1 + d/(m−d−1)",
            )
        )
    apply_layout(
        fig,
        title="Table 1 (wtd-LBA): test MSE relative to instance-level MSE",
        x_title="number of bags m",
        y_title="MSE / instance MSE",
        log_x=True,
        height=520,
    )
    fig.update_layout(hovermode="closest")
    return fig


def k_grid(n: int, m: int, k: int, *, max_points: int = 8) -> list[int]:
    """Bag sizes for a utility curve at fixed m: powers of two up to floor(n/m), plus the current k."""
    k_max = n // m
    ks = [2**i for i in range(1, 40) if 2**i <= k_max]
    if len(ks) > max_points:
        step = len(ks) / max_points
        ks = [ks[int(i * step)] for i in range(max_points)]
    if 2 <= k <= k_max:
        ks.append(int(k))
    return sorted(set(ks))


def m_grid(n: int, k: int, m: int, d: int, *, max_points: int = 7) -> list[int]:
    """Numbers of bags for a utility curve at fixed k: geometric from d + 2 up to floor(n/k), plus m."""
    m_max = n // k
    lo = min(d + 2, m_max)
    if m_max < 1:
        return []
    ms = np.unique(np.round(np.geomspace(max(lo, 1), m_max, max_points)).astype(int)).tolist()
    if 1 <= m <= m_max:
        ms.append(int(m))
    return sorted({int(x) for x in ms})


def prediction_table(
    ms: Sequence[int], *, d: int, rho: float, gamma_hat: float, noise_std: float = 1.0
) -> pd.DataFrame:
    """The random-design predictions of val(D, r̂)/opt(D, F) against m
    (docs/label_dp_bags.md §"Utility predictions")."""
    rows = []
    for m in ms:
        if m <= d + 1:
            continue
        rows.append({"m": m, "method": "wtd_lba", "predicted": acc.predicted_ratio_lba(m, d)})
        if gamma_hat > 0:
            rows.append(
                {
                    "m": m,
                    "method": "noisy_wtd_llp",
                    "predicted": acc.predicted_ratio_llp(m, d, rho, gamma_hat, noise_std),
                }
            )
    return pd.DataFrame(rows, columns=["m", "method", "predicted"])


__all__ += ["k_grid", "m_grid", "prediction_table"]


def first_screen_figure(util: dict, *, mechanism_label: str, method: str | None = None) -> go.Figure:
    """Bar chart of the first screen: test error of the bag mechanism beside the references.
    Details: docs/label_dp_bags.md §"figures.first_screen_figure".
    """
    refuted = method in refuted_methods()
    label = mechanism_label + (f" ({vocab.REFUTED}: not private)" if refuted else "")
    bars = [("No privacy", util["nonprivate"], 0.0, "#444444", "")]
    bars.append(
        (label, util["mse"], 1.96 * util["mse_se"], REFUTED_COLOR if refuted else "#D55E00", "/" if refuted else "")
    )
    if util.get("gaussian") is not None:
        bars.append(("Noise on every label", util["gaussian"], 0.0, "#0072B2", ""))
    bars.append(("Predict the average", util["trivial"], 0.0, "#BBBBBB", ""))
    names, values, errors, colors, hatch = (list(col) for col in zip(*bars))
    fig = go.Figure(
        go.Bar(
            x=names,
            y=values,
            marker={"color": colors, "pattern": {"shape": hatch}},
            error_y={"type": "data", "array": errors, "visible": True},
            text=[display.number(v, sig=3) for v in values],
            textposition="outside",
            hovertemplate="%{x}: %{text}<extra></extra>",
            showlegend=False,
        )
    )
    apply_layout(fig, x_title="model", y_title="squared error (lower is better)", height=330)
    fig.update_yaxes(range=[0, 1.15 * max(v + e for v, e in zip(values, errors, strict=True))])
    return fig
