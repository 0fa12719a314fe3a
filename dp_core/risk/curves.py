"""What an ε means to an attacker: privacy profiles δ(ε), trade-off curves f(α) (the smallest false-negative
rate of a membership test at false-positive rate α), Gaussian-DP μ, membership-inference advantage, TPR at
fixed FPR, posteriors. Gaussian [BW18] Thm 8, G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) [DRS22] §2.2; (ε, δ) region [KOV15]
Thm 2.1; envelope of a profile's constraints [DRS22] Prop. 2.12; advantage [YGFJ18], [HRF23]. Formulas,
derivations and references: ``docs/risk.md`` (§"Definitions", §"Laplace", §"Risk figures", §"References").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .._validation import check_delta, check_epsilon, check_int, check_positive

__all__ = [
    "FPR_LEVELS",
    "Profile",
    "advantage",
    "alpha_grid",
    "approx_profile",
    "approx_tradeoff",
    "compose",
    "envelope",
    "epsilon_at",
    "fit_mu",
    "gaussian_profile",
    "gaussian_tradeoff",
    "laplace_profile",
    "laplace_tradeoff",
    "posterior_50",
    "pure_profile",
    "risk_summary",
    "tabulated_profile",
    "tpr_at_fpr",
]

#: The false-positive rates at which the true-positive rate is reported.
FPR_LEVELS = (0.01, 0.001)

_MU_MAX = 40.0  # G_μ is 0 to double precision for μ beyond this


@dataclass(frozen=True)
class Profile:
    """A privacy profile δ(ε) with its trade-off curve.

    ``kind`` is one of ``"gaussian"`` (``mu``), ``"laplace"`` (``epsilon`` = Δ/b), ``"approx"``
    (``epsilon``, ``delta``: pure ε-DP when ``delta = 0``) or ``"tabulated"`` (``table``: pairs
    (ε, δ(ε)) from a mechanism's accounting, each an upper bound). Build one with the functions below.
    """

    kind: str
    mu: float = math.nan
    epsilon: float = math.nan
    delta: float = 0.0
    table: tuple[tuple[float, float], ...] = field(default=(), repr=False)

    def delta_at(self, eps) -> np.ndarray:
        """δ(ε) at each ε ≥ 0 (an array)."""
        e = np.asarray(eps, dtype=np.float64)
        if self.kind == "gaussian":
            from ..calibration import gaussian_privacy_profile

            return np.asarray(gaussian_privacy_profile(e, self.mu), dtype=np.float64) + 0.0 * e
        if self.kind == "laplace":
            # docs/risk.md §"Laplace": δ(ε) = max(0, 1 − e^{(ε − ε₀)/2})
            return np.maximum(0.0, -np.expm1((e - self.epsilon) / 2.0))
        if self.kind == "approx":
            # [KOV15] Thm 2.1's extremal pair; docs/risk.md §"The (ε, δ) region"
            e0, d0 = self.epsilon, self.delta
            with np.errstate(over="ignore"):
                gap = np.maximum(0.0, 1.0 - np.exp(e - e0)) / (1.0 + np.exp(-e0))
            return d0 + (1.0 - d0) * gap
        eps_t, del_t = (np.array(c) for c in zip(*self.table))
        # a tabulated bound holds at the next tabulated ε below (δ(ε) is non-increasing)
        idx = np.searchsorted(eps_t, e, side="right") - 1
        return np.where(idx >= 0, del_t[np.clip(idx, 0, None)], 1.0)

    def tradeoff(self, alpha) -> np.ndarray:
        """f(α): the smallest false-negative rate at false-positive rate α that the guarantee allows."""
        a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)
        if self.kind == "gaussian":
            return gaussian_tradeoff(a, self.mu)
        if self.kind == "laplace":
            return laplace_tradeoff(a, self.epsilon)
        if self.kind == "approx":
            return approx_tradeoff(a, self.epsilon, self.delta)
        eps_t, del_t = (np.array(c) for c in zip(*self.table))
        return envelope(a, eps_t, del_t)

    @property
    def is_gaussian(self) -> bool:
        return self.kind == "gaussian"


# -- the profiles --------------------------------------------------------------------------------
def gaussian_profile(mu: float) -> Profile:
    """μ-GDP: the Gaussian mechanism with μ = Δ/σ ([BW18] Thm 8; [DRS22] Cor. 2.13)."""
    return Profile("gaussian", mu=check_positive("mu", mu, allow_zero=True))


def laplace_profile(epsilon: float) -> Profile:
    """The Laplace mechanism of scale b on a query of sensitivity Δ, ε = Δ/b (docs/risk.md §"Laplace")."""
    return Profile("laplace", epsilon=check_epsilon(epsilon, allow_inf=False))


def pure_profile(epsilon: float) -> Profile:
    """The worst case of any pure ε-DP mechanism (the exponential mechanism included) [KOV15] Thm 2.1."""
    return Profile("approx", epsilon=check_epsilon(epsilon, allow_inf=False), delta=0.0)


def approx_profile(epsilon: float, delta: float) -> Profile:
    """The worst case of any (ε, δ)-DP mechanism: the region of [WZ10] §2 / [KOV15] Thm 2.1."""
    return Profile("approx", epsilon=check_epsilon(epsilon, allow_inf=False), delta=check_delta(delta, allow_zero=True))


def tabulated_profile(epsilons, deltas) -> Profile:
    """A profile known at some ε only (each δ an upper bound), sorted by ε; ε must start at 0."""
    e = np.asarray(epsilons, dtype=np.float64)
    d = np.asarray(deltas, dtype=np.float64)
    if e.ndim != 1 or e.shape != d.shape or e.size < 2:
        raise ValueError("epsilons and deltas must be 1-D arrays of the same length (at least 2).")
    if not (np.all(np.isfinite(e)) and np.all(e >= 0) and np.all(np.diff(e) > 0) and e[0] == 0.0):
        raise ValueError("epsilons must be finite, increasing and start at 0.")
    if not (np.all(d >= 0) and np.all(d <= 1)):
        raise ValueError("deltas must be in [0, 1].")
    d = np.minimum.accumulate(d)  # a profile does not increase: a bound at a smaller ε holds further on
    return Profile("tabulated", table=tuple(zip(e.tolist(), d.tolist())))


def compose(profile: Profile, k: int, *, sensitivity: float = 1.0) -> Profile:
    """The k-fold composition of a Gaussian or Laplace profile.

    Gaussian: μ√k exactly ([DRS22] Cor. 3.3). Laplace: by Google's ``dp_accounting`` privacy-loss
    distribution (pessimistic discretisation, so every δ is an upper bound), tabulated.
    """
    k = check_int("k", k, lo=1)
    if k == 1:
        return profile
    if profile.kind == "gaussian":
        return gaussian_profile(profile.mu * math.sqrt(k))
    if profile.kind != "laplace":
        raise ValueError(f"composition is implemented for gaussian and laplace profiles, got {profile.kind!r}.")
    from dp_accounting.pld import privacy_loss_distribution as pld

    one = pld.from_laplace_mechanism(
        sensitivity / profile.epsilon, sensitivity=sensitivity, value_discretization_interval=1e-3
    )
    eps = _eps_grid(profile.epsilon * k)
    return tabulated_profile(eps, np.asarray(one.self_compose(k).get_delta_for_epsilon(eps), dtype=np.float64))


def epsilon_at(profile: Profile, delta: float) -> float:
    """The smallest ε with δ(ε) ≤ ``delta`` (``inf`` if none): the (ε, δ) point a profile gives at ``delta``.

    A tabulated profile answers with a tabulated ε (so the bound holds); the others by bisection.
    """
    delta = check_delta(delta, allow_zero=True)
    if profile.kind == "tabulated":
        ok = [e for e, d in profile.table if d <= delta]
        return ok[0] if ok else math.inf
    if float(profile.delta_at(0.0)) <= delta:
        return 0.0
    lo, hi = 0.0, max(1.0, _profile_span(profile))
    while float(profile.delta_at(hi)) > delta:
        if hi > 1e4:
            return math.inf
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(profile.delta_at(mid)) > delta else (lo, mid)
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return hi


def _eps_grid(eps_max: float, size: int = 400) -> np.ndarray:
    """0, then geometric up to ``eps_max`` (the tabulated envelope's ε points)."""
    return np.concatenate([[0.0], np.geomspace(1e-3, max(eps_max, 1e-2), size - 1)])


# -- the trade-off curves ------------------------------------------------------------------------
def gaussian_tradeoff(alpha, mu: float) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) ([DRS22] §2.2 (the trade-off function of μ-GDP))."""
    a = np.asarray(alpha, dtype=np.float64)
    if mu == 0.0:
        return 1.0 - a
    return ndtr(ndtri(1.0 - a) - mu)


def laplace_tradeoff(alpha, epsilon: float) -> np.ndarray:
    """Laplace: 1 − e^ε α, then e^{−ε}/(4α), then e^{−ε}(1 − α) (docs/risk.md §"Laplace")."""
    a = np.asarray(alpha, dtype=np.float64)
    lo, e = 0.5 * math.exp(-epsilon), math.exp(-epsilon)
    with np.errstate(divide="ignore"):
        mid = e / (4.0 * a)
    return np.where(a < lo, 1.0 - math.exp(epsilon) * a, np.where(a <= 0.5, mid, e * (1.0 - a)))


def approx_tradeoff(alpha, epsilon: float, delta: float) -> np.ndarray:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) ([DRS22] §2.1; [WZ10]; [KOV15] Thm 2.1)."""
    a = np.asarray(alpha, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        first = np.where(a > 0, 1.0 - delta - math.exp(min(epsilon, 700.0)) * a, 1.0 - delta)
    return np.maximum(0.0, np.maximum(first, math.exp(-epsilon) * (1.0 - delta - a)))


def envelope(alpha, epsilons, deltas) -> np.ndarray:
    """sup over the given (ε, δ(ε)) of f_{ε,δ}(α) ([DRS22] Prop. 2.12, the sup taken on a grid of ε).

    With δ(ε) an upper bound at every grid ε the result is below the true curve: a conservative
    (attacker-favouring) curve.
    """
    shape = np.shape(alpha)
    a = np.asarray(alpha, dtype=np.float64).reshape(-1, 1)
    e = np.asarray(epsilons, dtype=np.float64)[None, :]
    d = np.asarray(deltas, dtype=np.float64)[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        first = np.where(a > 0, 1.0 - d - np.exp(np.minimum(e, 700.0)) * a, 1.0 - d)
        second = np.exp(-e) * (1.0 - d - a)
    return np.maximum(0.0, np.maximum(first, second).max(axis=1)).reshape(shape)


# -- the risk figures ----------------------------------------------------------------------------
def alpha_grid(profile: Profile, size: int = 241) -> np.ndarray:
    """False-positive rates at which a curve is drawn: log-spaced near 0, linear above 1 %, plus the
    rates :data:`FPR_LEVELS` and the point where the advantage is largest for the closed forms."""
    pts = [np.geomspace(1e-6, 1e-2, size // 3), np.linspace(0.0, 1.0, size - size // 3), FPR_LEVELS]
    special = {
        "gaussian": lambda: [float(ndtr(-profile.mu / 2.0))],
        "laplace": lambda: [0.5 * math.exp(-profile.epsilon / 2.0), 0.5 * math.exp(-profile.epsilon)],
        "approx": lambda: [(1.0 - profile.delta) / (1.0 + math.exp(profile.epsilon))],
    }.get(profile.kind)
    if special is not None:
        pts.append(special())
    return np.unique(np.clip(np.concatenate([np.atleast_1d(p) for p in pts]), 0.0, 1.0))


def advantage(alpha, beta) -> float:
    """Membership-inference advantage max_α (1 − α − f(α)) on a curve: the TPR − FPR of the best test.

    [YGFJ18]; it equals δ(0) (docs/risk.md §"Risk figures").
    """
    return float(np.max(1.0 - np.asarray(alpha) - np.asarray(beta)))


def tpr_at_fpr(profile: Profile, levels=FPR_LEVELS) -> dict[str, float]:
    """True-positive rate 1 − f(α) at each false-positive rate α of ``levels`` (keys ``"0.01"`` ...)."""
    return {f"{a:g}": float(1.0 - profile.tradeoff(a)) for a in levels}


def posterior_50(profile: Profile, epsilon: float | None = None) -> dict[str, Any]:
    """What an attacker can believe, starting from a 50 % prior that a person is in the data.

    ``at_fpr``: the share of true members among those flagged by the best test at each false-positive
    rate, TPR/(TPR + FPR) (Bayes' rule). ``bound``: e^ε/(1 + e^ε) at the guarantee's ε, which holds
    except with probability δ ([WZ10] §2; the odds move by at most e^ε).
    """
    tpr = tpr_at_fpr(profile)
    at = {k: v / (v + float(k)) for k, v in tpr.items()}
    bound = None if epsilon is None or not math.isfinite(epsilon) else 1.0 / (1.0 + math.exp(-epsilon))
    return {"at_fpr": at, "bound": bound}


def fit_mu(alpha, beta) -> tuple[float, float]:
    """The μ whose Gaussian curve is closest to (α, β) in the largest vertical gap, and that gap.

    The reporting of μ for a curve that is not Gaussian recommended by Gomez, Kulynych, Kaissis,
    Hayes, Balle & Honkela (2025), "(ε, δ) considered harmful": μ with its fit error.
    """
    from scipy.optimize import minimize_scalar

    a, b = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)

    def gap(mu: float) -> float:
        return float(np.max(np.abs(gaussian_tradeoff(a, mu) - b)))

    coarse = np.linspace(0.0, _MU_MAX, 801)  # the gap is flat far from its minimum: bracket it first
    i = int(np.argmin([gap(m) for m in coarse]))
    lo, hi = coarse[max(i - 1, 0)], coarse[min(i + 1, coarse.size - 1)]
    res = minimize_scalar(gap, bounds=(lo, hi), method="bounded", options={"xatol": 1e-7})
    return float(res.x), float(res.fun)


def risk_summary(profile: Profile, *, epsilon: float | None = None, profile_eps=None) -> dict[str, Any]:
    """Every risk figure of a profile (the CLI's JSON fields; the app panel's numbers).

    Returns ``mu`` (None unless the curve is Gaussian), ``mu_fit``, ``mu_fit_error``, ``mia_advantage``,
    ``tpr_at_fpr``, ``posterior_50``, ``tradeoff`` ([α, β] pairs) and ``profile`` ([ε, δ] pairs).
    """
    alpha = alpha_grid(profile)
    beta = profile.tradeoff(alpha)
    if profile.is_gaussian:
        mu_fit, err = profile.mu, 0.0
    else:
        mu_fit, err = fit_mu(alpha, beta)
    eps = _eps_grid(_profile_span(profile), 121) if profile_eps is None else np.asarray(profile_eps, float)
    return {
        "curve": profile.kind,
        "mu": profile.mu if profile.is_gaussian else None,
        "mu_fit": mu_fit,
        "mu_fit_error": err,
        "mia_advantage": advantage(alpha, beta),
        "tpr_at_fpr": tpr_at_fpr(profile),
        "posterior_50": posterior_50(profile, epsilon),
        "tradeoff": [[float(x), float(y)] for x, y in zip(alpha, beta)],
        "profile": [[float(x), float(y)] for x, y in zip(eps, profile.delta_at(eps))],
    }


def _profile_span(profile: Profile) -> float:
    """An ε beyond which the profile is (nearly) flat, for drawing it."""
    if profile.kind == "gaussian":
        return max(1.0, profile.mu * (profile.mu / 2.0 + 6.0))
    if profile.kind == "tabulated":
        return profile.table[-1][0]
    return max(1.0, 1.5 * profile.epsilon)
