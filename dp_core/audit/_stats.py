"""Helpers shared by the mechanism adapters: pilot-estimated linear statistics, sentinels."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..rng import keyed_seed

__all__ = ["NO_RELEASE", "fisher_direction", "pilot_seed"]

#: Value of the statistic for a run that released nothing (e.g. an unbounded objective). Finite and
#: far from every real value, so that "no release" is an outcome the threshold tests can use.
NO_RELEASE = -1.0e6


def pilot_seed(pair_seed: int, tag: int) -> np.random.SeedSequence:
    """A seed for pilot runs, independent of every audit seed (different SeedSequence entropy)."""
    return keyed_seed(pair_seed, 0x5EED_A0D1, tag)


def fisher_direction(V0: NDArray[np.float64], V1: NDArray[np.float64], *, ridge: float = 1e-9) -> NDArray[np.float64]:
    """Fisher's discriminant direction ``(S + ridge I)^{-1} (mean1 - mean0)`` (unit norm) from pilot outputs
    ``V0``, ``V1`` of shape (R, p) on ``D`` and ``D'``: independent pilots keep the bound valid (docs/audit.md)."""
    V0 = np.asarray(V0, dtype=np.float64)
    V1 = np.asarray(V1, dtype=np.float64)
    diff = V1.mean(axis=0) - V0.mean(axis=0)
    S = 0.5 * (np.cov(V0, rowvar=False) + np.cov(V1, rowvar=False))
    S = np.atleast_2d(S)
    scale = float(np.trace(S)) / S.shape[0] if S.size else 1.0
    v = np.linalg.solve(S + (ridge + 1e-6 * scale) * np.eye(S.shape[0]), diff)
    nrm = float(np.linalg.norm(v))
    if not np.isfinite(nrm) or nrm == 0.0:
        v = diff if np.linalg.norm(diff) > 0 else np.eye(V0.shape[1])[0]
        nrm = float(np.linalg.norm(v))
    return v / nrm
