"""The private large-margin Gaussian classifier (Pathak & Raj, eq. 8, Theorem 5.1) as a scikit-learn-style estimator.

Rows are clipped to the unit ball and projected by a public random matrix; ``"auto"`` defaults depend on public ``n``,
``d`` and epsilon only. docs/large_margin_gaussian.md §"estimator.py: the classifier"; ``docs/estimators.md``."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ... import status as vocab
from ...estimators._base import (
    DPClassifierMixin,
    DPEstimator,
    PrivacyGuarantee,
    audited_status,
    check_number,
    check_random_state_like,
    data_norm_or_leak,
)
from ...estimators.preprocessing import clip_to_unit_ball
from .experiments import public_projection
from .mechanism import LargeMarginGaussian, PreparedData, release_many
from .newton import decision_values_blocked
from .privacy import NOT_PRIVATE_REASONS

__all__ = ["MAX_AUTO_COMPONENTS", "MU_SCALE", "LargeMarginGaussianClassifier", "default_components"]
__all__ += ["default_regularisers"]

#: Most dimensions ``n_components="auto"`` keeps: the solver holds ``n x (k+1)^2`` outer products.
MAX_AUTO_COMPONENTS = 20
#: Constant ``c`` of the Frobenius rule ``mu = c / (n epsilon)`` (chosen on breast_cancer, docs/estimators.md).
MU_SCALE = 45.0


def default_components(n: int, d: int) -> int | None:
    """Dimension after the public projection: ``min(d, 20, max(5, round(sqrt(n) / 4)))``; ``None`` when that is ``d``.

    Why and measurements: docs/large_margin_gaussian.md §"estimator.py: the classifier"."""
    k = min(int(d), MAX_AUTO_COMPONENTS, max(5, round(math.sqrt(n) / 4.0)))
    return None if k >= d else k


def default_regularisers(n: int, epsilon: float) -> tuple[float, float]:
    """The public defaults ``(lam, mu)``: Frobenius ``mu = min(1, 45 / (n epsilon))`` and trace ``lam = mu / 10``.

    CMS (2011) Lemma 7's argument; docs/large_margin_gaussian.md §"estimator.py: the classifier"."""
    mu = min(1.0, MU_SCALE / (float(n) * float(epsilon)))
    return mu / 10.0, mu


class LargeMarginGaussianClassifier(DPClassifierMixin, DPEstimator):
    """Private large-margin multiclass Gaussian classifier (Pathak & Raj), any number of classes.

    ``mode="corrected"`` is private; ``repaired``/``printed`` are not (``privacy_.status == "refuted"``). Parameters and
    attributes (``phi_``, ``coef_``, ``projection_``, ...): docs/large_margin_gaussian.md
    §"estimator.py: the classifier"."""

    def __init__(
        self,
        epsilon=1.0,
        *,
        mode="corrected",
        lam="auto",
        mu=None,
        h=0.5,
        n_components="auto",
        projection_seed=20_240_601,
        data_norm=None,
        random_state=None,
    ):
        self._store_params(locals())

    def _components(self, n: int, d: int) -> int | None:
        k = self.n_components
        if k is None:
            return None
        if isinstance(k, str):
            if k != "auto":
                raise ValueError(f"n_components must be 'auto', None or an int in [1, d], got {k!r}.")
            return default_components(n, d)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_components must be 'auto', None or an int, got {k!r}.")
        if not 1 <= int(k) <= d:
            raise ValueError(f"n_components must be in [1, {d}] (the number of features), got {k!r}.")
        return None if int(k) == d else int(k)

    def _features(self, A: np.ndarray) -> np.ndarray:
        Z = clip_to_unit_ball(A, self.data_norm_)
        if self.projection_ is None:
            return Z
        d, k = self.projection_.shape
        # sqrt(d/k) restores the expected squared norm of a row after a random projection; then clip.
        return clip_to_unit_ball(Z @ self.projection_, math.sqrt(k / d))

    def fit(self, X, y):
        """Fit on ``X`` (array or DataFrame) and ``y`` (any label values); returns ``self``."""
        eps = check_number("epsilon", self.epsilon)
        A = self._validate_X(X, reset=True)
        codes = self._encode_y(self._validate_y(y, A.shape[0]))
        lam, mu = self._regularisers(A.shape[0], eps)
        cfg = LargeMarginGaussian(epsilon=eps, mode=self.mode, lam=lam, mu=mu, h=self.h)
        if not isinstance(self.projection_seed, numbers.Integral) or isinstance(self.projection_seed, bool):
            raise TypeError(f"projection_seed must be an int, got {self.projection_seed!r}.")
        leaks: list[str] = []
        self.data_norm_ = data_norm_or_leak(A, self.data_norm, leaks)
        k = self._components(*A.shape)
        self.projection_ = (
            None if k is None else public_projection(int(A.shape[1]), int(k), seed=int(self.projection_seed))
        )
        # the rows are prepared once: for the one solve and for the training predictions of the degenerate check
        data = PreparedData(Z=self._model_inputs(A), y=codes, n_classes=int(self.classes_.size), scale=self._scale())
        del A
        seed = check_random_state_like(self.random_state)
        rel = release_many(None, None, cfg, n_runs=1, seed=seed, data=data, warm_start=False, solver="newton")
        self.released_ = not bool(rel.unbounded[0])
        self.phi_ = np.asarray(rel.phi[0], dtype=np.float64)
        self.coef_ = self.phi_
        self.intercept_ = np.zeros(self.classes_.size)
        self.privacy_ = self._guarantee(rel.accounting, eps, k, lam, mu, leaks)
        self._warn_if_no_guarantee()
        if self.released_:  # an unbounded printed-mode draw released nothing: predict says so
            pred = self.classes_[np.argmin(decision_values_blocked(self.phi_, data.Z), axis=1)]
            self._warn_if_degenerate(X, y, pred=pred)
        return self

    def _guarantee(self, acc, eps: float, k, lam: float, mu, leaks: list[str]) -> PrivacyGuarantee:
        """The :class:`PrivacyGuarantee` of a fit: the audited table row backing the mode's badge."""
        status = audited_status("large-margin-gaussian", self.mode)
        reason = (
            "Pure ε-DP (corrected algorithm R: per-class noise calibrated to the corrected sensitivity)."
            if status != vocab.REFUTED
            else str(NOT_PRIVATE_REASONS.get(self.mode, "not private as printed"))
        )
        if self.projection_ is not None:
            reason += (
                f" Inputs projected to {k} dimensions by a matrix drawn from the public seed "
                f"{self.projection_seed} (data-independent: no privacy cost)."
            )
        return PrivacyGuarantee(
            epsilon=float(acc.eps_claimed) if acc is not None else eps,
            delta=0.0,
            neighbours="replace one record",
            model="central",
            status=status,
            mechanism="Large-margin Gaussian classifier (Pathak & Raj, eq. 8)",
            reason=reason,
            leaks=tuple(leaks),
            extra={"mode": self.mode, "n_components": k, "lam": float(lam), "mu": mu},
        )

    def _regularisers(self, n: int, eps: float) -> tuple[float, float | None]:
        """``(lam, mu)``: :func:`default_regularisers` for ``"auto"``, else the values given (``mu=None``: ``lam``)."""
        if isinstance(self.lam, str):
            if self.lam != "auto":
                raise ValueError(f"lam must be 'auto' or a positive number, got {self.lam!r}.")
            lam, mu = default_regularisers(n, eps)
            return lam, mu if self.mu is None else self.mu
        return self.lam, self.mu

    def _warn_if_no_guarantee(self) -> None:
        if self.mode == "corrected":
            return
        self._warn_no_guarantee(
            f"LargeMarginGaussianClassifier(mode={self.mode!r}) is not differentially private (the paper's "
            "algorithm as printed, or its minimal repair, kept to show why it fails): privacy_ has no valid "
            "guarantee. Use mode='corrected' for a private release."
        )

    def _degenerate_advice(self) -> str:
        lam, mu = self.privacy_.extra["lam"], self.privacy_.extra["mu"]
        return (
            f"Likely cause: the regularisers (lam = {lam:.3g}, mu = {mu if mu is None else format(mu, '.3g')}) "
            "shrink every class matrix to the same one, so ties go to one class, or the noise dominates at "
            f"epsilon = {self.epsilon!r}. Fix: keep lam='auto' and mu=None (they scale with 1 / (n epsilon)), "
            "or lower lam and mu, raise epsilon, or give more training rows."
        )

    def decision_function(self, X) -> np.ndarray:
        """Minus the class scores ``-z' phi_c z`` (larger is more likely), shape (m, C); binary: column 1 - column 0."""
        Zt = self._inputs(X)
        s = -decision_values_blocked(self.phi_, Zt)
        return s[:, 1] - s[:, 0] if self.classes_.size == 2 else s

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the softmax of :meth:`decision_function`'s scores, shape (m, C) (not calibrated)."""
        s = self.decision_function(X)
        if s.ndim == 1:
            p1 = 0.5 * (1.0 + np.tanh(0.5 * s))
            return np.column_stack([1.0 - p1, p1])
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _require_release(self) -> None:
        if not self.released_:
            raise ValueError(
                "nothing was released: the printed mode's perturbed objective was unbounded below for "
                "this draw; refit with another random_state or use mode='corrected'."
            )

    def predict(self, X) -> np.ndarray:
        """Predicted class labels (values of ``classes_``)."""
        Zt = self._inputs(X)  # first: the fitted check
        return self.classes_[np.argmin(decision_values_blocked(self.phi_, Zt), axis=1)]

    def _inputs(self, X) -> np.ndarray:
        """The model's augmented inputs of new rows ``X`` (after the fitted and released checks)."""
        self._check_fitted()
        self._require_release()
        return self._model_inputs(self._validate_X(X, reset=False))

    def _scale(self) -> float:
        """The model's input scale: 1 for the printed algorithm, ``1/sqrt 2`` otherwise (docs/large_margin_gaussian.md
        §"Input scaling")."""
        return 1.0 if self.mode == "printed" else 1.0 / math.sqrt(2.0)

    def _model_inputs(self, A: np.ndarray) -> np.ndarray:
        """:func:`.model.preprocess` of :meth:`_features` in one buffer: rows clipped to the unit ball, 1 appended,
        times :meth:`_scale`; shape ``(n, k + 1)``."""
        F = self._features(A)
        norms = np.sqrt(np.einsum("ij,ij->i", F, F))
        big = norms > 1.0  # none but by rounding: the features lie in the unit ball already
        F[big] /= norms[big, None]
        scale, k = self._scale(), F.shape[1]
        Z = np.empty((F.shape[0], k + 1))
        np.multiply(F, scale, out=Z[:, :k])
        Z[:, k] = scale
        return Z
