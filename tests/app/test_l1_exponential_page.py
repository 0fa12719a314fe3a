"""AppTest tests of the heavy-tailed l1 regression page."""

import json

import numpy as np
import pytest
from _helpers import metrics
from _helpers import open_page as _open_page

PAGE = "pages/l1_exponential.py"


def open_page(app, **query):
    return _open_page(app, PAGE, **query)


CSV = b"a,b,c,target\n" + b"".join(
    f"{(i * 7) % 13 - 6},{(i * 3) % 5},{i % 4},{((i * 7) % 13 - 6) * 0.3 + ((i * 11) % 9 - 4)}\n".encode()
    for i in range(120)
)


def test_page_renders_with_readouts(app):
    at = open_page(app)
    assert not at.exception
    assert at.title[0].value == "🦎 Heavy-tailed ℓ1 regression"
    m = metrics(at)
    assert {"Truncation scale ι", "Residual threshold 1/ι", "Score sensitivity Δu", "Inverse temperature κ"} <= set(m)
    assert m["Sensitivity of S: log θ"] == "0.4055"  # theta = 1.5 by default
    assert len(at.get("plotly_chart")) >= 2
    # the MCMC tab is always labelled as approximate
    assert any("guarantee not certified" in w.value for w in at.warning)


def test_theta_slider_changes_output(app):
    at = open_page(app)
    before = metrics(at)
    at.slider(key="l1_theta").set_value(2.0).run()
    assert not at.exception
    after = metrics(at)
    assert after["Sensitivity of S: log θ"] == "0.6931"
    assert after["Inverse temperature κ"] != before["Inverse temperature κ"]
    assert at.query_params["l1_theta"] in (["2"], "2")


def test_query_params_restore_state(app):
    at = open_page(app, l1_theta="1.2", l1_ci="2", l1_conv="paper_box")
    assert not at.exception
    assert at.slider(key="l1_theta").value == pytest.approx(1.2)
    assert at.select_slider(key="l1_ci").value == pytest.approx(2.0)
    assert at.radio(key="l1_conv").value == "paper_box"
    # the printed temperature is shown as not a valid guarantee under replace-one
    assert any("2ε-DP under replace-one" in e.value for e in at.error)


@pytest.mark.parametrize("name", ["randhie", "heavy_tailed", "diabetes"])
def test_demo_datasets(app, name):
    at = open_page(app, dataset=name)
    assert not at.exception, at.exception
    assert f"**{name}**" in at.caption[0].value or any(name in c.value for c in at.caption)
    assert len(at.dataframe) >= 1
    assert "Truncation scale ι" in metrics(at)


def test_mcmc_mode_with_more_features(app):
    at = open_page(app, dataset="diabetes")
    at.multiselect[0].set_value(["age", "sex", "bmi", "bp"]).run()
    assert not at.exception
    assert any("Approximate sampler" in w.value for w in at.warning)
    assert any("MCMC diagnostics" in c.value for c in at.caption)


def test_uploaded_csv(app):
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("mine.csv", CSV, "text/csv")).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Truncation scale ι" in metrics(at)
    assert any("mine" in c.value or "upload" in c.value.lower() for c in at.caption)


def test_rate_experiment_button(app):
    at = open_page(app, dataset="heavy_tailed")
    at.select_slider(key="l1_sim_trials").set_value(4).run()
    assert at.radio(key="l1_exp").value == "rates"
    at.button(key="l1_run_exp_btn").click().run()
    assert not at.exception
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    rate = [f for f in figs if "against n" in f["layout"]["title"]["text"]]
    assert rate and any("reference slope" in (t.get("name") or "") for t in rate[0]["data"])
    # a rerun hits the cache (the cached function creates no element, so nothing has to be replayed)
    at.run()
    assert not at.exception
    assert any("against n" in json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart"))


def test_sampler_tab_button(app):
    at = open_page(app, dataset="heavy_tailed")
    at.button(key="l1_run_sampler_btn").click().run()
    assert not at.exception
    labels = {m.label for m in at.metric}
    assert {"Acceptance (MALA)", "split-R̂ (max)"} <= labels


def test_assumption_rates_panel(app):
    at = open_page(app)
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    panel = [f for f in figs if "coordinate-wise" in f["layout"]["title"]["text"]]
    assert panel and len(panel[0]["data"]) == 4
    # A2 (coordinate-wise) is sqrt(d) above A1 at every d > 1
    a1, a2 = panel[0]["data"][0], panel[0]["data"][1]
    ratio = np.asarray(a2["y"], dtype=float) / np.asarray(a1["y"], dtype=float)
    assert np.allclose(ratio, np.sqrt(np.asarray(a1["x"], dtype=float)))


def test_secondary_settings_round_trip_through_the_url(app):
    at = open_page(
        app,
        l1_assumption="A1",
        l1_tau="2.5",
        l1_eta="0.1",
        l1_sim_n="5000",
        l1_tail="2.5",
        l1_releases="50",
        l1_psi_iota="1.0",
    )
    assert not at.exception
    assert at.selectbox(key="l1_assumption").value == "A1"
    assert at.number_input(key="l1_tau").value == 2.5
    assert at.select_slider(key="l1_eta").value == 0.1
    assert at.select_slider(key="l1_sim_n").value == 5000
    assert at.select_slider(key="l1_tail").value == 2.5
    assert at.select_slider(key="l1_releases").value == 50
    at.number_input(key="l1_tau").set_value(3.0).run()
    assert not at.exception
    v = at.query_params["l1_tau"]
    assert float(v[0] if isinstance(v, list) else v) == 3.0
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()
    assert at.number_input(key="l1_tau").value == 3.0
