"""Adapter of the exponential mechanism on a truncated l1 risk for heavy-tailed regression (EM-L1-HT, Wang & Xu) through
:mod:`dp_core.mechanisms.l1_exponential`. Wang & Xu, Algorithms 1-2, Theorems 1-2; docs/l1_exponential.md
§"Sensitivity and temperatures", docs/l1_exponential.md §"Moments and the explicit bound" and the mandatory privacy
labelling of MCMC mode (docs/l1_exponential.md §"Samplers"). See docs/l1_exponential.md §"compare (module)"."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ... import status as vocab
from ...compare.registry import Adapter, CompareSpec, MethodInfo, register
from ...data import Dataset, split_indices
from ...exceptions import DataValidationError
from ...execution import current_executor
from ...publication import NonPublicDiagnostics
from ...rng import as_generator, as_seed_sequence

__all__ = ["L1ExponentialAdapter"]


@dataclass(eq=False)
class _State(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the adapter's prepared state: the data and the non-private LAD fit."""

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    lad_w: np.ndarray = field(repr=False)
    lad_objective: float
    mode: str
    notes: tuple
    leaks: tuple
    sampler_runs: dict = field(default_factory=dict)
    label_scale: float = 1.0  # a prepared label difference times this is one in the target's units


class L1ExponentialAdapter(Adapter):
    key = "l1_exponential"
    title = "Exponential mechanism, truncated l1 (Wang & Xu)"
    page = "pages/l1_exponential.py"
    tasks = ("regression",)
    trial_cap = 10
    summary = "Samples w with probability ∝ exp(−κ·S(w)), S a Catoni-type truncated l1 risk; no clipping."
    radius = 1.0

    #: MCMC schedule of the comparison (d > 3): ``quick`` (200 + 400 steps, at least 16 chains) costs
    #: about 2-4 s per ε on randhie (n = 16,152, d = 9); set ``mcmc_schedule`` for an explicit one.
    mcmc_preset = "quick"
    mcmc_schedule = None

    #: MCMC mode: up to this many ε run side by side as one chain ensemble (``em_mcmc_sweep``: each ε
    #: keeps its own chains, adaptation and diagnostics; one cost evaluation per step serves them all),
    #: one block of the executor per group of ε (progress and cancellation between blocks).
    mcmc_batch = 4

    def _methods(self, mode: str, runs: dict | None = None) -> tuple[MethodInfo, ...]:
        info = partial(MethodInfo, "em_l1", pure=True, audit="l1-exponential/tight")
        if mode == "grid":
            return (
                info(
                    "EM on truncated l1 (exact grid)",
                    vocab.PROVED,
                    "Pure ε-DP: exact exponential mechanism on a grid net, with the exact sensitivity of "
                    "the truncated score (replace-one and add/remove neighbours).",
                ),
            )
        from ... import display
        from .mcmc import ESS_MIN, NOT_CONVERGED_ADVICE, NOT_CONVERGED_MESSAGE, RHAT_THRESHOLD

        runs = runs or {}
        thresholds = f"thresholds R̂ ≤ {display.number(RHAT_THRESHOLD)} and bulk ESS ≥ {display.integer(ESS_MIN)}"
        bad = sorted(e for e, r in runs.items() if r["status"] != "converged")
        if bad:
            worst_r = max((runs[e]["rhat_max"] for e in bad), key=lambda v: -1.0 if math.isnan(v) else v)
            worst_e = min(runs[e]["ess_min"] for e in bad)
            text = (
                f"{NOT_CONVERGED_MESSAGE} at ε = {', '.join(display.epsilon(e) for e in bad)} "
                f"(largest rank-normalised R̂ {display.number(worst_r, sig=4)}, smallest bulk ESS "
                f"{display.integer(worst_e)}; {thresholds}): those releases are not samples of the ε-DP "
                "distribution and carry no privacy guarantee. " + NOT_CONVERGED_ADVICE
            )
            return (info("EM on truncated l1 (MCMC)", vocab.NO_CLAIM, text),)
        conv = ""
        if runs:
            conv = (
                " The chains converged by their diagnostics at every ε (largest rank-normalised R̂ "
                f"{display.number(max(r['rhat_max'] for r in runs.values()), sig=4)}, smallest bulk ESS "
                f"{display.integer(min(r['ess_min'] for r in runs.values()))}; {thresholds}); the guarantee is "
                "conditional on the chains having reached the target distribution."
            )
        text = (
            "ε-DP for the idealised exact sampler only; this MCMC approximation (with data-driven "
            "step-size adaptation) is not proved." + conv
        )
        return (info("EM on truncated l1 (MCMC)", vocab.CLAIMED, text),)

    @property
    def methods(self) -> tuple[MethodInfo, ...]:  # type: ignore[override]
        return self._methods("grid") + self._methods("mcmc")

    def prepare(self, ds: Dataset, spec: CompareSpec) -> Any:
        from .lad import lad_fit

        n = ds.n
        n_test = max(1, int(round(spec.test_fraction * n)))
        if n - n_test < 10:
            raise DataValidationError(f"dataset {ds.name!r} has only {n} rows; at least {n_test + 10} are needed.")
        tr, te = split_indices(n, test_fraction=spec.test_fraction, seed=spec.seed)
        X = np.asarray(ds.X, dtype=float)
        y = np.asarray(ds.y, dtype=float)
        notes, leaks = [f"Train/test split {n - n_test}/{n_test} (seeded)."], []
        label_scale = 1.0
        if ds.name == "heavy_tailed":
            notes.append("Heavy-tailed synthetic data used as generated: the mechanism needs no clipping.")
        else:
            mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
            sd = np.where(sd > 0, sd, 1.0)
            X = (X - mu) / sd / math.sqrt(X.shape[1])
            ymed = float(np.median(y[tr]))
            ys = float(np.median(np.abs(y[tr] - ymed))) or 1.0
            y = (y - ymed) / ys
            label_scale = ys
            notes.append(
                "Columns standardised and divided by sqrt(d); labels centred by their median and divided "
                "by their median absolute deviation (no clipping)."
            )
            leaks.append(
                "The standardisation and the label centring/scale were taken from the training data "
                "(data-dependent; the guarantee does not cover this step)."
            )
        lad = lad_fit(X[tr], y[tr], self.radius)
        mode = "grid" if X.shape[1] <= 3 else "mcmc"
        notes.append(f"Parameter ball ‖w‖ ≤ {self.radius:g}; sampler: {mode} (d = {X.shape[1]}).")
        data = dict(X=X[tr], y=y[tr], X_test=X[te], y_test=y[te], lad_w=lad.w, lad_objective=float(lad.objective))
        return _State(mode=mode, notes=tuple(notes), leaks=tuple(leaks), label_scale=float(label_scale), **data)

    def _estimator(self, epsilon: float):
        from .grid import BUDGET_INTERACTIVE
        from .mechanism import L1ExponentialRegression

        return L1ExponentialRegression(
            epsilon=float(epsilon),
            radius=self.radius,
            mcmc_preset=self.mcmc_preset,
            mcmc_schedule=self.mcmc_schedule,
            grid_budget=max(1000, BUDGET_INTERACTIVE // 4),
        )

    @staticmethod
    def _residuals(state: _State, W: np.ndarray) -> np.ndarray:
        return state.X_test @ np.atleast_2d(W).T - state.y_test[:, None]

    def _utility(self, state: _State, W: np.ndarray) -> np.ndarray:
        R = self._residuals(state, W)
        var = float(np.var(state.y_test)) or 1.0
        return 1.0 - np.mean(R * R, axis=0) / var

    def _mae(self, state: _State, W: np.ndarray) -> np.ndarray:
        """Test mean absolute error of each row of ``W`` in the target's units."""
        return state.label_scale * np.mean(np.abs(self._residuals(state, W)), axis=0)

    def _epsilon_block(
        self, state: _State, T: int, job: tuple, drawn: tuple | None = None
    ) -> tuple[pd.DataFrame, dict | None]:
        """The ``T`` draws at one epsilon (one block of the executor) and the sampler's diagnostics.
        See docs/l1_exponential.md §"compare.L1ExponentialAdapter._epsilon_block"."""
        from .lad import l1_risk

        e, seed = job
        if drawn is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                fit, diag = self._estimator(e).run(
                    state.X, state.y, rng=as_generator(seed), n_draws=T, diagnostics=True
                )
            W, mcmc = fit.draws[:T], (diag.mcmc.as_dict() if diag.mcmc is not None else None)
        else:
            W, mcmc = drawn
        excess = np.atleast_1d(l1_risk(W, state.X, state.y)) - state.lad_objective
        utility, mae = self._utility(state, W), self._mae(state, W)
        columns = {"method": "em_l1", "epsilon": float(e), "trial": np.arange(W.shape[0]), "utility": utility}
        return pd.DataFrame(columns | {"excess_risk": np.maximum(excess, 0.0), "mae": mae}), mcmc

    def _mcmc_block(self, state: _State, T: int, job: tuple) -> list[tuple[pd.DataFrame, dict | None]]:
        """The draws at a group of epsilons, sampled side by side (``em_mcmc_sweep``), one frame each.
        See docs/l1_exponential.md §"compare.L1ExponentialAdapter._mcmc_block"."""
        from .mcmc import MIN_CHAINS, em_mcmc_sweep

        eps, seed = job
        n, d = state.X.shape
        ests = [self._estimator(e) for e in eps]
        est = ests[0]
        iotas = [x.calibrate(n, d).iota for x in ests]
        sampler = dict(theta=est.theta, radius=est.radius, convention=est.convention, schedule=est.schedule())
        sampler.update(n_draws=max(MIN_CHAINS, T), rng=as_generator(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            runs = em_mcmc_sweep(state.X, state.y, epsilons=eps, iotas=iotas, **sampler)
        return [
            self._epsilon_block(state, T, (e, None), drawn=(r.draws[:T], r.diagnostics.as_dict()))
            for e, r in zip(eps, runs)
        ]

    def sweep(self, state: Any, spec: CompareSpec, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        T = self.n_trials(spec)
        frames = []
        eps = list(spec.epsilons)
        seeds = as_seed_sequence(spec.seed).spawn(len(eps))
        if state.mode == "mcmc":
            # groups of up to mcmc_batch epsilons, each group one block (seeded by its first epsilon's seed)
            b = max(1, int(self.mcmc_batch))
            jobs = [(tuple(eps[i : i + b]), seeds[i]) for i in range(0, len(eps), b)]
            blocks = current_executor().map(partial(self._mcmc_block, state, T), jobs)
        else:
            # one block per epsilon on the current executor (dp_core.execution), joined in order
            jobs = list(zip(eps, seeds))
            blocks = ([pair] for pair in current_executor().map(partial(self._epsilon_block, state, T), jobs))
        i = 0
        for block in blocks:
            for frame, mcmc in block:
                if mcmc is not None:
                    state.sampler_runs[float(eps[i])] = mcmc
                frames.append(frame)
                i += 1
            if progress is not None:
                progress(i * T, len(eps) * T)
        out = pd.concat(frames, ignore_index=True)
        out["adapter"] = self.key
        return out

    def _bound_total(self, epsilon: float, n: int, d: int):
        """The calibration at ``(epsilon, n, d)`` and its explicit bound's total (None when it has none)."""
        cal = self._estimator(float(epsilon)).calibrate(n, d)
        return cal, cal.bound.get("total") if isinstance(cal.bound, dict) else None

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        rows = []
        n, d = state.X.shape
        for e in epsilons:
            cal, total = self._bound_total(e, n, d)
            if total is not None and math.isfinite(float(total)):
                label = f"explicit bound U(ι) on the population excess l1 risk under {cal.bound_assumption} with τ = 1 "
                label += f"(probability ≥ 1 − {5 * cal.eta:g})"
                rows.append({"method": "em_l1", "epsilon": float(e), "bound": float(total), "label": label})
        return pd.DataFrame(rows, columns=["method", "epsilon", "bound", "label"])

    def bound_at(self, state: Any, method: str, *, epsilon: float, n: float, spec: CompareSpec) -> float:
        if method != "em_l1":
            return float("nan")
        total = self._bound_total(epsilon, int(math.ceil(n)), state.X.shape[1])[1]
        return float("nan") if total is None else float(total)

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        n, d = state.X.shape
        cal = self._estimator(float(epsilon)).calibrate(n, d)
        return [
            {"method": "em_l1", "quantity": "inverse temperature β = κ·n·ι", "value": cal.beta},
            {"method": "em_l1", "quantity": "truncation scale ι", "value": cal.iota},
        ]

    def statuses(self, state: Any, spec: CompareSpec) -> list[MethodInfo]:
        return list(self._methods(state.mode, state.sampler_runs))

    def method_details(self, state: Any, method: str) -> dict:
        """Sampler fields of the comparison row: ``sampler_status`` (exact / converged / not_converged)
        and the per-ε MCMC diagnostics."""
        if state.mode == "grid":
            return {"sampler_status": "exact", "sampler_diagnostics": []}
        runs = state.sampler_runs
        status = "converged" if runs else "not_run"
        if any(r["status"] != "converged" for r in runs.values()):
            status = "not_converged"
        keys = ("status", "rhat_max", "ess_min", "acceptance", "n_chains", "n_adapt", "n_sample", "rhat_kind")
        diags = [{"epsilon": e, **{k: r[k] for k in keys}} for e, r in sorted(runs.items())]
        return {"sampler_status": status, "sampler_diagnostics": diags}

    def nonprivate_utility(self, state: Any) -> float:
        return float(self._utility(state, state.lad_w)[0])

    def nonprivate_mae(self, state: Any) -> float:
        return float(self._mae(state, state.lad_w)[0])

    def notes(self, state: Any) -> tuple[str, ...]:
        return state.notes + ("Non-private reference: least absolute deviations on the same ball.",)

    def leaks(self, state: Any) -> tuple[str, ...]:
        return state.leaks


ADAPTER = register(L1ExponentialAdapter())
