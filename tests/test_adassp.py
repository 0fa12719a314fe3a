"""AdaSSP (Wang 2018, Algorithm 2): calibration check values, the ridge rule, estimator, comparison, CLI, audit."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from dp_core.calibration import gaussian_delta_analytic
from dp_core.cli import main
from dp_core.compare import ADAPTERS
from dp_core.compare.registry import CompareSpec
from dp_core.data import load_dataset
from dp_core.estimators import AdasspRegressor
from dp_core.mechanisms.adassp import AdasspConfig, adassp_thetas, release, sigmas, solve, sufficient_statistics
from dp_core.mechanisms.adassp.audit import AUDIT


def test_sigmas_check_values_and_each_release_spends_a_third():
    sig = sigmas(1.0, 1e-5)
    assert sig == pytest.approx((10.9707, 15.5149, 21.9414), rel=1e-3)
    for s, sens in zip(sig, (1.0, math.sqrt(2.0), 2.0)):
        assert gaussian_delta_analytic(sigma=s, epsilon=1 / 3, sensitivity=sens) == pytest.approx(1e-5 / 3, rel=1e-3)
    assert sigmas(1.0, 1e-5, bx=2.0, by=3.0)[2] == pytest.approx(6 * sig[2], rel=1e-9)  # Δ = 2·2·3 = 6·2
    with pytest.raises(ValueError, match="epsilon"):
        sigmas(0.0, 1e-5)


def test_release_noise_has_the_stated_scale_and_is_symmetric():
    X = np.eye(3)
    stats = sufficient_statistics(X, np.ones(3))
    sig = (1.0, 2.0, 3.0)
    lam, A, b = release(stats, sig, 1e-5, np.random.default_rng(0), size=20_000)
    assert np.allclose(A, np.transpose(A, (0, 2, 1)))
    assert np.std(A[:, 0, 1]) == pytest.approx(2.0, rel=0.03) and np.std(b[:, 2]) == pytest.approx(3.0, rel=0.03)
    assert abs(np.mean(b[:, 0]) - 1.0) < 4 * 3.0 / math.sqrt(20_000)
    assert np.all(lam >= 0)


def test_solve_without_noise_and_large_lambda_min_is_least_squares():
    g = np.random.default_rng(1)
    X = g.standard_normal((200, 3))
    y = X @ np.array([0.5, -1.0, 2.0])
    XtX, Xty, lam = sufficient_statistics(X, y)
    theta = solve((np.array([lam]), XtX[None], Xty[None]), (1.0, 1e-6, 1.0), AdasspConfig())
    assert theta[0] == pytest.approx([0.5, -1.0, 2.0], rel=1e-6)  # λ = max(0, tiny − λ̃) = 0


def test_ridge_rule_grows_when_lambda_min_is_small():
    XtX = np.diag([1e-3, 1.0])
    theta_small = solve((np.array([0.0]), XtX[None], np.array([[1.0, 1.0]])), (1.0, 1.0, 1.0), AdasspConfig())
    lam = math.sqrt(2 * math.log(8 / 0.05))
    assert theta_small[0] == pytest.approx([1 / (1e-3 + lam), 1 / (1 + lam)], rel=1e-9)


def test_estimator_r2_rises_with_epsilon_and_is_seeded():
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, size=(5000, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + 0.3 + 0.05 * g.standard_normal(5000)

    def r2(eps):
        fits = [AdasspRegressor(eps, data_norm=math.sqrt(3), y_bound=2.5, random_state=s).fit(X, y) for s in range(6)]
        return float(np.median([f.score(X, y) for f in fits]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, hi = r2(0.05), r2(100.0)
    assert hi > 0.95 and hi > lo
    a = AdasspRegressor(5.0, data_norm=2.0, y_bound=2.5, random_state=4).fit(X, y)
    b = AdasspRegressor(5.0, data_norm=2.0, y_bound=2.5, random_state=4).fit(X, y)
    assert np.array_equal(a.theta_, b.theta_) and a.privacy_.delta == 1e-5 and not a.privacy_.leaks
    assert np.allclose(a.predict(X[:4]), X[:4] @ a.coef_ + a.intercept_)  # rows inside the declared norm


def test_estimator_without_bounds_records_the_leaks():
    X, y = np.random.default_rng(0).standard_normal((50, 2)), np.arange(50.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = AdasspRegressor(1000.0, random_state=0).fit(X, y)
    assert len(est.privacy_.leaks) == 2


@pytest.mark.filterwarnings("ignore")  # scikit-learn's own warnings, as in tests/test_estimators_sklearn.py
def test_estimator_passes_scikit_learn_checks():
    pytest.importorskip("sklearn")
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(AdasspRegressor(epsilon=1000.0, delta=0.5), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


def test_compare_adapter_on_census_beats_the_mean_at_large_epsilon():
    ad = ADAPTERS["adassp"]
    spec = CompareSpec(epsilons=(0.1, 10.0), delta=1e-5, n_trials=6, seed=0)
    state = ad.prepare(load_dataset("census"), spec)
    df = ad.sweep(state, spec)
    med = df.groupby("epsilon")["utility"].median()
    assert med[10.0] > med[0.1] and med[10.0] > 0.5 * ad.nonprivate_utility(state) > 0
    assert (df["excess_risk"] >= -1e-12).all() and not state.leaks  # census: public domain
    with pytest.raises(ValueError, match="regression"):
        ad.prepare(load_dataset("breast_cancer"), spec)


def test_cli_calibrate(capsys):
    assert main(["calibrate", "adassp", "--eps", "3", "--delta", "1e-6", "--y-bound", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sigmas"]["xty"] == pytest.approx(sigmas(3.0, 1e-6, 1.0, 2.0)[2], rel=1e-9)
    assert out["sensitivities"] == pytest.approx({"lambda_min": 1.0, "xtx": math.sqrt(2), "xty": 4.0})


def test_audit_statistic_is_the_gaussian_privacy_loss():
    t = AUDIT.build(mode="standard", pair="boundary", epsilon=1.0, delta=1e-5)
    sig = sigmas(1.0, 1e-5)
    mu2 = 1 / sig[0] ** 2 + 2 / sig[1] ** 2 + 2 / sig[2] ** 2  # shifts of λ_min 1, XᵀX √2, Xᵀy √2
    s0 = t.sample(0, 40_000, np.random.default_rng(0))
    assert np.std(s0) == pytest.approx(math.sqrt(mu2), rel=0.03)
    assert abs(np.mean(s0) - mu2 / 2) < 4 * math.sqrt(mu2 / 40_000)


def test_adassp_thetas_shape():
    stats = sufficient_statistics(np.eye(2), np.ones(2))
    assert adassp_thetas(stats, 1.0, 1e-5, AdasspConfig(), np.random.default_rng(0), size=5).shape == (5, 2)


def test_the_page_is_in_the_navigation_and_draws_from_the_plugin():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from dp_core import registry

    plugin = registry.get("adassp")
    assert plugin.page == "pages/adassp.py"
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.query_params["dataset"] = "diabetes"
    at.query_params["ad_failure_prob"] = "0.1"
    at.run()
    at.switch_page(plugin.page).run()
    assert not at.exception, at.exception
    assert at.title[0].value.endswith("AdaSSP linear regression (Wang 2018)")
    assert [m.label for m in at.metric][:3] == ["Noise σ on XᵀX", "Guarantee", "Median test R²"]
    fp = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "ad_failure_prob"]
    assert [w.value for w in fp] == [0.1]
    assert any("What this" in e.label for e in at.expander)
