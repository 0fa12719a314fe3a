"""AdaSSP in the comparison: test R² of the private linear regression on the rows every mechanism gets.

Rows: the comparison's public per-column preprocessing (``spec.preprocess``) and an intercept column, so
``‖x‖ ≤ 1``; labels in ``[-1, 1]`` (census: its public [0, 1] domain; otherwise the training data's range,
reported as a leak, as input perturbation does). ``excess_risk``: training mean squared error of the private
fit minus that of ordinary least squares on the same rows. Wang (2018), Algorithm 2.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dp_core import status as vocab
from dp_core.compare.registry import BlockAdapter, MethodInfo, register
from dp_core.data import public_bounds, scale_labels, split_indices
from dp_core.preprocessing import append_intercept, preprocess_rows

from . import PLUGIN, AdasspConfig, adassp_thetas, sigmas, sufficient_statistics


@dataclass(frozen=True)
class AdaState:
    X_tr: np.ndarray
    y_tr: np.ndarray
    X_te: np.ndarray
    y_te: np.ndarray
    stats: tuple
    theta_ols: np.ndarray
    label_half: float
    notes: tuple[str, ...]
    leaks: tuple[str, ...]

    def r2(self, W: np.ndarray) -> np.ndarray:
        res = self.y_te[None, :] - W @ self.X_te.T
        return 1.0 - np.sum(res**2, axis=1) / np.sum((self.y_te - self.y_te.mean()) ** 2)

    def mae(self, W: np.ndarray) -> np.ndarray:
        return np.mean(np.abs(self.y_te[None, :] - W @ self.X_te.T), axis=1) * self.label_half

    def train_mse(self, W: np.ndarray) -> np.ndarray:
        return np.mean((self.y_tr[None, :] - W @ self.X_tr.T) ** 2, axis=1)


def prepare_state(ds, *, test_fraction: float = 0.2, seed: int = 0, preprocess: str = "normalize") -> AdaState:
    """Bounded rows and labels, the seeded split and the exact statistics of the training rows."""
    if ds.task != "regression":
        raise ValueError(f"adassp is linear regression: the task must be regression, got {ds.task}.")
    b = public_bounds(ds)
    X = append_intercept(preprocess_rows(ds.X, b, preprocess), 1.0)
    public = ds.name == "census"
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        y, info = scale_labels(ds.y, *((0.0, 1.0) if public else (None, None)))
    tr, te = split_indices(ds.n, test_fraction=test_fraction, seed=seed, min_train=5)
    stats = sufficient_statistics(X[tr], y[tr])
    ols = np.linalg.lstsq(X[tr], y[tr], rcond=None)[0]
    leaks = tuple(x for x in (b.leak_warning, info.description if info.data_dependent else "") if x)
    notes = (f"Train/test split {tr.size}/{te.size} (seeded); rows ‖x‖ ≤ 1 ({preprocess} + intercept).",)
    lo, hi = (0.0, 1.0) if public else (float(ds.y.min()), float(ds.y.max()))
    return AdaState(X[tr], y[tr], X[te], y[te], stats, ols, (hi - lo) / 2.0, notes, leaks)


class AdasspAdapter(BlockAdapter):
    key = "adassp"
    title = "AdaSSP linear regression (Wang 2018)"
    page = PLUGIN.page
    tasks = ("regression",)
    summary = "Linear regression from Gaussian-noised XᵀX and Xᵀy with a privately chosen ridge."
    methods = (
        MethodInfo(
            "adassp",
            "AdaSSP (Wang 2018)",
            vocab.PROVED,
            "(ε, δ)-DP: three Gaussian releases at (ε/3, δ/3) — λ_min, XᵀX, Xᵀy — then a ridge solve "
            "[Wang 2018, Alg. 2; analytic σ, Balle & Wang 2018, Thm 8].",
            audit="adassp/standard",
        ),
    )

    def prepare(self, ds, spec):
        return prepare_state(ds, test_fraction=spec.test_fraction, seed=spec.seed, preprocess=spec.preprocess)

    def block(self, state, point, seeds, spec):
        cfg, eps = AdasspConfig(), float(point["epsilon"])
        W = np.concatenate([adassp_thetas(state.stats, eps, spec.delta, cfg, np.random.default_rng(s)) for s in seeds])
        excess = state.train_mse(W) - state.train_mse(state.theta_ols[None, :])[0]
        cols = {"method": "adassp", "trial": np.arange(len(seeds)), "utility": state.r2(W)}
        return pd.DataFrame(cols | {"excess_risk": excess, "mae": state.mae(W)})

    def noise(self, state, epsilon, spec):
        names = ("σ (λ_min)", "σ (XᵀX entries)", "σ (Xᵀy)")
        return [{"method": "adassp", "quantity": k, "value": v} for k, v in zip(names, sigmas(epsilon, spec.delta))]

    def nonprivate_utility(self, state):
        return float(state.r2(state.theta_ols[None, :])[0])

    def nonprivate_mae(self, state):
        return float(state.mae(state.theta_ols[None, :])[0])

    def notes(self, state):
        return state.notes

    def leaks(self, state):
        return state.leaks


ADAPTER = register(AdasspAdapter())
