"""ui.state.widget: the one page-widget idiom (declared parameter -> widget -> URL, surviving reruns)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page():
    import streamlit as st

    from ui import state

    a = state.widget("ip_alpha")
    n = state.widget("lm_n")
    pub = state.widget("lb_public")
    mode = state.widget("lm_mode")
    st.write(f"values {a} {n} {pub} {mode}")


def _q(at: AppTest, key: str) -> str:
    v = at.query_params[key]
    return v[0] if isinstance(v, list) else v


def _open(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_function(_page, default_timeout=30)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    return at.run()


def test_defaults_come_from_the_declarations_and_reach_the_url():
    at = _open()
    assert not at.exception
    assert at.markdown[-1].value == "values 1.0 1000 False corrected"
    assert _q(at, "ip_alpha") == "1" and _q(at, "lm_n") == "1000" and _q(at, "lm_mode") == "corrected"


def test_a_link_sets_the_widgets_and_a_change_goes_back_to_the_url():
    at = _open({"ip_alpha": "0.25", "lm_n": "2000", "lb_public": "1", "lm_mode": "printed"})
    assert at.markdown[-1].value == "values 0.25 2000 True printed"
    at.select_slider(key="ip_alpha").set_value(0.5).run()
    at.slider(key="lm_n").set_value(3000).run()
    assert at.markdown[-1].value == "values 0.5 3000 True printed"
    assert _q(at, "ip_alpha") == "0.5" and _q(at, "lm_n") == "3000"


def test_a_refused_link_value_falls_back_to_the_default_and_the_value_survives_reruns():
    at = _open({"lm_mode": "bogus", "lm_n": "50"})
    assert not at.exception
    # lm_n = 50 is below the declared range [100, 20000]: clamped; lm_mode is not an option: default
    assert at.markdown[-1].value.endswith("False corrected")
    at.selectbox(key="lm_mode").set_value("repaired").run()
    at.run()
    assert at.markdown[-1].value.endswith("repaired")
