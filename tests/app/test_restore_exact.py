"""Issue 28: links and configurations restore exactly the view the person was on.

For every page of ``ui/pages.py``: its link (the URL) opened by a second visitor gives the same URL and the
same settings (link -> state -> link), and a JSON configuration naming the page, uploaded on Compare, opens
that page with those settings (JSON -> state -> link). On Compare the downloaded configuration restored in
another session keeps every mechanism (``mech=all``, the large-margin method included), the tab, and the
headline answer, and its own download equals the one restored (JSON -> state -> JSON).
"""

import pytest
from _helpers import open_page
from streamlit.testing.v1 import AppTest

import ui.share as share
from dp_core.compare import ExplorerConfig, applicable_adapters
from dp_core.data import DATASETS
from ui.pages import PAGES

APP = "../../app.py"
COMPARE = "pages/compare.py"
SHARED = {"eps": "2", "delta": "1e-06", "seed": "3", "trials": "10", "k": "32", "m": "50", "rho": "0.2"}
#: Non-default settings of every page (the browser test's shared link, ``tests/browser/test_every_page.py``).
PAGE_SETTINGS = {
    "pages/start_here.py": {"step": "3"},
    "pages/home.py": {"dataset": "iris"},
    "pages/input_perturbation.py": {"ip_alpha": "0.5", "ip_mode": "ALG1", "ip_eta": "2"},
    "pages/large_margin_gaussian.py": {"lm_n": "300", "lm_mode": "repaired", "lm_lam": "0.02", "lm_psd": "off"},
    "pages/label_dp_bags.py": {"lb_variant": "noisy-wtd-llp", "lb_noise_std": "2", "lb_metric": "excess_risk"},
    "pages/l1_exponential.py": {
        "l1_theta": "1.8",
        "l1_conv": "paper_proof",
        "l1_sim_trials": "4",
        "l1_sim_n": "500",
        "l1_releases": "10",
    },
    COMPARE: {"n_eps": "4", "eps_min": "0.1", "eps_max": "5", "view": "excess_risk", "cview": "negotiate"},
    "pages/audit.py": {"mechanism": "laplace", "audit_runs": "2000", "audit_pair": "random"},
    "pages/adassp.py": {"ad_failure_prob": "0.1"},
    "pages/dp_gd.py": {"gd_clip": "0.5", "gd_steps": "10"},
    "pages/dp_naive_bayes.py": {"nb_count_share": "0.2"},
    "pages/label_rr.py": {"rr_bins": "20", "rr_prior_share": "0.2"},
}
ALL_PAGES = [p for p, *_ in PAGES]


def _app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=240)


def _query(at: AppTest) -> dict[str, str]:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def _state(at: AppTest, names) -> dict:
    return {n: at.session_state[n] if n in at.session_state else None for n in names}


def test_every_page_has_settings_here():
    assert set(PAGE_SETTINGS) == set(ALL_PAGES)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_link_reopens_the_same_view(page):
    settings = PAGE_SETTINGS[page]
    first = open_page(_app(), page, check=True, **SHARED, **settings)
    link = _query(first)
    for key, value in {**SHARED, **settings}.items():
        assert (
            float(link[key]) == float(value)
            if key not in ("ip_mode", "lm_mode", "lm_psd") and _number(value)
            else link[key] == value
        ), key
    second = open_page(_app(), page, check=True, **link)
    assert _query(second) == link
    shared_names = [f"p_{k}" for k in SHARED]
    assert _state(second, shared_names) == _state(first, shared_names)
    assert _state(second, settings) == _state(first, settings)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("page", [p for p in ALL_PAGES if p != COMPARE])
def test_json_configuration_opens_its_page_with_its_settings(page):
    settings = {k: v for k, v in PAGE_SETTINGS[page].items() if k != "dataset"}
    cfg = ExplorerConfig.from_query({**SHARED, "dataset": "diabetes"}, page=page).replace(params=settings)
    at = open_page(_app(), COMPARE, check=True, dataset="iris", trials="10", n_eps="4")
    at.file_uploader(key="cmp_share_upload").set_value(("c.json", cfg.to_json().encode(), "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    link = _query(at)
    assert link["dataset"] == "diabetes" and float(link["eps"]) == 2.0 and link["seed"] == "3"
    for key, value in settings.items():
        assert key in link, key
        assert (float(link[key]) == float(value)) if _number(value) else (link[key] == value), key
    direct = open_page(_app(), page, check=True, **SHARED, dataset="diabetes", **settings)
    drawn = [k for k in settings if k in direct.session_state]  # widgets of a fragment come later
    assert _state(at, drawn) == _state(direct, drawn)
    if page == "pages/start_here.py":  # the tour keeps its step under its own key
        assert at.session_state["tour_step"] == direct.session_state["tour_step"] == 3


def _headline(at: AppTest) -> list[str]:
    return [s.value for s in at.success if "smallest ε" in s.value]


def test_compare_configuration_keeps_every_method_the_tab_and_the_answer(monkeypatch):
    shown: list[ExplorerConfig] = []
    panel = share.share_panel
    monkeypatch.setattr(share, "share_panel", lambda config, **kw: (shown.append(config), panel(config, **kw)))
    view = {"trials": "10", "n_eps": "4", "cview": "negotiate", "tmetric": "accuracy", "tvalue": "0.9"}
    at = open_page(_app(), COMPARE, check=True, dataset="breast_cancer", **view)
    cfg, answer = shown[-1], _headline(at)
    every = [a.key for a in applicable_adapters(DATASETS["breast_cancer"].task)]
    assert "large_margin_gaussian" in every and cfg.params["mech"] == "all" and answer
    # restored in a session that was on a dataset of another task (two mechanisms apply to iris)
    other = open_page(_app(), COMPARE, check=True, dataset="iris", trials="10", n_eps="4")
    assert other.session_state["mech_select"] != every
    other.file_uploader(key="cmp_share_upload").set_value(("c.json", cfg.to_json().encode(), "application/json")).run()
    assert not other.exception
    assert other.session_state["mech"] == "all" and other.session_state["mech_select"] == every
    assert other.session_state["cview_tab"] == "🤝 Negotiate" and _query(other)["mech"] == "all"
    assert _headline(other) == answer
    assert shown[-1].to_json() == cfg.to_json()


def test_link_copied_on_the_share_tab_reopens_the_tab_before_it():
    at = open_page(_app(), COMPARE, check=True, dataset="breast_cancer", trials="10", n_eps="4", cview="share")
    at.session_state[share.SHARED_VIEW] = "negotiate"
    at.run()
    assert any("cview=negotiate" in c.value for c in at.code if "compare?" in c.value)
    assert share.shared_view("card") == "card"
