"""Privacy accounting and utility statements for label-DP by random weighted aggregation.
Details: docs/label_dp_bags.md §"bounds (module)" ([BSHNR], [BW18], [LM00], eq. (23)-(24), Lemma 2.3, Theorem
1.2).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy import special  # scipy.stats (about 0.4 s to import) only where a hypergeometric pmf is needed

from ..._validation import check_choice, check_epsilon, check_in_interval, check_int, check_positive, computable
from ...calibration import gaussian_privacy_profile, gaussian_sigma_analytic, laplace_scale, solve_monotone

__all__ = [
    "LN2",
    "C_CHI",
    "ACCOUNTINGS",
    "TERMS",
    "lemma23_log_delta",
    "lemma23_delta",
    "terms_noisy_wtd_llp",
    "delta_noisy_wtd_llp",
    "terms_wtd_lba",
    "delta_wtd_lba",
    "terms_noisy_wtd_llp_over_k",
    "terms_wtd_lba_over_k",
    "naive_delta_lower_bound",
    "min_k",
    "min_eps",
    "fixed_split_k_thresholds",
    "gaussian_delta_profile",
    "llp_delta_floor",
    "ExactDelta",
    "llp_exact_delta",
    "llp_exact_delta_curve",
    "llp_exact_min_eps",
    "baseline_calibration",
    "predicted_ratio_lba",
    "predicted_ratio_llp",
    "predicted_ratio_label_noise",
    "lba_utility_failure_log_prob",
    "lba_utility_required_m",
    "accounting_summary",
    "vacuous_statement",
    "lemma23_counterexample",
]

LN2 = math.log(2.0)
#: Large-deviation rate of Pr[chi2_r <= r/2]: (ln 2)/2 - 1/4 = 0.0965735...
C_CHI = LN2 / 2.0 - 0.25
#: Lemma 2.3 as (variant, mode) pairs; the LBA form is chosen separately.
ACCOUNTINGS = {"paper": ("paper", "fixed", "eq24"), "corrected": ("corrected", "optimized", "eq22")}
#: The failure terms of each guarantee (Theorem 1.3: noisy-wtd-LLP; Theorem 1.2: wtd-LBA), in the summary's order.
TERMS = {"noisy-wtd-llp": ("gaussian", "weights", "count", "chi"), "wtd-lba": ("gaussian", "chi2", "eigen", "net")}

_VARIANTS = ("paper", "corrected")
_MODES = ("fixed", "optimized")
_FORMS = ("eq22", "eq24")


def _logsumexp(logs: list[float]) -> float:
    finite = [x for x in logs if x != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(sum(math.exp(x - top) for x in finite))


def _cap(log_value: float) -> float:
    return min(0.0, log_value)


def _exp(log_value: float) -> float:
    return math.exp(_cap(log_value)) if log_value > -745.2 else 0.0


# -- Lemma 2.3 (perturbed Gaussians), corrected hypothesis ---------------------------------------------------


def lemma23_log_delta(epsilon: float, kappa: float, zeta: float, mode: str = "optimized") -> float:
    """Logarithm of the additive term delta0 of the (corrected) perturbed-Gaussian lemma.
    Details: docs/label_dp_bags.md §"bounds.lemma23_log_delta" ([BSHNR], Lemma 2.3).
    """
    eps = check_positive("epsilon", epsilon)
    kap = check_positive("kappa", kappa)
    zet = check_positive("zeta", zeta)
    check_choice("mode", mode, _MODES)
    if not (kap < 0.5) or math.sqrt(kap) / zet >= 1.0:
        return 0.0
    if mode == "fixed":
        if 48.0 * kap > eps or 48.0 * math.sqrt(kap) / zet > eps:
            return 0.0
        theta = eps * zet / 48.0
    else:
        theta = zet * (eps / 16.0 - kap) - math.sqrt(kap)
        if theta <= 0.0:
            return 0.0
    theta = min(theta, 1.0)
    return -(theta * theta) / (4.0 * kap)


def lemma23_delta(epsilon: float, kappa: float, zeta: float, mode: str = "optimized") -> float:
    """delta0 of the corrected Lemma 2.3 (see :func:`lemma23_log_delta`); 1.0 = no guarantee.
    Details: docs/label_dp_bags.md §"bounds.lemma23_delta" ([BSHNR]).
    """
    return _exp(lemma23_log_delta(epsilon, kappa, zeta, mode))


def lemma23_counterexample() -> dict[str, float]:
    """The counterexample showing that Lemma 2.3 *as printed* is false.
    Details: docs/label_dp_bags.md §"bounds.lemma23_counterexample" ([BSHNR]).
    """
    kappa, zeta, theta = 1e-6, 1.0, 0.01
    eps = 16.0 * (math.sqrt(kappa) / zeta + theta / zeta + kappa)
    claimed = math.exp(-theta * theta / (4.0 * kappa))
    # sup_S P1(S) - e^eps P0(S) for P1 = N(0, 1/2), P0 = N(0, 1): S = {p1 > e^eps p0} = {|x| < c}.
    s1 = math.sqrt(0.5)
    c2 = (math.log(math.sqrt(2.0)) - eps) / (1.0 / (2 * s1 * s1) - 0.5)
    c = math.sqrt(max(c2, 0.0))
    true = (2 * special.ndtr(c / s1) - 1) - math.exp(eps) * (2 * special.ndtr(c) - 1)  # ndtr: the normal cdf
    return {"epsilon": eps, "claimed_delta": claimed, "true_delta": float(true)}


# -- noisy-wtd-LLP, Theorem 1.3 / D.1 ------------------------------------------------------------------------


def _check_common(epsilon, k, m):
    eps = check_positive("epsilon", epsilon)
    kk = check_in_interval("k", k, 2.0, math.inf, closed="left")
    mm = check_in_interval("m", m, 1.0, math.inf, closed="left")
    return eps, float(kk), float(mm)


def _llp_logs(xp, lemma, eps, kk, mm, rho, b1, noise_std, variant, mode):
    """The noisy-wtd-LLP failure terms' logarithms, with ``xp`` = ``math`` (one k) or ``numpy`` (an array of k)."""
    r = check_in_interval("rho", rho, 0.0, 1.0, closed="right")
    b = check_positive("b1", b1) / check_positive("noise_std", noise_std)
    check_choice("variant", variant, _VARIANTS)
    check_choice("mode", mode, _MODES)
    kappa = 8.0 * b / xp.sqrt(r * kk)
    beta = r**0.25 / math.sqrt(2.0 * b)
    log_g = lemma(eps, kappa, beta, mode)
    lm, lk, sk = math.log(mm), xp.log(kk), xp.sqrt(kk)
    if variant == "corrected":
        log_w = lm + lk + 0.5 * math.log(2.0 / math.pi) - sk / 2.0
        log_chi = lm - C_CHI * r * kk / 2.0
    else:
        log_w = lm + lk - sk / 2.0
        log_chi = lm - r * kk / 16.0
    log_cnt = lm - kk * r * r / 2.0
    return {"gaussian": log_g, "weights": log_w, "count": log_cnt, "chi": log_chi}, kappa, beta


def _lba_logs(xp, lemma, eps, kk, mm, d, b1, b2, gamma, lam, variant, mode, form):
    """The wtd-LBA failure terms' logarithms, with ``xp`` = ``math`` (one k) or ``numpy`` (an array of k)."""
    dd = check_int("d", d, lo=1)
    B1 = check_positive("b1", b1)
    B2 = check_positive("b2", b2)
    g = check_in_interval("gamma", gamma, 0.0, B1 * B1 / 3.0, closed="right")
    lam_ = check_in_interval("lam", lam, 0.0, B2 * B2, closed="right")
    check_choice("variant", variant, _VARIANTS)
    check_choice("mode", mode, _MODES)
    check_choice("form", form, _FORMS)
    kappa0 = 8.0 * B1 / xp.sqrt(g * kk)
    kappa = kappa0 * (1.0 + kappa0 / 4.0) if variant == "corrected" else kappa0
    zeta = g**0.25 / math.sqrt(2.0 * B1)
    log_g = lemma(eps, kappa, zeta, mode)
    sf = special.chdtrc(dd, xp.sqrt(kk))  # the chi-square survival function
    if xp is math:
        log_chi = math.log(float(sf)) if float(sf) > 0 else -math.inf
    else:
        with np.errstate(divide="ignore"):
            log_chi = np.where(sf > 0, np.log(np.where(sf > 0, sf, 1.0)), -np.inf)
    lm = math.log(mm)
    K = math.sqrt(g / (2.0 * lam_)) + math.sqrt(2.0) * B1 / math.sqrt(lam_)
    if form == "eq22":
        A = K * B2 + B1
        log_eig = lm + math.log(dd) + (kk * lam_ / (2.0 * B2 * B2)) * (LN2 - 1.0)
        log_net = lm + dd * math.log(24.0 * A * A / g) - g * g * kk / (2.0 * A**4)
    else:
        c = (1.0 - LN2) if variant == "corrected" else LN2
        log_eig = lm + math.log(dd) - c * kk * lam_ / (2.0 * B2 * B2)
        log_net = (
            lm
            + dd * math.log(192.0 * B1 * B1 * B2 * B2 / (g * lam_))
            - kk * lam_ * lam_ * g * g / (128.0 * B1**4 * B2**4)
        )
    return {"gaussian": log_g, "chi2": log_chi, "eigen": log_eig, "net": log_net}, kappa, zeta, K


def terms_noisy_wtd_llp(
    epsilon: float,
    k: float,
    m: float,
    rho: float,
    b1: float,
    *,
    variant: str = "corrected",
    mode: str = "optimized",
    noise_std: float = 1.0,
) -> dict[str, Any]:
    """The failure terms of the noisy-wtd-LLP guarantee, each as a value and a logarithm.
    Details: docs/label_dp_bags.md §"bounds.terms_noisy_wtd_llp" ([BSHNR], Lemma 2.3., eq. (40), Theorem 1.3,
    eqs. (39)-(42)).
    """
    eps, kk, mm = _check_common(epsilon, k, m)
    logs, kappa, beta = _llp_logs(math, lemma23_log_delta, eps, kk, mm, rho, b1, noise_std, variant, mode)
    return _package(logs, kappa=kappa, beta=beta)


def _package(logs: dict[str, float], **extra: float) -> dict[str, Any]:
    out: dict[str, Any] = dict(extra)
    for name, lv in logs.items():
        out[f"log_{name}"] = lv
        out[name] = math.exp(lv) if lv < 700 else math.inf
    log_total = _cap(_logsumexp(list(logs.values())))
    out["log_delta"] = log_total
    out["delta"] = _exp(log_total)
    out["dominant"] = max(logs, key=lambda n: logs[n])
    out["vacuous"] = bool(log_total >= 0.0)
    return out


def delta_noisy_wtd_llp(epsilon, k, m, rho, b1, *, variant="corrected", mode="optimized", noise_std=1.0) -> float:
    """delta of noisy-wtd-LLP at ``epsilon`` (capped at 1; 1 means no guarantee).
    Details: docs/label_dp_bags.md §"bounds.delta_noisy_wtd_llp" ([BSHNR], Theorem 1.3).
    """
    return terms_noisy_wtd_llp(epsilon, k, m, rho, b1, variant=variant, mode=mode, noise_std=noise_std)["delta"]


# -- wtd-LBA, Theorem 1.2 ------------------------------------------------------------------------------------


@computable
def terms_wtd_lba(
    epsilon: float,
    k: float,
    m: float,
    d: int,
    b1: float,
    b2: float,
    gamma: float,
    lam: float,
    *,
    variant: str = "corrected",
    mode: str = "optimized",
    form: str = "eq22",
) -> dict[str, Any]:
    """The failure terms of the wtd-LBA guarantee (data-conditional), values and logarithms.
    Details: docs/label_dp_bags.md §"bounds.terms_wtd_lba" ([BSHNR], eq. (22), eq. (24), Lemma 2.3, Theorem 1.2,
    Lemmas 3.2-3.4).
    """
    eps, kk, mm = _check_common(epsilon, k, m)
    logs, kappa, zeta, K = _lba_logs(math, lemma23_log_delta, eps, kk, mm, d, b1, b2, gamma, lam, variant, mode, form)
    out = _package(logs, kappa=kappa, zeta=zeta, K=K)
    out["log_delta2"] = _logsumexp([logs["eigen"], logs["net"]])
    out["delta2"] = math.exp(out["log_delta2"]) if out["log_delta2"] < 700 else math.inf
    return out


def delta_wtd_lba(epsilon, k, m, d, b1, b2, gamma, lam, *, variant="corrected", mode="optimized", form="eq22") -> float:
    """delta of wtd-LBA at ``epsilon`` (capped at 1). See :func:`terms_wtd_lba`.
    Details: docs/label_dp_bags.md §"bounds.delta_wtd_lba" ([BSHNR], Theorem 1.2).
    """
    return terms_wtd_lba(epsilon, k, m, d, b1, b2, gamma, lam, variant=variant, mode=mode, form=form)["delta"]


# -- The same terms over many bag sizes at once (curves of delta against k) ----------------------------------


def _check_ks(ks: Any) -> np.ndarray:
    """``ks`` as a 1-d float array of bag sizes, each in [2, 1e300] (one check for the whole array)."""
    try:
        k = np.atleast_1d(np.asarray(ks, dtype=np.float64))
    except (TypeError, ValueError):
        raise TypeError(f"ks must be an array of real numbers, got {ks!r}.") from None
    if k.ndim != 1 or k.size == 0:
        raise ValueError(f"ks must be a non-empty 1-d array of bag sizes, got shape {k.shape}.")
    bad = ~(np.isfinite(k) & (k >= 2.0) & (k <= 1e300))
    if np.any(bad):
        raise ValueError(f"every k must be in [2, 1e300], got {float(k[np.argmax(bad)])!r}.")
    return k


def _lemma23_log_delta_over(eps: float, kappa: np.ndarray, zeta: float, mode: str) -> np.ndarray:
    """:func:`lemma23_log_delta` elementwise over the array ``kappa`` (arguments already checked)."""
    sq = np.sqrt(kappa)
    ok = (kappa < 0.5) & (sq / zeta < 1.0)
    if mode == "fixed":
        ok &= ~((48.0 * kappa > eps) | (48.0 * sq / zeta > eps))
        theta = np.full(kappa.shape, eps * zeta / 48.0)
    else:
        theta = zeta * (eps / 16.0 - kappa) - sq
        ok &= theta > 0.0
    theta = np.minimum(theta, 1.0)
    return np.where(ok, -(theta * theta) / (4.0 * kappa), 0.0)


def _logsumexp_over(rows: list[np.ndarray]) -> np.ndarray:
    """:func:`_logsumexp` of the terms ``rows`` elementwise (the terms added in the same order)."""
    logs = np.vstack(rows)
    top = np.max(logs, axis=0)
    base = np.where(top == -np.inf, 0.0, top)
    total = np.zeros(logs.shape[1])
    for row in logs:
        total = total + np.where(row == -np.inf, 0.0, np.exp(row - base))
    with np.errstate(divide="ignore"):
        return np.where(top == -np.inf, -np.inf, base + np.log(total))


def _package_over(logs: dict[str, np.ndarray], ks: np.ndarray) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {"k": ks}
    for name, lv in logs.items():
        out[f"log_{name}"] = lv
    raw = _logsumexp_over(list(logs.values()))
    capped = np.minimum(0.0, raw)
    out["log_total"] = raw
    out["log_delta"] = capped
    out["delta"] = np.where(capped > -745.2, np.exp(capped), 0.0)
    return out


def terms_noisy_wtd_llp_over_k(
    epsilon: float,
    ks: Any,
    m: float,
    rho: float,
    b1: float,
    *,
    variant: str = "corrected",
    mode: str = "optimized",
    noise_std: float = 1.0,
) -> dict[str, np.ndarray]:
    """The failure terms of :func:`terms_noisy_wtd_llp` at many bag sizes ``ks`` at once, as arrays.
    Details: docs/label_dp_bags.md §"bounds.terms_noisy_wtd_llp_over_k" ([BSHNR], Theorem 1.3, eqs. (39)-(42),
    Lemma 2.3)).
    """
    eps = check_positive("epsilon", epsilon)
    mm = check_in_interval("m", m, 1.0, math.inf, closed="left")
    kk = _check_ks(ks)
    logs, _, _ = _llp_logs(np, _lemma23_log_delta_over, eps, kk, mm, rho, b1, noise_std, variant, mode)
    return _package_over(logs, kk)


@computable
def terms_wtd_lba_over_k(
    epsilon: float,
    ks: Any,
    m: float,
    d: int,
    b1: float,
    b2: float,
    gamma: float,
    lam: float,
    *,
    variant: str = "corrected",
    mode: str = "optimized",
    form: str = "eq22",
) -> dict[str, np.ndarray]:
    """The failure terms of :func:`terms_wtd_lba` at many bag sizes ``ks`` at once, as arrays.
    Details: docs/label_dp_bags.md §"bounds.terms_wtd_lba_over_k" ([BSHNR], Theorem 1.2, eqs. (22)-(24), Lemmas
    3.2-3.4).
    """
    eps = check_positive("epsilon", epsilon)
    mm = check_in_interval("m", m, 1.0, math.inf, closed="left")
    kk = _check_ks(ks)
    logs, *_ = _lba_logs(np, _lemma23_log_delta_over, eps, kk, mm, d, b1, b2, gamma, lam, variant, mode, form)
    return _package_over(logs, kk)


def naive_delta_lower_bound(n: int, k: int, m: int) -> float:
    """m k / n: a lower bound on delta, for every epsilon, of naive LBA/LLP and noiseless
    weighted LLP (the changed index is bagged with this probability, and then its bag's label
    aggregate moves deterministically).
    Details: docs/label_dp_bags.md §"bounds.naive_delta_lower_bound" ([BSHNR]).
    """
    nn = check_int("n", n, lo=1)
    kk = check_int("k", k, lo=1)
    mm = check_int("m", m, lo=1)
    if mm * kk > nn:
        raise ValueError(f"m*k must be <= n, got m*k = {mm * kk} and n = {nn}.")
    return mm * kk / nn


@computable
def fixed_split_k_thresholds(epsilon: float, q: float, b1: float) -> tuple[float, float]:
    """The two k thresholds of the fixed split: 147456 B1^2/(q eps^2), 1358954496 B1^4/(q^2 eps^4).
    Details: docs/label_dp_bags.md §"bounds.fixed_split_k_thresholds" ([BSHNR], Lemma 3.3).
    """
    eps = check_positive("epsilon", epsilon)
    qq = check_positive("q", q)
    b = check_positive("b1", b1)
    return 147456.0 * b * b / (qq * eps * eps), 1358954496.0 * b**4 / (qq * qq * eps**4)


# -- Inversions: minimum k, minimum epsilon ------------------------------------------------------------------


def _log_delta_fn(mechanism: str, params: dict[str, Any]):
    check_choice("mechanism", mechanism, ("noisy-wtd-llp", "wtd-lba"))
    if mechanism == "noisy-wtd-llp":
        terms, keys = terms_noisy_wtd_llp, ("rho", "b1", "variant", "mode", "noise_std")
    else:
        terms, keys = terms_wtd_lba, ("d", "b1", "b2", "gamma", "lam", "variant", "mode", "form")
    kw = {x: params[x] for x in keys if x in params}
    return lambda eps, k: terms(eps, k, params["m"], **kw)["log_delta"]


def min_k(target_delta: float, epsilon: float, mechanism: str, **params: Any) -> int | float | None:
    """Smallest integer k >= 16 with delta(k) <= target_delta, or ``None`` if even 1e40 fails.
    Details: docs/label_dp_bags.md §"bounds.min_k" ([BSHNR], Theorems 1.2).
    """
    target = check_in_interval("target_delta", target_delta, 0.0, 1.0, closed="neither")
    eps = check_positive("epsilon", epsilon)
    f = _log_delta_fn(mechanism, params)
    lt = math.log(target)
    if f(eps, 16.0) <= lt:
        return 16
    if f(eps, 1e40) > lt:
        return None
    # ln delta(k) is non-increasing in k: the safe side is the upper end of the bracket.
    k_up = solve_monotone(
        lambda k: f(eps, k), lt, lo=16.0, hi=1e40, increasing=False, safe="upper", rtol=1e-13, what="k"
    )
    kk = int(math.ceil(k_up))
    if kk >= 2**53:
        # k - 1 and k are the same float here: the bisection is as exact as k can be (stepping down by 1 would
        # never change f and never stop). Returned as a float: tables cannot hold integers beyond 64 bits.
        return float(kk)
    while kk > 16 and f(eps, float(kk - 1)) <= lt:
        kk -= 1
    while f(eps, float(kk)) > lt:
        kk += 1
    return kk


def min_eps(target_delta: float, k: float, mechanism: str, **params: Any) -> float | None:
    """Smallest epsilon in [1e-3, 100] with delta(epsilon) <= target_delta (found by
    :func:`~dp_core.calibration.solve_monotone`, rounded up), or ``None`` when even
    epsilon = 100 fails (the tail terms alone exceed it).
    Details: docs/label_dp_bags.md §"bounds.min_eps" ([BSHNR], Theorems 1.2).
    """
    target = check_in_interval("target_delta", target_delta, 0.0, 1.0, closed="neither")
    f = _log_delta_fn(mechanism, params)
    lt = math.log(target)
    if f(100.0, k) > lt:
        return None
    if f(1e-3, k) <= lt:
        return 1e-3
    return solve_monotone(
        lambda e: f(e, k), lt, lo=1e-3, hi=100.0, increasing=False, safe="upper", rtol=1e-12, what="epsilon"
    )


# -- Exact accounting of noisy-wtd-LLP (beyond the paper) ----------------------------------------------------


def gaussian_delta_profile(epsilon: float, shift: Any) -> np.ndarray:
    """Exact Gaussian hockey-stick divergence delta_G(eps; M), vectorized over M = shift/sigma.
    Details: docs/label_dp_bags.md §"bounds.gaussian_delta_profile" ([BW18], Theorem 8.).
    """
    eps = check_positive("epsilon", epsilon, allow_zero=True)
    return np.asarray(gaussian_privacy_profile(eps, shift), dtype=np.float64)


def llp_delta_floor(n: int, k: int, m: int, rho: float) -> float:
    """(m k / n) P[H = 0]: delta of noisy-wtd-LLP cannot go below this for any epsilon.
    Details: docs/label_dp_bags.md §"bounds.llp_delta_floor" ([BSHNR]).
    """
    nn, kk, mm, r = _check_llp_sizes(n, k, m, rho)
    n_noisy = int(round(r * nn))
    if n_noisy >= nn:
        return 0.0
    p0 = float(hypergeom_pmf(0, nn - 1, n_noisy, kk - 1))
    return mm * kk / nn * p0


def hypergeom_pmf(k, M: int, n: int, N: int) -> np.ndarray:
    """``scipy.stats.hypergeom.pmf(k, M, n, N)``: P(k successes in N draws without replacement from M items, n of
    them successes); 0 outside the support.
    Details: docs/label_dp_bags.md §"bounds.hypergeom_pmf".
    """
    k = np.asarray(k)
    M, n, N = int(M), int(n), int(N)
    try:
        from scipy.special._ufuncs import _hypergeom_pmf
    except ImportError:  # pragma: no cover - another scipy layout
        from scipy import stats

        return stats.hypergeom.pmf(k, M, n, N)
    lo, hi = max(0, N - (M - n)), min(N, n)
    inside = (k >= lo) & (k <= hi)
    return np.where(inside, _hypergeom_pmf(np.clip(k, lo, hi), n, N, M), 0.0)


def _check_llp_sizes(n, k, m, rho):
    nn = check_int("n", n, lo=2, hi=10**9)  # the exact pmf has n terms: about 1 s per 1e9
    kk = check_int("k", k, lo=1)
    mm = check_int("m", m, lo=1)
    if mm * kk > nn:
        raise ValueError(f"m*k must be <= n, got m*k = {mm * kk} and n = {nn}; lower k or m.")
    r = check_in_interval("rho", rho, 0.0, 1.0, closed="both")
    return nn, kk, mm, r


@dataclass(frozen=True, slots=True)
class ExactDelta:
    """Exact privacy profile of noisy-wtd-LLP at one epsilon (beyond the paper).
    Details: docs/label_dp_bags.md §"bounds.ExactDelta".
    """

    epsilon: float
    delta: float
    delta_out: float
    delta_in: float
    floor: float
    truncated_mass: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(96)


def _dg(eps: np.ndarray, M: np.ndarray) -> np.ndarray:
    """delta_G broadcast over eps (shape (E, 1, 1)) and M (any shape); M = 0 -> 0, M = inf -> 1."""
    return gaussian_privacy_profile(eps, M)


def _expected_profile(eps: np.ndarray, h: np.ndarray, b_eff: float, inside: bool) -> tuple[np.ndarray, np.ndarray]:
    """E[delta_G(eps; M)] for each eps (rows) and each h >= 1 (columns), plus the tail mass counted as 1.
    Details: docs/label_dp_bags.md §"bounds._expected_profile".
    """
    h = h.astype(np.float64)
    x_max = np.minimum(1.0, 90.0 / np.maximum(h, 1.0))
    phi_max = np.arcsin(np.sqrt(x_max))
    tail = np.where(x_max < 1.0, special.betaincc(0.5, h / 2.0, x_max), 0.0)
    half = phi_max[:, None] / 2.0
    phi = half * (_GL_NODES[None, :] + 1.0)
    wts = half * _GL_WEIGHTS[None, :]
    log_norm = math.log(2.0) - special.betaln(0.5, h / 2.0)
    with np.errstate(divide="ignore"):
        log_dens = log_norm[:, None] + (h[:, None] - 1.0) * np.log(np.cos(phi))
    M = 2.0 * b_eff * (np.sin(phi) if inside else np.tan(phi))
    vals = _dg(eps[:, None, None], M[None, :, :])
    expect = np.einsum("hq,ehq->eh", wts * np.exp(log_dens), vals)
    return np.clip(expect + tail[None, :], 0.0, 1.0), tail


def _mixture(eps: np.ndarray, pop, succ, draws, b_eff, inside, pmf_cut=1e-17):
    lo = max(0, draws - (pop - succ))
    hi = min(draws, succ)
    hs = np.arange(lo, hi + 1)
    pmf = hypergeom_pmf(hs, pop, succ, draws)
    keep = pmf > pmf_cut
    dropped = max(0.0, 1.0 - float(pmf[keep].sum()))
    hs, pmf = hs[keep], pmf[keep]
    val = np.zeros((eps.size, hs.size))
    zero = hs == 0
    if np.any(zero):
        val[:, zero] = _dg(eps[:, None], np.full((1, 1), 2.0 * b_eff)) if inside else 1.0
    tail_mass = 0.0
    if np.any(~zero):
        ev, tail = _expected_profile(eps, hs[~zero], b_eff, inside)
        val[:, ~zero] = ev
        tail_mass = float(np.sum(pmf[~zero] * tail))
    p0 = float(pmf[zero].sum()) if np.any(zero) else 0.0
    return np.minimum(1.0, val @ pmf + dropped), p0, dropped + tail_mass


def llp_exact_delta_curve(
    epsilons, n: int, k: int, m: int, rho: float, b1: float = 1.0, *, noise_std: float = 1.0
) -> list[ExactDelta]:
    """:func:`llp_exact_delta` at many epsilons in one vectorized pass (the pmf and quadrature grid are shared).
    Details: docs/label_dp_bags.md §"bounds.llp_exact_delta_curve".
    """
    eps = np.asarray([check_positive("epsilon", e, allow_zero=True) for e in np.atleast_1d(epsilons)], dtype=float)
    nn, kk, mm, r = _check_llp_sizes(n, k, m, rho)
    b_eff = check_positive("b1", b1) / check_positive("noise_std", noise_std)
    n_noisy = int(round(r * nn))
    q = mm * kk / nn
    d_out = np.full(eps.size, math.nan)
    d_in = np.full(eps.size, math.nan)
    floor = 0.0
    trunc = 0.0
    if n_noisy < nn:
        v, p0, t = _mixture(eps, nn - 1, n_noisy, kk - 1, b_eff, inside=False)
        d_out, floor, trunc = q * v, q * p0, max(trunc, t)
    if n_noisy > 0:
        v, _, t = _mixture(eps, nn - 1, n_noisy - 1, kk - 1, b_eff, inside=True)
        d_in, trunc = q * v, max(trunc, t)
    delta = np.fmax(d_out, d_in)
    return [
        ExactDelta(
            epsilon=float(e),
            delta=float(dv),
            delta_out=float(do),
            delta_in=float(di),
            floor=floor,
            truncated_mass=trunc,
        )
        for e, dv, do, di in zip(eps, delta, d_out, d_in)
    ]


def llp_exact_delta(
    epsilon: float, n: int, k: int, m: int, rho: float, b1: float = 1.0, *, noise_std: float = 1.0
) -> ExactDelta:
    """Exact delta(epsilon) of noisy-wtd-LLP by full-pmf quadrature (beyond the paper).
    Details: docs/label_dp_bags.md §"bounds.llp_exact_delta" ([BW18], [BSHNR], Thm 8, Fig. 2).
    """
    return llp_exact_delta_curve([epsilon], n, k, m, rho, b1, noise_std=noise_std)[0]


def llp_exact_min_eps(
    target_delta: float, n: int, k: int, m: int, rho: float, b1: float = 1.0, *, noise_std: float = 1.0
) -> float | None:
    """Smallest epsilon with exact delta(epsilon) <= target_delta (rounded up), or ``None``
    when the floor (m k / n) P[H = 0] already exceeds the target (or epsilon would exceed 1e4).
    Details: docs/label_dp_bags.md §"bounds.llp_exact_min_eps".
    """
    target = check_in_interval("target_delta", target_delta, 0.0, 1.0, closed="neither")
    first = llp_exact_delta(0.0, n, k, m, rho, b1, noise_std=noise_std)
    if first.delta <= target:
        return 0.0
    if first.floor + first.truncated_mass >= target:
        return None
    lo, hi = 1e-6, 1e4
    for _ in range(5):
        grid = np.geomspace(lo, hi, 40)
        vals = np.array([e.delta for e in llp_exact_delta_curve(grid, n, k, m, rho, b1, noise_std=noise_std)])
        ok = np.nonzero(vals <= target)[0]
        if ok.size == 0:
            return None
        i = int(ok[0])
        if i == 0:
            return float(grid[0])
        lo, hi = float(grid[i - 1]), float(grid[i])
    return hi


# -- Baselines and utility statements ------------------------------------------------------------------------


def baseline_calibration(epsilon: float, delta: float, b1: float) -> dict[str, float]:
    """Per-label noise baselines at the same (epsilon, delta), labels in [-B1, B1] (sensitivity 2 B1).
    Details: docs/label_dp_bags.md §"bounds.baseline_calibration" ([BW18], Algorithm 1, Thm 3.6).
    """
    b = check_positive("b1", b1)
    sigma = gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=2.0 * b)
    lap = laplace_scale(epsilon=epsilon, sensitivity=2.0 * b)
    return {
        "gaussian_sigma": sigma,
        "laplace_scale": lap,
        "gaussian_added_variance": sigma * sigma,
        "laplace_added_variance": 2.0 * lap * lap,
    }


def predicted_ratio_lba(m: int, d: int) -> float:
    """Random-design prediction E[val(D, r_hat)/opt(D, F)] ~ 1 + d/(m - d - 1) for wtd-LBA
    (and weighted LLP without noise, naive LBA/LLP fitted on sums).
    Details: docs/label_dp_bags.md §"bounds.predicted_ratio_lba".
    """
    mm = check_int("m", m, lo=1)
    dd = check_int("d", d, lo=1)
    if mm <= dd + 1:
        return math.inf
    return 1.0 + dd / (mm - dd - 1)


def predicted_ratio_llp(m: int, d: int, rho: float, gamma_hat: float, noise_std: float = 1.0) -> float:
    """Prediction 1 + (1 + rho s^2/gamma_hat) d/(m - d - 1) for linear noisy-wtd-LLP.
    Details: docs/label_dp_bags.md §"bounds.predicted_ratio_llp".
    """
    r = check_in_interval("rho", rho, 0.0, 1.0)
    g = check_positive("gamma_hat", gamma_hat)
    s = check_positive("noise_std", noise_std)
    mm = check_int("m", m, lo=1)
    dd = check_int("d", d, lo=1)
    if mm <= dd + 1:
        return math.inf
    return 1.0 + (1.0 + r * s * s / g) * dd / (mm - dd - 1)


def predicted_ratio_label_noise(n: int, d: int, noise_variance: float, gamma_hat: float) -> float:
    """Prediction 1 + (1 + s^2/gamma_hat) d/(n - d - 1) for OLS on all n noisy labels.
    Details: docs/label_dp_bags.md §"bounds.predicted_ratio_label_noise".
    """
    nn = check_int("n", n, lo=1)
    dd = check_int("d", d, lo=1)
    v = check_positive("noise_variance", noise_variance, allow_zero=True)
    g = check_positive("gamma_hat", gamma_hat)
    if nn <= dd + 1:
        return math.inf
    return 1.0 + (1.0 + v / g) * dd / (nn - dd - 1)


def lba_utility_failure_log_prob(
    m: float, k: float, d: int, theta: float, gamma: float, B: float, c0: float = 0.5
) -> float:
    """ln P_fail of the wtd-LBA utility statement (capped at 0, i.e. P_fail <= 1).
    Details: docs/label_dp_bags.md §"bounds.lba_utility_failure_log_prob" ([LM00], [BSHNR], Theorem 1.2, Lemma
    3.5).
    """
    mm = check_positive("m", m)
    kk = check_positive("k", k)
    dd = check_int("d", d, lo=1)
    th = check_in_interval("theta", theta, 0.0, 1.0, closed="neither")
    g = check_positive("gamma", gamma)
    b = check_positive("B", B)
    cc = check_positive("c0", c0)
    log_net = dd * math.log1p(48.0 * mm * mm * kk * b * b / (th * g))
    t1 = math.log(2.0) - mm * kk * th * th * g * g / (72.0 * b**4)
    t2 = math.log(2.0) - cc * mm * th * th * g * g / (144.0 * b**4)
    t3 = math.log(kk) + 0.5 * math.log(2.0 / math.pi) - mm * mm / 2.0
    return _cap(_logsumexp([log_net + _logsumexp([t1, t2]), t3]))


def lba_utility_required_m(
    target: float, k: float, d: int, theta: float, gamma: float, B: float, c0: float = 0.5
) -> float:
    """Smallest m >= 1 (real, rounded up by :func:`~dp_core.calibration.solve_monotone`) with
    P_fail <= target for the wtd-LBA utility bound.
    Details: docs/label_dp_bags.md §"bounds.lba_utility_required_m" ([BSHNR]).
    """
    t = check_in_interval("target", target, 0.0, 1.0, closed="neither")
    lt = math.log(t)
    f = partial(lba_utility_failure_log_prob, k=k, d=d, theta=theta, gamma=gamma, B=B, c0=c0)
    if f(1e40) > lt:
        return math.inf
    if f(1.0) <= lt:
        return 1.0
    return solve_monotone(f, lt, lo=1.0, hi=1e40, increasing=False, safe="upper", rtol=1e-12, what="m")


# -- Summaries for the CLI and the page ----------------------------------------------------------------------


def vacuous_statement(delta: float, what: str) -> str:
    """A plain-words sentence about a delta value (never presents delta >= 1 as a guarantee)."""
    if delta >= 1.0:
        return f"{what}: delta >= 1, so this accounting gives no privacy guarantee at all (vacuous)."
    if delta >= 0.1:
        return (
            f"{what}: delta = {delta:.3g}, a guarantee in name only "
            f"(one person in {1 / delta:.0f} may be fully exposed)."
        )
    return f"{what}: delta = {delta:.3g}."


@computable
def accounting_summary(
    *,
    variant: str,
    epsilon: float,
    n: int,
    k: int,
    m: int,
    b1: float = 1.0,
    rho: float = 0.1,
    noise_std: float = 1.0,
    d: int | None = None,
    b2: float | None = None,
    gamma: float | None = None,
    lam: float | None = None,
    target_delta: float | None = None,
    exact: bool = True,
) -> dict[str, Any]:
    """All accountings of one setting as one flat dict (for the CLI and the page).
    Details: docs/label_dp_bags.md §"bounds.accounting_summary" ([BSHNR], Theorems 1.2).
    """
    check_choice("variant", variant, ("noisy-wtd-llp", "wtd-lba"))
    nn = check_int("n", n, lo=2)
    kk = check_int("k", k, lo=2)
    mm = check_int("m", m, lo=1)
    check_epsilon(epsilon, allow_inf=False)
    check_positive("b1", b1)
    check_positive("noise_std", noise_std)
    if mm * kk > nn:
        raise ValueError(
            f"m*k must be <= n (disjoint bags), got m*k = {mm * kk} > n = {nn}; the largest feasible k for m = {mm} is "
            f"{nn // mm}."
        )
    out: dict[str, Any] = {
        "mechanism": variant,
        "epsilon": float(epsilon),
        "n": nn,
        "k": kk,
        "m": mm,
        "b1": float(b1),
        "k_max_feasible": nn // mm,
        "fraction_used": mm * kk / nn,
        "naive_lower_bound": mm * kk / nn,
    }
    if variant == "noisy-wtd-llp":
        check_in_interval("rho", rho, 0.0, 1.0)
        out.update({"rho": float(rho), "noise_std": float(noise_std), "b1_eff": float(b1) / float(noise_std)})
        if rho == 0.0:
            return _no_noise_summary(out)
        _llp_summary(out, epsilon, rho, b1, noise_std, target_delta, exact)
    else:
        _lba_summary(out, epsilon, d, b1, b2, gamma, lam, target_delta)
    if target_delta is not None:
        out["target_delta"] = float(target_delta)
    out["statement_paper"] = vacuous_statement(out["delta_paper"], "As claimed by the paper")
    out["statement_explicit"] = vacuous_statement(out["delta_explicit"], "Corrected explicit bound")
    if "delta_exact" in out:
        out["statement_exact"] = vacuous_statement(out["delta_exact"], "Exact (beyond the paper)")
    return out


def _no_noise_summary(out: dict[str, Any]) -> dict[str, Any]:
    """:func:`accounting_summary` of noisy-wtd-LLP at rho = 0: weighted LLP without noise, not label-DP."""
    floor = out["naive_lower_bound"]
    out.update(delta_paper=1.0, delta_explicit=1.0, delta_exact=floor, delta_floor=floor)
    out["statement"] = "rho = 0 is weighted LLP without noise: not label-DP, delta >= m*k/n for every epsilon."
    out.update(paper_dominant="no noise", explicit_dominant="no noise")
    out["statement_paper"] = vacuous_statement(1.0, "As claimed by the paper")
    out["statement_explicit"] = vacuous_statement(1.0, "Corrected explicit bound")
    out["statement_exact"] = (
        f"Exact: delta = m*k/n = {floor:.3g} for every epsilon; with rho = 0 the mechanism is not label-DP."
    )
    return out


def _paper_and_explicit(out, mechanism, epsilon, target_delta, params: dict[str, Any], extra=()) -> None:
    """The paper-literal and explicit entries of :func:`accounting_summary` (delta, its terms, the dominant one,
    ``extra`` constants and, with ``target_delta``, the smallest k and epsilon), added to ``out``."""
    kk = out["k"]
    lba = mechanism == "wtd-lba"
    for label, (var, mode, form) in (("paper", ACCOUNTINGS["paper"]), ("explicit", ACCOUNTINGS["corrected"])):
        kw = dict(params, variant=var, mode=mode, **({"form": form} if lba else {}))
        t = (terms_wtd_lba if lba else terms_noisy_wtd_llp)(epsilon, kk, **kw)
        out[f"delta_{label}"] = t["delta"]
        for name in TERMS[mechanism]:
            out[f"{label}_{name}"] = t[name]
        out[f"{label}_dominant"] = t["dominant"]
        out.update({x: t[x] for x in extra})
        if target_delta is not None:
            out[f"k_min_{label}"] = min_k(target_delta, epsilon, mechanism, **kw)
            out[f"eps_min_{label}"] = min_eps(target_delta, kk, mechanism, **kw)


def _llp_summary(out, epsilon, rho, b1, noise_std, target_delta, exact) -> None:
    """The noisy-wtd-LLP entries of :func:`accounting_summary` (paper-literal, explicit, exact), added to ``out``."""
    nn, kk, mm = out["n"], out["k"], out["m"]
    params = {"m": mm, "rho": rho, "b1": b1, "noise_std": noise_std}
    _paper_and_explicit(out, "noisy-wtd-llp", epsilon, target_delta, params, ("kappa", "beta"))
    out["delta_floor"] = llp_delta_floor(nn, kk, mm, rho)
    if exact:
        ex = llp_exact_delta(epsilon, nn, kk, mm, rho, b1, noise_std=noise_std)
        out.update(delta_exact=ex.delta, delta_exact_out=ex.delta_out, delta_exact_in=ex.delta_in)
        if target_delta is not None:
            out["eps_min_exact"] = llp_exact_min_eps(target_delta, nn, kk, mm, rho, b1, noise_std=noise_std)


def _lba_summary(out, epsilon, d, b1, b2, gamma, lam, target_delta) -> None:
    """The wtd-LBA entries of :func:`accounting_summary` (paper-literal and explicit), added to ``out``."""
    if None in (d, b2, gamma, lam):
        raise ValueError("wtd-lba accounting needs d, b2, gamma and lam (see data_conditions).")
    params = {"m": out["m"], "d": d, "b1": b1, "b2": b2, "gamma": gamma, "lam": lam}
    out.update({"d": int(d), "b2": float(b2), "gamma": float(gamma), "lam": float(lam)})
    _paper_and_explicit(out, "wtd-lba", epsilon, target_delta, params)
