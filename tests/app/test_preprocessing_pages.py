"""AppTest: public bounds on Home, the row rule in the link, the eta cap on input perturbation (issue 13 item 3)."""

import pytest
from _helpers import open_page


def test_home_shows_documented_bounds_and_no_leak_for_a_demo_dataset(app):
    at = open_page(app, "pages/home.py", dataset="breast_cancer")
    assert not at.exception
    assert not any("leaks" in w.value for w in at.warning)
    table = at.dataframe[-1].value
    assert len(table) == 30 and "Lowest" in table.columns
    assert any("documented ranges of breast_cancer" in c.value for c in at.caption)


def test_the_row_rule_travels_with_the_link(app):
    at = open_page(app, "pages/input_perturbation.py", dataset="breast_cancer", preprocess="minmax", trials="10")
    assert not at.exception
    notes = " ".join(m.value for m in at.markdown)
    assert "minimum and maximum taken from the data" in " ".join(w.value for w in at.warning)  # minmax reads data
    assert "rows: minmax" in " ".join(c.value for c in at.caption)
    assert notes


def test_input_perturbation_warns_when_eta_caps_accuracy(app):
    at = open_page(app, "pages/input_perturbation.py", dataset="breast_cancer", ip_eta="0.5", trials="10")
    assert not at.exception
    assert any("bound limits accuracy" in i.value for i in at.info)


def test_input_perturbation_default_eta_follows_the_rule(app):
    # the default eta follows the documented rule at the page's epsilon: sqrt(31) at eps = 10 on breast_cancer
    at = open_page(app, "pages/input_perturbation.py", dataset="breast_cancer", eps="10", trials="10")
    assert not at.exception
    assert at.number_input(key="ip_eta").value == pytest.approx(31**0.5, rel=1e-6)
    assert not any("bound limits accuracy" in i.value for i in at.info)  # the rule's own value is not flagged
