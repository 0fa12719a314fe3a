"""Entry point of the Privacy-Utility Explorer: ``streamlit run app.py``.

The navigation is built from ``ui/pages.py`` (add a page there). Every page starts with
``widgets.sidebar_controls()``: the shared privacy budget, seed and trials, whose canonical values
live in ``st.session_state`` (``ui.state``), survive page switches and are mirrored in the URL.
"""

import streamlit as st

from ui import state
from ui.executor import configure_executor
from ui.pages import PAGES

st.set_page_config(page_title="Privacy-Utility Explorer", page_icon="🔐", layout="wide")

configure_executor()  # the operator's choice of executor (secrets or environment), once per process
state.init_state()  # parses the link's shared values (ui.state); messages appear on the page
pg = st.navigation(
    [st.Page(path, title=title, icon=icon, default=(i == 0)) for i, (path, title, icon, _desc) in enumerate(PAGES)],
    position="hidden",
)
pg.run()
