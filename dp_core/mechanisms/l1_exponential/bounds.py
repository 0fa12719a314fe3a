"""Utility bounds of the exponential mechanism for heavy-tailed l1 regression. D. Wang and J. Xu, *Differentially
Private l1-norm Linear Regression with Heavy-tailed Data*: Theorem 1 (eqs. (7), (8), (14)), Theorem 2 (eqs. (17)-(19),
(24)-(26)), Lemmas 1, 2, 4-5, 7-10. docs/l1_exponential.md §"Moments and the explicit bound" (our corrections). See
docs/l1_exponential.md §"bounds (module)"."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..._validation import check_choice, check_in_interval, check_int, check_positive, check_probability, computable
from .truncation import CONVENTIONS, check_theta, kappa

__all__ = [
    "ASSUMPTIONS",
    "RATE_LABEL",
    "EXPLICIT_LABEL",
    "MomentConstants",
    "moment_constants",
    "bound_arguments",
    "residual_moment_bound",
    "log_net_size",
    "rate_paper",
    "rate_slope",
    "BoundTerms",
    "explicit_bound",
    "bound_coefficients",
    "iota_star",
    "iota_paper",
    "optimal_bound",
    "privacy_dominance_epsilon",
    "bound_terms_table",
]

ASSUMPTIONS = ("A1", "A2", "A3", "A4")

RATE_LABEL = "paper's rate with the hidden constant set to 1 (rate only, constant not known)"
EXPLICIT_LABEL = "explicit bound U(ι), constants re-derived from the proofs, holds with probability ≥ 1 − 5η"


@dataclass(frozen=True)
class MomentConstants:
    """The moment numbers fed to the bounds (docs/l1_exponential.md §"Moments and the explicit bound").
    See docs/l1_exponential.md §"bounds.MomentConstants"."""

    assumption: str
    theta: float
    m1: float
    M_theta: float
    V_theta: float
    d_eff: int

    def as_dict(self) -> dict:
        return asdict(self)


@computable
def residual_moment_bound(sigma_theta: float, M_theta: float, theta: float, diam_W: float) -> float:
    """Bound (V): ``V_theta <= 2^(theta-1) (sigma_theta + diam_W^theta M_theta)``. docs/l1_exponential.md
    §"Moments and the explicit bound" (corrects the paper's displayed inequality). See docs/l1_exponential.md
    §"bounds.residual_moment_bound"."""
    s = check_positive("sigma_theta", sigma_theta, allow_zero=True)
    M = check_positive("M_theta", M_theta, allow_zero=True)
    th = check_in_interval("theta", theta, 1.0, 2.0, closed="right")
    D = check_positive("diam_W", diam_W)
    return 2.0 ** (th - 1.0) * (s + D**th * M)


@computable
def moment_constants(
    assumption: str, *, tau: float, d: int, theta: float = 2.0, sigma_theta: float = 1.0, radius: float = 1.0
) -> MomentConstants:
    """m1, M_theta and V_theta under an assumption (docs/l1_exponential.md §"Moments and the explicit bound"). See
    docs/l1_exponential.md §"bounds.moment_constants"."""
    check_choice("assumption", assumption, ASSUMPTIONS)
    tau = check_positive("tau", tau)
    d = check_int("d", d, lo=1)
    th = 2.0 if assumption in ("A1", "A2") else check_theta(theta)
    if assumption == "A1":
        m1, M = tau, tau**2
    elif assumption == "A2":
        m1, M = math.sqrt(d) * tau, d * tau**2
    elif assumption == "A3":
        m1, M = tau, tau**th
    else:
        m1, M = d ** (1.0 / th) * tau, d * tau**th
    R = check_positive("radius", radius)
    V = residual_moment_bound(sigma_theta, M, th, 2.0 * R)
    return MomentConstants(assumption, th, m1, M, V, d if assumption in ("A1", "A3") else 1)


def bound_arguments(mom: MomentConstants, *, n: float, d: int, zeta: float, eta: float, log_N: float, radius: float):
    """The keyword arguments that :func:`explicit_bound`, :func:`iota_star` and :func:`bound_coefficients` share."""
    kw = dict(zeta=zeta, n=n, eta=eta, theta=mom.theta, M_theta=mom.M_theta, V_theta=mom.V_theta)
    return kw | dict(diam_W=2 * radius, d=d, log_N=log_N)


@computable
def log_net_size(d: int, zeta: float, diam_W: float) -> float:
    """``log N <= d log(3 diam_W / zeta)`` (Lemma 2; valid for 0 < zeta <= diam_W)."""
    d = check_int("d", d, lo=1)
    z = check_positive("zeta", zeta)
    D = check_positive("diam_W", diam_W)
    if z > D:
        raise ValueError(f"zeta must be in (0, diam_W] = (0, {D:g}], got {z:g}.")
    return d * math.log(3.0 * D / z)


def _paper_args(n, d, epsilon, eta_total, tau) -> tuple:
    """The validated ``(n, d, epsilon, eta_total, tau)`` of the paper's rate and truncation scale."""
    n, d = check_positive("n", n), check_int("d", d, lo=1)
    eps, eta = check_positive("epsilon", epsilon), check_probability("eta_total", eta_total, closed="neither")
    return n, d, eps, eta, check_positive("tau", tau)


@computable
def rate_paper(
    n: float, d: int, epsilon: float, eta_total: float, theta: float, tau: float, assumption: str, C: float = 1.0
) -> float:
    """Shape of the paper's rate (hidden constant ``C``; label :data:`RATE_LABEL`). Wang & Xu, eqs. (7), (8), (18),
    (19); docs/l1_exponential.md §"Moments and the explicit bound". See docs/l1_exponential.md §"bounds.rate_paper"."""
    n, d, eps, eta, tau = _paper_args(n, d, epsilon, eta_total, tau)
    C = check_positive("C", C)
    check_choice("assumption", assumption, ASSUMPTIONS)
    th = check_theta(theta)
    L = math.log(n) * math.log(1.0 / eta)
    if assumption == "A1":
        return C * tau * math.sqrt(d * L / (n * eps))
    if assumption == "A2":
        return C * tau * d * math.sqrt(L / (n * eps))
    if assumption == "A3":
        return C * tau * (d * L / (n * eps)) ** ((th - 1.0) / th)
    return C * tau * d * (L / (n * eps)) ** ((th - 1.0) / th)


def rate_slope(theta: float, assumption: str) -> float:
    """Log-log slope in n of the rate (up to log factors): -1/2 (A1, A2) or -(theta-1)/theta."""
    check_choice("assumption", assumption, ASSUMPTIONS)
    if assumption in ("A1", "A2"):
        return -0.5
    th = check_theta(theta)
    return -(th - 1.0) / th


@dataclass(frozen=True)
class BoundTerms:
    """U(iota) and its five terms (docs/l1_exponential.md §"Moments and the explicit bound")."""

    net: float
    truncation_bias: float
    discretisation_truncation: float
    statistical: float
    privacy: float
    total: float
    iota: float
    zeta: float
    log_N: float
    kappa: float
    eta: float

    def as_dict(self) -> dict:
        return asdict(self)


def _checked_common(n, zeta, eta, theta, m1, M_theta, V_theta, diam_W, kappa_value, log_N, d):
    n = check_positive("n", n)
    zeta = check_positive("zeta", zeta)
    eta = check_probability("eta", eta, closed="neither")
    th = check_in_interval("theta", theta, 1.0, 2.0, closed="right")
    m1 = check_positive("m1", m1, allow_zero=True)
    M = check_positive("M_theta", M_theta, allow_zero=True)
    V = check_positive("V_theta", V_theta, allow_zero=True)
    D = check_positive("diam_W", diam_W)
    k = check_positive("kappa", kappa_value, allow_inf=True)
    if log_N is None:
        log_N = log_net_size(d, zeta, D)
    else:
        log_N = check_positive("log_N", log_N, allow_zero=True)
    return n, zeta, eta, th, m1, M, V, D, k, log_N


@computable
def explicit_bound(
    iota: float,
    *,
    zeta: float,
    n: float,
    eta: float,
    theta: float,
    m1: float,
    M_theta: float,
    V_theta: float,
    diam_W: float,
    kappa_value: float,
    d: int = 1,
    log_N: float | None = None,
) -> BoundTerms:
    """The explicit bound U(iota) with its five terms. Wang & Xu, proofs of Theorems 1-2 (eqs. (14), (24)-(26)),
    corrected in docs/l1_exponential.md §"Moments and the explicit bound". See docs/l1_exponential.md
    §"bounds.explicit_bound"."""
    iota = check_positive("iota", iota)
    n, zeta, eta, th, m1, M, V, D, k, log_N = _checked_common(
        n, zeta, eta, theta, m1, M_theta, V_theta, diam_W, kappa_value, log_N, d
    )
    LN = log_N + math.log(1.0 / eta)
    t1 = 3.0 * zeta * m1
    t2 = (3.0 + 2.0 ** (th - 1.0)) / th * iota ** (th - 1.0) * V
    t3 = (2.0 * iota) ** (th - 1.0) * zeta**th / th * M
    t4 = (3.0 * LN + math.log(1.0 / eta)) / (n * iota)
    t5 = 0.0 if math.isinf(k) else LN / (k * n * iota)
    return BoundTerms(t1, t2, t3, t4, t5, t1 + t2 + t3 + t4 + t5, iota, zeta, log_N, k, eta)


@computable
def bound_coefficients(
    *,
    zeta: float,
    n: float,
    eta: float,
    theta: float,
    M_theta: float,
    V_theta: float,
    diam_W: float,
    kappa_value: float,
    d: int = 1,
    log_N: float | None = None,
    m1: float = 0.0,
) -> tuple[float, float]:
    """``(a, b)`` with ``U(iota) = 3 zeta m1 + a iota^(theta-1) + b/iota``. See docs/l1_exponential.md
    §"bounds.bound_coefficients"."""
    n, zeta, eta, th, _, M, V, D, k, log_N = _checked_common(
        n, zeta, eta, theta, m1, M_theta, V_theta, diam_W, kappa_value, log_N, d
    )
    LN = log_N + math.log(1.0 / eta)
    a = ((3.0 + 2.0 ** (th - 1.0)) * V + 2.0 ** (th - 1.0) * zeta**th * M) / th
    inv_k = 0.0 if math.isinf(k) else 1.0 / k
    b = ((3.0 + inv_k) * LN + math.log(1.0 / eta)) / n
    return a, b


@computable
def iota_star(
    *,
    zeta: float,
    n: float,
    eta: float,
    theta: float,
    M_theta: float,
    V_theta: float,
    diam_W: float,
    kappa_value: float,
    d: int = 1,
    log_N: float | None = None,
) -> float:
    """``iota* = (b / ((theta - 1) a))^(1/theta)``, the minimiser of U.
    See docs/l1_exponential.md §"bounds.iota_star"."""
    shared = dict(zeta=zeta, n=n, eta=eta, theta=theta, M_theta=M_theta, V_theta=V_theta, diam_W=diam_W, d=d)
    a, b = bound_coefficients(kappa_value=kappa_value, log_N=log_N, **shared)
    th = float(theta)
    if a <= 0:
        raise ValueError("iota_star needs V_theta > 0 or M_theta > 0 (the bias coefficient a is 0).")
    return (b / ((th - 1.0) * a)) ** (1.0 / th)


@computable
def optimal_bound(
    *,
    zeta: float,
    n: float,
    eta: float,
    theta: float,
    m1: float,
    M_theta: float,
    V_theta: float,
    diam_W: float,
    kappa_value: float,
    d: int = 1,
    log_N: float | None = None,
) -> float:
    """Closed form ``U(iota*) = 3 zeta m1 + theta a^(1/theta) (b/(theta-1))^((theta-1)/theta)``."""
    shared = dict(zeta=zeta, n=n, eta=eta, theta=theta, M_theta=M_theta, V_theta=V_theta, diam_W=diam_W, d=d)
    a, b = bound_coefficients(kappa_value=kappa_value, log_N=log_N, **shared)  # m1 enters only the first term
    th = float(theta)
    return 3.0 * zeta * m1 + th * a ** (1.0 / th) * (b / (th - 1.0)) ** ((th - 1.0) / th)


@computable
def iota_paper(
    n: float, d: int, epsilon: float, eta_total: float, theta: float, tau: float, assumption: str, c_iota: float = 1.0
) -> float:
    """The paper's truncation scale ``(c/tau) (d_eff log n log(1/eta)/(n eps))^(1/theta)``. See docs/l1_exponential.md
    §"bounds.iota_paper"."""
    n, d, eps, eta, tau = _paper_args(n, d, epsilon, eta_total, tau)
    c = check_positive("c_iota", c_iota)
    check_choice("assumption", assumption, ASSUMPTIONS)
    th = 2.0 if assumption in ("A1", "A2") else check_theta(theta)
    d_eff = d if assumption in ("A1", "A3") else 1
    return (c / tau) * (d_eff * math.log(n) * math.log(1.0 / eta) / (n * eps)) ** (1.0 / th)


def privacy_dominance_epsilon(theta: float, convention: str = "tight") -> float:
    """The epsilon below which the privacy part of b dominates the statistical part (1/kappa > 3). See
    docs/l1_exponential.md §"bounds.privacy_dominance_epsilon"."""
    check_choice("convention", convention, CONVENTIONS)
    return 1.0 / (3.0 * kappa(1.0, theta, convention))


def bound_terms_table(terms: dict):
    """The five terms of U(iota) and the total as a two-column table (for display)."""
    import pandas as pd

    labels = [
        ("net", "3ζm₁ (net discretisation)"),
        ("truncation_bias", "truncation bias"),
        ("discretisation_truncation", "discretisation × truncation"),
        ("statistical", "statistical (non-private)"),
        ("privacy", "privacy (exponential mechanism)"),
        ("total", "U(ι) total"),
    ]
    return pd.DataFrame({"term": [lab for _, lab in labels], "value": [float(terms[k]) for k, _ in labels]})
