"""Mode M: the continuous exponential mechanism sampled by MCMC (approximate; never proved). Wang & Xu, Algorithms 1-2;
MALA (Roberts & Tweedie 1996); split-R-hat and bulk ESS (Vehtari et al. 2021).
docs/l1_exponential.md §"MCMC sampler (mode M)"."""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri

from ... import display
from ..._blas import single_threaded_blas
from ..._validation import check_choice, check_in_interval, check_int, check_positive, check_Xy
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator
from .truncation import CONVENTIONS, _cost_blocks, check_theta, convention_guarantee, kappa

__all__ = [
    "APPROXIMATE_LABEL",
    "ESS_MIN",
    "LEGACY_PRESETS",
    "MCMC_PRESETS",
    "MIN_CHAINS",
    "NOT_CONVERGED_MESSAGE",
    "RHAT_THRESHOLD",
    "MCMCDiagnostics",
    "MCMCResult",
    "MCMCSchedule",
    "bulk_ess",
    "convergence_status",
    "effective_sample_size",
    "em_mcmc",
    "em_mcmc_sweep",
    "mcmc_sample",
    "rank_normalized_rhat",
    "release_status",
    "split_rhat",
]

#: Mandatory label of every Mode-M result (docs/l1_exponential.md §"Samplers").
APPROXIMATE_LABEL = (
    "approximate sampler, guarantee not proved: ε-DP holds for the idealised exact sampler only; "
    "this MCMC approximation (with data-driven step-size adaptation) is not proved"
)

#: A release is labelled ``not_converged`` when the largest rank-normalised split-R-hat (over the
#: log target and every coordinate; max of bulk and folded, Vehtari et al. 2021) exceeds this.
RHAT_THRESHOLD = 1.05

#: ... or when the smallest bulk effective sample size (same quantities, all chains, the whole
#: sampling phase) is below this (Vehtari et al. 2021 recommend at least 100 per quantity).
ESS_MIN = 100.0

#: Message of a release whose sampler failed the thresholds.
NOT_CONVERGED_MESSAGE = "not proved: the sampler did not converge"

#: What to do about it (page, CLI and comparison rows).
NOT_CONVERGED_ADVICE = (
    "Use a longer preset (fast or spec), fewer features, or the exact grid sampler (mode grid, d ≤ 3)."
)

#: Named schedules: (warm-up steps, sampling steps); docs/l1_exponential.md §"mcmc presets and early stop".
MCMC_PRESETS = {"spec": (500, None), "fast": (150, 600), "quick": (200, 400)}

#: Presets of the older sampler (isotropic MALA, every chain started at the centre of W).
LEGACY_PRESETS = {"spec": (500, None), "fast": (300, 600), "quick": (150, 250)}

#: Early stop of the sampling phase; docs/l1_exponential.md §"mcmc presets and early stop".
STOP_RHAT = 1.02
STOP_ESS = 4.0 * ESS_MIN

#: Presets whose early stop waits for a smaller R-hat; docs/l1_exponential.md §"mcmc presets and early stop".
PRESET_STOP_RHAT = {"fast": 1.01}
STOP_MIN_SAMPLE = 100
STOP_CHECK_EVERY = 50

#: The mechanism runs at least this many chains (releasing the first ``n_draws`` final states):
#: fewer chains give a poor warm-up covariance estimate and too few draws for the diagnostics.
MIN_CHAINS = 16

CostGrad = Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]]

# Warm-up windows (fractions of n_adapt): M is re-estimated at the end of each window from the
# pooled chain states inside it; after the last one only the step size adapts.
_WINDOWS = ((0.10, 0.30), (0.30, 0.55), (0.55, 0.85))


def convergence_status(rhat_max: float, ess_min: float) -> str:
    """``"converged"`` when ``rhat_max <= RHAT_THRESHOLD`` and ``ess_min >= ESS_MIN``, else ``"not_converged"``. See
    docs/l1_exponential.md §"mcmc.convergence_status"."""
    ok = math.isfinite(rhat_max) and math.isfinite(ess_min) and rhat_max <= RHAT_THRESHOLD and ess_min >= ESS_MIN
    return "converged" if ok else "not_converged"


@dataclass(frozen=True, slots=True, kw_only=True)
class MCMCSchedule:
    """Lengths and tuning of the MCMC run. See docs/l1_exponential.md §"mcmc.MCMCSchedule"."""

    n_adapt: int = 500
    n_sample: int | None = None
    method: str = "mala"
    step0: float | None = None
    precondition: bool = True
    init: str = "overdispersed"
    reparam: str = "auto"
    stop_early: bool = True
    stop_rhat: float = STOP_RHAT

    def __post_init__(self) -> None:
        check_int("n_adapt", self.n_adapt, lo=0, hi=1_000_000)
        if self.n_sample is not None:
            check_int("n_sample", self.n_sample, lo=4, hi=1_000_000)
        check_choice("method", self.method, ("mala", "rwm"))
        if self.step0 is not None:
            check_positive("step0", self.step0)
        for name in ("precondition", "stop_early"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {type(getattr(self, name)).__name__}.")
        check_choice("init", self.init, ("overdispersed", "centre"))
        check_choice("reparam", self.reparam, ("auto", "tanh", "none"))
        check_in_interval("stop_rhat", self.stop_rhat, 1.0, RHAT_THRESHOLD, closed="both")

    @classmethod
    def preset(cls, name: str, method: str = "mala") -> MCMCSchedule:
        """``spec`` (500 + max(1000, 100 d)), ``fast`` (150 + at most 600, early stop at R-hat <= 1.01)
        or ``quick`` (200 + at most 400); see :data:`PRESET_STOP_RHAT`."""
        check_choice("preset", name, tuple(MCMC_PRESETS))
        a, s = MCMC_PRESETS[name]
        return cls(n_adapt=a, n_sample=s, method=method, stop_rhat=PRESET_STOP_RHAT.get(name, STOP_RHAT))

    @classmethod
    def legacy(cls, name: str, method: str = "mala") -> MCMCSchedule:
        """The older sampler with its preset lengths (isotropic proposal, all chains at the centre).
        See docs/l1_exponential.md §"mcmc.MCMCSchedule.legacy"."""
        check_choice("preset", name, tuple(LEGACY_PRESETS))
        a, s = LEGACY_PRESETS[name]
        return cls(
            n_adapt=a, n_sample=s, method=method, precondition=False, init="centre", reparam="none", stop_early=False
        )

    def lengths(self, d: int) -> tuple[int, int]:
        n_sample = max(1000, 100 * d) if self.n_sample is None else self.n_sample
        factor = 2 if self.method == "rwm" else 1
        return factor * self.n_adapt, factor * n_sample


@dataclass(frozen=True)
class MCMCDiagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: diagnostics of the chains run on the private data (docs/l1_exponential.md §"Samplers").
    See docs/l1_exponential.md §"mcmc.MCMCDiagnostics"."""

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
    ess_min: float = math.nan
    preconditioned: bool = False
    init: str = "centre"
    parametrisation: str = "ball"

    @property
    def status(self) -> str:
        """``converged`` or ``not_converged`` (:func:`convergence_status`)."""
        return convergence_status(self.rhat_max, self.ess_min)

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    @property
    def flagged(self) -> bool:
        """True when the release is not proved because the sampler did not converge."""
        return not self.converged

    @property
    def message(self) -> str:
        """One sentence for people: how well the sampler converged and what the guarantee is conditional on."""
        figures = (
            f"largest rank-normalised split-R̂ {_fmt(self.rhat_max, 4)} (threshold ≤ "
            f"{_fmt(RHAT_THRESHOLD, 3)}), smallest bulk ESS {_fmt(self.ess_min, 0)} (threshold ≥ "
            f"{_fmt(ESS_MIN, 0)}), acceptance {_fmt(self.acceptance, 2)}, {_fmt(self.n_chains, 0)} chains × "
            f"{_fmt(self.n_adapt, 0)} warm-up + {_fmt(self.n_sample, 0)} sampling steps"
        )
        if self.converged:
            return (
                "Approximate sampler, converged by its diagnostics (" + figures + "). The ε-DP guarantee is "
                "that of the exact target distribution; these draws carry it only to the extent that the "
                "chains reached that distribution, which diagnostics can support but never prove."
            )
        return (
            f"{NOT_CONVERGED_MESSAGE} (" + figures + "). These releases are not samples of the ε-DP "
            f"distribution and carry no privacy guarantee. {NOT_CONVERGED_ADVICE}"
        )

    def as_dict(self) -> dict:
        constants = {"rhat_kind": RHAT_KIND, "ess_kind": ESS_KIND, "rhat_threshold": RHAT_THRESHOLD}
        constants |= {"ess_threshold": ESS_MIN, "label": APPROXIMATE_LABEL}
        out = {k: constants[k] if k in constants else getattr(self, k) for k in _DIAGNOSTIC_KEYS}
        out["rhat_coords"] = list(self.rhat_coords)
        return out


RHAT_KIND = "rank-normalised split-R̂, max of bulk and folded (Vehtari et al. 2021)"
ESS_KIND = "bulk effective sample size of rank-normalised draws (Vehtari et al. 2021)"
#: The keys of :meth:`MCMCDiagnostics.as_dict`, in order (fields, properties and the constants above).
_DIAGNOSTIC_KEYS = (
    "method n_chains n_adapt n_sample acceptance step_size rhat_kind rhat_logp rhat_max rhat_coords ess_kind ess_logp "
    "ess_min rhat_threshold ess_threshold preconditioned init parametrisation wall_time status flagged message label"
).split()


def _fmt(x: float, digits: int) -> str:
    """A diagnostic for the message, through :mod:`dp_core.display` (``digits`` = significant digits, 0 = count)."""
    if digits == 0:
        return display.integer(x, inf="infinite", missing="not computable")
    return display.number(x, sig=digits, inf="infinite (chains stuck)", missing="not computable")


@dataclass(frozen=True, eq=False)
class MCMCResult(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: final states of the K chains (one release each), the log-target trace and diagnostics."""

    draws: NDArray[np.float64] = field(repr=False)
    diagnostics: MCMCDiagnostics
    trace_logp: NDArray[np.float64] = field(repr=False)
    label: str = APPROXIMATE_LABEL

    @property
    def status(self) -> str:
        return self.diagnostics.status


def _check_chains(chains: ArrayLike) -> NDArray[np.float64]:
    x = np.asarray(chains, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 4:
        raise ValueError(f"chains must have shape (n_chains, n_steps) with n_steps >= 4, got {x.shape}.")
    return x


def _split(x: NDArray[np.float64]) -> NDArray[np.float64]:
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def _rhat_parts(parts: NDArray[np.float64]) -> float:
    n = parts.shape[1]
    means = parts.mean(axis=1)
    W = parts.var(axis=1, ddof=1).mean()
    B = n * means.var(ddof=1)
    if W <= 0:
        return 1.0 if B <= 0 else math.inf
    var_plus = (n - 1) / n * W + B / n
    return float(math.sqrt(var_plus / W))


def _rank_normal(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Normal scores ``Phi^-1((r - 3/8) / (S + 1/4))`` of the pooled average ranks r (ties share their mean rank).
    See docs/l1_exponential.md §"mcmc._rank_normal"."""
    flat = x.ravel()
    size = flat.size
    order = np.argsort(flat)
    xs = flat[order]
    new = np.empty(size, dtype=bool)
    new[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], size)
    mean_rank = (starts + ends + 1) / 2.0  # 1-based ranks starts+1 .. ends
    out = np.empty(size)
    out[order] = np.repeat(ndtri((mean_rank - 0.375) / (size + 0.25)), ends - starts)
    return out.reshape(x.shape)


def split_rhat(chains: ArrayLike) -> float:
    """Split-R-hat of draws arranged as ``(n_chains, n_steps)`` (Vehtari et al. 2021, eq. 4). See docs/l1_exponential.md
    §"mcmc.split_rhat"."""
    return _rhat_parts(_split(_check_chains(chains)))


def rank_normalized_rhat(chains: ArrayLike) -> float:
    """Rank-normalised split-R-hat: the larger of bulk and folded R-hat (Vehtari et al. 2021, section 4.2). See
    docs/l1_exponential.md §"mcmc.rank_normalized_rhat"."""
    parts = _split(_check_chains(chains))
    return max(_rhat_parts(_rank_normal(parts)), _folded_rhat(parts))


def _folded_rhat(parts: NDArray[np.float64]) -> float:
    """R-hat of the rank-normalised distances to the median (the folded R-hat of Vehtari et al. 2021)."""
    return _rhat_parts(_rank_normal(np.abs(parts - np.median(parts))))


def effective_sample_size(chains: ArrayLike) -> float:
    """Multi-chain effective sample size with Geyer's initial monotone sequence. See docs/l1_exponential.md
    §"mcmc.effective_sample_size"."""
    x = _check_chains(chains)
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
    pairs = rho[0 : n - 1 : 2] + rho[1:n:2]
    stop = pairs <= 0
    pairs = pairs[: int(np.argmax(stop)) if stop.any() else pairs.size]
    if not pairs.size:
        return float(m * n)
    ps = np.minimum.accumulate(pairs)
    tau = -1.0 + 2.0 * ps.sum()
    tau = max(tau, 1.0 / math.log10(max(m * n, 10)))
    return float(m * n / tau)


def bulk_ess(chains: ArrayLike) -> float:
    """Bulk effective sample size: :func:`effective_sample_size` of the rank-normalised split chains."""
    return effective_sample_size(_rank_normal(_split(_check_chains(chains))))


def _diagnostics(
    trace_lp: NDArray[np.float64],
    trace_w: NDArray[np.float64],
    *,
    rhat_max: float | None = None,
    ess_min: float | None = None,
) -> tuple[tuple, list] | None:
    """Rank-normalised split-R-hat and bulk ESS of the log target and of every coordinate.
    See docs/l1_exponential.md §"mcmc._diagnostics"."""
    check = rhat_max is not None
    qs = [trace_lp] + [trace_w[:, :, j] for j in range(trace_w.shape[2])]
    zs = []
    for q in qs:
        parts = _split(_check_chains(q))
        z = _rank_normal(parts)
        if check and _rhat_parts(z) > rhat_max:
            return None
        zs.append((parts, z))
    rh, es = [], []
    for parts, z in zs:
        ess = effective_sample_size(z)
        if check and ess < ess_min:
            return None
        r = max(_rhat_parts(z), _folded_rhat(parts))
        if check and r > rhat_max:
            return None
        rh.append(r)
        es.append(ess)
    return tuple(rh), es


#: Default threading of the sampler: a second thread only when every thread gets at least this many
#: (chain x data row) terms per evaluation (about half a millisecond of work); below, the hand-over
#: to the thread pool costs more than it saves, and on a shared machine more so.
_THREAD_MIN_WORK = 1 << 18


def _threaded(fn: Callable, threads: int, pool: ThreadPoolExecutor | None) -> Callable:
    """``fn`` with one BLAS thread, its rows split over ``threads`` threads; an optional second argument
    (one scale per row, see :func:`_fast_cost_grad`) is split with them."""

    def job(W, scales=None):
        with single_threaded_blas():
            return fn(W) if scales is None else fn(W, scales)

    if pool is None or threads <= 1:
        return job

    def run(W, scales=None):
        k = W.shape[0]
        if k < 2 * threads:
            return job(W, scales)
        b = np.linspace(0, k, threads + 1).astype(int)
        parts = list(
            pool.map(
                lambda ab: job(W[ab[0] : ab[1]], None if scales is None else scales[ab[0] : ab[1]]),
                itertools.pairwise(b),
            )
        )
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts], axis=0)

    return run


def _uniform_ball(g: np.random.Generator, k: int, d: int, R: float) -> NDArray[np.float64]:
    z = g.standard_normal((k, d))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    return z * (R * g.random(k) ** (1.0 / d))[:, None]


class _TanhBall:
    """The map ``u -> w = R tanh(|u|) u/|u|`` from R^d onto the open ball of radius R, with its log-Jacobian.
    See docs/l1_exponential.md §"mcmc._TanhBall"."""

    def __init__(self, d: int, R: float):
        self.d, self.R = d, R

    @staticmethod
    def _r(U):
        return np.sqrt(np.einsum("ij,ij->i", U, U))

    def to_w(self, U):
        r = self._r(U)
        a = np.where(r > 1e-8, self.R * np.tanh(r) / np.maximum(r, 1e-300), self.R)
        return U * a[:, None]

    def from_w(self, W):
        rho = np.minimum(np.sqrt(np.einsum("ij,ij->i", W, W)) / self.R, 1.0 - 1e-12)
        scale = np.where(rho > 1e-8, np.arctanh(rho) / np.maximum(rho, 1e-300), 1.0) / self.R
        return W * scale[:, None]

    def log_jacobian(self, U):
        d, R = self.d, self.R
        r = self._r(U)
        e = np.exp(-2.0 * r)
        log_sech = math.log(2.0) - r - np.log1p(e)
        small = r < 1e-4
        rs = np.where(small, 1.0, r)
        log_tanh_over_r = np.where(small, -r * r / 3.0, np.log1p(-e) - np.log1p(e) - np.log(rs))
        lj = math.log(R) + 2.0 * log_sech + (d - 1) * (math.log(R) + log_tanh_over_r)
        with np.errstate(over="ignore"):
            inv_sinh2 = np.where(small, 0.0, 2.0 / np.sinh(2.0 * rs))
        c = np.where(small, -2.0 - 2.0 * (d - 1) / 3.0, (-2.0 * np.tanh(rs) + (d - 1) * (inv_sinh2 - 1.0 / rs)) / rs)
        return lj, U * c[:, None]

    def pullback(self, U, V):
        """``J(u)^T v`` for rows (J is symmetric: ``a I + (g' - a) u u^T / r^2``)."""
        r = self._r(U)
        small = r < 1e-8
        rs = np.where(small, 1.0, r)
        a = np.where(small, self.R, self.R * np.tanh(rs) / rs)
        gp = self.R / np.cosh(np.minimum(rs, 350.0)) ** 2
        coef = np.where(small, 0.0, (gp - a) * np.einsum("ij,ij->i", U, V) / (rs * rs))
        return V * a[:, None] + U * coef[:, None]


class _Kernel:
    """Adaptation state of one (preconditioned) MALA or RWM kernel in its own coordinates.
    See docs/l1_exponential.md §"mcmc._Kernel"."""

    def __init__(self, space: str, d: int, step: float):
        self.space = space
        self.M = np.eye(d)
        self.L = np.eye(d)
        self.Linv = np.eye(d)
        self.log_step = math.log(step)
        self.t_local = 0
        self.preconditioned = False
        self.jump = 0.0
        self.moves = 0

    def set_metric(self, C: NDArray[np.float64], step: float) -> None:
        self.M = C
        self.L = np.linalg.cholesky(C)
        self.Linv = np.linalg.inv(self.L)
        self.preconditioned = True
        self.log_step = math.log(step)
        self.t_local = 0


def _shrunk_covariance(samples: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Pooled covariance of warm-up states, shrunk toward its diagonal; None if degenerate."""
    N, d = samples.shape
    if N < 2 * d + 2:
        return None
    C = np.cov(samples, rowvar=False).reshape(d, d)
    diag = np.diag(np.diag(C))
    lam = 10.0 / (N + 10.0)
    C = (1.0 - lam) * C + lam * diag
    scale = float(np.trace(C)) / d
    if not (math.isfinite(scale) and scale > 0):
        return None
    C += 1e-8 * scale * np.eye(d)
    return C


def mcmc_sample(
    cost_and_grad: CostGrad,
    d: int,
    n_chains: int,
    *,
    kappa_value: float,
    radius: float,
    schedule: MCMCSchedule | None = None,
    rng: RngLike = None,
    n_threads: int | None = None,
) -> MCMCResult:
    """Sample ``pi(w) ∝ exp(-kappa * cost(w))`` on the ball of radius R with K vectorised chains. docs/l1_exponential.md
    §"Samplers" (Mode M); Roberts & Tweedie (1996) for MALA. See docs/l1_exponential.md §"mcmc.mcmc_sample"."""
    d = check_int("d", d, lo=1)
    K = check_int("n_chains", n_chains, lo=2, hi=100_000)
    k = check_positive("kappa", kappa_value)
    R = check_positive("radius", radius)
    schedule = MCMCSchedule() if schedule is None else schedule
    return _run_chains(cost_and_grad, d, [(K, k, None)], R, schedule, as_generator(rng), n_threads)[0]


def _thread_count(cost_and_grad: Callable, n_chains: int, n_threads: int | None) -> int:
    """Worker threads of the cost evaluations: two when each gets at least :data:`_THREAD_MIN_WORK` terms."""
    if n_threads is not None:
        return check_int("n_threads", n_threads, lo=1, hi=16)
    threads = max(1, min(2, os.cpu_count() or 1))
    terms = getattr(cost_and_grad, "n_terms", None)  # data rows per evaluated point, when the kernel says
    if terms is not None and n_chains * terms < threads * _THREAD_MIN_WORK:
        threads = 1  # too little work per thread: handing it over costs more than it saves
    return threads


class _Ensembles:
    """The state of :func:`_run_chains`: the stacked chains of every group, their kernels and traces."""

    def __init__(self, cost: Callable, d: int, groups: list, R: float, schedule: MCMCSchedule, g) -> None:
        self.d, self.R, self.schedule, self.g, self.cost_fn = d, R, schedule, g, cost
        self.n_adapt, self.n_sample = schedule.lengths(d)
        self.mala = schedule.method == "mala"
        self.target = 0.574 if self.mala else 0.234
        self.ball = _TanhBall(d, R)
        self.spaces = {"none": ("ball",), "tanh": ("tanh",), "auto": ("ball", "tanh")}[schedule.reparam]
        # step after an update of M (M then approximates the target's covariance): Roberts-Rosenthal scales
        self.step_reset = (1.0 / d ** (1.0 / 3.0)) if self.mala else (2.38 / math.sqrt(d))
        self._layout(groups)
        self.kernels = [{sp: _Kernel(sp, d, self._first_step(sp)) for sp in self.spaces} for _ in groups]
        self._adaptation_plan()
        n = self.n_groups
        self.trace_lp = [np.empty((self.sizes[i], self.n_sample)) for i in range(n)]
        self.trace_w = [np.empty((self.sizes[i], self.n_sample, d)) for i in range(n)]
        self.lengths = [self.n_sample] * n
        self.n_acc = [0] * n
        self.final: list = [None] * n
        self.running = [True] * n
        self.win = 0
        self.buf: list = [[] for _ in range(n)]
        self.chosen = [self.spaces[0]] * n

    def _layout(self, groups: list) -> None:
        self.n_groups = len(groups)
        self.sizes = [int(grp[0]) for grp in groups]
        self.K = sum(self.sizes)
        edges = np.concatenate([[0], np.cumsum(self.sizes)]).astype(int)
        self.span = [slice(int(edges[i]), int(edges[i + 1])) for i in range(self.n_groups)]
        self.chain_ids = [np.arange(edges[i], edges[i + 1]) for i in range(self.n_groups)]
        self.kap = np.repeat(np.array([float(grp[1]) for grp in groups]), self.sizes)  # kappa of every chain
        self.scale = None
        if any(grp[2] is not None for grp in groups):
            scales = [1.0 if grp[2] is None else float(grp[2]) for grp in groups]
            self.scale = np.repeat(np.array(scales), self.sizes)
        self.all_rows = np.arange(self.K)

    def _first_step(self, space: str) -> float:
        if self.schedule.step0 is not None:
            return self.schedule.step0
        unit = self.R if space == "ball" else 1.0  # tanh coordinates: u is about w/R near the centre
        return 0.01 * unit * unit / self.d if self.mala else 0.1 * unit / math.sqrt(self.d)

    def _adaptation_plan(self) -> None:
        n_adapt = self.n_adapt
        self.windows = []
        if self.schedule.precondition and n_adapt > 0:
            windows = [(int(a * n_adapt), int(b * n_adapt)) for a, b in _WINDOWS]
            self.windows = [(a, b) for a, b in windows if b - a >= 2]
        # kernels alternate until select_at, compared on their jumps from select_from on; then the best one runs alone
        self.select_from = int(_WINDOWS[-1][0] * n_adapt)
        self.select_at = int(_WINDOWS[-1][1] * n_adapt) if self.windows else n_adapt

    # -- the target in each kernel's coordinates ----------------------------------------------------
    def cost(self, W, rows):
        return self.f(W) if self.scale is None else self.f(W, self.scale[rows])

    def evaluate(self, space, X, rows):
        """Log target and gradient in the kernel's coordinates, and the point, log target and gradient in w."""
        k = self.kap[rows]
        W = X if space == "ball" else self.ball.to_w(X)
        S, G = self.cost(W, rows)
        LW, GLW = -k * S, -k[:, None] * G
        return *self.in_coordinates(space, W, LW, GLW, U=X)[1:], W, LW, GLW

    def in_coordinates(self, space, W, LW, GLW, U=None):
        """The point, log target and gradient in the kernel's coordinates (``U``: the point there, if known)."""
        if space == "ball":
            return W, LW, GLW
        U = self.ball.from_w(W) if U is None else U
        lj, glj = self.ball.log_jacobian(U)
        return U, LW + lj, self.ball.pullback(U, GLW) + glj

    def start(self, f: Callable) -> None:
        """The state is kept in w (with its log target and gradient); each kernel maps it to its coordinates."""
        self.f = f
        g, K, d = self.g, self.K, self.d
        self.w = _uniform_ball(g, K, d, self.R) if self.schedule.init == "overdispersed" else np.zeros((K, d))
        S, G = self.cost(self.w, self.all_rows)
        self.lw, self.glw = -self.kap * S, -self.kap[:, None] * G

    # -- one step -------------------------------------------------------------------------------------
    def _propose(self, space, members, x, gl, z, one):
        """Proposals of the member groups in ``space`` and ``(rows slice, kernel, step)`` of each."""
        xp = np.empty_like(x)
        local, pos = [], 0
        for i in members:
            kn = self.kernels[i][space]
            h = math.exp(kn.log_step)
            loc = slice(pos, pos + self.sizes[i]) if not one else self.span[i]
            local.append((loc, kn, h))
            noise = z[loc] @ kn.L.T
            if self.mala:
                xp[loc] = x[loc] + 0.5 * h * (gl[loc] @ kn.M) + math.sqrt(h) * noise
            else:
                xp[loc] = x[loc] + h * noise
            pos += self.sizes[i]
        return xp, local

    def _move(self, space, members, z_all, z_at, accept) -> None:
        """A Metropolis(-adjusted Langevin) step of the member groups in ``space`` (accepted rows set in ``accept``)."""
        one = len(members) == self.n_groups
        rows = self.all_rows if one else np.concatenate([self.chain_ids[i] for i in members])
        if one:
            x, lp, gl = self.in_coordinates(space, self.w, self.lw, self.glw)
            z = z_all
        else:
            x, lp, gl = self.in_coordinates(space, self.w[rows], self.lw[rows], self.glw[rows])
            z = np.concatenate([z_at[i] for i in members])
        xp, local = self._propose(space, members, x, gl, z, one)
        if space == "ball":
            inside = np.einsum("ij,ij->i", xp, xp) <= self.R * self.R
        else:
            inside = np.isfinite(xp).all(axis=1)
        idx = np.flatnonzero(inside)
        if not idx.size:
            return
        lpp, glp, Wp, LWp, GLWp = self.evaluate(space, xp[idx], rows[idx])
        log_alpha = lpp - lp[idx]
        if self.mala:
            for loc, kn, h in local:
                a, b = np.searchsorted(idx, [loc.start, loc.stop])
                if a == b:
                    continue
                ii = idx[a:b]
                back = (x[ii] - xp[ii] - 0.5 * h * (glp[a:b] @ kn.M)) @ kn.Linv.T
                log_alpha[a:b] += -np.einsum("ij,ij->i", back, back) / (2.0 * h) + 0.5 * np.einsum(
                    "ij,ij->i", z[ii], z[ii]
                )
        u = self.g.random(idx.size)
        with np.errstate(invalid="ignore"):
            ok = np.log(u) < log_alpha
        sel = rows[idx[ok]]
        accept[sel] = True
        self.w[sel] = Wp[ok]
        self.lw[sel] = LWp[ok]
        self.glw[sel] = GLWp[ok]

    def _adapt(self, i, t, space, accept, w_old, in_window, window_ends) -> None:
        """Warm-up: step-size adaptation, metric windows and the choice of the parametrisation of group ``i``."""
        sp_i = self.span[i]
        kn = self.kernels[i][space]
        kn.t_local += 1
        kn.log_step += max(0.02, 1.0 / math.sqrt(kn.t_local)) * (accept[sp_i].mean() - self.target)
        if w_old is not None:
            sd = w_old[sp_i].std(axis=0)
            sd = np.where(sd > 0, sd, 1.0)
            kn.jump += float(np.mean(np.sum(((self.w[sp_i] - w_old[sp_i]) / sd) ** 2, axis=1)))
            kn.moves += 1
        if in_window:
            self.buf[i].append(self.w[sp_i].copy())
        if window_ends:
            pooled = np.concatenate(self.buf[i], axis=0)
            self.buf[i] = []
            for other in self.kernels[i].values():
                C = _shrunk_covariance(pooled if other.space == "ball" else self.ball.from_w(pooled))
                if C is not None:
                    other.set_metric(C, self.step_reset)
        if t == self.select_at and len(self.spaces) > 1:
            ks = self.kernels[i]
            self.chosen[i] = max(self.spaces, key=lambda sp, ks=ks: ks[sp].jump / max(ks[sp].moves, 1))

    def _record(self, i, t, accept) -> None:
        """Sampling: keep the state of group ``i`` and stop it early once its diagnostics pass."""
        sp_i = self.span[i]
        self.n_acc[i] += int(accept[sp_i].sum())
        s = t - self.n_adapt - 1
        self.trace_lp[i][:, s] = self.lw[sp_i]
        self.trace_w[i][:, s] = self.w[sp_i]
        done = s + 1
        check = done >= STOP_MIN_SAMPLE and (done - STOP_MIN_SAMPLE) % STOP_CHECK_EVERY == 0
        if not (self.schedule.stop_early and done < self.n_sample and check):
            return
        lp, tw = self.trace_lp[i][:, :done], self.trace_w[i][:, :done]
        passed = _diagnostics(lp, tw, rhat_max=self.schedule.stop_rhat, ess_min=STOP_ESS)
        if passed is not None:
            self.lengths[i] = done
            self.trace_lp[i], self.trace_w[i] = lp, tw
            self.final[i] = passed
            self.running[i] = False

    def step(self, t: int) -> None:
        active = [i for i in range(self.n_groups) if self.running[i]]
        space_of = {i: (self.spaces[t % len(self.spaces)] if t <= self.select_at else self.chosen[i]) for i in active}
        z_all = self.g.standard_normal((sum(self.sizes[i] for i in active), self.d))
        z_at, pos = {}, 0
        for i in active:
            z_at[i] = z_all[pos : pos + self.sizes[i]]
            pos += self.sizes[i]
        accept = np.zeros(self.K, dtype=bool)
        w_old = self.w.copy() if (self.select_from < t <= self.select_at and len(self.spaces) > 1) else None
        for space in self.spaces:
            members = [i for i in active if space_of[i] == space]
            if members:
                self._move(space, members, z_all, z_at, accept)
        windows, win = self.windows, self.win
        in_window = win < len(windows) and windows[win][0] < t <= windows[win][1]
        window_ends = win < len(windows) and t == windows[win][1]
        for i in active:
            if t <= self.n_adapt:
                self._adapt(i, t, space_of[i], accept, w_old, in_window, window_ends)
            else:
                self._record(i, t, accept)
        if window_ends:
            self.win += 1

    # -- the results ----------------------------------------------------------------------------------
    def result(self, i: int, wall: float) -> MCMCResult:
        d, m = self.d, self.lengths[i]
        ok_len = m >= 4
        if self.final[i] is not None:  # the early stop's check computed them on this very trace
            rh_all, ess_all = self.final[i]
        elif ok_len:
            rh_all, ess_all = _diagnostics(self.trace_lp[i], self.trace_w[i])
        else:
            rh_all, ess_all = (math.nan,) * (d + 1), [math.nan] * (d + 1)
        kc = self.kernels[i][self.chosen[i]]
        diag = MCMCDiagnostics(
            method=self.schedule.method,
            n_chains=self.sizes[i],
            n_adapt=self.n_adapt,
            n_sample=m,
            acceptance=self.n_acc[i] / (self.sizes[i] * m) if m else math.nan,
            step_size=math.exp(kc.log_step),
            rhat_logp=rh_all[0],
            rhat_coords=tuple(rh_all[1:]),
            rhat_max=math.nan if any(math.isnan(v) for v in rh_all) else max(rh_all),
            ess_logp=ess_all[0],
            ess_min=min(ess_all) if ok_len else math.nan,
            wall_time=wall * self.sizes[i] / self.K,
            preconditioned=kc.preconditioned,
            init=self.schedule.init,
            parametrisation=self.chosen[i],
        )
        return MCMCResult(draws=self.w[self.span[i]].copy(), diagnostics=diag, trace_logp=self.trace_lp[i])


def _run_chains(
    cost_and_grad: Callable,
    d: int,
    groups: list,
    R: float,
    schedule: MCMCSchedule,
    g: np.random.Generator,
    n_threads: int | None,
) -> list[MCMCResult]:
    """The sampler of :func:`mcmc_sample` for one or more ensembles ("groups") run side by side.
    See docs/l1_exponential.md §"mcmc._run_chains"."""
    run = _Ensembles(cost_and_grad, d, groups, R, schedule, g)
    threads = _thread_count(cost_and_grad, run.K, n_threads)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) if threads > 1 else contextlib.nullcontext() as pool:
        run.start(_threaded(cost_and_grad, threads, pool))
        for t in range(1, run.n_adapt + run.n_sample + 1):
            run.step(t)
            if not any(run.running):
                break
    wall = time.perf_counter() - t0
    return [run.result(i, wall) for i in range(run.n_groups)]


def em_mcmc(
    X: ArrayLike,
    y: ArrayLike,
    *,
    epsilon: float,
    theta: float,
    iota: float,
    radius: float = 1.0,
    convention: str = "tight",
    n_draws: int = 100,
    schedule: MCMCSchedule | None = None,
    rng: RngLike = None,
    n_threads: int | None = None,
) -> MCMCResult:
    """Approximate draws of the continuous exponential mechanism EM-L1-HT (Mode M). Wang & Xu, Algorithms 1-2;
    docs/l1_exponential.md §"Samplers" (Mode M). See docs/l1_exponential.md §"mcmc.em_mcmc"."""
    # one budget of the side-by-side sampler: the same validation, chains and draws (tested)
    sampler = dict(radius=radius, convention=convention, n_draws=n_draws, schedule=schedule, rng=rng)
    return em_mcmc_sweep(X, y, epsilons=[epsilon], theta=theta, iotas=[iota], n_threads=n_threads, **sampler)[0]


def em_mcmc_sweep(
    X: ArrayLike,
    y: ArrayLike,
    *,
    epsilons: ArrayLike,
    theta: float,
    iotas: ArrayLike,
    radius: float = 1.0,
    convention: str = "tight",
    n_draws: int = 100,
    schedule: MCMCSchedule | None = None,
    rng: RngLike = None,
    n_threads: int | None = None,
) -> list[MCMCResult]:
    """:func:`em_mcmc` at several privacy budgets at once (one result per ``epsilons[i]``, truncation ``iotas[i]``). See
    docs/l1_exponential.md §"mcmc.em_mcmc_sweep"."""
    X, y = check_Xy(X, y, min_rows=1)
    theta = check_theta(theta)
    check_choice("convention", convention, CONVENTIONS)
    eps = [float(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=float))]
    io = [check_positive("iota", float(v)) for v in np.atleast_1d(np.asarray(iotas, dtype=float))]
    if not eps or len(eps) != len(io):
        raise ValueError(f"epsilons and iotas must have the same positive length, got {len(eps)} and {len(io)}.")
    kappas = []
    for e in eps:
        k = kappa(e, theta, convention)
        if math.isinf(k):
            raise ValueError("epsilon must be finite for the MCMC sampler, got inf; use the non-private fit (lad_fit).")
        convention_guarantee(e, theta, convention)
        kappas.append(check_positive("kappa", k))
    K = check_int("n_draws", n_draws, lo=2, hi=100_000)
    R = check_positive("radius", radius)
    schedule = MCMCSchedule() if schedule is None else schedule
    groups = [(K, k, None if i == 0 else io[i] / io[0]) for i, k in enumerate(kappas)]
    cost = _fast_cost_grad(X, y, io[0], theta)
    return _run_chains(cost, X.shape[1], groups, R, schedule, as_generator(rng), n_threads)


def _legacy_cost_grad(X: NDArray[np.float64], y: NDArray[np.float64], iota: float, theta: float) -> CostGrad:
    """The sampler's earlier cost function (generic blocked evaluation in float32), kept for the
    before/after benchmark ``benchmarks/bench_l1_sampler.py`` and as a cross-check in the tests."""
    X32, y32 = X.astype(np.float32), y.astype(np.float32)

    def cost_grad(W):
        return _cost_blocks(W, X32, y32, iota, theta, want_grad=True)

    return cost_grad


#: Elements of the (chains x samples) work array per block of :func:`_fast_cost_grad`.
_MCMC_BLOCK = 1 << 16

#: Terms multiplied together (in float32) before one logarithm in :func:`_fast_cost_grad`: each factor
#: lies in [1, theta] with theta <= 2, so a product of 32 stays below 2**32 (no overflow, no underflow).
_PRODUCT_GROUP = 32

_SIGN_BIT = np.int32(-(2**31))


def _cost_block(WA, XA, XsT, bufs, theta: float, offset: float, group: int):
    """``(S, grad S)`` of the rows ``WA`` for :func:`_fast_cost_grad`, in the float32 buffers ``bufs``."""
    b, c, q, t, u = bufs
    n_pad = XA.shape[1]
    one, th, power = np.float32(1.0), np.float32(theta), np.float32(theta - 1.0)
    np.matmul(WA, XA, out=b)
    np.abs(b, out=c)
    np.minimum(c, one, out=c)
    if theta == 1.5:
        p = np.sqrt(c, out=q)
    elif theta == 2.0:
        p = c
    else:
        with np.errstate(divide="ignore"):
            p = np.log(c, out=q)
        p *= power
        np.exp(p, out=p)
    np.subtract(p, th, out=t)  # g = c (p - theta) + theta into t
    t *= c
    t += th
    np.subtract(one, p, out=q)  # (1 - p)/g into q, with the residual's sign
    q /= t
    sign = c.view(np.int32)
    np.bitwise_and(b.view(np.int32), _SIGN_BIT, out=sign)
    np.bitwise_or(q.view(np.int32), sign, out=q.view(np.int32))
    # products of `group` factors: halve the row repeatedly, ping-ponging between two buffers
    # (an output overlapping its input would make numpy copy)
    h = n_pad // 2
    np.multiply(t[:, :h], t[:, h:], out=u)
    src, dst = u, t
    while h > n_pad // group:
        half = h // 2
        np.multiply(src[:, :half], src[:, half:h], out=dst[:, :half])
        src, dst, h = dst, src, half
    return offset - np.log(src[:, :h], dtype=np.float64).sum(axis=1), (XsT @ q.T).T


def _fast_cost_grad(X: NDArray[np.float64], y: NDArray[np.float64], iota: float, theta: float) -> CostGrad:
    """``W -> (S(W), grad S(W))`` for the sampler: float32 arithmetic, sums in float64, few passes.
    See docs/l1_exponential.md §"mcmc._fast_cost_grad"."""
    n, d = X.shape
    group = _PRODUCT_GROUP
    n_pad = -(-n // group) * group
    XA = np.zeros((d + 1, n_pad), dtype=np.float32)
    XA[:d, :n] = (iota * X).T
    XA[d, :n] = -iota * y
    XsT = np.zeros((d, n_pad), dtype=np.float32)  # (theta iota X)^T: the gradient as XsT @ q^T
    XsT[:, :n] = (theta * iota * X).T
    offset = n_pad * math.log(float(np.float32(theta)))
    rows = max(1, _MCMC_BLOCK // n_pad)

    def cost_grad(W, scales=None):
        W = np.asarray(W, dtype=np.float64)
        k = W.shape[0]
        WA = np.ones((k, d + 1), dtype=np.float32)
        if scales is None:
            WA[:, :d] = W
        else:
            scales = np.asarray(scales, dtype=np.float64)
            WA[:, :d] = W * scales[:, None]
            WA[:, d] = scales
        S = np.empty(k)
        G = np.empty((k, d))
        m = min(rows, k)
        B, C, Q, T = (np.empty((m, n_pad), dtype=np.float32) for _ in range(4))
        U = np.empty((m, n_pad // 2), dtype=np.float32)
        for start in range(0, k, rows):
            stop = min(k, start + rows)
            r = stop - start
            bufs = (B[:r], C[:r], Q[:r], T[:r], U[:r])
            S[start:stop], G[start:stop] = _cost_block(WA[start:stop], XA, XsT, bufs, theta, offset, group)
        if scales is not None:
            G *= scales[:, None]
        return S, G

    cost_grad.n_terms = n  # type: ignore[attr-defined]  # work per point, read by mcmc_sample's threading
    return cost_grad


def release_status(diagnostics: MCMCDiagnostics | None) -> dict:
    """Status fields of one release for results, CLI JSON, pages and comparison rows. See docs/l1_exponential.md
    §"mcmc.release_status"."""
    if diagnostics is None:
        return {"sampler_status": "exact", "sampler_message": "", "exact_sampler": True}
    return {"sampler_status": diagnostics.status, "sampler_message": diagnostics.message, "exact_sampler": False}
