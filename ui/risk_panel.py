"""The "What this ε means" panel: the attacker's view of a guarantee beside the audit that measured it.

One call per page, ``risk_panel(mechanism, **setting)`` (the keywords of
:func:`dp_core.risk.mechanism_risk`); every number comes from that one cached call (``docs/risk.md``).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

import dp_core
from dp_core import display
from dp_core.risk import mechanism_risk, place_epsilon
from dp_core.text import escape_html, escape_markdown

from . import cached_scope as scoped
from .first_screen import expert_section

TITLE = "What this ε means"


@scoped.cache_data(max_entries=128, show_spinner=False)  # n, d of an upload stay in the session
def cached_risk(mechanism: str, setting: tuple, _version: str = dp_core.__version__) -> dict:
    """:func:`dp_core.risk.mechanism_risk` of ``mechanism`` at ``dict(setting)`` (a setting read from the data)."""
    return mechanism_risk(mechanism, **dict(setting))


@scoped.cache_data(max_entries=128, show_spinner=False, upload_independent=True)
def textbook_risk(mechanism: str, setting: tuple, _version: str = dp_core.__version__) -> dict:
    """The same for a textbook mechanism (Gaussian, Laplace): its setting holds no data statistic."""
    return mechanism_risk(mechanism, **dict(setting))


_TEXTBOOK = ("gaussian", "laplace")


ALPHA_MIN = 1e-4  # the chart's log α axis starts here: the attacks that matter wrongly accuse few


def _line(pairs, name, color, dash="solid", fill=None):
    xs, ys = zip(*[(a, b) for a, b in pairs if a >= ALPHA_MIN])
    return go.Scatter(x=xs, y=ys, mode="lines", name=name, line={"color": color, "dash": dash}, fill=fill)


def tradeoff_figure(r: dict) -> go.Figure:
    """The claimed trade-off curve (the region below it is what the claim forbids), the curve that actually
    holds when known, and the audit's measured (FPR, FNR) point with its confidence box."""
    fig = go.Figure()
    claim = "claimed curve" if r["refuted"] else "the guarantee's curve"
    fig.add_trace(_line(r["tradeoff"], f"{claim} (below it: forbidden)", "#1f77b4", fill="tozeroy"))
    fig.add_vline(x=0.01, line={"color": "#999", "dash": "dot", "width": 1})
    if r["actual"] is not None:
        fig.add_trace(_line(r["actual"]["tradeoff"], "what actually holds", "#d62728", "dash"))
    a = r["audit"]
    if a is not None:
        if not a["matches_claim"]:
            eps_a = display.epsilon(a["eps_claimed"])
            fig.add_trace(_line(a["claim_tradeoff"], f"the claim the audit tested (ε = {eps_a})", "#7f7f7f", "dot"))
        (x0, x1), (y0, y1) = (max(v, ALPHA_MIN) for v in a["fpr_box"]), a["fnr_box"]
        color = "#2ca02c" if a["consistent"] else "#d62728"
        box = go.Scatter(x=[x0, x1, x1, x0, x0], y=[y0, y0, y1, y1, y0], mode="lines", line={"color": color})
        fig.add_trace(box.update(name=f"{a['confidence']:.0%} confidence box", fill="toself"))
        verdict = "inside the allowed region" if a["consistent"] else "outside: the claim is broken"
        verdict += "" if a["matches_claim"] else " of the claim it tested"
        zero = " (FPR 0, drawn at 0.01 %)" if a["fpr"] < ALPHA_MIN else ""
        pt = go.Scatter(x=[max(a["fpr"], ALPHA_MIN)], y=[a["fnr"]], mode="markers", marker={"color": color, "size": 11})
        fig.add_trace(pt.update(name=f"audit's measured point ({verdict}){zero}"))
    fig.update_layout(
        title={"text": "What an attacker can do: the trade-off the guarantee allows"},
        xaxis={"title": "false-positive rate α (wrongly accused), log scale", "type": "log", "range": [-4, 0]},
        yaxis={"title": "false-negative rate β (missed)", "range": [0, 1]},
        height=420,
        margin={"t": 30, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def deployments_figure(epsilon: float, place: dict) -> go.Figure:
    """The published deployments' ε on a log axis, with the current ε."""
    rows = place["deployments"]
    e = {k: [escape_html(r[k]) for r in rows] for k in ("organisation", "what", "unit", "period", "model")}
    hover = [
        f"{e['organisation'][i]}: {e['what'][i]}<br>ε = {r['epsilon']:g}, δ = {r['delta']:g}; unit: {e['unit'][i]}, "
        f"per {e['period'][i]}, {e['model'][i]} model ({r['year']})"
        for i, r in enumerate(rows)
    ]
    ticks = [f"{o}: {w[:28]}…" if len(w) > 28 else f"{o}: {w}" for o, w in zip(e["organisation"], e["what"])]
    lo, hi = min(epsilon, rows[0]["epsilon"]), max(epsilon, rows[-1]["epsilon"])
    fig = go.Figure()
    dep = go.Scatter(x=[r["epsilon"] for r in rows], y=list(range(len(rows))), mode="markers")
    fig.add_trace(dep.update(name="published deployments", hovertext=hover, hoverinfo="text", marker={"size": 10}))
    here = go.Scatter(x=[epsilon] * 2, y=[-0.5, len(rows) - 0.5], mode="lines")
    fig.add_trace(here.update(name=f"this setting, ε = {display.epsilon(epsilon)}", line={"color": "#d62728"}))
    fig.update_layout(
        title={"text": "This ε among published deployments"},
        xaxis={"type": "log", "title": "ε (log scale)", "range": [math.log10(lo / 1.5), math.log10(hi * 1.5)]},
        yaxis={"tickvals": list(range(len(rows))), "ticktext": ticks},
        height=120 + 22 * len(rows),
        margin={"t": 30, "b": 40},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


#: The session-state key of the panel's section: it is computed only while open (like every expert section).
OPEN_KEY = "risk_open"


def risk_panel(mechanism: str, *, key: str = "risk", **setting) -> dict | None:
    """Draw the panel (collapsed) for ``mechanism`` at ``setting``; returns the engine's result while it is open."""
    with expert_section(TITLE, key=OPEN_KEY) as shown:
        if not shown:
            return None
        r = (textbook_risk if mechanism in _TEXTBOOK else cached_risk)(mechanism, tuple(sorted(setting.items())))
        st.markdown(f"**{escape_markdown(r['label'])}** · status: {escape_markdown(r['status'])}")
        for s in r["sentences"]:
            st.markdown(escape_markdown(s))
        tpr = r["tpr_at_fpr"]
        c = st.columns(2) + st.columns(2)  # four numbers, two to a row: none is cut short
        mu = display.number(r["mu"]) if r["mu"] is not None else f"≈ {display.number(r['mu_fit'])} (fit)"
        c[0].metric("Gaussian-DP μ", mu, help="Dong, Roth & Su 2022; a fit when the curve is not Gaussian")
        c[1].metric("Membership-inference advantage", display.percent(r["mia_advantage"]))
        c[2].metric("TPR at 1 % FPR", display.percent(tpr["0.01"]))
        c[3].metric("TPR at 0.1 % FPR", display.percent(tpr["0.001"]))
        st.plotly_chart(tradeoff_figure(r), width="stretch", key=f"{key}_tradeoff")
        a = r["audit"]
        if a is not None:
            where = (
                "this claim"
                if a["matches_claim"]
                else f"another setting, ε = {display.epsilon(a['eps_claimed'])}: read its point against the dotted "
                "curve of that claim, not this setting's"
            )
            st.caption(
                f"Audit ({escape_markdown(a['key'])}, tested {where}): measured false-positive rate "
                f"{display.percent(a['fpr'])}, false-negative rate {display.percent(a['fnr'])}, on "
                f"{display.integer(a['counts']['n_eval'])} evaluation runs per side; the boxes are Clopper–Pearson "
                f"intervals at {display.percent(a['confidence'])} confidence (docs/risk.md)."
            )
        if r["epsilon"] is not None and 0 < r["epsilon"] < float("inf"):
            place = place_epsilon(r["epsilon"])
            st.markdown(
                f"**ε = {display.epsilon(r['epsilon'])} among {len(place['deployments'])} published deployments:** "
                f"{place['below']} use a smaller ε, {place['equal']} the same, {place['above']} a larger one."
            )
            st.plotly_chart(deployments_figure(r["epsilon"], place), width="stretch", key=f"{key}_deployments")
            st.caption(escape_markdown(place["caveat"]))
    return r
