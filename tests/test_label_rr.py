"""Label RR (dp_core/mechanisms/label_rr): RR-with-prior, RR-on-bins' optimal map, the comparison beside the
label-DP bags, the audit, the CLI, the estimators (scikit-learn's checks) and the page."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from dp_core.mechanisms.label_rr import LabelRRConfig, optimal_bins, prior_top_k, rr_on_bins, rr_with_prior


def test_rr_with_prior_uniform_prior_is_k_ary_randomized_response():
    g = np.random.default_rng(0)
    n, eps = 60_000, 1.0
    y = g.integers(0, 3, n)
    z = rr_with_prior(y, np.full((n, 3), 1 / 3), eps, g)
    keep = math.e / (math.e + 2)
    rate = np.mean(z == y)
    assert abs(rate - keep) < 4 * math.sqrt(keep * (1 - keep) / n)
    # every ratio of output probabilities between two labels is at most e^ε (the ε-label-DP property)
    P = np.array([np.bincount(z[y == c], minlength=3) / np.sum(y == c) for c in range(3)])
    assert P.max(axis=0).max() / P.min() < math.exp(eps) * 1.1


def test_prior_top_k_check_values():
    # k = 1 for [0.7, 0.2, 0.1] at ε = 1: 0.7 > 0.9·e/(e+1) = 0.658 > 1·e/(e+2) = 0.576
    assert prior_top_k(np.array([[0.7, 0.2, 0.1], [0.45, 0.35, 0.2]]), 1.0).tolist() == [1, 2]
    assert prior_top_k(np.array([[0.7, 0.2, 0.1]]), 20.0).tolist() == [3]
    g = np.random.default_rng(1)
    z = rr_with_prior(np.full(1000, 2), np.tile([0.7, 0.2, 0.1], (1000, 1)), 1.0, g)
    assert np.all(z == 0)  # the true label is outside Y_1 = {0}: the only output is 0


def test_optimal_bins_limits_and_check_values():
    grid = np.linspace(0.0, 1.0, 5)
    p = np.full(5, 0.2)
    idx, out, loss = optimal_bins(grid, p, 1e-3)  # no budget: every output at the prior mean, loss = variance
    assert np.allclose(out, 0.5, atol=1e-3) and loss == pytest.approx(0.125, rel=1e-3)
    idx, out, loss = optimal_bins(grid, p, 40.0)  # large budget: every grid point is its own output
    assert idx.tolist() == [0, 1, 2, 3, 4] and np.allclose(out, grid, atol=1e-6) and loss < 1e-8
    losses = [optimal_bins(grid, p, e)[2] for e in (0.5, 1.0, 2.0, 4.0)]
    assert all(a > b for a, b in zip(losses, losses[1:]))


def test_optimal_bins_beats_every_two_interval_split_by_brute_force():
    g = np.random.default_rng(2)
    grid, p = np.linspace(0, 1, 8), g.dirichlet(np.ones(8))
    eps = 1.5
    _, _, loss = optimal_bins(grid, p, eps)
    e = math.exp(eps)
    for cut in range(1, 8):
        idx = (np.arange(8) >= cut).astype(int)
        for a in np.linspace(0, 1, 41):
            for b in np.linspace(0, 1, 41):
                out = np.array([a, b])
                mse = np.sum(p * ((e - 1) * (out[idx] - grid) ** 2 + ((out[:, None] - grid) ** 2).sum(0))) / (e + 1)
                assert loss <= mse + 1e-12


def test_rr_on_bins_outputs_and_error_shrinks_with_epsilon():
    g = np.random.default_rng(3)
    y = g.random(20_000)
    errs = []
    for eps in (0.5, 2.0, 8.0):
        z = rr_on_bins(y, 0.0, 1.0, LabelRRConfig(), eps, g)
        assert z.min() >= 0.0 and z.max() <= 1.0
        errs.append(np.mean((z - y) ** 2))
    assert errs[0] > errs[1] > errs[2]
    with pytest.raises(ValueError, match="epsilon"):
        rr_on_bins(y, 0.0, 1.0, LabelRRConfig(), 0.0, g)
    with pytest.raises(ValueError, match="bins"):
        LabelRRConfig(bins=1)


def test_compare_census_beside_the_label_dp_bags():
    from dp_core.compare.engine import make_spec, run_compare
    from dp_core.data import load_dataset

    spec = make_spec(epsilons=[0.1, 10.0], delta=1e-5, n_trials=5, seed=0)
    res = run_compare(load_dataset("census", n=4000), spec, mechanisms=["label_rr", "label_dp_bags"])
    s = res.summary[res.summary["adapter"] == "label_rr"].set_index("epsilon")["utility_mean"]
    assert s[10.0] > s[0.1] and s[10.0] > res.nonprivate["label_rr"] - 0.02
    assert {"label_rr", "label_dp_bags"} <= set(res.summary["adapter"])
    assert res.trials.loc[res.trials["method"] == "label_rr", "mae"].notna().all()


def test_compare_breast_cancer_two_stage():
    from dp_core.compare.engine import make_spec, run_compare
    from dp_core.data import load_dataset

    spec = make_spec(epsilons=[10.0], delta=1e-5, n_trials=3, seed=0)
    res = run_compare(load_dataset("breast_cancer"), spec, mechanisms=["label_rr"])
    assert res.summary["utility_mean"].iloc[0] > 0.9


def test_audit_is_consistent_and_tight():
    from dp_core.audit.registry import MECHANISMS

    t = MECHANISMS["label-rr"].build(mode="with-prior", pair="boundary", epsilon=1.0)
    g = np.random.default_rng(0)
    a, b = t.sample(0, 40_000, g), t.sample(1, 40_000, g)
    ratio = np.mean(a == 0) / np.mean(b == 0)
    se = ratio * math.sqrt(2 * (1 - 0.73) / (0.73 * 40_000) + 2 * 0.73 / (0.27 * 40_000))
    assert abs(ratio - math.e) < 4 * se


def test_cli_calibrate():
    out = subprocess.run(
        [sys.executable, "-m", "dp_core", "calibrate", "label-rr", "--eps", "1", "--classes", "3"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["keep_probability_uniform_prior"] == pytest.approx(math.e / (math.e + 2))
    bad = subprocess.run([sys.executable, "-m", "dp_core", "calibrate", "label-rr", "--classes", "1"])
    assert bad.returncode == 2


@pytest.mark.filterwarnings("ignore")
def test_estimators_pass_sklearn_checks_and_are_label_private():
    from sklearn.utils.estimator_checks import check_estimator

    from dp_core.data import load_dataset
    from dp_core.estimators import LabelRRClassifier, LabelRRRegressor

    for est in (LabelRRClassifier(epsilon=1000.0), LabelRRRegressor(epsilon=1000.0)):
        results = check_estimator(est, on_fail=None)
        assert len(results) > 40 and [r["check_name"] for r in results if r["status"] == "failed"] == []
    ds = load_dataset("census", n=2000)
    est = LabelRRRegressor(epsilon=4.0, y_lo=0.0, y_hi=1.0, random_state=0).fit(ds.X, ds.y)
    assert est.privacy_.neighbours == "replace one label" and est.privacy_.delta == 0.0 and not est.privacy_.leaks
    assert est.privacy_.status == "proved" and est.score(ds.X, ds.y) > 0.2


def test_page_is_in_the_navigation_and_draws_from_the_plugin():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../app.py", default_timeout=180)
    at.query_params["rr_bins"] = "20"
    at.run()
    at.switch_page("pages/label_rr.py").run()
    assert not at.exception, at.exception
    assert "What this ε means" in [e.label for e in at.expander]  # the risk panel, from the plug-in's risk hook
    assert [m.label for m in at.metric][:1] == ["Guarantee"]
    bins = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "rr_bins"]
    assert [w.value for w in bins] == [20]


def test_risk_panel_guarantee_is_pure_epsilon():
    from dp_core.risk import mechanism_risk

    r = mechanism_risk("label-rr", eps=1.0)
    assert r["status"] == "proved" and r["delta"] == 0.0 and r["audit"]["consistent"]
    # pure ε-DP: the membership advantage is (e^ε − 1)/(e^ε + 1) (Kairouz, Oh & Viswanath 2015)
    assert r["mia_advantage"] == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-3)
