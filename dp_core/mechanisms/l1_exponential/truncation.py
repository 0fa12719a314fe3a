"""The truncation function psi_theta, the surrogate l1 risk, its score and its sensitivity. Wang & Xu, eqs. (2), (3),
(6), (15), (16), Algorithms 1-2; docs/l1_exponential.md §"truncation (module)", §"Sensitivity and temperatures"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_choice, check_epsilon, check_in_interval, check_int, check_positive, check_Xy

__all__ = [
    "CONVENTIONS",
    "CONVENTION_LABELS",
    "THETA_MIN",
    "check_theta",
    "psi",
    "psi_prime",
    "surrogate_cost",
    "surrogate_cost_and_grad",
    "surrogate_risk",
    "score",
    "cost_sensitivity",
    "score_sensitivity",
    "kappa",
    "Guarantee",
    "convention_guarantee",
    "exact_sampler_suffix",
]

#: The three temperature conventions of docs/l1_exponential.md §"Sensitivity and temperatures" (default first).
CONVENTIONS = ("tight", "paper_proof", "paper_box")

#: How each convention is labelled wherever it is shown.
CONVENTION_LABELS = {
    "tight": "tight (exact sensitivity; ε-DP, default)",
    "paper_proof": "paper_proof (the proofs' constant 4·log θ; ε-DP, over-private: effective ε/2)",
    "paper_box": (
        "paper_box (as printed in the paper's Algorithms 1-2; valid only under add/remove neighbours with "
        "ι, ζ and the net fixed independently of n; exactly 2ε-DP under replace-one)"
    ),
}

#: The smallest theta accepted (docs/l1_exponential.md §"The truncated score": psi vanishes as theta -> 1).
THETA_MIN = 1.05

# Elements per block when a (points x samples) residual matrix is formed: bounded memory and blocks that stay in cache.
_BLOCK_ELEMENTS = 1 << 16


def check_theta(theta: float, *, name: str = "theta") -> float:
    """Validate the moment order theta in [1.05, 2] (docs/l1_exponential.md §"The truncated score")."""
    return check_in_interval(name, theta, THETA_MIN, 2.0, closed="both")


def _powers(c: NDArray[np.float64], theta: float) -> NDArray[np.float64]:
    """``c ** (theta - 1)`` with the cheap special cases theta = 2 and theta = 1.5."""
    if theta == 2.0:
        return c.copy()
    if theta == 1.5:
        return np.sqrt(c)
    return np.power(c, theta - 1.0)


def _psi_parts(a: NDArray[np.float64], theta: float, want_grad: bool):
    """psi_theta(a) and (optionally) psi'_theta(a) for a >= 0, computed together.
    See docs/l1_exponential.md §"truncation._psi_parts"."""
    c = np.minimum(a, 1.0)
    p = _powers(c, theta)
    q = c * p
    q *= 1.0 / theta
    q -= c
    if a.dtype == np.float32:
        # float32 (MCMC only): log(1 + q) is as accurate as float32 allows and 3x faster than log1p.
        den = q + 1.0
        grad = None
        if want_grad:
            np.subtract(1.0, p, out=p)
            grad = np.divide(p, den, out=p)
        val = np.log(den, out=den)
        np.negative(val, out=val)
        return val, grad
    val = -np.log1p(q)
    if not want_grad:
        return val, None
    q += 1.0
    grad = 1.0 - p
    grad /= q
    return val, grad


def psi(a: ArrayLike, theta: float) -> NDArray[np.float64]:
    """The truncation function psi_theta on non-negative arguments. Wang & Xu, eqs. (6) and (16); docs/l1_exponential.md
    §"The truncated score". See docs/l1_exponential.md §"truncation.psi"."""
    theta = check_theta(theta)
    x = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("a must contain finite values >= 0 (psi is evaluated at iota*|residual|).")
    return _psi_parts(x, theta, want_grad=False)[0]


def psi_prime(a: ArrayLike, theta: float) -> NDArray[np.float64]:
    """Derivative of psi_theta for non-negative arguments. docs/l1_exponential.md §"The truncated score" (used by the
    gradient-based sampler). See docs/l1_exponential.md §"truncation.psi_prime"."""
    theta = check_theta(theta)
    x = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("a must contain finite values >= 0 (psi is evaluated at iota*|residual|).")
    return _psi_parts(x, theta, want_grad=True)[1]


def _as_points(w: ArrayLike, d: int) -> tuple[NDArray[np.float64], bool]:
    W = np.asarray(w, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    if W.ndim != 2 or W.shape[1] != d:
        raise ValueError(f"w must have shape (d,) or (k, d) with d = {d}, got shape {np.shape(w)}.")
    if not np.all(np.isfinite(W)):
        raise ValueError("w must contain finite values.")
    return W, single


def _cost_blocks(W, X, y, iota, theta, want_grad):
    """Summed cost S (and its gradient) for every row of W, in cache-sized blocks.
    See docs/l1_exponential.md §"truncation._cost_blocks"."""
    k, n = W.shape[0], X.shape[0]
    dt = X.dtype.type
    S = np.empty(k)
    G = np.empty((k, X.shape[1])) if want_grad else None
    rows = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, k, rows):
        stop = min(k, start + rows)
        r = W[start:stop].astype(dt, copy=False) @ X.T
        np.subtract(y, r, out=r)  # r = y - <x, w>
        a = np.abs(r)
        a *= dt(iota)
        val, grad = _psi_parts(a, theta, want_grad)
        S[start:stop] = val.sum(axis=1, dtype=np.float64)
        if want_grad:
            np.copysign(grad, r, out=grad)
            grad[r == 0.0] = 0.0
            G[start:stop] = grad @ X
            G[start:stop] *= -iota
    return S, G


def surrogate_cost(
    w: ArrayLike, X: ArrayLike, y: ArrayLike, *, iota: float, theta: float
) -> NDArray[np.float64] | float:
    """Summed surrogate cost ``S(w) = sum_i psi_theta(iota * |y_i - <x_i, w>|)``. Wang & Xu, eq. (2):
    ``S = n * iota * L_iota``; docs/l1_exponential.md §"The truncated score". See docs/l1_exponential.md
    §"truncation.surrogate_cost"."""
    X, y = check_Xy(X, y, min_rows=1)
    iota = check_positive("iota", iota)
    theta = check_theta(theta)
    W, single = _as_points(w, X.shape[1])
    S, _ = _cost_blocks(W, X, y, iota, theta, want_grad=False)
    return float(S[0]) if single else S


def surrogate_cost_and_grad(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, iota: float, theta: float):
    """``S(w)`` and its gradient ``-iota * sum_i psi'(iota|r_i|) sign(r_i) x_i`` (sign(0) = 0). docs/l1_exponential.md
    §"The truncated score" (gradient, a.e.). See docs/l1_exponential.md §"truncation.surrogate_cost_and_grad"."""
    X, y = check_Xy(X, y, min_rows=1)
    iota = check_positive("iota", iota)
    theta = check_theta(theta)
    W, single = _as_points(w, X.shape[1])
    S, G = _cost_blocks(W, X, y, iota, theta, want_grad=True)
    return (float(S[0]), G[0]) if single else (S, G)


def surrogate_risk(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, iota: float, theta: float):
    """Truncated empirical risk ``L_iota(w) = S(w) / (n * iota)`` (the score is its negative). Wang & Xu, eq. (2). See
    docs/l1_exponential.md §"truncation.surrogate_risk"."""
    S = surrogate_cost(w, X, y, iota=iota, theta=theta)
    n = np.asarray(X).shape[0]
    return S / (n * float(iota))


def score(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, iota: float, theta: float):
    """The exponential mechanism's score ``u(D, w) = -L_iota(w; D)`` (sensitivity :func:`score_sensitivity`). Wang & Xu,
    Algorithms 1-2 (score) and Definition 2; docs/l1_exponential.md §"The truncated score". See docs/l1_exponential.md
    §"truncation.score"."""
    return -surrogate_risk(w, X, y, iota=iota, theta=theta)


def cost_sensitivity(theta: float) -> float:
    """Exact sensitivity of the summed cost S: ``log theta`` (replace-one and add/remove).
    docs/l1_exponential.md §"The truncated score" (each summand lies in [0, log theta], both ends attainable).
    See docs/l1_exponential.md §"truncation.cost_sensitivity"."""
    return math.log(check_theta(theta))


def score_sensitivity(n: int, iota: float, theta: float, *, kind: str = "exact") -> float:
    """Sensitivity of the score ``-L_iota``. Wang & Xu, proofs of Theorems 1-2; docs/l1_exponential.md
    §"Sensitivity and temperatures". See docs/l1_exponential.md §"truncation.score_sensitivity"."""
    n = check_int("n", n, lo=1)
    iota = check_positive("iota", iota)
    check_choice("kind", kind, ("exact", "paper"))
    factor = 1.0 if kind == "exact" else 2.0
    return factor * cost_sensitivity(theta) / (n * iota)


def kappa(epsilon: float, theta: float, convention: str = "tight") -> float:
    """Inverse temperature on S: the mechanism samples ``w`` with probability ``∝ exp(-kappa S(w))``. Wang & Xu,
    Algorithms 1-2 and Definition 2; docs/l1_exponential.md §"Sensitivity and temperatures". See docs/l1_exponential.md
    §"truncation.kappa"."""
    epsilon = check_epsilon(epsilon)
    check_choice("convention", convention, CONVENTIONS)
    div = {"tight": 2.0, "paper_proof": 4.0, "paper_box": 1.0}[convention]
    return epsilon / (div * cost_sensitivity(theta))


@dataclass(frozen=True)
class Guarantee:
    """What a temperature convention guarantees (docs/l1_exponential.md §"Sensitivity and temperatures").
    See docs/l1_exponential.md §"truncation.Guarantee"."""

    convention: str
    epsilon: float
    replace_one_epsilon: float
    add_remove_epsilon: float
    label: str


def exact_sampler_suffix(convention: str) -> str:
    """What the exact grid sampler adds to a convention's label (it makes that label hold exactly, no more)."""
    if convention == "paper_box":
        return " — exact sampler (discrete exponential mechanism on a ζ_G-net); the guarantee is the one stated above"
    return " — exact ε-DP (discrete exponential mechanism on a ζ_G-net)"


def convention_guarantee(epsilon: float, theta: float, convention: str = "tight") -> Guarantee:
    """The guarantee a convention gives for the exact (grid) mechanism."""
    k = kappa(epsilon, theta, convention)
    ds = cost_sensitivity(theta)
    rep, add = 2.0 * k * ds, k * ds
    if convention == "tight":
        label = f"ε = {epsilon:g}-DP under replace-one and add/remove neighbours (exact sensitivity log θ)"
    elif convention == "paper_proof":
        label = f"ε = {epsilon:g}-DP as in the paper's proofs; over-private (actual replace-one loss {rep:g})"
    else:
        label = (
            f"as printed in the paper: {add:g}-DP only under add/remove neighbours with ι, ζ and the net fixed "
            f"independently of n; exactly {rep:g}-DP (= 2ε) under replace-one — not ε-DP"
        )
    return Guarantee(convention, float(epsilon), rep, add, label)
