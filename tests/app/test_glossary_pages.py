"""Every symbol a page shows has a glossary entry (dp_core.glossary), checked on the rendered pages.

The text of a page is what a visitor reads on its first screen and below: titles, headers, Markdown,
captions, messages, metric labels and the labels of widgets, expanders and tabs (formulas rendered by
``st.latex`` are excluded: they are typeset from LaTeX source). The symbol extraction is tested on its
own in ``tests/test_glossary.py``; here it is also shown to fail on a page with an unknown symbol.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _helpers import open_page
from streamlit.testing.v1 import AppTest

from dp_core import glossary
from ui.pages import PAGES

pytestmark = pytest.mark.slow

#: Quick settings through the link (few trials, small experiments), as in the browser test.
QUICK = {
    "trials": 10,
    "lm_n": 300,
    "n_eps": 4,
    "l1_sim_trials": 4,
    "l1_sim_n": 500,
    "l1_releases": 10,
    "audit_runs": 2000,
}
_TEXT = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error")
_LABELLED = (
    "slider",
    "select_slider",
    "selectbox",
    "radio",
    "number_input",
    "checkbox",
    "toggle",
    "multiselect",
    "button",
    "text_input",
    "expander",
    "tab",
    "metric",
)


def page_texts(at) -> list[str]:
    """Every piece of text the rendered page shows (see the module docstring)."""
    out = []
    for kind in _TEXT:
        out += [e.value for e in at.get(kind) if isinstance(getattr(e, "value", None), str)]
    for kind in _LABELLED:
        out += [e.label for e in at.get(kind) if isinstance(getattr(e, "label", None), str)]
    return out


def unknown_on(at) -> dict[str, list[str]]:
    """Unknown symbol -> the first piece of text that shows it."""
    found: dict[str, list[str]] = {}
    for text in page_texts(at):
        for s in glossary.unknown_symbols(text):
            found.setdefault(s, []).append(text[:120])
    return found


def test_the_check_fails_on_a_page_with_an_unknown_symbol():
    script = (
        "import streamlit as st\n"
        "st.title('A page')\n"
        "st.markdown('With ε = 1 the bound of Tier Q uses ξ_q and the XQZ test.')\n"
        "st.slider('ϑ_z (new knob)', 0, 10)\n"
        "st.metric('σ_b', 3)\n"
    )
    at = AppTest.from_string(script).run()
    assert sorted(unknown_on(at)) == ["Tier Q", "XQZ", "ξ_q", "ϑ_z"]


@pytest.mark.parametrize("path", [p for p, *_ in PAGES], ids=[Path(p).stem for p, *_ in PAGES])
def test_every_symbol_on_the_page_has_a_glossary_entry(app, path):
    at = open_page(app, path, defaults=QUICK, check=True)
    texts = page_texts(at)
    assert len(texts) > 10  # the page rendered
    assert unknown_on(at) == {}
