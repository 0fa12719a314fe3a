"""Issue 28: every mechanism page uses the visitor's upload when it fits, and says plainly why when it does not.

A small binary, ten-class and regression upload on Home, then each mechanism page: the page's dataset
line names the upload, or the page says in words why the upload is not used (never a silent demo).
"""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = "../../app.py"
LM = "pages/large_margin_gaussian.py"
IP = "pages/input_perturbation.py"
LB = "pages/label_dp_bags.py"
L1 = "pages/l1_exponential.py"


def _csv(kind: str, n: int = 240, seed: int = 4) -> bytes:
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, 3))
    if kind == "binary":
        y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    elif kind == "ten":
        y = np.arange(n) % 10  # ten classes, every one with n / 10 rows
        X[:, 0] += y
    else:
        y = X @ np.array([0.5, -0.25, 0.1]) + 0.05 * g.standard_normal(n)
    rows = "".join(f"{a:.5f},{b:.5f},{c:.5f},{t}\n" for (a, b, c), t in zip(X, y))
    return ("x1,x2,x3,label\n" + rows).encode()


def _uploaded(kind: str) -> tuple[AppTest, str]:
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in {"trials": "10", "k": "4", "m": "20", "lm_n": "300", "l1_sim_trials": "4", "l1_releases": "10"}.items():
        at.query_params[k] = v
    at.run()
    name = f"{kind}.csv"
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((name, _csv(kind), "text/csv")).run()
    assert not at.exception and any(f"Using **{name}**" in s.value for s in at.success)
    return at, name


def _text(at: AppTest) -> str:
    kinds = ("markdown", "caption", "info", "success", "warning", "error")
    return " ".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def _used(at: AppTest, name: str) -> bool:
    return any(c.value.startswith(f"Dataset: **upload:{name}**") for c in at.caption)


# (upload, page) -> None when the page must use the upload, else words the page must say about why not
EXPECTED = {
    ("binary", LM): None,
    ("ten", LM): None,
    ("regression", LM): "this classifier needs a class column",
    ("binary", IP): None,
    ("regression", IP): None,
    ("regression", LB): None,
    ("ten", LB): "Label-DP by aggregation fits a linear regression on bag sums",
    ("regression", L1): None,
    ("ten", L1): "Heavy-tailed ℓ1 regression predicts an amount",
}


@pytest.mark.parametrize(("kind", "page"), list(EXPECTED))
def test_mechanism_page_uses_the_upload_or_says_why(kind, page):
    at, name = _uploaded(kind)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    why = EXPECTED[(kind, page)]
    if why is None:
        assert _used(at, name), [c.value for c in at.caption][:4]
    else:  # the page names the upload and refuses it in words, or shows another dataset and says why
        assert why in _text(at)
        assert page != LM or not _used(at, name)


def test_large_margin_page_returns_to_a_demo_and_a_new_upload_is_offered_again():
    at, name = _uploaded("binary")
    at.switch_page(LM).run()
    assert at.selectbox(key="lm_data").value == "home"
    at.selectbox(key="lm_data").set_value("iris").run()
    at.switch_page("pages/home.py").run()
    at.switch_page(LM).run()
    assert at.selectbox(key="lm_data").value == "iris"  # the visitor's own choice stays for the same upload
    at.switch_page("pages/home.py").run()
    at.file_uploader(key="csv").set_value(("ten.csv", _csv("ten"), "text/csv")).run()
    at.switch_page(LM).run()
    assert at.selectbox(key="lm_data").value == "home" and _used(at, "ten.csv")
