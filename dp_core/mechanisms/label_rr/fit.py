"""Label RR's data and its non-private fits on randomized labels (ridge / multinomial logistic). The features are
public under label-DP (standardised at no privacy cost); the labels' range is public or recorded as a leak."""

import math

import numpy as np
from scipy import optimize, special

from ...data import Dataset, split_indices
from ...fit_checks import SplitData as RRData

RIDGE = 1e-3


def prepare_rr_data(ds: Dataset, *, test_fraction: float = 0.2, seed: int = 0) -> RRData:
    """Seeded split; standardised columns and an intercept; class codes, or labels with their public range."""
    from . import PUBLIC_LABEL_RANGES

    tr, te = split_indices(ds.n, test_fraction=test_fraction, seed=seed, min_train=5)
    X = np.asarray(ds.X, dtype=float)
    sd = X[tr].std(axis=0)
    Z = (X - X[tr].mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    Z = np.column_stack([Z, np.ones(len(Z))])
    y = np.asarray(ds.y, dtype=float)
    leaks, notes = [], [f"Train/test split {tr.size}/{te.size} (seeded); features public (label-DP)."]
    if ds.task == "regression":
        if ds.name in PUBLIC_LABEL_RANGES:
            lo, hi, why = PUBLIC_LABEL_RANGES[ds.name]
            notes.append(f"Label range [{lo:g}, {hi:g}] public: {why}.")
        else:
            lo, hi = float(y[tr].min()), float(y[tr].max())
            leaks.append(f"Label range [{lo:.4g}, {hi:.4g}] taken from the training labels; declare it instead.")
        return RRData("regression", 0, Z[tr], y[tr], Z[te], y[te], lo, hi, tuple(notes), tuple(leaks))
    classes, codes = np.unique(y, return_inverse=True)
    task = "binary" if classes.size == 2 else "multiclass"
    return RRData(task, int(classes.size), Z[tr], codes[tr], Z[te], codes[te], notes=tuple(notes))


def ridge_fits(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Ridge solutions ``(XᵀX + RIDGE·n I)⁻¹ XᵀY`` for every column of ``Y`` (n, trials): (trials, d)."""
    A = X.T @ X + RIDGE * X.shape[0] * np.eye(X.shape[1])
    return np.linalg.solve(A, X.T @ Y).T


def softmax_fit(X: np.ndarray, y: np.ndarray, K: int) -> np.ndarray:
    """Multinomial logistic regression (L2 penalty ``RIDGE``) fitted by L-BFGS: weights (K, d)."""
    n, d = X.shape
    Y = np.eye(K)[y.astype(int)]

    def f(w):
        W = w.reshape(K, d)
        Z = X @ W.T
        lse = special.logsumexp(Z, axis=1)
        P = np.exp(Z - lse[:, None])
        loss = np.mean(lse - np.sum(Z * Y, axis=1)) + 0.5 * RIDGE * np.sum(W * W)
        return loss, ((P - Y).T @ X / n + RIDGE * W).ravel()

    return optimize.minimize(f, np.zeros(K * d), jac=True, method="L-BFGS-B").x.reshape(K, d)


def r2_mae(pred: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Test R² and mean absolute error of each row of ``pred`` (trials, n) against ``y``."""
    r2 = 1.0 - np.sum((pred - y) ** 2, axis=1) / np.sum((y - y.mean()) ** 2)
    return r2, np.mean(np.abs(pred - y), axis=1)


def randomized_labels(data: RRData, cfg, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """One release of the training labels at ``epsilon`` (RR-on-bins, or two-stage RR-with-prior)."""
    from . import rr_on_bins, rr_with_prior

    if data.task == "regression":
        return rr_on_bins(data.y_train, data.lo, data.hi, cfg, epsilon, rng)
    K, n = data.n_classes, data.n
    n1 = n if cfg.stage >= 1.0 else max(1, min(n - 1, int(math.ceil(cfg.stage * n))))
    out = rr_with_prior(data.y_train[:n1], np.full((n1, K), 1.0 / K), epsilon, rng)
    if n1 == n:
        return out
    W = softmax_fit(data.X_train[:n1], out, K)
    prior = special.softmax(data.X_train[n1:] @ W.T, axis=1)
    return np.concatenate([out, rr_with_prior(data.y_train[n1:], prior, epsilon, rng)])


def trial_metrics(data: RRData, cfg, epsilon: float, rngs) -> tuple[np.ndarray, np.ndarray]:
    """(test utility, test MAE or nan) of the fit on each trial's randomized labels (``rngs=None``: true labels)."""
    labels = [data.y_train] if rngs is None else [randomized_labels(data, cfg, epsilon, g) for g in rngs]
    if data.task == "regression":
        return r2_mae(ridge_fits(data.X_train, np.column_stack(labels)) @ data.X_test.T, data.y_test)
    W = [softmax_fit(data.X_train, y, data.n_classes) for y in labels]
    acc = [np.mean(np.argmax(data.X_test @ w.T, axis=1) == data.y_test) for w in W]
    return np.asarray(acc), np.full(len(acc), np.nan)


def nonprivate_metrics(data: RRData) -> tuple[float, float]:
    """(test utility, test MAE or nan) of the same fit on the true labels."""
    util, mae = trial_metrics(data, None, math.inf, None)
    return float(util[0]), float(mae[0])
