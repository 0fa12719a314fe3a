"""The shared first-screen component: numbers, the audit-backed status badge, and a missing row made visible."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _screen(mechanism: str, mode: str):
    import plotly.graph_objects as go

    from ui.first_screen import KeyNumber, expert_section, first_screen

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    first_screen(
        who="Each person's record, from anyone who sees the released model.",
        numbers=[KeyNumber("Noise", "0.12", help="noise std"), KeyNumber("Accuracy", "0.91", delta="−0.02")],
        mechanism=mechanism,
        mode=mode,
        chart=fig,
    )
    with expert_section("Derivations"):
        import streamlit as st

        st.write("inside")


def _run(mechanism: str, mode: str) -> AppTest:
    at = AppTest.from_function(_screen, args=(mechanism, mode), default_timeout=60)
    return at.run()


def test_numbers_badge_and_expert_section():
    at = _run("gaussian", "classic")
    assert not at.exception
    assert [m.label for m in at.metric] == ["Noise", "Accuracy"]
    assert [m.value for m in at.metric] == ["0.12", "0.91"]
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges == [":green-badge[:material/verified: Proved]"]
    assert any("audit_row=gaussian%3Aclassic" in m.value for m in at.markdown)
    assert at.expander[0].label == "Derivations"


def test_badge_words_follow_the_audit_row():
    from dp_core.audit.table import load_audit_table
    from ui.first_screen import STATUS_WORDS

    rows = load_audit_table()
    bad = next(r for r in rows if r["status"] == "refuted")
    at = _run(bad["mechanism"], bad["mode"])
    assert not at.exception
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert len(badges) == 1 and STATUS_WORDS["refuted"][0] in badges[0] and badges[0].startswith(":red-badge")


def test_missing_audit_row_is_said():
    at = _run("gaussian", "no-such-mode")
    assert not at.exception
    assert any("No stored audit" in c.value for c in at.caption)


def _screen_with_method(mechanism: str, mode: str, status: str, statement: str):
    from ui.first_screen import KeyNumber, first_screen

    first_screen(
        who="Each person's record.",
        numbers=[KeyNumber("Accuracy", "0.91")],
        mechanism=mechanism,
        mode=mode,
        status=(status, statement),
    )


def test_the_method_s_own_status_wins_over_a_different_audited_mode():
    """Compare's best method can be a variant of an audited mode (the ℓ1 MCMC sampler beside the exact
    sampler's proved row): the badge shows the method's status, so it agrees with the sentence that names it."""
    from dp_core import status as vocab
    from ui.first_screen import STATUS_WORDS

    for method_status in (vocab.CLAIMED, vocab.PROVED):
        at = AppTest.from_function(
            _screen_with_method,
            args=("gaussian", "classic", method_status, "The sampler is approximate."),
            default_timeout=60,
        ).run()
        assert not at.exception
        badges = [m.value for m in at.markdown if "-badge[" in m.value]
        assert len(badges) == 1 and badges[0].endswith(f"{STATUS_WORDS[method_status][0]}]"), badges
