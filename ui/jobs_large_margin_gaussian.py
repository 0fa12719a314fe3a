"""The large-margin Gaussian page's Monte-Carlo sweeps as picklable blocks for ``ui.background``.

Module-level pure functions of plain arguments (the task, a frozen config, grids, trials, seed), so a worker
process can run them; they import no Streamlit. The cached wrappers in ``ui.cached_large_margin_gaussian``
call the same functions, so a background run and an in-thread run with the same seed give the same tables.
Trial ``t`` draws from the ``t``-th child of the seed at every grid point (``dp_core.experiments``), so a
quick run with fewer trials is the prefix of the full run: the refined result extends, never redraws, it.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dp_core.experiments import summarize
from dp_core.mechanisms import large_margin_gaussian as lmg

from .background import Block

#: Trials of the quick pass shown while the full sweeps run.
QUICK_TRIALS = 10


def accuracy(
    task, base, epsilons: tuple, modes: tuple, n_trials: int, seed: int, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-trial table and summary of test accuracy, agreement and excess against ε, per mode."""
    df = lmg.accuracy_sweep(
        task, epsilons=list(epsilons), modes=list(modes), base=base, n_trials=n_trials, seed=seed, progress=progress
    )
    s = summarize(
        df, by=["method", "epsilon"], values=["accuracy", "agreement", "excess", "unbounded", "pathwise_bound"]
    )
    return df, s


def excess_n(
    task, base, mode: str, ns: tuple, delta: float, n_trials: int, seed: int, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Summary of the excess risk against n and the bounds at each n."""
    trials, bounds = lmg.excess_vs_n(
        task, ns=list(ns), mode=mode, base=base, delta=delta, n_trials=n_trials, seed=seed, progress=progress
    )
    s = summarize(trials, by=["method", "n"], values=["excess", "pathwise_bound", "test_loss_excess"])
    return s, bounds


def regularisation(
    task, base, parameter: str, values: tuple, n_trials: int, seed: int, progress: Callable | None = None
) -> pd.DataFrame:
    """Summary of accuracy and excess against μ or h."""
    df = lmg.regularisation_sweep(
        task, parameter=parameter, values=list(values), base=base, n_trials=n_trials, seed=seed, progress=progress
    )
    return summarize(df, by=["method", "value"], values=["accuracy", "excess", "pathwise_bound", "nonprivate_accuracy"])


def n_grid(n: int, n_classes: int) -> tuple[int, ...]:
    """Training-set sizes of the excess-against-n sweep: the usual grid up to ``n`` (at least two rows per
    class), ending at ``n`` itself.

    >>> n_grid(300, 3)
    (100, 200, 300)
    """
    ns = tuple(v for v in (100, 200, 500, 1000, 2000, 5000, 10000, 20000) if 2 * n_classes <= v <= n)
    return ns if n in ns else ns + (int(n),)


def sweep_blocks(
    task,
    base,
    *,
    epsilons: tuple,
    modes: tuple,
    exc_mode: str,
    ns: tuple,
    delta: float,
    mu_grid: tuple,
    h_grid: tuple,
    n_trials: int,
    seed: int,
    quick: bool = True,
) -> list[Block]:
    """The page's four sweeps; with ``quick``, first a pass of :data:`QUICK_TRIALS` trials of each.

    Block names are ``"<stage>:<sweep>"`` with stage ``quick`` or ``full`` and sweep ``accuracy``,
    ``excess_n``, ``mu`` or ``h``. Weights are the sweeps' trial counts times their grid sizes.
    """
    stages = [("full", n_trials)]
    if quick and n_trials > QUICK_TRIALS:
        stages.insert(0, ("quick", QUICK_TRIALS))
    blocks = []
    for stage, t in stages:
        blocks += [
            Block(
                f"{stage}:accuracy",
                accuracy,
                (task, base, epsilons, modes, t, seed),
                weight=t * len(epsilons) * (len(modes) + 1),
            ),
            Block(f"{stage}:excess_n", excess_n, (task, base, exc_mode, ns, delta, t, seed), weight=t * len(ns)),
            Block(f"{stage}:mu", regularisation, (task, base, "mu", mu_grid, t, seed), weight=t * len(mu_grid)),
            Block(f"{stage}:h", regularisation, (task, base, "h", h_grid, t, seed), weight=t * len(h_grid)),
        ]
    return blocks


def latest(results: dict, sweep: str) -> tuple[object, str] | None:
    """The most refined finished result of ``sweep``: ``(value, stage)``, or ``None`` when none has finished."""
    for stage in ("full", "quick"):
        if f"{stage}:{sweep}" in results:
            return results[f"{stage}:{sweep}"], stage
    return None
