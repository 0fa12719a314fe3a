"""Textbook baselines for the comparison: output perturbation of a regularised fit.

The fit is ridge regression (regression tasks) or L2-regularised multinomial logistic
regression (binary and multiclass tasks) on rows scaled into the unit ball. Because the
objective is ``lam``-strongly convex and each record's loss is ``L``-Lipschitz on the set where
the minimiser lies, the minimiser moves by at most ``2 L / (n lam)`` in L2 when one record
changes [CMS11, Cor. 8]. Two noise families protect it:

* ``output_gaussian``: Gaussian noise with the analytic sigma of [BW18] for ``(epsilon, delta)``;
* ``output_laplace``: noise with density ``∝ exp(-epsilon ||b|| / Delta)`` (pure epsilon-DP,
  [CMS11, Alg. 1]), drawn as a uniform direction times a Gamma(D, Delta/epsilon) radius.

Every trial draws one standard noise vector and rescales it at each epsilon (common random
numbers), so a whole utility-vs-epsilon sweep costs one fit and a few matrix products.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, *Differentially Private Empirical Risk
   Minimization*, JMLR 12, 2011: Algorithm 1 (output perturbation), Corollary 8 (sensitivity).
.. [BW18] B. Balle, Y.-X. Wang, *Improving the Gaussian Mechanism for Differential Privacy*,
   ICML 2018, Theorem 8 / Algorithm 1 (analytic calibration).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from ..._validation import check_choice, check_in_interval, check_positive
from ...calibration import (
    gaussian_sigma_analytic,
    laplace_scale,
    output_perturbation_sensitivity,
    sample_laplace_norm,
)
from ...data import Dataset, split_indices
from ...exceptions import DataValidationError, PrivacyLeakWarning
from ...publication import NonPublicDiagnostics
from ...rng import as_generator, child_seed

__all__ = [
    "CompareData",
    "prepare_compare_data",
    "OutputModel",
    "fit_output_model",
    "output_noise_scale",
    "output_perturbation_trials",
    "output_expected_excess",
    "output_expected_excess_at_n",
    "mae_of",
]

FAMILIES = ("gaussian", "laplace")


@dataclass(frozen=True, eq=False)
class CompareData:
    """A dataset split and scaled once for the baselines: ``||x|| <= 1`` (an intercept column is
    included), regression labels in [-1, 1], class labels 0..C-1.

    ``notes`` lists every step; ``leaks`` the steps that looked at the private data (the row-norm
    bound and the label range of a dataset without public bounds), which the guarantee does not
    cover. Regression only: a prediction ``p`` on the [-1, 1] scale is ``label_lo + (p + 1) *
    label_half`` in the target's units, and ``y_test_raw`` holds the test labels in those units
    (before the mapping and its clipping), for the test mean absolute error.
    """

    name: str
    task: str
    n_classes: int
    X_train: np.ndarray = field(repr=False)
    y_train: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = ()
    leaks: tuple[str, ...] = ()
    label_lo: float = -1.0
    label_half: float = 1.0
    y_test_raw: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        return int(self.X_train.shape[1])


def _column_scaling(ds: Dataset, X: np.ndarray, tr: np.ndarray) -> tuple:
    """``(X, centre, scale, notes, leaks)``: ``X`` clipped to the declared public bounds and their constants, else
    ``X`` and the training rows' mean and standard deviation."""
    if ds.declared_bounds is not None:
        # public bounds declared for the data: clip to them and centre/scale by their public constants
        # (a per-record map with public constants: Dwork and Roth 2014, Proposition 2.1, record-wise)
        b = ds.declared_bounds
        X = np.clip(X, b.lo, b.hi)
        mu, sd = np.asarray(b.centre), np.asarray(b.scale)
        notes = [
            f"Columns clipped to the declared public ranges and centred and scaled by their public constants "
            f"({b.source}), rows divided by sqrt(d) and clipped to the unit ball, an intercept appended, then "
            "divided by sqrt(2): ||x|| <= 1.",
        ]
        leaks = []
    else:
        mu = X[tr].mean(axis=0)
        sd = X[tr].std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        notes = [
            "Columns standardised with the training mean and standard deviation, rows divided by sqrt(d) and "
            "clipped to the unit ball, an intercept appended, then divided by sqrt(2): ||x|| <= 1.",
        ]
        leaks = [
            "The column means and standard deviations were taken from the training data; declare public "
            "feature ranges to make the guarantee cover this step."
        ]
    return X, mu, sd, notes, leaks


def prepare_compare_data(ds: Dataset, *, test_fraction: float = 0.2, seed: int = 0) -> CompareData:
    """Split ``ds`` (seeded) and scale it for the output-perturbation baselines.

    Columns are standardised with the training mean and standard deviation (data-dependent,
    recorded as a leak) - or, when public bounds were declared for ``ds``
    (:meth:`dp_core.data.Dataset.with_public_bounds`), clipped to them and centred and scaled by
    their public constants (no leak) - rows divided by sqrt(d) and clipped to the unit ball (a public rule), an
    intercept appended and every row divided by sqrt(2), so that ``||x|| <= 1``. Regression labels are
    mapped from the training range
    to [-1, 1] (data-dependent, recorded).
    """
    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a dp_core Dataset, got {type(ds).__name__}.")
    f = check_in_interval("test_fraction", test_fraction, 0.0, 1.0, closed="neither")
    n = ds.n
    n_test = max(1, int(round(f * n)))
    if n - n_test < 5:
        raise DataValidationError(f"dataset {ds.name!r} has only {n} rows; at least {n_test + 5} are needed.")
    tr, te = split_indices(n, test_fraction=f, seed=seed)
    X = np.asarray(ds.X, dtype=float)
    root_d = math.sqrt(X.shape[1])
    X, mu, sd, notes, leaks = _column_scaling(ds, X, tr)
    notes.insert(0, f"Train/test split {n - n_test}/{n_test} (seeded).")

    def scale(A: np.ndarray) -> np.ndarray:
        Z = (A - mu) / sd / root_d
        Z = Z / np.maximum(np.linalg.norm(Z, axis=1), 1.0)[:, None]
        return np.column_stack([Z, np.ones(A.shape[0])]) / math.sqrt(2.0)

    y = np.asarray(ds.y, dtype=float)
    label_lo, label_half, y_raw = -1.0, 1.0, None
    if ds.task == "regression":
        lo, hi = float(y[tr].min()), float(y[tr].max())
        if not hi > lo:
            raise DataValidationError(f"the target of {ds.name!r} is constant on the training rows.")
        ys = np.clip(2.0 * (y - lo) / (hi - lo) - 1.0, -1.0, 1.0)
        label_lo, label_half, y_raw = lo, (hi - lo) / 2.0, y[te]
        leaks.append(
            f"Labels mapped from the training range [{lo:.4g}, {hi:.4g}] to [-1, 1]; declare a public range instead."
        )
        n_classes = 0
    else:
        classes, ys = np.unique(y, return_inverse=True)
        ys = ys.astype(float)
        n_classes = int(classes.size)
        if n_classes < 2:
            raise DataValidationError(f"dataset {ds.name!r} has a single class.")
    return CompareData(
        name=ds.name,
        task=ds.task,
        n_classes=n_classes,
        X_train=scale(X[tr]),
        y_train=ys[tr],
        X_test=scale(X[te]),
        y_test=ys[te],
        notes=tuple(notes),
        leaks=tuple(leaks),
        label_lo=float(label_lo),
        label_half=float(label_half),
        y_test_raw=y_raw,
    )


@dataclass(frozen=True, eq=False)
class OutputModel(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the non-private regularised fit and the constants of its output perturbation.

    ``theta`` is the unprotected model and ``data`` the training data; only ``theta + noise`` (as
    drawn by :func:`output_perturbation_trials`) is a release.

    ``theta`` has shape (D,) (ridge) or (C*d,) (multinomial logistic, row-major C x d).
    ``sensitivity`` is the L2 sensitivity ``2 L / (n lam)``; ``smoothness`` bounds the Hessian of
    the regularised objective (exact Hessian trace ``trace_h`` for ridge).
    """

    task: str
    lam: float
    theta: np.ndarray = field(repr=False)
    sensitivity: float
    lipschitz: float
    smoothness: float
    trace_h: float
    objective: float
    n_params: int
    data: CompareData = field(repr=False)
    gram_trace: float = math.nan
    gram_lmax: float = math.nan

    def train_objective(self, Theta: np.ndarray) -> np.ndarray:
        """Regularised training objective at each row of ``Theta`` (shape (T, D))."""
        return _objective_many(self.data, self.lam, Theta)

    def utility(self, Theta: np.ndarray) -> np.ndarray:
        """Test accuracy (classification) or test R^2 (regression) of each row of ``Theta``."""
        return utility_of(self.data, Theta)

    def mae(self, Theta: np.ndarray) -> np.ndarray:
        """Test mean absolute error in the target's units of each row of ``Theta`` (regression; ``nan`` otherwise)."""
        return mae_of(self.data, Theta)


def _softmax_parts(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> tuple[float, np.ndarray]:
    Z = X @ W.T  # (n, C)
    lse = special.logsumexp(Z, axis=1)
    idx = y.astype(int)
    loss = float(np.mean(lse - Z[np.arange(len(y)), idx]))
    P = np.exp(Z - lse[:, None])
    P[np.arange(len(y)), idx] -= 1.0
    grad = P.T @ X / len(y)
    return loss, grad


def _objective_many(data: CompareData, lam: float, Theta: np.ndarray) -> np.ndarray:
    Theta = np.atleast_2d(Theta)
    X, y = data.X_train, data.y_train
    reg = 0.5 * lam * np.einsum("td,td->t", Theta, Theta)
    if data.task == "regression":
        R = X @ Theta.T - y[:, None]
        return 0.5 * np.mean(R * R, axis=0) + reg
    C, d = data.n_classes, data.d
    out = np.empty(Theta.shape[0])
    step = max(1, int(2e6 // max(1, X.shape[0] * C)))
    idx = y.astype(int)
    for a in range(0, Theta.shape[0], step):
        W = Theta[a : a + step].reshape(-1, C, d)
        Z = np.einsum("nd,tcd->tnc", X, W)
        lse = special.logsumexp(Z, axis=2)
        picked = np.take_along_axis(Z, np.broadcast_to(idx[None, :, None], (Z.shape[0], len(y), 1)), axis=2)[..., 0]
        out[a : a + step] = np.mean(lse - picked, axis=1)
    return out + reg


def utility_of(data: CompareData, Theta: np.ndarray) -> np.ndarray:
    """Test accuracy (classification) or test R^2 on the [-1, 1] label scale (regression)."""
    Theta = np.atleast_2d(Theta)
    X, y = data.X_test, data.y_test
    if data.task == "regression":
        R = X @ Theta.T - y[:, None]
        var = float(np.var(y)) or 1.0
        return 1.0 - np.mean(R * R, axis=0) / var
    C, d = data.n_classes, data.d
    out = np.empty(Theta.shape[0])
    step = max(1, int(2e6 // max(1, X.shape[0] * C)))
    for a in range(0, Theta.shape[0], step):
        W = Theta[a : a + step].reshape(-1, C, d)
        pred = np.argmax(np.einsum("nd,tcd->tnc", X, W), axis=2)
        out[a : a + step] = np.mean(pred == y[None, :].astype(int), axis=1)
    return out


def mae_of(data: CompareData, Theta: np.ndarray) -> np.ndarray:
    """Test mean absolute error of each row of ``Theta`` in the target's own units (regression).

    The predictions on the [-1, 1] scale are mapped back with ``label_lo + (p + 1) * label_half`` and
    compared with the unclipped test labels; ``nan`` for classification data.
    """
    Theta = np.atleast_2d(Theta)
    if data.task != "regression":
        return np.full(Theta.shape[0], np.nan)
    y = data.y_test_raw if data.y_test_raw is not None else data.label_lo + (data.y_test + 1.0) * data.label_half
    pred = data.label_lo + (data.X_test @ Theta.T + 1.0) * data.label_half
    return np.mean(np.abs(pred - np.asarray(y, dtype=float)[:, None]), axis=0)


def _regression_scores(data: CompareData, Theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`utility_of` and :func:`mae_of` of a regression model's rows of ``Theta``, sharing the product."""
    P = data.X_test @ np.atleast_2d(Theta).T
    R = P - data.y_test[:, None]
    var = float(np.var(data.y_test)) or 1.0
    y = data.y_test_raw if data.y_test_raw is not None else data.label_lo + (data.y_test + 1.0) * data.label_half
    pred = data.label_lo + (P + 1.0) * data.label_half
    return 1.0 - np.mean(R * R, axis=0) / var, np.mean(np.abs(pred - np.asarray(y, dtype=float)[:, None]), axis=0)


def fit_output_model(data: CompareData, *, lam: float | None = None) -> OutputModel:
    """Fit the non-private regularised model and compute its output-perturbation constants.

    Parameters
    ----------
    data : CompareData
    lam : float, optional
        Regularisation strength, > 0 (default ``1/sqrt(n)``, which depends only on n).

    References
    ----------
    [CMS11] Corollary 8: ``||theta(D) - theta(D')|| <= 2 L / (n lam)``. Ridge: the minimiser has
    ``||theta|| <= 1/sqrt(lam)`` (compare with theta = 0), so on that ball the squared loss is
    ``L = 1 + 1/sqrt(lam)``-Lipschitz. Multinomial logistic: ``||(p - e_y) x^T||_F <= sqrt(2)``.
    """
    n, d = data.n, data.d
    lam = 1.0 / math.sqrt(n) if lam is None else check_positive("lam", lam)
    X, y = data.X_train, data.y_train
    G = X.T @ X / n
    lmax = float(np.linalg.eigvalsh(G)[-1])
    if data.task == "regression":
        theta = np.linalg.solve(G + lam * np.eye(d), X.T @ y / n)
        L = 1.0 + 1.0 / math.sqrt(lam)
        smooth = lmax + lam
        trace_h = float(np.trace(G) + lam * d)
        n_params = d
    else:
        C = data.n_classes

        def fun(w: np.ndarray) -> tuple[float, np.ndarray]:
            W = w.reshape(C, d)
            loss, grad = _softmax_parts(X, y, W)
            return loss + 0.5 * lam * float(w @ w), (grad + lam * W).ravel()

        res = optimize.minimize(
            fun, np.zeros(C * d), jac=True, method="L-BFGS-B", options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-14}
        )
        theta = res.x
        L = math.sqrt(2.0)
        smooth = 0.5 * lmax + lam  # Hessian of log-sum-exp <= (1/2) I, times x x^T
        trace_h = math.nan
        n_params = C * d
    model = OutputModel(
        task=data.task,
        lam=lam,
        theta=theta,
        sensitivity=output_perturbation_sensitivity(lipschitz=L, n=n, lam=lam),
        lipschitz=L,
        smoothness=smooth,
        trace_h=trace_h,
        objective=0.0,
        n_params=n_params,
        data=data,
        gram_trace=float(np.trace(G)),
        gram_lmax=lmax,
    )
    obj = float(model.train_objective(theta[None, :])[0])
    return OutputModel(**{**model.__dict__, "objective": obj})


def output_noise_scale(model: OutputModel, *, epsilon: float, delta: float, family: str) -> float:
    """sigma (Gaussian, analytic) or the Laplace-norm scale Delta/epsilon of the released noise."""
    check_choice("family", family, FAMILIES)
    if family == "gaussian":
        return gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=model.sensitivity)
    return laplace_scale(epsilon=epsilon, sensitivity=model.sensitivity)


def output_expected_excess(model: OutputModel, *, epsilon: float, delta: float, family: str) -> float:
    """Expected excess regularised training objective of the released parameters.

    Ridge: exact, ``E[b^T H b]/2 = tr(H) E||b||^2 / (2 D)``. Logistic: the smoothness upper bound
    ``beta E||b||^2 / 2``. ``E||b||^2`` is ``D sigma^2`` (Gaussian) or ``D (D+1) s^2`` (Gamma(D, s) radius).
    """
    s = output_noise_scale(model, epsilon=epsilon, delta=delta, family=family)
    D = model.n_params
    e_norm2 = D * s * s if family == "gaussian" else D * (D + 1) * s * s
    if model.task == "regression":
        return 0.5 * model.trace_h * e_norm2 / D
    return 0.5 * model.smoothness * e_norm2


def output_expected_excess_at_n(model: OutputModel, *, epsilon: float, delta: float, family: str, n: float) -> float:
    """:func:`output_expected_excess` for a dataset of ``n`` rows like this one.

    ``lam = 1/sqrt(n)`` and the sensitivity ``2 L / (n lam)`` are recomputed at ``n``; the data's
    second-moment matrix ``X^T X / n`` (its trace and largest eigenvalue) is taken as the same.
    Used to answer "how many rows are needed" from the bound.
    """
    check_choice("family", family, FAMILIES)
    n = check_positive("n", n)
    lam = 1.0 / math.sqrt(n)
    L = (1.0 + 1.0 / math.sqrt(lam)) if model.task == "regression" else math.sqrt(2.0)
    sens = output_perturbation_sensitivity(lipschitz=L, n=n, lam=lam)
    if family == "gaussian":
        s = gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=sens)
    else:
        s = laplace_scale(epsilon=epsilon, sensitivity=sens)
    D = model.n_params
    e_norm2 = D * s * s if family == "gaussian" else D * (D + 1) * s * s
    if model.task == "regression":
        return 0.5 * (model.gram_trace + lam * D) * e_norm2 / D
    return 0.5 * (0.5 * model.gram_lmax + lam) * e_norm2


def _standard_noise(seeds: Sequence[np.random.SeedSequence], D: int, family: str) -> np.ndarray:
    """One standard noise vector per trial (a child stream of the trial's seed, tag 11)."""
    out = np.empty((len(seeds), D))
    for t, ss in enumerate(seeds):
        g = as_generator(child_seed(ss, 11))
        if family == "gaussian":
            out[t] = g.standard_normal(D)
        else:
            out[t] = sample_laplace_norm(g, 1, D)[0]
    return out


def output_perturbation_trials(
    model: OutputModel, *, epsilons: Sequence[float], delta: float, family: str, seeds: Sequence[np.random.SeedSequence]
) -> dict[str, np.ndarray]:
    """Released parameters' utility and excess objective for each trial and epsilon.

    Returns arrays of shape (len(epsilons), len(seeds)): ``utility``, ``excess_risk``, ``mae`` (test
    mean absolute error in the target's units; ``nan`` for classification), and the per-epsilon
    ``scale`` (len(epsilons),).
    """
    check_choice("family", family, FAMILIES)
    Z = _standard_noise(seeds, model.n_params, family)
    T = len(seeds)
    util = np.empty((len(epsilons), T))
    excess = np.empty((len(epsilons), T))
    mae = np.empty((len(epsilons), T))
    scales = np.empty(len(epsilons))
    for i, e in enumerate(epsilons):
        s = output_noise_scale(model, epsilon=float(e), delta=delta, family=family)
        Theta = model.theta[None, :] + s * Z
        scales[i] = s
        if model.task == "regression":  # R² and MAE from one product with the test rows
            util[i], mae[i] = _regression_scores(model.data, Theta)
        else:
            util[i], mae[i] = model.utility(Theta), np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            excess[i] = np.maximum(model.train_objective(Theta) - model.objective, 0.0)
    return {"utility": util, "excess_risk": excess, "mae": mae, "scale": scales}
