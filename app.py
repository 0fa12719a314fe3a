"""Entry point of the Privacy-Utility Explorer: ``streamlit run app.py``.

The navigation is built from ``ui/pages.py`` (add a page there). Every page starts with
``widgets.sidebar_controls()``: the shared privacy budget, seed and trials, whose canonical values
live in ``st.session_state`` (``ui.state``), survive page switches and are mirrored in the URL.
Everything after ``set_page_config`` runs inside one error boundary (``ui.errors.boundary``): a failure
anywhere in a page shows a plain message with a reference id, and its traceback goes to the server's log only.
"""

import streamlit as st

from dp_core.execution import fallback_note
from ui import background, errors, state
from ui.executor import configure_executor
from ui.pages import DEFAULT_PAGE, PAGES

errors.install()  # the boundary also handles what escapes this script run elsewhere (fragments)
st.set_page_config(page_title="Privacy-Utility Explorer", page_icon="🔐", layout="wide")

# while a visitor's page runs, the warm-up thread below waits; no exception gets past the boundary
with background.script_run(), errors.boundary():
    # the operator's choice of executor (secrets or environment), once per process; said when it fell back
    if (_note := fallback_note(configure_executor())) is not None:
        st.sidebar.info(_note, icon="🖥️")
    background.warm()  # once per server, between visits: engine imports and the Monte-Carlo worker processes
    state.init_state()  # parses the link's shared values (ui.state); messages appear on the page
    _pages = [
        st.Page(path, title=title, icon=icon, default=(path == DEFAULT_PAGE)) for path, title, icon, _desc in PAGES
    ]
    pg = st.navigation(_pages, position="hidden")
    pg.run()
