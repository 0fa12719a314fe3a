"""The Compare page's "Share and export": notebook, script and brief downloads, and the decision log restored
from an uploaded configuration (issue 28)."""

import json

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
