"""The page plan of heavy-tailed l1 regression: cached calls and background jobs (no Streamlit).
See docs/l1_exponential.md §"plan (module)"."""

from __future__ import annotations

import dp_core

from ...plugin import Block, cached, latest, staged_blocks
from . import simulation as sim
from .mechanism import L1ExponentialRegression
from .scaling import PublicScaling

V = dp_core.__version__

#: Trials of the quick first pass of a synthetic experiment.
QUICK_TRIALS = 4

#: The grids of the page's synthetic experiments (docs/l1_exponential.md §"Synthetic protocol").
EXPERIMENTS = {
    "rates": (sim.rate_sweep, {"ns": (500, 2000, 8000), "thetas": (1.2, 1.5, 2.0)}),
    "epsilon": (sim.epsilon_sweep, {"epsilons": (0.1, 0.3, 1.0, 3.0, 10.0)}),
    "truncation": (sim.truncation_sweep, {"c_iotas": (0.05, 0.2, 1.0, 5.0, 20.0)}),
    "baselines": (sim.baseline_sweep, {"tails": (1.5, 2.5, 4.0)}),
}


@cached(max_entries=32, spinner="Drawing the private coefficients...")
def analysis(
    name: str,
    fingerprint: str,
    est: L1ExponentialRegression,
    features: tuple,
    standardise: bool,
    n_releases: int,
    seed: int,
    _ds,
    _v: str = V,
    scaling: PublicScaling | None = None,
) -> sim.DatasetAnalysis:
    """The mechanism's releases on the data and the non-private LAD fit (the first screen).
    See docs/l1_exponential.md §"plan.analysis"."""
    kw = dict(estimator=est, features=features, standardise=standardise, n_releases=n_releases, seed=seed)
    return sim.analyse_dataset(_ds.X, _ds.y, feature_names=_ds.feature_names, baselines=False, scaling=scaling, **kw)


def data_baseline_blocks(
    ds,
    est: L1ExponentialRegression,
    features: tuple,
    standardise: bool,
    n_releases: int,
    seed: int,
    delta: float,
    scaling: PublicScaling | None = None,
) -> tuple[str, list[Block]]:
    """``(job key, blocks)`` of the analysis with the baselines B1 and B2 on the data (same EM-L1-HT draws)."""
    kwargs = dict(feature_names=tuple(ds.feature_names), estimator=est, features=features, standardise=standardise)
    kwargs |= dict(n_releases=n_releases, seed=seed, delta=delta, baselines=True, scaling=scaling)  # the key's order
    key = repr((V, "data_baselines", ds.name, ds.fingerprint, kwargs))
    return key, [Block("full", sim.analyse_dataset, (ds.X, ds.y), kwargs)]


def experiment_blocks(which: str, base: sim.SimulationConfig, trials: int, seed: int, *, quick: bool):
    """``(job key, blocks)`` of synthetic experiment ``which``: a quick pass first (``quick``), then the full one."""
    if which not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {', '.join(EXPERIMENTS)}, got {which!r}.")
    fn, grid = EXPERIMENTS[which]
    blocks = staged_blocks(
        fn, (base,), {**grid, "seed": int(seed)}, int(trials), quick_trials=QUICK_TRIALS, quick=quick
    )
    return repr((V, which, base, int(trials), int(seed))), blocks


def sampler_blocks(n: int, epsilon: float, theta: float, iota: float, chains: int, seed: int):
    """``(job key, blocks)`` of the sampler check (exact grid law against MALA chains, d = 2)."""
    args = (int(n), float(epsilon), float(theta), float(iota), int(chains), int(seed))
    return repr((V, "sampler", args)), [Block("full", sim.sampler_comparison, args)]


__all__ = [
    "EXPERIMENTS",
    "QUICK_TRIALS",
    "analysis",
    "data_baseline_blocks",
    "experiment_blocks",
    "latest",
    "sampler_blocks",
]
