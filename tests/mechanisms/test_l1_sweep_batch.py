"""Several privacy budgets sampled side by side (``em_mcmc_sweep``) and the comparison adapter's batched sweep.

(a) the kernel evaluates each row at its own truncation scale (``scales``), as a kernel built for that scale;
(b) one budget alone gives exactly the draws of ``em_mcmc`` (same stream, same arithmetic);
(c) side by side, every budget still samples its own exact law (seeded statistical check against the
    exact grid law), with its own diagnostics computed on its own trace;
(d) the adapter: a batch of one epsilon reproduces the per-epsilon path's draws; batches of several
    give every epsilon its diagnostics and trials.
"""

import math

import numpy as np
import pytest

from dp_core.compare import make_spec, run_compare
from dp_core.compare.registry import ADAPTERS
from dp_core.data import make_heavy_tailed
from dp_core.mechanisms.l1_exponential import MCMCSchedule, em_grid, em_mcmc, surrogate_cost_and_grad
from dp_core.mechanisms.l1_exponential import mcmc as mcmc_module
from dp_core.mechanisms.l1_exponential.mcmc import bulk_ess, em_mcmc_sweep, rank_normalized_rhat
from dp_core.rng import as_generator, as_seed_sequence


# --- (a) one call, several truncation scales ---------------------------------------------------------
@pytest.mark.parametrize("theta", [1.05, 1.5, 2.0])
def test_kernel_scales_evaluate_each_row_at_its_own_iota(theta):
    ds = make_heavy_tailed(1500, d=3, seed=4)
    g = np.random.default_rng(1)
    W = g.uniform(-0.5, 0.5, (9, 3))
    scales = np.array([1.0, 0.5, 2.0, 1.0, 3.7, 0.25, 1.0, 1.3, 0.8])
    S, G = mcmc_module._fast_cost_grad(ds.X, ds.y, 0.2, theta)(W, scales)
    for r in range(W.shape[0]):
        S64, G64 = surrogate_cost_and_grad(W[r : r + 1], ds.X, ds.y, iota=0.2 * scales[r], theta=theta)
        assert S[r] == pytest.approx(S64[0], rel=2e-6)
        assert np.max(np.abs(G[r] - G64[0])) <= 2e-5 * np.max(np.abs(G64))
    # a scale of exactly 1 is the unscaled kernel
    S1, G1 = mcmc_module._fast_cost_grad(ds.X, ds.y, 0.2, theta)(W[[0, 3, 6]])
    np.testing.assert_array_equal(S1, S[[0, 3, 6]])


def test_sweep_validates_its_budgets():
    ds = make_heavy_tailed(50, d=2, seed=0)
    with pytest.raises(ValueError, match="epsilons and iotas must have the same positive length"):
        em_mcmc_sweep(ds.X, ds.y, epsilons=[1.0, 2.0], theta=1.5, iotas=[0.3])
    with pytest.raises(ValueError, match="epsilon must be finite"):
        em_mcmc_sweep(ds.X, ds.y, epsilons=[math.inf], theta=1.5, iotas=[0.3])
    with pytest.raises(ValueError, match="iota must be"):
        em_mcmc_sweep(ds.X, ds.y, epsilons=[1.0], theta=1.5, iotas=[-0.3])


# --- (b) one budget: the single-ensemble sampler -----------------------------------------------------
@pytest.mark.parametrize("reparam", ["auto", "none"])
def test_one_budget_gives_exactly_em_mcmc(reparam):
    ds = make_heavy_tailed(400, d=2, seed=3)
    sched = MCMCSchedule(n_adapt=120, n_sample=400, reparam=reparam)
    (one,) = em_mcmc_sweep(ds.X, ds.y, epsilons=[1.0], theta=1.5, iotas=[0.2], n_draws=32, schedule=sched, rng=5)
    ref = em_mcmc(ds.X, ds.y, epsilon=1.0, theta=1.5, iota=0.2, n_draws=32, schedule=sched, rng=5)
    np.testing.assert_array_equal(one.draws, ref.draws)
    np.testing.assert_array_equal(one.trace_logp, ref.trace_logp)
    assert one.diagnostics.n_sample == ref.diagnostics.n_sample
    assert one.diagnostics.rhat_max == ref.diagnostics.rhat_max


# --- (c) side by side, each budget samples its own exact law -----------------------------------------
def _assert_exact_law(draws, grid, K, m, label):
    """Mean, spread and three quantiles of 1-d draws against the exact grid law (4 standard errors)."""
    half_cell = 1.0 / m
    P, p = grid.net.points[:, 0], grid.probabilities
    mean = float(p @ P)
    sd = float(np.sqrt(p @ (P - mean) ** 2))
    assert abs(draws.mean() - mean) < 4 * sd / math.sqrt(K) + half_cell, (label, draws.mean(), mean)
    kurt = float(p @ (P - mean) ** 4) / sd**4
    assert abs(draws.std(ddof=1) / sd - 1) < 4 * math.sqrt((kurt - 1) / (4 * K)) + half_cell / sd, label
    order = np.argsort(P)
    cdf = np.cumsum(p[order])
    for q in (0.1, 0.5, 0.9):
        xq = P[order][np.searchsorted(cdf, q)]
        lo = float(np.mean(draws <= xq - half_cell))
        hi = float(np.mean(draws <= xq + half_cell))
        tol = 4 * math.sqrt(q * (1 - q) / K)
        assert lo - tol <= q <= hi + tol, (label, q, lo, hi)
    return sd


def test_budgets_in_different_kernels_and_lengths_sample_their_exact_laws():
    # the target of the small budget sits against the boundary of W (tanh kernel), the large one inside
    # (ball kernel); they also stop at different lengths: the mixed path of the side-by-side sampler
    ds = make_heavy_tailed(500, d=1, seed=2)
    X, y = ds.X * 3.0, ds.y * 3.0 + 2.5
    eps, iotas, m, K = [0.3, 5.0], [0.3, 0.1], 400, 400
    runs = em_mcmc_sweep(
        X, y, epsilons=eps, theta=1.5, iotas=iotas, n_draws=K, schedule=MCMCSchedule.preset("quick"), rng=2
    )
    assert [r.diagnostics.parametrisation for r in runs] == ["tanh", "ball"]
    assert runs[0].diagnostics.n_sample != runs[1].diagnostics.n_sample
    for e, io, res in zip(eps, iotas, runs):
        assert res.diagnostics.status == "converged"
        grid = em_grid(X, y, epsilon=e, theta=1.5, iota=io, m=m)
        _assert_exact_law(res.draws[:, 0], grid, K, m, e)


def test_budgets_side_by_side_sample_their_exact_laws():
    # d = 1: the exact grid law is computed on a fine grid; three budgets with different kappa and iota
    ds = make_heavy_tailed(500, d=1, seed=0)
    eps, iotas, m, K = [0.3, 1.0, 4.0], [0.4, 0.2, 0.1], 400, 400
    runs = em_mcmc_sweep(
        ds.X, ds.y, epsilons=eps, theta=1.5, iotas=iotas, n_draws=K, schedule=MCMCSchedule.preset("quick"), rng=2
    )
    spreads = []
    for e, io, res in zip(eps, iotas, runs):
        dg = res.diagnostics
        assert dg.status == "converged" and dg.n_chains == K
        # the diagnostics are those of this budget's own trace
        assert res.trace_logp.shape == (K, dg.n_sample)
        assert dg.rhat_logp == pytest.approx(rank_normalized_rhat(res.trace_logp), rel=1e-12)
        assert dg.ess_logp == pytest.approx(bulk_ess(res.trace_logp), rel=1e-12)
        grid = em_grid(ds.X, ds.y, epsilon=e, theta=1.5, iota=io, m=m)
        spreads.append(_assert_exact_law(res.draws[:, 0], grid, K, m, e))
    # power: the three laws differ (a larger budget concentrates), so mixing them up would fail above
    assert spreads[0] > 1.5 * spreads[2]


# --- (d) the comparison adapter ------------------------------------------------------------------------
@pytest.fixture
def short_adapter(monkeypatch):
    adapter = ADAPTERS["l1_exponential"]
    monkeypatch.setattr(adapter, "mcmc_schedule", MCMCSchedule(n_adapt=150, n_sample=300))
    return adapter


def test_adapter_batch_of_one_reproduces_the_per_epsilon_draws(short_adapter, monkeypatch):
    from dp_core.mechanisms.l1_exponential.lad import l1_risk

    monkeypatch.setattr(short_adapter, "mcmc_batch", 1)
    ds = make_heavy_tailed(700, d=4, seed=2)
    spec = make_spec(epsilons=(0.5, 2.0), delta=1e-5, n_trials=3, seed=7)
    state = short_adapter.prepare(ds, spec)
    assert state.mode == "mcmc"
    df = short_adapter.sweep(state, spec)
    seeds = as_seed_sequence(spec.seed).spawn(2)
    for e, seed in zip(spec.epsilons, seeds):
        fit = short_adapter._estimator(e).run(state.X, state.y, rng=as_generator(seed), n_draws=3)
        rows = df[df.epsilon == e].sort_values("trial")
        np.testing.assert_allclose(
            rows["excess_risk"].to_numpy(),
            np.maximum(np.atleast_1d(l1_risk(fit.draws, state.X, state.y)) - state.lad_objective, 0.0),
            rtol=1e-12,
        )


def test_adapter_batched_sweep_rows_and_diagnostics(short_adapter):
    ds = make_heavy_tailed(700, d=4, seed=2)
    eps = (0.2, 0.5, 1.0, 2.0, 5.0)  # batches of 4 and 1
    res = run_compare(ds, make_spec(epsilons=eps, delta=1e-5, n_trials=3, seed=0), mechanisms=["l1_exponential"])
    trials = res.trials
    assert sorted(set(trials.epsilon)) == list(eps)
    assert (trials.groupby("epsilon").size() == 3).all()
    row = res.method_info("em_l1")
    diags = row["sampler_diagnostics"]
    assert [d_["epsilon"] for d_ in diags] == list(eps)
    assert all(d_["n_chains"] == 16 and d_["n_adapt"] == 150 for d_ in diags)
    # the statuses follow the diagnostics
    for d_ in diags:
        ok = d_["rhat_max"] <= mcmc_module.RHAT_THRESHOLD and d_["ess_min"] >= mcmc_module.ESS_MIN
        assert d_["status"] == ("converged" if ok else "not_converged")
    # more privacy, less utility on average (seeded; the gap between 0.2 and 5 is far above the noise)
    means = trials.groupby("epsilon")["excess_risk"].mean()
    assert means[0.2] > means[5.0]
