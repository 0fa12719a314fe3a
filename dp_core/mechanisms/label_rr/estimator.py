"""Label RR as scikit-learn-style estimators: labels randomized once (pure ε-label-DP), then a non-private fit;
the features are public under label-DP (standardised with their own statistics). :mod:`..label_rr`."""

import math
import warnings

import numpy as np

from ...estimators._base import (
    DPClassifierMixin,
    DPEstimator,
    DPRegressorMixin,
    PrivacyGuarantee,
    audited_status,
    check_number,
    check_random_state_like,
)
from ...exceptions import PrivacyLeakWarning

__all__ = ["LabelRRClassifier", "LabelRRRegressor"]


class _LabelRR(DPEstimator):
    def _standardise(self, A: np.ndarray, reset: bool) -> np.ndarray:
        if reset:
            sd = A.std(axis=0)
            self.mean_, self.scale_ = A.mean(axis=0), np.where(sd > 0, sd, 1.0)
        return np.column_stack([(A - self.mean_) / self.scale_, np.ones(len(A))])

    def _release(self, data, leaks: list[str]) -> np.ndarray:
        from . import LabelRRConfig
        from .fit import randomized_labels

        eps = check_number("epsilon", self.epsilon)
        cfg = LabelRRConfig(bins=self.bins, prior_share=self.prior_share, stage=self.stage)
        rng = np.random.default_rng(check_random_state_like(self.random_state))
        noisy = randomized_labels(data, cfg, eps, rng)
        self.privacy_ = PrivacyGuarantee(
            epsilon=eps,
            delta=0.0,
            neighbours="replace one label",
            model="central",
            status=audited_status("label-rr", "with-prior"),
            mechanism="Label randomized response (Ghazi et al. 2021, Alg. 2; Ghazi et al. 2023, Alg. 1)",
            reason="Every label randomized once by ε-randomized response; the fit is post-processing.",
            leaks=tuple(leaks),
        )
        return noisy


class LabelRRClassifier(DPClassifierMixin, _LabelRR):
    """Pure ε-label-DP classifier: two-stage RR-with-prior (``stage``: share of rows under the uniform prior), then
    multinomial logistic regression; ``bins``, ``prior_share`` are unused here (one parameter set)."""

    def __init__(self, epsilon=1.0, *, stage=0.5, bins=40, prior_share=0.1, random_state=None):
        self._store_params(locals())

    def fit(self, X, y):
        from .fit import RRData, softmax_fit

        A, codes = self._validate_Xy(X, y)
        Z, K = self._standardise(A, True), int(self.classes_.size)
        task = "binary" if K == 2 else "multiclass"
        data = RRData(task, K, Z, codes, Z[:0], codes[:0])
        self.coef_ = softmax_fit(Z, self._release(data, []), K)
        self._warn_if_degenerate(X, y)
        return self

    def decision_function(self, X) -> np.ndarray:
        S = self._standardise(self._fitted_X(X), False) @ self.coef_.T
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X) -> np.ndarray:
        s = self.decision_function(X)
        return self.classes_[(s > 0).astype(int) if s.ndim == 1 else np.argmax(s, axis=1)]


class LabelRRRegressor(DPRegressorMixin, _LabelRR):
    """Pure ε-label-DP regressor: RR-on-bins on the public label range ``[y_lo, y_hi]`` (``None``: the training
    range, a :class:`PrivacyLeakWarning`), ``bins`` grid points, ``prior_share`` of ε for the prior; then ridge."""

    def __init__(self, epsilon=1.0, *, y_lo=None, y_hi=None, bins=40, prior_share=0.1, stage=0.5, random_state=None):
        self._store_params(locals())

    def _range(self, v: np.ndarray, leaks: list[str]) -> tuple[float, float]:
        if self.y_lo is None or self.y_hi is None:
            msg = "the label range y_lo, y_hi was taken from the training data"
            warnings.warn(f"{msg}: this leaks outside the guarantee; declare y_lo and y_hi.", PrivacyLeakWarning, 3)
            leaks.append(msg)
            return float(v.min()), float(v.max()) if v.max() > v.min() else float(v.min()) + 1.0
        lo, hi = check_number("y_lo", self.y_lo, lo=-math.inf), check_number("y_hi", self.y_hi, lo=-math.inf)
        if not hi > lo:
            raise ValueError(f"y_hi must be > y_lo, got y_lo={self.y_lo!r}, y_hi={self.y_hi!r}.")
        return lo, hi

    def fit(self, X, y):
        from .fit import RRData, ridge_fits

        A, v = self._validate_Xy(X, y)
        leaks: list[str] = []
        lo, hi = self._range(v, leaks)
        Z = self._standardise(A, True)
        data = RRData("regression", 0, Z, np.clip(v, lo, hi), Z[:0], v[:0], lo, hi)
        self.coef_ = ridge_fits(Z, self._release(data, leaks)[:, None])[0]
        self._warn_if_degenerate(X, y)
        return self

    def predict(self, X) -> np.ndarray:
        return self._standardise(self._fitted_X(X), False) @ self.coef_
