"""Regression: a page whose results come from the shared cache must render for the second visitor too.

The second session to open a page hits the warm ``st.cache_data`` cache; Streamlit then replays any
element the cached function created, and an element created *outside* the cached function (a
progress bar passed in as a callback) cannot be replayed (``CacheReplayClosureError``).
"""

import pytest
from streamlit.testing.v1 import AppTest

APP = "../../app.py"  # as in conftest.py: relative to this file

PAGE = "pages/label_dp_bags.py"


#: The label-DP page's lazy expert sections (opened here: the utility sweeps' button is in one of them).
LB_SECTIONS = ("lb_x_accounting", "lb_x_delta_k", "lb_x_conditions", "lb_x_utility", "lb_x_bags")


def _visit(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    if page == PAGE:
        for key in LB_SECTIONS:
            at.session_state[key] = True
    for key, value in {"trials": "10", **params}.items():
        at.query_params[key] = str(value)
    at.run()
    at.switch_page(page).run()
    return at


def test_label_dp_page_second_visitor_hits_warm_cache_without_exception():
    first = _visit(PAGE)
    assert not first.exception, [e.value for e in first.exception]
    first.button(key="lb_run").click().run()  # the utility sweeps run behind their button
    assert not first.exception, [e.value for e in first.exception]
    second = _visit(PAGE)
    assert not second.exception, [e.value for e in second.exception]
    second.button(key="lb_run").click().run()
    assert not second.exception, [e.value for e in second.exception]
    # the second visitor sees the same utility charts as the first
    assert len(second.get("plotly_chart")) == len(first.get("plotly_chart")) >= 8


@pytest.mark.parametrize(
    "page",
    [
        "pages/compare.py",
        "pages/input_perturbation.py",
        "pages/large_margin_gaussian.py",
        "pages/l1_exponential.py",
        "pages/audit.py",
        "pages/home.py",
    ],
)
def test_every_page_second_visitor_without_exception(page):
    # the other pages whose cached wrappers used to create progress bars inside the cached function
    first = _visit(page)
    assert not first.exception, [e.value for e in first.exception]
    second = _visit(page)
    assert not second.exception, [e.value for e in second.exception]
    assert len(second.get("plotly_chart")) == len(first.get("plotly_chart"))
