"""Noise calibration: pure formulas for the scale of the noise a guarantee needs.

``epsilon == inf`` or ``sensitivity == 0`` give a scale of 0, here once. Formulas, references ([DR14],
[CMS11], [BW18]) and the root search are described in ``docs/engine.md`` §"Calibration".
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import log_ndtr

from ._validation import check_choice, check_delta, check_epsilon, check_positive
from .exceptions import InvalidPrivacyParameter

__all__ = [
    "laplace_scale",
    "laplace_epsilon",
    "output_perturbation_sensitivity",
    "sample_laplace_norm",
    "gaussian_sigma_classic",
    "gaussian_epsilon_classic",
    "gaussian_privacy_profile",
    "gaussian_delta_analytic",
    "gaussian_sigma_analytic",
    "gaussian_epsilon_analytic",
    "gaussian_sigma",
    "solve_monotone",
]


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
    integer: bool = False,
    what: str = "the parameter",
) -> float:
    """Solve ``f(x) = target`` for a monotone ``f`` on ``(lo, inf)`` and return the bracket end on the ``safe``
    side (``"upper"``: smallest ``x`` with ``f`` past the target; ``"lower"``: largest before it); the bracket
    grows by doubling ``hi``. ``integer=True`` searches integers. The one root search of :mod:`dp_core`
    (docs/engine.md §"Calibration").

    >>> round(solve_monotone(lambda x: x * x, 2.0, lo=1e-9, hi=1.0, increasing=True, safe="upper"), 9)
    1.414213562
    >>> solve_monotone(lambda k: k * k, 50, lo=1, hi=2, increasing=True, safe="upper", integer=True)
    8
    """
    if safe not in ("upper", "lower"):
        raise ValueError(f"safe must be 'upper' or 'lower', got {safe!r}.")
    sign = 1.0 if increasing else -1.0

    def g(x: float) -> float:  # non-decreasing in x, root at the solution
        return sign * (f(x) - target)

    if integer:
        lo, hi = int(math.floor(lo)), int(math.ceil(hi))
    if g(lo) > 0:
        raise InvalidPrivacyParameter(f"no solution for {what}: already exceeded at the smallest value {lo:g}.")
    for _ in range(max_doublings):
        if g(hi) >= 0:
            break
        lo, hi = hi, hi * 2
    else:
        raise InvalidPrivacyParameter(
            f"no solution for {what}: the search grew past {hi:g}; the privacy budget is too small."
        )
    if integer:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if g(mid) >= 0 else (mid, hi)
        return hi if safe == "upper" else lo
    for _ in range(400):
        if hi - lo <= rtol * hi:
            break
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 4 else 0.5 * (lo + hi)
        lo, hi = (lo, mid) if g(mid) >= 0 else (mid, hi)
    return hi if safe == "upper" else lo


def laplace_scale(*, epsilon: float, sensitivity: float) -> float:
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism ([DR14] Thm 3.6); ``epsilon`` in (0, inf]
    (``inf`` gives 0), ``sensitivity`` (l1) in [0, inf).

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


def output_perturbation_sensitivity(*, lipschitz: float, n: float, lam: float) -> float:
    """L2 sensitivity ``2 L / (n lam)`` of the minimiser of a ``lam``-strongly convex regularised
    empirical risk whose per-record loss is ``L``-Lipschitz ([CMS11] Corollary 8; docs/engine.md §"Calibration").

    >>> output_perturbation_sensitivity(lipschitz=1.0, n=100, lam=0.1)
    0.2
    """
    L = check_positive("lipschitz", lipschitz, allow_zero=True)
    nn = check_positive("n", n)
    lm = check_positive("lam", lam)
    return 2.0 * L / (nn * lm)


def sample_laplace_norm(rng, size: int, d: int, *, scale: float = 1.0, radius_first: bool = False) -> np.ndarray:
    """``size`` draws in R^d, shape ``(size, d)``, of the density ``∝ exp(-||b|| / scale)`` ([CMS11] Algorithm 1):
    a uniform direction times a ``Gamma(d, scale)`` radius from ``rng``; ``radius_first=True`` draws the radii
    first (the large-margin mechanism's order). docs/engine.md §"Calibration".

    >>> b = sample_laplace_norm(np.random.default_rng(0), 2000, 3, scale=0.5)
    >>> b.shape, round(float(np.linalg.norm(b, axis=1).mean()), 1)  # E||b|| = d * scale
    ((2000, 3), 1.5)
    """
    if radius_first:
        r = rng.gamma(d, scale, size=(size, 1))
        z = rng.standard_normal((size, d))
    else:
        z = rng.standard_normal((size, d))
        r = rng.gamma(d, scale, size=(size, 1))
    nrm = np.linalg.norm(z, axis=1, keepdims=True)
    nrm[nrm == 0.0] = 1.0
    # each caller's historical operation order, so that seeded draws stay bit-identical
    return r * z / nrm if radius_first else z / nrm * r


def gaussian_sigma_classic(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """Classic Gaussian mechanism: ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon``.

    Valid only for ``epsilon < 1`` ([DR14] Thm A.1); raises for epsilon > 1, naming the analytic calibration.

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


def _profile_formula(e, M, exp, expm1, minimum):
    """[BW18] Thm 8 at ``0 < M < inf``, ``e < inf``, written once for floats and arrays alike."""
    a = M / 2.0 - e / M
    b = -M / 2.0 - e / M
    la = log_ndtr(a)
    lb = e + log_ndtr(b)
    return exp(la) * -expm1(minimum(lb - la, 0.0))


def gaussian_privacy_profile(epsilon, mu):
    """Exact privacy profile of a ``mu``-GDP Gaussian release, broadcast over both arguments ([BW18] Thm 8):
    ``Φ(mu/2 - ε/mu) - e^ε Φ(-mu/2 - ε/mu)`` in log space, ``mu = sensitivity / sigma``. No validation; scalars
    give a float, arrays an array. The one implementation in :mod:`dp_core` (docs/engine.md §"Calibration").

    >>> [round(float(gaussian_privacy_profile(e, m)), 4) for e, m in [(1, 0.5), (1, 2), (0.3, 1)]]
    [0.0068, 0.5099, 0.2933]
    """
    if isinstance(epsilon, (int, float)) and isinstance(mu, (int, float)):
        e, M = float(epsilon), float(mu)
        if not (M > 0.0 and e < math.inf):
            return 0.0
        if M == math.inf:
            return 1.0
        val = float(_profile_formula(e, M, math.exp, math.expm1, min))
        # nan only from rounding at extreme arguments, where the true value is tiny; no -0.0
        return min(val, 1.0) if val > 0.0 else 0.0
    eps = np.asarray(epsilon, dtype=np.float64)
    M = np.asarray(mu, dtype=np.float64)
    e = np.where(np.isinf(eps), 0.0, eps)  # epsilon = inf: masked to 0 below
    Mp = np.where(M > 0, M, 1.0)  # mu = 0: masked to 0 below; mu = inf gives 1 on its own
    val = _profile_formula(e, Mp, np.exp, np.expm1, np.minimum)
    val = np.where((M > 0) & (eps < math.inf) & ~np.isnan(val), val, 0.0)
    return np.clip(val, 0.0, 1.0) + 0.0  # + 0.0 turns -0.0 into 0.0


def gaussian_delta_analytic(*, sigma: float, epsilon: float, sensitivity: float) -> float:
    """Exact privacy profile of the Gaussian mechanism ([BW18] Thm 8): :func:`gaussian_privacy_profile` at
    ``mu = sensitivity / sigma``, validated.

    >>> round(gaussian_delta_analytic(sigma=3.7306, epsilon=1.0, sensitivity=1.0) * 1e5, 3)
    1.0
    """
    s = check_positive("sigma", sigma, allow_inf=True)
    eps = check_positive("epsilon", epsilon, allow_zero=True, allow_inf=True)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(s) or math.isinf(eps):
        return 0.0
    return gaussian_privacy_profile(eps, sens / s)


def gaussian_sigma_analytic(*, epsilon: float, delta: float, sensitivity: float, rtol: float = 1e-12) -> float:
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP ([BW18] Alg. 1).

    Bisection on the exact profile, rounded up: ``gaussian_delta_analytic(sigma=result, ...) <= delta``.

    >>> round(gaussian_sigma_analytic(epsilon=1.0, delta=1e-5, sensitivity=1.0), 4)
    3.7306
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive("sensitivity", sensitivity, allow_zero=True)
    if sens == 0.0 or math.isinf(eps):
        return 0.0

    # delta(sigma) decreases in sigma; work with the unit-sensitivity problem and scale.
    def delta_at(s: float) -> float:
        return gaussian_delta_analytic(sigma=s, epsilon=eps, sensitivity=1.0)

    unit = solve_monotone(delta_at, d, lo=1e-6, hi=1.0, increasing=False, safe="upper", rtol=rtol, what="sigma")
    return sens * unit


def gaussian_epsilon_analytic(*, sigma: float, delta: float, sensitivity: float, rtol: float = 1e-12) -> float:
    """Smallest epsilon for which Gaussian noise of ``sigma`` is (epsilon, delta)-DP, rounded up (0 when
    ``delta`` covers the whole privacy loss at epsilon = 0); the inverse of :func:`gaussian_sigma_analytic`.

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

    def delta_at(e: float) -> float:
        return gaussian_delta_analytic(sigma=r, epsilon=e, sensitivity=1.0)

    return solve_monotone(delta_at, d, lo=1e-300, hi=1.0, increasing=False, safe="upper", rtol=rtol, what="epsilon")


def gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float, method: str = "analytic") -> float:
    """Dispatch to the ``"analytic"`` or ``"classic"`` Gaussian calibration."""
    check_choice("method", method, ("analytic", "classic"))
    sigma = gaussian_sigma_analytic if method == "analytic" else gaussian_sigma_classic
    return sigma(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
