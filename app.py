"""Entry point of the Privacy-Utility Explorer: ``streamlit run app.py``.

The navigation is built from ``ui/pages.py`` (add a page there). Shared widgets (the privacy
budget, seed and trials) live in the sidebar here, so they keep their state across pages, and
every shared parameter is mirrored in the URL query string.
"""

import streamlit as st

from ui import state, widgets
from ui.pages import PAGES

st.set_page_config(page_title="Privacy-Utility Explorer", page_icon="🔐", layout="wide")

problems = state.init_state()
pg = st.navigation([st.Page(path, title=title, icon=icon, default=(i == 0))
                    for i, (path, title, icon, _desc) in enumerate(PAGES)])

with st.sidebar:
    st.markdown("### 🔐 Privacy budget")
    widgets.epsilon_delta_controls(container=st.sidebar)
    with st.expander("Monte-Carlo settings", expanded=False):
        widgets.seed_trials_controls(container=st)
    for p in problems:
        st.warning(p)

pg.run()
state.sync_url()
