"""The faster kernels and the early stop of the l1 exponential mechanism's samplers (issue 16).

(a) the fused float64 grid kernel computes the same S(g) as the generic evaluation (rounding only),
    so the exact grid law and seeded draws are unchanged;
(b) the sampler's fused float32 cost and gradient agree with the float64 surrogate to float32 accuracy;
(c) the early stop: it stops only on diagnostics that pass its stricter thresholds, the reported
    diagnostics are those of the kept trace, and a run that does not pass never claims convergence;
(d) an early-stopped run still samples the exact grid law (seeded statistical check).
Speed itself is measured by ``benchmarks/bench_l1_sampler.py``, not here.
"""

import math

import numpy as np
import pytest

from dp_core.data import make_heavy_tailed
from dp_core.mechanisms.l1_exponential import MCMCSchedule, em_grid, em_mcmc, surrogate_cost, surrogate_cost_and_grad
from dp_core.mechanisms.l1_exponential import mcmc as mcmc_module
from dp_core.mechanisms.l1_exponential.grid import grid_costs, grid_net
from dp_core.mechanisms.l1_exponential.mcmc import (
    ESS_MIN,
    RHAT_THRESHOLD,
    STOP_CHECK_EVERY,
    STOP_ESS,
    STOP_MIN_SAMPLE,
    STOP_RHAT,
    bulk_ess,
    rank_normalized_rhat,
)

THETAS = (1.05, 1.3, 1.5, 2.0)


def _data(n, d, seed, *, big=False):
    ds = make_heavy_tailed(n, d=d, seed=seed)
    X, y = ds.X.copy(), ds.y.copy()
    X[0] = 0.0  # a residual that is exactly zero at every w (x = 0, y = 0)
    y[0] = 0.0
    if big:
        y[1:5] = [50.0, -80.0, 1e3, -1e4]  # saturated residuals (iota |r| >= 1)
    return X, y


# --- (a) the exact grid kernel ---------------------------------------------------------------------
@pytest.mark.parametrize("theta", THETAS)
@pytest.mark.parametrize("d, n, m", [(1, 130, 257), (2, 333, 40), (3, 64, 9)])
def test_fused_grid_costs_equal_the_generic_surrogate(theta, d, n, m):
    X, y = _data(n, d, seed=d, big=True)
    net = grid_net(d, 1.0, m)
    fused = grid_costs(net.points, X, y, iota=0.3, theta=theta)
    generic = surrogate_cost(net.points, X, y, iota=0.3, theta=theta)
    blocks = grid_costs(net.points, X, y, iota=0.3, theta=theta, method="blocks")
    np.testing.assert_allclose(fused, generic, rtol=1e-12, atol=1e-11)
    np.testing.assert_array_equal(blocks, generic)
    # every summand lies in [0, log theta]; the saturated rows contribute exactly log theta each
    assert np.all(fused >= 4 * math.log(theta) - 1e-9) and np.all(fused <= n * math.log(theta) + 1e-9)


def test_fused_grid_costs_split_over_two_threads_equal_one_thread():
    X, y = _data(2100, 2, seed=4)
    net = grid_net(2, 1.0, 50)  # N * n above the threading threshold
    assert net.size * X.shape[0] >= 4_000_000
    one = grid_costs(net.points, X, y, iota=0.05, theta=1.3, n_threads=1)
    two = grid_costs(net.points, X, y, iota=0.05, theta=1.3, n_threads=2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one, surrogate_cost(net.points, X, y, iota=0.05, theta=1.3), rtol=1e-12)


def test_grid_law_and_seeded_draws_unchanged_by_the_kernel():
    X, y = _data(700, 2, seed=5)
    r = em_grid(X, y, epsilon=1.0, theta=1.3, iota=0.05, m=60, n_draws=500, rng=11)
    from dp_core.mechanisms.l1_exponential.grid import grid_probabilities, sample_grid

    S = grid_costs(r.net.points, X, y, iota=0.05, theta=1.3, method="blocks")
    p = grid_probabilities(S, r.kappa)
    np.testing.assert_allclose(r.probabilities, p, rtol=1e-9, atol=1e-15)
    np.testing.assert_array_equal(r.draw_indices, sample_grid(p, 500, 11))


def test_grid_costs_method_is_validated():
    with pytest.raises(ValueError, match="method must be one of 'fused', 'blocks'"):
        grid_costs([[0.0]], [[1.0]], [1.0], iota=1.0, theta=1.5, method="dense")


# --- (b) the sampler's float32 kernel --------------------------------------------------------------
@pytest.mark.parametrize("theta", THETAS)
def test_fast_sampler_kernel_matches_float64_surrogate(theta):
    X, y = _data(3000, 4, seed=6, big=True)
    W = np.random.default_rng(0).uniform(-0.5, 0.5, (37, 4))
    S, G = mcmc_module._fast_cost_grad(X, y, 0.1, theta)(W)
    S64, G64 = surrogate_cost_and_grad(W, X, y, iota=0.1, theta=theta)
    np.testing.assert_allclose(S, S64, rtol=2e-6)
    # float32 products over 3,000 rows: error relative to the gradient's scale
    assert np.max(np.abs(G - G64)) <= 2e-5 * np.max(np.abs(G64))
    S_old, G_old = mcmc_module._legacy_cost_grad(X, y, 0.1, theta)(W)
    np.testing.assert_allclose(S, S_old, rtol=2e-6)


@pytest.mark.parametrize("n", [1, 31, 32, 33, 2049])
def test_fast_sampler_kernel_padding_and_blocks(n, monkeypatch):
    # n around the product group (32), and blocks of a few rows: padded columns add nothing
    monkeypatch.setattr(mcmc_module, "_MCMC_BLOCK", 3 * 2080)
    g = np.random.default_rng(n)
    X = g.standard_normal((n, 3))
    y = X @ [0.4, -0.2, 0.1] + g.standard_t(2, n)
    W = g.uniform(-0.6, 0.6, (11, 3))
    for theta in (1.05, 1.5, 2.0):
        S, G = mcmc_module._fast_cost_grad(X, y, 0.7, theta)(W)
        S64, G64 = surrogate_cost_and_grad(W, X, y, iota=0.7, theta=theta)
        np.testing.assert_allclose(S, S64, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(G, G64, rtol=1e-4, atol=2e-5 * np.max(np.abs(G64)))
        # a row's cost does not depend on the block it was computed in (its gradient, a BLAS product
        # whose summation order follows the block's shape, only up to float32 rounding)
        S1, G1 = mcmc_module._fast_cost_grad(X, y, 0.7, theta)(W[4:5])
        assert S1[0] == S[4]
        np.testing.assert_allclose(G1[0], G[4], rtol=1e-5, atol=1e-6 * np.max(np.abs(G64)))


# --- (c) the early stop ----------------------------------------------------------------------------
def _small_problem():
    ds = make_heavy_tailed(400, d=2, seed=3)
    return ds.X, ds.y, {"epsilon": 1.0, "theta": 1.5, "iota": 0.2}


def test_early_stop_stops_on_passing_diagnostics_of_the_kept_trace():
    X, y, kw = _small_problem()
    res = em_mcmc(X, y, n_draws=64, schedule=MCMCSchedule(n_adapt=150, n_sample=2000), rng=3, **kw)
    dg = res.diagnostics
    assert dg.n_sample < 2000  # stopped early ...
    assert dg.n_sample >= STOP_MIN_SAMPLE and (dg.n_sample - STOP_MIN_SAMPLE) % STOP_CHECK_EVERY == 0
    assert res.trace_logp.shape == (64, dg.n_sample)
    # ... on the diagnostics it reports, recomputed from the kept trace
    assert dg.rhat_logp == pytest.approx(rank_normalized_rhat(res.trace_logp), rel=1e-12)
    assert dg.ess_logp == pytest.approx(bulk_ess(res.trace_logp), rel=1e-12)
    assert dg.rhat_max <= STOP_RHAT < RHAT_THRESHOLD and dg.ess_min >= STOP_ESS > ESS_MIN
    assert dg.status == "converged"
    # the same seed gives the same numbers
    again = em_mcmc(X, y, n_draws=64, schedule=MCMCSchedule(n_adapt=150, n_sample=2000), rng=3, **kw)
    np.testing.assert_array_equal(res.draws, again.draws)


def test_without_early_stop_the_full_length_runs():
    X, y, kw = _small_problem()
    sched = MCMCSchedule(n_adapt=150, n_sample=300, stop_early=False)
    res = em_mcmc(X, y, n_draws=32, schedule=sched, rng=3, **kw)
    assert res.diagnostics.n_sample == 300 and res.trace_logp.shape == (32, 300)
    assert MCMCSchedule.legacy("fast").stop_early is False
    with pytest.raises(TypeError, match="stop_early must be True or False"):
        MCMCSchedule(stop_early="yes")


def test_a_run_that_cannot_pass_is_not_stopped_and_not_labelled_converged():
    # no warm-up and chains started all over W: far too short to converge, whatever the early stop does
    X, y, kw = _small_problem()
    sched = MCMCSchedule(n_adapt=0, n_sample=150, precondition=False, reparam="none", step0=1e-7)
    res = em_mcmc(X, y, n_draws=32, schedule=sched, rng=0, **kw)
    dg = res.diagnostics
    assert dg.n_sample == 150  # never stopped: the check at 100 steps did not pass
    assert dg.rhat_max > RHAT_THRESHOLD and dg.status == "not_converged"


# --- (d) an early-stopped run samples the exact law ------------------------------------------------
@pytest.mark.slow
def test_early_stopped_fast_preset_matches_exact_grid_law():
    ds = make_heavy_tailed(600, d=1, seed=8)
    kw = {"epsilon": 1.0, "theta": 1.3, "iota": 0.2}
    m, K = 400, 400
    grid = em_grid(ds.X, ds.y, m=m, **kw)
    res = em_mcmc(ds.X, ds.y, n_draws=K, schedule=MCMCSchedule.preset("fast"), rng=8, **kw)
    assert res.diagnostics.status == "converged" and res.diagnostics.n_sample < 600
    assert res.diagnostics.rhat_max <= 1.01  # the fast preset's stop level
    P, p = grid.net.points[:, 0], grid.probabilities
    mean = float(p @ P)
    sd = float(np.sqrt(p @ (P - mean) ** 2))
    draws = res.draws[:, 0]
    half_cell = 1.0 / m
    assert abs(draws.mean() - mean) < 4 * sd / math.sqrt(K) + half_cell
    order = np.argsort(P)
    cdf = np.cumsum(p[order])
    for q in (0.1, 0.5, 0.9):
        xq = P[order][np.searchsorted(cdf, q)]
        frac = float(np.mean(draws <= xq))
        # Binomial(K, q)/K standard error, plus the mass of one grid cell (the grid CDF jumps by at most that)
        assert abs(frac - q) < 4 * math.sqrt(q * (1 - q) / K) + p.max(), (q, frac)


# --- (e) the faster diagnostics give the same numbers ----------------------------------------------
def test_rank_normal_scores_equal_scipy_average_ranks_with_ties():
    from scipy.special import ndtri
    from scipy.stats import rankdata

    g = np.random.default_rng(12)
    x = g.standard_normal((40, 90))
    x[:, 1::3] = x[:, 0::3][:, : x[:, 1::3].shape[1]]  # repeated values within chains, as after rejections
    x[5] = x[6]  # and across chains
    x = np.round(x, 1)  # many ties
    for arr in (x, g.standard_cauchy((7, 33))):
        expected = ndtri((rankdata(arr, method="average").reshape(arr.shape) - 0.375) / (arr.size + 0.25))
        np.testing.assert_array_equal(mcmc_module._rank_normal(arr), expected)


def test_diagnostics_with_early_exit_agree_with_the_public_functions():
    g = np.random.default_rng(3)
    lp = g.standard_normal((16, 120)).cumsum(axis=1) * 0.05 + g.standard_normal((16, 120))
    w = g.standard_normal((16, 120, 2))
    rh, es = mcmc_module._diagnostics(lp, w)
    qs = [lp, w[:, :, 0], w[:, :, 1]]
    assert rh == tuple(rank_normalized_rhat(q) for q in qs)
    assert es == [bulk_ess(q) for q in qs]
    # the early-stop form returns None unless every quantity passes, else the same values
    assert mcmc_module._diagnostics(lp, w, rhat_max=min(rh) - 1e-9, ess_min=0.0) is None
    assert mcmc_module._diagnostics(lp, w, rhat_max=10.0, ess_min=max(es) + 1.0) is None
    assert mcmc_module._diagnostics(lp, w, rhat_max=max(rh), ess_min=min(es)) == (rh, es)


# --- (f) the early stop's level is a schedule setting -----------------------------------------------
def test_stop_rhat_is_validated():
    assert MCMCSchedule().stop_rhat == STOP_RHAT
    # the library default preset stops at the R-hat its older fixed length reached; quick keeps 1.02
    assert MCMCSchedule.preset("fast").stop_rhat == 1.01
    assert MCMCSchedule.preset("quick").stop_rhat == MCMCSchedule.preset("spec").stop_rhat == STOP_RHAT
    for bad in (0.99, 1.06, math.nan):
        with pytest.raises(ValueError, match="stop_rhat must"):
            MCMCSchedule(stop_rhat=bad)
    with pytest.raises(TypeError, match="stop_rhat must be a real number"):
        MCMCSchedule(stop_rhat="1.01")


def test_a_stricter_stop_rhat_runs_longer_to_a_smaller_rhat():
    X, y, kw = _small_problem()
    loose = em_mcmc(X, y, n_draws=64, schedule=MCMCSchedule(n_adapt=150, n_sample=2000), rng=3, **kw)
    strict_schedule = MCMCSchedule(n_adapt=150, n_sample=2000, stop_rhat=1.005)
    strict = em_mcmc(X, y, n_draws=64, schedule=strict_schedule, rng=3, **kw)
    assert strict.diagnostics.n_sample > loose.diagnostics.n_sample
    assert strict.diagnostics.rhat_max <= 1.005 and strict.diagnostics.ess_min >= STOP_ESS
    assert strict.diagnostics.n_sample < 2000  # it did stop early


def test_threads_only_for_enough_work(monkeypatch):
    # the same draws with one thread or two: only the threading (not the kernel's values) changes
    X, y, kw = _small_problem()
    calls = []
    real = mcmc_module.ThreadPoolExecutor

    def spy(*args, **kwargs):
        calls.append(kwargs.get("max_workers", args[0] if args else None))
        return real(*args, **kwargs)

    monkeypatch.setattr(mcmc_module, "ThreadPoolExecutor", spy)
    monkeypatch.setattr(mcmc_module.os, "cpu_count", lambda: 2)
    sched = MCMCSchedule(n_adapt=20, n_sample=10, stop_early=False)
    em_mcmc(X, y, n_draws=32, schedule=sched, rng=0, **kw)  # 32 x 400 terms: one thread
    assert calls == []
    monkeypatch.setattr(mcmc_module, "_THREAD_MIN_WORK", 1000)
    em_mcmc(X, y, n_draws=32, schedule=sched, rng=0, **kw)  # now enough per thread
    assert calls == [2]
