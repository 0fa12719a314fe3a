"""``ToyMeanRegressor``: predicts the private clipped mean (fit/predict/score like scikit-learn)."""

from __future__ import annotations

import numpy as np


class ToyMeanRegressor:
    """ε-DP constant regressor: the Laplace-noised mean of the labels clipped to ``[-clip, clip]``."""

    def __init__(self, epsilon: float = 1.0, clip: float = 1.0, random_state: int | None = None) -> None:
        self.epsilon, self.clip, self.random_state = epsilon, clip, random_state

    def fit(self, X, y) -> ToyMeanRegressor:
        from . import ToyConfig, noisy_means

        cfg = ToyConfig(clip=self.clip)  # validated once, naming the parameter
        if len(X) != len(y) or len(y) == 0:
            raise ValueError(f"X and y must have the same positive length, got {len(X)} and {len(y)}.")
        self.mean_ = float(noisy_means(y, cfg, self.epsilon, np.random.default_rng(self.random_state))[0])
        return self

    def predict(self, X) -> np.ndarray:
        return np.full(len(X), self.mean_)

    def score(self, X, y) -> float:
        y = np.asarray(y, dtype=float)
        return 1.0 - float(np.sum((y - self.predict(X)) ** 2) / np.sum((y - y.mean()) ** 2))
