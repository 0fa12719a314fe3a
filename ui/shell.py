"""The generic mechanism page: the first screen and the expert sections, drawn from the plug-in.

A mechanism whose page is only its declaration calls :func:`render` (``page.py`` in its folder:
``from ui.shell import render; render("my-mech")``). The widgets come from the plug-in's
``ParamSpec``s (its frozen configs), the numbers and the chart from its plan's ``first_screen``
(a :class:`dp_core.plugin.Screen`), the collapsed sections from the plan's ``SECTIONS``
(``(title, function)`` pairs returning markdown text and an optional figure). Pages with a narrative
of their own use the same pieces (:func:`param_widgets`, :func:`draw_screen`).
"""

from __future__ import annotations

import streamlit as st

from dp_core import registry

from . import state, widgets
from .cached import plan
from .first_screen import KeyNumber, expert_section, first_screen


def param_widgets(plugin) -> dict:
    """``{name: value}`` of every parameter of ``plugin``: a page widget for its own ones (link key
    ``url_prefix + name``), the shared value for those without a prefix (``ui.state.get``)."""
    values = {}
    for spec in plugin.params:
        if spec.url_prefix:
            values[spec.name] = state.widget(spec.url_key, help=spec.help or None)
        else:
            values[spec.name] = state.get(spec.name)
    return values


def _arrow(number: tuple) -> str:
    """An up/down arrow only for a signed change ("+0.012 vs no privacy"), none for a comparison."""
    return "auto" if len(number) == 5 and number[3] and number[3][0] in "+-" else "off"


def draw_screen(screen, *, key: str) -> str | None:
    """Draw a plan's :class:`~dp_core.plugin.Screen`; return the status shown."""
    numbers = [KeyNumber(n[0], n[1], n[2] or None, *n[3:5], delta_arrow=_arrow(n)) for n in screen.numbers]
    mechanism, mode = screen.audit or (None, None)
    shown = first_screen(
        who=screen.who,
        numbers=numbers,
        mechanism=mechanism,
        mode=mode,
        status=screen.status,
        chart=screen.chart,
        chart_key=key,
        chart_caption=screen.caption or None,
        note=screen.note or None,
        weak=screen.weak or None,
    )
    for level, text, icon in screen.alerts:
        getattr(st, level)(text, **({"icon": icon} if icon else {}))
    return shown


def render(name: str) -> None:
    """The whole page of mechanism ``name`` from its plug-in and plan."""
    plugin = registry.get(name)
    eps, delta, seed, trials = widgets.sidebar_controls(page=plugin.page)
    st.title(f"{plugin.icon} {plugin.title}".strip())
    if plugin.summary:
        st.caption(plugin.summary)
    ds = widgets.current_dataset()
    widgets.dataset_badge(ds)
    values = param_widgets(plugin)
    P = plan(name)
    try:
        screen = P.first_screen(
            tuple(sorted(values.items())), ds.name, ds.fingerprint, eps, delta, seed, trials, _ds=ds
        )
    except (ValueError, TypeError) as exc:
        widgets.show_error(exc)
        return
    draw_screen(screen, key=f"{plugin.key}_first_chart")
    for i, (title, fn) in enumerate(getattr(P, "SECTIONS", ())):
        with expert_section(title, key=f"{plugin.key}_section_{i}") as shown:
            if shown:
                text, fig = fn(dict(values), eps=eps, delta=delta, seed=seed, trials=trials, ds=ds)
                st.markdown(text)
                if fig is not None:
                    st.plotly_chart(fig, key=f"{plugin.key}_section_{i}_chart")
    if plugin.has("risk"):  # the "What this ε means" panel from the plug-in's guarantee (dp_core.risk)
        from ui.risk_panel import risk_panel

        risk_panel(name, **plugin.load("risk").setting(dict(values), eps=eps, delta=delta, ds=ds))
