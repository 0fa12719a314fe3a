"""Private linear models: input (Fukuchi, Tran, Sakuma 2017, Algorithms 1-2), objective (Kifer, Smith, Thakurta
2012, Theorem 2) and output perturbation (Chaudhuri, Monteleoni, Sarwate 2011, Algorithm 1) as scikit-learn-style
estimators: the shared problem, the three releases, their guarantees and the public defaults in
docs/input_perturbation.md §"Estimators".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import status as vocab
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
from ...estimators.preprocessing import augment_intercept, clip_to_unit_ball, linear_from_augmented

__all__ = [
    "InputPerturbationClassifier",
    "InputPerturbationRegressor",
    "ObjectivePerturbationClassifier",
    "ObjectivePerturbationRegressor",
    "OutputPerturbationClassifier",
    "OutputPerturbationRegressor",
    "default_eta",
]

METHODS = ("input", "objective", "output")
#: Why each method's status is what it is (before composition and the δ > 1/n check).
_REASONS = {
    "input": (
        "(ε, δ)-DP as claimed by the paper (Theorem 1); its proof relies on a regulariser that "
        "depends on the private data and on an event its Lemma 1 does not secure, so the project "
        "has not re-derived it; the status is the stored audit's for this σ_u mode."
    ),
    "objective": "(ε, δ)-DP by Kifer, Smith, Thakurta 2012, Theorem 2 (same ridge and ball).",
    "output": (
        "Pure ε-DP by Chaudhuri, Monteleoni, Sarwate 2011, Algorithm 1 and Corollary 8 (L2 "
        "sensitivity 2ζ/Δ of the ridge fit)."
    ),
}

_NAMES = {
    "input": "Input perturbation (Fukuchi, Tran, Sakuma 2017, Algorithms 1-2)",
    "objective": "Gaussian objective perturbation (Kifer, Smith, Thakurta 2012, Theorem 2)",
    "output": "Output perturbation (Chaudhuri, Monteleoni, Sarwate 2011, Algorithm 1)",
}


def default_eta(epsilon: float) -> float:
    """The public default radius of the parameter ball, ``min(3, max(1, epsilon))`` (docs/input_perturbation.md
    §"Estimators").
    """
    return float(min(3.0, max(1.0, epsilon)))


@dataclass(frozen=True)
class _BaselineParams:
    """Public constants of the objective/output baselines (the fields their samplers read)."""

    eta: float
    zeta: float
    lam: float
    epsilon: float
    eps_run: float
    delta: float
    Delta: float


#: delta used in the ridge rule of pure-epsilon output perturbation (a public constant, not a guarantee).
_RIDGE_RULE_DELTA = 1e-5


def _baseline_params(*, d: int, epsilon: float, delta: float, eta: float, model: str, mult: float) -> _BaselineParams:
    """The ridge ``Delta`` of the baselines: input perturbation's public rule without its sample-size floor
    (Fukuchi et al. 2017, Algorithm 2, Theorem 4; Kifer et al. 2012, Theorem 2; docs/input_perturbation.md
    §"Estimators")."""
    from .model import model_constants
    from .params import _regularisation, delta_star

    c = model_constants(model, eta=eta)
    dl = delta if delta > 0 else _RIDGE_RULE_DELTA
    star = delta_star(zeta=c.zeta, d=d, delta=dl, eps_run=epsilon, eta=eta)
    Delta = _regularisation(None, mult * star, 2.0 * c.lam / epsilon)
    return _BaselineParams(eta=eta, zeta=c.zeta, lam=c.lam, epsilon=epsilon, eps_run=epsilon, delta=dl, Delta=Delta)


class _QuadraticBallModel(DPEstimator):
    """Shared fit of the six linear estimators (see the module docstring)."""

    _method = "input"
    _task = "regression"

    # -- settings --------------------------------------------------------------------------
    def _settings(self):
        eps = check_number("epsilon", self.epsilon)
        if self._method == "output":
            dl = 0.0 if self.delta is None else check_number("delta", self.delta, lo=0.0, hi=1.0, lo_open=False)
        else:
            dl = check_number("delta", self.delta, hi=1.0)
            if dl >= 1.0:
                raise ValueError(f"delta must be in (0, 1), got {self.delta!r}.")
        if isinstance(self.eta, str):
            if self.eta != "auto":
                raise ValueError(f"eta must be 'auto' or a positive number, got {self.eta!r}.")
        else:
            check_number("eta", self.eta)
        mult = check_number("Delta_multiplier", self.Delta_multiplier)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be a bool, got {self.fit_intercept!r}.")
        scaling = check_number("intercept_scaling", self.intercept_scaling) if self.fit_intercept else None
        return eps, dl, mult, scaling

    def _binary_fit(self, Z: np.ndarray, t: np.ndarray, *, model: str, eps: float, dl: float, mult: float, g):
        """One release ``w`` on prepared rows ``Z`` (unit ball) and targets ``t``; nothing else is kept."""
        from .mechanism import InputPerturbation, objective_perturbation_thetas, output_perturbation_thetas
        from .model import sufficient_stats

        eta = default_eta(eps) if isinstance(self.eta, str) else float(self.eta)
        if self._method == "input":
            cfg = InputPerturbation(epsilon=eps, delta=dl, model=model, eta=eta, Delta_multiplier=mult)
            rel = cfg.run(Z, t, rng=g, sampler="stats")
            params = cfg.params(Z.shape[0], Z.shape[1])
            return np.asarray(rel.theta, dtype=np.float64), params
        stats = sufficient_stats(Z, t, model)
        params = _baseline_params(d=stats.d, epsilon=eps, delta=dl, eta=eta, model=model, mult=mult)
        if self._method == "objective":
            w = objective_perturbation_thetas(stats, params, n_trials=1, rng=g)[0]
        else:
            w = output_perturbation_thetas(stats, params, n_trials=1, rng=g)[0]
        del stats
        return np.asarray(w, dtype=np.float64), params

    def _base_status(self, params_list) -> str:
        """Objective and output perturbation: proved. Input perturbation: the audit table's status of its
        σ_u mode (row ``input-perturbation:<mode>``), the row behind the app's badge for that mode."""
        if self._method != "input":
            return vocab.PROVED
        return audited_status("input-perturbation", params_list[0].sigma_u_mode)

    def _guarantee(self, eps: float, dl: float, n: int, leaks: list[str], params_list) -> PrivacyGuarantee:
        """The fitted guarantee over ``n`` training rows: a proof with δ > 1/n is proved but weak (glossary)."""
        reason = _REASONS[self._method]
        if len(params_list) > 1:
            reason += f" One-vs-rest: {len(params_list)} binary fits at ε/{len(params_list)} each (composition)."
        delta = 0.0 if self._method == "output" else dl
        weak = vocab.weak_reason(delta, n)
        status = vocab.with_weakness(self._base_status(params_list), weak)
        if weak:
            reason += f" Weak: {weak}"
        local = None
        if self._method == "input":
            from .params import local_privacy

            local = max(local_privacy(p).epsilon_exact for p in params_list)
        return PrivacyGuarantee(
            epsilon=eps,
            delta=delta,
            neighbours="replace one record",
            status=status,
            mechanism=_NAMES[self._method],
            model="local" if self._method == "input" else "central",
            reason=reason,
            leaks=tuple(leaks),
            local_epsilon=local,
            extra={"eta": [float(p.eta) for p in params_list], "Delta": [float(p.Delta) for p in params_list]},
        )

    def _transform(self, X: np.ndarray) -> np.ndarray:
        scaling = self.intercept_scaling if self.fit_intercept else None
        return augment_intercept(clip_to_unit_ball(X, self.data_norm_), scaling)

    def _scores(self, X) -> np.ndarray:
        """``<w, z(x)>`` with the public row transform ``z`` (equals ``X @ coef_.T + intercept_`` for rows
        with ``||x|| <= data_norm``; longer rows are clipped first, as in training)."""
        self._check_fitted()
        A = self._validate_X(X, reset=False)
        out = self._transform(A) @ self.w_.T
        return out[:, 0] if out.shape[1] == 1 else out


class _LinearRegressor(DPRegressorMixin, _QuadraticBallModel):
    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        *,
        eta="auto",
        Delta_multiplier=0.3,
        data_norm=None,
        y_bound=None,
        fit_intercept=True,
        intercept_scaling=0.3,
        random_state=None,
    ):
        self._store_params(locals())

    def fit(self, X, y):
        """Fit on ``X`` (array or DataFrame) and ``y`` (numbers); returns ``self``."""
        from ...rng import as_generator

        eps, dl, mult, scaling = self._settings()
        A, v = self._validate_Xy(X, y)
        leaks: list[str] = []
        self.data_norm_ = data_norm_or_leak(A, self.data_norm, leaks)
        yb = y_bound_or_leak(v, self.y_bound, leaks)
        Z = augment_intercept(clip_to_unit_ball(A, self.data_norm_), scaling)
        t = np.clip(v / yb, -1.0, 1.0)
        g = as_generator(check_random_state_like(self.random_state))
        w, params = self._binary_fit(Z, t, model="least_squares", eps=eps, dl=dl, mult=mult, g=g)
        del Z, t, v
        coef, icpt = linear_from_augmented(w, self.data_norm_, scaling)
        self.y_bound_ = yb
        self.w_ = (w * yb)[None, :]
        self.coef_ = coef * yb
        self.intercept_ = float(icpt * yb)
        self.privacy_ = self._guarantee(eps, dl, A.shape[0], leaks, [params])
        self._warn_if_degenerate(X, y)
        return self

    def _degenerate_advice(self) -> str:
        return (
            f"Likely cause: at epsilon = {self.epsilon!r} the noise or the ridge dominates, or the declared bounds "
            "(y_bound, data_norm) are far looser than the data, so the scaled labels and rows are tiny. Fix: "
            "declare y_bound and data_norm close to the data's real range, raise epsilon or Delta_multiplier "
            "(a larger ridge means less noise), or give more training rows."
        )

    def predict(self, X) -> np.ndarray:
        """Predicted targets (the public row transform, then ``<w, z>``)."""
        return np.asarray(self._scores(X), dtype=np.float64)


class _LinearClassifier(DPClassifierMixin, _QuadraticBallModel):
    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        *,
        eta="auto",
        Delta_multiplier=0.3,
        data_norm=None,
        fit_intercept=True,
        intercept_scaling=0.3,
        random_state=None,
    ):
        self._store_params(locals())

    def fit(self, X, y):
        """Fit on ``X`` (array or DataFrame) and ``y`` (any label values); returns ``self``."""
        from ...rng import as_generator

        eps, dl, mult, scaling = self._settings()
        A = self._validate_X(X, reset=True)
        codes = self._encode_y(self._validate_y(y, A.shape[0]))
        leaks: list[str] = []
        self.data_norm_ = data_norm_or_leak(A, self.data_norm, leaks)
        Z = augment_intercept(clip_to_unit_ball(A, self.data_norm_), scaling)
        C = self.classes_.size
        g = as_generator(check_random_state_like(self.random_state))
        targets = [codes == 1] if C == 2 else [codes == c for c in range(C)]
        k = len(targets)
        eps_each, dl_each = eps / k, dl / k
        ws, plist = [], []
        for tgt in targets:
            w, params = self._binary_fit(
                Z, np.where(tgt, 1.0, -1.0), model="logistic_taylor", eps=eps_each, dl=dl_each, mult=mult, g=g
            )
            ws.append(w)
            plist.append(params)
        del Z, codes, targets
        W = np.vstack(ws)
        parts = [linear_from_augmented(w, self.data_norm_, scaling) for w in W]
        self.w_ = W
        self.coef_ = np.vstack([c for c, _ in parts])
        self.intercept_ = np.array([b for _, b in parts])
        self.privacy_ = self._guarantee(eps, dl, A.shape[0], leaks, plist)
        self._warn_if_degenerate(X, y)
        return self

    def _degenerate_advice(self) -> str:
        C = int(self.classes_.size)
        split = f" ({C} one-vs-rest fits at epsilon/{C} each)" if C > 2 else ""
        return (
            f"Likely cause: at epsilon = {self.epsilon!r}{split} the noise or the ridge dominates the signal, or "
            "data_norm is far larger than the rows' real norm, so every scaled row is tiny. Fix: raise epsilon, "
            "declare data_norm close to the rows' real norm bound, or give more training rows."
        )

    def decision_function(self, X) -> np.ndarray:
        """``<w, z(x)>`` per class (binary: one column, positive means ``classes_[1]``)."""
        return self._scores(X)

    def predict(self, X) -> np.ndarray:
        """Predicted class labels (values of ``classes_``)."""
        s = self.decision_function(X)
        idx = (s > 0).astype(int) if s.ndim == 1 else np.argmax(s, axis=1)
        return self.classes_[idx]

    def predict_proba(self, X) -> np.ndarray:
        """Logistic scores ``1 / (1 + exp(-<w, z>))`` (one-vs-rest normalised) of a fit on the Taylor surrogate,
        not calibrated probabilities."""
        s = self.decision_function(X)
        P = 0.5 * (1.0 + np.tanh(0.5 * s))
        if s.ndim == 1:
            return np.column_stack([1.0 - P, P])
        tot = P.sum(axis=1, keepdims=True)
        return np.where(tot > 0, P / np.where(tot > 0, tot, 1.0), 1.0 / P.shape[1])

    def predict_log_proba(self, X) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


_DOC_PARAMS = """
    Parameters
    ----------
    epsilon : float
        Privacy budget in (0, inf).
    delta : float
        In (0, 1) (output perturbation: ignored, pure epsilon-DP). Default 1e-5.
    eta : "auto" or float
        Radius of the ball ``||w|| <= eta`` on the scaled inputs; ``"auto"`` = ``min(3, max(1, epsilon))``.
    Delta_multiplier : float
        Ridge = multiplier x the paper's Delta* (public; default 0.3).
    data_norm : float or None
        Public bound on the row norm of X; rows are divided by it and clipped. ``None`` takes it from
        the data (a :class:`~dp_core.exceptions.PrivacyLeakWarning`, recorded in ``privacy_.leaks``).
    fit_intercept : bool
    intercept_scaling : float
        Value of the constant column (rows are rescaled by ``1/sqrt(1 + s^2)`` to stay in the unit ball).
    random_state : None, int or numpy Generator

    Attributes
    ----------
    coef_, intercept_ : the released linear model on the original features (for ``||x|| <= data_norm``).
    w_ : the released parameter on the scaled, augmented inputs.
    privacy_ : :class:`~dp_core.estimators.PrivacyGuarantee`.
    n_features_in_, feature_names_in_, data_norm_
"""


class InputPerturbationRegressor(_LinearRegressor):
    __doc__ = (
        "Least squares released by input perturbation (Fukuchi, Tran, Sakuma 2017, Algorithms 1-2); "
        "local model, (ε, δ)-DP as claimed by the paper.\n"
        + _DOC_PARAMS
        + "    y_bound : float or None\n        Public bound on |y| (labels are divided by it and clipped).\n"
    )
    _method = "input"


class ObjectivePerturbationRegressor(_LinearRegressor):
    __doc__ = (
        "Least squares released by Gaussian objective perturbation (Kifer, Smith, Thakurta 2012, "
        "Theorem 2); proved (ε, δ)-DP.\n" + _DOC_PARAMS
    )
    _method = "objective"


class OutputPerturbationRegressor(_LinearRegressor):
    __doc__ = (
        "Ridge regression released by output perturbation (Chaudhuri, Monteleoni, Sarwate 2011, "
        "Algorithm 1); proved pure ε-DP.\n" + _DOC_PARAMS
    )
    _method = "output"


class InputPerturbationClassifier(_LinearClassifier):
    __doc__ = (
        "Logistic-Taylor classifier released by input perturbation (Fukuchi, Tran, Sakuma 2017); local "
        "model, (ε, δ)-DP as claimed by the paper. One-vs-rest for more than two classes.\n" + _DOC_PARAMS
    )
    _method = "input"


class ObjectivePerturbationClassifier(_LinearClassifier):
    __doc__ = (
        "Logistic-Taylor classifier released by Gaussian objective perturbation (Kifer, Smith, Thakurta "
        "2012, Theorem 2); proved (ε, δ)-DP.\n" + _DOC_PARAMS
    )
    _method = "objective"


class OutputPerturbationClassifier(_LinearClassifier):
    __doc__ = (
        "Logistic-Taylor classifier released by output perturbation (Chaudhuri, Monteleoni, Sarwate 2011, "
        "Algorithm 1); proved pure ε-DP.\n" + _DOC_PARAMS
    )
    _method = "output"
