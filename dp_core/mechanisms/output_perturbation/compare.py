"""Adapter of the textbook baseline: output perturbation of a ridge / logistic fit.

References
----------
K. Chaudhuri, C. Monteleoni, A. D. Sarwate, *Differentially Private Empirical Risk Minimization*,
JMLR 2011, Algorithm 1 and Corollary 8; B. Balle and Y.-X. Wang, ICML 2018, Theorem 8.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ... import status as vocab
from ...compare.registry import BlockAdapter, CompareSpec, MethodInfo, register
from ...data import Dataset
from .baselines import (
    fit_output_model,
    output_expected_excess,
    output_expected_excess_at_n,
    output_noise_scale,
    output_perturbation_trials,
    prepare_compare_data,
)

__all__ = ["OutputPerturbationAdapter"]

_FAMILY = {"output_gaussian": "gaussian", "output_laplace": "laplace"}


class OutputPerturbationAdapter(BlockAdapter):
    key = "output_perturbation"
    title = "Output perturbation (textbook baseline)"
    page = ""
    tasks = ("regression", "binary", "multiclass")
    trial_cap = 1000
    summary = (
        "Fit ridge (regression) or L2-regularised logistic regression (classification), then add noise "
        "calibrated to the fit's sensitivity 2L/(n·λ)."
    )
    methods = (
        MethodInfo(
            "output_gaussian",
            "Output perturbation (Gaussian)",
            vocab.PROVED,
            "(ε, δ)-DP: Gaussian noise with the analytic σ for the fit's L2 sensitivity "
            "[Chaudhuri et al. 2011, Cor. 8; Balle & Wang 2018, Thm 8].",
        ),
        MethodInfo(
            "output_laplace",
            "Output perturbation (Laplace-norm)",
            vocab.PROVED,
            "Pure ε-DP: noise with density ∝ exp(−ε‖b‖/Δ) [Chaudhuri et al. 2011, Alg. 1].",
            pure=True,
        ),
    )

    def prepare(self, ds: Dataset, spec: CompareSpec) -> Any:
        data = prepare_compare_data(ds, test_fraction=spec.test_fraction, seed=spec.seed)
        return fit_output_model(data)

    def block(
        self, state: Any, point: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence], spec: CompareSpec
    ) -> pd.DataFrame:
        eps = float(point["epsilon"])
        frames = []
        for meth, fam in _FAMILY.items():
            out = output_perturbation_trials(state, epsilons=[eps], delta=spec.delta, family=fam, seeds=seeds)
            cols = {"method": meth, "trial": np.arange(len(seeds))}
            frames.append(pd.DataFrame(cols | {k: out[k][0] for k in ("utility", "excess_risk", "mae")}))
        return pd.concat(frames, ignore_index=True)

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        exact = state.task == "regression"
        label = "expected excess (exact)" if exact else "expected excess bound (smoothness)"
        rows = [
            {
                "method": meth,
                "epsilon": float(e),
                "bound": output_expected_excess(state, epsilon=float(e), delta=spec.delta, family=fam),
                "label": label,
            }
            for meth, fam in _FAMILY.items()
            for e in epsilons
        ]
        return pd.DataFrame(rows)

    def bound_at(self, state: Any, method: str, *, epsilon: float, n: float, spec: CompareSpec) -> float:
        if method not in _FAMILY:
            return float("nan")
        return output_expected_excess_at_n(state, epsilon=epsilon, delta=spec.delta, family=_FAMILY[method], n=n)

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        sigma = output_noise_scale(state, epsilon=epsilon, delta=spec.delta, family="gaussian")
        scale = output_noise_scale(state, epsilon=epsilon, delta=spec.delta, family="laplace")
        return [
            {"method": "output_gaussian", "quantity": "σ per coordinate", "value": sigma},
            {"method": "output_laplace", "quantity": "Δ/ε (norm ~ Gamma(D, Δ/ε))", "value": scale},
            {"method": "output_gaussian", "quantity": "L2 sensitivity Δ = 2L/(nλ)", "value": state.sensitivity},
        ]

    def nonprivate_utility(self, state: Any) -> float:
        return float(state.utility(state.theta[None, :])[0])

    def nonprivate_mae(self, state: Any) -> float:
        return float(state.mae(state.theta[None, :])[0])

    def notes(self, state: Any) -> tuple[str, ...]:
        model = "ridge regression" if state.task == "regression" else "multinomial logistic regression"
        return state.data.notes + (f"Model: {model}, λ = {state.lam:.3g} (1/√n), {state.n_params} parameters.",)

    def leaks(self, state: Any) -> tuple[str, ...]:
        return state.data.leaks


ADAPTER = register(OutputPerturbationAdapter())
