"""The label-DP page's utility sweeps (against k and against m) as picklable blocks for ``ui.background``.

Module-level pure functions of plain arguments (the prepared data, the grid points, trials, seed), so a
worker process can run them; they import no Streamlit. Trial ``t`` draws from the ``t``-th child of the seed
at every grid point (``dp_core.experiments``), so the quick pass with fewer trials is the prefix of the full
run: the refined result extends, never redraws, it.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dp_core.mechanisms import label_dp_bags as lb

from .background import Block

#: Trials of the quick pass shown while the full sweep runs.
QUICK_TRIALS = 5


def sweep(
    data,
    points: tuple,
    n_trials: int,
    seed: int,
    eps: float,
    delta: float,
    noise_std: float,
    progress: Callable | None = None,
) -> pd.DataFrame:
    """Per-trial utility table over the grid ``points`` (tuples of sorted ``(name, value)`` pairs)."""
    pts = [dict(p) for p in points]
    return lb.utility_sweep(
        data, pts, n_trials=n_trials, seed=seed, epsilon=eps, delta=delta, noise_std=noise_std, progress=progress
    )


def sweep_blocks(
    data, points: tuple, *, n_trials: int, seed: int, eps: float, delta: float, noise_std: float, quick: bool = True
) -> list[Block]:
    """The sweep, with ``quick`` first a pass of :data:`QUICK_TRIALS` trials; blocks ``quick`` and ``full``."""
    stages = [("full", n_trials)]
    if quick and n_trials > QUICK_TRIALS:
        stages.insert(0, ("quick", QUICK_TRIALS))
    return [
        Block(stage, sweep, (data, points, t, seed, eps, delta, noise_std), weight=t * len(points))
        for stage, t in stages
    ]


def latest(results: dict) -> tuple[pd.DataFrame, str] | None:
    """The most refined finished sweep: ``(per-trial table, stage)``, or ``None`` when none has finished."""
    for stage in ("full", "quick"):
        if stage in results:
            return results[stage], stage
    return None
