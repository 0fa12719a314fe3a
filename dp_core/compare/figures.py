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
from .. import status as vocab
from ..figures import (
    REFUTED_LEGEND_TITLE,
    add_bound_trace,
    band_trace,
    color_of,
    empty_figure,
    hex_to_rgba,
    hline,
    label_of,
    line_ci_figure,
    style_refuted,
    vline,
    vrect,
)
from .registry import TARGET_COLUMNS as _TARGET_COLUMN

__all__ = ["METRIC_TITLES", "LEGEND_TITLES", "compare_figure", "negotiation_figure", "refuted_methods"]

METRIC_TITLES = {
    "accuracy": "Test accuracy",
    "r2": "Test R² (labels on [-1, 1])",
    "excess_risk": "Excess risk (own training objective)",
    "mae": "Test MAE (lower is better)",
}


def _label_for(result, method: str) -> str:
    try:
        return result.method_info(method)["label"]
    except KeyError:
        return label_of(method)


_MARKER_LINE = {"color": "#555555", "width": 1, "dash": "dash"}  # the chosen ε, the data's own size
_TARGET_LINE = {"color": "#222222", "width": 2, "dash": "dashdot"}
_SPARE = ["#332288", "#88CCEE", "#44AA99", "#999933", "#882255", "#AA4499", "#DDCC77", "#661100", "#6699CC", "#888888"]


def refuted_methods(methods: list[dict]) -> set[str]:
    """The keys of the methods (rows with ``method`` and ``status``) whose guarantee is refuted."""
    return {m["method"] for m in methods if m.get("status") == vocab.REFUTED}


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


def _nonprivate_line(fig: go.Figure, result, s: pd.DataFrame, ref: float) -> None:
    """The best non-private value ``ref`` as a dotted line over the drawn methods' ε range (the whole grid
    when none is drawn): a real trace, so its legend entry draws."""
    eps = (s if len(s) else result.summary)["epsilon"].to_numpy(dtype=float)
    if not (math.isfinite(ref) and len(eps)):
        return
    line = {"color": color_of("nonprivate"), "width": 1.5, "dash": "dot"}
    name = f"Non-private fit ({display.number(ref)})"
    _level(fig, eps.min(), eps.max(), ref, name, "non-private fit", line, legendgroup="nonprivate")


def _level(fig: go.Figure, x0, x1, y: float, name: str, hover: str, line: dict, **group) -> None:
    """A horizontal line trace at ``y`` from ``x0`` to ``x1`` (a legend entry; ``hover``: its label, then ``y``)."""
    hovertemplate = f"{hover}: {display.number(y)}<extra></extra>"
    fig.add_scatter(
        x=[float(x0), float(x1)], y=[y, y], mode="lines", name=name, **group, line=line, hovertemplate=hovertemplate
    )


def _method_colors(result) -> dict[str, str]:
    """Each method's colour over the whole comparison (its methods in their order), so a method keeps its
    colour whichever subset a chart shows: the ε chart, the negotiation and the learning curves agree."""
    order = [m["method"] for m in result.methods]
    if len(result.summary):
        order += list(result.summary["method"])
    return _distinct_colors(list(dict.fromkeys(order)))


def _recolor(fig: go.Figure, colors: dict[str, str]) -> None:
    for tr in fig.data:
        m = tr.legendgroup
        if m in colors and colors[m] != color_of(m):
            c = colors[m]
            if getattr(tr, "fill", None) == "toself":
                tr.fillcolor = hex_to_rgba(c, 0.18)
            else:
                tr.line.color = c


def _add_reference(fig: go.Figure, result, s, *, y: str, show_bounds: bool, methods, colors: dict) -> None:
    """What the curves are read against: the non-private level (utility, MAE) or the theoretical bounds."""
    if y == "utility":
        _nonprivate_line(fig, result, s, result.reference_utility)
        lo = float(np.nanmin(s["utility_mean"])) if len(s) else 0.0
        if result.metric == "r2":
            fig.update_yaxes(range=[max(-1.0, min(lo, 0.0)) - 0.05, 1.02])
        else:
            fig.update_yaxes(range=[max(0.0, lo - 0.05), 1.02])
    elif y == "mae":
        _nonprivate_line(fig, result, s, result.reference_mae)
    elif show_bounds and result.bounds is not None and len(result.bounds):
        b = result.bounds if methods is None else result.bounds[result.bounds["method"].isin(methods)]
        for (meth, lab), g in b.groupby(["method", "label"], sort=False):
            g = g.sort_values("epsilon")
            add_bound_trace(
                fig, g["epsilon"], g["bound"], method=str(meth), name=f"{_label_for(result, str(meth))}: {lab}"
            )
        _recolor(fig, colors)


def compare_figure(
    result,
    *,
    y: str = "utility",
    eps_marker: float | None = None,
    show_bounds: bool = True,
    methods: list[str] | None = None,
    height: int = 480,
) -> go.Figure:
    """Utility (``y="utility"``), excess risk (``y="excess_risk"``) or test MAE (``y="mae"``,
    regression: in the target's units, with the best non-private MAE dotted) against epsilon; ``eps_marker``
    draws a vertical line at the chosen epsilon; ``show_bounds`` adds the (excess-risk) bounds dashed on the
    excess-risk view; ``methods`` restricts the methods drawn."""
    if y not in ("utility", "excess_risk", "mae"):
        raise ValueError(f"y must be 'utility', 'excess_risk' or 'mae', got {y!r}.")
    if y == "mae" and not result.has_mae:
        raise ValueError(f"y='mae' needs a regression comparison with a measured MAE; {result.dataset!r} has none.")
    s = result.summary
    if s is None or not len(s):
        return empty_figure("No results")
    if methods is not None:
        s = s[s["method"].isin(methods)]
    if y == "mae":  # only the methods that measured it, so no empty legend entry
        s = s[np.isfinite(s["mae_mean"].to_numpy(dtype=float))]
    metric = result.metric if y == "utility" else y
    log_y = y == "excess_risk"
    titles = {"x_title": "Privacy budget ε (log scale)", "y_title": METRIC_TITLES[metric]}
    fig = line_ci_figure(s, x="epsilon", y=y, method_col="method", log_x=True, log_y=log_y, height=height, **titles)
    colors = _method_colors(result)
    _recolor(fig, colors)
    # readable legend labels from the adapters (keep the trials count)
    for tr in fig.data:
        if tr.name and " (" in tr.name and tr.legendgroup:
            tr.name = f"{_label_for(result, tr.legendgroup)} ({tr.name.rsplit(' (', 1)[1]}"
    _add_reference(fig, result, s, y=y, show_bounds=show_bounds, methods=methods, colors=colors)
    style_refuted(fig, refuted_methods(result.methods))
    _group_legends(fig, result, height=height)
    if eps_marker is not None and math.isfinite(eps_marker) and eps_marker > 0:
        text = f"ε = {display.epsilon(eps_marker)}"
        vline(fig, eps_marker, log_x=True, line=_MARKER_LINE, annotation_text=text, annotation_position="top right")
    return fig


#: Legend titles: what each group of methods protects (refuted methods protect nothing: their own group).
LEGEND_TITLES = {
    "legend": "Protects features and labels",
    "legend2": "Protects labels only (features public)",
    "legend3": REFUTED_LEGEND_TITLE,
}
_ROW_PX, _TITLE_PX, _AXIS_PX, _GAP_PX = 19, 24, 62, 4


def _group_legends(fig: go.Figure, result, *, height: int) -> go.Figure:
    """Legends below the plot, never over an axis: protects features and labels (``legend``), labels only
    (``legend2``), refuted (``legend3``); one entry a row, the figure growing so the plot keeps ``height``."""
    label_only = {m["method"] for m in result.methods if m.get("label_dp")}
    refuted = refuted_methods(result.methods)
    counts = {name: 0 for name in LEGEND_TITLES}
    groups: dict[str, set] = {name: set() for name in LEGEND_TITLES}
    for tr in fig.data:
        which = "legend3" if tr.legendgroup in refuted else "legend2" if tr.legendgroup in label_only else "legend"
        tr.legend = which
        if tr.showlegend is not False:
            counts[which] += 1
            groups[which].add(tr.legendgroup)
    top = 50 if fig.layout.title.text else 20
    plot_h = height - top - 40
    y_px = _AXIS_PX
    layouts = {}
    for name in LEGEND_TITLES:
        if not counts[name]:
            continue
        layouts[name] = {
            "title": {"text": f"<b>{LEGEND_TITLES[name]}</b>", "side": "top"},
            "orientation": "v",
            "tracegroupgap": _GAP_PX,
            "x": 0,
            "xanchor": "left",
            "y": -y_px / plot_h,
            "yanchor": "top",
            "yref": "paper",
            "font": {"size": 12},
        }
        y_px += _TITLE_PX + counts[name] * _ROW_PX + len(groups[name]) * _GAP_PX + 6
    bottom = y_px + 10
    fig.update_layout(
        height=plot_h + top + bottom, margin={"t": top, "b": bottom, "autoexpand": True}, showlegend=True, **layouts
    )
    return fig


def negotiation_figure(result, answer: dict, *, height: int = 420) -> go.Figure:
    """The measured curves with the target as a horizontal line and each method's answer marked."""
    target = answer["target"]
    y = _TARGET_COLUMN.get(target["metric"], "utility")
    fig = compare_figure(result, y=y, show_bounds=(y == "excess_risk"), height=height)
    colors = _method_colors(result)
    metric = (
        "test MAE"
        if y == "mae"
        else METRIC_TITLES.get(target["metric"], str(target["metric"]).replace("_", " ")).lower()
    )
    relation = "≤" if target["metric"] in ("excess_risk", "mae") else "≥"
    value = target["value"]
    if y == "excess_risk" and not value > 0:
        raise ValueError(f"an excess-risk target must be > 0 to be drawn on a log axis, got {value!r}.")
    if y == "mae":  # the target in view even above the curves' range
        vals = result.summary["mae_mean"].to_numpy(dtype=float)
        vals = vals[np.isfinite(vals)]
        ref = result.reference_mae
        lo = min([float(value), *([ref] if math.isfinite(ref) else []), *vals.tolist()])
        top = float(value) * 2.5
        fig.update_yaxes(range=[max(0.0, lo * 0.9), max(top, lo * 1.5)])
    hline(
        fig,
        value,
        log_y=(y == "excess_risk"),
        line=_TARGET_LINE,
        annotation_text=f"target: {metric} {relation} {display.number(value)}",
        # MAE: the curves fall onto the target from above on the right; the label sits clear of them on the left
        annotation_position="top left" if y == "mae" else "bottom right",
    )
    _risk_cap(fig, answer.get("risk"))
    refuted = refuted_methods(answer["methods"])
    for row in answer["methods"]:
        e = row.get("epsilon_measured")
        if isinstance(e, (int, float)) and math.isfinite(e) and row["method"] not in refuted:
            fig.add_scatter(
                x=[e],
                y=[target["value"]],
                mode="markers",
                showlegend=False,
                marker={"symbol": "x", "size": 12, "color": colors.get(row["method"], color_of(row["method"]))},
                hovertemplate=f"{row['label']}: ε ≈ {display.epsilon(e)}<extra></extra>",
            )
    return fig


def _risk_cap(fig: go.Figure, risk: dict | None) -> None:
    """A risk cap beside the utility target: the largest ε it allows, a vertical line per kind of guarantee,
    and beyond it the region the cap forbids (``dp_core.risk.targets``); ε is on a log axis."""
    if not risk:
        return
    caps = {"pure ε-DP": risk["epsilon_max_pure"], f"(ε, δ = {risk['delta']:g})": risk["epsilon_max_approx"]}
    finite = {k: v for k, v in caps.items() if 0 < v < math.inf}
    for i, (kind, e) in enumerate(sorted(finite.items(), key=lambda kv: kv[1])):
        vline(
            fig,
            e,
            log_x=True,
            line={"color": "#b2182b", "width": 2, "dash": "dot"},
            annotation_text=f"risk cap {risk['target']['text']}: ε ≤ {display.epsilon(e)} ({kind})",
            annotation_position="top left" if i == 0 else "bottom left",
        )
    xs = [float(x) for t in fig.data if getattr(t, "x", None) is not None for x in t.x if x is not None]
    top = max(xs, default=0.0)
    if finite and top > max(finite.values()):
        vrect(fig, max(finite.values()), top, log_x=True, fillcolor="#b2182b", opacity=0.06, line_width=0)


def results_table(result) -> pd.DataFrame:
    """The summary as a readable table (one row per method and epsilon); the test-MAE columns only when
    a method measured one (regression)."""
    s = result.summary.copy()
    if not result.has_mae:
        s = s.drop(columns=[c for c in s.columns if c.startswith("mae_")])
    labels = {m["method"]: m["label"] for m in result.methods}
    s.insert(0, "label", s["method"].map(lambda m: labels.get(m, label_of(m))))
    return s


__all__.append("results_table")


def learning_curve_figure(answer: dict, *, height: int = 520) -> go.Figure:
    """Each method's utility (or excess risk, MAE) against the number of rows at the chosen ε, from the model
    the answers come from (``answer["model_curve"]``, :meth:`dp_core.learning_curve.UtilityModel.curve`):
    solid with markers over the measured sizes, dotted beyond them (an extrapolation), its 95% range
    shaded; the target; and each method's rows needed (×, its 95% range as a bar on the target line),
    where the drawn model and its range cross the target. Without a model (the chosen ε outside the grid)
    the measured curves at the grid ε nearest the chosen one, with 95% error bars."""
    target = answer["target"]
    if not answer.get("learning_curve"):
        return empty_figure("No learning curve")
    fig = go.Figure()
    labels = {r["method"]: r["label"] for r in answer["methods"]}
    refuted = refuted_methods(answer["methods"])
    models = answer.get("model_curve") or []
    shown = [m["method"] for m in models] or [r["method"] for r in answer["learning_curve"]]
    colors = _distinct_colors(list(dict.fromkeys([r["method"] for r in answer["methods"]] + shown)))
    n_far = _lc_reach(answer)
    for meth in dict.fromkeys(shown):
        c = colors.get(meth, color_of(meth))
        name = labels.get(meth, label_of(meth)) + (f" ({vocab.REFUTED}: not private)" if meth in refuted else "")
        if models:
            rec = next(m for m in models if m["method"] == meth)
            _add_model_curve(fig, rec, answer["n"], n_far, c, name, band=meth not in refuted)
        else:
            _add_measured_curve(fig, answer, meth, c, name)
    for r in answer["methods"]:
        if models and r["method"] in shown and r["method"] not in refuted:
            _add_rows_needed(fig, r, target["value"], colors.get(r["method"], color_of(r["method"])), n_far)
    style_refuted(fig, refuted)
    _lc_layout(fig, answer, n_far, height, models)
    return fig


def _lc_reach(answer: dict) -> float:
    """How far right the learning-curve chart reaches: the rows asked about and every finite rows-needed
    answer and end of its range; twice the farthest of them when a range is open beyond the model (at most
    1000 times the data's rows, the model's reach)."""
    from ..learning_curve import answer_number

    n_far, open_end = max(float(answer.get("n_answer", answer["n"])), float(answer["n"])), False
    for r in answer["methods"]:
        ends = [answer_number(r, k) for k in ("n_min", "n_min_lo", "n_min_hi")]
        n_far = max([n_far] + [v for v in ends if math.isfinite(v)])
        open_end = open_end or (math.isfinite(ends[0]) and math.isinf(ends[2]))
    return min(n_far * (2.0 if open_end else 1.0), 1000.0 * answer["n"])


def _add_model_curve(fig: go.Figure, rec: dict, n_data: float, n_far: float, c: str, name: str, *, band: bool) -> None:
    """One method's model at the chosen ε (its nodes up to the first beyond ``n_far``; straight between nodes
    on the log axis, as the model is linear in log n): band, solid over the data, dotted beyond."""
    ns = np.asarray(rec["n_rows"], dtype=float)
    vals = [np.array([math.nan if v is None else v for v in rec[k]], dtype=float) for k in ("value", "lo", "hi")]
    keep = np.arange(len(ns)) <= np.searchsorted(ns, n_far * (1 - 1e-9))
    ns, (mid, lo, hi) = ns[keep], [v[keep] for v in vals]
    if band:
        ok = np.isfinite(lo) & np.isfinite(hi)
        fig.add_trace(
            band_trace(ns[ok], lo[ok], hi[ok], c, alpha=0.15, legendgroup=rec["method"], name=f"{name} 95% range")
        )
    inside = ns <= n_data * (1 + 1e-9)
    hover = f"{name}<br>n = %{{x:,.0f}}<br>%{{y:.3f}} (95% range %{{customdata[0]:.3f}} to %{{customdata[1]:.3f}})"
    parts = ((inside, "solid", "lines+markers", "measured sizes"), (ns >= n_data, "dot", "lines", "extrapolated"))
    for part, dash, mode, tag in parts:
        if part.sum() < (1 if dash == "solid" else 2):
            continue
        fig.add_scatter(
            x=ns[part],
            y=mid[part],
            customdata=np.column_stack([lo[part], hi[part]]),
            mode=mode,
            name=name if dash == "solid" else f"{name}: extrapolated",
            legendgroup=rec["method"],
            showlegend=dash == "solid",
            line={"color": c, "dash": dash},
            hovertemplate=f"{hover}<br>{tag}<extra></extra>",
        )


def _add_measured_curve(fig: go.Figure, answer: dict, meth: str, c: str, name: str) -> None:
    """One method's measured learning curve at the grid ε nearest the chosen one, with 95% error bars."""
    col = _TARGET_COLUMN.get(answer["target"]["metric"], "utility")
    g = pd.DataFrame(answer["learning_curve"])
    g = g[(g["method"] == meth) & np.isclose(g["epsilon"], _nearest_grid_eps(answer))].sort_values("n_rows")
    fig.add_scatter(
        x=g["n_rows"],
        y=g[f"{col}_mean"],
        mode="lines+markers",
        name=name,
        legendgroup=meth,
        line={"color": c},
        error_y={
            "type": "data",
            "symmetric": False,
            "array": (g[f"{col}_hi"] - g[f"{col}_mean"]).to_numpy(dtype=float),
            "arrayminus": (g[f"{col}_mean"] - g[f"{col}_lo"]).to_numpy(dtype=float),
        },
        hovertemplate=f"{name}<br>n = %{{x:,.0f}}<br>%{{y:.3f}}<extra></extra>",
    )


def _nearest_grid_eps(answer: dict) -> float:
    eps_all = np.unique(np.array([r["epsilon"] for r in answer["learning_curve"]], dtype=float))
    return float(eps_all[np.argmin(np.abs(np.log(eps_all) - math.log(answer["epsilon_chosen"])))])


def _add_rows_needed(fig: go.Figure, r: dict, value: float, c: str, n_far: float) -> None:
    """A method's rows needed from the model (×) on the target line, its 95% range as a horizontal bar (to the
    chart's right edge, ``n_far``, when the range is open beyond the model)."""
    from ..learning_curve import answer_number

    nm = answer_number(r, "n_min")
    if r.get("n_min_source") != "measured" or not math.isfinite(nm):
        return
    lo, hi = answer_number(r, "n_min_lo"), answer_number(r, "n_min_hi")
    bar = {"type": "data", "symmetric": False, "array": [hi - nm], "arrayminus": [nm - lo], "color": c}
    rng = f"{display.integer(lo)} to {display.integer(hi, inf='beyond the model')}"
    fig.add_scatter(
        x=[nm],
        y=[value],
        mode="markers",
        showlegend=False,
        marker={"symbol": "x", "size": 12, "color": c},
        error_x=bar if math.isfinite(hi) else {**bar, "array": [n_far - nm]},
        hovertemplate=f"{r['label']}: n ≈ {display.integer(nm)} (95% range {rng})<extra></extra>",
    )


def _lc_layout(fig: go.Figure, answer: dict, n_far: float, height: int, models: list) -> None:
    """Title, axes, legend, the target across the rows shown and the data's own size."""
    target = answer["target"]
    col = _TARGET_COLUMN.get(target["metric"], "utility")
    e = answer["epsilon_chosen"] if models else _nearest_grid_eps(answer)
    what = "dotted: extrapolated; shaded: 95% range" if models else "measured; the chosen ε is outside the grid"
    log_y = col in ("excess_risk", "mae")  # MAE: the curves span orders of magnitude (noisy small samples)
    fig.update_layout(
        template="plotly_white",
        height=height,
        title=f"Learning curves at ε = {display.epsilon(e)} ({what})",
        xaxis={"type": "log", "title": "Rows in the dataset (log scale)"},
        yaxis={"type": "log" if log_y else "linear", "title": METRIC_TITLES.get(target["metric"], col)},
        legend={"orientation": "h", "yanchor": "top", "y": -_AXIS_PX / (height - 60 - 130), "xanchor": "left", "x": 0},
        margin={"t": 60, "b": 130},
    )
    n_lo = min(float(r["n_rows"]) for r in answer["learning_curve"])
    # the target as a trace over the rows shown (a shape would need the axis' own units)
    name = f"target {display.number(target['value'])}"
    _level(fig, n_lo, max(n_far, float(answer["n"])), target["value"], name, "target", _TARGET_LINE)
    n_text = f"this dataset: {display.integer(answer['n'])} rows"
    vline(
        fig, float(answer["n"]), log_x=True, line=_MARKER_LINE, annotation_text=n_text, annotation_position="top left"
    )


__all__.append("learning_curve_figure")
