"""Examples moved from the input-perturbation docstrings (formerly doctests), same values."""

import numpy as np

from dp_core.mechanisms.input_perturbation.bounds import lemma2_bound, theorem2_terms
from dp_core.mechanisms.input_perturbation.estimator import default_eta
from dp_core.mechanisms.input_perturbation.experiment import n_choices, sweep_sizes
from dp_core.mechanisms.input_perturbation.mechanism import release_thetas_xy
from dp_core.mechanisms.input_perturbation.model import model_constants
from dp_core.mechanisms.input_perturbation.params import (
    conservative_accounting,
    exact_local_epsilon,
    feasibility,
    input_perturbation_params,
    min_n,
    sigma_u_value,
)
from dp_core.mechanisms.input_perturbation.solver import solve_ball


def test_bounds_theorem2_terms():
    # dp_core.mechanisms.input_perturbation.bounds.theorem2_terms
    p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)
    assert round(theorem2_terms(p).total, 5) == 0.01315


def test_bounds_lemma2_bound():
    # dp_core.mechanisms.input_perturbation.bounds.lemma2_bound
    p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)
    assert round(lemma2_bound(p), 5) == 0.01641


def test_estimator_default_eta():
    # dp_core.mechanisms.input_perturbation.estimator.default_eta
    assert (default_eta(0.5), default_eta(2.0), default_eta(10.0)) == (1.0, 2.0, 3.0)


def test_experiment_n_choices():
    # dp_core.mechanisms.input_perturbation.experiment.n_choices
    assert (n_choices(100, 54.4)[:4], n_choices(100, 54.4)[-1]) == ((64, 100, 128, 256), 16777216)


def test_experiment_sweep_sizes():
    # dp_core.mechanisms.input_perturbation.experiment.sweep_sizes
    assert sweep_sizes(16000, 14, 54.4) == (64, 256, 1024, 4096, 16000)
    assert sweep_sizes(50, 14, 54.4) == ()


def test_mechanism_release_thetas_xy():
    # dp_core.mechanisms.input_perturbation.mechanism.release_thetas_xy
    X = np.tile([[0.6, 0.8]], (100, 1))
    y = np.full(100, 0.5)
    assert release_thetas_xy(X, y, epsilon=1.0, delta=1e-5, n_runs=3, seed=0).shape == (3, 2)


def test_model_model_constants():
    # dp_core.mechanisms.input_perturbation.model.model_constants
    c = model_constants("least_squares", eta=1.0)
    assert (c.lam, c.zeta) == (1.0, 2.0)
    c = model_constants("logistic_taylor", eta=1.0)
    assert (c.lam, c.zeta) == (0.25, 0.75)


def test_params_min_n():
    # dp_core.mechanisms.input_perturbation.params.min_n
    assert round(min_n(0.01)["cor2"], 2) == 26.74


def test_params_feasibility():
    # dp_core.mechanisms.input_perturbation.params.feasibility
    f = feasibility(80, 1e-5)
    assert (f.ok, round(f.n_min, 1)) == (True, 54.4)
    f = feasibility(40, 1e-5)
    assert (f.ok, f"{f.delta_min:.2g}") == (False, "0.00036")


def test_params_sigma_u_value():
    # dp_core.mechanisms.input_perturbation.params.sigma_u_value
    assert round(sigma_u_value(n=10_000, d=10, eps_run=1.0, delta=1e-5, lam=1.0), 4) == 1.653


def test_params_input_perturbation_params():
    # dp_core.mechanisms.input_perturbation.params.input_perturbation_params
    p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, eta=1.0, zeta=1.0, lam=1.0)
    assert (round(p.sigma_b, 2), round(p.sigma_u, 3), round(p.Delta, 1)) == (10.35, 1.653, 131.0)


def test_params_exact_local_epsilon():
    # dp_core.mechanisms.input_perturbation.params.exact_local_epsilon
    assert round(exact_local_epsilon(4.739, 0.02), 1) == 20.1


def test_params_conservative_accounting():
    # dp_core.mechanisms.input_perturbation.params.conservative_accounting
    p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)
    c = conservative_accounting(p)
    assert (round(c.t, 4), round(c.lam_tilde, 3), round(c.ridge_needed, 3), c.ridge_ok) == (0.1328, 1.283, 2.566, True)


def test_solver_solve_ball():
    # dp_core.mechanisms.input_perturbation.solver.solve_ball
    assert solve_ball(np.eye(2), np.array([0.3, 0.4]), 1.0).tolist() == [0.3, 0.4]
    assert [round(float(v), 6) for v in solve_ball(np.eye(2), np.array([3.0, 4.0]), 1.0)] == [0.6, 0.8]
