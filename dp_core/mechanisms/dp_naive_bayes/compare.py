"""DP naive Bayes in the comparison: test accuracy of the Laplace-noised Gaussian naive Bayes model.

Vaidya, Shafiq, Basu and Hong (2013), §4; the noise and budget split are in the package docstring.
``excess_risk`` is the non-private naive Bayes accuracy minus the private one (same split, same ranges).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dp_core import status as vocab
from dp_core.compare.registry import BlockAdapter, MethodInfo, register
from dp_core.data import public_bounds, split_indices

from . import (
    PLUGIN,
    NaiveBayesConfig,
    class_statistics,
    log_posteriors,
    model_from_statistics,
    noisy_statistics,
    scale_features,
)


@dataclass(frozen=True)
class NBState:
    stats: tuple
    Z_test: np.ndarray
    y_test: np.ndarray
    nonprivate: float
    notes: tuple[str, ...]
    leaks: tuple[str, ...]


def prepare_state(ds, *, test_fraction: float = 0.2, seed: int = 0, var_floor: float = 1e-3) -> NBState:
    """Split ``ds``, scale it by its public ranges, and keep the exact class statistics of the training rows."""
    if ds.task == "regression":
        raise ValueError("dp-naive-bayes classifies: the task must be binary or multiclass, got regression.")
    tr, te = split_indices(ds.n, test_fraction=test_fraction, seed=seed, min_train=5)
    b = public_bounds(ds)
    Z = scale_features(ds.X, b.lo, b.hi)
    classes, codes = np.unique(np.asarray(ds.y), return_inverse=True)
    stats = class_statistics(Z[tr], codes[tr], int(classes.size))
    exact = model_from_statistics(*stats, var_floor)
    acc = float(np.mean(np.argmax(log_posteriors(Z[te], *exact), axis=-1) == codes[te]))
    notes = (f"Train/test split {tr.size}/{te.size} (seeded).", f"Feature ranges: {b.source or 'declared'}.")
    leaks = (b.leak_warning,) if b.data_derived else ()
    return NBState(stats, Z[te], codes[te], acc, notes, leaks)


def accuracies(state: NBState, epsilon: float, cfg: NaiveBayesConfig, rng: np.random.Generator, size: int):
    """Test accuracy of ``size`` independent private models."""
    N, S, Q = noisy_statistics(state.stats, epsilon, cfg, rng, size=size)
    lp, mean, var = model_from_statistics(N, S, Q, cfg.var_floor)
    pred = np.argmax(log_posteriors(state.Z_test, lp, mean, var), axis=-1)
    return np.mean(pred == state.y_test, axis=-1)


class NaiveBayesAdapter(BlockAdapter):
    key = "dp_naive_bayes"
    title = "DP naive Bayes (Vaidya et al. 2013)"
    page = PLUGIN.page
    tasks = ("binary", "multiclass")
    summary = "Gaussian naive Bayes whose class counts, sums and squared sums carry Laplace noise."
    methods = (
        MethodInfo(
            "dp_naive_bayes",
            "DP naive Bayes (Laplace)",
            vocab.PROVED,
            "Pure ε-DP: Laplace mechanism on counts, sums and squared sums under public feature ranges, "
            "composed sequentially [Vaidya et al. 2013, §4].",
            pure=True,
            audit="dp-naive-bayes/standard",
        ),
    )

    def prepare(self, ds, spec):
        return prepare_state(ds, test_fraction=spec.test_fraction, seed=spec.seed)

    def block(self, state, point, seeds, spec):
        cfg, eps = NaiveBayesConfig(), float(point["epsilon"])
        acc = np.array([accuracies(state, eps, cfg, np.random.default_rng(s), 1)[0] for s in seeds])
        cols = {"method": "dp_naive_bayes", "trial": np.arange(len(seeds)), "utility": acc}
        return pd.DataFrame(cols | {"excess_risk": state.nonprivate - acc})

    def noise(self, state, epsilon, spec):
        names = ("count", "sum", "squared sum")
        scales = NaiveBayesConfig().scales(epsilon, state.stats[1].shape[1])
        rows = zip(names, scales)
        return [{"method": "dp_naive_bayes", "quantity": f"Laplace scale ({k})", "value": v} for k, v in rows]

    def nonprivate_utility(self, state):
        return state.nonprivate

    def notes(self, state):
        return state.notes

    def leaks(self, state):
        return state.leaks


ADAPTER = register(NaiveBayesAdapter())
