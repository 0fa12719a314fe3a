"""Solvers for the (perturbed) large-margin Gaussian objective: :func:`fit_apg` (batched accelerated projected gradient)
and :func:`fit_cvxpy` (Clarabel/SCS), which must agree; :func:`literal_objective_bounded`.

docs/large_margin_gaussian.md §"Solvers", §"solvers.py: the two solvers" (Nesterov 2004; O'Donoghue & Candes 2015)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...exceptions import SolverFailed, UnboundedProblem
from .model import outer_vectors, sym, trace_mask

__all__ = ["APGResult", "fit_apg", "fit_cvxpy", "project_psd", "literal_objective_bounded", "smoothness"]

FloatArray = NDArray[np.float64]


def project_psd(A: FloatArray) -> FloatArray:
    """Euclidean projection onto the PSD cone of every ``p x p`` block (eigenvalue clipping)."""
    w, Vec = np.linalg.eigh(sym(A))
    return (Vec * np.maximum(w, 0.0)[..., None, :]) @ np.swapaxes(Vec, -1, -2)


def smoothness(V: FloatArray, C: int, h: float) -> float:
    """Lipschitz constant of the average loss gradient (APG step size only; ``<= kappa``).

    docs/large_margin_gaussian.md §"solvers.py: the two solvers"."""
    n = V.shape[0]
    lam_max = float(np.linalg.eigvalsh(V.T @ V / n)[-1])
    return C * lam_max / (2.0 * h)


_SINGLE_THREAD_MNK = 200_000


class _LossGradWorkspace:
    """Pre-allocated buffers for the batched loss gradient, for one :func:`fit_apg` call.

    docs/large_margin_gaussian.md §"solvers.py: the two solvers"."""

    def __init__(self, V: FloatArray, y: NDArray[np.int64], C: int, p: int, h: float, R: int):
        n = V.shape[0]
        self.n, self.C, self.p, self.h = n, C, p, h
        self.V = np.ascontiguousarray(V)
        self.VT = np.ascontiguousarray(V.T)
        self.onehot = np.zeros((C, n))
        self.onehot[y, np.arange(n)] = 1.0
        self.notone = 1.0 - self.onehot
        self.Q = np.empty((R * C, n))
        self.T = np.empty((R, C, n))
        self.s = np.empty((R, 1, n))
        self.G = np.empty((R * C, p * p))
        # Rows per matrix product. Products of about 2e5 multiply-adds or fewer run on one thread in
        # OpenBLAS; larger ones spawn threads, which only costs time at these sizes and is much
        # slower when the cores are shared. Chunking gives identical numbers.
        self.chunk = max(1, _SINGLE_THREAD_MNK // (n * p * p))

    def _matmul(self, A: FloatArray, B: FloatArray, out: FloatArray) -> None:
        step = self.chunk
        for s in range(0, A.shape[0], step):
            np.matmul(A[s : s + step], B, out=out[s : s + step])

    def __call__(self, Phi: FloatArray) -> FloatArray:
        R = Phi.shape[0]
        C, n, p, h = self.C, self.n, self.p, self.h
        Qf = self.Q[: R * C]
        self._matmul(Phi.reshape(R * C, p * p), self.VT, Qf)
        Q = Qf.reshape(R, C, n)
        T = self.T[:R]
        s = self.s[:R]
        np.multiply(Q, self.onehot, out=T)
        np.add.reduce(T, axis=1, keepdims=True, out=s)  # q_{i, y_i}
        np.subtract(s, Q, out=T)
        T += 1.0 + h
        T *= 1.0 / (2.0 * h)
        np.clip(T, 0.0, 1.0, out=T)  # l_h'(t_ic)
        T *= self.notone
        np.add.reduce(T, axis=1, keepdims=True, out=s)
        np.multiply(self.onehot, s, out=Q)
        Q -= T  # weights w_ic
        Gf = self.G[: R * C]
        self._matmul(Qf, self.V, Gf)
        Gf *= 1.0 / n
        return Gf.reshape(R, C, p, p)


@dataclass(frozen=True)
class APGResult:
    """Output of :func:`fit_apg` (docs/large_margin_gaussian.md §"solvers.py: the two solvers")."""

    phi: FloatArray
    iterations: int
    converged: NDArray[np.bool_]
    grad_map_norm: FloatArray


def _momentum(Xn, Xa, step, t, active):
    """FISTA extrapolation with gradient-based adaptive restart (``mu = 0``); updates ``t[active]``."""
    ta = t[active]
    tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * ta * ta))
    beta_m = ((ta - 1.0) / tn)[:, None, None, None]
    # Adaptive restart: drop momentum when it points uphill.
    restart = np.einsum("rabc,rabc->r", -step, Xn - Xa) > 0
    beta_m = np.where(restart[:, None, None, None], 0.0, beta_m)
    t[active] = np.where(restart, 1.0, tn)
    return Xn + beta_m * (Xn - Xa)


def fit_apg(
    Z: FloatArray,
    y: NDArray[np.int64],
    n_classes: int,
    lam: float,
    mu: float,
    h: float,
    *,
    linear: FloatArray | None = None,
    psd: bool = True,
    phi0: FloatArray | None = None,
    tol: float = 1e-9,
    max_iter: int = 50_000,
    V: FloatArray | None = None,
) -> APGResult:
    """Minimise ``J(Phi) + sum_c <linear_c, Phi_c>`` by accelerated projected gradient, batched over runs.

    ``linear`` (R, C, p, p): one run per noise draw; ``mu = 0`` needs :func:`literal_objective_bounded` first; ``tol``
    bounds the gradient-mapping norm. docs/large_margin_gaussian.md §"solvers.py: the two solvers"."""
    n, p = Z.shape
    C = int(n_classes)
    V = outer_vectors(Z) if V is None else V
    if linear is None:
        linear = np.zeros((1, C, p, p))
    linear = np.asarray(linear, dtype=np.float64)
    R = linear.shape[0]
    Ls = smoothness(V, C, h) + mu
    eta = 1.0 / Ls
    lamI = lam * trace_mask(p)
    proj = project_psd if psd else sym
    X = np.zeros((R, C, p, p)) if phi0 is None else proj(np.broadcast_to(np.asarray(phi0, float), (R, C, p, p)).copy())
    Y = X.copy()
    work = _LossGradWorkspace(V, y, C, p, h, R)
    strongly = mu > 0
    q = (math.sqrt(Ls) - math.sqrt(mu)) / (math.sqrt(Ls) + math.sqrt(mu)) if strongly else 0.0
    t = np.ones(R)
    active = np.arange(R)
    converged = np.zeros(R, dtype=bool)
    gm = np.full(R, np.inf)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (read after the loop: the iteration count returned)
        full = active.size == R
        if full:
            Ya, Xa, La = Y, X, linear
        else:
            Ya, Xa, La = Y[active], X[active], linear[active]
        grad = work(Ya)  # a view of the workspace buffer: safe to update in place
        grad += lamI
        grad += La
        if mu > 0:
            grad += mu * Ya
        grad *= -eta
        grad += Ya
        Xn = proj(grad)
        step = Xn - Ya
        gnorm = Ls * np.sqrt(np.einsum("rabc,rabc->r", step, step))
        if strongly:  # constant momentum, in place
            Yn = Xn - Xa
            Yn *= q
            Yn += Xn
        else:
            Yn = _momentum(Xn, Xa, step, t, active)
        if full:
            X, Y = Xn, Yn
            gm = gnorm.copy()
        else:
            X[active] = Xn
            Y[active] = Yn
            gm[active] = gnorm
        done = gnorm < tol
        if done.any():
            converged[active[done]] = True
            Y[active[done]] = Xn[done]
            active = active[~done]
            if active.size == 0:
                break
    return APGResult(phi=X, iterations=it, converged=converged, grad_map_norm=gm)


def literal_objective_bounded(noise_shared: FloatArray, n: int, lam: float, *, psd: bool = True) -> NDArray[np.bool_]:
    """Whether the paper's literal perturbed objective (``mu = 0``, shared ``b`` of shape (..., p, p)) is bounded below:
    iff ``n lam I_Phi + sym(b)`` is PSD (with the PSD constraint), never without it.

    docs/large_margin_gaussian.md §"Solvers", §"solvers.py: the two solvers"."""
    b = np.asarray(noise_shared, dtype=np.float64)
    if not psd:
        return np.zeros(b.shape[:-2], dtype=bool)
    p = b.shape[-1]
    M = n * lam * trace_mask(p) + sym(b)
    return np.linalg.eigvalsh(M)[..., 0] >= 0.0


def fit_cvxpy(
    Z: FloatArray,
    y: NDArray[np.int64],
    n_classes: int,
    lam: float,
    mu: float,
    h: float,
    *,
    noise: FloatArray | None = None,
    shared: bool = False,
    psd: bool = True,
    solver: str = "CLARABEL",
) -> tuple[FloatArray, str]:
    """Solve the (perturbed) objective with cvxpy (Clarabel or SCS): ``(phi (C, p, p), cvxpy status)``.

    Raises UnboundedProblem (the literal objective, ``mu = 0``) or SolverFailed. docs/large_margin_gaussian.md
    §"solvers.py: the two solvers", §"Smoothed hinge and its gradient"."""
    import cvxpy as cp  # lazy: slow import

    solver = str(solver).upper()
    if solver not in ("CLARABEL", "SCS"):
        raise ValueError(f"solver must be one of 'CLARABEL', 'SCS', got {solver!r}.")
    n, p = Z.shape
    C = int(n_classes)
    Zv = outer_vectors(Z)
    Phi = [cp.Variable((p, p), PSD=True) if psd else cp.Variable((p, p), symmetric=True) for _ in range(C)]
    Q = cp.hstack([cp.reshape(Zv @ cp.vec(P, order="F"), (n, 1), order="F") for P in Phi])
    Y = np.eye(C)[y]
    qy = cp.reshape(cp.sum(cp.multiply(Y, Q), axis=1), (n, 1), order="F")
    T = 1 + qy @ np.ones((1, C)) - Q
    obj = cp.sum(cp.multiply(1 - Y, cp.huber(cp.pos(T + h), 2 * h))) / (4 * h * n)
    I_phi = trace_mask(p)
    obj = obj + lam * sum(cp.trace(I_phi @ P) for P in Phi)
    if mu > 0:
        obj = obj + 0.5 * mu * sum(cp.sum_squares(P) for P in Phi)
    if noise is not None:
        N = np.asarray(noise, dtype=np.float64)
        Bc = [sym(N)] * C if shared else [sym(N[c]) for c in range(C)]
        obj = obj + sum(cp.sum(cp.multiply(Bc[c], Phi[c])) for c in range(C)) / n
    prob = cp.Problem(cp.Minimize(obj))
    if solver == "CLARABEL":
        kwargs = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    else:
        kwargs = dict(eps_abs=1e-9, eps_rel=1e-9, max_iters=200_000)
    try:
        prob.solve(solver=solver, **kwargs)
    except cp.error.SolverError as exc:
        raise SolverFailed(f"cvxpy solver {solver} failed: {exc}") from exc
    status = prob.status
    if status in ("unbounded", "unbounded_inaccurate", "infeasible_or_unbounded"):
        raise UnboundedProblem(f"the objective is unbounded below (cvxpy status {status!r}).")
    if status not in ("optimal", "optimal_inaccurate"):
        raise SolverFailed(f"cvxpy solver {solver} returned status {status!r}.")
    return np.stack([sym(P.value) for P in Phi]), status
