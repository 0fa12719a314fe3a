"""Examples moved from the docstrings of dp_core/mechanisms/l1_exponential (formerly doctests; same values)."""

import math

import numpy as np

from dp_core.data import make_heavy_tailed
from dp_core.mechanisms.l1_exponential.baselines import clipped_em_kappa, dp_gd_calibration, markov_clip_level
from dp_core.mechanisms.l1_exponential.bounds import (
    bound_coefficients,
    explicit_bound,
    iota_paper,
    iota_star,
    log_net_size,
    moment_constants,
    privacy_dominance_epsilon,
    rate_paper,
    residual_moment_bound,
)
from dp_core.mechanisms.l1_exponential.grid import (
    default_grid_resolution,
    em_grid,
    grid_mechanism_releases,
    grid_net,
    grid_probabilities,
)
from dp_core.mechanisms.l1_exponential.lad import lad_fit_1d, lad_fit_linprog
from dp_core.mechanisms.l1_exponential.mcmc import (
    MCMCSchedule,
    bulk_ess,
    convergence_status,
    effective_sample_size,
    em_mcmc,
    em_mcmc_sweep,
    rank_normalized_rhat,
    release_status,
    split_rhat,
)
from dp_core.mechanisms.l1_exponential.mechanism import L1ExponentialRegression
from dp_core.mechanisms.l1_exponential.population import (
    HeavyTailedModel,
    assumption_tau,
    noise_abs_moment,
    noise_g,
    student_t_abs_moment,
)
from dp_core.mechanisms.l1_exponential.simulation import analyse_dataset, headline
from dp_core.mechanisms.l1_exponential.truncation import (
    convention_guarantee,
    kappa,
    psi,
    psi_prime,
    score,
    score_sensitivity,
    surrogate_cost,
    surrogate_risk,
)


def test_population_student_t_abs_moment():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.population.student_t_abs_moment
    assert (round(student_t_abs_moment(1.5, 3.0), 3), round(student_t_abs_moment(1.0, 1.8), 3)) == (1.612, 1.571)


def test_population_noise_g():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.population.noise_g
    m = HeavyTailedModel(noise="pareto_skewed", noise_tail=1.8)
    assert (round(float(noise_g(0.0, m)), 3)) == 1.057


def test_population_noise_abs_moment():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.population.noise_abs_moment
    assert (round(noise_abs_moment(1.5, HeavyTailedModel(noise="pareto_skewed", noise_tail=2.5)), 4)) == 0.8016
    assert (round(noise_abs_moment(1.5, HeavyTailedModel(noise="gaussian")), 4)) == 0.86


def test_population_assumption_tau():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.population.assumption_tau
    assert (round(assumption_tau(HeavyTailedModel(design="pareto_sphere", tail=1.8), "A3", 1.5), 3)) == 3.302
    assert (round(assumption_tau(HeavyTailedModel(design="pareto_sphere", tail=2.5), "A1", 2.0), 3)) == 2.236


def test_simulation_headline():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.simulation.headline

    ds = make_heavy_tailed(400, d=1, seed=0)
    est = L1ExponentialRegression(epsilon=1.0, theta=1.5, radius=1.0)
    an = analyse_dataset(
        ds.X,
        ds.y,
        feature_names=ds.feature_names,
        estimator=est,
        features=(0,),
        standardise=False,
        n_releases=10,
        seed=0,
        baselines=False,
    )
    h = headline(an, est.radius)
    assert h["spread"] > 0 and h["mae_private"] >= h["mae_nonprivate"] - 3 * h["mae_private_se"]


def test_lad_lad_fit_linprog():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.lad.lad_fit_linprog
    X = np.c_[np.ones(5), np.arange(5.0)]
    y = np.array([0.0, 1.0, 2.0, 3.0, 40.0])
    assert (np.round(lad_fit_linprog(X, y).w, 6).tolist()) == [0.0, 1.0]


def test_lad_lad_fit_1d():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.lad.lad_fit_1d
    assert (float(lad_fit_1d([[1.0], [2.0], [1.0]], [1.0, 2.0, 10.0]).w[0])) == 1.0


def test_mcmc_convergence_status():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.convergence_status
    assert (convergence_status(1.01, 800.0), convergence_status(1.2, 800.0), convergence_status(1.01, 40.0)) == (
        "converged",
        "not_converged",
        "not_converged",
    )


def test_mcmc_split_rhat():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.split_rhat
    g = np.random.default_rng(0)
    assert (round(split_rhat(g.standard_normal((8, 400))), 2)) == 1.0


def test_mcmc_rank_normalized_rhat():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.rank_normalized_rhat
    g = np.random.default_rng(0)
    assert (round(rank_normalized_rhat(g.standard_cauchy((8, 400))), 2)) == 1.0


def test_mcmc_effective_sample_size():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.effective_sample_size
    g = np.random.default_rng(1)
    assert 700 < effective_sample_size(g.standard_normal((4, 250))) < 1300


def test_mcmc_bulk_ess():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.bulk_ess
    g = np.random.default_rng(1)
    assert 700 < bulk_ess(g.standard_cauchy((4, 250))) < 1300


def test_mcmc_em_mcmc():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.em_mcmc
    g = np.random.default_rng(0)
    X = g.standard_normal((200, 2))
    y = X @ [0.3, -0.2]
    r = em_mcmc(X, y, epsilon=1, theta=1.5, iota=0.5, n_draws=8, schedule=MCMCSchedule(n_adapt=50, n_sample=50), rng=1)
    assert (r.draws.shape, r.label.startswith("approximate sampler")) == ((8, 2), True)


def test_mcmc_em_mcmc_sweep():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.em_mcmc_sweep
    g = np.random.default_rng(0)
    X = g.standard_normal((200, 2))
    y = X @ [0.3, -0.2]
    rs = em_mcmc_sweep(
        X,
        y,
        epsilons=[0.5, 2.0],
        theta=1.5,
        iotas=[0.4, 0.3],
        n_draws=8,
        schedule=MCMCSchedule(n_adapt=50, n_sample=50),
        rng=1,
    )
    assert ([r.draws.shape for r in rs], rs[0].label.startswith("approximate sampler")) == ([(8, 2), (8, 2)], True)


def test_mcmc_release_status():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.mcmc.release_status
    assert (release_status(None)["sampler_status"]) == "exact"


def test_truncation_psi():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.psi
    assert (round(float(psi(0.5, 2.0)), 4)) == 0.47
    assert round(float(psi(3.0, 1.5)), 4) == round(math.log(1.5), 4)


def test_truncation_psi_prime():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.psi_prime
    assert (round(float(psi_prime(0.5, 2.0)), 4)) == 0.8


def test_truncation_surrogate_cost():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.surrogate_cost
    X = [[1, 0], [0, 2], [1, 1]]
    y = [0.5, -1, 3]
    assert (round(float(surrogate_cost([0.2, -0.3], X, y, iota=0.5, theta=2.0)), 3)) == 1.041


def test_truncation_surrogate_risk():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.surrogate_risk
    X = [[1, 0], [0, 2], [1, 1]]
    y = [0.5, -1, 3]
    assert (round(float(surrogate_risk([0.2, -0.3], X, y, iota=0.5, theta=1.5)), 4)) == 0.4498


def test_truncation_score():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.score
    X = [[1, 0], [0, 2], [1, 1]]
    y = [0.5, -1, 3]
    assert (round(float(score([0.2, -0.3], X, y, iota=0.5, theta=2.0)), 3)) == -0.694


def test_truncation_score_sensitivity():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.score_sensitivity
    assert (round(score_sensitivity(10_000, 0.02038, 1.5), 6)) == 0.00199


def test_truncation_kappa():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.kappa
    assert (round(kappa(1.0, 1.5), 3), round(kappa(1.0, 1.5, "paper_box"), 3)) == (1.233, 2.466)


def test_truncation_convention_guarantee():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.truncation.convention_guarantee
    g = convention_guarantee(1.0, 1.5, "paper_box")
    assert (round(g.replace_one_epsilon, 6), round(g.add_remove_epsilon, 6)) == (2.0, 1.0)


def test_grid_grid_net():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.grid.grid_net
    g = grid_net(1, 1.0, 5)
    assert (g.points.ravel().round(2).tolist(), round(g.zeta, 4)) == ([-0.8, -0.4, 0.0, 0.4, 0.8], 0.2)
    g2 = grid_net(2, 1.0, 4)
    assert (g2.size, round(g2.zeta, 4), g2.points[np.argmax(g2.points.sum(axis=1))].round(4).tolist()) == (
        16,
        0.3536,
        [0.7071, 0.7071],
    )


def test_grid_default_grid_resolution():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.grid.default_grid_resolution
    assert (default_grid_resolution(1000, 1)) == 1000


def test_grid_grid_probabilities():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.grid.grid_probabilities
    p = grid_probabilities([1.216, 1.213, 1.118, 0.6389, 0.9595], 1.233)
    assert (p.round(3).tolist()) == [0.153, 0.153, 0.173, 0.311, 0.21]


def test_grid_em_grid():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.grid.em_grid
    r = em_grid([[1.0], [2.0], [-1.0]], [0.5, 1.0, 2.0], epsilon=1, theta=1.5, iota=1, m=5, rng=0)
    assert (r.probabilities.round(4).tolist()) == [0.1528, 0.1535, 0.1725, 0.3114, 0.2097]


def test_grid_grid_mechanism_releases():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.grid.grid_mechanism_releases
    w = grid_mechanism_releases([[1.0], [2.0]], [0.5, 1.0], 1000, epsilon=1, theta=1.5, iota=1, m=5, rng=1)
    assert (w.shape) == (1000, 1)


def test_bounds_residual_moment_bound():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.residual_moment_bound
    assert (round(residual_moment_bound(1.0, 1.0, 1.5, 2.0), 3)) == 5.414


def test_bounds_moment_constants():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.moment_constants
    c = moment_constants("A4", tau=1, d=10, theta=1.2)
    assert (round(c.m1, 3), round(c.M_theta, 3), round(c.V_theta, 2)) == (6.813, 10.0, 27.54)


def test_bounds_log_net_size():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.log_net_size
    assert (round(log_net_size(5, 1e-4, 2.0), 2)) == 55.01


def test_bounds_rate_paper():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.rate_paper
    assert (round(rate_paper(10_000, 5, 1.0, 0.05, 1.5, 1.0, "A3"), 4)) == 0.2398


def test_bounds_explicit_bound():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.explicit_bound
    b = explicit_bound(
        0.02038,
        zeta=1e-4,
        n=10_000,
        eta=0.01,
        theta=1.5,
        m1=1,
        M_theta=1,
        V_theta=5.414,
        diam_W=2,
        kappa_value=1.233,
        d=5,
    )
    assert (round(b.total, 2), round(b.statistical, 3), round(b.privacy, 4)) == (3.41, 0.9, 0.2372)


def test_bounds_bound_coefficients():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.bound_coefficients
    a, b = bound_coefficients(
        zeta=1e-4, n=10_000, eta=0.01, theta=1.5, M_theta=1, V_theta=5.414, diam_W=2, kappa_value=1.233, d=5
    )
    assert (round(a, 2), round(b, 5)) == (15.93, 0.02318)


def test_bounds_iota_star():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.iota_star
    assert (
        round(
            iota_star(
                zeta=1e-4, n=10_000, eta=0.01, theta=1.5, M_theta=1, V_theta=5.414, diam_W=2, kappa_value=1.233, d=5
            ),
            5,
        )
    ) == 0.02038


def test_bounds_iota_paper():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.iota_paper
    assert (round(iota_paper(10_000, 5, 1.0, 0.05, 1.5, 1.0, "A3"), 5)) == 0.05752


def test_bounds_privacy_dominance_epsilon():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.bounds.privacy_dominance_epsilon
    assert (round(privacy_dominance_epsilon(2.0), 3), round(privacy_dominance_epsilon(1.5), 3)) == (0.462, 0.27)


def test_baselines_markov_clip_level():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.baselines.markov_clip_level
    assert (round(markov_clip_level(1.0, 2.0, 0.05), 4)) == 4.4721


def test_baselines_clipped_em_kappa():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.baselines.clipped_em_kappa
    assert (clipped_em_kappa(1.0, 3.0, 5.0, 1.0)) == 0.0625


def test_baselines_dp_gd_calibration():
    # formerly the doctest of dp_core.mechanisms.l1_exponential.baselines.dp_gd_calibration
    c = dp_gd_calibration(n=10_000, d=5, epsilon=1, delta=1e-5, n_steps=200, clip=2, radius=1)
    assert (round(c.rho, 5), round(c.sigma_g, 5), round(c.G, 3), round(c.step, 5)) == (0.02082, 0.02772, 2.001, 0.07068)
