"""Adapter of label-DP by random weighted aggregation (Brahmbhatt et al.) through
:mod:`dp_core.mechanisms.label_dp_bags` and :mod:`dp_core.mechanisms.label_dp_bags.bounds`.
Details: docs/label_dp_bags.md §"compare (module)" ([BSHNR], Theorems 1.2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ... import display
from ... import status as vocab
from ...compare.registry import BlockAdapter, CompareSpec, MethodInfo, register
from ...data import Dataset
from ...publication import NonPublicDiagnostics

__all__ = ["LabelDPAdapter"]

_BASELINES = ("gaussian_label", "laplace_label")
_PREDICTED = "predicted excess (random design)"


@dataclass(eq=False)
class _State(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the adapter's prepared state: the prepared data and the non-private optimum."""

    data: Any = field(repr=False)
    opt: dict = field(repr=False)
    var_test: float
    llp_epsilon: float | None = None
    llp_reason: str = ""
    k: int = 0
    m: int = 0
    km_note: str = ""
    auto: bool = False


class LabelDPAdapter(BlockAdapter):
    key = "label_dp_bags"
    title = "Label-DP by aggregation (Brahmbhatt et al.)"
    page = "pages/label_dp_bags.py"
    tasks = ("regression",)
    trial_cap = 200
    summary = "Labels are released only as weighted sums over random bags of size k; features are public."
    methods = (
        MethodInfo(
            "gaussian_label",
            "Gaussian label noise + OLS",
            vocab.PROVED,
            "(ε, δ)-label-DP: Gaussian noise with the analytic σ for sensitivity 2·B1 on every label "
            "[Balle & Wang 2018, Thm 8].",
            label_dp=True,
        ),
        MethodInfo(
            "laplace_label",
            "Laplace label noise + OLS",
            vocab.PROVED,
            "Pure ε-label-DP: Laplace noise of scale 2·B1/ε on every label [Dwork & Roth 2014, Thm 3.6].",
            pure=True,
            label_dp=True,
        ),
        MethodInfo(
            "noisy_wtd_llp",
            "Noisy weighted LLP (k, m, ρ)",
            vocab.PROVED,
            "(ε, δ)-label-DP at the ε its exact privacy profile gives for δ (beyond the paper: "
            "docs/label_dp_bags.md); the paper's own accounting (Theorem 1.3) needs far larger bags.",
            label_dp=True,
            audit="label-dp-bags/noisy-wtd-llp",
        ),
        MethodInfo(
            "wtd_lba",
            "Weighted LBA (k, m)",
            vocab.AUDITED,
            "Label-DP is claimed by the paper (Theorem 1.2). Its proof uses Lemma 2.3, which is false as "
            "printed; the corrected accounting needs k of order 1e11, so nothing is proved at a "
            "feasible k. The stored audit found no violation: evidence, not a proof.",
            label_dp=True,
            audit="label-dp-bags/wtd-lba",
        ),
    )

    def prepare(self, ds: Dataset, spec: CompareSpec) -> Any:
        from . import prepare_dataset

        data = prepare_dataset(ds, test_fraction=spec.test_fraction, seed=spec.seed)
        st = _State(data=data, opt=data.optimum(), var_test=float(np.var(data.y_test)) or 1.0)
        if int(spec.k) == 0 or int(spec.m) == 0:
            self._auto_setting(st, spec)
        else:
            st.k, st.m, st.km_note = self._bag_setting(data, spec)
            st.llp_epsilon, st.llp_reason = self._llp_epsilon(st, spec)
        return st

    def _auto_setting(self, st: _State, spec: CompareSpec) -> None:
        """k and m from the data size (k = 0 or m = 0 in the spec): the smallest accounted ε at δ."""
        from ...mechanisms.label_dp_bags.defaults import auto_bag_setting

        data = st.data
        st.auto = True
        if spec.rho <= 0:
            st.k, st.m = max(1, int(data.n) // max(1, int(data.d))), max(1, min(int(data.d), int(data.n)))
            st.llp_epsilon, st.llp_reason = None, "ρ = 0 is not label-DP at any k and m; raise ρ."
            return
        from ...mechanisms.label_dp_bags.defaults import N_AUTO_MAX

        n = int(data.n)
        a = auto_bag_setting(
            min(n, N_AUTO_MAX), d=int(data.d), delta=float(spec.delta), rho=float(spec.rho), b1=data.b1
        )
        # a bag setting the baselines' runs accept even when none gives a guarantee (they do not use it)
        st.m = max(1, min(a.m, n))
        st.k = max(1, a.k, n // st.m)
        st.llp_epsilon = a.epsilon
        st.llp_reason = "" if a.epsilon is not None else a.message
        st.km_note = a.message if a.epsilon is not None else ""
        if n > N_AUTO_MAX:  # more rows than the search takes: the same bags, accounted on all n rows
            st.k = N_AUTO_MAX // st.m
            st.llp_epsilon, reason = self._llp_epsilon(st, spec)
            st.llp_reason = reason if st.llp_epsilon is None else ""
            st.km_note = (
                f"k = {st.k:,}, m = {st.m:,} from the data size (the setting found for {N_AUTO_MAX:,} rows)."
                if st.llp_epsilon is not None
                else ""
            )

    @staticmethod
    def _bag_setting(data: Any, spec: CompareSpec) -> tuple[int, int, str]:
        """The (k, m) compared.
        Details: docs/label_dp_bags.md §"compare.LabelDPAdapter._bag_setting".
        """
        from ...mechanisms.label_dp_bags.defaults import suggest_bag_params

        k, m, n = int(spec.k), int(spec.m), int(data.n)
        if m * k <= n or spec.rho <= 0:
            return k, m, ""
        s = suggest_bag_params(
            n,
            epsilon=max(spec.epsilons),
            d=int(data.d),
            rho=float(spec.rho),
            b1=float(data.b1),
            target_delta=float(spec.delta),
            explain=False,
        )
        if s.k == 0:
            return k, m, ""
        return (
            s.k,
            s.m,
            f"k = {k:,}, m = {m:,} need {m * k:,} rows but the training part has {n:,}: compared at the suggested "
            f"k = {s.k:,}, m = {s.m:,} instead.",
        )

    def _llp_epsilon(self, st: _State, spec: CompareSpec) -> tuple[float | None, str]:
        from .bounds import llp_exact_min_eps

        n, k, m = st.data.n, st.k, st.m
        if m * k > n:
            return None, f"m·k = {m * k:,} exceeds the {n:,} training rows."
        e = llp_exact_min_eps(spec.delta, n, k, m, float(spec.rho), st.data.b1)
        if e is None:
            return None, (
                f"no ε reaches δ = {display.delta(spec.delta)} at k = {k:,}, m = {m:,}, "
                f"ρ = {display.number(spec.rho)} "
                "(a bag with no noisy label is too likely); raise k or ρ."
            )
        return float(e), ""

    def points(self, state: Any, spec: CompareSpec) -> list[dict]:
        pts = [{"epsilon": float(e), "kind": "baselines"} for e in spec.epsilons]
        if state.llp_epsilon is not None:
            pts.append({"epsilon": state.llp_epsilon, "kind": "bags"})
        return pts

    def _utility(self, state: _State, test_mse: np.ndarray) -> np.ndarray:
        return 1.0 - np.asarray(test_mse, dtype=float) / state.var_test

    def block(
        self, state: Any, point: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence], spec: CompareSpec
    ) -> pd.DataFrame:
        from . import utility_trials

        kw = dict(m=state.m, k=state.k, rho=float(spec.rho), seeds=list(seeds), _opt=state.opt)
        if point["kind"] == "bags":
            df = utility_trials(state.data, methods=["noisy_wtd_llp"], **kw)
        else:
            eps = float(point["epsilon"])
            df = utility_trials(state.data, epsilon=eps, delta=spec.delta, methods=list(_BASELINES), **kw)
        return pd.DataFrame(
            {
                "method": df["method"].to_numpy(),
                "trial": df["trial"].to_numpy(),
                "utility": self._utility(state, df["test_mse"].to_numpy()),
                "excess_risk": df["excess_risk"].to_numpy(dtype=float),
                "mae": state.data.mae_unit * df["test_mae"].to_numpy(dtype=float),
            }
        )

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        from .bounds import baseline_calibration, predicted_ratio_label_noise

        g = state.opt["gamma_hat"]
        rows = []
        for e in epsilons:
            cal = baseline_calibration(float(e), spec.delta, state.data.b1)
            for meth in _BASELINES:
                var = cal[meth.replace("_label", "_added_variance")]
                ratio = predicted_ratio_label_noise(state.data.n, state.data.d, var, g)
                rows.append(dict(method=meth, epsilon=float(e), bound=g * (ratio - 1.0), label=_PREDICTED))
        return pd.DataFrame(rows, columns=["method", "epsilon", "bound", "label"])

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        from .bounds import baseline_calibration

        cal = baseline_calibration(float(epsilon), spec.delta, state.data.b1)
        rows = [
            {"method": "gaussian_label", "quantity": "σ per label", "value": cal["gaussian_sigma"]},
            {"method": "laplace_label", "quantity": "Laplace scale per label", "value": cal["laplace_scale"]},
            {
                "method": "noisy_wtd_llp",
                "quantity": f"N(0, 1) on ρ = {spec.rho:g} of the labels; accounted ε at δ = {spec.delta:g}"
                + (
                    f" (k = {display.integer(state.k)}, m = {display.integer(state.m)} from the data size)"
                    if state.auto and state.llp_epsilon is not None
                    else ""
                ),
                "value": math.inf if state.llp_epsilon is None else state.llp_epsilon,
            },
        ]
        return rows

    def statuses(self, state: Any, spec: CompareSpec) -> list[MethodInfo]:
        out = []
        for mi in self.methods:
            if mi.key == "noisy_wtd_llp" and state.llp_epsilon is None:
                why = state.llp_reason if state.auto else f"No guarantee at these settings: {state.llp_reason}"
                mi = replace(mi, status=vocab.NO_CLAIM, statement=why, audit="")
            elif mi.key == "noisy_wtd_llp":
                eps, auto = display.epsilon(state.llp_epsilon), " from the data size" if state.auto else ""
                bags = f"k = {display.integer(state.k)}, m = {display.integer(state.m)}{auto}"
                label = f"Noisy weighted LLP ({bags}, ρ = {display.number(spec.rho)})" if state.auto else mi.label
                mi = replace(
                    mi,
                    label=f"{label} at ε = {eps}",
                    statement=f"({eps}, {display.delta(spec.delta)})-label-DP at {bags}, "
                    f"ρ = {display.number(spec.rho)} by the exact privacy profile (beyond the paper: "
                    "docs/label_dp_bags.md); measured at that ε only.",
                )
            out.append(mi)
        return out

    def nonprivate_utility(self, state: Any) -> float:
        o = state.opt
        r = o["r_star"]
        mse = o["test_yy"] - 2.0 * r @ o["test_c"] + r @ o["test_G"] @ r
        return float(1.0 - max(mse, 0.0) / state.var_test)

    def nonprivate_mae(self, state: Any) -> float:
        """Test MAE of the non-private OLS fit in the label's units."""
        d = state.data
        return float(d.mae_unit * np.mean(np.abs(d.X_test @ state.opt["r_star"] - d.y_test)))

    def notes(self, state: Any) -> tuple[str, ...]:
        return (
            tuple(state.data.notes)
            + (
                "Utility is test R² on the [-B1, B1] label scale; features are public (label-DP protects the labels "
                "only).",
            )
            + ((state.km_note,) if state.km_note else ())
        )

    def leaks(self, state: Any) -> tuple[str, ...]:
        if state.data.label_range_from_data:
            return (
                f"The label range [{state.data.label_lo:.4g}, {state.data.label_hi:.4g}] was taken from the data; "
                "declare a public range (the guarantee does not cover this step).",
            )
        return ()

    def negotiate_k(self, state: Any, *, epsilon: float, delta: float, spec: CompareSpec) -> list[dict]:
        """Smallest bag size k giving (epsilon, delta) at the current m and rho.

        Exact profile (noisy weighted LLP): :func:`_exact_min_k`; paper-corrected accounting: :func:`min_k`.
        """
        from .bounds import min_k

        n, m, rho, b1 = state.data.n, state.m, float(spec.rho), state.data.b1
        kmax = n // m
        if delta <= 0 or delta >= 1:
            return []

        def row(method, rho_, k, feasible, note):
            return dict(method=method, epsilon=epsilon, delta=delta, m=m, rho=rho_, k=k, feasible=feasible, note=note)

        found = _exact_min_k(epsilon, delta, n, m, rho, b1)
        out = [
            row(
                "Noisy weighted LLP (exact profile)",
                rho,
                found,
                found is not None,
                f"smallest k ≤ n/m = {kmax:,} with δ(ε) ≤ {display.delta(delta)}; with m fixed a larger k is more "
                "private and uses more rows (m·k)"
                if found is not None
                else f"no k ≤ n/m = {kmax:,} reaches it at m = {m}; lower m or raise ρ or ε",
            )
        ]
        label = "Noisy weighted LLP (paper, corrected)"
        if rho <= 0:  # rho = 0: weighted LLP without noise, not label-DP for any k
            out.append(row(label, rho, None, False, "ρ = 0 is not label-DP at any k; raise ρ"))
        else:
            kk = min_k(delta, epsilon, "noisy-wtd-llp", m=m, b1=b1, rho=rho)
            out.append(row(label, rho, kk, kk is not None and kk * m <= n, _k_note(kk, m, n)))
        label, params = "Weighted LBA (paper, corrected)", _lba_constants(state.data, b1)
        if not (params["gamma"] > 0 and params["lam"] > 0):
            out.append(row(label, None, None, False, "the data conditions of Theorem 1.2 do not hold"))
        else:
            kk = min_k(delta, epsilon, "wtd-lba", m=m, b1=b1, **params)
            out.append(row(label, None, kk, kk is not None and kk * m <= n, _k_note(kk, m, n)))
        return out


def _k_note(kk, m: int, n: int) -> str:
    return "needs m·k ≤ n" if kk is not None and kk * m > n else "explicit accounting"


def _exact_min_k(epsilon: float, delta: float, n: int, m: int, rho: float, b1: float) -> int | None:
    """Smallest k <= n/m whose exact delta(epsilon) of noisy weighted LLP is <= delta: a geometric grid of k,
    then every integer below its first success; ``None`` when none reaches it."""
    from .bounds import llp_exact_delta

    kmax = n // m
    if kmax < 1:
        return None
    prev = 0
    for kv in sorted({int(round(v)) for v in np.geomspace(1, kmax, 40)} | {kmax}):
        if llp_exact_delta(epsilon, n, kv, m, rho, b1).delta <= delta:
            below = range(prev + 1, kv + 1)
            return next((kk for kk in below if llp_exact_delta(epsilon, n, kk, m, rho, b1).delta <= delta), None)
        prev = kv
    return None


def _lba_constants(data, b1: float) -> dict:
    """The wtd-LBA data constants of Theorem 1.2 (gamma, lambda* = nan when no neighbour-safe value exists)."""
    from . import data_conditions

    dc = data_conditions(data.X, data.y, b1)
    return {
        "d": int(dc["rank"]),
        "b2": float(dc["b2"]),
        "gamma": float("nan") if dc["gamma"] is None else float(dc["gamma"]),
        "lam": float(dc["lam_star"]),  # always a number (0 when the features are all zero)
    }


ADAPTER = register(LabelDPAdapter())
