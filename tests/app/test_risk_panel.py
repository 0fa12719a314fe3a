"""AppTest: Home's "What this ε means" panel shows exactly the risk engine's numbers and sentences."""

import pytest
from _helpers import metrics

from dp_core import display
from dp_core.risk import mechanism_risk
from dp_core.text import escape_markdown
from ui.risk_panel import OPEN_KEY


def _panel(at):
    return next(e for e in at.expander if e.label == "What this ε means")


def _check(at, eps, delta):
    assert not at.exception
    r = mechanism_risk("gaussian", eps=eps, delta=delta)
    m = metrics(at)
    assert m["Gaussian-DP μ"] == display.number(r["mu"])
    assert m["Membership-inference advantage"] == display.percent(r["mia_advantage"])
    assert m["TPR at 1 % FPR"] == display.percent(r["tpr_at_fpr"]["0.01"])
    assert m["TPR at 0.1 % FPR"] == display.percent(r["tpr_at_fpr"]["0.001"])
    text = " ".join(md.value for md in _panel(at).markdown)
    for s in r["sentences"]:
        assert escape_markdown(s) in text
    assert f"ε = {display.epsilon(eps)} among" in text


def test_home_shows_the_risk_panel(app):
    app.session_state[OPEN_KEY] = True  # opened, as a visitor would
    at = app.run()
    _check(at, 1.0, 1e-5)
    at.sidebar.select_slider(key="w_eps_slider").set_value(0.1).run()
    _check(at, 0.1, 1e-5)


def test_start_here_coin_game(app):
    from _helpers import open_page

    from dp_core import tour
    from ui.pages import TOUR_PAGE

    at = open_page(app, TOUR_PAGE, defaults={"trials": 10}, check=True, step=1)
    box = next(e for e in at.expander if e.label.startswith("A coin game"))
    g = tour.coin_game(30, 0.3, seed=0)
    m = {x.label: x.value for x in box.metric}
    assert m == {
        "Said yes": display.integer(g["yes"]),
        "Estimated share of yes": display.percent(g["estimate"]),
        "Noise (standard error)": f"± {display.percent(g['std_error'])}",
    }
    text = " ".join(md.value for md in box.markdown)
    assert all(s in text for s in tour.coin_story(g))
    at.number_input(key="tour_coin_n").set_value(1000).run()
    g = tour.coin_game(1000, 0.3, seed=0)
    assert metrics(at)["Said yes"] == display.integer(g["yes"])


MECHANISM_PAGES = {
    "pages/label_dp_bags.py": {"trials": 10},
    "pages/input_perturbation.py": {"trials": 10},
    "pages/large_margin_gaussian.py": {"trials": 10, "lm_n": 300},
    "pages/l1_exponential.py": {"trials": 10, "l1_sim_trials": 4, "l1_sim_n": 500, "l1_releases": 10},
}


@pytest.mark.parametrize("page", MECHANISM_PAGES)
def test_mechanism_pages_show_the_panel(app, page):
    from pathlib import Path

    from _helpers import open_page

    if "risk_panel(" not in (Path(__file__).resolve().parents[2] / page).read_text(encoding="utf-8"):
        pytest.skip(f"{page} does not call ui.risk_panel.risk_panel yet")
    app.session_state[OPEN_KEY] = True
    at = open_page(app, page, defaults=MECHANISM_PAGES[page])
    assert not at.exception
    box = _panel(at)
    labels = [m.label for m in box.metric]
    assert labels == ["Gaussian-DP μ", "Membership-inference advantage", "TPR at 1 % FPR", "TPR at 0.1 % FPR"]
    text = " ".join(md.value for md in box.markdown)
    assert "catches at most" in text and "advantage" in text
