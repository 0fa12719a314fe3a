"""The guided tour "Start here": every step renders, Back/Next move it, the URL carries it, bad steps are refused."""

from __future__ import annotations

import pytest
from _helpers import charts, metrics, open_page
from streamlit.testing.v1 import AppTest

from dp_core import glossary
from ui.constants import TOUR_STEPS
from ui.pages import DEFAULT_PAGE, PAGES, TOUR_PAGE

QUICK = {"trials": 10}


def _step(at) -> int:
    return int(at.query_params["step"][0] if isinstance(at.query_params["step"], list) else at.query_params["step"])


def test_tour_is_listed_first_and_home_stays_the_default():
    assert PAGES[0][0] == TOUR_PAGE and PAGES[0][1] == "Start here"
    assert DEFAULT_PAGE == "pages/home.py"


@pytest.mark.parametrize("step", range(1, TOUR_STEPS + 1))
def test_every_step_renders(app, step):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, check=True, step=step)
    assert not at.error, [e.value for e in at.error]
    assert at.header[0].value.startswith(f"{step} · ")
    assert _step(at) == step
    # every step ends with a "go deeper" link and explains its symbols
    links = [p.proto.label for p in at.get("page_link") if "Go deeper" in p.proto.label]
    if step != TOUR_STEPS:
        assert links, step
    text = " ".join(m.value for m in [*at.markdown, *at.caption])
    assert glossary.unknown_symbols(text) == []


def test_steps_show_their_live_content(app):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, step=1)
    releases = [v for k, v in metrics(at).items() if k.startswith("Release")]
    assert len(releases) == 5 and len(set(releases)) > 1  # noisy releases differ
    at = open_page(AppTest.from_file("../../app.py", default_timeout=90), TOUR_PAGE, defaults=QUICK, step=2)
    (fig,) = charts(at)
    assert {t["name"] for t in fig["data"]} == {"Laplace", "Gaussian"}


def test_step_three_is_accuracy_against_epsilon_on_breast_cancer(app):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, step=3)
    (fig,) = charts(at)
    assert "accuracy" in fig["layout"]["yaxis"]["title"]["text"].lower()
    xs = {x for t in fig["data"] for x in (t.get("x") or []) if isinstance(x, (int, float))}
    assert min(xs) == pytest.approx(0.1) and max(xs) == pytest.approx(10.0)
    assert any("breast-cancer" in m.value for m in at.markdown)


def test_next_and_back_round_trip_through_the_url(app):
    at = open_page(app, TOUR_PAGE, defaults=QUICK)
    assert _step(at) == 1
    assert at.button(key="tour_back").disabled
    for expected in range(2, TOUR_STEPS + 1):
        at.button(key="tour_next").click().run()
        assert not at.exception
        assert _step(at) == expected and at.header[0].value.startswith(f"{expected} · ")
    assert at.button(key="tour_next").disabled
    at.button(key="tour_back").click().run()
    assert _step(at) == TOUR_STEPS - 1
    # the URL reopens the same step in a fresh session
    fresh = open_page(AppTest.from_file("../../app.py", default_timeout=90), TOUR_PAGE, defaults=QUICK, step=_step(at))
    assert fresh.header[0].value == at.header[0].value


@pytest.mark.parametrize(("raw", "used"), [("99", TOUR_STEPS), ("0", 1), ("two", 1), ("2.5", 1), ("inf", 1)])
def test_out_of_range_step_is_refused_with_a_message(app, raw, used):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, step=raw)
    assert not at.exception
    assert at.header[0].value.startswith(f"{used} · ")
    msgs = [w.value for w in at.warning if "(step)" in w.value]
    assert len(msgs) == 1 and "tour step" in msgs[0] and "1 to 6" in msgs[0], msgs


def test_negotiation_button_presets_breast_cancer_and_the_target(app):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, step=TOUR_STEPS)
    (btn,) = at.get("link_button")
    url = btn.proto.url
    assert url.startswith("compare?") and "dataset=breast_cancer" in url
    assert "tmetric=accuracy" in url and "tvalue=0.9" in url


@pytest.mark.slow
@pytest.mark.parametrize("step", range(1, TOUR_STEPS + 1))
@pytest.mark.parametrize("budget", [{"eps": 0.01, "delta": 1e-12}, {"eps": 10, "delta": 0.5}], ids=["tight", "loose"])
def test_every_step_at_the_edges_of_the_budget(app, step, budget):
    at = open_page(app, TOUR_PAGE, defaults=QUICK, check=True, step=step, **budget)
    assert not at.error, [e.value for e in at.error]
    text = " ".join(m.value for m in [*at.markdown, *at.caption, *at.metric])
    assert "nan" not in text.split() and "inf" not in text.split()
