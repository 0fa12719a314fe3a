"""AppTest tests of the heavy-tailed l1 regression page."""

import json

import numpy as np
import pytest
from _helpers import metrics
from _helpers import open_page as _open_page

PAGE = "pages/l1_exponential.py"


#: The lazy expert sections of the page (their content is computed only while open).
SECTIONS = ("l1_x_how", "l1_x_noise", "l1_x_base", "l1_x_bound", "l1_x_psi", "l1_x_assume", "l1_x_exp", "l1_x_sampler")


def open_page(app, sections: bool = True, **query):
    """The page with these link values; with ``sections``, every expert section opened as a visitor would."""
    if sections:
        for key in SECTIONS:
            app.session_state[key] = True
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
    assert any("guarantee not proved" in w.value for w in at.warning)


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
    for key in SECTIONS:
        app.session_state[key] = True
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


# ------------------------------------------------------------------ the plain first screen
FIRST_NUMBERS = ("Noise (spread)", "Privacy guarantee", "Prediction error (MAE)")


def first_screen_nodes(at) -> list:
    """The page's elements in order, up to the first expander (the settings and the expert sections)."""
    out = []

    def walk(node) -> bool:
        if getattr(node, "type", None) == "expander":
            return False
        children = getattr(node, "children", None)
        if children is None:
            out.append(node)
            return True
        return all(walk(c) for c in children.values())

    walk(at.main)
    return out


def first_screen_texts(at) -> list[str]:
    texts = []
    for node in first_screen_nodes(at):
        for attr in ("value", "label"):
            v = getattr(node, attr, None)
            if isinstance(v, str):
                texts.append(v)
        if node.type == "plotly_chart":
            fig = json.loads(node.proto.spec)
            texts.append(fig["layout"]["title"]["text"])
            texts += [t.get("name") or "" for t in fig["data"]]
    return texts


def _length(values) -> int:
    """Number of entries of a Plotly data array (a list, or a base64 typed array)."""
    if isinstance(values, dict):
        import base64

        return len(base64.b64decode(values["bdata"])) // np.dtype(values["dtype"]).itemsize
    return len(values)


def test_first_screen_has_three_numbers_a_status_badge_and_one_chart(app):
    at = open_page(app)
    assert not at.exception
    nodes = first_screen_nodes(at)
    numbers = [n for n in nodes if n.type == "metric"]
    assert [n.label for n in numbers] == list(FIRST_NUMBERS)
    m = {n.label: n.value for n in numbers}
    assert m["Privacy guarantee"] == "ε = 1"
    assert float(m["Noise (spread)"]) > 0 and float(m["Prediction error (MAE)"]) > 0
    badges = [n.value for n in nodes if n.type == "markdown" and "-badge[" in n.value]
    assert badges == [":green-badge[:material/verified: Proved]"]
    figs = [json.loads(n.proto.spec) for n in nodes if n.type == "plotly_chart"]
    assert len(figs) == 1 and figs[0]["layout"]["title"]["text"] == "Private coefficients against the non-private fit"
    # one dot per release and feature, and the non-private fit
    assert sum(_length(t["y"]) for t in figs[0]["data"][:-1]) == 20 * 2 and _length(figs[0]["data"][-1]["y"]) == 2
    assert any("Who is protected" in n.value for n in nodes if n.type == "markdown")


def test_every_symbol_on_the_first_screen_has_a_glossary_entry(app):
    from dp_core import glossary

    for query in ({}, {"l1_conv": "paper_box"}, {"dataset": "diabetes", "l1_mode": "mcmc"}, {"dataset": "iris"}):
        at = open_page(app, **query)
        assert not at.exception
        texts = first_screen_texts(at)
        symbols = set().union(*(glossary.symbols_in(t) for t in texts))
        assert not set().union(*(glossary.unknown_symbols(t) for t in texts)), query
        assert len(symbols) <= 5, (query, symbols)
        for n in first_screen_nodes(at):
            if n.type == "metric":
                assert n.help, n.label  # every key number explains itself


def test_printed_temperature_is_shown_as_not_valid_on_the_first_screen(app):
    at = open_page(app, l1_conv="paper_box")
    assert not at.exception
    nodes = first_screen_nodes(at)
    m = {n.label: n for n in nodes if n.type == "metric"}
    assert m["Privacy guarantee"].value == "ε = 2"  # exactly 2ε-DP under replace-one
    badges = [n.value for n in nodes if n.type == "markdown" and "-badge[" in n.value]
    assert len(badges) == 1 and badges[0].startswith(":red-badge") and "Refuted" in badges[0]
    # the printed statement and its correction stay in the expert section
    assert any("Refuted, not a valid guarantee" in e.value for e in at.error)


def test_noise_grows_when_epsilon_shrinks(app):
    from streamlit.testing.v1 import AppTest

    narrow = float(metrics(open_page(app, dataset="heavy_tailed"))["Noise (spread)"])
    fresh = AppTest.from_file(app._script_path, default_timeout=90)
    wide = float(metrics(open_page(fresh, dataset="heavy_tailed", eps="0.1"))["Noise (spread)"])
    assert wide > 2 * narrow


def _other_value(spec):
    """A valid value of ``spec`` that is not its default (for the URL round trip)."""
    if spec.options:
        return next(o for o in spec.options if o != spec.default)
    return {"theta": 1.8, "R": 2.5, "tau": 2.5, "sigma": 0.5}[spec.name]


def _widget_value(at, key):
    for kind in ("slider", "select_slider", "selectbox", "radio", "number_input", "toggle"):
        for w in at.get(kind):
            if w.key == key:
                return w.value
    raise AssertionError(f"no widget with key {key!r}")


def test_every_param_spec_widget_round_trips_through_the_url(app):
    from dp_core.mechanisms.l1_exponential import PLUGIN

    values = {spec.url_key: _other_value(spec) for spec in PLUGIN.params}
    assert values["l1_mode"] == "grid"
    values["l1_mode"] = "mcmc"  # the MCMC length is shown only when the approximate sampler runs
    at = open_page(app, dataset="diabetes", **{k: str(v) for k, v in values.items()})
    assert not at.exception, at.exception
    for spec in PLUGIN.params:
        got = _widget_value(at, spec.url_key)
        assert got == pytest.approx(values[spec.url_key]) if spec.kind is float else got == values[spec.url_key]
        q = at.query_params[spec.url_key]
        assert spec.parse(q[0] if isinstance(q, list) else q) == got, spec.url_key
    # the values survive a page switch
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()
    assert _widget_value(at, "l1_R") == pytest.approx(2.5) and _widget_value(at, "l1_exp") == values["l1_exp"]


SMALL = b"x1,x2,y\n" + b"".join(
    f"{(i * 7) % 11 - 5},{(i * 5) % 9 - 4},{((i * 7) % 11 - 5) * 0.4 + ((i * 13) % 7 - 3)}\n".encode()
    for i in range(100)
)


def test_small_upload_of_100_rows_gives_a_full_first_screen(app):
    for key in SECTIONS:
        app.session_state[key] = True
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("small.csv", SMALL, "text/csv")).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    nodes = first_screen_nodes(at)
    m = {n.label: n.value for n in nodes if n.type == "metric"}
    assert set(FIRST_NUMBERS) <= set(m) and m["Privacy guarantee"] == "ε = 1"
    assert any("80 training rows, 20 held out" in n.value for n in nodes if n.type == "caption")
    assert not at.error


def test_baselines_on_the_data_use_the_same_private_releases_as_the_first_screen(app):
    at = open_page(app, dataset="heavy_tailed", l1_releases="10")
    mae = metrics(at)["Prediction error (MAE)"]
    assert not at.dataframe or all("B1" not in str(d.value) for d in at.dataframe)
    at.button(key="l1_run_data_base_btn").click().run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "held-out MAE" in d.value.columns)
    assert len(table) == 4 and any("B1" in m for m in table["method"]) and any("DP-GD" in m for m in table["method"])
    em = table[table["method"].str.startswith("EM-L1-HT")]
    assert em["held-out MAE"].iloc[0] == mae  # same seed, same draws: the quick first answer is not redrawn
    at.run()  # the finished job stays shown on the next rerun
    assert any("held-out MAE" in d.value.columns for d in at.dataframe)


def test_expert_sections_compute_their_content_only_when_opened(app):
    at = open_page(app, sections=False)
    assert not at.exception
    assert [e.label for e in at.expander][1:] and "Truncation scale ι" not in metrics(at)
    assert len(at.get("plotly_chart")) == 1  # the first screen's chart only
    at.session_state["l1_x_how"] = True
    at.run()
    assert not at.exception and "Truncation scale ι" in metrics(at)


def test_a_fit_at_the_edge_of_the_allowed_coefficients_is_said_with_what_to_change(app):
    at = open_page(app, sections=False, dataset="census", l1_R=0.25)  # public scales: the LAD fit needs more than 0.25
    assert not at.exception
    assert any("largest coefficients allowed (radius R = 0.25)" in i.value for i in at.info)
    from streamlit.testing.v1 import AppTest

    at = open_page(AppTest.from_file(app._script_path, default_timeout=90), sections=False, dataset="census")
    assert not any("largest coefficients" in i.value for i in at.info)
