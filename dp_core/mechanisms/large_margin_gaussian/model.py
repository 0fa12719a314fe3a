"""The large-margin Gaussian classifier: inputs, Huberised hinge, objective, gradient, decisions (batched on Phi).

Pathak & Raj, eqs. 1-6; Chapelle (2007). docs/large_margin_gaussian.md §"model.py: the classifier's functions",
§"Input scaling", §"Smoothed hinge and its gradient"."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..._validation import check_matrix, check_positive

__all__ = [
    "preprocess",
    "huber_hinge",
    "huber_hinge_grad",
    "outer_vectors",
    "margins",
    "loss",
    "objective",
    "gradient",
    "predict",
    "decision_values",
    "gaussian_params",
    "phi_from_gaussian",
    "trace_mask",
    "sym",
    "encode_labels",
]

FloatArray = NDArray[np.float64]


def sym(A: FloatArray) -> FloatArray:
    """Symmetric part ``(A + A')/2`` over the last two axes."""
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def trace_mask(p: int) -> FloatArray:
    """``I_Phi``: the ``p x p`` identity with its last diagonal entry set to 0 (paper Sec. 4)."""
    m = np.eye(p)
    m[-1, -1] = 0.0
    return m


def preprocess(X: FloatArray, *, scale: float = 1.0 / math.sqrt(2.0)) -> FloatArray:
    """Clip rows to the unit ball, append 1 and scale: ``z_i = (x_i / max(1, ||x_i||), 1) * scale``, shape (n, d + 1).

    docs/large_margin_gaussian.md §"Input scaling", §"model.py: the classifier's functions"."""
    X = check_matrix("X", X)
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return np.hstack([X, np.ones((X.shape[0], 1))]) * scale


def huber_hinge(t: FloatArray, h: float) -> FloatArray:
    """Huberised hinge ``l_h(t)``: 0 for ``t < -h``, ``(t + h)^2/(4h)`` on ``|t| <= h``, ``t`` above.

    Chapelle (2007); docs/large_margin_gaussian.md §"Smoothed hinge and its gradient"."""
    t = np.asarray(t, dtype=np.float64)
    quad = (t + h) ** 2 / (4.0 * h)
    return np.where(t < -h, 0.0, np.where(t > h, t, quad))


def huber_hinge_grad(t: FloatArray, h: float) -> FloatArray:
    """Derivative ``l_h'(t) = clip((t + h)/(2h), 0, 1)``."""
    t = np.asarray(t, dtype=np.float64)
    return np.clip((t + h) / (2.0 * h), 0.0, 1.0)


def outer_vectors(Z: FloatArray) -> FloatArray:
    """Rows ``vec(z_i z_i')`` of shape ``(n, p*p)``; ``z' Phi z = <vec(z z'), vec(Phi)>``."""
    n, p = Z.shape
    return (Z[:, :, None] * Z[:, None, :]).reshape(n, p * p)


def _quad_forms(Phi: FloatArray, V: FloatArray) -> FloatArray:
    """``Q[..., i, c] = z_i' Phi_c z_i`` for ``Phi`` of shape ``(..., C, p, p)``."""
    lead = Phi.shape[:-2]
    F = Phi.reshape(-1, Phi.shape[-1] * Phi.shape[-1])  # (prod(lead), p*p)
    Q = V @ F.T  # (n, prod(lead))
    Q = Q.T.reshape(lead + (V.shape[0],))  # (..., C, n)
    return np.swapaxes(Q, -1, -2)  # (..., n, C)


def encode_labels(y, n_classes: int | None = None) -> tuple[NDArray[np.int64], int]:
    """Return integer labels ``0..C-1`` and ``C`` (labels must already be 0-based integers)."""
    y = np.asarray(y)
    yi = np.rint(y).astype(np.int64)
    if y.size and (np.any(np.abs(y - yi) > 0) or yi.min() < 0):
        raise ValueError("y must hold class labels 0, 1, ..., C-1 (non-negative integers).")
    C = int(yi.max()) + 1 if n_classes is None else int(n_classes)
    if yi.size and yi.max() >= C:
        raise ValueError(f"y must be < n_classes={C}, got a label {int(yi.max())}.")
    if C < 2:
        raise ValueError(f"y must contain at least two classes (n_classes in [2, inf]), got n_classes={C}.")
    return yi, C


def margins(Phi: FloatArray, Z: FloatArray, y: NDArray[np.int64], *, V: FloatArray | None = None) -> FloatArray:
    """Hinge arguments ``T[..., i, c] = 1 + z_i' Phi_{y_i} z_i - z_i' Phi_c z_i`` (the ``c = y_i`` entry is 1)."""
    V = outer_vectors(Z) if V is None else V
    Q = _quad_forms(np.asarray(Phi, dtype=np.float64), V)
    qy = np.take_along_axis(Q, np.broadcast_to(y[:, None], Q.shape[:-1] + (1,)), axis=-1)
    return 1.0 + qy - Q


def loss(Phi, Z, y, h: float, *, V=None) -> FloatArray:
    """Average Huberised multiclass hinge ``(1/n) sum_i sum_{c != y_i} l_h(t_ic)`` (batched)."""
    T = margins(Phi, Z, y, V=V)
    ell = huber_hinge(T, h)
    n, C = T.shape[-2], T.shape[-1]
    mask = np.ones((n, C))
    mask[np.arange(n), y] = 0.0
    return np.sum(ell * mask, axis=(-2, -1)) / n


def objective(Phi, Z, y, lam: float, mu: float, h: float, *, noise=None, shared: bool = False, V=None):
    """Average-form objective ``J`` (or ``J_p`` when ``noise`` is given); ``Phi`` (..., C, p, p).

    Pathak & Raj, eqs. 5 and 8; docs/large_margin_gaussian.md §"model.py: the classifier's functions"."""
    Phi = np.asarray(Phi, dtype=np.float64)
    n, p = Z.shape
    diag = np.diagonal(Phi, axis1=-2, axis2=-1)[..., : p - 1]
    val = loss(Phi, Z, y, h, V=V) + lam * np.sum(diag, axis=(-2, -1)) + 0.5 * mu * np.sum(Phi**2, axis=(-3, -2, -1))
    if noise is not None:
        N = np.asarray(noise, dtype=np.float64)  # shared: one N (..., p, p) multiplies every class block
        val = val + np.sum((N[..., None, :, :] if shared else N) * Phi, axis=(-3, -2, -1)) / n
    return val


def loss_gradient(Phi: FloatArray, V: FloatArray, y: NDArray[np.int64], h: float) -> FloatArray:
    """Gradient of the average loss, shape like ``Phi`` (batched; ``V`` from :func:`outer_vectors`)."""
    lead = Phi.shape[:-3]
    C, p = Phi.shape[-3], Phi.shape[-1]
    n = V.shape[0]
    F = Phi.reshape(-1, p * p)
    Q = (F @ V.T).reshape(lead + (C, n))  # Q[..., c, i] = z_i' Phi_c z_i
    onehot = np.zeros((C, n))
    onehot[y, np.arange(n)] = 1.0
    qy = np.sum(Q * onehot, axis=-2, keepdims=True)
    g = (1.0 + h) + qy - Q  # t + h
    g *= 1.0 / (2.0 * h)
    np.clip(g, 0.0, 1.0, out=g)
    g *= 1.0 - onehot
    W = onehot * np.sum(g, axis=-2, keepdims=True) - g
    G = (W.reshape(-1, n) @ V) / n
    return G.reshape(lead + (C, p, p))


def gradient(Phi, Z, y, lam: float, mu: float, h: float, *, noise=None, shared: bool = False, V=None):
    """Gradient of :func:`objective` with respect to every block (shape of ``Phi``).

    docs/large_margin_gaussian.md §"model.py: the classifier's functions", §"Smoothed hinge and its gradient"."""
    Phi = np.asarray(Phi, dtype=np.float64)
    n, p = Z.shape
    V = outer_vectors(Z) if V is None else V
    G = loss_gradient(Phi, V, y, h) + lam * trace_mask(p) + mu * Phi
    if noise is not None:
        Ns = sym(np.asarray(noise, dtype=np.float64)) / n
        G = G + (Ns[..., None, :, :] if shared else Ns)
    return G


def decision_values(Phi, Z) -> FloatArray:
    """``Q[..., i, c] = z_i' Phi_c z_i`` (smaller is better)."""
    return _quad_forms(np.asarray(Phi, dtype=np.float64), outer_vectors(Z))


def predict(Phi, Z) -> NDArray[np.int64]:
    """Decision rule ``argmin_c z' Phi_c z`` (ties go to the smallest index; paper eq. 3)."""
    return np.argmin(decision_values(Phi, Z), axis=-1)


def gaussian_params(Phi, *, scale: float = 1.0 / math.sqrt(2.0), rtol: float = 1e-10):
    """Recover ``(mu_c, Psi_c, theta_c, pd)`` for every class from learned ``Phi`` (``pd``: an ellipse exists).

    docs/large_margin_gaussian.md §"model.py: the classifier's functions", §"Input scaling"."""
    Phi = np.asarray(Phi, dtype=np.float64)
    out = []
    for P in Phi:
        Pb = P * scale**2
        d = P.shape[0] - 1
        Psi = Pb[:d, :d]
        v = Pb[:d, d]
        w = Pb[d, d]
        Pinv = np.linalg.pinv(Psi, rcond=rtol, hermitian=True)
        mu_c = -Pinv @ v
        theta = float(w - v @ Pinv @ v)
        ev = np.linalg.eigvalsh(sym(Psi))
        pd = bool(ev.min() > rtol * max(1.0, abs(ev).max()))
        out.append((mu_c, Psi, theta, pd))
    return out


def phi_from_gaussian(mu_c, Psi, theta: float, *, scale: float = 1.0 / math.sqrt(2.0)) -> FloatArray:
    """Build ``Phi`` (scaled coordinates) from a centroid, inverse covariance and offset (paper eq. 2)."""
    mu_c = np.asarray(mu_c, dtype=np.float64)
    Psi = np.asarray(Psi, dtype=np.float64)
    check_positive("theta", theta, allow_zero=True)
    d = mu_c.shape[0]
    Pb = np.empty((d + 1, d + 1))
    Pb[:d, :d] = Psi
    Pb[:d, d] = -Psi @ mu_c
    Pb[d, :d] = Pb[:d, d]
    Pb[d, d] = mu_c @ Psi @ mu_c + theta
    return Pb / scale**2
