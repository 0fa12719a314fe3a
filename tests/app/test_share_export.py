"""The Compare page's "Share and export": notebook, script and brief downloads, and the decision log restored
from an uploaded configuration (issue 28)."""

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from _helpers import open_page

from dp_core.compare import ExplorerConfig

PAGE = "pages/compare.py"
FAST = {"trials": "10", "n_eps": "4", "mech": "output_perturbation"}
PARAMS = {"n_eps": 4, "mech": "output_perturbation"}
LOG = [
    {"who": "Owner", "epsilon": 0.5, "chosen": False, "date": "2026-11-20", "note": "first offer"},
    {"who": "Analyst", "epsilon": 2.0, "chosen": True, "date": "2026-11-21", "note": "agreed"},
]


def test_share_offers_notebook_script_and_brief(app):
    at = open_page(app, PAGE, check=True, dataset="iris", **FAST)
    labels = [b.proto.label for b in at.get("download_button")]
    for word in ("Notebook", "Script", "brief"):
        assert any(word in lab for lab in labels), (word, labels)


def test_uploaded_decision_log_is_restored_and_kept(app):
    at = open_page(app, PAGE, check=True, dataset="iris", **FAST)
    cfg = ExplorerConfig(dataset="wine", eps=2.0, trials=10, page=PAGE, params=PARAMS)
    text = json.dumps({**cfg.to_dict(), "decisions": LOG}).encode()
    at.file_uploader(key="cmp_share_upload").set_value(("c.json", text, "application/json")).run()
    assert not at.exception, at.exception
    assert any("Configuration restored" in s.value for s in at.success)
    assert [d["epsilon"] for d in at.session_state["_share_decisions"]] == [0.5, 2.0]
    assert not [w.value for w in at.warning if "decision log" in w.value]


def test_invalid_decision_log_in_a_file_is_said(app):
    at = open_page(app, PAGE, check=True, dataset="iris", **FAST)
    cfg = ExplorerConfig(dataset="iris", trials=10, page=PAGE, params=PARAMS)
    text = json.dumps({**cfg.to_dict(), "decisions": [dict(LOG[0], epsilon=-1)]}).encode()
    at.file_uploader(key="cmp_share_upload").set_value(("c.json", text, "application/json")).run()
    assert not at.exception, at.exception
    assert any("decision log was not restored" in m.value for m in [*at.warning, *at.success])


# ---------------------------------------------------------------- every mechanism page (issue 28)
MECHANISM_PAGES = [  # (page, share key, dataset, a page setting and its non-default value, quick settings)
    ("pages/dp_gd.py", "gd_share", "iris", ("gd_clip", "2"), {}),
    ("pages/label_rr.py", "rr_share", "wine", None, {}),
    ("pages/adassp.py", "adassp_share", "diabetes", None, {}),
    ("pages/dp_naive_bayes.py", "nb_share", "iris", ("nb_count_share", "0.2"), {}),
    ("pages/input_perturbation.py", "ip_share", "diabetes", ("ip_alpha", "0.5"), {}),
    ("pages/label_dp_bags.py", "lb_share", "breast_cancer", None, {}),
    ("pages/large_margin_gaussian.py", "lm_share", "gaussian_classes", None, {"lm_n": "300"}),
    ("pages/l1_exponential.py", "l1_share", "heavy_tailed", None, {"l1_sim_trials": "4", "l1_sim_n": "500"}),
]


@pytest.mark.parametrize(("page", "key", "dataset", "setting", "quick"), MECHANISM_PAGES, ids=lambda v: str(v))
def test_every_mechanism_page_shares_and_exports_its_view(app, page, key, dataset, setting, quick):
    query = {"dataset": dataset, "trials": "10", **quick, **(dict([setting]) if setting else {}), "evil": "<b>x</b>"}
    at = open_page(app, page, check=True, **query)
    assert not at.get("download_button")  # collapsed: nothing is built before the person opens it
    at.session_state[f"{key}_section"] = True
    at.run()
    assert not at.exception, at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    for word in ("Configuration", "Notebook", "Script", "brief"):
        assert any(word in lab for lab in labels), (page, word, labels)
    link = next(c.value for c in at.code if "?" in c.value)
    assert f"dataset={dataset}" in link and "trials=10" in link
    assert "evil" not in link  # an undeclared key of the visitor's link is not carried into the downloads
    config = ExplorerConfig.from_query(dict(parse_qsl(urlsplit(link).query)), page=page)
    assert config.dataset == dataset and config.trials == 10
    if setting:  # the page's own setting travels in the configuration the downloads are made from
        assert str(config.params[setting[0]]) == setting[1]


def test_a_configuration_restored_on_a_mechanism_page_opens_its_own_page(app):
    at = open_page(app, "pages/dp_gd.py", check=True, dataset="iris", trials="10")
    at.session_state["gd_share_section"] = True
    at.run()
    cfg = ExplorerConfig(
        dataset="wine", eps=2.0, trials=10, page="pages/dp_naive_bayes.py", params={"nb_count_share": 0.2}
    )
    at.file_uploader(key="gd_share_upload").set_value(("c.json", cfg.to_json().encode(), "application/json")).run()
    assert not at.exception, at.exception
    assert at.title[0].value.endswith("DP naive Bayes (Vaidya et al. 2013)")
    share = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "nb_count_share"]
    assert [w.value for w in share] == [0.2]
    assert at.query_params["dataset"] == "wine" and at.query_params["eps"] == "2"


def test_the_large_margin_pages_export_names_the_classes_it_shows_not_homes_regression_data(app):
    at = open_page(app, "pages/large_margin_gaussian.py", check=True, dataset="census", trials="10", lm_n="300")
    at.session_state["lm_share_section"] = True
    at.run()
    assert not at.exception, at.exception
    link = next(c.value for c in at.code if "?" in c.value)
    config = ExplorerConfig.from_query(dict(parse_qsl(urlsplit(link).query)), page="pages/large_margin_gaussian.py")
    assert config.dataset == "gaussian_classes"  # census is a regression: the page classifies its own demo
