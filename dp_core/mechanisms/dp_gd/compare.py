"""DP-GD in the comparison: logistic (binary), multinomial logistic (multiclass) or least squares (regression).

Rows are scaled to the unit ball as the module docstring of :mod:`dp_core.mechanisms.dp_gd` states; the
excess risk of a run is its unregularised training loss minus that of the noise-free run of the same schedule.
"""

import math

import numpy as np
import pandas as pd
from scipy import special

from ... import status as vocab
from ...compare.registry import BlockAdapter, MethodInfo, register
from ...data import Dataset, split_indices
from ...fit_checks import FitState as GDState
from ...fit_checks import SplitData as GDData

__all__ = ["GDData", "prepare_gd_data", "DPGDAdapter"]


def _columns(ds: Dataset, X: np.ndarray, tr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    if ds.declared_bounds is not None:  # public constants: a record-wise map (no privacy cost)
        b = ds.declared_bounds
        return np.clip(X, b.lo, b.hi), np.asarray(b.centre), np.asarray(b.scale), []
    sd = X[tr].std(axis=0)
    leak = "Column means and standard deviations taken from the training rows; declare public ranges to cover it."
    return X, X[tr].mean(axis=0), np.where(sd > 0, sd, 1.0), [leak]


def prepare_gd_data(ds: Dataset, *, test_fraction: float = 0.2, seed: int = 0) -> GDData:
    """Split ``ds`` (seeded), centre and scale its columns, divide rows by ``sqrt(d)``, clip them to the unit
    ball, append an intercept and divide by ``sqrt(2)``; binary labels ``±1``, regression labels to [-1, 1]."""
    tr, te = split_indices(ds.n, test_fraction=test_fraction, seed=seed, min_train=5)
    X, mu, sd, leaks = _columns(ds, np.asarray(ds.X, dtype=float), tr)
    Z = (X - mu) / sd / math.sqrt(X.shape[1])
    Z = Z / np.maximum(np.linalg.norm(Z, axis=1), 1.0)[:, None]
    Z = np.column_stack([Z, np.ones(len(Z))]) / math.sqrt(2.0)
    y = np.asarray(ds.y, dtype=float)
    lo, hi, n_classes = -1.0, 1.0, 0
    if ds.task == "regression":
        lo, hi = float(y[tr].min()), float(y[tr].max())
        half = label_half(lo, hi)
        y = np.clip((y - lo) / half - 1.0, -1.0, 1.0)
        leaks.append(f"Labels mapped from the training range [{lo:.4g}, {hi:.4g}] to [-1, 1]; declare a public range.")
    else:
        classes, codes = np.unique(y, return_inverse=True)
        n_classes = int(classes.size)
        y = np.where(codes == 1, 1.0, -1.0) if n_classes == 2 else codes.astype(float)
    task = "binary" if n_classes == 2 else ("multiclass" if n_classes > 2 else "regression")
    notes = (f"Train/test split {tr.size}/{te.size} (seeded); rows in the unit ball with an intercept.",)
    return GDData(task, n_classes, Z[tr], y[tr], Z[te], y[te], lo, hi, notes, tuple(leaks))


def label_half(lo: float, hi: float) -> float:
    """Half the label range the regression labels were mapped from to [-1, 1] (1 for a constant label)."""
    return (hi - lo) / 2.0 if hi > lo else 1.0


def mean_loss(data: GDData, Theta: np.ndarray) -> np.ndarray:
    """Unregularised mean training loss of each trial's parameters."""
    X, y = data.X_train, data.y_train
    if data.task == "multiclass":
        Z = np.einsum("kcd,nd->knc", Theta, X)
        return np.mean(special.logsumexp(Z, axis=2) - Z[:, np.arange(y.size), y.astype(int)], axis=1)
    M = Theta @ X.T
    return np.mean(np.logaddexp(0.0, -y * M) if data.task == "binary" else 0.5 * (M - y) ** 2, axis=1)


def held_out_metrics(data: GDData, Theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy or R², MAE in the target's units or ``nan``) on the test rows for each trial."""
    X, y = data.X_test, data.y_test
    if data.task == "multiclass":
        pred = np.argmax(np.einsum("kcd,nd->knc", Theta, X), axis=2)
        return np.mean(pred == y, axis=1), np.full(len(Theta), np.nan)
    M = Theta @ X.T
    if data.task == "binary":
        return np.mean(np.where(M >= 0, 1.0, -1.0) == y, axis=1), np.full(len(Theta), np.nan)
    pred = np.clip(M, -1.0, 1.0)
    r2 = 1.0 - np.sum((pred - y) ** 2, axis=1) / np.sum((y - y.mean()) ** 2)
    return r2, np.mean(np.abs(pred - y), axis=1) * label_half(data.lo, data.hi)


class DPGDAdapter(BlockAdapter):
    key = "dp_gd"
    title = "Noisy gradient descent (Bassily, Smith & Thakurta)"
    page = "pages/dp_gd.py"
    tasks = ("regression", "binary", "multiclass")
    trial_cap = 1000
    summary = "Full-batch gradient descent, per-example gradients clipped to C, Gaussian noise accounted by RDP."
    methods = (
        MethodInfo(
            "dp_gd",
            "Noisy gradient descent (DP-GD)",
            vocab.PROVED,
            "(ε, δ)-DP: T Gaussian steps on the clipped gradient sum, noise multiplier from dp_accounting's RDP "
            "accountant [Bassily, Smith & Thakurta 2014, Alg. 1; Abadi et al. 2016, Thm 1].",
        ),
    )

    def prepare(self, ds: Dataset, spec) -> GDState:
        from . import DPGDConfig

        cfg = DPGDConfig(**{k: v for k, v in spec.params if k in DPGDConfig.__dataclass_fields__})
        return GDState(prepare_gd_data(ds, test_fraction=spec.test_fraction, seed=spec.seed), cfg)

    def _runs(self, state: GDState, eps: float, delta: float, rngs, private: bool = True) -> np.ndarray:
        from . import noise_multiplier, run_gd

        d = state.data
        steps = state.cfg.n_steps(d.n, eps)
        z = noise_multiplier(float(eps), float(delta), steps) if private else 0.0
        return run_gd(d.task, d.X_train, d.y_train, state.cfg, steps, z, rngs, max(d.n_classes, 2))

    def block(self, state: GDState, point, seeds, spec) -> pd.DataFrame:
        eps = float(point["epsilon"])
        Theta = self._runs(state, eps, spec.delta, [np.random.default_rng(s) for s in seeds])
        base = self._runs(state, eps, spec.delta, [None], private=False)
        util, mae = held_out_metrics(state.data, Theta)
        excess = mean_loss(state.data, Theta) - mean_loss(state.data, base)[0]
        cols = {"method": "dp_gd", "trial": np.arange(len(seeds)), "utility": util, "excess_risk": excess}
        return pd.DataFrame(cols | ({"mae": mae} if state.data.task == "regression" else {}))

    def noise(self, state: GDState, epsilon: float, spec) -> list[dict]:
        from . import noise_multiplier

        steps = state.cfg.n_steps(state.data.n, epsilon)
        z = noise_multiplier(float(epsilon), float(spec.delta), steps)
        return [
            {"method": "dp_gd", "quantity": "steps T", "value": float(steps)},
            {"method": "dp_gd", "quantity": "noise multiplier z", "value": z},
            {"method": "dp_gd", "quantity": "noise std 2Cz on the clipped sum", "value": 2.0 * state.cfg.clip * z},
        ]

    def _nonprivate(self, state: GDState) -> tuple[float, float]:
        base = self._runs(state, 1e9, 1e-5, [None], private=False)  # the longest schedule, T = 100
        util, mae = held_out_metrics(state.data, base)
        return float(util[0]), float(mae[0])

    def nonprivate_utility(self, state: GDState) -> float:
        return self._nonprivate(state)[0]

    def nonprivate_mae(self, state: GDState) -> float:
        return self._nonprivate(state)[1]

    def notes(self, state: GDState) -> tuple[str, ...]:
        c = state.cfg
        rule = f"T = {c.steps}" if c.steps else "T = min(100, max(5, round(nε/20)))"
        return state.data.notes + (f"C = {c.clip:g}, η = {c.step:g}/(L + λ), λ = {c.l2:g}, {rule}.",)

    def leaks(self, state: GDState) -> tuple[str, ...]:
        return state.data.leaks


ADAPTER = register(DPGDAdapter())
