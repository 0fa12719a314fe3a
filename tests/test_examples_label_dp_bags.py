"""Examples moved from the label-DP bags docstrings (formerly doctests), same values."""

import math

import numpy as np

from dp_core.mechanisms.label_dp_bags.bounds import (
    baseline_calibration,
    delta_noisy_wtd_llp,
    delta_wtd_lba,
    fixed_split_k_thresholds,
    gaussian_delta_profile,
    lba_utility_required_m,
    lemma23_delta,
    lemma23_log_delta,
    llp_delta_floor,
    llp_exact_delta,
    llp_exact_min_eps,
    min_eps,
    min_k,
    naive_delta_lower_bound,
    predicted_ratio_lba,
    terms_noisy_wtd_llp_over_k,
    terms_wtd_lba_over_k,
)
from dp_core.mechanisms.label_dp_bags.core import check_bag_sizes, fit_linear, noise_set, sample_bags
from dp_core.mechanisms.label_dp_bags.defaults import (
    auto_bag_setting,
    default_bags,
    suggest_bag_params,
    utility_min_bags,
)
from dp_core.mechanisms.label_dp_bags.diagnostics import bags_for_useful_model, data_conditions


def test_bounds_lemma23_log_delta():
    # dp_core.mechanisms.label_dp_bags.bounds.lemma23_log_delta
    assert round(math.exp(lemma23_log_delta(1.0, 1e-4, 0.5, "fixed")), 4) == 0.7624


def test_bounds_lemma23_delta():
    # dp_core.mechanisms.label_dp_bags.bounds.lemma23_delta
    assert round(lemma23_delta(2.0, 1e-3, 1.0, "optimized"), 4) == 0.1184


def test_bounds_delta_noisy_wtd_llp():
    # dp_core.mechanisms.label_dp_bags.bounds.delta_noisy_wtd_llp
    assert round(delta_noisy_wtd_llp(1.0, 1e12, 1000, 0.1, 1.0), 5) == 0.02067


def test_bounds_delta_wtd_lba():
    # dp_core.mechanisms.label_dp_bags.bounds.delta_wtd_lba
    assert round(delta_wtd_lba(1.0, 1e11, 100, 10, 1.0, 2.0, 0.25, 0.1), 5) == 0.05656


def test_bounds_fixed_split_k_thresholds():
    # dp_core.mechanisms.label_dp_bags.bounds.fixed_split_k_thresholds
    assert [f"{t:.4g}" for t in fixed_split_k_thresholds(1.0, 0.1, 1.0)] == ["1.475e+06", "1.359e+11"]


def test_bounds_terms_wtd_lba_over_k():
    # dp_core.mechanisms.label_dp_bags.bounds.terms_wtd_lba_over_k
    t = terms_wtd_lba_over_k(1.0, [1e11], 100, 10, 1.0, 2.0, 0.25, 0.1)
    assert round(float(t["delta"][0]), 5) == 0.05656


def test_bounds_terms_noisy_wtd_llp_over_k():
    # dp_core.mechanisms.label_dp_bags.bounds.terms_noisy_wtd_llp_over_k
    t = terms_noisy_wtd_llp_over_k(1.0, [1e6, 1e12], 1000, 0.1, 1.0)
    assert [round(float(x), 5) for x in t["delta"]] == [1.0, 0.02067]


def test_bounds_naive_delta_lower_bound():
    # dp_core.mechanisms.label_dp_bags.bounds.naive_delta_lower_bound
    assert naive_delta_lower_bound(100000, 64, 1000) == 0.64


def test_bounds_min_k():
    # dp_core.mechanisms.label_dp_bags.bounds.min_k
    assert f"{min_k(1e-3, 1.0, 'noisy-wtd-llp', m=1000, rho=0.1, b1=1.0):.4g}" == "2.573e+12"


def test_bounds_min_eps():
    # dp_core.mechanisms.label_dp_bags.bounds.min_eps
    assert round(min_eps(1e-6, 1e13, "noisy-wtd-llp", m=1000, rho=0.1, b1=1.0), 4) == 0.96


def test_bounds_gaussian_delta_profile():
    # dp_core.mechanisms.label_dp_bags.bounds.gaussian_delta_profile
    assert [round(float(gaussian_delta_profile(e, M)), 4) for e, M in [(1, 0.5), (1, 2), (0.3, 1)]] == [
        0.0068,
        0.5099,
        0.2933,
    ]


def test_bounds_llp_delta_floor():
    # dp_core.mechanisms.label_dp_bags.bounds.llp_delta_floor
    assert f"{llp_delta_floor(100000, 64, 1000, 0.1):.4g}" == "0.0008365"


def test_bounds_llp_exact_delta():
    # dp_core.mechanisms.label_dp_bags.bounds.llp_exact_delta
    assert round(llp_exact_delta(1.0, 100000, 64, 1000, 0.1).delta, 5) == 0.07891


def test_bounds_llp_exact_min_eps():
    # dp_core.mechanisms.label_dp_bags.bounds.llp_exact_min_eps
    assert round(llp_exact_min_eps(1e-5, 1000000, 256, 1000, 0.1), 3) == 4.545


def test_bounds_baseline_calibration():
    # dp_core.mechanisms.label_dp_bags.bounds.baseline_calibration
    assert round(baseline_calibration(1.0, 1e-5, 1.0)["gaussian_sigma"], 3) == 7.461


def test_bounds_predicted_ratio_lba():
    # dp_core.mechanisms.label_dp_bags.bounds.predicted_ratio_lba
    assert round(predicted_ratio_lba(512, 72), 3) == 1.164


def test_bounds_lba_utility_required_m():
    # dp_core.mechanisms.label_dp_bags.bounds.lba_utility_required_m
    assert f"{lba_utility_required_m(0.05, 64, 10, 0.5, 0.25, 5.0, 0.5):.4g}" == "6.794e+09"


def test_core_check_bag_sizes():
    # dp_core.mechanisms.label_dp_bags.core.check_bag_sizes
    assert check_bag_sizes(100, 10, 5) == (100, 10, 5)


def test_core_sample_bags():
    # dp_core.mechanisms.label_dp_bags.core.sample_bags
    S = sample_bags(10, 2, 3, 0)
    assert (S.shape, len(set(S.ravel()))) == ((2, 3), 6)


def test_core_noise_set():
    # dp_core.mechanisms.label_dp_bags.core.noise_set
    assert int(noise_set(10, 0.3, 1).sum()) == 3


def test_core_fit_linear():
    # dp_core.mechanisms.label_dp_bags.core.fit_linear
    Xb = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    yb = Xb @ np.array([2.0, -1.0])
    assert np.round(fit_linear(Xb, yb), 6).tolist() == [2.0, -1.0]


def test_defaults_utility_min_bags():
    # dp_core.mechanisms.label_dp_bags.defaults.utility_min_bags
    assert utility_min_bags(31) == 63


def test_defaults_suggest_bag_params():
    # dp_core.mechanisms.label_dp_bags.defaults.suggest_bag_params
    s = suggest_bag_params(16_000, epsilon=1.0, d=14)
    assert (s.informative, s.m * s.k <= 16_000, s.m >= 16) == (True, True, True)
    assert suggest_bag_params(30, epsilon=1.0, d=14).k == 0


def test_defaults_auto_bag_setting():
    # dp_core.mechanisms.label_dp_bags.defaults.auto_bag_setting
    a = auto_bag_setting(16_000, d=14, delta=1e-5, rho=0.1)
    assert (a.k, a.m, round(a.epsilon, 2)) == (551, 29, 2.77)
    assert auto_bag_setting(354, d=11, delta=1e-5, rho=0.1).epsilon is None


def test_defaults_default_bags():
    # dp_core.mechanisms.label_dp_bags.defaults.default_bags
    assert default_bags(16_000, d=14, delta=1e-5, rho=0.1) == auto_bag_setting(16_000, d=14, delta=1e-5, rho=0.1)


def test_diagnostics_data_conditions():
    # dp_core.mechanisms.label_dp_bags.diagnostics.data_conditions
    g = np.random.default_rng(0)
    X = np.hstack([g.normal(size=(500, 2)) / 4, np.ones((500, 1))])
    c = data_conditions(X, np.clip(g.normal(size=500) / 2, -1, 1), 1.0)
    assert (c["rank"], c["gamma"] is not None) == (3, True)


def test_diagnostics_bags_for_useful_model():
    # dp_core.mechanisms.label_dp_bags.diagnostics.bags_for_useful_model
    assert bags_for_useful_model(d=3, nonprivate=0.2, trivial=0.4, rho=0.1) == 9
    assert bags_for_useful_model(d=3, nonprivate=0.4, trivial=0.4) is None
    assert bags_for_useful_model(d=3, nonprivate=0.25, trivial=0.5, measured=0.75, m=10) == 17
