"""Mode G: the exact exponential mechanism on a data-independent grid net of the ball W.
Wang & Xu, Algorithms 1-2 (step 1: a zeta-net; step 2: the exponential mechanism) and Lemma 1;
docs/l1_exponential.md §"Samplers" (Mode G). See docs/l1_exponential.md §"grid (module)"."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from ..._blas import single_threaded_blas
from ..._validation import check_choice, check_int, check_positive, check_Xy
from ...calibration import solve_monotone
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator
from .truncation import CONVENTIONS, _cost_blocks, check_theta, convention_guarantee, exact_sampler_suffix, kappa

__all__ = [
    "GridNet",
    "grid_net",
    "grid_size",
    "default_grid_resolution",
    "GRID_CAPS",
    "grid_costs",
    "grid_probabilities",
    "sample_grid",
    "GridEMResult",
    "em_grid",
    "grid_mechanism_releases",
]

#: Per-dimension caps on the number of cells per axis (docs/l1_exponential.md §"Samplers").
GRID_CAPS = {1: 4096, 2: 256, 3: 48}

#: psi-evaluation budget N*n of an interactive run, docs/l1_exponential.md §"Samplers".
BUDGET_INTERACTIVE = 10**8


@dataclass(frozen=True, eq=False)
class GridNet:
    """A data-independent zeta-net of the ball ``{w : ||w|| <= R}``. See docs/l1_exponential.md §"grid.GridNet"."""

    points: NDArray[np.float64] = field(repr=False)
    zeta: float
    m: int
    radius: float

    @property
    def size(self) -> int:
        return int(self.points.shape[0])

    @property
    def d(self) -> int:
        return int(self.points.shape[1])


def _kept_mask(centres: NDArray[np.float64], h: float, R: float) -> NDArray[np.bool_]:
    gap = np.maximum(np.abs(centres) - h / 2.0, 0.0)
    return np.einsum("ij,ij->i", gap, gap) <= R * R * (1.0 + 1e-12)


def _all_centres(d: int, m: int, R: float) -> NDArray[np.float64]:
    ax = -R + (np.arange(m) + 0.5) * (2.0 * R / m)
    mesh = np.meshgrid(*([ax] * d), indexing="ij")
    return np.stack([g.ravel() for g in mesh], axis=1)


def grid_size(d: int, m: int, R: float = 1.0) -> int:
    """Number of points of :func:`grid_net` (without building the projected points)."""
    d = check_int("d", d, lo=1, hi=3)
    m = check_int("m", m, lo=1, hi=GRID_CAPS[d] if d > 1 else 1 << 20)
    return int(_kept_mask(_all_centres(d, m, R), 2.0 * R / m, R).sum())


def grid_net(d: int, radius: float = 1.0, m: int = 64) -> GridNet:
    """The grid net of Mode G (docs/l1_exponential.md §"Samplers"). Wang & Xu, Lemma 2 (covering numbers) and Algorithm
    1 step 1; docs/l1_exponential.md §"Samplers". See docs/l1_exponential.md §"grid.grid_net"."""
    d = check_int("d", d, lo=1, hi=3)
    R = check_positive("radius", radius)
    m = check_int("m", m, lo=1, hi=GRID_CAPS[d] if d > 1 else 1 << 20)
    h = 2.0 * R / m
    c = _all_centres(d, m, R)
    c = c[_kept_mask(c, h, R)]
    norms = np.linalg.norm(c, axis=1)
    out = norms > R
    c[out] *= (R / norms[out])[:, None]
    return GridNet(points=np.ascontiguousarray(c), zeta=h * math.sqrt(d) / 2.0, m=m, radius=R)


def default_grid_resolution(n: int, d: int, radius: float = 1.0, *, budget: int = BUDGET_INTERACTIVE) -> int:
    """Largest m with ``N(m) * n <= budget`` psi evaluations, within the caps of docs/l1_exponential.md §"Samplers". See
    docs/l1_exponential.md §"grid.default_grid_resolution"."""
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1, hi=3)
    R = check_positive("radius", radius)
    budget = check_int("budget", budget, lo=1)
    cap = min(math.ceil(n * R), GRID_CAPS[1]) if d == 1 else GRID_CAPS[d]
    cap = max(cap, 2)
    if d == 1:
        return int(max(2, min(cap, budget // n)))
    # N(m) grows like the ball volume in cells; integer bisection on the exact count. The counts are
    # integers, so "N(m) n <= budget" is "N(m) n < budget + 1": the safe side is the largest such m.
    if grid_size(d, cap, R) * n <= budget:
        return cap
    if grid_size(d, 2, R) * n > budget:
        return 2
    return solve_monotone(
        lambda m: grid_size(d, m, R) * n,
        budget + 1,
        lo=2,
        hi=cap,
        increasing=True,
        safe="lower",
        integer=True,
        what="the grid resolution",
    )


#: Residuals are multiplied in chunks of this many terms before one logarithm per chunk: every
#: factor ``1 - c + c**theta/theta`` lies in ``[1/theta, 1]`` (theta <= 2), so a chunk's product
#: stays above ``2**-64`` and its relative rounding error below ``64`` units in the last place.
_CHUNK = 64

#: Elements of the (points x samples) work array per block of the fused kernel (fits in L2 cache).
_FUSED_BLOCK = 1 << 15


def _fused_costs(P: NDArray[np.float64], X: NDArray[np.float64], y: NDArray[np.float64], iota: float, theta: float):
    """``S(g) = sum_i psi_theta(iota |y_i - <x_i, g>|)`` for every row g of P, in float64, few passes.
    See docs/l1_exponential.md §"grid._fused_costs"."""
    k, d = P.shape
    n = X.shape[0]
    npad = -(-n // _CHUNK) * _CHUNK
    # padded samples have x = 0, y = 0: c = 0 and a factor of exactly 1
    XA = np.zeros((d + 1, npad))
    XA[:d, :n] = (iota * X).T
    XA[d, :n] = -iota * y
    PA = np.ones((k, d + 1))
    PA[:, :d] = P
    rows = max(1, _FUSED_BLOCK // npad)
    S = np.empty(k)
    log_theta = math.log(theta)
    buf_b = np.empty((min(rows, k), npad))
    buf_c = np.empty_like(buf_b)
    with np.errstate(divide="ignore"):
        for start in range(0, k, rows):
            stop = min(k, start + rows)
            b, c = buf_b[: stop - start], buf_c[: stop - start]
            np.matmul(PA[start:stop], XA, out=b)
            np.abs(b, out=c)
            np.minimum(c, 1.0, out=c)
            if theta == 2.0:
                np.multiply(c, c, out=b)
                b *= 0.5
            elif theta == 1.5:
                np.sqrt(c, out=b)
                b *= c
                b *= 1.0 / 1.5
            else:
                np.log(c, out=b)
                b *= theta
                b -= log_theta
                np.exp(b, out=b)
            b -= c
            b += 1.0  # f = 1 - c + c**theta/theta, in [1/theta, 1]
            v = b.reshape(stop - start, _CHUNK, npad // _CHUNK)
            h = _CHUNK
            while h > 1:  # pairwise products of the 64 strided slices
                h //= 2
                np.multiply(v[:, :h], v[:, h : 2 * h], out=v[:, :h])
            S[start:stop] = -np.log(v[:, 0]).sum(axis=1)
    return S


def grid_costs(
    points: ArrayLike,
    X: ArrayLike,
    y: ArrayLike,
    *,
    iota: float,
    theta: float,
    n_threads: int | None = None,
    method: str = "fused",
) -> NDArray[np.float64]:
    """``S(g)`` for every net point (blocked; split over up to two threads when large).
    See docs/l1_exponential.md §"grid.grid_costs"."""
    X, y = check_Xy(X, y, min_rows=1)
    iota = check_positive("iota", iota)
    theta = check_theta(theta)
    check_choice("method", method, ("fused", "blocks"))
    P = np.ascontiguousarray(np.atleast_2d(np.asarray(points, dtype=np.float64)))
    if P.shape[1] != X.shape[1]:
        raise ValueError(f"points must have {X.shape[1]} columns (the dimension of X), got {P.shape[1]}.")
    k = P.shape[0]
    threads = min(2, os.cpu_count() or 1) if n_threads is None else check_int("n_threads", n_threads, lo=1, hi=16)

    def job(ab):
        with single_threaded_blas():
            if method == "fused":
                return _fused_costs(P[ab[0] : ab[1]], X, y, iota, theta)
            return _cost_blocks(P[ab[0] : ab[1]], X, y, iota, theta, False)[0]

    if threads == 1 or k * X.shape[0] < 4_000_000:
        return job((0, k))
    bounds = np.linspace(0, k, threads + 1).astype(int)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(job, zip(bounds[:-1], bounds[1:])))
    return np.concatenate(parts)


def grid_probabilities(costs: ArrayLike, kappa_value: float) -> NDArray[np.float64]:
    """``p_j = exp(-kappa S_j) / sum_k exp(-kappa S_k)`` computed in log space. See docs/l1_exponential.md
    §"grid.grid_probabilities"."""
    S = np.asarray(costs, dtype=np.float64)
    k = check_positive("kappa", kappa_value, allow_inf=True)
    if math.isinf(k):
        p = (S == S.min()).astype(float)
        return p / p.sum()
    logits = -k * (S - S.min())
    return np.exp(logits - logsumexp(logits))


def sample_grid(probabilities: ArrayLike, n_draws: int, rng: RngLike) -> NDArray[np.intp]:
    """Indices drawn i.i.d. from a categorical law by inversion of its CDF (vectorised)."""
    p = np.asarray(probabilities, dtype=np.float64)
    n_draws = check_int("n_draws", n_draws, lo=0)
    g = as_generator(rng)
    cdf = np.cumsum(p)
    u = g.random(n_draws) * cdf[-1]
    idx = np.searchsorted(cdf, u, side="right")
    return np.minimum(idx, p.size - 1)


@dataclass(frozen=True, eq=False)
class GridEMResult(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the exact grid exponential mechanism's law on a fixed dataset, and draws from it.
    See docs/l1_exponential.md §"grid.GridEMResult"."""

    net: GridNet
    costs: NDArray[np.float64] = field(repr=False)
    probabilities: NDArray[np.float64] = field(repr=False)
    draws: NDArray[np.float64] = field(repr=False)
    draw_indices: NDArray[np.intp] = field(repr=False)
    kappa: float
    convention: str
    epsilon: float
    theta: float
    iota: float
    privacy_label: str

    @property
    def mean(self) -> NDArray[np.float64]:
        """Exact mean of the released vector."""
        return self.probabilities @ self.net.points


def em_grid(
    X: ArrayLike,
    y: ArrayLike,
    *,
    epsilon: float,
    theta: float,
    iota: float,
    radius: float = 1.0,
    m: int | None = None,
    convention: str = "tight",
    n_draws: int = 1,
    rng: RngLike = None,
    net: GridNet | None = None,
) -> GridEMResult:
    """Run the exact grid exponential mechanism (EM-L1-HT, Mode G) ``n_draws`` times on one dataset. Wang & Xu,
    Algorithms 1-2, Theorems 1-2 (privacy); docs/l1_exponential.md §"Samplers" and docs/l1_exponential.md
    §"Sensitivity and temperatures". See docs/l1_exponential.md §"grid.em_grid"."""
    X, y = check_Xy(X, y, min_rows=1)
    theta, iota = check_theta(theta), check_positive("iota", iota)
    check_choice("convention", convention, CONVENTIONS)
    k = kappa(epsilon, theta, convention)
    n_draws = check_int("n_draws", n_draws, lo=0)
    d = X.shape[1]
    if net is None:
        if d > 3:
            raise ValueError(f"the exact grid sampler needs d <= 3, got d = {d}; use the MALA sampler (mode 'mcmc').")
        net = grid_net(d, radius, default_grid_resolution(X.shape[0], d, radius) if m is None else m)
    elif net.d != d:
        raise ValueError(f"net has dimension {net.d} but X has {d} columns.")
    S = grid_costs(net.points, X, y, iota=iota, theta=theta)
    p = grid_probabilities(S, k)
    idx = sample_grid(p, n_draws, rng)
    law = dict(net=net, costs=S, probabilities=p, draws=net.points[idx], draw_indices=idx, kappa=k)
    label = convention_guarantee(epsilon, theta, convention).label + exact_sampler_suffix(convention)
    return GridEMResult(
        convention=convention, epsilon=float(epsilon), theta=theta, iota=iota, privacy_label=label, **law
    )


def grid_mechanism_releases(
    X: ArrayLike,
    y: ArrayLike,
    n_releases: int,
    *,
    epsilon: float,
    theta: float,
    iota: float,
    radius: float = 1.0,
    m: int = 64,
    convention: str = "tight",
    rng: RngLike = None,
) -> NDArray[np.float64]:
    """Run the exact grid mechanism ``n_releases`` times on a fixed dataset; return the released w's. Wang & Xu,
    Algorithms 1-2; docs/l1_exponential.md §"Samplers". See docs/l1_exponential.md §"grid.grid_mechanism_releases"."""
    n_draws, m = check_int("n_releases", n_releases, lo=1), check_int("m", m, lo=1)
    law = dict(epsilon=epsilon, theta=theta, iota=iota, radius=radius, m=m, convention=convention)
    return em_grid(X, y, n_draws=n_draws, rng=rng, **law).draws
