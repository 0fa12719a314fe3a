"""The learning-curve chart draws the model the negotiation's answers come from (issue 23 follow-up).

On real data with few trials: (a) each method's drawn model at the chosen ε crosses the target where the
rows-needed answer is, and the edges of its drawn 95% band cross it at the ends of the answer's range; (b) the
× and its bar sit at that answer on the target line; (c) beyond the data the drawn band is no narrower, on
either side, than at the data's own size. On synthetic data without noise the drawn extrapolation is the
learning curve ``a + b·n^(−p)`` itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp_core.compare.figures import learning_curve_figure, refuted_methods
from dp_core.data import load_dataset
from dp_core.learning_curve import fit_utility_model
from dp_core.negotiate import answer_number, negotiate

CASES = [("breast_cancer", "accuracy=0.9"), ("diabetes", "r2=0.3")]
KW = {"n_trials": 4, "seed": 0, "eps_min": 0.05, "eps_max": 20.0, "n_points": 6, "solve_for": "n"}


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def drawn(request):
    name, target = request.param
    ans = negotiate(load_dataset(name), [target], epsilon=1.0, **KW)
    return ans, learning_curve_figure(ans)


def _model_line(fig, method: str) -> tuple[np.ndarray, np.ndarray]:
    """The drawn model of ``method``: its solid and dotted traces joined (x ascending, the shared node once)."""
    parts = [t for t in fig.data if t.legendgroup == method and t.fill != "toself"]
    xs = np.concatenate([np.asarray(t.x, dtype=float) for t in parts])
    ys = np.concatenate([np.asarray(t.y, dtype=float) for t in parts])
    _, first = np.unique(xs, return_index=True)
    return xs[first], ys[first]


def _band(fig, method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The drawn band of ``method``: x, low and high edge (the polygon runs along the high edge and back)."""
    polys = [t for t in fig.data if t.legendgroup == method and t.fill == "toself"]
    if not polys:
        return None
    x, y = np.asarray(polys[0].x, dtype=float), np.asarray(polys[0].y, dtype=float)
    k = len(x) // 2
    return x[:k], y[k:][::-1], y[:k]


def _crossing(x: np.ndarray, y: np.ndarray, t: float, up: bool) -> float:
    """Where the drawn polyline (straight between points on the log x axis) first meets ``t``."""
    g, t = (y, t) if up else (-y, -t)
    met = np.flatnonzero(g >= t)
    if not len(met):
        return math.inf
    j = met[0]
    if j == 0:
        return float(x[0])
    frac = (t - g[j - 1]) / (g[j] - g[j - 1])
    return float(np.exp(np.log(x[j - 1]) + frac * (np.log(x[j]) - np.log(x[j - 1]))))


def _measured_answers(ans: dict) -> list[dict]:
    return [r for r in ans["methods"] if r.get("n_min_source") == "measured" and r.get("n_min_outcome") == "reached"]


def test_the_drawn_model_crosses_the_target_at_the_rows_needed(drawn):
    ans, fig = drawn
    t, up = ans["target"]["value"], ans["target"]["direction"] == ">="
    rows = _measured_answers(ans)
    assert any(answer_number(r, "n_min") > ans["n"] for r in rows), "no extrapolated answer: nothing checked"
    for r in rows:
        x, y = _model_line(fig, r["method"])
        # the model is linear in log n between the drawn nodes: the crossing is exact up to whole rows
        assert abs(_crossing(x, y, t, up) - answer_number(r, "n_min")) <= 1.0, r["method"]


def test_the_drawn_band_crosses_the_target_at_the_ends_of_the_range(drawn):
    ans, fig = drawn
    t, up = ans["target"]["value"], ans["target"]["direction"] == ">="
    checked = 0
    for r in _measured_answers(ans):
        band = _band(fig, r["method"])
        if band is None:  # refuted: drawn as a warning, without a band
            assert r["method"] in refuted_methods(ans["methods"])
            continue
        x, lo, hi = band
        better, worse = (hi, lo) if up else (lo, hi)
        assert abs(_crossing(x, better, t, up) - answer_number(r, "n_min_lo")) <= 1.0, r["method"]
        n_hi = answer_number(r, "n_min_hi")
        if math.isfinite(n_hi):
            assert abs(_crossing(x, worse, t, up) - n_hi) <= 1.0, r["method"]
        else:  # open range: the worse edge stays short of the target as far as it is drawn
            assert not np.any((worse >= t) if up else (worse <= t)), r["method"]
        checked += 1
    assert checked


def test_the_answer_is_marked_on_the_target_line_with_its_range(drawn):
    ans, fig = drawn
    marks = [tr for tr in fig.data if tr.mode == "markers"]
    refuted = refuted_methods(ans["methods"])
    for r in _measured_answers(ans):
        mine = [m for m in marks if (m.hovertemplate or "").startswith(f"{r['label']}: n ≈")]
        if r["method"] in refuted:
            assert not mine
            continue
        (m,) = mine
        nm = answer_number(r, "n_min")
        assert m.x[0] == pytest.approx(nm) and m.y[0] == pytest.approx(ans["target"]["value"])
        assert m.x[0] - m.error_x.arrayminus[0] == pytest.approx(answer_number(r, "n_min_lo"))
        if math.isfinite(answer_number(r, "n_min_hi")):
            assert m.x[0] + m.error_x.array[0] == pytest.approx(answer_number(r, "n_min_hi"))


def test_the_band_beyond_the_data_is_no_narrower_than_at_the_data(drawn):
    ans, fig = drawn
    cap = 1.0  # accuracy and R²: the upper edge stops at the metric's best
    checked = 0
    for meth in {c["method"] for c in ans["model_curve"]}:
        band = _band(fig, meth)
        if band is None:
            continue
        x, lo, hi = band
        xm, ym = _model_line(fig, meth)
        mid = np.interp(x, xm, ym)
        at = int(np.argmin(np.abs(np.log(x / ans["n"]))))
        assert x[at] == pytest.approx(ans["n"])
        far = x > ans["n"] * (1 + 1e-9)
        assert far.any()
        assert np.all(mid[far] - lo[far] >= (mid[at] - lo[at]) - 1e-9), meth
        assert np.all((hi[far] - mid[far] >= (hi[at] - mid[at]) - 1e-9) | (hi[far] >= cap - 1e-12)), meth
        checked += 1
    assert checked


@pytest.mark.parametrize("p", [0.5, 1.0])
def test_without_noise_the_drawn_extrapolation_is_the_learning_curve(p):
    n_data = 800.0
    cells = {(n, e): np.full(5, 0.95 - 3.0 * n ** (-p)) for n in (100.0, 200.0, 400.0, n_data) for e in (0.5, 2.0)}
    kw = {"n_data": n_data, "metric": "accuracy", "direction": ">=", "seed": 0, "key": "m", "n_boot": 40}
    ns, mid, lo, hi = fit_utility_model(cells, **kw).curve(1.0)
    far = ns > n_data
    np.testing.assert_allclose(mid[far], 0.95 - 3.0 * ns[far] ** (-p), rtol=1e-9)
    np.testing.assert_allclose(lo, mid, atol=1e-12)  # no noise, no range
    np.testing.assert_allclose(hi, mid, atol=1e-12)


def test_the_curve_rejects_a_bad_epsilon_by_name():
    cells = {(n, e): np.full(3, 0.8) for n in (100.0, 800.0) for e in (0.5, 2.0)}
    m = fit_utility_model(cells, n_data=800.0, metric="accuracy", direction=">=", seed=0, key="m", n_boot=5)
    with pytest.raises(ValueError, match="epsilon"):
        m.curve(-1.0)
    assert m.curve(10.0) is None  # outside the measured grid: no model there


def test_outside_the_grid_the_chart_shows_the_measured_curves_and_says_so():
    kw = {**KW, "eps_max": 5.0, "mechanisms": ["output_perturbation"]}
    ans = negotiate(load_dataset("breast_cancer"), ["accuracy=0.9"], epsilon=50.0, **kw)
    assert ans["model_curve"] == [] and all(r["n_min_outcome"] == "no answer" for r in _with_claim(ans))
    fig = learning_curve_figure(ans)
    assert "ε = 5 (measured; the chosen ε is outside the grid)" in fig.layout.title.text
    curves = [t for t in fig.data if t.legendgroup]
    assert curves and all(t.error_y.array is not None and t.fill != "toself" for t in curves)
    assert not [t for t in fig.data if t.mode == "markers"]  # no answer, no ×


def _with_claim(ans: dict) -> list[dict]:
    return [r for r in ans["methods"] if r["status"] != "none"]
