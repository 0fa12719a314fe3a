"""The input-perturbation page's Monte-Carlo sweep as picklable blocks for ``ui.background``.

Module-level pure functions of plain arguments (the prepared data, a frozen config, the sizes, trials,
seed), so a worker process can run them; they import no Streamlit. ``ui.cached_input_perturbation.sweep``
calls the same engine function, so a background run and an in-thread run with the same seed give the same
table. Trial ``t`` draws from the ``t``-th child of the seed at every size (``dp_core.experiments``), so the
quick pass with fewer trials is the prefix of the full run: the refined result extends, never redraws, it.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dp_core.mechanisms.input_perturbation import experiment as ipe

from .background import Block

#: Trials of the quick pass shown while the full sweep runs.
QUICK_TRIALS = 10


def sweep_table(
    data: ipe.PreparedData,
    config: ipe.SimulationConfig,
    ns: tuple,
    n_trials: int,
    seed: int,
    progress: Callable | None = None,
) -> pd.DataFrame:
    """Every method at every size in ``ns``: ``experiment.simulate_over_n`` of the input-perturbation engine."""
    return ipe.simulate_over_n(data, config, list(ns), n_trials=n_trials, seed=seed, progress=progress)


def sweep_blocks(
    data: ipe.PreparedData, config: ipe.SimulationConfig, ns: tuple, n_trials: int, seed: int, *, quick: bool
) -> list[Block]:
    """The page's sweep; with ``quick`` (and more trials than :data:`QUICK_TRIALS`), a quick pass first.

    Block names are ``"quick"`` and ``"full"``; weights are the trial counts times the number of sizes.
    """
    stages = [("full", int(n_trials))]
    if quick and n_trials > QUICK_TRIALS:
        stages.insert(0, ("quick", QUICK_TRIALS))
    return [
        Block(stage, sweep_table, (data, config, tuple(ns), t, int(seed)), weight=t * len(ns)) for stage, t in stages
    ]


def latest(results: dict, n_trials: int) -> tuple[pd.DataFrame, int] | None:
    """The most refined finished table and its trial count, or ``None`` when none has finished."""
    if "full" in results:
        return results["full"], int(n_trials)
    if "quick" in results:
        return results["quick"], QUICK_TRIALS
    return None


def reproduction_summary(seed: int, n_trials: int, progress: Callable | None = None) -> pd.DataFrame:
    """The quick reproduction of the paper's Figures 1-2, summarised per model, ε, n and method."""
    from dp_core.experiments import summarize
    from dp_core.mechanisms.input_perturbation.reproduce import reproduction_table

    df = reproduction_table(quick=True, seed=seed, n_trials=n_trials, progress=progress)
    return summarize(df, by=["model", "epsilon", "n", "method"], values=["test_metric", "excess_risk"])


def reproduction_blocks(seed: int, n_trials: int) -> list[Block]:
    """One block: :func:`reproduction_summary` (named ``"reproduction"``)."""
    return [Block("reproduction", reproduction_summary, (int(seed), int(n_trials)), weight=float(n_trials))]
