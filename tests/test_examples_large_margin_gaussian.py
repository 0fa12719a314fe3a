"""Examples moved from the docstrings of dp_core/mechanisms/large_margin_gaussian (formerly doctests; same values)."""

import numpy as np

from dp_core.mechanisms.large_margin_gaussian.bounds import noise_radius
from dp_core.mechanisms.large_margin_gaussian.estimator import default_components, default_regularisers
from dp_core.mechanisms.large_margin_gaussian.experiments import suggest_settings, utility_note
from dp_core.mechanisms.large_margin_gaussian.model import huber_hinge, preprocess
from dp_core.mechanisms.large_margin_gaussian.plan import n_grid
from dp_core.mechanisms.large_margin_gaussian.privacy import privacy_params, sample_radial


def test_model_preprocess():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.model.preprocess
    assert (preprocess(np.array([[3.0, 4.0]])).round(4).tolist()) == [[0.4243, 0.5657, 0.7071]]


def test_model_huber_hinge():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.model.huber_hinge
    assert (float(huber_hinge(np.array(0.375), 0.5))) == 0.3828125


def test_privacy_sample_radial():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.privacy.sample_radial
    assert (sample_radial(9, 0.5, rng=0).shape) == (9,)


def test_privacy_privacy_params():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.privacy.privacy_params
    acc = privacy_params(epsilon=1.0, n=1000, d=2, n_classes=3, lam=0.01, h=0.5)
    assert (round(acc.k_corrected, 3), round(acc.Delta, 5), round(acc.beta, 4)) == (1.049, 0.01253, 0.1021)


def test_plan_n_grid():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.plan.n_grid
    assert (n_grid(300, 3)) == (100, 200, 300)


def test_bounds_noise_radius():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.bounds.noise_radius
    assert (round(noise_radius(9, 0.5, 0.05, kind="union"), 2), round(noise_radius(9, 0.5, 0.05), 2)) == (93.47, 28.87)


def test_estimator_default_components():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.estimator.default_components
    assert (default_components(455, 30), default_components(1437, 64), default_components(5000, 8)) == (5, 9, None)


def test_estimator_default_regularisers():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.estimator.default_regularisers
    assert (default_regularisers(450, 1.0)) == (0.01, 0.1)


def test_experiments_suggest_settings():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.experiments.suggest_settings
    assert (suggest_settings("wine", 13, 178, 3).k) == 5
    assert (suggest_settings("gaussian_classes", 2, 1000, 3).lam) == 0.01


def test_experiments_utility_note():
    # formerly the doctest of dp_core.mechanisms.large_margin_gaussian.experiments.utility_note
    assert utility_note(0.34, 0.95, 3) is not None
    assert utility_note(0.9, 0.95, 3) is None
