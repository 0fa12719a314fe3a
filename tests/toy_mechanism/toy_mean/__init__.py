"""A toy mechanism: the Laplace mechanism on the mean of labels clipped to ``[-clip, clip]``.

Its whole mechanism is this folder (declaration, CLI, release, comparison, audit, estimator, page
plan and page); nothing outside it is edited to add it. The noise is the Laplace mechanism's
(C. Dwork, F. McSherry, K. Nissim, A. Smith, *Calibrating Noise to Sensitivity in Private Data
Analysis*, 2006, Example 1): replacing one of ``n`` labels moves the clipped mean by at most
``2 clip / n``, so scale ``2 clip / (n ε)`` gives ε-DP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dp_core.plugin import LOWER_IS_PRIVATE, Mechanism, param, validate_config


@dataclass(frozen=True)
class ToyConfig:
    """The toy's parameters, each declared once (CLI flag, link key, widget and check derive from it)."""

    clip: float = param(1.0, lo=0.01, hi=1e4, private=LOWER_IS_PRIVATE, label="label clip", symbol="c")
    span: int = param(3, lo=1, hi=100, label="toy span", url_prefix="")  # shared with the comparison

    def __post_init__(self) -> None:
        validate_config(self)

    def scale(self, epsilon: float, n: int) -> float:
        """Laplace scale ``2 clip / (n ε)`` (sensitivity of the clipped mean over ε)."""
        if not epsilon > 0 or n < 1:
            raise ValueError(f"epsilon must be > 0 and n >= 1, got {epsilon!r} and {n!r}.")
        return 2.0 * self.clip / (n * epsilon)


def noisy_means(y, cfg: ToyConfig, epsilon: float, rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """``size`` independent releases of the clipped mean of ``y`` at ``epsilon``."""
    y = np.clip(np.asarray(y, dtype=float), -cfg.clip, cfg.clip)
    return y.mean() + rng.laplace(0.0, cfg.scale(epsilon, y.size), size=size)


PLUGIN = Mechanism(
    name="toy-mean",
    title="Toy mean",
    aliases=("toy-old",),
    page="page.py",
    icon="🧸",
    summary="The Laplace mechanism on a clipped mean: a whole mechanism in one folder.",
    configs=((ToyConfig, "toy_"),),
    compare_params=("span",),
    package=__name__,
)
