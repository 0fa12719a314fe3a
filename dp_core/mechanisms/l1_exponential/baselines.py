"""Baselines for comparison — not from the paper (docs/l1_exponential.md §"Baselines (not from the paper)").
docs/l1_exponential.md §"Baselines (not from the paper)"; McSherry & Talwar (2007) for the exponential mechanism; Bun &
Steinke (2016), *Concentrated Differential Privacy*, Prop. 1.3 and 1.6 (Gaussian mechanism and conversion to (eps,
delta)). See docs/l1_exponential.md §"baselines (module)"."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._blas import single_threaded_blas
from ..._validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
    check_Xy,
    computable,
)
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator
from .grid import GridNet, default_grid_resolution, grid_net, grid_probabilities, sample_grid
from .mcmc import APPROXIMATE_LABEL, MCMCResult, MCMCSchedule, mcmc_sample

__all__ = [
    "BASELINE_LABEL",
    "markov_clip_level",
    "clip_data",
    "clipped_em_kappa",
    "ClippedEMResult",
    "ClippedEMDiagnostics",
    "baseline_clipped_em",
    "DPGDCalibration",
    "dp_gd_calibration",
    "baseline_dp_gd",
]

BASELINE_LABEL = "baseline, not from the paper"


def markov_clip_level(moment: float, theta: float, q: float = 0.05) -> float:
    """Public clip level ``(moment / q)^(1/theta)`` so that ``P(|Z| > C) <= q`` by Markov's inequality. See
    docs/l1_exponential.md §"baselines.markov_clip_level"."""
    m = check_positive("moment", moment)
    th = check_positive("theta", theta)
    q = check_probability("q", q, closed="neither")
    return (m / q) ** (1.0 / th)


def clip_data(
    X: ArrayLike, y: ArrayLike, clip_x: float, clip_y: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``x_i <- x_i min(1, C_x/||x_i||)`` and ``y_i <- max(-C_y, min(C_y, y_i))``."""
    X, y = check_Xy(X, y, min_rows=1)
    cx = check_positive("clip_x", clip_x)
    cy = check_positive("clip_y", clip_y)
    norms = np.linalg.norm(X, axis=1)
    factor = np.minimum(1.0, cx / np.maximum(norms, 1e-300))
    return X * factor[:, None], np.clip(y, -cy, cy)


def clipped_em_kappa(epsilon: float, clip_x: float, clip_y: float, radius: float) -> float:
    """``kappa_B1 = eps / (2 (C_y + C_x R))`` (sensitivity of the raw l1 cost on clipped data)."""
    eps = check_epsilon(epsilon)
    return eps / (
        2.0 * (check_positive("clip_y", clip_y) + check_positive("clip_x", clip_x) * check_positive("radius", radius))
    )


@dataclass(frozen=True, eq=False)
class ClippedEMResult:
    """Releases of B1 and how they were produced: only what may be published.
    See docs/l1_exponential.md §"baselines.ClippedEMResult"."""

    draws: NDArray[np.float64] = field(repr=False)
    kappa: float
    sensitivity: float
    mode: str
    label: str
    net: GridNet | None = None


@dataclass(frozen=True, eq=False)
class ClippedEMDiagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: B1's sampler run on the private data (MCMC mode: chains, log-target trace,
    convergence diagnostics); ``None`` in grid mode."""

    mcmc: MCMCResult | None = None


def _abs_cost(W, X, y, want_grad=True):
    k = W.shape[0]
    n = X.shape[0]
    S = np.empty(k)
    G = np.empty((k, X.shape[1]))
    rows = max(1, (1 << 18) // n)
    for s in range(0, k, rows):
        r = y - W[s : s + rows] @ X.T
        S[s : s + rows] = np.abs(r).sum(axis=1)
        if want_grad:
            G[s : s + rows] = -(np.sign(r) @ X)
    return S, G


def baseline_clipped_em(
    X: ArrayLike,
    y: ArrayLike,
    *,
    epsilon: float,
    clip_x: float,
    clip_y: float,
    radius: float = 1.0,
    n_draws: int = 1,
    mode: str = "auto",
    m: int | None = None,
    schedule: MCMCSchedule | None = None,
    rng: RngLike = None,
    diagnostics: bool = False,
):
    """B1: exponential mechanism with the raw l1 cost on clipped data (pure epsilon-DP, replace-one).
    docs/l1_exponential.md §"Baselines (not from the paper)" (B1).
    See docs/l1_exponential.md §"baselines.baseline_clipped_em"."""
    X, y = check_Xy(X, y, min_rows=1)
    Xc, yc = clip_data(X, y, clip_x, clip_y)
    R = check_positive("radius", radius)
    k = clipped_em_kappa(epsilon, clip_x, clip_y, R)
    sens = clip_y + clip_x * R
    n_draws = check_int("n_draws", n_draws, lo=1)
    d = X.shape[1]
    if mode == "auto":
        mode = "grid" if d <= 3 else "mcmc"
    if mode == "grid":
        net = grid_net(d, R, default_grid_resolution(X.shape[0], d, R) if m is None else m)
        with single_threaded_blas():
            S = _abs_cost(net.points, Xc, yc, want_grad=False)[0]
        draws = net.points[sample_grid(grid_probabilities(S, k), n_draws, rng)]
        label = f"{BASELINE_LABEL}; exact ε-DP (replace-one, sensitivity C_y + C_x R = {sens:g})"
        rel = ClippedEMResult(draws, k, sens, "grid", label, net=net)
        return (rel, ClippedEMDiagnostics()) if diagnostics else rel
    if mode != "mcmc":
        raise ValueError(f"mode must be one of 'auto', 'grid', 'mcmc', got {mode!r}.")
    if math.isinf(k):
        raise ValueError("epsilon must be finite for the MCMC sampler, got inf.")
    res = mcmc_sample(
        lambda W: _abs_cost(W, Xc, yc), d, max(2, n_draws), kappa_value=k, radius=R, schedule=schedule, rng=rng
    )
    rel = ClippedEMResult(res.draws[:n_draws], k, sens, "mcmc", f"{BASELINE_LABEL}; {APPROXIMATE_LABEL}")
    return (rel, ClippedEMDiagnostics(mcmc=res)) if diagnostics else rel


@dataclass(frozen=True)
class DPGDCalibration:
    """Noise calibration of B2 (docs/l1_exponential.md §"Baselines (not from the paper)").
    See docs/l1_exponential.md §"baselines.DPGDCalibration"."""

    rho: float
    sigma_g: float
    G: float
    step: float
    n_steps: int
    clip: float
    epsilon: float
    delta: float


@computable
def dp_gd_calibration(
    *, n: int, d: int, epsilon: float, delta: float, n_steps: int = 200, clip: float = 2.0, radius: float = 1.0
) -> DPGDCalibration:
    """Calibrate B2 (replace-one; rho-zCDP => (rho + 2 sqrt(rho L), delta)-DP)."""
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1)
    eps = check_epsilon(epsilon, allow_inf=False)
    delta = check_delta(delta)
    T = check_int("n_steps", n_steps, lo=1, hi=100_000)
    C = check_positive("clip", clip)
    R = check_positive("radius", radius)
    L = math.log(1.0 / delta)
    rho = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
    sigma = (2.0 * C / n) * math.sqrt(T / (2.0 * rho))
    G = math.sqrt(C * C + d * sigma * sigma)
    return DPGDCalibration(rho, sigma, G, 2.0 * R / (G * math.sqrt(T)), T, C, eps, delta)


def baseline_dp_gd(
    X: ArrayLike,
    y: ArrayLike,
    *,
    epsilon: float,
    delta: float = 1e-5,
    clip: float = 2.0,
    n_steps: int = 200,
    radius: float = 1.0,
    n_draws: int = 1,
    rng: RngLike = None,
) -> NDArray[np.float64]:
    """B2: DP projected subgradient descent with per-example clipping; ``n_draws`` independent releases.
    docs/l1_exponential.md §"Baselines (not from the paper)" (B2); Bun & Steinke (2016).
    See docs/l1_exponential.md §"baselines.baseline_dp_gd"."""
    X, y = check_Xy(X, y, min_rows=1)
    n, d = X.shape
    cal = dp_gd_calibration(n=n, d=d, epsilon=epsilon, delta=delta, n_steps=n_steps, clip=clip, radius=radius)
    K = check_int("n_draws", n_draws, lo=1)
    R = float(radius)
    g = as_generator(rng)
    norms = np.linalg.norm(X, axis=1)
    Xc = X * np.minimum(1.0, cal.clip / np.maximum(norms, 1e-300))[:, None]
    w = np.zeros((K, d))
    avg = np.zeros((K, d))
    with single_threaded_blas():
        for _ in range(cal.n_steps):
            r = y - w @ X.T
            grad = -(np.sign(r) @ Xc) / n + cal.sigma_g * g.standard_normal((K, d))
            w = w - cal.step * grad
            nr = np.linalg.norm(w, axis=1)
            out = nr > R
            w[out] *= (R / nr[out])[:, None]
            avg += w
    return avg / cal.n_steps
