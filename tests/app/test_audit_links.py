"""Every mechanism page links to the Privacy audit with its mechanism (and a mode) preselected."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dp_core.audit import MECHANISMS

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["input_perturbation", "large_margin_gaussian", "label_dp_bags", "l1_exponential"]


@pytest.mark.parametrize("page", PAGES)
def test_page_calls_audit_link_with_a_known_mechanism_and_mode(page):
    src = (ROOT / "pages" / f"{page}.py").read_text(encoding="utf-8")
    m = re.search(r'widgets\.audit_link\("([^"]+)"(?:, "([^"]+)")?\)', src)
    assert m, f"pages/{page}.py does not link to the audit"
    mech, mode = m.group(1), m.group(2)
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
