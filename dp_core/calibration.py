"""Noise calibration: pure formulas for the scale of the noise a guarantee needs.

Degenerate cases are handled here, once: ``epsilon == inf`` or ``sensitivity == 0`` give a scale
of 0 (no noise is needed).

References
----------
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   Thm 3.6 (Laplace) and Thm A.1 (classic Gaussian, epsilon < 1).
.. [BW18] B. Balle and Y.-X. Wang, *Improving the Gaussian Mechanism for Differential Privacy:
   Analytical Calibration and Optimal Denoising*, ICML 2018, Thm 8 (exact privacy profile).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from scipy.special import log_ndtr

from ._validation import check_delta, check_epsilon, check_positive
from .exceptions import InvalidPrivacyParameter

__all__ = [
    "NoiseSpec",
    "laplace_scale",
    "laplace_epsilon",
    "gaussian_sigma_classic",
    "gaussian_epsilon_classic",
    "gaussian_delta_analytic",
    "gaussian_sigma_analytic",
    "gaussian_epsilon_analytic",
    "solve_monotone",
]


@dataclass(frozen=True, slots=True)
class NoiseSpec:
    """A calibrated noise distribution: its family, its scale and the guarantee it gives."""

    family: str
    scale: float
    epsilon: float
    delta: float
    sensitivity: float


def solve_monotone(
    f: Callable[[float], float],
    target: float,
    *,
    lo: float,
    hi: float,
    increasing: bool,
    safe: str,
    rtol: float = 1e-12,
    max_doublings: int = 200,
    what: str = "the parameter",
) -> float:
    """Solve ``f(x) = target`` for a monotone ``f`` on ``(lo, inf)`` and round to the safe side.

    The bracket ``[lo, hi]`` grows by doubling ``hi`` (at most ``max_doublings`` times), then
    bisection runs in log space until the bracket is narrower than ``rtol`` relative. ``safe``
    says which end of the final bracket is returned: ``"upper"`` or ``"lower"``. Returning a
    bracket end, not the midpoint, keeps the answer on the conservative side of the root.

    >>> round(solve_monotone(lambda x: x * x, 2.0, lo=1e-9, hi=1.0, increasing=True, safe="upper"), 9)
    1.414213562
    """
    if safe not in ("upper", "lower"):
        raise ValueError(f"safe must be 'upper' or 'lower', got {safe!r}.")
    sign = 1.0 if increasing else -1.0

    def g(x: float) -> float:  # increasing in x, root at the solution
        return sign * (f(x) - target)

    if g(lo) > 0:
        raise InvalidPrivacyParameter(f"no solution for {what}: already exceeded at the smallest value {lo:g}.")
    for _ in range(max_doublings):
        if g(hi) >= 0:
            break
        lo, hi = hi, hi * 2.0
    else:
        raise InvalidPrivacyParameter(
            f"no solution for {what}: the search grew past {hi:g}; the privacy budget is too small."
        )
    for _ in range(400):
        if hi - lo <= rtol * hi:
            break
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 4 else 0.5 * (lo + hi)
        if g(mid) >= 0:
            hi = mid
        else:
            lo = mid
    return hi if safe == "upper" else lo


def laplace_scale(*, epsilon: float, sensitivity: float) -> float:
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism ([DR14] Thm 3.6).

    Parameters
    ----------
    epsilon : float
        Privacy budget. Must be in (0, inf]; ``inf`` gives 0.
    sensitivity : float
        The l1 sensitivity. Must be in [0, inf).

    >>> laplace_scale(epsilon=0.5, sensitivity=1.0)
    2.0
    """
    eps = check_epsilon(epsilon)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(eps):
        return 0.0
    return sens / eps


def laplace_epsilon(*, scale: float, sensitivity: float) -> float:
    """Inverse of :func:`laplace_scale`: the epsilon that Laplace noise of ``scale`` gives."""
    b = check_positive("scale", scale, allow_zero=True)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0:
        return 0.0
    return math.inf if b == 0.0 else sens / b


def gaussian_sigma_classic(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """Classic Gaussian mechanism: ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon``.

    Valid only for ``epsilon < 1`` ([DR14] Thm A.1); this function returns the formula's value
    for any epsilon in (0, 1] and raises for larger values, naming the analytic calibration.

    >>> round(gaussian_sigma_classic(epsilon=1.0, delta=1e-5, sensitivity=1.0), 4)
    4.8448
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(eps):
        return 0.0
    if eps > 1.0:
        raise InvalidPrivacyParameter(
            f"epsilon must be in (0, 1] for the classic Gaussian calibration, got {eps:g}; "
            "use the analytic calibration (gaussian_sigma_analytic) instead."
        )
    return sens * math.sqrt(2.0 * math.log(1.25 / d)) / eps


def gaussian_epsilon_classic(*, sigma: float, delta: float, sensitivity: float) -> float:
    """Inverse of :func:`gaussian_sigma_classic`; raises when the result would exceed 1."""
    s = check_positive("sigma", sigma, allow_inf=True)
    d = check_delta(delta)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(s):
        return 0.0
    eps = sens * math.sqrt(2.0 * math.log(1.25 / d)) / s
    if eps > 1.0:
        raise InvalidPrivacyParameter(
            f"sigma must be at least {sens * math.sqrt(2.0 * math.log(1.25 / d)):g} for the classic "
            f"Gaussian bound to apply (it needs epsilon <= 1), got {s:g}; use the analytic inverse instead."
        )
    return eps


def _log_sub_exp(a: float, b: float) -> float:
    """log(exp(a) - exp(b)) for a >= b, -inf when equal."""
    if b > a:
        return -math.inf if math.isclose(a, b, rel_tol=1e-15, abs_tol=1e-300) else float("nan")
    if b == -math.inf:
        return a
    return a + math.log1p(-math.exp(b - a)) if a != b else -math.inf


def gaussian_delta_analytic(*, sigma: float, epsilon: float, sensitivity: float) -> float:
    """Exact privacy profile of the Gaussian mechanism ([BW18] Thm 8).

    :math:`\\delta(\\varepsilon) = \\Phi(\\tfrac{\\Delta}{2\\sigma} - \\tfrac{\\varepsilon\\sigma}{\\Delta})
    - e^{\\varepsilon}\\,\\Phi(-\\tfrac{\\Delta}{2\\sigma} - \\tfrac{\\varepsilon\\sigma}{\\Delta})`,
    evaluated in log space.

    >>> round(gaussian_delta_analytic(sigma=3.7306, epsilon=1.0, sensitivity=1.0) * 1e5, 3)
    1.0
    """
    s = check_positive("sigma", sigma, allow_inf=True)
    eps = check_positive("epsilon", epsilon, allow_zero=True, allow_inf=True)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(s) or math.isinf(eps):
        return 0.0
    a = sens / (2.0 * s) - eps * s / sens
    b = -sens / (2.0 * s) - eps * s / sens
    log_delta = _log_sub_exp(float(log_ndtr(a)), eps + float(log_ndtr(b)))
    if math.isnan(log_delta):  # rounding at extreme arguments; the true value is tiny
        return 0.0
    return max(0.0, math.exp(log_delta))


def gaussian_sigma_analytic(*, epsilon: float, delta: float, sensitivity: float, rtol: float = 1e-12) -> float:
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP ([BW18] Alg. 1).

    Found by bisection on the exact privacy profile and rounded up (the safe side), so that
    ``gaussian_delta_analytic(sigma=result, ...) <= delta``. Valid for every epsilon > 0.

    >>> round(gaussian_sigma_analytic(epsilon=1.0, delta=1e-5, sensitivity=1.0), 4)
    3.7306
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(eps):
        return 0.0
    # delta(sigma) decreases in sigma; work with the unit-sensitivity problem and scale.
    unit = solve_monotone(
        lambda s: gaussian_delta_analytic(sigma=s, epsilon=eps, sensitivity=1.0),
        d,
        lo=1e-6,
        hi=1.0,
        increasing=False,
        safe="upper",
        rtol=rtol,
        what="sigma",
    )
    return sens * unit


def gaussian_epsilon_analytic(*, sigma: float, delta: float, sensitivity: float, rtol: float = 1e-12) -> float:
    """Smallest epsilon for which Gaussian noise of ``sigma`` is (epsilon, delta)-DP.

    The inverse of :func:`gaussian_sigma_analytic`, rounded up (the safe side). Returns 0 when
    ``delta`` already covers the whole privacy loss at epsilon = 0.

    >>> round(gaussian_epsilon_analytic(sigma=3.7306, delta=1e-5, sensitivity=1.0), 3)
    1.0
    """
    s = check_positive("sigma", sigma, allow_zero=True, allow_inf=True)
    d = check_delta(delta)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(s):
        return 0.0
    if s == 0.0:
        return math.inf
    r = s / sens
    if gaussian_delta_analytic(sigma=r, epsilon=0.0, sensitivity=1.0) <= d:
        return 0.0
    return solve_monotone(
        lambda e: gaussian_delta_analytic(sigma=r, epsilon=e, sensitivity=1.0),
        d,
        lo=0.0 + 1e-300,
        hi=1.0,
        increasing=False,
        safe="upper",
        rtol=rtol,
        what="epsilon",
    )


def gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float, method: str = "analytic") -> float:
    """Dispatch to the ``"analytic"`` or ``"classic"`` Gaussian calibration."""
    if method == "analytic":
        return gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    if method == "classic":
        return gaussian_sigma_classic(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    raise ValueError(f"method must be one of 'analytic', 'classic', got {method!r}.")


__all__.append("gaussian_sigma")
