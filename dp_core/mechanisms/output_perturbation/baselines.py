"""Textbook baselines for the comparison: output perturbation of a regularised fit.

Ridge or multinomial logistic regression on rows in the unit ball, sensitivity 2L/(nλ) [CMS11, Cor. 8],
Gaussian noise of the analytic σ [BW18] or norm-Laplace noise [CMS11, Alg. 1], one standard noise vector
per trial rescaled at each ε. Details: ``docs/engine.md`` §"Output-perturbation baselines".
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
_TO_UNIT_BALL = (
    "rows divided by sqrt(d) and clipped to the unit ball, an intercept appended, then divided by sqrt(2): ||x|| <= 1."
)


@dataclass(frozen=True, eq=False)
class CompareData:
    """A dataset split and scaled once for the baselines: ``||x|| <= 1`` (an intercept column is included),
    regression labels in [-1, 1], class labels 0..C-1; ``notes``, ``leaks``, and the label mapping back to the
    target's units (docs/engine.md §"Output-perturbation baselines")."""

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
        how = "Columns clipped to the declared public ranges and centred and scaled by their public constants"
        return X, np.asarray(b.centre), np.asarray(b.scale), [f"{how} ({b.source}), {_TO_UNIT_BALL}"], []
    sd = X[tr].std(axis=0)
    how = "Columns standardised with the training mean and standard deviation"
    leak = (
        "The column means and standard deviations were taken from the training data; declare public "
        "feature ranges to make the guarantee cover this step."
    )
    return X, X[tr].mean(axis=0), np.where(sd > 0, sd, 1.0), [f"{how}, {_TO_UNIT_BALL}"], [leak]


def prepare_compare_data(ds: Dataset, *, test_fraction: float = 0.2, seed: int = 0) -> CompareData:
    """Split ``ds`` (seeded) and scale it for the output-perturbation baselines (declared public bounds
    are used when given; data-dependent steps are recorded as leaks; docs/engine.md)."""
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
    """NOT FOR PUBLICATION: the non-private regularised fit ``theta`` (and its training ``data``) and the
    constants of its output perturbation; only ``theta + noise`` is a release (docs/engine.md)."""

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


def _class_scores(data: CompareData, X: np.ndarray, Theta: np.ndarray):
    """``(rows, Z)`` over chunks of the rows of ``Theta`` (about 2e6 scores each): ``Z[t, i, c] = <x_i, w_tc>``."""
    C, d = data.n_classes, data.d
    step = max(1, int(2e6 // max(1, X.shape[0] * C)))
    for a in range(0, Theta.shape[0], step):
        yield slice(a, a + step), np.einsum("nd,tcd->tnc", X, Theta[a : a + step].reshape(-1, C, d))


def _objective_many(data: CompareData, lam: float, Theta: np.ndarray) -> np.ndarray:
    Theta = np.atleast_2d(Theta)
    X, y = data.X_train, data.y_train
    reg = 0.5 * lam * np.einsum("td,td->t", Theta, Theta)
    if data.task == "regression":
        R = X @ Theta.T - y[:, None]
        return 0.5 * np.mean(R * R, axis=0) + reg
    out = np.empty(Theta.shape[0])
    idx = y.astype(int)
    for rows, Z in _class_scores(data, X, Theta):
        lse = special.logsumexp(Z, axis=2)
        picked = np.take_along_axis(Z, np.broadcast_to(idx[None, :, None], (Z.shape[0], len(y), 1)), axis=2)[..., 0]
        out[rows] = np.mean(lse - picked, axis=1)
    return out + reg


def utility_of(data: CompareData, Theta: np.ndarray) -> np.ndarray:
    """Test accuracy (classification) or test R^2 on the [-1, 1] label scale (regression)."""
    if data.task == "regression":
        return _regression_scores(data, Theta)[0]
    Theta = np.atleast_2d(Theta)
    out = np.empty(Theta.shape[0])
    for rows, Z in _class_scores(data, data.X_test, Theta):
        out[rows] = np.mean(np.argmax(Z, axis=2) == data.y_test[None, :].astype(int), axis=1)
    return out


def mae_of(data: CompareData, Theta: np.ndarray) -> np.ndarray:
    """Test mean absolute error of each row of ``Theta`` in the target's own units (``nan`` for classification)."""
    if data.task != "regression":
        return np.full(np.atleast_2d(Theta).shape[0], np.nan)
    return _regression_scores(data, Theta)[1]


def _regression_scores(data: CompareData, Theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`utility_of` and :func:`mae_of` of a regression model's rows of ``Theta``, sharing the product."""
    P = data.X_test @ np.atleast_2d(Theta).T
    R = P - data.y_test[:, None]
    var = float(np.var(data.y_test)) or 1.0
    y = data.y_test_raw if data.y_test_raw is not None else data.label_lo + (data.y_test + 1.0) * data.label_half
    pred = data.label_lo + (P + 1.0) * data.label_half
    return 1.0 - np.mean(R * R, axis=0) / var, np.mean(np.abs(pred - np.asarray(y, dtype=float)[:, None]), axis=0)


def fit_output_model(data: CompareData, *, lam: float | None = None) -> OutputModel:
    """Fit the non-private regularised model (``lam`` > 0, default ``1/sqrt(n)``) and compute its
    output-perturbation constants: ``||theta(D) - theta(D')|| <= 2 L / (n lam)`` [CMS11, Corollary 8], with
    ``L`` derived in docs/engine.md §"Output-perturbation baselines"."""
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
    return OutputModel(
        task=data.task,
        lam=lam,
        theta=theta,
        sensitivity=output_perturbation_sensitivity(lipschitz=L, n=n, lam=lam),
        lipschitz=L,
        smoothness=smooth,
        trace_h=trace_h,
        objective=float(_objective_many(data, lam, theta[None, :])[0]),
        n_params=n_params,
        data=data,
        gram_trace=float(np.trace(G)),
        gram_lmax=lmax,
    )


def _scale(sensitivity: float, epsilon: float, delta: float, family: str) -> float:
    if family == "gaussian":
        return gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    return laplace_scale(epsilon=epsilon, sensitivity=sensitivity)


def _excess(task: str, D: int, s: float, family: str, trace_h: float, smoothness: float) -> float:
    """Ridge: ``tr(H) E||b||^2 / (2 D)`` (exact); logistic: ``beta E||b||^2 / 2`` (docs/engine.md)."""
    e_norm2 = D * s * s if family == "gaussian" else D * (D + 1) * s * s
    if task == "regression":
        return 0.5 * trace_h * e_norm2 / D
    return 0.5 * smoothness * e_norm2


def output_noise_scale(model: OutputModel, *, epsilon: float, delta: float, family: str) -> float:
    """sigma (Gaussian, analytic) or the Laplace-norm scale Delta/epsilon of the released noise."""
    check_choice("family", family, FAMILIES)
    return _scale(model.sensitivity, epsilon, delta, family)


def output_expected_excess(model: OutputModel, *, epsilon: float, delta: float, family: str) -> float:
    """Expected excess regularised training objective of the released parameters (docs/engine.md)."""
    s = output_noise_scale(model, epsilon=epsilon, delta=delta, family=family)
    return _excess(model.task, model.n_params, s, family, model.trace_h, model.smoothness)


def output_expected_excess_at_n(model: OutputModel, *, epsilon: float, delta: float, family: str, n: float) -> float:
    """:func:`output_expected_excess` for ``n`` rows like these (``lam`` and the sensitivity recomputed at
    ``n``, the second-moment matrix kept): "how many rows are needed"."""
    check_choice("family", family, FAMILIES)
    n = check_positive("n", n)
    lam = 1.0 / math.sqrt(n)
    L = (1.0 + 1.0 / math.sqrt(lam)) if model.task == "regression" else math.sqrt(2.0)
    s = _scale(output_perturbation_sensitivity(lipschitz=L, n=n, lam=lam), epsilon, delta, family)
    D = model.n_params
    return _excess(model.task, D, s, family, model.gram_trace + lam * D, 0.5 * model.gram_lmax + lam)


def _standard_noise(seeds: Sequence[np.random.SeedSequence], D: int, family: str) -> np.ndarray:
    """One standard noise vector per trial (a child stream of the trial's seed, tag 11)."""
    out = np.empty((len(seeds), D))
    for t, ss in enumerate(seeds):
        g = as_generator(child_seed(ss, 11))
        out[t] = g.standard_normal(D) if family == "gaussian" else sample_laplace_norm(g, 1, D)[0]
    return out


def output_perturbation_trials(
    model: OutputModel, *, epsilons: Sequence[float], delta: float, family: str, seeds: Sequence[np.random.SeedSequence]
) -> dict[str, np.ndarray]:
    """Released parameters' ``utility``, ``excess_risk`` and ``mae`` (shape (len(epsilons), len(seeds))) and the
    per-epsilon ``scale``."""
    check_choice("family", family, FAMILIES)
    Z = _standard_noise(seeds, model.n_params, family)
    util, excess, mae = (np.empty((len(epsilons), len(seeds))) for _ in range(3))
    scales = np.empty(len(epsilons))
    for i, e in enumerate(epsilons):
        s = output_noise_scale(model, epsilon=float(e), delta=delta, family=family)
        Theta = model.theta[None, :] + s * Z
        scales[i] = s
        if model.task == "regression":  # R² and MAE from one product with the test rows
            util[i], mae[i] = _regression_scores(model.data, Theta)
        else:
            util[i], mae[i] = model.utility(Theta), np.nan
        with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
            excess[i] = np.maximum(model.train_objective(Theta) - model.objective, 0.0)
    return {"utility": util, "excess_risk": excess, "mae": mae, "scale": scales}
