"""Compare adapter of input perturbation (Fukuchi, Tran, Sakuma 2017, Algorithms 1-2, Theorems 1-2) and its
Gaussian objective perturbation baseline (Kifer, Smith, Thakurta 2012, Theorem 2); least squares for regression,
the logistic Taylor surrogate for binary data, multiclass data not compared (docs/input_perturbation.md §"Compare").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ... import status as vocab
from ...compare.registry import BlockAdapter, CompareSpec, MethodInfo, register
from ...data import Dataset
from ...publication import NonPublicDiagnostics

__all__ = ["InputPerturbationAdapter"]


@dataclass(frozen=True, eq=False)
class _State(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the adapter's prepared state (the data, its statistics, the non-private fit)."""

    data: Any = field(repr=False)
    stats: Any = field(repr=False)
    model: str
    eta_ref: float
    np_utility: float
    cap_note: str
    np_mae: float = float("nan")
    w_hats: dict = field(default_factory=dict, repr=False)

    def eta(self, epsilon: float) -> float:
        """The parameter bound at ``epsilon`` (:func:`dp_core.preprocessing.default_eta`)."""
        from ...preprocessing import default_eta

        return default_eta(int(self.stats.d), float(epsilon))

    def J_hat(self, eta: float) -> tuple[np.ndarray, float]:
        """The non-private minimiser over ``||w|| <= eta`` and its risk (cached per eta)."""
        from ...mechanisms.input_perturbation.mechanism import nonprivate_theta
        from ...mechanisms.input_perturbation.model import empirical_risk

        if eta not in self.w_hats:
            w = nonprivate_theta(self.stats, eta)
            self.w_hats[eta] = (w, float(empirical_risk(self.stats, w)))
        return self.w_hats[eta]


def _scores(data, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Test utility (R², or accuracy) and mean absolute error in the target's units (``nan`` for classification)
    of each row of ``W``, from one product with the test rows."""
    W = np.atleast_2d(W)
    pred = data.X_test @ W.T
    if data.model != "least_squares":
        return np.mean(np.where(pred > 0, 1.0, -1.0) == data.y_test[:, None], axis=0), np.full(W.shape[0], np.nan)
    R = pred - data.y_test[:, None]
    var = float(np.var(data.y_test)) or 1.0
    return 1.0 - np.mean(R * R, axis=0) / var, data.label_scale * np.mean(np.abs(R), axis=0)


class InputPerturbationAdapter(BlockAdapter):
    key = "input_perturbation"
    title = "Input perturbation (Fukuchi et al. 2017)"
    page = "pages/input_perturbation.py"
    tasks = ("regression", "binary")
    trial_cap = 500
    summary = "Every contributor adds Gaussian noise to her own record; the server solves a ridge-like problem."
    methods = (
        MethodInfo(
            "input",
            "Input perturbation",
            vocab.AUDITED,
            "(ε, δ)-DP of the released w is claimed by the paper (Theorem 1); its proof relies on a "
            "regulariser that depends on the private data and on an event its Lemma 1 does not secure "
            "(docs/input_perturbation.md), so the project has not re-derived it. The stored audit found no "
            "violation: evidence, not a proof.",
            audit="input-perturbation/COR2",
        ),
        MethodInfo(
            "objective",
            "Objective perturbation (Gaussian, same setup)",
            vocab.PROVED,
            "(ε, δ)-DP: Gaussian objective perturbation [Kifer, Smith, Thakurta 2012, Thm 2] with the same "
            "ridge Δ and ball ‖w‖ ≤ η.",
        ),
    )

    def _model(self, ds: Dataset) -> str:
        return "least_squares" if ds.task == "regression" else "logistic_taylor"

    def prepare(self, ds: Dataset, spec: CompareSpec) -> Any:
        from ...preprocessing import eta_cap_note, reference_eta
        from .experiment import prepare_data
        from .mechanism import logistic_nonprivate_fit, nonprivate_theta
        from .model import sufficient_stats

        model = self._model(ds)
        data = prepare_data(ds, model, test_fraction=spec.test_fraction, seed=spec.seed, preprocess=spec.preprocess)
        st = sufficient_stats(data.X_train, data.y_train, model)
        eta_ref = reference_eta(st.d)
        ref = (
            nonprivate_theta(st, eta_ref)
            if model == "least_squares"
            else logistic_nonprivate_fit(data.X_train, data.y_train, eta_ref)
        )
        util, mae = _scores(data, ref)
        cap_note = eta_cap_note(float(np.linalg.norm(ref)), eta_ref)
        return _State(data, st, model, eta_ref, float(util[0]), cap_note, np_mae=float(mae[0]))

    def _params(self, state: _State, epsilon: float, delta: float, n: int | None = None):
        """The public parameters at ``epsilon`` over ``n`` rows (default: the data's)."""
        from .experiment import SimulationConfig

        cfg = SimulationConfig(epsilon=epsilon, delta=delta, model=state.model, eta=state.eta(epsilon))
        return cfg.params(state.stats.n if n is None else n, state.stats.d)

    def block(
        self, state: Any, point: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence], spec: CompareSpec
    ) -> pd.DataFrame:
        from ...rng import child_seed
        from .mechanism import input_perturbation_thetas, objective_perturbation_thetas
        from .model import empirical_risk

        p = self._params(state, float(point["epsilon"]), spec.delta)
        J_hat = state.J_hat(p.eta)[1]
        W_in = input_perturbation_thetas(state.stats, p, rng=[child_seed(s, 0) for s in seeds])
        W_obj = objective_perturbation_thetas(state.stats, p, rng=[child_seed(s, 1) for s in seeds])
        frames = []
        for meth, W in (("input", W_in), ("objective", W_obj)):
            util, mae = _scores(state.data, W)
            excess = np.maximum(empirical_risk(state.stats, W) - J_hat, 0.0)
            cols = {"method": meth, "trial": np.arange(len(seeds)), "utility": util, "excess_risk": excess}
            frames.append(pd.DataFrame(cols | {"mae": mae}))
        return pd.concat(frames, ignore_index=True)

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        from .bounds import objective_gauss_bound, theorem2_terms

        rows = []
        for e in epsilons:
            try:
                p = self._params(state, float(e), spec.delta)
            except ValueError:
                continue
            rows.append(("input", float(e), theorem2_terms(p).total, "Theorem 2 bound (as claimed)"))
            rows.append(("objective", float(e), objective_gauss_bound(p), "Theorem-2 analogue (derived)"))
        return pd.DataFrame(rows, columns=["method", "epsilon", "bound", "label"])

    def bound_at(self, state: Any, method: str, *, epsilon: float, n: float, spec: CompareSpec) -> float:
        from .bounds import objective_gauss_bound, theorem2_terms

        if method not in ("input", "objective"):
            return float("nan")
        try:
            p = self._params(state, epsilon, spec.delta, n=int(math.ceil(n)))
        except ValueError:  # n at or below the minimum of the calibration: no bound
            return float("inf")
        return theorem2_terms(p).total if method == "input" else objective_gauss_bound(p)

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        from .mechanism import objective_sigma

        p = self._params(state, epsilon, spec.delta)
        return [
            {"method": "input", "quantity": "σ_b (aggregate linear-term noise)", "value": p.sigma_b},
            {"method": "input", "quantity": "σ_u (quadratic-term noise)", "value": p.sigma_u},
            {"method": "input", "quantity": "Δ (total ridge)", "value": p.Delta},
            {"method": "objective", "quantity": "σ of the objective's linear noise", "value": objective_sigma(p)},
        ]

    def nonprivate_utility(self, state: Any) -> float:
        return state.np_utility

    def nonprivate_mae(self, state: Any) -> float:
        return state.np_mae

    def notes(self, state: Any) -> tuple[str, ...]:
        ball = (
            f"Model: {state.model}; parameter ball ‖w‖ ≤ η with η = max(1, √d·min(1, ε/10)) "
            f"(d = {state.stats.d}); the non-private reference uses η = {state.eta_ref:.3g}."
        )
        return (*state.data.notes, ball, *((state.cap_note,) if state.cap_note else ()))

    def leaks(self, state: Any) -> tuple[str, ...]:
        return tuple(state.data.leaks)


ADAPTER = register(InputPerturbationAdapter())
