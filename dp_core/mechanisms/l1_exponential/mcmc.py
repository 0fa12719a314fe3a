"""Mode M: the continuous exponential mechanism sampled by MCMC (approximate; not certified).

Target ``pi_D(w) ∝ exp(-kappa * S(w; D))`` on the ball ``W = {||w|| <= R}`` with the uniform base
measure. Sampled exactly it would be epsilon-DP by the paper's argument; MCMC only approximates
it, the target is not log-concave (S saturates), and the step-size adaptation looks at the data.
Every result therefore carries the label :data:`APPROXIMATE_LABEL`.

K chains run in lock-step as one vectorised array (one chain per requested release), with a
shared step size adapted during a warm-up phase toward acceptance 0.574 (MALA) or 0.234 (RWM).

References
----------
Wang & Xu, Algorithms 1-2 (the discrete mechanism this approximates); specification
``l1_heavy_tailed.md`` section 2.7 (Mode M) and section 8, item 3. Split-R-hat and effective
sample size follow Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021), *Rank-normalization,
folding, and localization: an improved R-hat*, Bayesian Analysis 16(2) (without rank-normalisation).
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_choice, check_int, check_positive, check_Xy
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator
from ._blas import single_threaded_blas
from .truncation import CONVENTIONS, _cost_blocks, check_theta, convention_guarantee, kappa

__all__ = [
    "APPROXIMATE_LABEL",
    "MCMC_PRESETS",
    "MCMCSchedule",
    "MCMCDiagnostics",
    "MCMCResult",
    "split_rhat",
    "effective_sample_size",
    "mcmc_sample",
    "em_mcmc",
]

#: Mandatory label of every Mode-M result (specification section 2.7).
APPROXIMATE_LABEL = (
    "approximate sampler, guarantee not certified: ε-DP holds for the idealised exact sampler only; "
    "this MCMC approximation (with data-driven step-size adaptation) is not certified"
)

#: Named schedules: (warm-up steps, sampling steps). ``spec`` is the specification's default.
MCMC_PRESETS = {"spec": (500, None), "fast": (300, 600), "quick": (150, 250)}

CostGrad = Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class MCMCSchedule:
    """Lengths and tuning of the MCMC run.

    Attributes
    ----------
    n_adapt : int
        Warm-up steps with step-size adaptation (default 500).
    n_sample : int or None
        Frozen steps after warm-up; ``None`` means ``max(1000, 100 d)`` (specification default).
    method : {"mala", "rwm"}
        MALA (default) or the random-walk Metropolis fallback (run twice as long).
    step0 : float or None
        Initial step size; ``None`` means ``0.01 R^2/d`` (MALA) or ``0.1 R/sqrt(d)`` (RWM scale).
    """

    n_adapt: int = 500
    n_sample: int | None = None
    method: str = "mala"
    step0: float | None = None

    def __post_init__(self) -> None:
        check_int("n_adapt", self.n_adapt, lo=0, hi=1_000_000)
        if self.n_sample is not None:
            check_int("n_sample", self.n_sample, lo=4, hi=1_000_000)
        check_choice("method", self.method, ("mala", "rwm"))
        if self.step0 is not None:
            check_positive("step0", self.step0)

    @classmethod
    def preset(cls, name: str, method: str = "mala") -> "MCMCSchedule":
        """``spec`` (500 + max(1000, 100 d)), ``fast`` (300 + 600) or ``quick`` (150 + 250)."""
        check_choice("preset", name, tuple(MCMC_PRESETS))
        a, s = MCMC_PRESETS[name]
        return cls(n_adapt=a, n_sample=s, method=method)

    def lengths(self, d: int) -> tuple[int, int]:
        n_sample = max(1000, 100 * d) if self.n_sample is None else self.n_sample
        factor = 2 if self.method == "rwm" else 1
        return factor * self.n_adapt, factor * n_sample


@dataclass(frozen=True)
class MCMCDiagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: diagnostics of the chains run on the private data (specification section 2.7).

    Attributes
    ----------
    acceptance : float
        Acceptance rate during the frozen phase (MALA: 0.4-0.8 is healthy).
    step_size : float
        Final step size h (MALA) or proposal scale s (RWM).
    rhat_logp : float
        Split-R-hat over the K chains of the log target on the second half of the frozen phase.
    rhat_coords : tuple of float
        Split-R-hat of each coordinate.
    rhat_max : float
        Largest of the above; flagged when > 1.05.
    ess_logp : float
        Effective sample size of the log target (all chains, second half of the frozen phase).
    wall_time : float
        Seconds.
    """

    method: str
    n_chains: int
    n_adapt: int
    n_sample: int
    acceptance: float
    step_size: float
    rhat_logp: float
    rhat_coords: tuple
    rhat_max: float
    ess_logp: float
    wall_time: float

    @property
    def flagged(self) -> bool:
        return (not math.isfinite(self.rhat_max)) or self.rhat_max > 1.05

    def as_dict(self) -> dict:
        return {"method": self.method, "n_chains": self.n_chains, "n_adapt": self.n_adapt,
                "n_sample": self.n_sample, "acceptance": self.acceptance, "step_size": self.step_size,
                "rhat_logp": self.rhat_logp, "rhat_max": self.rhat_max, "rhat_coords": list(self.rhat_coords),
                "ess_logp": self.ess_logp, "wall_time": self.wall_time, "flagged": self.flagged,
                "label": APPROXIMATE_LABEL}


@dataclass(frozen=True, eq=False)
class MCMCResult(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: final states of the K chains (one release each), the log-target trace and diagnostics."""

    draws: NDArray[np.float64] = field(repr=False)
    diagnostics: MCMCDiagnostics
    trace_logp: NDArray[np.float64] = field(repr=False)
    label: str = APPROXIMATE_LABEL


def split_rhat(chains: ArrayLike) -> float:
    """Split-R-hat of draws arranged as ``(n_chains, n_steps)`` (Vehtari et al. 2021, eq. 4).

    Each chain is split in two halves; values near 1 mean the chains agree.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> round(split_rhat(g.standard_normal((8, 400))), 2)
    1.0
    """
    x = np.asarray(chains, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 4:
        raise ValueError(f"chains must have shape (n_chains, n_steps) with n_steps >= 4, got {x.shape}.")
    half = x.shape[1] // 2
    parts = np.concatenate([x[:, :half], x[:, x.shape[1] - half:]], axis=0)
    n = parts.shape[1]
    means = parts.mean(axis=1)
    W = parts.var(axis=1, ddof=1).mean()
    B = n * means.var(ddof=1)
    if W <= 0:
        return 1.0 if B <= 0 else math.inf
    var_plus = (n - 1) / n * W + B / n
    return float(math.sqrt(var_plus / W))


def effective_sample_size(chains: ArrayLike) -> float:
    """Multi-chain effective sample size with Geyer's initial monotone sequence.

    Autocorrelations are computed per chain by FFT and combined as in Vehtari et al. (2021).

    Examples
    --------
    >>> g = np.random.default_rng(1)
    >>> 700 < effective_sample_size(g.standard_normal((4, 250))) < 1300
    True
    """
    x = np.asarray(chains, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 4:
        raise ValueError(f"chains must have shape (n_chains, n_steps) with n_steps >= 4, got {x.shape}.")
    m, n = x.shape
    xc = x - x.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(xc, n=size, axis=1)
    acov = np.fft.irfft(f * np.conj(f), n=size, axis=1)[:, :n] / n
    chain_var = acov[:, 0] * n / (n - 1)
    W = chain_var.mean()
    B_over_n = x.mean(axis=1).var(ddof=1) if m > 1 else 0.0
    var_plus = (n - 1) / n * W + B_over_n
    if var_plus <= 0:
        return float(m * n)
    rho = 1.0 - (W - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    # Geyer: sum pairs while positive, enforce monotone pairs.
    pair_sums = []
    t = 0
    while t + 1 < n:
        s = rho[t] + rho[t + 1]
        if s <= 0:
            break
        pair_sums.append(s)
        t += 2
    if not pair_sums:
        return float(m * n)
    ps = np.minimum.accumulate(np.asarray(pair_sums))
    tau = -1.0 + 2.0 * ps.sum()
    tau = max(tau, 1.0 / math.log10(max(m * n, 10)))
    return float(m * n / tau)


def _threaded(fn: CostGrad, threads: int, pool: ThreadPoolExecutor | None) -> CostGrad:
    def job(W):
        with single_threaded_blas():
            return fn(W)

    if pool is None or threads <= 1:
        return job

    def run(W):
        k = W.shape[0]
        if k < 2 * threads:
            return job(W)
        b = np.linspace(0, k, threads + 1).astype(int)
        parts = list(pool.map(lambda ab: job(W[ab[0]:ab[1]]), zip(b[:-1], b[1:])))
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts], axis=0)

    return run


def mcmc_sample(cost_and_grad: CostGrad, d: int, n_chains: int, *, kappa_value: float, radius: float,
                schedule: MCMCSchedule | None = None, rng: RngLike = None,
                n_threads: int | None = None) -> MCMCResult:
    """Sample ``pi(w) ∝ exp(-kappa * cost(w))`` on the ball of radius R with K vectorised chains.

    Parameters
    ----------
    cost_and_grad : callable
        ``cost_and_grad(W) -> (S, grad S)`` for a batch ``W`` of shape (k, d).
    d : int
        Dimension.
    n_chains : int
        K >= 2; the K final states are K independent (approximate) releases.
    kappa_value : float
        Inverse temperature, finite and > 0.
    radius : float
        Radius R of W; proposals outside are rejected.
    schedule : MCMCSchedule
    rng : seed or Generator
    n_threads : int, optional
        Threads for the cost evaluation (default up to 2).

    Returns
    -------
    MCMCResult

    Notes
    -----
    The initial point is the centre of W for every chain (it must not depend on the data).
    MALA proposal ``w' = w + (h/2) grad l(w) + sqrt(h) z``, accepted with the Metropolis-Hastings
    ratio including ``log q``; during warm-up ``log h += gamma_t (accept_t - 0.574)``,
    ``gamma_t = max(0.02, 1/sqrt(t))``.

    References
    ----------
    Specification section 2.7 (Mode M); Roberts & Tweedie (1996) for MALA.
    """
    d = check_int("d", d, lo=1)
    K = check_int("n_chains", n_chains, lo=2, hi=100_000)
    k = check_positive("kappa", kappa_value)
    R = check_positive("radius", radius)
    schedule = MCMCSchedule() if schedule is None else schedule
    n_adapt, n_sample = schedule.lengths(d)
    mala = schedule.method == "mala"
    target = 0.574 if mala else 0.234
    if schedule.step0 is not None:
        step = schedule.step0
    else:
        step = 0.01 * R * R / d if mala else 0.1 * R / math.sqrt(d)
    log_step = math.log(step)
    g = as_generator(rng)
    threads = max(1, min(2, os.cpu_count() or 1)) if n_threads is None else check_int("n_threads", n_threads, lo=1, hi=16)
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        f = _threaded(cost_and_grad, threads, pool)
        w = np.zeros((K, d))
        S, G = f(w)
        lp, gl = -k * S, -k * G
        keep = max(2, n_sample // 2)
        trace_lp = np.empty((K, keep))
        trace_w = np.empty((K, keep, d))
        n_acc = 0
        total = n_adapt + n_sample
        for t in range(1, total + 1):
            h = math.exp(log_step)
            z = g.standard_normal((K, d))
            if mala:
                wp = w + 0.5 * h * gl + math.sqrt(h) * z
            else:
                wp = w + h * z
            inside = np.einsum("ij,ij->i", wp, wp) <= R * R
            accept = np.zeros(K, dtype=bool)
            idx = np.flatnonzero(inside)
            if idx.size:
                Sp, Gp = f(wp[idx])
                lpp, glp = -k * Sp, -k * Gp
                log_alpha = lpp - lp[idx]
                if mala:
                    back = w[idx] - wp[idx] - 0.5 * h * glp
                    log_alpha += -np.einsum("ij,ij->i", back, back) / (2.0 * h) + 0.5 * np.einsum("ij,ij->i", z[idx], z[idx])
                u = g.random(idx.size)
                ok = np.log(u) < log_alpha
                sel = idx[ok]
                accept[sel] = True
                w[sel] = wp[sel]
                lp[sel] = lpp[ok]
                gl[sel] = glp[ok]
            rate = accept.mean()
            if t <= n_adapt:
                log_step += max(0.02, 1.0 / math.sqrt(t)) * (rate - target)
            else:
                n_acc += int(accept.sum())
                s = t - n_adapt - 1 - (n_sample - keep)
                if s >= 0:
                    trace_lp[:, s] = lp
                    trace_w[:, s] = w
    finally:
        if pool is not None:
            pool.shutdown()
    wall = time.perf_counter() - t0
    rh_lp = split_rhat(trace_lp) if keep >= 4 else math.nan
    rh_c = tuple(split_rhat(trace_w[:, :, j]) if keep >= 4 else math.nan for j in range(d))
    finite = [v for v in (rh_lp, *rh_c) if math.isfinite(v)]
    diag = MCMCDiagnostics(
        method=schedule.method, n_chains=K, n_adapt=n_adapt, n_sample=n_sample,
        acceptance=n_acc / (K * n_sample) if n_sample else math.nan, step_size=math.exp(log_step),
        rhat_logp=rh_lp, rhat_coords=rh_c, rhat_max=max(finite) if finite else math.nan,
        ess_logp=effective_sample_size(trace_lp) if keep >= 4 else math.nan, wall_time=wall,
    )
    return MCMCResult(draws=w.copy(), diagnostics=diag, trace_logp=trace_lp)


def em_mcmc(X: ArrayLike, y: ArrayLike, *, epsilon: float, theta: float, iota: float, radius: float = 1.0,
            convention: str = "tight", n_draws: int = 100, schedule: MCMCSchedule | None = None,
            rng: RngLike = None, n_threads: int | None = None) -> MCMCResult:
    """Approximate draws of the continuous exponential mechanism EM-L1-HT (Mode M).

    Each of the ``n_draws`` chains gives one release. The result's ``label`` is
    :data:`APPROXIMATE_LABEL`: the epsilon-DP guarantee is not certified for this sampler.

    Parameters
    ----------
    X, y : array_like
        Private data (raw, never clipped).
    epsilon : float
        Privacy budget, finite and > 0 (for epsilon = inf use the non-private fit).
    theta, iota, radius, convention : see :func:`~dp_core.mechanisms.l1_exponential.grid.em_grid`.
    n_draws : int
        Number of chains/releases K >= 2.
    schedule : MCMCSchedule
    rng : seed or Generator

    References
    ----------
    Wang & Xu, Algorithms 1-2; specification section 2.7 (Mode M) and Corollary P2.

    Examples
    --------
    >>> g = np.random.default_rng(0); X = g.standard_normal((200, 2)); y = X @ [0.3, -0.2]
    >>> r = em_mcmc(X, y, epsilon=1, theta=1.5, iota=0.5, n_draws=8,
    ...             schedule=MCMCSchedule(n_adapt=50, n_sample=50), rng=1)
    >>> r.draws.shape, r.label.startswith("approximate sampler")
    ((8, 2), True)
    """
    X, y = check_Xy(X, y, min_rows=1)
    theta = check_theta(theta)
    iota = check_positive("iota", iota)
    check_choice("convention", convention, CONVENTIONS)
    k = kappa(epsilon, theta, convention)
    if math.isinf(k):
        raise ValueError("epsilon must be finite for the MCMC sampler, got inf; use the non-private fit (lad_fit).")
    convention_guarantee(epsilon, theta, convention)

    # float32 arithmetic (sums in float64): about twice as fast, and the sampler is approximate anyway.
    X32, y32 = X.astype(np.float32), y.astype(np.float32)

    def cost_grad(W):
        return _cost_blocks(W, X32, y32, iota, theta, want_grad=True)

    return mcmc_sample(cost_grad, X.shape[1], n_draws, kappa_value=k, radius=radius, schedule=schedule, rng=rng,
                       n_threads=n_threads)
