"""Regression tests: data with huge magnitudes must not crash Home's bound widget or the Compare page.

The upload parser may refuse such files; the pages must stay robust anyway, so the dataset is injected
into the session as an accepted upload.
"""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dp_core.data import Dataset, fingerprint_arrays

APP = "../../app.py"
# The app runs without warnings-as-errors; overflow warnings from such data are expected there.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def huge_dataset(task: str = "regression", scale: float = 1e308) -> Dataset:
    rng = np.random.default_rng(0)
    X = rng.uniform(0.5, 1.0, size=(60, 3)) * scale  # row norms overflow to inf
    y = (np.arange(60) % 2).astype(float) if task == "binary" else rng.uniform(0, 1, 60) * scale
    X.setflags(write=False)
    y.setflags(write=False)
    return Dataset(
        name="upload:huge.csv",
        X=X,
        y=y,
        feature_names=("a", "b", "c"),
        target_name="t",
        task=task,
        n_classes=2 if task == "binary" else 0,
        source="test",
        fingerprint=fingerprint_arrays(X, y),
    )


def _app_with(ds: Dataset, page: str | None = None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["upload_dataset"] = ds
    at.session_state["p_source"] = "upload"
    at.session_state["w_source"] = "upload"
    for k, v in query.items():
        at.query_params[k] = v
    if page:
        at.switch_page(page)
    return at


def _texts(at) -> str:
    return " ".join(
        e.value
        for kind in ("markdown", "warning", "error", "info", "caption")
        for e in at.get(kind)
        if isinstance(getattr(e, "value", None), str)
    )


def test_home_bounds_with_huge_values():
    at = _app_with(huge_dataset()).run()
    assert not at.exception
    at.radio(key="w_preprocess").set_value("scale").run()
    assert not at.exception, [e.value for e in at.exception]
    text = _texts(at)
    assert "inf" not in text.replace("info", "")  # the row norm is written for people, not as a repr


def test_compare_with_huge_values_shows_a_message_not_a_keyerror():
    at = _app_with(huge_dataset("binary"), "pages/compare.py", trials="10", n_eps="4").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [e.value for e in at.error] + [e.value for e in at.warning] + [e.value for e in at.info]
    # every mechanism that cannot run says so in words (the ones that can, run: dp-gd and DP naive Bayes scale
    # the columns themselves and say that this leaks)
    said = ("no mechanism", "could not", "was not run")
    assert any(w in s.lower() for s in shown for w in said), shown
