"""Exact solver of the ball-constrained quadratic problems of input perturbation ([FTS17] Algorithm 2, the
server's ridge fit over W; a trust-region subproblem, Moré & Sorensen 1983, SIAM J. Sci. Stat. Comput. 4(3)).
The steps: docs/input_perturbation.md §"The ball solver".
"""

from __future__ import annotations

import numpy as np

from ..._blas import blas_threads_for
from ..._validation import check_positive
from ...exceptions import DataValidationError

__all__ = ["solve_ball", "BallSolution"]

from dataclasses import dataclass


@dataclass(frozen=True)
class BallSolution:
    """Solutions of a batch: ``w`` (T, d) or (d,), ``on_boundary`` (||w|| = eta), ``mu`` the Lagrange multiplier."""

    w: np.ndarray
    on_boundary: np.ndarray
    mu: np.ndarray


def solve_ball(A: np.ndarray, h: np.ndarray, eta: float, *, rel_eig_tol: float = 1e-12, return_info: bool = False):
    """Minimise 1/2 w^T A w - h^T w subject to ||w|| <= eta exactly, for PSD ``A`` (d, d) or (T, d, d) and ``h``
    (d,) or (T, d); eigenvalues below ``rel_eig_tol`` x the largest count as zero (minimum-norm candidate);
    ``return_info``: a :class:`BallSolution` (Moré & Sorensen section 2; docs/input_perturbation.md §"The ball solver").
    """
    eta = check_positive("eta", eta)
    A = np.asarray(A, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    single = A.ndim == 2
    if single:
        A = A[None]
        h = h[None]
    if A.ndim != 3 or A.shape[-1] != A.shape[-2] or h.shape != A.shape[:2]:
        msg = f"A must have shape (d, d) or (T, d, d) and h (d,) or (T, d); got {A.shape} and {h.shape}."
        raise DataValidationError(msg)
    d = A.shape[-1]
    with blas_threads_for(float(d) ** 3):  # a batch of small eigh: one BLAS thread (dp_core/_blas.py rule)
        a, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    scale = np.maximum(np.abs(a).max(axis=-1, keepdims=True), 1e-300)
    if np.any(a < -1e-9 * scale):
        raise DataValidationError("A must be positive semi-definite; an eigenvalue is negative.")
    a = np.maximum(a, 0.0)
    hp = np.einsum("tji,tj->ti", V, h)
    pos = a > rel_eig_tol * scale
    w0p = np.where(pos, hp / np.where(pos, a, 1.0), 0.0)
    norm0 = np.linalg.norm(w0p, axis=-1)
    outside = norm0 > eta
    wp = w0p
    mu = np.zeros(A.shape[0])
    if np.any(outside):
        ao, ho = a[outside], hp[outside]
        m = _secular_root(ao, ho, eta)
        wp = wp.copy()
        wp[outside] = ho / (ao + m[:, None])
        mu[outside] = m
    w = np.einsum("tij,tj->ti", V, wp)
    if single:
        w, outside, mu = w[0], outside[0], mu[0]
    if return_info:
        return BallSolution(w=w, on_boundary=np.asarray(outside), mu=np.asarray(mu))
    return w


def _secular_root(ao: np.ndarray, ho: np.ndarray, eta: float) -> np.ndarray:
    """The root mu > 0 of ||h'/(a + mu)|| = eta for each problem outside the ball: bisection, then Newton."""
    hn = np.linalg.norm(ho, axis=-1)
    lo = np.maximum(0.0, hn / eta - ao[:, -1])
    hi = np.maximum(hn / eta - ao[:, 0], lo)
    # phi(lo) >= eta >= phi(hi); bisection keeps phi(lo) >= eta.
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        phi = np.linalg.norm(ho / (ao + mid[:, None]), axis=-1)
        big = phi > eta
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
        if np.all(hi - lo <= 1e-15 * np.maximum(hi, 1e-300)):
            break
    m = 0.5 * (lo + hi)
    # Newton polish on psi(mu) = 1/phi(mu) - 1/eta (concave increasing), kept inside [lo, hi].
    for _ in range(3):
        den = ao + m[:, None]
        phi = np.linalg.norm(ho / den, axis=-1)
        dphi = -np.sum(ho**2 / den**3, axis=-1) / phi
        psi = 1.0 / phi - 1.0 / eta
        dpsi = -dphi / phi**2
        step = np.where(dpsi > 0, psi / np.where(dpsi > 0, dpsi, 1.0), 0.0)
        m = np.clip(m - step, lo, hi)
    return m
