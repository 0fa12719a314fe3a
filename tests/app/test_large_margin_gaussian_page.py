"""AppTest tests of the large-margin Gaussian classifier page."""

import json

import pytest
from _helpers import metrics
from _helpers import open_page as _open_page

PAGE = "pages/large_margin_gaussian.py"


def open_page(app, **params):
    return _open_page(app, PAGE, defaults={"trials": "10"}, check=True, **params)


def all_text(at):
    parts = [e.value for e in at.markdown] + [e.value for e in at.error] + [e.value for e in at.info]
    parts += [e.value for e in at.success] + [e.value for e in at.warning] + [e.value for e in at.caption]
    return "\n".join(str(p) for p in parts)


def charts(at):
    return {
        json.loads(c.proto.spec).get("layout", {}).get("title", {}).get("text", ""): json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
    }


def test_page_renders_with_defaults(app):
    at = open_page(app)
    assert at.title[0].value == "🎯 Large-margin Gaussian classifier"
    m = metrics(at)
    assert m["noise dimension"] == "27" and m["noise rate β"] == "0.1021"  # spec 7.1 rows 36-37 (S1)
    assert m["extra regularisation Δ"] == "0.01253"
    assert float(m["non-private test accuracy"]) > 0.98
    assert any("Resample" in b.label for b in at.button)
    assert len(at.get("plotly_chart")) >= 3


def test_epsilon_change_changes_the_output(app):
    at = open_page(app)
    before = metrics(at)
    at.sidebar.select_slider(key="w_eps_slider").set_value(5.0).run()
    assert not at.exception
    after = metrics(at)
    assert before["noise rate β"] != after["noise rate β"]
    assert after["extra regularisation Δ"] == "0"  # no CMS fallback at eps = 5
    assert before["unbounded draws at ε = 1"] and "unbounded draws at ε = 5" in after


def test_printed_and_repaired_are_labelled_not_private(app):
    at = open_page(app)
    at.radio(key="lm_mode").set_value("printed").run()
    assert not at.exception
    text = all_text(at)
    assert "not differentially private as printed" in text.lower()
    assert "unbounded below for at least half" in text
    assert "as claimed by the paper" in text.lower()
    at.radio(key="lm_mode").set_value("repaired").run()
    text = all_text(at)
    assert "not differentially private as printed" in text.lower() and "shared by all classes" in text
    # the modes table lists every mode's status
    table = at.dataframe[0].value
    assert sum("not differentially private as printed" in s for s in table["privacy status"]) == 2


def test_resample_redraws_the_private_classifier(app):
    at = open_page(app)
    assert any("Draw #0" in c.value for c in at.caption)
    at.button(key="lm_resample").click().run()
    assert not at.exception
    caps = [c.value for c in at.caption]
    assert any("Draw #1" in c for c in caps)


def test_query_params_restore_page_state(app):
    at = open_page(app, eps="2", lm_mode="repaired", lm_lam="0.1", lm_h="0.2", lm_data="iris")
    assert at.radio(key="lm_mode").value == "repaired"
    assert at.select_slider(key="lm_lam").value == pytest.approx(0.1)
    assert at.selectbox(key="lm_data").value == "iris"
    assert "not differentially private as printed" in all_text(at).lower()


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_page_works_on_real_datasets(app, name):
    at = open_page(app, lm_data=name)
    assert not at.error, [e.value for e in at.error]
    assert not any("data itself" in w.value for w in at.warning)  # demo datasets ship public bounds: no leak
    heat = [
        c for c in at.get("plotly_chart") if any(t.get("type") == "heatmap" for t in json.loads(c.proto.spec)["data"])
    ]
    assert len(heat) == 1  # k = 2 by default: the public projection makes the decision regions drawable
    acc = float(metrics(at)["non-private test accuracy"])
    assert acc > 1 / 3 + 0.1


def test_run_sweeps_produces_accuracy_curves(app):
    at = open_page(app)
    at.button(key="lm_run").click().run()
    assert not at.exception
    ch = charts(at)
    acc = ch["Test accuracy against ε"]
    names = " ".join(t.get("name", "") for t in acc["data"])
    assert "R: corrected" in names and "P+: repaired" in names and "P: as printed" in names
    assert "10 trials" in names
    assert any(k.startswith("Empirical excess J(Φᵖ) − J(Φ*) against n") for k in ch)
    ex = ch["Empirical excess J(Φᵖ) − J(Φ*) against ε"]
    assert any("mean pathwise bound" in t.get("name", "") for t in ex["data"])
    assert "against μ" in ch and "against h" in ch
    tl = ch["True-risk excess: measured on the test set against the C5.3 bound"]
    assert sum(t.get("type") == "bar" for t in tl["data"]) == 4  # terms A, B, E, S
    assert any("bound ÷ measured" in df.value.columns for df in at.dataframe)


def test_uploaded_csv_is_usable(app):
    rows = "".join(
        f"{(i % 3) * 0.5 + 0.01 * (i % 7)},{0.3 * ((i // 3) % 2) - 0.02 * (i % 5)},{i % 3}\n" for i in range(150)
    )
    csv = ("a,b,label\n" + rows).encode()
    app.query_params["trials"] = "10"
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("classes.csv", csv, "text/csv")).run()
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception
    at.selectbox(key="lm_data").set_value("home").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "classes.csv" in " ".join(c.value for c in at.caption)
    assert float(metrics(at)["non-private test accuracy"]) > 1 / 3


def test_regression_dataset_on_home_is_explained(app):
    at = open_page(app, dataset="diabetes")
    assert not at.exception
    assert any("needs classes" in c.value for c in at.caption)
