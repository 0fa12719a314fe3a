"""The small computations of the guided tour ("Start here"): a noisy count and noise scales against ε.

Pure functions (no Streamlit): the tour page calls them through ``ui/cached.py``-style wrappers and
draws the results with the same chart builders as the mechanism pages.

References
----------
* C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014: the Laplace
  mechanism, scale b = Δ₁/ε (Theorem 3.6).
* B. Balle and Y.-X. Wang, *Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising*, ICML 2018: the analytic Gaussian σ (Theorem 8).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from . import calibration
from ._validation import check_count, check_seed
from .rng import as_generator

__all__ = ["noise_scale_table", "noisy_counts"]


def noisy_counts(true_count: int, *, epsilon: float, n_draws: int = 5, seed: int = 0) -> dict:
    """``n_draws`` releases of a count (sensitivity 1) with Laplace noise at ``epsilon``.

    Returns ``{"true": true_count, "scale": b, "released": array, "typical_error": b}`` where
    b = 1/ε is the Laplace scale [Dwork & Roth 2014, Theorem 3.6]; half of all releases are within
    b·ln 2 of the true count and the mean absolute error is b. Same seed, same numbers.

    >>> out = noisy_counts(100, epsilon=1.0, n_draws=3, seed=0)
    >>> out["scale"], len(out["released"])
    (1.0, 3)
    """
    true_count = check_count("true_count", true_count, lo=0, hi=10**12)
    n_draws = check_count("n_draws", n_draws, lo=1, hi=10_000)
    seed = check_seed(seed)
    b = calibration.laplace_scale(epsilon=epsilon, sensitivity=1.0)
    g = as_generator(seed)
    released = true_count + g.laplace(0.0, b, size=n_draws)
    return {"true": true_count, "scale": b, "released": released, "typical_error": b}


def noise_scale_table(epsilons: Sequence[float], *, delta: float, sensitivity: float = 1.0) -> pd.DataFrame:
    """Noise scales of one query against ε (tidy: ``method``, ``epsilon``, ``scale``).

    Methods: ``laplace`` (b = Δ₁/ε, pure ε-DP) and ``gaussian`` (analytic σ at ``delta``,
    Balle & Wang 2018, Theorem 8). Both fall as ε grows; the Laplace scale exactly like 1/ε.
    """
    eps = [float(e) for e in epsilons]
    if not eps:
        raise ValueError("epsilons must contain at least one value (ε > 0).")
    rows = []
    for e in eps:
        rows.append(
            {"method": "laplace", "epsilon": e, "scale": calibration.laplace_scale(epsilon=e, sensitivity=sensitivity)}
        )
        rows.append(
            {
                "method": "gaussian",
                "epsilon": e,
                "scale": calibration.gaussian_sigma_analytic(epsilon=e, delta=delta, sensitivity=sensitivity),
            }
        )
    return pd.DataFrame(rows)
