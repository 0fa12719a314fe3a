"""Excess-risk bounds of input perturbation and of its baselines (pure functions): [FTS17] Fukuchi, Tran &
Sakuma 2017, Lemma 2, Theorem 2 (eq. 25), Corollary 3, Table 1; the formulas, and why ``w_norm`` may be eta or a
measured ||w^||: docs/input_perturbation.md §"Bound formulas" and §"Derived baseline bounds".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..._validation import check_delta, check_epsilon, check_in_interval, check_int, check_positive
from .params import InputPerturbationParams, input_perturbation_params

__all__ = [
    "Theorem2Terms",
    "theorem2_terms",
    "theorem2_bound",
    "lemma2_bound",
    "corollary3_sigma_u_bounds",
    "table1_rates",
    "objective_gauss_bound",
    "output_perturbation_bound",
    "theorem2_curve",
]


@dataclass(frozen=True, slots=True)
class Theorem2Terms:
    """The four terms of the expectation bound B_in = T1 + T2 + T3 + T4 ([FTS17] Theorem 2, eq. 25)."""

    T1: float
    T2: float
    T3: float
    T4: float

    @property
    def total(self) -> float:
        return self.T1 + self.T2 + self.T3 + self.T4

    def as_dict(self) -> dict:
        return {"T1": self.T1, "T2": self.T2, "T3": self.T3, "T4": self.T4, "total": self.total}


def theorem2_terms(params: InputPerturbationParams, w_norm: float | None = None) -> Theorem2Terms:
    """Theorem 2's four terms with every constant ([FTS17] Theorem 2, eq. (25); docs/input_perturbation.md
    §"Bound formulas"); ``w_norm`` = ||w^|| in [0, eta], default eta (the public worst case).
    """
    p = params
    wn = p.eta if w_norm is None else check_in_interval("w_norm", w_norm, 0.0, p.eta * (1 + 1e-9))
    n, d, e, su = p.n, p.d, p.eps_run, p.sigma_u
    w2 = wn * wn
    T1 = 8.0 * d * p.zeta**2 * (8.0 * math.log(4.0 / p.delta) + 4.0 * e) / (n * e * e * p.Delta)
    T2 = p.Delta * w2 / (2.0 * n)
    T3 = (su * su - 2.0 * p.lam / e) * w2 / (2.0 * n)
    T4 = su * su * (math.log(4.0) + 3.0) + 2.0 * su * su * (math.log(4.0) + 2.0) / math.sqrt(n)
    T4 = (T4 + math.sqrt(2.0 * d) * p.lam * su * (math.log(2.0) + 3.0)) * w2 / (2.0 * n * math.sqrt(n))
    return Theorem2Terms(T1=T1, T2=T2, T3=T3, T4=T4)


def theorem2_bound(params: InputPerturbationParams, w_norm: float | None = None) -> float:
    """B_in = T1 + T2 + T3 + T4 ([FTS17] Theorem 2). Conditional on the calibration event (docs/input_perturbation.md
    §"Derived baseline bounds")."""
    return theorem2_terms(params, w_norm).total


def lemma2_bound(
    params: InputPerturbationParams, w_norm: float | None = None, *, beta_fail: float = 0.05, gamma_tail: float = 0.05
) -> float:
    """High-probability bound of [FTS17] Lemma 2 (holds w.p. >= 1 - gamma_tail - beta_fail)."""
    p = params
    wn = p.eta if w_norm is None else check_in_interval("w_norm", w_norm, 0.0, p.eta * (1 + 1e-9))
    bf = check_in_interval("beta_fail", beta_fail, 0.0, 1.0, closed="neither")
    gt = check_in_interval("gamma_tail", gamma_tail, 0.0, 1.0, closed="neither")
    n, d, e, su, w2 = p.n, p.d, p.eps_run, p.sigma_u, wn * wn
    t1 = 4.0 * d * p.zeta**2 * (8.0 * math.log(4.0 / p.delta) + 4.0 * e) * math.log(1.0 / bf) / (n * e * e * p.Delta)
    t2 = p.Delta * w2 / (2.0 * n)
    t3 = (su * su - 2.0 * p.lam / e) * w2 / (2.0 * n)
    L4, L2 = math.log(4.0 / gt), math.log(2.0 / gt)
    t4 = su * su * math.sqrt(L4) + su * su * L4 / math.sqrt(n) + su * p.lam * math.sqrt(2.0 * d * L2)
    t4 = t4 / (n * math.sqrt(n)) * w2
    return t1 + t2 + t3 + t4


def corollary3_sigma_u_bounds(params: InputPerturbationParams) -> tuple[float, float]:
    """[FTS17] Corollary 3: lower and upper bounds on sigma_u^COR2 (upper needs n >= 16 ln(8/delta);
    docs/input_perturbation.md §"Bound formulas")."""
    p = params
    root = math.sqrt(2.0 * p.lam / p.eps_run)
    s2d = math.sqrt(2.0 * p.d)
    return s2d * p.lam * p.a2 + root, (4.0 * s2d * p.lam + 4.0 * root) * p.a4 + root


def table1_rates(
    *, n: int, d: int, epsilon: float, delta: float, eta: float, zeta: float, alpha: float = 1.0
) -> dict[str, float]:
    """[FTS17] Table 1's rates with every hidden constant set to 1 (shape only; docs/input_perturbation.md
    §"Bound formulas")."""
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1)
    e = check_epsilon(epsilon, allow_inf=False)
    dl = check_delta(delta)
    eta, zeta = check_positive("eta", eta), check_positive("zeta", zeta)
    a = check_in_interval("alpha", alpha, 0.0, 1.0, closed="right")
    obj = eta * zeta * math.sqrt(d * math.log(1.0 / dl)) / (e * n)
    return {"objective": obj, "dp_gd": eta * zeta * math.sqrt(d) * math.log(n / dl) / (e * n), "input": obj / a}


def objective_gauss_bound(params: InputPerturbationParams, w_norm: float | None = None) -> float:
    """Obj-Gauss analogue of Theorem 2, same Delta (derived here: docs/input_perturbation.md §"Derived baseline
    bounds")."""
    p = params
    wn = p.eta if w_norm is None else check_in_interval("w_norm", w_norm, 0.0, p.eta * (1 + 1e-9))
    e = p.eps_run
    return 8.0 * p.d * p.zeta**2 * (8.0 * math.log(2.0 / p.delta) + 4.0 * e) / (
        p.n * e * e * p.Delta
    ) + p.Delta * wn * wn / (2.0 * p.n)


def output_perturbation_bound(
    params: InputPerturbationParams, w_norm: float | None = None, Lambda: float | None = None
) -> float:
    """Output-perturbation smoothness bound, Lambda = Delta / n by default (derived here:
    docs/input_perturbation.md §"Derived baseline bounds")."""
    p = params
    wn = p.eta if w_norm is None else check_in_interval("w_norm", w_norm, 0.0, p.eta * (1 + 1e-9))
    L = p.Delta / p.n if Lambda is None else check_positive("Lambda", Lambda)
    e = p.eps_run
    return (p.lam + L) / 2.0 * 4.0 * p.d * (p.d + 1) * p.zeta**2 / (p.n**2 * L * L * e * e) + L * wn * wn / 2.0


def theorem2_curve(
    ns,
    *,
    d: int,
    epsilon: float,
    delta: float,
    eta: float,
    zeta: float,
    lam: float,
    alpha: float = 1.0,
    Delta: float | None = None,
    Delta_multiplier: float = 1.0,
    sigma_u_mode: str = "COR2",
    w_norm: float | None = None,
) -> list[dict]:
    """Bounds over a grid of n with sigma_u recomputed at every n and Delta fixed ([FTS17] Theorem 2); ``nan`` at or
    below the mode's minimum n."""
    rows = []
    kw = dict(d=d, epsilon=epsilon, delta=delta, eta=eta, zeta=zeta, lam=lam, alpha=alpha)
    for n in ns:
        try:
            p = input_perturbation_params(
                n=int(n), **kw, Delta=Delta, Delta_multiplier=Delta_multiplier, sigma_u_mode=sigma_u_mode
            )
        except ValueError:
            rows.append(
                {"n": int(n)} | dict.fromkeys(("input", "objective", "output", "rate_input", "rate_dp_gd"), math.nan)
            )
            continue
        rates = table1_rates(n=int(n), d=d, epsilon=epsilon, delta=delta, eta=eta, zeta=zeta, alpha=alpha)
        terms = theorem2_terms(p, w_norm)
        row = {"n": int(n), "input": terms.total, "objective": objective_gauss_bound(p, w_norm)}
        row.update(output=output_perturbation_bound(p, w_norm), rate_input=rates["input"], rate_dp_gd=rates["dp_gd"])
        rows.append(row | {k: v for k, v in terms.as_dict().items() if k != "total"})
    return rows
