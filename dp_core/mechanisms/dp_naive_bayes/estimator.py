"""``DPGaussianNB``: the Vaidya et al. (2013) private Gaussian naive Bayes as a scikit-learn-style classifier.

``bounds=(lo, hi)`` are the public per-feature ranges; without them the ranges are read from the data
and ``privacy_.leaks`` says so (the guarantee then does not cover that step; ``docs/estimators.md``).
"""

import numpy as np

from dp_core import status as vocab
from dp_core.estimators._base import (
    DPClassifierMixin,
    DPEstimator,
    PrivacyGuarantee,
    check_number,
    check_random_state_like,
)
from dp_core.rng import as_generator

__all__ = ["DPGaussianNB"]


class DPGaussianNB(DPClassifierMixin, DPEstimator):
    """Pure ε-DP Gaussian naive Bayes (Laplace on class counts, sums, squared sums); any number of classes.

    Attributes after ``fit``: ``classes_``, ``class_log_prior_``, ``theta_`` (means, scaled units),
    ``var_`` (variances, scaled units), ``bounds_``, ``privacy_``.
    """

    def __init__(self, epsilon=1.0, *, bounds=None, count_share=0.1, var_floor=1e-3, random_state=None):
        self._store_params(locals())

    def _bounds(self, A: np.ndarray, leaks: list[str]) -> tuple[np.ndarray, np.ndarray]:
        if self.bounds is None:
            lo, hi = A.min(axis=0), A.max(axis=0)
            hi = np.where(hi > lo, hi, lo + 1.0)
            leaks.append("feature ranges read from the training data; pass bounds=(lo, hi) declared in advance")
            return lo, hi
        lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (A.shape[1],)).copy() for b in self.bounds)
        if not np.all(np.isfinite(lo) & np.isfinite(hi) & (hi > lo)):
            raise ValueError("bounds must be (lo, hi) with finite lo < hi for every feature.")
        return lo, hi

    def fit(self, X, y):
        """Fit on ``X`` and ``y`` (any labels); returns ``self``."""
        from . import NaiveBayesConfig, class_statistics, model_from_statistics, noisy_statistics, scale_features

        eps = check_number("epsilon", self.epsilon)
        cfg = NaiveBayesConfig(count_share=self.count_share, var_floor=self.var_floor)
        A, codes = self._validate_Xy(X, y)
        leaks: list[str] = []
        self.bounds_ = self._bounds(A, leaks)
        stats = class_statistics(scale_features(A, *self.bounds_), codes, int(self.classes_.size))
        rng = as_generator(check_random_state_like(self.random_state))
        N, S, Q = (s[0] for s in noisy_statistics(stats, eps, cfg, rng))
        self.class_log_prior_, self.theta_, self.var_ = model_from_statistics(N, S, Q, cfg.var_floor)
        self.privacy_ = PrivacyGuarantee(
            epsilon=eps,
            delta=0.0,
            neighbours="replace one record",
            model="central",
            status=vocab.PROVED,
            mechanism="DP Gaussian naive Bayes (Vaidya et al. 2013, §4)",
            reason="Laplace mechanism on counts, sums and squared sums, composed sequentially (pure ε-DP).",
            leaks=tuple(leaks),
            extra={"budgets": cfg.budgets(eps), "scales": cfg.scales(eps, A.shape[1])},
        )
        self._warn_if_degenerate(X, y)
        return self

    def predict_log_proba(self, X) -> np.ndarray:
        from . import log_posteriors, scale_features

        Z = scale_features(self._fitted_X(X), *self.bounds_)
        lp = log_posteriors(Z, self.class_log_prior_, self.theta_, self.var_)
        return lp - np.logaddexp.reduce(lp, axis=1, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        codes = np.argmax(self.predict_log_proba(X), axis=1)  # checks the fit first
        return self.classes_[codes]
