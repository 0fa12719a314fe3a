"""Shared machinery of the scikit-learn-style estimators: parameters, input checks, privacy read-out.

scikit-learn's conventions by duck typing, without importing it at module level; the conventions and
the shape a folder's estimator takes are in ``docs/estimators.md`` §"The shared base".
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .. import status as vocab
from ..exceptions import (
    DegenerateFitWarning,
    DPCoreError,
    InvalidGuaranteeWarning,
    PrivacyLeakWarning,
)

__all__ = [
    "NEIGHBOURS",
    "STATUSES",
    "DPClassifierMixin",
    "DPEstimator",
    "DPRegressorMixin",
    "NotFittedError",
    "PrivacyGuarantee",
    "audited_status",
]

#: What a fitted estimator's guarantee rests on: the five statuses of :mod:`dp_core.status`.
STATUSES = vocab.STATUSES
#: Training R² below which a regressor's fit is reported as degenerate (far worse than the mean, R² = 0).
DEGENERATE_R2 = -1.0
#: Neighbouring relations used by the estimators.
NEIGHBOURS = ("replace one record", "add or remove one record", "replace one label")


@functools.cache
def _not_fitted_error_class() -> type:
    try:  # scikit-learn's own class when it is installed, so that its checks recognise it
        from sklearn.exceptions import NotFittedError as SkNotFitted
    except ImportError:  # pragma: no cover - scikit-learn is a dev dependency
        return _NotFitted
    return type("NotFittedError", (SkNotFitted, DPCoreError), {})


class _NotFitted(DPCoreError, ValueError, AttributeError):
    """The estimator must be fitted before it can predict (scikit-learn's NotFittedError contract)."""


def NotFittedError(message: str) -> Exception:
    """An exception instance of scikit-learn's ``NotFittedError`` (or of a local stand-in)."""
    return _not_fitted_error_class()(message)


@dataclass(frozen=True)
class PrivacyGuarantee:
    """The guarantee of a fitted estimator, in one publishable object (``estimator.privacy_``): ``epsilon``,
    ``delta``, ``neighbours`` (one of :data:`NEIGHBOURS`), ``model`` (``"central"`` or ``"local"``), ``status``
    (one of :data:`dp_core.status.STATUSES`), ``mechanism``, ``reason``, ``leaks`` (steps the guarantee does not
    cover), ``local_epsilon``; docs/estimators.md §"The shared base"."""

    epsilon: float
    delta: float
    neighbours: str
    model: str
    status: str
    mechanism: str
    reason: str = ""
    leaks: tuple[str, ...] = ()
    local_epsilon: float | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}.")
        if self.neighbours not in NEIGHBOURS:
            raise ValueError(f"neighbours must be one of {NEIGHBOURS}, got {self.neighbours!r}.")
        if self.model not in ("central", "local"):
            raise ValueError(f"model must be 'central' or 'local', got {self.model!r}.")

    @property
    def covers_preprocessing(self) -> bool:
        """True when no step outside the mechanism looked at the private data."""
        return not self.leaks

    def as_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        """One sentence for people (numbers formatted by :mod:`dp_core.display`)."""
        from .. import display

        eps = display.epsilon(self.epsilon)
        what = f"(ε = {eps}, δ = {display.delta(self.delta)})" if self.delta > 0 else f"ε = {eps}"
        text = f"{what}-DP, {self.model}, neighbours: {self.neighbours}; {self.status}"
        if self.leaks:
            text += " (does not cover: " + "; ".join(self.leaks) + ")"
        return text + "."


def audited_status(mechanism: str, mode: str) -> str:
    """The status of ``mechanism`` in ``mode`` in the stored audit table, from the row backing the app's badge
    (:func:`dp_core.audit.table.row_status`), so an estimator and a badge never disagree; ``ValueError`` if none."""
    from ..audit.table import audit_row, row_status

    row = audit_row(mechanism, mode)
    if row is None:
        raise ValueError(f"the audit table has no row for mechanism {mechanism!r} in mode {mode!r}.")
    return row_status(row)


def _is_dataframe(X: Any) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "to_numpy")


def _is_sparse(X: Any) -> bool:
    return hasattr(X, "tocsr") or hasattr(X, "toarray") and not isinstance(X, np.ndarray)


def _as_float_matrix(X: Any, name: str = "X") -> np.ndarray:
    if X is None:
        raise TypeError(f"{name} must be a 2-D array or a pandas DataFrame, got None.")
    if _is_sparse(X):
        raise TypeError(f"{name} is a sparse matrix; these estimators need dense data: pass X.toarray().")
    raw = X.to_numpy() if _is_dataframe(X) else np.asarray(X)
    if raw.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} must hold real numbers.")
    try:
        A = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        raise kind(f"{name} must hold real numbers only (convert or encode non-numeric columns first): {exc}") from exc
    if A.ndim != 2:
        raise ValueError(
            f"Expected a 2-D {name} (rows x columns), got an array with {A.ndim} dimension(s). "
            "Reshape your data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a "
            "single row."
        )
    if A.shape[1] < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape={A.shape}) while a minimum of 1 is required.")
    if A.shape[0] < 1:
        raise ValueError(f"Found array with 0 sample(s) (shape={A.shape}) while a minimum of 1 is required.")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinite values; remove or impute them first.")
    return A


class DPEstimator:
    """Base class: scikit-learn's parameter protocol, input checks and fitted-state checks (subclasses list their
    constructor parameters explicitly and store them unchanged)."""

    _estimator_type: str = ""

    # -- parameters (scikit-learn's BaseEstimator protocol) ---------------------------------
    @classmethod
    def _get_param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return sorted(
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        )

    def _store_params(self, values: dict) -> None:
        """The body of a subclass's ``__init__`` (``self._store_params(locals())``): each constructor argument
        stored unchanged under its own name, as scikit-learn requires."""
        for name in self._get_param_names():
            setattr(self, name, values[name])

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters as a dict (``deep`` is accepted for compatibility; no sub-estimators)."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set constructor parameters; unknown names raise ``ValueError``. Returns ``self``."""
        valid = set(self._get_param_names())
        for key, value in params.items():
            if key not in valid:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {type(self).__name__}; "
                    f"valid parameters are {sorted(valid)}."
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        shown = []
        for k, v in self.get_params().items():
            d = defaults.get(k, inspect.Parameter.empty)
            same = d is v or (type(d) is type(v) and not isinstance(v, np.ndarray) and d == v)
            if not same:
                shown.append(f"{k}={v!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __getstate__(self):
        return dict(self.__dict__)

    # -- post-fit check: never fail silently ---------------------------------------------------
    def _warn_if_degenerate(self, X, y, pred=None) -> None:
        """Warn (:class:`~dp_core.exceptions.DegenerateFitWarning`) when the fitted model is no better than a
        trivial predictor on its own training data (nothing stored; docs/estimators.md §"The shared base").
        ``pred``: the training predictions when the fit already has them (a classifier's check reads them)."""
        problem = self._degenerate_problem(X, y) if pred is None else self._degenerate_problem(X, y, pred=pred)
        if problem:
            warnings.warn(
                f"{type(self).__name__}: {problem} {self._degenerate_advice()}",
                DegenerateFitWarning,
                stacklevel=3,
            )

    @staticmethod
    def _warn_no_guarantee(message: str, category: type[Warning] | None = None) -> None:
        """Warn, from a ``fit`` helper, that ``privacy_`` holds no valid guarantee (``InvalidGuaranteeWarning``
        unless ``category``); the warning points at the caller of ``fit``."""
        warnings.warn(message, category or InvalidGuaranteeWarning, stacklevel=4)

    def _degenerate_problem(self, X, y) -> str:  # overridden by the classifier and regressor mixins
        return ""

    def _degenerate_advice(self) -> str:
        """The likely cause and the setting to change (each estimator says its own)."""
        return "Raise epsilon or give more training rows."

    # -- scikit-learn tags (built lazily, only when scikit-learn asks) ----------------------
    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        is_clf = self._estimator_type == "classifier"
        return Tags(
            estimator_type=self._estimator_type or None,
            target_tags=TargetTags(required=True),
            input_tags=InputTags(),
            classifier_tags=ClassifierTags(poor_score=True) if is_clf else None,
            regressor_tags=RegressorTags(poor_score=True) if self._estimator_type == "regressor" else None,
            non_deterministic=False,
        )

    def _more_tags(self) -> dict:  # scikit-learn < 1.6
        return {"poor_score": True, "requires_y": True}

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "privacy_")

    # -- input checks ------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not self.__sklearn_is_fitted__():
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )

    def _fitted_X(self, X) -> np.ndarray:
        """``X`` for ``predict``: the estimator must be fitted and ``X`` have the fitted columns."""
        self._check_fitted()
        return self._validate_X(X, reset=False)

    def _validate_X(self, X, *, reset: bool) -> np.ndarray:
        names = None
        if _is_dataframe(X):
            cols = list(X.columns)
            if cols and all(isinstance(c, str) for c in cols):
                names = np.asarray(cols, dtype=object)
        A = _as_float_matrix(X)
        if reset:
            if A.shape[0] < 2:
                raise ValueError(f"n_samples = {A.shape[0]}: a private fit needs at least 2 samples.")
            self.n_features_in_ = int(A.shape[1])
            if names is not None:
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return A
        if A.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {A.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        fitted_names = getattr(self, "feature_names_in_", None)
        if fitted_names is not None and names is not None and list(names) != list(fitted_names):
            raise ValueError(
                "The feature names should match those that were passed during fit; got "
                f"{list(names)[:5]}..., expected {list(fitted_names)[:5]}...."
            )
        cls = type(self).__name__
        if fitted_names is not None and names is None:
            warnings.warn(f"X does not have valid feature names, but {cls} was fitted with feature names", stacklevel=3)
        if fitted_names is None and names is not None and hasattr(self, "n_features_in_"):
            warnings.warn(f"X has feature names, but {cls} was fitted without feature names", UserWarning, stacklevel=3)
        return A

    @staticmethod
    def _validate_y(y, n: int) -> np.ndarray:
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None.")
        if _is_dataframe(y):
            if y.shape[1] != 1:
                raise ValueError(f"y must be 1-D, got a DataFrame with {y.shape[1]} columns.")
            y = y.iloc[:, 0]
        v = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        if v.dtype.kind == "c":
            raise ValueError("Complex data not supported: y must hold real numbers or labels.")
        if v.ndim == 2 and v.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                _conversion_warning(),
                stacklevel=3,
            )
            v = v.ravel()
        if v.ndim != 1:
            raise ValueError(f"y must be 1-D, got an array with {v.ndim} dimensions.")
        if v.shape[0] != n:
            raise ValueError(f"X and y must have the same number of rows, got {n} and {v.shape[0]}.")
        return v


def _conversion_warning() -> type:
    """scikit-learn's ``DataConversionWarning`` when it is installed (its checks expect it), else ``UserWarning``."""
    try:
        from sklearn.exceptions import DataConversionWarning
    except ImportError:  # pragma: no cover - scikit-learn is a dev dependency
        return UserWarning
    return DataConversionWarning


class DPClassifierMixin:
    """``score`` = mean accuracy; labels of any kind mapped to ``0..C-1`` and back."""

    _estimator_type = "classifier"

    def _validate_Xy(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """The rows (resetting the fitted feature info) and the labels as codes ``0..C-1`` (sets ``classes_``)."""
        A = self._validate_X(X, reset=True)
        return A, self._encode_y(self._validate_y(y, A.shape[0]))

    def _encode_y(self, y) -> np.ndarray:
        v = np.asarray(y)
        if v.dtype.kind == "f" and not np.all(np.isfinite(v)):
            raise ValueError("y contains NaN or infinite values; remove them first.")
        if v.dtype.kind == "f" and np.any(v != np.round(v)) and np.unique(v).size > 0.5 * v.size and v.size > 20:
            raise ValueError(
                "Unknown label type: continuous. This is a classifier: y must hold class labels "
                "(use a regressor for a continuous target)."
            )
        classes, codes = np.unique(v, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y must contain at least two classes, got {classes.size} class ({classes.tolist()!r}).")
        self.classes_ = classes
        return codes.astype(np.int64)

    def _degenerate_problem(self, X, y, pred=None) -> str:
        """A constant predictor (one class for every training row), or training accuracy below the majority rate."""
        from .. import display

        pred = np.asarray(self.predict(X) if pred is None else pred)
        if np.unique(pred).size == 1:
            label = pred[0].item() if isinstance(pred[0], np.generic) else pred[0]
            return (
                f"the fitted model predicts the single class {label!r} for all {display.integer(pred.size)} "
                "training rows (a constant predictor, no better than always answering one class)."
            )
        truth = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
        acc = float(np.mean(pred == truth))
        majority = float(np.unique(truth, return_counts=True)[1].max() / truth.size)
        if acc >= majority:
            return ""
        return (
            f"the fitted model's accuracy on its own training data, {display.number(acc)}, is below the "
            f"majority-class rate {display.number(majority)} (always answering the most frequent class does better)."
        )

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (optionally weighted)."""
        pred = self.predict(X)
        y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
        hit = (pred == y).astype(float)
        if sample_weight is None:
            return float(hit.mean())
        w = np.asarray(sample_weight, dtype=float)
        return float(np.sum(w * hit) / np.sum(w))


class DPRegressorMixin:
    """``score`` = coefficient of determination R²."""

    _estimator_type = "regressor"

    def _validate_Xy(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """The rows (resetting the fitted feature info) and the finite numeric targets, validated."""
        A = self._validate_X(X, reset=True)
        v = np.asarray(self._validate_y(y, A.shape[0]), dtype=np.float64)
        if not np.all(np.isfinite(v)):
            raise ValueError("y contains NaN or infinite values; remove or impute them first.")
        return A, v

    def _degenerate_problem(self, X, y) -> str:
        """Far worse than the constant mean predictor on the training data (R² below :data:`DEGENERATE_R2`)."""
        from .. import display

        r2 = self.score(X, y)
        if not r2 < DEGENERATE_R2:
            return ""
        return (
            f"the fitted model's R² on its own training data is {display.number(r2)}, far worse than "
            f"predicting the mean (R² = 0; the warning fires below {display.number(DEGENERATE_R2)})."
        )

    def score(self, X, y, sample_weight=None) -> float:
        """R² of ``predict(X)`` against ``y`` (1 is perfect; 0 is the constant mean predictor)."""
        pred = self.predict(X)
        y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y, dtype=float).ravel()
        w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        ybar = np.sum(w * y) / np.sum(w)
        ss_res = float(np.sum(w * (y - pred) ** 2))
        ss_tot = float(np.sum(w * (y - ybar) ** 2))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot


def check_random_state_like(random_state) -> Any:
    """``None``, a non-negative int, a ``numpy.random.Generator`` or ``SeedSequence``; a legacy
    ``RandomState`` (as scikit-learn's tools may pass) is turned into a seed drawn from it."""
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.SeedSequence)):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if int(random_state) < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state!r}.")
        return int(random_state)
    raise TypeError(f"random_state must be None, an int, a numpy Generator or SeedSequence, got {random_state!r}.")


def _declared_or_leak(declared, name: str, kind: str, what: str, observed: float, leaks: list[str]) -> float:
    """A declared public bound in (0, inf), or ``observed`` (``what`` of the training data) with a
    :class:`PrivacyLeakWarning`, the leak recorded in ``leaks``."""
    if declared is not None:
        if isinstance(declared, (bool, np.bool_)) or not isinstance(declared, numbers.Real):
            raise TypeError(f"{name} must be a positive real number or None, got {declared!r}.")
        v = float(declared)
        if not (v > 0 and math.isfinite(v)):
            raise ValueError(f"{name} must be in (0, inf), got {declared!r}.")
        return v
    warnings.warn(
        f"{name} was not given, so {what} of the training data ({observed:.4g}) is used; this leaks information "
        f"outside the privacy guarantee. Declare {name} (a public bound) to avoid it.",
        PrivacyLeakWarning,
        stacklevel=5,  # one frame deeper than the two public helpers
    )
    leaks.append(f"the {kind} {name} was taken from the training data")
    return observed if observed > 0 else 1.0


def data_norm_or_leak(X: np.ndarray, data_norm, leaks: list[str], *, name: str = "data_norm") -> float:
    """The declared row-norm bound, or the data's largest row norm with a :class:`PrivacyLeakWarning`."""
    observed = float(np.max(np.linalg.norm(X, axis=1))) if data_norm is None else 0.0
    return _declared_or_leak(data_norm, name, "row-norm bound", "the largest row norm", observed, leaks)


def y_bound_or_leak(y: np.ndarray, y_bound, leaks: list[str]) -> float:
    """The declared label bound ``|y| <= y_bound``, or ``max |y|`` with a :class:`PrivacyLeakWarning`."""
    observed = float(np.max(np.abs(y))) if y_bound is None and y.size else 1.0
    return _declared_or_leak(y_bound, "y_bound", "label bound", "the largest |y|", observed, leaks)


def check_number(
    name: str, value, *, lo: float = 0.0, hi: float = math.inf, lo_open: bool = True, allow_inf: bool = False
) -> float:
    """A real number in the interval (or ``[lo, hi]`` when ``lo_open`` is false); clear errors otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}.")
    v = float(value)
    ok = (v > lo if lo_open else v >= lo) and (v <= hi) and not math.isnan(v)
    if not allow_inf and math.isinf(v):
        ok = False
    if not ok:
        left = "(" if lo_open else "["
        raise ValueError(f"{name} must be in {left}{lo:g}, {hi:g}], got {value!r}.")
    return v
