"""Better than a constant answer (dp_core.fit_checks.constant_answer) on the first screens of the four
state-of-the-art mechanisms: the number, the alert, the dotted line and the chart's scores tell one story, on
demo data and on scikit-learn data the app does not offer (a private model as good as a constant answer is said,
not averaged away)."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

from dp_core import display
from dp_core.data import Dataset, load_dataset
from dp_core.fit_checks import constant_answer
from dp_core.plugin import Screen

TRIALS = 40
CASES = [  # (mechanism folder, config class, dataset, ε)
    ("dp_naive_bayes", "NaiveBayesConfig", "breast_cancer", 0.1),
    ("dp_naive_bayes", "NaiveBayesConfig", "gaussian_classes", 5.0),
    ("dp_naive_bayes", "NaiveBayesConfig", "sk_digits", 1.0),
    ("dp_gd", "DPGDConfig", "iris", 0.5),
    ("dp_gd", "DPGDConfig", "diabetes", 1.0),
    ("label_rr", "LabelRRConfig", "wine", 0.2),
    ("label_rr", "LabelRRConfig", "sk_digits", 2.0),
    ("adassp", "AdasspConfig", "diabetes", 0.3),
    ("adassp", "AdasspConfig", "sk_california", 1.0),
]


def _dataset(name: str) -> Dataset:
    if not name.startswith("sk_"):
        return load_dataset(name)
    from dp_core.data import _make_dataset

    sk = pytest.importorskip("sklearn.datasets")
    if name == "sk_digits":  # 10 classes, 64 pixel features: not a demo
        b = sk.load_digits()
        return _make_dataset(name, b.data, b.target, [f"p{i}" for i in range(64)], "digit", "multiclass")
    X, y = _california(sk)
    return _make_dataset(name, X, y, [f"x{i}" for i in range(X.shape[1])], "value", "regression")


def _california(sk):
    try:
        b = sk.fetch_california_housing(download_if_missing=False)
        return b.data[:3000], b.target[:3000]
    except OSError:  # not cached on this machine: scikit-learn's bundled regression set instead
        b = sk.load_linnerud()
        return b.data, b.target[:, 0]


def _screen(folder: str, config: str, ds: Dataset, eps: float) -> Screen:
    pkg = importlib.import_module(f"dp_core.mechanisms.{folder}")
    plan = importlib.import_module(f"dp_core.mechanisms.{folder}.plan")
    values = tuple(sorted(dataclasses.asdict(getattr(pkg, config)()).items()))
    return plan.first_screen(values, ds.name, ds.fingerprint, eps, 1e-5, 0, TRIALS, ds)


@pytest.mark.parametrize(("folder", "config", "name", "eps"), CASES, ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in CASES])
def test_number_alert_and_line_agree_with_the_chart(folder, config, name, eps):
    screen = _screen(folder, config, _dataset(name), eps)
    scores = np.asarray(screen.chart.data[0].x, dtype=float)
    line = [s.x0 for s in screen.chart.layout.shapes if s.line.dash == "dot"]
    numbers = {n[0]: n[1] for n in screen.numbers}
    beaten = int(numbers["Better than a constant"].split(" of ")[0])
    assert scores.size == TRIALS and len(line) == 1
    assert beaten == int(np.sum(scores > line[0]))
    worse = TRIALS - beaten
    if worse == 0:
        assert screen.alerts == ()
    else:
        level, text, _ = screen.alerts[-1]
        assert text.startswith(f"{worse} of {TRIALS} ")
        assert level == ("warning" if 2 * worse >= TRIALS else "info")
    assert screen.caption.endswith(f"{display.number(line[0])}.")  # the caption names the line's score


def test_a_weak_budget_is_flagged_and_a_generous_one_is_not():
    weak = _screen("dp_naive_bayes", "NaiveBayesConfig", load_dataset("breast_cancer"), 0.1)
    strong = _screen("dp_naive_bayes", "NaiveBayesConfig", load_dataset("gaussian_classes"), 5.0)
    assert weak.alerts and weak.alerts[0][0] == "warning"
    assert strong.alerts == ()


def test_the_constant_answer_is_the_commonest_class_or_r2_zero():
    y = np.array([2, 2, 1, 0, 2, 1])
    c = constant_answer("multiclass", y)
    assert c.score == pytest.approx(0.5) and c.metric == "accuracy"
    assert c.beaten([0.5, 0.51, 0.2]) == 1  # strictly above: equal to the constant answer is not better
    r = constant_answer("regression", y)
    assert r.score == 0.0 and r.metric == "R²"
    with pytest.raises(ValueError, match="task"):
        constant_answer("ranking", y)
    with pytest.raises(ValueError, match="y_test"):
        constant_answer("binary", [])
