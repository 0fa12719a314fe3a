"""DP naive Bayes (Vaidya et al. 2013): calibration check values, the estimator, the comparison, CLI and audit."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dp_core.cli import main
from dp_core.compare import ADAPTERS
from dp_core.compare.registry import CompareSpec
from dp_core.data import load_dataset
from dp_core.estimators import DPGaussianNB
from dp_core.mechanisms.dp_naive_bayes import (
    NaiveBayesConfig,
    class_statistics,
    log_posteriors,
    model_from_statistics,
    noisy_statistics,
    scale_features,
)
from dp_core.mechanisms.dp_naive_bayes.audit import AUDIT


def test_budget_split_and_laplace_scales_check_values():
    cfg = NaiveBayesConfig()
    assert cfg.budgets(1.0) == pytest.approx((0.1, 0.45, 0.45), rel=1e-3)
    assert sum(cfg.budgets(2.5)) == pytest.approx(2.5, rel=1e-12)
    assert cfg.scales(1.0, 30) == pytest.approx((20.0, 30 / 0.45, 15 / 0.45), rel=1e-3)
    assert NaiveBayesConfig(count_share=0.5).scales(2.0, 4) == pytest.approx((2.0, 8.0, 4.0), rel=1e-3)


def test_config_refuses_by_name():
    with pytest.raises(ValueError, match="count_share"):
        NaiveBayesConfig(count_share=0.95)
    with pytest.raises(ValueError, match="epsilon"):
        NaiveBayesConfig().budgets(0.0)


def test_scaled_features_lie_in_the_half_box_and_statistics_are_exact():
    Z = scale_features([[0.0, 10.0], [5.0, -3.0], [2.5, 4.0]], [0.0, 0.0], [5.0, 8.0])
    assert Z.tolist() == [[-0.5, 0.5], [0.5, -0.5], [0.0, 0.0]]
    N, S, Q = class_statistics(Z, np.array([0, 1, 0]), 2)
    assert N.tolist() == [2.0, 1.0] and S.tolist() == [[-0.5, 0.5], [0.5, -0.5]]
    assert Q.tolist() == [[0.25, 0.25], [0.25, 0.25]]


def test_the_noise_is_unbiased_with_the_stated_scale():
    stats = (np.array([50.0, 30.0]), np.zeros((2, 3)), np.zeros((2, 3)))
    cfg, runs = NaiveBayesConfig(), 20_000
    N, S, _ = noisy_statistics(stats, 1.0, cfg, np.random.default_rng(1), size=runs)
    b = cfg.scales(1.0, 3)
    se = b[0] * math.sqrt(2.0 / runs)  # Laplace(b) has standard deviation b sqrt(2)
    assert abs(N[:, 0].mean() - 50.0) < 4 * se
    sd = np.std(S.reshape(-1))
    assert sd == pytest.approx(b[1] * math.sqrt(2.0), rel=0.03)


def test_model_post_processing_stays_in_public_ranges():
    N = np.array([-3.0, 10.0])
    S = np.array([[9.0], [-100.0]])
    Q = np.array([[-1.0], [50.0]])
    lp, mean, var = model_from_statistics(N, S, Q, 1e-3)
    assert np.exp(lp).sum() == pytest.approx(1.0) and np.all(np.abs(mean) <= 0.5)
    assert np.all((var >= 1e-3) & (var <= 0.25))


def test_noise_free_model_classifies_separated_classes():
    rng = np.random.default_rng(0)
    Z = np.concatenate([rng.uniform(-0.5, -0.2, (50, 2)), rng.uniform(0.2, 0.5, (50, 2))])
    y = np.repeat([0, 1], 50)
    model = model_from_statistics(*class_statistics(Z, y, 2), 1e-3)
    assert np.mean(np.argmax(log_posteriors(Z, *model), axis=1) == y) == 1.0


def _breast():
    ds = load_dataset("breast_cancer")
    from dp_core.data import public_bounds

    b = public_bounds(ds)
    return ds, (b.lo, b.hi)


@pytest.mark.filterwarnings("ignore::dp_core.exceptions.DegenerateFitWarning")
def test_estimator_accuracy_rises_with_epsilon_and_is_seeded():
    ds, bounds = _breast()

    def acc(eps):
        fits = [DPGaussianNB(eps, bounds=bounds, random_state=s).fit(ds.X, ds.y) for s in range(10)]
        return np.mean([f.score(ds.X, ds.y) for f in fits])

    lo, hi = acc(0.1), acc(100.0)
    assert hi > 0.9 and hi > lo + 0.2
    a = DPGaussianNB(1.0, bounds=bounds, random_state=3).fit(ds.X, ds.y)
    b = DPGaussianNB(1.0, bounds=bounds, random_state=3).fit(ds.X, ds.y)
    assert np.array_equal(a.theta_, b.theta_)
    assert a.privacy_.delta == 0.0 and a.privacy_.status == "proved" and not a.privacy_.leaks
    assert np.allclose(a.predict_proba(ds.X[:5]).sum(axis=1), 1.0)


def test_estimator_without_bounds_records_the_leak():
    ds, _ = _breast()
    est = DPGaussianNB(1000.0, random_state=0).fit(ds.X, ds.y)
    assert est.privacy_.leaks and "bounds" in est.privacy_.leaks[0]


@pytest.mark.filterwarnings("ignore")  # scikit-learn's own warnings, as in tests/test_estimators_sklearn.py
def test_estimator_passes_scikit_learn_checks():
    pytest.importorskip("sklearn")
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(DPGaussianNB(epsilon=1000.0), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


def test_compare_adapter_on_breast_cancer():
    ds, _ = _breast()
    ad = ADAPTERS["dp_naive_bayes"]
    spec = CompareSpec(epsilons=(0.1, 100.0), delta=1e-5, n_trials=8, seed=0)
    state = ad.prepare(ds, spec)
    df = ad.sweep(state, spec)
    means = df.groupby("epsilon")["utility"].mean()
    assert means[100.0] > means[0.1] and means[100.0] > 0.85
    assert np.allclose(df["excess_risk"], ad.nonprivate_utility(state) - df["utility"])
    with pytest.raises(ValueError, match="regression"):
        ad.prepare(load_dataset("diabetes"), spec)


def test_cli_calibrate(capsys):
    assert main(["calibrate", "dp-naive-bayes", "--eps", "2", "--d", "4", "--count-share", "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["laplace_scales"] == pytest.approx({"counts": 2.0, "sums": 8.0, "squared_sums": 4.0})


def test_audit_statistic_is_bounded_by_the_claimed_epsilon():
    t = AUDIT.build(mode="standard", pair="boundary", epsilon=0.7, delta=0.0)
    rng = np.random.default_rng(0)
    s0, s1 = t.sample(0, 50_000, rng), t.sample(1, 50_000, rng)
    assert np.abs(s0).max() <= 0.7 + 1e-9 and np.abs(s1).max() <= 0.7 + 1e-9
    assert s0.mean() > 0 > s1.mean()  # the statistic tells the two sides apart
    assert s0.max() == pytest.approx(0.7, rel=1e-3)  # the worst case is reached: the pair is tight


def test_the_page_is_in_the_navigation_and_draws_from_the_plugin():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from dp_core import registry

    plugin = registry.get("dp-naive-bayes")
    entry = next(d for d in registry.declared_pages() if d["name"] == "dp-naive-bayes")
    assert entry["page"] == plugin.page == "pages/dp_naive_bayes.py"
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.query_params["dataset"] = "breast_cancer"
    at.query_params["nb_count_share"] = "0.2"
    at.run()
    at.switch_page(plugin.page).run()
    assert not at.exception, at.exception
    assert at.title[0].value.endswith("DP naive Bayes (Vaidya et al. 2013)")
    assert [m.label for m in at.metric][:3] == ["Budget (counts / sums / squares)", "Guarantee", "Mean test accuracy"]
    share = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "nb_count_share"]
    assert [w.value for w in share] == [0.2]
    assert any("private models" in c.value for c in at.caption)
    assert any("What this" in e.label for e in at.expander)  # the risk panel, collapsed
