"""AppTest tests of the Home page and the shared sidebar."""

import json

import pytest
from _helpers import metrics

from dp_core.data import DATASETS

GOOD_CSV = b"age,income,score,label\n" + b"".join(
    f"{20 + i % 40},{1000 + 37 * i},{(i * 7) % 11},{i % 2}\n".encode() for i in range(60)
)


def test_home_renders(app):
    at = app.run()
    assert not at.exception
    assert at.title[0].value.startswith("🔐 Privacy-Utility Explorer")
    assert metrics(at)["Rows"] == "20,000"


def test_eps_slider_changes_output(app):
    at = app.run()
    before = metrics(at)["Odds can change by at most"]
    at.sidebar.select_slider(key="w_eps_slider").set_value(0.1).run()
    assert not at.exception
    after = metrics(at)["Odds can change by at most"]
    assert before == "× 2.72" and after == "× 1.11"
    assert at.sidebar.number_input(key="w_eps_num").value == pytest.approx(0.1)
    assert at.query_params["eps"] == ["0.1"] or at.query_params["eps"] == "0.1"


def test_exact_epsilon_entry(app):
    at = app.run()
    at.sidebar.number_input(key="w_eps_num").set_value(0.37).run()
    assert not at.exception
    assert metrics(at)["ε (set in the sidebar)"] == "0.37"
    # the slider snaps to the nearest readable value, the exact value is kept
    assert at.sidebar.select_slider(key="w_eps_slider").value == 0.4


def test_query_params_restore_state(app):
    app.query_params["eps"] = "4"
    app.query_params["delta"] = "1e-08"
    app.query_params["dataset"] = "wine"
    at = app.run()
    assert not at.exception
    m = metrics(at)
    assert m["ε (set in the sidebar)"] == "4"
    assert m["Rows"] == "178" and m["Task"] == "multiclass"
    assert at.sidebar.select_slider(key="w_delta").value == pytest.approx(1e-8)


def test_bad_query_param_is_reported_not_crashing(app):
    app.query_params["eps"] = "lots"
    at = app.run()
    assert not at.exception
    assert [w.value for w in at.warning if "(eps)" in w.value and "lots" in w.value]  # one message, on the page


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_demo_dataset(app, name):
    at = app.run()
    at.selectbox(key="w_dataset").set_value(name).run()
    assert not at.exception
    from dp_core.data import load_dataset

    assert metrics(at)["Rows"] == f"{load_dataset(name).n:,}"


def test_posterior_chart_follows_eps(app):
    at = app.run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "ε = 1" in fig["layout"]["title"]["text"]
    at.sidebar.select_slider(key="w_eps_slider").set_value(5).run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "ε = 5" in fig["layout"]["title"]["text"]


def _upload(at, content, name="data.csv"):
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((name, content, "text/csv")).run()
    return at


def test_good_upload(app):
    at = _upload(app.run(), GOOD_CSV)
    assert not at.exception
    assert any("Using **data.csv**" in s.value for s in at.success)
    m = metrics(at)
    assert m["Rows"] == "60" and m["Features"] == "3" and m["Task"] == "binary"
    # choosing another target changes the task
    at.selectbox(key="w_up_target").set_value("income").run()
    assert metrics(at)["Task"] == "regression"


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"", "empty"),
        (b"a b\n" + b"1 2\n" * 30, "only one column"),
        (b"x,y\n1,2\n", "at least 20"),
    ],
)
def test_bad_upload_keeps_previous_choice(app, content, needle):
    at = app.run()
    at.selectbox(key="w_dataset").set_value("iris").run()
    at.sidebar.select_slider(key="w_eps_slider").set_value(0.5).run()
    at = _upload(at, content)
    assert not at.exception
    assert any(needle in e.value for e in at.error)
    m = metrics(at)
    assert m["Rows"] == "150"  # iris is still active
    assert m["ε (set in the sidebar)"] == "0.5"


def test_non_numeric_upload_offers_onehot(app):
    content = b"city,size,price\n" + b"".join(
        f"{['paris', 'rome', 'oslo'][i % 3]},{i},{100 + i * 3.5}\n".encode() for i in range(40)
    )
    at = _upload(app.run(), content)
    assert not at.exception
    radio = at.radio(key="w_up_nonnum")
    assert radio.value == "onehot"
    assert metrics(at)["Features"] == "4"
    radio.set_value("drop").run()
    assert metrics(at)["Features"] == "1"


def test_missing_values_need_a_choice(app):
    content = b"a,b,y\n" + b"".join(f"{i},{'' if i == 4 else i},{i * 1.5}\n".encode() for i in range(40))
    at = _upload(app.run(), content)
    assert any("missing" in e.value for e in at.error)
    assert metrics(at)["Rows"] == "20,000"  # census still active
    at.checkbox(key="w_up_dropna").check().run()
    assert metrics(at)["Rows"] == "39"


def test_upload_survives_page_switch_and_data_dependent_bound_warning(app):
    at = _upload(app.run(), GOOD_CSV)
    # an upload has no documented ranges: they come from its columns, and only then the leak warning shows
    assert any("computed from the uploaded records" in w.value for w in at.warning)
    at.radio(key="w_preprocess").set_value("clip").run()
    assert not at.exception
    assert at.query_params["preprocess"] in (["clip"], "clip")  # the rule is kept in the link
