"""DP-GD as scikit-learn-style estimators: ``DPGDClassifier`` (logistic / multinomial) and ``DPGDRegressor``
(least squares). Rows are divided by ``data_norm`` and clipped to the unit ball, an intercept column is
appended and the row divided by ``sqrt(2)``; regression labels are divided by ``y_bound`` and clipped to
[-1, 1]. The algorithm and its public rule: :mod:`dp_core.mechanisms.dp_gd`."""

import math

import numpy as np

from ...estimators._base import (
    DPClassifierMixin,
    DPEstimator,
    DPRegressorMixin,
    PrivacyGuarantee,
    audited_status,
    check_number,
    check_random_state_like,
    data_norm_or_leak,
    y_bound_or_leak,
)
from ...estimators.preprocessing import clip_to_unit_ball

__all__ = ["DPGDClassifier", "DPGDRegressor"]


class _DPGD(DPEstimator):
    def __init__(
        self, epsilon=1.0, delta=1e-5, *, clip=1.0, steps=0, step=1.0, l2=1e-3, data_norm=None, random_state=None
    ):
        self._store_params(locals())

    def _rows(self, A: np.ndarray) -> np.ndarray:
        return np.column_stack([clip_to_unit_ball(A, self.data_norm_), np.ones(len(A))]) / math.sqrt(2.0)

    def _run(self, A: np.ndarray, y: np.ndarray, task: str, leaks: list[str], n_classes: int = 2) -> np.ndarray:
        from . import DPGDConfig, noise_multiplier, run_gd

        eps = check_number("epsilon", self.epsilon)
        delta = check_number("delta", self.delta, hi=1.0 - 1e-12)
        cfg = DPGDConfig(clip=self.clip, steps=self.steps, step=self.step, l2=self.l2)
        self.data_norm_ = data_norm_or_leak(A, self.data_norm, leaks)
        Z = self._rows(A)
        steps = cfg.n_steps(len(A), eps)
        z = noise_multiplier(eps, delta, steps)
        rng = np.random.default_rng(check_random_state_like(self.random_state))
        theta = run_gd(task, Z, y, cfg, steps, z, [rng], n_classes)[0]
        self.steps_, self.noise_multiplier_ = steps, z
        self.privacy_ = PrivacyGuarantee(
            epsilon=eps,
            delta=delta,
            neighbours="replace one record",
            model="central",
            status=audited_status("dp-gd", "standard"),
            mechanism="Noisy gradient descent (Bassily, Smith & Thakurta 2014, Alg. 1; Abadi et al. 2016)",
            reason=f"{steps} Gaussian steps on the gradient sum clipped to C = {cfg.clip:g}, noise multiplier "
            f"z = {z:.4g} from dp_accounting's RDP accountant.",
            leaks=tuple(leaks),
            extra={"steps": steps, "noise_multiplier": z},
        )
        return theta


class DPGDClassifier(DPClassifierMixin, _DPGD):
    """Logistic (two classes) or multinomial logistic regression trained by DP-GD; (ε, δ)-DP, replace one record.

    Parameters: ``epsilon``, ``delta``; ``clip``, ``steps`` (0: the public rule), ``step``, ``l2`` as in
    :class:`~dp_core.mechanisms.dp_gd.DPGDConfig`; ``data_norm`` (public row-norm bound; ``None`` takes it
    from the data with a leak warning); ``random_state``. Attributes: ``coef_``, ``privacy_``, ``steps_``."""

    def fit(self, X, y):
        A, codes = self._validate_Xy(X, y)
        leaks: list[str] = []
        k = int(self.classes_.size)
        target = np.where(codes == 1, 1.0, -1.0) if k == 2 else codes.astype(float)
        self.coef_ = self._run(A, target, "binary" if k == 2 else "multiclass", leaks, k)
        self._warn_if_degenerate(X, y)
        return self

    def decision_function(self, X) -> np.ndarray:
        return self._rows(self._fitted_X(X)) @ self.coef_.T

    def predict(self, X) -> np.ndarray:
        s = self.decision_function(X)
        return self.classes_[(s > 0).astype(int) if s.ndim == 1 else np.argmax(s, axis=1)]


class DPGDRegressor(DPRegressorMixin, _DPGD):
    """Least squares trained by DP-GD; (ε, δ)-DP, replace one record. Parameters as :class:`DPGDClassifier`
    plus ``y_bound`` (public ``|y|`` bound; ``None`` takes it from the data with a leak warning)."""

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        *,
        clip=1.0,
        steps=0,
        step=1.0,
        l2=1e-3,
        data_norm=None,
        y_bound=None,
        random_state=None,
    ):
        self._store_params(locals())

    def fit(self, X, y):
        A, v = self._validate_Xy(X, y)
        leaks: list[str] = []
        self.y_bound_ = y_bound_or_leak(v, self.y_bound, leaks)
        yb = self.y_bound_ if self.y_bound_ > 0 else 1.0
        self.coef_ = self._run(A, np.clip(v / yb, -1.0, 1.0), "regression", leaks) * yb
        self._warn_if_degenerate(X, y)
        return self

    def predict(self, X) -> np.ndarray:
        return self._rows(self._fitted_X(X)) @ self.coef_
