"""AppTest tests of the input-perturbation page."""

import pytest
from _helpers import charts, metrics
from _helpers import open_page as _open_page
from streamlit.testing.v1 import AppTest

from dp_core import display
from dp_core.data import DATASETS, load_dataset
from dp_core.mechanisms.input_perturbation.params import input_perturbation_params

APP = "../../app.py"
PAGE = "pages/input_perturbation.py"


#: The page's lazy expert sections (their content runs only while open).
SECTIONS = ("ip_sec_formulas", "ip_sec_privacy", "ip_sec_scaling", "ip_sec_excess", "ip_sec_diag", "ip_sec_repro")


def open_sections(at):
    """Open every expert section, as a reader clicking each one would."""
    for key in SECTIONS:
        at.session_state[key] = True
    return at.run()


def open_page(**query):
    app = AppTest.from_file(APP, default_timeout=120)
    return open_sections(_open_page(app, PAGE, defaults={"trials": "10"}, **query))


CSV = b"x1,x2,x3,target\n" + b"".join(
    f"{(i * 7) % 13},{(i * 3) % 5 + 0.5},{i % 9},{(i * 7) % 13 * 0.4 + (i % 9) * 0.1}\n".encode() for i in range(400)
)


def test_renders_on_census_with_check_values():
    at = open_page()
    assert not at.exception and not at.error
    assert at.title[0].value == "🧮 Input perturbation"
    m = metrics(at)
    p = input_perturbation_params(n=16000, d=14, epsilon=1.0, delta=1e-5, eta=1.0, zeta=2.0, lam=1.0)
    assert (
        m["σ_b"] == display.number(p.sigma_b, sig=4)
        and m["σ_u"] == display.number(p.sigma_u, sig=4)
        and m["Δ_in"] == display.number(p.Delta_in, sig=4)
    )
    assert m["Measured: needed event"] == display.number(1.0)
    figs = charts(at)
    assert len(figs) >= 8
    excess = next(f for f in figs if f["layout"]["title"]["text"] == "Excess empirical risk against n")
    names = [t.get("name", "") for t in excess["data"]]
    assert "Input perturbation (10 trials)" in names and any("Theorem 2 bound" in n for n in names)
    texts = " ".join(i.value for i in at.info)
    assert "Claimed by the paper" in texts and "Measured" in texts
    assert any("(corrected)" in s.value for s in at.success)


def test_alpha_slider_changes_output_and_url():
    at = open_page()
    before = metrics(at)["σ_b"]
    at.select_slider(key="ip_alpha").set_value(0.5).run()
    assert not at.exception
    after = metrics(at)["σ_b"]
    p = input_perturbation_params(n=16000, d=14, epsilon=1.0, delta=1e-5, eta=1.0, zeta=2.0, lam=1.0, alpha=0.5)
    assert before != after and after == display.number(p.sigma_b, sig=4)
    assert at.query_params["ip_alpha"] in ("0.5", ["0.5"])


def test_n_slider_changes_readouts_only():
    at = open_page()
    sigma_u = metrics(at)["σ_u"]
    at.select_slider(key="ip_n").set_value(1024).run()
    assert not at.exception
    p = input_perturbation_params(n=1024, d=14, epsilon=1.0, delta=1e-5, eta=1.0, zeta=2.0, lam=1.0)
    assert metrics(at)["σ_u"] == display.number(p.sigma_u, sig=4) != sigma_u


def test_query_params_restore_state():
    at = open_page(
        eps="2", ip_model="logistic_taylor", ip_alpha="0.25", ip_dmult="2", ip_mode="ALG1", ip_sampler="records"
    )
    assert not at.exception and not at.error
    assert at.radio(key="ip_model").value == "logistic_taylor"
    assert at.select_slider(key="ip_alpha").value == 0.25
    assert at.select_slider(key="ip_dmult").value == 2.0
    assert at.selectbox(key="ip_mode").value == "ALG1"
    assert at.radio(key="ip_sampler").value == "records"
    p = input_perturbation_params(
        n=16000,
        d=14,
        epsilon=2.0,
        delta=1e-5,
        eta=1.0,
        zeta=0.75,
        lam=0.25,
        alpha=0.25,
        Delta_multiplier=2.0,
        sigma_u_mode="ALG1",
    )
    assert metrics(at)["σ_u"] == display.number(p.sigma_u, sig=4)
    acc = next(f for f in charts(at) if f["layout"]["title"]["text"] == "test accuracy against n")
    assert acc["data"]


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_demo_dataset(name):
    at = open_page(dataset=name)
    assert not at.exception
    ds = load_dataset(name)
    expected_model = "least_squares" if ds.task == "regression" else "logistic_taylor"
    assert at.radio(key="ip_model").value == expected_model
    # the only red line allowed is the flag of a fit far worse than the mean, and only with "not usable" shown
    flagged = [e.value for e in at.error if e.value.startswith("Not a usable fit")]
    assert len(flagged) == len(at.error), [e.value for e in at.error]
    assert bool(flagged) == (metrics(at).get("R² vs non-private") == "not usable")
    assert "Measured: needed event" in metrics(at)
    if ds.task != "regression":
        at.radio(key="ip_model").set_value("least_squares").run()
        assert not at.exception
        assert any("logistic" in e.value for e in at.error)


def test_uploaded_csv():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["trials"] = "10"
    at.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("mine.csv", CSV, "text/csv")).run()
    assert not at.exception
    open_sections(at.switch_page(PAGE).run())
    assert not at.exception and not at.error
    assert "upload" in at.caption[0].value or "mine.csv" in " ".join(c.value for c in at.caption)
    assert at.radio(key="ip_model").value == "least_squares"
    assert any("computed from the uploaded records" in w.value for w in at.warning)  # data-derived bounds flagged
    assert "σ_b" in metrics(at)


def test_records_sampler_and_bound_choice():
    at = open_page(ip_sampler="records")
    assert not at.exception
    at.radio(key="ip_wnorm").set_value("measured").run()
    assert not at.exception
    assert any("bound curves with ‖ŵ‖ =" in c.value and "η)" not in c.value for c in at.caption)


def test_reproduction_panel():
    at = open_page()
    n_before = len(at.get("plotly_chart"))
    at.button(key="ip_repro_btn").click().run()
    assert not at.exception
    figs = charts(at)
    assert len(figs) == n_before + 2
    titles = [f["layout"]["title"]["text"] for f in figs[-2:]]
    assert "Figure 1" in titles[0] and "Figure 2" in titles[1]


def test_switching_dataset_on_home_picks_the_fitting_model():
    at = open_page()
    assert at.radio(key="ip_model").value == "least_squares"
    at.switch_page("pages/home.py").run()
    at.selectbox(key="w_dataset").set_value("wine").run()
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert at.radio(key="ip_model").value == "logistic_taylor"
    assert at.selectbox(key="ip_pos").value == 0.0  # one-vs-rest class picker for multiclass data


def test_settings_survive_a_page_switch():
    at = open_page()
    at.select_slider(key="ip_alpha").set_value(0.5).run()
    at.radio(key="ip_model").set_value("logistic_taylor").run()
    at.select_slider(key="ip_n").set_value(4096).run()
    at.switch_page("pages/home.py").run()
    open_sections(at.switch_page(PAGE).run())
    assert not at.exception
    assert at.select_slider(key="ip_alpha").value == 0.5
    assert at.radio(key="ip_model").value == "logistic_taylor"
    assert at.select_slider(key="ip_n").value == 4096
    assert at.sidebar.select_slider(key="w_delta").value == pytest.approx(1e-5)


def test_secondary_settings_round_trip_through_the_url():
    at = open_page(ip_n="1024", ip_wnorm="measured")
    assert not at.exception
    assert at.select_slider(key="ip_n").value == 1024
    assert at.radio(key="ip_wnorm").value == "measured"
    qp = at.query_params
    assert str(qp["ip_n"][0] if isinstance(qp["ip_n"], list) else qp["ip_n"]) == "1024"
    at.select_slider(key="ip_n").set_value(4096).run()
    qp = at.query_params
    assert str(qp["ip_n"][0] if isinstance(qp["ip_n"], list) else qp["ip_n"]) == "4096"
