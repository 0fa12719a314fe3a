"""A proximal Newton solver for one large fit of the (perturbed) large-margin objective: the estimator's path.

Same objective and the same stopping rule as :func:`.solvers.fit_apg` (the gradient-mapping norm below ``tol``, here
measured with an upper bound of the smoothness constant, which can only make the rule stricter), in a handful of
passes over the rows instead of hundreds. docs/large_margin_gaussian.md §"newton.py: one large fit"
(Lee, Sun & Saunders 2014, proximal Newton; Beck 2017, Lemma 10.9 for the monotone gradient mapping)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..._blas import single_threaded_blas
from .model import sym, trace_mask
from .solvers import _BLOCK_ELEMS, APGResult, _sym_outer, fit_apg, project_psd

FloatArray = NDArray[np.float64]

#: Band rows (margins inside the Huber band) read for each Hessian, every ``n_band / HESSIAN_ROWS``-th of them.
HESSIAN_ROWS = 10_000
#: Above ``STAGE * STAGE_ROWS`` rows, every ``STAGE``-th row is solved first (to ``STAGE_TOL``) as the warm start.
STAGE, STAGE_ROWS, STAGE_TOL = 8, 25_000, 1e-4
#: The Hessian is kept while fewer than this share of the band pairs changed since it was computed.
HESSIAN_KEEP = 0.01
#: Screening pays when at most this share of the rows remains to be read (:class:`_Loss`).
SCREEN_SHARE = 0.6
#: After a step, rows are frozen while no margin can move more than this share of that step's largest move.
SLACK = 0.5


class _Sym:
    """``svec``: symmetric ``p x p`` blocks as vectors of their upper triangle, off-diagonals times ``sqrt 2``
    (Frobenius inner products become dot products: ``<Phi, z z'> = svec(Phi) . _sym_outer(z)``)."""

    def __init__(self, p: int):
        self.p = p
        self.a, self.b = np.triu_indices(p)
        self.w = np.where(self.a == self.b, 1.0, math.sqrt(2.0))

    def vec(self, M: FloatArray) -> FloatArray:
        return M[..., self.a, self.b] * self.w

    def mat(self, v: FloatArray) -> FloatArray:
        M = np.zeros(v.shape[:-1] + (self.p, self.p))
        M[..., self.a, self.b] = v / self.w
        M[..., self.b, self.a] = v / self.w
        return M

    def proj(self, v: FloatArray) -> FloatArray:
        w, V = np.linalg.eigh(self.mat(v))
        return self.vec((V * np.maximum(w, 0.0)[..., None, :]) @ np.swapaxes(V, -1, -2))


def _forms(Zb: FloatArray, P: FloatArray, C: int) -> FloatArray:
    """``Q[i, c] = z_i' Phi_c z_i`` of one row block (``P``: the ``Phi_c`` side by side, ``p x C p``)."""
    return np.einsum("icj,ij->ic", (Zb @ P).reshape(len(Zb), C, Zb.shape[1]), Zb)


def decision_values_blocked(Phi: FloatArray, Z: FloatArray) -> FloatArray:
    """:func:`.model.decision_values` of one ``Phi (C, p, p)``, read block by block (never ``n x p^2`` in memory)."""
    C, p, _ = Phi.shape
    P = np.ascontiguousarray(Phi.transpose(1, 0, 2).reshape(p, C * p))
    step = max(1, _BLOCK_ELEMS // (C * p))
    with single_threaded_blas():  # small products: threads only add overhead
        return np.concatenate([_forms(Z[s : s + step], P, C) for s in range(0, len(Z), step)] or [np.zeros((0, C))])


def _block_weights(Zb, yb, hb, P, C: int, h: float):
    """One row block's loss, band pairs ``(rows, classes)``, gradient weights of the classes ``1..C-1`` and each row's
    distance outside the band (its margins' smallest ``|t| - h``).

    Only the differences ``Phi_c - Phi_0`` enter the margins ``t_ic = 1 + z'(Phi_y - Phi_c)z`` (``P``: those
    differences side by side), and a row's weights sum to zero over the classes, so class 0's follow from the others.
    Two classes: one margin a row, ``t_i = 1 + s_i z_i'(Phi_1 - Phi_0) z_i`` with ``s_i = +-1``."""
    if C == 2:
        sign = 2.0 * yb - 1.0
        t = 1.0 + sign * _forms(Zb, P, 1)[:, 0]
        out = np.abs(t) - h  # how far outside the band (negative inside)
        rows = np.flatnonzero(out < 0.0)
        val = float(np.sum(t, where=t >= h) + np.sum((t[rows] + h) ** 2) / (4.0 * h))
        return val, rows, 1 - yb[rows], (sign * np.clip((t + h) / (2.0 * h), 0.0, 1.0))[:, None], out
    R = np.zeros((len(Zb), C))
    R[:, 1:] = _forms(Zb, P, C - 1)
    T = 1.0 + np.sum(R * hb, axis=1, keepdims=True) - R
    T[hb] = -np.inf  # a row's own class carries no loss
    inb = np.abs(T) < h
    val = float(np.sum(T, where=T >= h) + np.sum((T[inb] + h) ** 2) / (4.0 * h))
    rows, cls = np.nonzero(inb)
    D = np.clip((T + h) / (2.0 * h), 0.0, 1.0)
    return val, rows, cls, np.where(hb, D.sum(axis=1, keepdims=True), -D)[:, 1:], np.min(np.abs(T) - h, axis=1)


def _pass(Z, y, Phi, h, hot):
    """Loss summed over the rows, its gradient ``(C, p, p)``, the band pairs ``(rows, classes)`` and each row's distance
    outside the band at ``Phi (C, p, p)``, read block by block as in :class:`.solvers._LossGradWorkspace`
    (:func:`_block_weights`)."""
    n, (C, p, _) = Z.shape[0], Phi.shape
    P = np.ascontiguousarray((Phi[1:] - Phi[:1]).transpose(1, 0, 2).reshape(p, (C - 1) * p))
    step = max(1, _BLOCK_ELEMS // (C * p))
    val, G = 0.0, np.zeros((p, (C - 1) * p))
    rows, cls, out = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], [np.zeros(0)]  # none: no rows
    for s in range(0, n, step):
        Zb = Z[s : s + step]
        v, r, c, W, o = _block_weights(Zb, y[s : s + step], hot[s : s + step], P, C, h)
        val += v
        rows.append(r + s)
        cls.append(c)
        out.append(o)
        G += Zb.T @ (W[:, :, None] * Zb[:, None, :]).reshape(len(Zb), (C - 1) * p)
    G = G.reshape(p, C - 1, p).transpose(1, 0, 2)
    G = np.concatenate([-G.sum(axis=0, keepdims=True), G])
    return val, G, np.concatenate(rows), np.concatenate(cls), np.concatenate(out)


class _Loss:
    """The mean loss, its gradient and the band pairs at ``Phi``, with safe screening (El Ghaoui et al. 2012's idea).

    A row whose margins lie more than ``slack`` outside the band at a reference point ``Phi_ref`` stays outside while
    every margin moves less than ``slack``: its loss is then zero or linear in ``Phi``, so the frozen rows' sum is its
    value and gradient at ``Phi_ref`` plus that gradient times the move, and only the other rows are read. A margin
    ``1 + z'(Phi_y - Phi_c)z`` moves by at most ``2 max ||z||^2 max_c ||Phi_c - Phi_ref,c||_F``."""

    def __init__(self, Z, y, C: int, h: float):
        self.Z, self.y, self.h, self.n = Z, y, h, Z.shape[0]
        self.hot = np.zeros((self.n, C), dtype=bool)
        self.hot[np.arange(self.n), y] = True
        self.z2 = float(np.max(np.einsum("ij,ij->i", Z, Z)))
        self.ref = self.last = None

    def move(self, M, R) -> float:
        """The largest change of any margin between ``R`` and ``M``."""
        return 2.0 * self.z2 * float(np.max(np.linalg.norm((M - R).reshape(M.shape[0], -1), axis=1)))

    def __call__(self, M):
        ref = self.ref
        if ref is not None and self.move(M, ref["phi"]) < ref["slack"]:
            val, G, r, c, _ = _pass(ref["Z"], ref["y"], M, self.h, ref["hot"])
            val += ref["val"] + float(np.vdot(ref["G"], M - ref["phi"]))
            return val / self.n, (G + ref["G"]) / self.n, ref["idx"][r], c
        val, G, r, c, out = _pass(self.Z, self.y, M, self.h, self.hot)
        self.last = (M, val, G, out)
        return val / self.n, G / self.n, r, c

    def screen(self, M, slack: float) -> None:
        """Freeze the rows more than ``slack`` outside the band at ``M``, if ``M`` was read whole and that pays."""
        if self.last is None or self.last[0] is not M:
            return
        _, val, G, out = self.last
        idx = np.flatnonzero(out <= slack)
        if idx.size > SCREEN_SHARE * self.n:
            return
        Za, ya, ha = self.Z[idx], self.y[idx], self.hot[idx]
        va, Ga, *_ = _pass(Za, ya, M, self.h, ha)
        self.ref = {"phi": M, "slack": slack, "idx": idx, "Z": Za, "y": ya, "hot": ha, "val": val - va, "G": G - Ga}


def _hessian(Z, y, rows, cls, C: int, h: float, n: int) -> FloatArray:
    """The loss Hessian ``(C m, C m)`` in ``svec`` coordinates from every ``k``-th band pair, rescaled to all of them
    (sub-sampled Newton: the gradient stays exact). A band pair ``(i, c)`` adds ``a a' (x) u_i u_i' / (2 h n)`` with
    ``a = e_y - e_c`` and ``u_i = svec(z_i z_i')``."""
    from scipy.linalg.blas import dsyrk  # lazy: scipy.linalg is not needed to calibrate

    k = max(1, math.ceil(rows.size / HESSIAN_ROWS))
    r, c = rows[::k], cls[::k]
    m = Z.shape[1] * (Z.shape[1] + 1) // 2
    H = np.zeros((C, m, C, m))
    yr = y[r]
    for a in range(C):
        for b in range(C):
            sel = r[(yr == a) & (c == b)]
            if sel.size:
                U = _sym_outer(Z[sel])
                G = dsyrk(1.0, U, trans=1, lower=0)
                G = np.triu(G) + np.triu(G, 1).T
                H[a, :, a] += G
                H[b, :, b] += G
                H[a, :, b] -= G
                H[b, :, a] -= G
    return H.reshape(C * m, C * m) * (rows.size / max(r.size, 1) / (2.0 * h * n))


def _face_step(x, g, H, S: _Sym, C: int):
    """The model's minimiser near the rank of ``x``, a warm start that is the answer once that rank is the optimum's.

    Each block ``V diag(w) V'`` moves by ``V A V' + V B V_0' + V_0 B' V'`` plus ``V_0 B' diag(1/w) B V_0'``, the
    second-order term that keeps it PSD (the Schur complement of its range block); that term's cost
    ``tr(N B' diag(1/w) B)``, ``N = V_0' grad V_0``, enters the model. docs/large_margin_gaussian.md
    §"newton.py: one large fit"."""
    w, V = np.linalg.eigh(S.mat(x))
    grad_m, m = S.mat(g), S.a.size
    Hb = H.reshape(C, m, C, m)
    bases, curv, pieces = [], [], []
    for c in range(C):
        keep = w[c] > 1e-10 * max(1.0, float(w[c].max()))
        Vr, V0, wr = V[c][:, keep], V[c][:, ~keep], w[c][keep]
        r, q = Vr.shape[1], V0.shape[1]
        a, b = np.triu_indices(r)
        E = np.zeros((a.size, r, r))
        E[np.arange(a.size), a, b] = E[np.arange(a.size), b, a] = 1.0
        F = np.zeros((r * q, r, q))
        F[np.arange(r * q), np.repeat(np.arange(r), q), np.tile(np.arange(q), r)] = 1.0
        rot = Vr @ F @ V0.T
        bases.append(S.vec(np.concatenate([Vr @ E @ Vr.T, rot + np.swapaxes(rot, 1, 2)])).T)  # (m, k_c)
        K = np.zeros((a.size + r * q,) * 2)
        K[a.size :, a.size :] = 2.0 * np.kron(np.diag(1.0 / wr), V0.T @ grad_m[c] @ V0) if r and q else 0.0
        curv.append(K)
        pieces.append((a.size, r, q, V0, wr))
    # the reduced system, block by block (the bases are block-diagonal over the classes)
    A = np.block(
        [[bases[i].T @ Hb[i, :, j] @ bases[j] + (curv[i] if i == j else 0.0) for j in range(C)] for i in range(C)]
    )
    try:
        theta = np.linalg.solve(A, -np.concatenate([bases[c].T @ g[c] for c in range(C)]))
    except np.linalg.LinAlgError:
        return x
    M, off = S.mat(x), 0
    for c, (na, r, q, V0, wr) in enumerate(pieces):
        k = bases[c].shape[1]
        M[c] += S.mat(bases[c] @ theta[off : off + k])
        Bc = theta[off + na : off + k].reshape(r, q)
        M[c] += V0 @ (Bc.T / wr) @ Bc @ V0.T
        off += k
    return S.vec(M)


def _top_eigenvalue(H: FloatArray, iters: int = 30) -> float:
    """A power-iteration estimate of ``lambda_max(H)`` (from below; :func:`_model_step` backtracks when it is short)."""
    v = np.full(H.shape[0], 1.0 / math.sqrt(H.shape[0]))
    lam = 0.0
    for _ in range(iters):
        w = H @ v
        lam = float(np.linalg.norm(w))
        if lam == 0.0:
            return 0.0
        v = w / lam
    return lam


def _model_step(x, g, H, L: float, S: _Sym, C: int, tol: float, psd: bool, iters: int = 1000):
    """Minimise ``q(v) = g'(v - x) + (v - x)'H(v - x)/2`` over ``v`` with PSD blocks: FISTA with restart from the face
    step, stopped when the model's gradient mapping is below ``tol``; ``L`` (an estimate of ``lambda_max(H)``) is
    doubled whenever a step's curvature exceeds it (backtracking: Beck & Teboulle 2009). Returns ``(v, q(v))``."""
    proj = S.proj if psd else (lambda v: v)

    def Hx(u):
        return (H @ u.ravel()).reshape(u.shape)

    def model(u) -> float:
        d = u - x
        return float(np.vdot(g, d) + 0.5 * np.vdot(d, Hx(d)))

    v = proj(_face_step(x, g, H, S, C)) if psd else x - np.linalg.solve(H, g.ravel()).reshape(C, -1)
    g0, Hv = g - Hx(x), Hx(v)
    w, Hw, t = v, Hv, 1.0
    for _ in range(iters):  # one product with H a step: H w and H v follow from H (v_new - w)
        while True:
            vn = proj(w - (g0 + Hw) / L)
            step = vn - w
            Hs, ss = Hx(step), float(np.vdot(step, step))
            if float(np.vdot(step, Hs)) <= L * ss * (1.0 + 1e-9):
                break
            L *= 2.0
        if L * math.sqrt(ss) < tol:
            return vn, model(vn)
        Hvn = Hw + Hs
        tn = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        mom = 0.0 if np.vdot(w - vn, vn - v) > 0 else (t - 1.0) / tn
        t = 1.0 if mom == 0.0 else tn
        w, Hw = vn + mom * (vn - v), Hvn + mom * (Hvn - Hv)
        v, Hv = vn, Hvn
    return v, model(v)


def _line_search(full, X, D, f: float, G):
    """Backtracking (Armijo) along ``D`` from ``X``: ``(X + t D, full(X + t D))`` for the first ``t = 1, 1/2, ...``
    that decreases ``f`` enough, ``None`` below ``t = 1e-6``."""
    slope, t = float(np.vdot(G, D)), 1.0
    while t >= 1e-6:
        Xn = X + t * D
        out = full(Xn)
        if out[0] <= f + 1e-4 * t * slope or abs(out[0] - f) <= 1e-13 * max(1.0, abs(f)):
            return Xn, out
        t *= 0.5
    return None


def fit_newton(Z, y, n_classes, lam, mu, h, *, linear, psd=True, phi0=None, tol=1e-9, max_iter=60) -> APGResult:
    """Minimise ``J(Phi) + <linear, Phi>`` (one run, ``mu > 0``) by sub-sampled proximal Newton; after ``max_iter``
    outer steps :func:`.solvers.fit_apg` finishes from the last point. docs/large_margin_gaussian.md
    §"newton.py: one large fit"."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    n, p = Z.shape
    C = int(n_classes)
    S = _Sym(p)
    loss = _Loss(Z, y, C, h)
    z4 = loss.z2**2
    Ls = C * z4 / (2.0 * h) + mu  # >= the constant fit_apg uses
    lin = np.asarray(linear, dtype=np.float64)[0] + lam * trace_mask(p)
    proj_m = project_psd if psd else sym
    X = proj_m(np.zeros((C, p, p)) if phi0 is None else np.asarray(phi0, dtype=np.float64).reshape(C, p, p))
    if n >= STAGE * STAGE_ROWS:  # a warm start from every STAGE-th row: most steps then cost 1 / STAGE of a pass
        sub = slice(None, None, STAGE)
        X = fit_newton(Z[sub], y[sub], C, lam, mu, h, linear=linear, psd=psd, phi0=X, tol=max(tol, STAGE_TOL)).phi[0]

    def full(M):
        val, G, rows, cls = loss(M)
        return val + np.vdot(lin[None], M) + 0.5 * mu * np.vdot(M, M), G + lin + mu * M, rows, cls

    with single_threaded_blas():
        f, G, rows, cls = full(X)
        keys, n_keys = np.zeros(n * C, dtype=bool), 0  # the band pairs the Hessian was read from
        for it in range(1, max_iter + 1):
            gm = Ls * float(np.linalg.norm(proj_m(X - G / Ls) - X))
            if gm < tol:
                return APGResult(X[None], it, np.array([True]), np.array([gm]))
            now = rows * C + cls
            if n_keys + now.size - 2 * np.count_nonzero(keys[now]) > HESSIAN_KEEP * max(now.size, 1) or it == 1:
                H = _hessian(Z, y, rows, cls, C, h, n) + mu * np.eye(C * S.a.size)
                LT = _top_eigenvalue(H)
                keys[:], n_keys = False, now.size
                keys[now] = True
            x = S.vec(X)
            v, q = _model_step(x, S.vec(G), H, LT, S, C, 0.1 * gm, psd)
            if not q < 0.0:  # the model found no descent: a projected-gradient step instead
                v = S.vec(proj_m(X - G / Ls))
            found = _line_search(full, X, S.mat(v - x), f, G)
            if found is None:  # no decrease along this direction: fit_apg finishes from here
                break
            Xn, (f, G, rows, cls) = found
            loss.screen(Xn, SLACK * loss.move(Xn, X))  # steps shrink about tenfold: the rest fits in half of this one
            X = Xn
    res = fit_apg(Z, y, C, lam, mu, h, linear=linear, psd=psd, phi0=X, tol=tol)
    return APGResult(res.phi, max_iter + res.iterations, res.converged, res.grad_map_norm)
