"""DP-GD (dp_core/mechanisms/dp_gd): accountant, noise multiplier, the vectorised runs, the comparison, the
audit, the CLI, the estimators (scikit-learn's checks) and the page."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from dp_core.mechanisms.dp_gd import DPGDConfig, accounted_epsilon, noise_multiplier, run_gd


def test_accountant_check_values_and_monotonicity():
    # dp_accounting's RDP accountant: 100 compositions of z = 5 at δ = 1e-5 (doctest value), and the
    # single Gaussian step agrees with its own T = 1 value: more steps or less noise cost more ε.
    assert accounted_epsilon(5.0, 100, 1e-5) == pytest.approx(10.7255, rel=1e-3)
    e = [accounted_epsilon(z, 10, 1e-5) for z in (2.0, 4.0, 8.0)]
    assert e[0] > e[1] > e[2]
    assert accounted_epsilon(4.0, 20, 1e-5) > accounted_epsilon(4.0, 10, 1e-5)


@pytest.mark.parametrize("eps,steps", [(0.1, 5), (1.0, 23), (10.0, 100)])
def test_noise_multiplier_is_the_smallest_within_budget(eps, steps):
    z = noise_multiplier(eps, 1e-5, steps)
    assert accounted_epsilon(z, steps, 1e-5) <= eps
    assert accounted_epsilon(z * (1 - 1e-4), steps, 1e-5) > eps * (1 - 1e-2)


def test_noise_multiplier_validation():
    with pytest.raises(ValueError, match="epsilon"):
        noise_multiplier(0.0, 1e-5, 10)
    with pytest.raises(ValueError, match="delta"):
        noise_multiplier(1.0, 1.0, 10)
    with pytest.raises(ValueError, match="clip"):
        DPGDConfig(clip=0.0)


def test_public_step_rule():
    cfg = DPGDConfig()
    assert [cfg.n_steps(455, e) for e in (0.1, 1.0, 10.0)] == [5, 23, 100]
    assert DPGDConfig(steps=7).n_steps(455, 10.0) == 7
    assert cfg.eta("binary") == pytest.approx(1 / 0.251)


def test_noise_free_run_converges_and_clipping_bounds_each_step():
    g = np.random.default_rng(0)
    X = g.standard_normal((200, 3))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1)[:, None]
    w = np.array([0.5, -0.3, 0.2])
    y = X @ w
    theta = run_gd("regression", X, y, DPGDConfig(l2=0.0, steps=2000), 2000, 0.0, [None])[0]
    assert np.allclose(theta, w, atol=1e-2)
    # one step from 0 with clip C: the mean clipped gradient has norm at most C
    c = 1e-3
    one = run_gd("regression", X, 100 * y, DPGDConfig(clip=c, l2=0.0), 1, 0.0, [None])[0]
    assert np.linalg.norm(one) <= DPGDConfig().eta("regression") * c * (1 + 1e-9)


def test_noise_std_matches_2Cz_on_the_final_iterate():
    # one row at x = 0: the gradient is 0, so θ_T = -η Σ_t noise_t / n with std η 2 C z sqrt(T)
    cfg, steps, z = DPGDConfig(clip=0.5, l2=0.0), 4, 3.0
    th = run_gd("regression", np.zeros((1, 1)), np.zeros(1), cfg, steps, z, np.random.default_rng(1), runs=20_000)
    sd = cfg.eta("regression") * 2 * cfg.clip * z * math.sqrt(steps)
    se = sd / math.sqrt(2 * th.size)  # standard error of a sample standard deviation
    assert abs(th.std() - sd) < 4 * se


def test_compare_breast_cancer_accuracy_grows_with_epsilon():
    from dp_core.compare.engine import make_spec, run_compare
    from dp_core.data import load_dataset

    spec = make_spec(epsilons=[0.1, 10.0], delta=1e-5, n_trials=20, seed=0)
    res = run_compare(load_dataset("breast_cancer"), spec, mechanisms=["dp_gd"])
    s = res.summary.set_index("epsilon")["utility_mean"]
    assert s[10.0] > s[0.1] and s[10.0] > 0.9
    assert res.nonprivate["dp_gd"] > 0.9


def test_compare_regression_reports_mae():
    from dp_core.compare.engine import make_spec, run_compare
    from dp_core.data import load_dataset

    spec = make_spec(epsilons=[10.0], delta=1e-5, n_trials=5, seed=0)
    res = run_compare(load_dataset("diabetes"), spec, mechanisms=["dp_gd"])
    assert res.trials["mae"].notna().all() and res.summary["utility_mean"].iloc[0] > 0.3


def test_audit_is_consistent_and_matches_the_gaussian_shift():
    from dp_core.audit.registry import MECHANISMS

    t = MECHANISMS["dp-gd"].build(mode="standard", pair="boundary", epsilon=1.0, delta=1e-5)
    g = np.random.default_rng(0)
    a, b = t.sample(0, 5000, g), t.sample(1, 5000, g)
    # θ_T = ∓η T C - η Σ noise: the means differ by 2 η T C
    shift = 2 * DPGDConfig().eta("regression") * t.details["steps"] * DPGDConfig().clip
    se = math.sqrt(a.var() / a.size + b.var() / b.size)
    assert abs((b.mean() - a.mean()) - shift) < 4 * se


def test_cli_calibrate():
    out = subprocess.run(
        [sys.executable, "-m", "dp_core", "calibrate", "dp-gd", "--eps", "1", "--n", "455"],
        capture_output=True,
        text=True,
        check=True,
    )
    row = json.loads(out.stdout)
    assert row["steps"] == 23 and row["epsilon_accounted"] <= 1.0 and row["status"] == "proof"
    bad = subprocess.run([sys.executable, "-m", "dp_core", "calibrate", "dp-gd", "--eps", "1", "--clip", "0"])
    assert bad.returncode == 2


@pytest.mark.filterwarnings("ignore")
def test_estimators_pass_sklearn_checks_and_are_private():
    from sklearn.utils.estimator_checks import check_estimator

    from dp_core.estimators import DPGDClassifier, DPGDRegressor

    for est in (DPGDClassifier(epsilon=1000.0), DPGDRegressor(epsilon=1000.0)):
        results = check_estimator(est, on_fail=None)
        assert len(results) > 40 and [r["check_name"] for r in results if r["status"] == "failed"] == []
    from dp_core.data import load_dataset

    ds = load_dataset("breast_cancer")
    est = DPGDClassifier(epsilon=1.0, data_norm=float(np.linalg.norm(ds.X, axis=1).max()), random_state=0)
    est.fit(ds.X, ds.y)
    assert est.privacy_.status == "proved" and est.privacy_.delta == 1e-5 and est.steps_ == 28


def test_page_is_in_the_navigation_and_draws_from_the_plugin():
    from streamlit.testing.v1 import AppTest

    from dp_core import registry

    entry = next(d for d in registry.declared_pages() if d["name"] == "dp-gd")
    assert entry["page"] == "pages/dp_gd.py"
    at = AppTest.from_file("../app.py", default_timeout=180)
    at.query_params["gd_clip"] = "0.5"
    at.run()
    at.switch_page("pages/dp_gd.py").run()
    assert not at.exception, at.exception
    assert "What this ε means" in [e.label for e in at.expander]  # the risk panel, from the plug-in's risk hook
    assert [m.label for m in at.metric][:2] == ["Steps", "Noise multiplier"]
    clip = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "gd_clip"]
    assert [w.value for w in clip] == [0.5]


def test_risk_panel_guarantee_is_the_gaussian_composition():
    from dp_core.risk import mechanism_risk

    r = mechanism_risk("dp-gd", eps=1.0, delta=1e-5, steps=23)
    z = noise_multiplier(1.0, 1e-5, 23)
    assert r["mu"] == pytest.approx(math.sqrt(23) / z, rel=1e-3) and r["status"] == "proved"
    assert r["audit"] is not None and r["audit"]["consistent"]
    # Gaussian DP with μ: the membership advantage is 2Φ(μ/2) − 1 (Dong, Roth & Su 2022, Cor. 2.14)
    from scipy.stats import norm

    assert r["mia_advantage"] == pytest.approx(2 * norm.cdf(r["mu"] / 2) - 1, rel=1e-2)
