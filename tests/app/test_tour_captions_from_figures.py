"""The tour's sentences agree with the figures the page draws: each claim is recomputed from the chart's data."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest
from _helpers import charts, open_page

from dp_core import display, tour
from dp_core.compare import make_spec, run_compare
from dp_core.data import load_dataset

QUICK = {"trials": 10}
_TRIALS = re.compile(r" \((?:\d+(?:-\d+)?) trials\)$")


def _values(v) -> np.ndarray:
    """A trace's x or y as floats (Plotly JSON stores arrays as base64 ``bdata``)."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
    return np.asarray(v, dtype=float)


def _text(at) -> str:
    return " ".join(m.value for m in [*at.markdown, *at.caption])


def _mean_curves(fig) -> dict[str, tuple[str, np.ndarray, np.ndarray]]:
    """Per method (legend group): its label and the mean curve's x and y."""
    out = {}
    for t in fig["data"]:
        if t.get("mode") == "lines+markers" and _TRIALS.search(t.get("name", "")):
            out[t["legendgroup"]] = (_TRIALS.sub("", t["name"]), _values(t["x"]), _values(t["y"]))
    return out


def _refuted_methods() -> set[str]:
    spec = make_spec(epsilons=[1.0], delta=1e-5, n_trials=1, seed=0)
    result = run_compare(load_dataset("breast_cancer"), spec)
    return {m["method"] for m in result.methods if m["status"] == "refuted"}


def test_step_three_sentences_match_the_accuracy_chart(app):
    at = open_page(app, "pages/start_here.py", defaults=QUICK, step=3)
    (fig,) = charts(at)
    text = _text(at)
    assert "every mechanism is close to guessing" not in text
    curves, refuted = _mean_curves(fig), _refuted_methods()
    ds = load_dataset("breast_cancer")
    guess = float(np.bincount(ds.y.astype(int)).max() / ds.n)
    assert f"guessing the majority class scores {display.percent(guess)}" in text
    lo, hi = min(min(c[1]) for c in curves.values()), max(max(c[1]) for c in curves.values())
    at_hi = {m: c[2][np.isclose(c[1], hi)][0] for m, c in curves.items() if m not in refuted}
    best = max(v for v in at_hi.values() if np.isfinite(v))
    assert f"is **{display.percent(best)}**" in text
    for m, (label, x, y) in curves.items():
        at_lo = y[np.isclose(x, lo)]
        v = at_lo[0] if len(at_lo) else np.nan  # a point with no successful trial is not drawn
        if m in refuted:
            assert f"{label} at" not in text  # never ranked, never the best
            continue
        if not np.isfinite(v):
            continue
        side = "close to it" if abs(v - guess) <= tour.GUESS_TOLERANCE else ("above it" if v > guess else "below it")
        assert re.search(rf"{re.escape(side)}[^;]*{re.escape(label)} at {re.escape(display.percent(v))}", text), label


@pytest.mark.parametrize("step", [2, 4])
def test_steps_two_and_four_state_the_chart_s_end_points(app, step):
    at = open_page(app, "pages/start_here.py", defaults=QUICK, step=step)
    (fig,) = charts(at)
    text = _text(at)
    if step == 2:
        for t in fig["data"]:
            x, y = _values(t["x"]), _values(t["y"])
            name = {"Laplace": "the Laplace scale b", "Gaussian": "the Gaussian σ"}[t["name"]]
            a, z = y[np.argmin(x)], y[np.argmax(x)]
            assert f"{name} {'falls' if z < a else 'grows'} from {display.number(a)} to {display.number(z)}" in text
    else:
        # x is the central ε = α·ε (it grows with α), y the exact local ε of one contributor
        exact = next(t for t in fig["data"] if "exact" in t.get("name", ""))
        x, y = _values(exact["x"]), _values(exact["y"])
        i, j = np.argmin(x), np.argmax(x)
        assert f"the central ε grows from {display.number(x[i])} to {display.number(x[j])}" in text
        verb = "grows" if y[j] > y[i] else "falls"
        assert f"one contributor's local ε {verb} from {display.number(y[i])} to {display.number(y[j])}" in text


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_step_one_numbers_are_computed_from_epsilon_and_the_data(app, eps):
    """Step 1: the count, the five releases' scale and the 50 % posterior range, recomputed here."""
    import math

    at = open_page(app, "pages/start_here.py", defaults={**QUICK, "eps": eps}, step=1)
    text = _text(at)
    ds = load_dataset("breast_cancer")
    assert f"{display.integer(int((ds.y == 1).sum()))} of {display.integer(ds.n)} tumours are malignant" in text
    assert f"b = 1/ε = {display.number(1.0 / eps)}" in text
    hi = math.exp(eps) / (1.0 + math.exp(eps))  # odds 1:1 multiplied by e^ε
    assert f"**{display.percent(1.0 - hi)}** and **{display.percent(hi)}** sure" in text
    releases = [m for m in at.metric if m.label.startswith("Release")]
    assert f"{display.integer(len(releases))} releases at ε = {display.epsilon(eps)}" in text
