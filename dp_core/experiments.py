"""Monte-Carlo runner: a sweep is a grid of parameter points times blocks of trials.

A block is a pure function ``block_fn(point, seeds) -> DataFrame``; trial ``t`` gets the same seed at
every point (common random numbers); :func:`summarize` gives means, standard errors and 95% intervals
with the number of trials. Design: ``docs/engine.md`` §"Monte-Carlo sweeps".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ._lazy import pandas as pd
from ._validation import check_int
from .execution import current_executor
from .rng import RngLike, as_seed_sequence

__all__ = ["Block", "make_blocks", "run_sweep", "summarize", "mean_se"]

BlockFn = Callable[[Mapping[str, Any], Sequence[np.random.SeedSequence]], "pd.DataFrame"]
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Block:
    """One unit of Monte-Carlo work: a parameter point and a contiguous range of trials."""

    point_index: int
    point: Mapping[str, Any]
    trial_start: int
    seeds: tuple = field(repr=False)

    @property
    def n_trials(self) -> int:
        return len(self.seeds)


def make_blocks(
    points: Sequence[Mapping[str, Any]], *, n_trials: int, seed: RngLike, block_size: int | None = None
) -> list[Block]:
    """Split ``points x n_trials`` into blocks of at most ``block_size`` trials."""
    n_trials = check_int("n_trials", n_trials, lo=1)
    block_size = check_int("block_size", n_trials if block_size is None else block_size, lo=1)
    if len(points) == 0:
        raise ValueError("points must contain at least one parameter point, got an empty list.")
    trial_seeds = as_seed_sequence(seed).spawn(n_trials)
    blocks = []
    for i, point in enumerate(points):
        for start in range(0, n_trials, block_size):
            blocks.append(Block(i, dict(point), start, tuple(trial_seeds[start : start + block_size])))
    return blocks


def _run_block(block_fn: BlockFn, block: Block) -> pd.DataFrame:
    out = block_fn(block.point, block.seeds)
    if not isinstance(out, pd.DataFrame):
        raise TypeError(f"block_fn must return a pandas DataFrame, got {type(out).__name__}.")
    out = out.copy()
    if "trial" in out.columns:
        out["trial"] = out["trial"].to_numpy() + block.trial_start
    else:
        n = block.n_trials
        if len(out) % n:
            raise ValueError(f"block_fn returned {len(out)} rows, not a multiple of the block's {n} trials.")
        out["trial"] = np.tile(np.arange(n), len(out) // n) + block.trial_start
    for key, value in block.point.items():
        if key not in out.columns:
            out[key] = value
    return out


def run_sweep(
    block_fn: BlockFn,
    points: Sequence[Mapping[str, Any]],
    *,
    n_trials: int,
    seed: RngLike,
    block_size: int | None = None,
    progress: ProgressFn | None = None,
    map_fn: Callable[[Callable, Iterable], Iterable] | None = None,
) -> pd.DataFrame:
    """Run ``block_fn(point, seeds)`` over every point and trial; return the per-trial tidy table (same
    ``seed``, same table, whatever ``block_size`` or ``map_fn``; ``progress(done, total)`` after each block).
    Parameters: ``docs/engine.md`` §"Monte-Carlo sweeps"."""
    blocks = make_blocks(points, n_trials=n_trials, seed=seed, block_size=block_size)
    total = sum(b.n_trials for b in blocks)
    mapper = current_executor().map if map_fn is None else map_fn
    frames, done = [], 0
    for block, frame in zip(blocks, mapper(partial(_run_block, block_fn), blocks)):
        frames.append(frame)
        done += block.n_trials
        if progress is not None:
            progress(done, total)
    return pd.concat(frames, ignore_index=True)


def mean_se(values: Any) -> tuple[float, float]:
    """Mean and standard error (``std(ddof=1)/sqrt(n)``; ``nan`` for one value) of finite values.

    >>> mean_se([1.0, 2.0, 3.0])
    (2.0, 0.5773502691896258)
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan
    if v.size == 1:
        return float(v[0]), math.nan
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def summarize(
    df: pd.DataFrame, *, by: Sequence[str], values: Sequence[str], z: float = 1.959963984540054
) -> pd.DataFrame:
    """One row per group: ``{value}_mean``, ``_se``, ``_lo``, ``_hi`` (95% normal interval) of each value column,
    ``n_trials`` and ``n_failed`` (finite and non-finite values of the first one; a failed solve is left out)."""
    missing = [c for c in list(by) + list(values) if c not in df.columns]
    if missing:
        raise ValueError(f"summarize: columns {missing} are not in the table (it has {list(df.columns)}).")
    rows = []
    for keys, g in df.groupby(list(by), sort=True, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        row = dict(zip(by, keys))
        for v in values:
            m, se = mean_se(g[v].to_numpy())
            half = z * se if math.isfinite(se) else math.nan
            row.update({f"{v}_mean": m, f"{v}_se": se, f"{v}_lo": m - half, f"{v}_hi": m + half})
        first = g[values[0]].to_numpy(dtype=float)
        row["n_trials"] = int(np.isfinite(first).sum())
        row["n_failed"] = int((~np.isfinite(first)).sum())
        rows.append(row)
    return pd.DataFrame(rows)
