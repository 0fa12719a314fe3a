"""Issue 28: the ε slider's notes at very large and very small ε (text in ui.constants, numbers computed)."""

import math

import pytest
from streamlit.testing.v1 import AppTest

from dp_core import display
from ui.constants import EPS_LARGE, EPS_OPTIONS, EPS_SLIDER_ENDS, EPS_SMALL
from ui.widgets import eps_note


@pytest.mark.parametrize("eps", EPS_OPTIONS)
def test_a_note_exactly_at_the_extremes_with_e_to_the_eps(eps):
    note = eps_note(eps)
    assert bool(note) == (eps >= EPS_LARGE or eps <= EPS_SMALL)
    if note:
        assert f"ε = {display.epsilon(eps)}" in note and f"≈ {display.number(math.exp(eps))}" in note
        assert ("weak promise" in note) == (eps >= EPS_LARGE)


@pytest.mark.parametrize("eps", [EPS_SMALL, 1.0, EPS_LARGE])
def test_sidebar_shows_the_end_labels_and_the_note(eps):
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.query_params["eps"] = f"{eps:g}"
    at.run()
    captions = [c.value for c in at.sidebar.caption]
    assert EPS_SLIDER_ENDS[0] in captions and EPS_SLIDER_ENDS[1] in captions
    notes = [i.value for i in at.sidebar.info if i.value == eps_note(eps)]
    assert len(notes) == (0 if eps == 1.0 else 1)
