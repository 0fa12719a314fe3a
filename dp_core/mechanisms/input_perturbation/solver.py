"""Exact solver of the ball-constrained quadratic problems of input perturbation.

``solve_ball(A, h, eta)`` returns argmin_{||w|| <= eta} 1/2 w^T A w - h^T w for symmetric positive
semi-definite ``A`` (a trust-region subproblem, [MS83]): the closed form when the
unconstrained minimiser lies in the ball, otherwise the root mu > 0 of the secular equation
sum_k h'_k^2 / (a_k + mu)^2 = eta^2. Batched: ``A`` may be a stack of shape (T, d, d).

References
----------
.. [FTS17] Fukuchi, Tran, Sakuma (2017), Algorithm 2 (the server's ridge fit over W).
.. [MS83] J. J. More and D. C. Sorensen, *Computing a trust region step*, SIAM J. Sci. Stat.
   Comput. 4(3), 1983 (the secular equation).
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_positive
from ...exceptions import DataValidationError

__all__ = ["solve_ball", "BallSolution"]

from dataclasses import dataclass


@dataclass(frozen=True)
class BallSolution:
    """Solutions of a batch of ball-constrained quadratic problems.

    Attributes
    ----------
    w : ndarray of shape (T, d) (or (d,) for a single problem)
    on_boundary : ndarray of bool
        True where the constraint is active (||w|| = eta).
    mu : ndarray
        The Lagrange multiplier (0 inside the ball).
    """

    w: np.ndarray
    on_boundary: np.ndarray
    mu: np.ndarray


def solve_ball(A: np.ndarray, h: np.ndarray, eta: float, *, rel_eig_tol: float = 1e-12, return_info: bool = False):
    """Minimise 1/2 w^T A w - h^T w subject to ||w|| <= eta, exactly.

    Parameters
    ----------
    A : ndarray of shape (d, d) or (T, d, d)
        Symmetric positive semi-definite matrices.
    h : ndarray of shape (d,) or (T, d)
        Linear terms.
    eta : float
        Ball radius. Must be > 0.
    rel_eig_tol : float
        Eigenvalues below ``rel_eig_tol * max eigenvalue`` count as zero; the unconstrained
        candidate is then the minimum-norm solution (h lies in the range of A for A = Q^T Q).
    return_info : bool
        Return a :class:`BallSolution` instead of the array of solutions.

    Returns
    -------
    ndarray of shape (d,) or (T, d), or BallSolution

    Notes
    -----
    1. Eigendecompose A = V diag(a) V^T and set h' = V^T h.
    2. If ||h'/a|| <= eta return V (h'/a) (the closed form (A)^{-1} h).
    3. Otherwise bracket the root of phi(mu) = ||h'/(a + mu)|| = eta between
       max(0, ||h||/eta - a_max) and ||h||/eta - a_min, bisect (vectorised over the batch) and
       polish with safeguarded Newton steps on 1/phi - 1/eta; ||w|| = eta to ~1e-13 relative.

    References
    ----------
    [FTS17] Algorithm 2; [MS83] section 2.

    >>> import numpy as np
    >>> solve_ball(np.eye(2), np.array([0.3, 0.4]), 1.0).tolist()
    [0.3, 0.4]
    >>> [round(float(v), 6) for v in solve_ball(np.eye(2), np.array([3.0, 4.0]), 1.0)]
    [0.6, 0.8]
    """
    eta = check_positive("eta", eta)
    A = np.asarray(A, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    single = A.ndim == 2
    if single:
        A = A[None]
        h = h[None]
    if A.ndim != 3 or A.shape[-1] != A.shape[-2] or h.shape != A.shape[:2]:
        raise DataValidationError(
            f"A must have shape (d, d) or (T, d, d) and h (d,) or (T, d); got {A.shape} and {h.shape}."
        )
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
        wp = wp.copy()
        wp[outside] = ho / (ao + m[:, None])
        mu[outside] = m
    w = np.einsum("tij,tj->ti", V, wp)
    if single:
        w, outside, mu = w[0], outside[0], mu[0]
    if return_info:
        return BallSolution(w=w, on_boundary=np.asarray(outside), mu=np.asarray(mu))
    return w
