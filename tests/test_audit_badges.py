"""Status badges come from the audit table, and the badge's link reopens the live audit of its row."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from streamlit.testing.v1 import AppTest

from dp_core import status as vocab
from dp_core.audit.table import STATUS_REFUTED, STATUSES, audit_row, row_key
from ui.badges import audit_link_params, large_margin_audit_mode

APP = "../app.py"


def _texts(at) -> str:
    parts = []
    for kind in ("error", "success", "info", "warning", "markdown", "caption"):
        parts.extend(str(e.value) for e in at.get(kind))
    return "\n".join(parts)


def test_large_margin_mode_mapping():
    assert large_margin_audit_mode("repaired", False) == "repaired-psd-off"
    assert large_margin_audit_mode("repaired", True) == "repaired"
    assert large_margin_audit_mode("printed", True) == "printed"


def test_link_params_name_the_row():
    row = audit_row("large-margin-gaussian", "printed")
    params = audit_link_params(row)
    assert params["audit_row"] == row_key("large-margin-gaussian", "printed")
    assert params["mechanism"] == "large-margin-gaussian" and params["audit_mode"] == "printed"
    assert params["audit_runs"] == str(row["runs"])


@pytest.mark.parametrize("mech, mode", [("large-margin-gaussian", "printed"), ("input-perturbation", "LOCAL")])
def test_audit_page_reopens_the_stored_row_and_reproduces_it(mech, mode):
    row = audit_row(mech, mode)
    assert row["status"] == STATUS_REFUTED
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in audit_link_params(row).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/audit.py").run()
    assert not at.exception
    text = _texts(at)
    # the row opened from the badge's link is shown in its own section, with its stored status
    assert "The stored audit-table row behind the status badge" in [e.label for e in at.expander]
    assert f"**Stored audit-table row** ({mech} · {mode}): status **{row['status']}**" in text
    assert "reproduces the stored row exactly" in text, text[-2000:]
    assert "violation found" in text
    assert "Distinguishing event:" in text
    if row["fpr_source"] == "exact law":
        assert "from the output's exact law" in text


PAGE_ROWS = [
    ("pages/l1_exponential.py", {"l1_conv": "paper_box"}, [("l1-exponential", "paper_box")]),
    ("pages/large_margin_gaussian.py", {}, [("large-margin-gaussian", "corrected")]),
    # default k, m = 0 (auto): the page starts from its suggested setting, proved by the exact profile
    ("pages/label_dp_bags.py", {}, [("label-dp-bags", "noisy-wtd-llp"), ("label-dp-bags", "noisy-wtd-llp-paper")]),
]
#: lazy expert sections that hold a page's badge (computed only when open): opened before the run
OPEN_SECTIONS = {"pages/label_dp_bags.py": ("lb_x_accounting",)}
# (the input-perturbation page shows its badges through ui.first_screen: see the test below)


def _badges_by_link(at) -> dict[str, str]:
    """Each "How we checked" link's target (``audit?...``) with the status badge drawn just before it."""
    values = [str(m.value) for m in at.markdown]
    out = {}
    for i, v in enumerate(values):
        for target in re.findall(r"\]\((audit\?[^)]+)\)", v):
            out[target] = values[i - 1] if i > 0 and "-badge[" in values[i - 1] else ""
    return out


@pytest.mark.parametrize("page, params, rows", PAGE_ROWS)
def test_mechanism_page_badge_comes_from_the_table(page, params, rows):
    """The page's status badge for each setting shows the words of the stored row's status, and its link
    names that row (``audit_row=mechanism:mode`` with the row's budget, pair and seeds)."""
    from ui.first_screen import STATUS_WORDS

    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    for key in OPEN_SECTIONS.get(page, ()):
        at.session_state[key] = True
    at.run()
    at.switch_page(page).run()
    assert not at.exception
    shown = _badges_by_link(at)
    for mech, mode in rows:
        row = audit_row(mech, mode)
        target = f"audit?{urlencode(audit_link_params(row))}"
        assert target in shown, (mech, mode, list(shown))
        assert f"audit_row={quote(row_key(mech, mode))}" in target
        status = row["status"]
        if (mech, mode) == ("label-dp-bags", "noisy-wtd-llp") and any(
            m.delta == "weak: above 1/n" for m in at.metric
        ):  # the first screen's δ is above 1/n: the proved row is shown as proved but weak
            status = vocab.with_weakness(status, "δ > 1/n")
            assert status == vocab.PROVED_WEAK
        words = STATUS_WORDS[status][0]
        assert f"{words}]" in shown[target], (mech, mode, shown[target])


@pytest.mark.slow
def test_compare_page_guarantees_carry_their_audit_row():
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    captions = [str(c.value) for c in at.get("caption") if "Audit table:" in str(c.value)]
    assert captions
    for c in captions:
        assert "audit_row=" in c and (sum(f"**{s}**" in c for s in STATUSES) == 1)


@pytest.mark.parametrize("mode", ["COR2", "ALG1"])
def test_input_perturbation_first_screen_badges_come_from_the_table(mode):
    """The first screen's status badge (the chosen mode's row) and the local-privacy badge (row LOCAL) of the
    privacy section: their words and their "How we checked" links come from the stored rows."""
    from urllib.parse import urlencode

    from ui.first_screen import STATUS_WORDS

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["ip_mode"] = mode
    at.query_params["trials"] = "10"
    at.run()
    at.switch_page("pages/input_perturbation.py").run()
    at.session_state["ip_sec_privacy"] = True
    at.run()
    assert not at.exception
    text = _texts(at)
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert len(badges) == 2
    for badge, m in zip(badges, (mode, "LOCAL"), strict=True):
        row = audit_row("input-perturbation", m)
        assert STATUS_WORDS[row["status"]][0] in badge, (m, badge)
        assert f"audit?{urlencode(audit_link_params(row))}" in text, m
