"""Every mechanism page links to the Privacy audit with its mechanism (and a mode) preselected."""

import re
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from dp_core.audit import MECHANISMS

PAGES = ["input_perturbation", "large_margin_gaussian", "label_dp_bags", "l1_exponential"]


#: A non-default setting per page and the audit-table row (mechanism, mode) that setting must link to.
CURRENT_MODE = {
    "input_perturbation": ({"ip_mode": "ALG1"}, ("input-perturbation", "ALG1")),
    "large_margin_gaussian": ({}, ("large-margin-gaussian", "corrected")),
    "label_dp_bags": ({"rho": "0"}, ("label-dp-bags", "weighted-llp")),
    "l1_exponential": ({"l1_conv": "paper_box"}, ("l1-exponential", "paper_box")),
}


def _audit_links(at) -> list[tuple[str, str | None]]:
    """(mechanism, mode) of every link to the Privacy audit on the rendered page: markdown links
    (the first screen's "How we checked") and page links to pages/audit.py."""
    found = []
    for m in at.markdown:
        for query in re.findall(r"\]\(audit\?([^)]+)\)", str(m.value)):
            q = parse_qs(query)
            found.append((q["mechanism"][0], q.get("audit_mode", [None])[0]))
    for el in at.get("page_link"):
        q = parse_qs(el.proto.query_string)
        if el.proto.page in ("audit", "pages/audit.py") and "mechanism" in q:  # not the navigation's plain link
            found.append((q["mechanism"][0], q.get("audit_mode", [None])[0]))
    return found


@pytest.mark.parametrize("page", PAGES)
def test_page_calls_audit_link_with_a_known_mechanism_and_mode(page):
    """The page links to the audit of its current setting (the first-screen link counts), and every audit
    link on it names a known mechanism and mode."""
    query, current = CURRENT_MODE[page]
    at = AppTest.from_file("../../app.py", default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception
    links = _audit_links(at)
    assert current in links, f"pages/{page}.py does not link to the audit of its current mode {current}: {links}"
    for mech, mode in links:
        assert mech in MECHANISMS
        if mode:
            assert mode in MECHANISMS[mech].modes


@pytest.mark.parametrize("mech, mode", [("large-margin-gaussian", "repaired-psd-off"), ("label-dp-bags", "naive-llp")])
def test_link_preselects_the_audit(mech, mode):
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.query_params["mechanism"] = mech
    at.query_params["audit_mode"] = mode
    at.run()
    at.switch_page("pages/audit.py").run()
    assert not at.exception
    assert at.selectbox(key="mechanism").value == mech
