"""``AdasspRegressor``: Wang's (2018) AdaSSP linear regression as a scikit-learn-style estimator.

Rows are divided by ``data_norm`` and clipped to the unit ball, an intercept column is appended (norms
stay ≤ 1), labels are clipped to ``[-y_bound, y_bound]`` and divided by it; without declared bounds the
data's are used and ``privacy_.leaks`` says so (``docs/estimators.md``).
"""

import numpy as np

from dp_core import status as vocab
from dp_core.estimators._base import (
    DPEstimator,
    DPRegressorMixin,
    PrivacyGuarantee,
    check_number,
    check_random_state_like,
    data_norm_or_leak,
    y_bound_or_leak,
)
from dp_core.estimators.preprocessing import clip_to_unit_ball
from dp_core.preprocessing import append_intercept
from dp_core.rng import as_generator

__all__ = ["AdasspRegressor"]


class AdasspRegressor(DPRegressorMixin, DPEstimator):
    """(ε, δ)-DP linear regression by AdaSSP (Wang 2018, Algorithm 2). Attributes: ``coef_``, ``intercept_``,
    ``privacy_``."""

    def __init__(self, epsilon=1.0, delta=1e-5, *, data_norm=None, y_bound=None, failure_prob=0.05, random_state=None):
        self._store_params(locals())

    def _rows(self, A: np.ndarray) -> np.ndarray:
        return append_intercept(clip_to_unit_ball(A, self.data_norm_), 1.0)

    def fit(self, X, y):
        """Fit on ``X`` and ``y`` (finite numbers); returns ``self``."""
        from . import AdasspConfig, adassp_thetas, sufficient_statistics

        eps = check_number("epsilon", self.epsilon)
        delta = check_number("delta", self.delta, hi=1.0)
        cfg = AdasspConfig(failure_prob=self.failure_prob)
        A, v = self._validate_Xy(X, y)
        leaks: list[str] = []
        self.data_norm_ = data_norm_or_leak(A, self.data_norm, leaks)
        self.y_bound_ = y_bound_or_leak(v, self.y_bound, leaks)
        Z, t = self._rows(A), np.clip(v, -self.y_bound_, self.y_bound_) / self.y_bound_
        rng = as_generator(check_random_state_like(self.random_state))
        theta = adassp_thetas(sufficient_statistics(Z, t), eps, delta, cfg, rng)[0] * self.y_bound_
        self.theta_ = theta
        self.coef_ = theta[:-1] / self.data_norm_ / np.sqrt(2.0)
        self.intercept_ = float(theta[-1] / np.sqrt(2.0))
        self.privacy_ = PrivacyGuarantee(
            epsilon=eps,
            delta=delta,
            neighbours="replace one record",
            model="central",
            status=vocab.PROVED,
            mechanism="AdaSSP (Wang 2018, Algorithm 2)",
            reason="Three Gaussian mechanisms at (ε/3, δ/3) on λ_min, XᵀX and Xᵀy, composed; the solve is "
            "post-processing.",
            leaks=tuple(leaks),
        )
        self._warn_if_degenerate(X, y)
        return self

    def predict(self, X) -> np.ndarray:
        A = self._fitted_X(X)
        return self._rows(A) @ self.theta_
