"""Label privacy by randomized response, then a non-private fit on the randomized labels (pure ε-label-DP).

Classes — RR-with-prior (B. Ghazi, N. Golowich, R. Kumar, P. Manurangsi, C. Zhang, *Deep Learning with Label
Differential Privacy*, NeurIPS 2021, Algorithm 2; two-stage training, their Algorithm 3): for a prior ``p``
independent of the example's label, keep the top ``k`` classes ``Y_k``, ``k = argmax_k Σ_{Y_k} p e^ε/(e^ε+k−1)``;
output the label with probability ``e^ε/(e^ε+k−1)`` if it is in ``Y_k`` (each other member ``1/(e^ε+k−1)``),
else a uniform member of ``Y_k``: ε-label-DP (their Lemma 1). Stage 1 (a ``stage`` share of the rows) uses the
uniform prior; a fit on its released labels gives stage 2's priors. Each label is randomized once, with a prior
that depends only on other rows' released labels: ε-label-DP overall (their Theorem 4).

Numbers — RR-on-bins (B. Ghazi, P. Kamath, R. Kumar, E. Leeman, P. Manurangsi, A. Varadarajan, C. Zhang,
*Regression with Label Differential Privacy*, ICLR 2023, Algorithm 1, Theorem 3): labels in a public range
``[lo, hi]``, snapped to ``bins`` grid points; the prior is their histogram with Laplace noise of scale ``2/ε₁``
(one replaced label moves two counts by one; Dwork & Roth 2014, Theorem 3.6); ``Φ`` maps grid intervals to
output values and the release is ``Φ(y)`` with probability ``e^ε₂/(e^ε₂+k−1)``, else a uniform other output
(ε₂-label-DP). ``Φ`` minimises the prior's expected squared error; an optimal ``Φ`` is monotone (their Theorem
3), found by dynamic programming over intervals for every ``k``. ``ε = ε₁ + ε₂`` (basic composition),
``ε₁ = prior_share · ε``. Status **proof** for both.
"""

import math
from dataclasses import dataclass

import numpy as np

from ...plugin import Mechanism, param, validate_config

EPS_CAP = 50.0  #: ε above this runs as this ε (more private; exp(ε) would overflow for no visible change)
#: Label ranges of demo datasets that are public by construction (not read from the labels).
PUBLIC_LABEL_RANGES = {"census": (0.0, 1.0, "income is capped and mapped to [0, 1] by construction")}


@dataclass(frozen=True)
class LabelRRConfig:
    """Label RR's parameters, each declared once (CLI flag, link key, widget and check derive from it)."""

    bins: int = param(40, lo=2, hi=1000, label="label grid points (regression)", symbol="G")
    prior_share: float = param(0.1, lo=0.01, hi=0.9, label="share of ε for the label prior (regression)")
    stage: float = param(0.5, lo=0.05, hi=1.0, label="stage-1 share of rows (classes)")

    def __post_init__(self) -> None:
        validate_config(self)


def _check_eps(epsilon: float) -> float:
    if not (isinstance(epsilon, (int, float)) and epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}.")
    return min(float(epsilon), EPS_CAP)


def prior_top_k(prior: np.ndarray, epsilon: float) -> np.ndarray:
    """Per row of ``prior`` (n, K): the number ``k`` of most likely classes RR-with-prior keeps (Alg. 2).

    >>> prior_top_k(np.array([[0.5, 0.5], [0.98, 0.02]]), 1.0).tolist()
    [2, 1]
    """
    e = math.exp(_check_eps(epsilon))
    top = np.cumsum(-np.sort(-prior, axis=1), axis=1)
    k = np.arange(1, prior.shape[1] + 1)
    return np.argmax(top * e / (e + k - 1), axis=1) + 1


def rr_with_prior(y: np.ndarray, prior: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Randomize class codes ``y`` (0..K-1) by RR-with-prior at ``epsilon`` with per-row priors (n, K)."""
    e = math.exp(_check_eps(epsilon))
    n, K = prior.shape
    k = prior_top_k(prior, epsilon)
    order = np.argsort(-prior, axis=1, kind="stable")
    rank = np.argsort(order, axis=1)[np.arange(n), y.astype(int)]  # the true label's rank under the prior
    inside = rank < k
    keep = rng.random(n) < e / (e + k - 1)
    other = rng.integers(0, np.maximum(k - 1, 1))  # a uniform other member of Y_k
    other = other + (inside & (other >= rank))
    pick = np.where(inside, np.where(keep, rank, other), rng.integers(0, k))
    return order[np.arange(n), np.minimum(pick, k - 1)]


def noisy_prior(codes: np.ndarray, bins: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """The label histogram on ``bins`` grid points with Laplace noise of scale ``2/ε``, clipped at 0, normalised."""
    h = np.bincount(codes, minlength=bins).astype(float) + rng.laplace(0.0, 2.0 / _check_eps(epsilon), size=bins)
    return np.maximum(h, 0.0) / h.clip(0).sum() if h.max() > 0 else np.full(bins, 1.0 / bins)


def optimal_bins(grid: np.ndarray, p: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray, float]:
    """RR-on-bins' map for prior ``p`` on ``grid``: (interval index of each grid point, output values, loss).

    >>> idx, out, loss = optimal_bins(np.array([0.0, 1.0]), np.array([0.5, 0.5]), 50.0)
    >>> idx.tolist(), out.round(6).tolist(), round(loss, 6)
    ([0, 1], [0.0, 1.0], 0.0)
    """
    e1 = math.exp(_check_eps(epsilon)) - 1.0
    G = grid.size
    c0, c1, c2 = (np.concatenate([[0.0], np.cumsum(p * grid**j)]) for j in range(3))
    m0, m1, m2 = c0[-1], c1[-1], c2[-1]
    i, j = np.triu_indices(G)  # interval [i, j]
    s0, s1, s2 = c0[j + 1] - c0[i], c1[j + 1] - c1[i], c2[j + 1] - c2[i]
    w = e1 * s0 + m0
    v = (e1 * s1 + m1) / w  # the weighted mean: the best output value of the interval
    cost = np.full((G, G), np.inf)
    cost[i, j] = e1 * (s2 - 2 * v * s1 + v * v * s0) + (m2 - 2 * v * m1 + v * v * m0)
    best, best_k, back = np.inf, 1, []
    dp = cost[0].copy()  # dp[j]: least cost of grid points 0..j in k intervals
    for k in range(1, G + 1):
        if k > 1:
            tot = dp[:-1, None] + cost[1:, :]  # last interval [i+1, j]
            back.append(np.argmin(tot, axis=0))
            dp = np.min(tot, axis=0)
        if dp[-1] / (e1 + k) < best:
            best, best_k = dp[-1] / (e1 + k), k
    return _trace(back, best_k, G, grid, p, e1) + (float(best),)


def _trace(back: list, k: int, G: int, grid: np.ndarray, p: np.ndarray, e1: float) -> tuple:
    """Follow the DP's back pointers: the grid points' interval indices and each interval's output value."""
    starts, j = [0] * G, G - 1  # starts[j] = 1: an interval starts at grid point j
    for kk in range(k, 1, -1):
        j = int(back[kk - 2][j])
        starts[j + 1] = 1
    idx = np.cumsum(starts)
    w = e1 * p * (idx[None, :] == np.arange(k)[:, None]) + p
    out = (w @ grid) / np.maximum(w.sum(axis=1), 1e-300)
    return idx, out


def uniform_outputs(cfg: LabelRRConfig, epsilon: float) -> tuple[float, np.ndarray, float]:
    """``(ε₂, output values, expected squared error)`` of RR-on-bins for labels spread evenly over [0, 1]."""
    e_rr = (1 - cfg.prior_share) * epsilon
    _, out, loss = optimal_bins(np.linspace(0.0, 1.0, cfg.bins), np.full(cfg.bins, 1.0 / cfg.bins), e_rr)
    return e_rr, out, loss


def rr_on_bins(y, lo: float, hi: float, cfg: LabelRRConfig, epsilon: float, rng: np.random.Generator):
    """Randomized labels of ``y`` (in ``[lo, hi]``) at total ``epsilon`` (prior ``prior_share·ε``, RR the rest)."""
    eps = _check_eps(epsilon)
    grid = np.linspace(lo, hi, cfg.bins)
    codes = np.clip(np.rint((np.asarray(y, float) - lo) / (hi - lo) * (cfg.bins - 1)), 0, cfg.bins - 1).astype(int)
    e_prior, e_rr = cfg.prior_share * eps, (1.0 - cfg.prior_share) * eps  # eps capped: see EPS_CAP
    idx, out, _ = optimal_bins(grid, noisy_prior(codes, cfg.bins, e_prior, rng), e_rr)
    k = out.size
    mapped = idx[codes]
    keep = rng.random(codes.size) < math.exp(e_rr) / (math.exp(e_rr) + k - 1)
    other = rng.integers(0, max(k - 1, 1), size=codes.size)
    other = other + (other >= mapped)
    return out[np.where(keep | (k == 1), mapped, np.minimum(other, k - 1))]


PLUGIN = Mechanism(
    name="label-rr",
    title="Label randomized response (Ghazi et al.)",
    page="pages/label_rr.py",
    icon="🏷️",
    order=23,
    summary="Each label randomized once (RR-with-prior for classes, RR-on-bins for numbers), then a plain fit.",
    configs=((LabelRRConfig, "rr_"),),
    package=__name__,
)

__all__ = ["PLUGIN", "LabelRRConfig", "optimal_bins", "prior_top_k", "rr_on_bins", "rr_with_prior", "uniform_outputs"]
