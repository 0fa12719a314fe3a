"""Cached wrappers of the heavy-tailed l1 page (pure dp_core calls).

Keys are scalars, tuples, frozen configuration dataclasses, the dataset's name and fingerprint
and ``dp_core.__version__``; data objects carry a leading underscore. No Streamlit element is created
inside a cached function (the page calls them inside tabs, where replaying elements fails); a
spinner text shows while an experiment runs.
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

import pandas as pd

import dp_core
from dp_core.data import make_heavy_tailed
from dp_core.mechanisms.l1_exponential import simulation as sim
from dp_core.mechanisms.l1_exponential.grid import em_grid
from dp_core.mechanisms.l1_exponential.mcmc import MCMCSchedule, em_mcmc
from dp_core.mechanisms.l1_exponential.mechanism import L1Calibration, L1ExponentialRegression

from . import cached_scope as scoped

V = dp_core.__version__


@scoped.cache_data(max_entries=256, show_spinner=False)
def calibration(est: L1ExponentialRegression, n: int, d: int, _v: str = V) -> L1Calibration:
    return est.calibrate(n, d)


@scoped.cache_data(max_entries=32, show_spinner="Drawing the private coefficients...")
def analysis(
    name: str,
    fingerprint: str,
    est: L1ExponentialRegression,
    features: tuple,
    standardise: bool,
    n_releases: int,
    seed: int,
    delta: float,
    _ds,
    baselines: bool = False,
    _v: str = V,
) -> sim.DatasetAnalysis:
    """The mechanism's releases on the data (and, with ``baselines``, those of B1 and B2: slower)."""
    return sim.analyse_dataset(
        _ds.X,
        _ds.y,
        feature_names=_ds.feature_names,
        estimator=est,
        features=features,
        standardise=standardise,
        n_releases=n_releases,
        seed=seed,
        delta=delta,
        baselines=baselines,
    )


@scoped.cache_data(max_entries=16, show_spinner="Running the rate experiment...", upload_independent=True)
def rates(
    base: sim.SimulationConfig, ns: tuple, thetas: tuple, trials: int, seed: int, _v: str = V
) -> tuple[pd.DataFrame, pd.DataFrame]:
    return sim.rate_sweep(base, ns=ns, thetas=thetas, n_trials=trials, seed=seed)


@scoped.cache_data(max_entries=16, show_spinner="Running the ε experiment...", upload_independent=True)
def epsilons(
    base: sim.SimulationConfig, eps_grid: tuple, trials: int, seed: int, _v: str = V
) -> tuple[pd.DataFrame, pd.DataFrame]:
    return sim.epsilon_sweep(base, epsilons=eps_grid, n_trials=trials, seed=seed)


@scoped.cache_data(max_entries=16, show_spinner="Running the truncation experiment...", upload_independent=True)
def truncation(
    base: sim.SimulationConfig, c_iotas: tuple, trials: int, seed: int, _v: str = V
) -> tuple[pd.DataFrame, pd.DataFrame]:
    return sim.truncation_sweep(base, c_iotas=c_iotas, n_trials=trials, seed=seed)


@scoped.cache_data(max_entries=16, show_spinner="Running the baseline comparison...", upload_independent=True)
def baselines(base: sim.SimulationConfig, tails: tuple, trials: int, seed: int, _v: str = V) -> pd.DataFrame:
    return sim.baseline_sweep(base, tails=tails, n_trials=trials, seed=seed)


@scoped.cache_data(
    max_entries=8, show_spinner="Running the exact grid sampler and MALA in d = 2...", upload_independent=True
)
def sampler_check(n: int, epsilon: float, theta: float, iota: float, chains: int, seed: int, _v: str = V) -> dict:
    ds = make_heavy_tailed(n, d=2, seed=seed)
    grid = em_grid(ds.X, ds.y, epsilon=epsilon, theta=theta, iota=iota, m=200)
    mc = em_mcmc(
        ds.X,
        ds.y,
        epsilon=epsilon,
        theta=theta,
        iota=iota,
        n_draws=chains,
        schedule=MCMCSchedule.preset("quick"),
        rng=seed,
    )
    return {
        "points": grid.net.points,
        "probs": grid.probabilities,
        "draws": mc.draws,
        "diagnostics": mc.diagnostics.as_dict(),
        "grid_mean": grid.mean,
    }
