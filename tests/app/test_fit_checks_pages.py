"""AppTest: regression-only mechanism pages on data they do not fit (issue 23 F), with uploads the project never
tuned on: statsmodels' affairs survey (a skewed target, mostly 0) and scikit-learn's digits (class codes 0-9)."""

import pytest
from _helpers import metrics

datasets = pytest.importorskip("sklearn.datasets")
sm = pytest.importorskip("statsmodels.api")

IP, LB, L1 = "pages/input_perturbation.py", "pages/label_dp_bags.py", "pages/l1_exponential.py"
CODES = "its values are class codes, not quantities"


def _affairs() -> bytes:
    return sm.datasets.fair.load_pandas().data.to_csv(index=False).encode()


def _digits() -> bytes:
    import pandas as pd

    d = datasets.load_digits()
    frame = pd.DataFrame(d.data[:, ::4], columns=[f"p{i}" for i in range(16)])
    frame["digit"] = d.target
    return frame.to_csv(index=False).encode()


def _upload(app, page: str, name: str, content: bytes, **query):
    app.query_params["trials"] = "10"
    for key, value in query.items():
        app.query_params[key] = str(value)
    at = app.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((name, content, "text/csv")).run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _texts(at, *kinds) -> str:
    return " ".join(str(e.value) for kind in kinds for e in at.get(kind))


def test_input_perturbation_switches_class_codes_to_accuracy(app):
    at = _upload(app, IP, "digits.csv", _digits())
    said = _texts(at, "info")
    assert "“digit” is a multiclass target with 10 classes" in said and CODES in said
    assert "reports held-out accuracy, not R²" in said
    assert "Accuracy vs non-private" in metrics(at)


def test_input_perturbation_flags_the_skewed_affairs_target_instead_of_an_r2(app):
    at = _upload(app, IP, "affairs.csv", _affairs())
    m = metrics(at)
    assert m["R² vs non-private"] == "not usable"  # not "-100 / -100" shown as a result
    flag = _texts(at, "error")
    assert "Not a usable fit: held-out R² = -" in flag
    assert "standard deviations from 0" in flag and "intercept" in flag and "skewed" in flag
    assert not at.get("plotly_chart")  # no curve drawn as if it were a normal result


@pytest.mark.parametrize("page", [LB, L1])
def test_regression_only_pages_refuse_class_codes_in_plain_words(app, page):
    at = _upload(app, page, "digits.csv", _digits())
    said = _texts(at, "error")
    assert CODES in said and "it does not fit these data" in said
    assert not at.metric and not at.get("plotly_chart")


def test_label_dp_flags_the_skewed_affairs_target(app):
    at = _upload(app, LB, "affairs.csv", _affairs())
    m = metrics(at)
    assert m["Test error (squared)"] == "not usable"
    assert "Not a usable fit" in _texts(at, "error") and "skewed" in _texts(at, "error")
    assert "Privacy at δ = 1e-5" in m  # the default is stated at the sidebar's δ


def test_l1_names_data_derived_scales_and_flags_a_raw_fit(app):
    at = _upload(app, L1, "affairs.csv", _affairs())
    warned = _texts(at, "warning")
    assert "ranges computed from the data" in warned and "Target centred at its training median" in warned
    assert not any("-badge[" in md.value for md in at.markdown)  # no status badge for data-derived scales
    assert "2 of 8 features: rate_marriage, age; choose more" in _texts(at, "caption")


def test_l1_flags_a_raw_fit_far_from_an_offset_target(app):
    import numpy as np

    g = np.random.default_rng(5)
    x = g.normal(size=(600, 2))
    y = 100.0 + x @ np.array([1.0, -0.5]) + g.standard_t(3, size=600)  # far from 0: no intercept can reach it
    rows = "".join(f"{a:.5f},{b:.5f},{t:.5f}\n" for (a, b), t in zip(x, y, strict=True))
    at = _upload(app, L1, "offset.csv", ("a,b,target\n" + rows).encode(), l1_scale="raw")
    mae = next(x for x in at.metric if x.label == "Prediction error (MAE)")
    assert mae.delta == "far worse than the median"
    flag = _texts(at, "error")
    assert "absolute error" in flag and "predicting the median" in flag
    assert "standard deviations from 0" in flag and "no intercept" in flag
    assert not at.get("plotly_chart")
    at.radio(key="l1_scale").set_value("public").run()  # the target centred (named as data-derived): a usable fit
    assert not at.exception and "Not a usable fit" not in _texts(at, "error")
