"""AppTest tests of the Home page and the shared sidebar."""

import pytest
from _helpers import charts, metrics

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


def _chart(at, word: str) -> dict:
    """The first chart whose title contains ``word``."""
    return next(c for c in charts(at) if word in c["layout"]["title"]["text"])


def test_posterior_chart_follows_eps(app):
    at = app.run()
    fig = _chart(at, "conclude about one person")
    assert "ε = 1" in fig["layout"]["title"]["text"]
    at.sidebar.select_slider(key="w_eps_slider").set_value(5).run()
    fig = _chart(at, "conclude about one person")
    assert "ε = 5" in fig["layout"]["title"]["text"]


# ------------------------------------------------------------------ the plain first screen
FIRST_NUMBERS = ["ε (set in the sidebar)", "Odds can change by at most", "Noise on one count (Laplace scale)"]


def test_first_screen_three_numbers_one_chart_and_the_tour_link(app):
    at = app.run()
    assert not at.exception
    assert [m.label for m in at.metric[:3]] == FIRST_NUMBERS  # the first screen comes before the dataset section
    assert all(m.help for m in at.metric[:3])  # each number explains itself
    m = metrics(at)
    assert m["ε (set in the sidebar)"] == "1" and m["Noise on one count (Laplace scale)"] == "1"
    first = charts(at)[0]  # the one chart of the first screen: noise against ε, the current ε marked
    assert first["layout"]["title"]["text"].startswith("Noise added to one count, against ε")
    names = [t["name"] for t in first["data"]]
    assert names[:2] == ["Laplace", "Gaussian"]
    marked = [t for t in first["data"] if t.get("mode") == "markers"]
    assert [t["x"] for t in marked] == [[1.0], [1.0]] and marked[0]["y"] == [1.0]  # b = 1/ε at ε = 1
    assert any("Start here" in str(p.proto.label) for p in at.get("page_link"))
    # the dataset and where its bounds come from, in plain words
    assert any("Dataset: **" in c.value and "Column bounds:" in c.value for c in at.caption)


def test_first_screen_numbers_and_chart_follow_the_budget(app):
    at = app.run()
    at.sidebar.select_slider(key="w_eps_slider").set_value(0.5).run()
    assert not at.exception
    m = metrics(at)
    assert m["Noise on one count (Laplace scale)"] == "2" and m["Odds can change by at most"] == "× 1.65"
    marked = [t for t in charts(at)[0]["data"] if t.get("mode") == "markers"]
    assert marked[0]["x"] == [0.5] and marked[0]["y"] == pytest.approx([2.0])
    assert marked[1]["y"][0] > marked[0]["y"][0]  # Gaussian σ at δ = 1e-5 is larger than b here


def test_every_symbol_on_the_first_screen_has_a_glossary_entry(app):
    from dp_core import glossary

    at = app.run()
    first_texts = [at.markdown[i].value for i in range(2)]  # what ε and δ mean; who is protected
    first_texts += [c.value for c in at.caption if c.value.startswith("Dataset:")]
    first_texts += FIRST_NUMBERS
    fig = charts(at)[0]
    first_texts += [fig["layout"]["title"]["text"], fig["layout"]["xaxis"]["title"]["text"]]
    first_texts += [fig["layout"]["yaxis"]["title"]["text"]] + [t["name"] for t in fig["data"]]
    text = " ".join(first_texts)
    shown = glossary.symbols_in(text)
    assert {"ε", "δ"} <= shown
    assert glossary.unknown_symbols(text) == []
    assert len(shown) <= 5, shown


@pytest.mark.parametrize(
    "query, widget, expected",
    [
        ({"eps": "0.25"}, ("number_input", "w_eps_num"), 0.25),
        ({"delta": "1e-07"}, ("select_slider", "w_delta"), 1e-7),
        ({"seed": "42"}, ("number_input", "w_seed"), 42),
        ({"trials": "500"}, ("select_slider", "w_trials"), 500),
        ({"preprocess": "clip"}, ("radio", "w_preprocess"), "clip"),
        ({"dataset": "iris"}, ("selectbox", "w_dataset"), "iris"),
    ],
)
def test_url_round_trip_of_every_shared_widget(app, query, widget, expected):
    for k, v in query.items():
        app.query_params[k] = v
    at = app.run()
    assert not at.exception
    kind, key = widget
    where = at.sidebar if key in ("w_eps_num", "w_delta", "w_seed", "w_trials") else at
    value = getattr(where, kind)(key=key).value
    assert value == (pytest.approx(expected) if isinstance(expected, float) else expected)
    name = next(iter(query))
    back = at.query_params[name]
    back = back[0] if isinstance(back, list) else back
    assert back == query[name]  # the link written back is the one that opened the page


def test_shared_number_ranges_come_from_the_declarations():
    from ui.constants import url_spec
    from ui.widgets import _declared_range

    for name in ("k", "m", "rho", "seed"):
        spec = url_spec(name)
        assert _declared_range(name, None, None, (-1, -1)) == (spec.lo, spec.hi)
    assert _declared_range("k", 2, None, (0, 1)) == (2, url_spec("k").hi)  # a page may narrow it


SMALL_CSV = b"x1,x2,y\n" + b"".join(f"{i % 7},{(i * 3) % 10},{i % 2}\n".encode() for i in range(100))


def test_small_upload_first_screen_and_delta_advice(app):
    at = _upload(app.run(), SMALL_CSV, name="small.csv")
    assert not at.exception
    m = metrics(at)
    assert m["Rows"] == "100" and [x.label for x in at.metric[:3]] == FIRST_NUMBERS
    assert any("small.csv" in c.value and "100 rows" in c.value for c in at.caption if c.value.startswith("Dataset:"))
    assert not [w for w in at.warning if "δ·n" in w.value]  # the default δ = 1e-5 fits 100 rows
    at.sidebar.select_slider(key="w_delta").set_value(0.05).run()
    advice = [w.value for w in at.warning if "δ·n" in w.value]
    assert advice and "Choose δ below 0.01" in advice[0]  # says what would fix it


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
