"""Solvers for the (perturbed) large-margin Gaussian objective: :func:`fit_apg` (batched accelerated projected gradient)
and :func:`fit_cvxpy` (Clarabel/SCS), which must agree; :func:`literal_objective_bounded`.

docs/large_margin_gaussian.md §"Solvers", §"solvers.py: the two solvers" (Nesterov 2004; O'Donoghue & Candes 2015)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..._blas import single_threaded_blas
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


#: Elements of one row block's work arrays (about 2 MB of float64): the data are read block by block.
_BLOCK_ELEMS = 262_144


def _sym_outer(Z: FloatArray) -> FloatArray:
    """Rows ``z_a z_b`` for ``a <= b``, off-diagonal ones times ``sqrt 2``: the same inner products as
    :func:`~.model.outer_vectors` in ``p(p+1)/2`` columns instead of ``p^2``."""
    a, b = np.triu_indices(Z.shape[1])
    return Z[:, a] * Z[:, b] * np.where(a == b, 1.0, math.sqrt(2.0))


def _fourth_moment_top(Z: FloatArray) -> float:
    """The largest eigenvalue of ``V'V / n`` (``V`` = :func:`~.model.outer_vectors` of ``Z``), read block by block:
    ``V V' = U U'`` for the symmetric half ``U`` (:func:`_sym_outer`), so ``V'V`` and ``U'U`` share it."""
    n, p = Z.shape
    m = p * (p + 1) // 2
    S = np.zeros((m, m))
    step = max(1, _BLOCK_ELEMS // m)
    for s in range(0, n, step):
        U = _sym_outer(Z[s : s + step])
        S += U.T @ U
    return float(np.linalg.eigvalsh(S / n)[-1])


class _LossGradWorkspace:
    """The batched loss gradient of :func:`fit_apg`, computed from the rows ``Z`` block by block (never the
    ``n x p^2`` outer products): ``q_ic = z_i' Phi_c z_i`` and ``G_c = (1/n) sum_i w_ic z_i z_i'`` as matrix products.

    docs/large_margin_gaussian.md §"solvers.py: the two solvers"."""

    def __init__(self, Z: FloatArray, y: NDArray[np.int64], C: int, p: int, h: float, R: int):
        n = Z.shape[0]
        self.n, self.C, self.p, self.h = n, C, p, h
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.onehot = np.zeros((n, 1, C))
        self.onehot[np.arange(n), 0, y] = 1.0
        self.rows = max(1, _BLOCK_ELEMS // (R * C * p))

    def _block(self, Zb: FloatArray, hot: FloatArray, P: FloatArray, R: int) -> FloatArray:
        """``Z_b' (W_b o Z_b)`` of one row block, shape ``(p, R C p)`` (``P``: the ``Phi_rc`` side by side)."""
        b, C, p, h = Zb.shape[0], self.C, self.p, self.h
        Q = np.einsum("irj,ij->ir", (Zb @ P).reshape(b, R * C, p), Zb).reshape(b, R, C)
        T = np.sum(Q * hot, axis=2, keepdims=True) - Q  # q_{i, y_i} - q_ic
        T += 1.0 + h
        T *= 1.0 / (2.0 * h)
        np.clip(T, 0.0, 1.0, out=T)  # l_h'(t_ic)
        T *= 1.0 - hot
        W = hot * np.sum(T, axis=2, keepdims=True) - T  # weights w_ic
        return Zb.T @ (W.reshape(b, R * C, 1) * Zb[:, None, :]).reshape(b, R * C * p)

    def __call__(self, Phi: FloatArray) -> FloatArray:
        R, C, p = Phi.shape[0], self.C, self.p
        P = np.ascontiguousarray(Phi.reshape(R * C, p, p).transpose(1, 0, 2).reshape(p, R * C * p))
        G = np.zeros((p, R * C * p))
        for s in range(0, self.n, self.rows):
            G += self._block(self.Z[s : s + self.rows], self.onehot[s : s + self.rows], P, R)
        G *= 1.0 / self.n
        return G.reshape(p, R, C, p).transpose(1, 2, 0, 3).copy()


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


def _one_blas_thread(fn):
    """Run ``fn`` with one BLAS thread in the calling thread: its products are small and many (measured in
    benchmarks/bench_large_margin_gaussian.py; a thread pool on top only adds CPU time)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_threaded_blas():
            return fn(*args, **kwargs)

    return wrapper


@_one_blas_thread
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
) -> APGResult:
    """Minimise ``J(Phi) + sum_c <linear_c, Phi_c>`` by accelerated projected gradient, batched over runs.

    ``linear`` (R, C, p, p): one run per noise draw; ``mu = 0`` needs :func:`literal_objective_bounded` first; ``tol``
    bounds the gradient-mapping norm. docs/large_margin_gaussian.md §"solvers.py: the two solvers"."""
    n, p = Z.shape
    C = int(n_classes)
    if linear is None:
        linear = np.zeros((1, C, p, p))
    linear = np.asarray(linear, dtype=np.float64)
    R = linear.shape[0]
    Ls = C * _fourth_moment_top(Z) / (2.0 * h) + mu
    eta = 1.0 / Ls
    lamI = lam * trace_mask(p)
    proj = project_psd if psd else sym
    X = np.zeros((R, C, p, p)) if phi0 is None else proj(np.broadcast_to(np.asarray(phi0, float), (R, C, p, p)).copy())
    Y = X.copy()
    work = _LossGradWorkspace(Z, y, C, p, h, R)
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
