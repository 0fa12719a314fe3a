"""Random weighted bag aggregation: the bag sampler, the five mechanisms and the linear fit.
Details: docs/label_dp_bags.md §"core (module)" ([BSHNR], Theorem 1.2), Theorem 1.3), Fig. 1, Fig. 2, Theorem
1.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..._validation import check_choice, check_in_interval, check_int, check_positive, check_Xy
from ...calibration import solve_monotone
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator

__all__ = [
    "MECHANISMS",
    "MECHANISM_LABELS",
    "check_bag_sizes",
    "sample_bags",
    "noise_set",
    "LBARelease",
    "LLPRelease",
    "BagSecrets",
    "naive_lba",
    "naive_llp",
    "wtd_lba",
    "weighted_llp",
    "noisy_wtd_llp",
    "release",
    "fit_linear",
    "LabelDPBags",
]

MECHANISMS = ("naive-lba", "naive-llp", "wtd-lba", "weighted-llp", "noisy-wtd-llp")
MECHANISM_LABELS = {
    "naive-lba": "naive LBA (plain sums)",
    "naive-llp": "naive LLP (plain label sums)",
    "wtd-lba": "wtd-LBA (secret weights)",
    "weighted-llp": "weighted LLP, no noise (ρ = 0)",
    "noisy-wtd-llp": "noisy-wtd-LLP",
}


def check_bag_sizes(n: int, m: int, k: int) -> tuple[int, int, int]:
    """Validate n, m, k and the feasibility condition m k <= n (disjoint bags)."""
    nn = check_int("n", n, lo=1)
    mm = check_int("m", m, lo=1)
    kk = check_int("k", k, lo=1)
    if mm * kk > nn:
        raise ValueError(
            f"m*k must be <= n (the m bags of size k are disjoint), got m = {mm}, k = {kk}, m*k = {mm * kk} > n = "
            f"{nn}; "
            f"with m = {mm} the largest feasible k is {nn // mm}."
        )
    return nn, mm, kk


def sample_bags(n: int, m: int, k: int, rng: RngLike) -> np.ndarray:
    """m disjoint, uniformly random bags of size k from ``range(n)``.
    Details: docs/label_dp_bags.md §"core.sample_bags" ([BSHNR], Fig. 1, Fig. 2).
    """
    nn, mm, kk = check_bag_sizes(n, m, k)
    g = as_generator(rng)
    return g.choice(nn, size=mm * kk, replace=False).reshape(mm, kk)


def noise_set(n: int, rho: float, rng: RngLike) -> np.ndarray:
    """A uniformly random index set N of size round(rho n), drawn independently of the labels.
    Details: docs/label_dp_bags.md §"core.noise_set" ([BSHNR], Fig. 2).
    """
    nn = check_int("n", n, lo=1)
    r = check_in_interval("rho", rho, 0.0, 1.0)
    size = int(round(r * nn))
    mask = np.zeros(nn, dtype=bool)
    if size:
        mask[as_generator(rng).choice(nn, size=size, replace=False)] = True
    return mask


def noise_mask_or_set(n: int, rho: float, noise_mask: np.ndarray | None, rng: RngLike) -> np.ndarray:
    """``noise_mask`` checked as a boolean mask of length ``n``, else :func:`noise_set` ``(n, rho, rng)``."""
    if noise_mask is None:
        return noise_set(n, rho, rng)
    mask = np.asarray(noise_mask, dtype=bool)
    if mask.shape != (n,):
        raise ValueError(f"noise_mask must be a boolean array of length n = {n}, got shape {mask.shape}.")
    return mask


@dataclass(frozen=True)
class LBARelease:
    """Output of naive LBA / wtd-LBA: the bags and, per bag, a feature aggregate and a label aggregate.

    The weights of wtd-LBA are *not* part of the release.
    """

    mechanism: str
    bags: np.ndarray = field(repr=False)
    xbar: np.ndarray = field(repr=False)
    ybar: np.ndarray = field(repr=False)

    def aggregated_features(self) -> np.ndarray:
        return self.xbar


@dataclass(frozen=True)
class LLPRelease:
    """Output of naive LLP / weighted LLP / noisy-wtd-LLP: per bag, the members' indices and
    features, the public weights (all ones for naive LLP) and the (weighted, possibly noisy)
    label sum. The label noise is *not* part of the release."""

    mechanism: str
    bags: np.ndarray = field(repr=False)
    features: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    ybar: np.ndarray = field(repr=False)
    rho: float = 0.0

    def aggregated_features(self) -> np.ndarray:
        """x̄_j = Σ_r w_jr x_(i_jr), computable by the learner from the released tuples."""
        return np.einsum("jr,jrd->jd", self.weights, self.features)


@dataclass(frozen=True)
class BagSecrets(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the secret randomness of one aggregation release.
    Details: docs/label_dp_bags.md §"core.BagSecrets".
    """

    weights: np.ndarray | None = field(default=None, repr=False)
    label_noise: np.ndarray | None = field(default=None, repr=False)


def _prep(X, y, m, k):
    X, y = check_Xy(X, y, min_rows=1)
    check_bag_sizes(X.shape[0], m, k)
    return X, y


def naive_lba(X, y, *, m: int, k: int, rng: RngLike) -> LBARelease:
    """Naive LBA: per bag, the unweighted sums of features and labels. Not label-DP (delta >= m k/n).
    Details: docs/label_dp_bags.md §"core.naive_lba" ([BSHNR]).
    """
    X, y = _prep(X, y, m, k)
    S = sample_bags(X.shape[0], m, k, as_generator(rng))
    return LBARelease("naive-lba", S, X[S].sum(axis=1), y[S].sum(axis=1))


def naive_llp(X, y, *, m: int, k: int, rng: RngLike) -> LLPRelease:
    """Naive LLP: the members' features and the unweighted label sum. Not label-DP.
    Details: docs/label_dp_bags.md §"core.naive_llp" ([BSHNR]).
    """
    X, y = _prep(X, y, m, k)
    S = sample_bags(X.shape[0], m, k, as_generator(rng))
    return LLPRelease("naive-llp", S, X[S], np.ones(S.shape), y[S].sum(axis=1))


def wtd_lba(X, y, *, m: int, k: int, rng: RngLike, diagnostics: bool = False):
    """wtd-LBA: per bag, Σ w x and Σ w y with secret iid N(0, 1) weights (not released).
    Details: docs/label_dp_bags.md §"core.wtd_lba" ([BSHNR], Fig. 1, Theorem 1.2.).
    """
    X, y = _prep(X, y, m, k)
    g = as_generator(rng)
    S = sample_bags(X.shape[0], m, k, g)
    W = g.standard_normal((m, k))
    rel = LBARelease("wtd-lba", S, np.einsum("jr,jrd->jd", W, X[S]), np.einsum("jr,jr->j", W, y[S]))
    return (rel, BagSecrets(weights=W)) if diagnostics else rel


def noisy_wtd_llp(
    X,
    y,
    *,
    m: int,
    k: int,
    rho: float,
    rng: RngLike,
    noise_mask: np.ndarray | None = None,
    noise_std: float = 1.0,
    diagnostics: bool = False,
):
    """noisy-wtd-LLP: noise N(0, s^2) on the labels of N, then weighted label sums with public weights.
    Details: docs/label_dp_bags.md §"core.noisy_wtd_llp" ([BSHNR], Fig. 2, Theorem 1.3).
    """
    X, y = _prep(X, y, m, k)
    n = X.shape[0]
    s = check_positive("noise_std", noise_std)
    g = as_generator(rng)
    mask = noise_mask_or_set(n, rho, noise_mask, g)
    noise = np.zeros(n)
    noise[mask] = s * g.standard_normal(int(mask.sum()))
    y_tilde = y + noise
    S = sample_bags(n, m, k, g)
    W = g.standard_normal((m, k))
    name = "noisy-wtd-llp" if mask.any() else "weighted-llp"
    rel = LLPRelease(name, S, X[S], W, np.einsum("jr,jr->j", W, y_tilde[S]), rho=float(mask.mean()))
    return (rel, BagSecrets(label_noise=noise)) if diagnostics else rel


def weighted_llp(X, y, *, m: int, k: int, rng: RngLike, diagnostics: bool = False):
    """Weighted LLP without noise (noisy-wtd-LLP with N empty). Not label-DP: delta >= m k / n.
    Details: docs/label_dp_bags.md §"core.weighted_llp" ([BSHNR], Section 1.2, Table 3.).
    """
    return noisy_wtd_llp(X, y, m=m, k=k, rho=0.0, rng=rng, diagnostics=diagnostics)


def release(
    mechanism: str,
    X,
    y,
    *,
    m: int,
    k: int,
    rng: RngLike,
    rho: float = 0.1,
    noise_std: float = 1.0,
    diagnostics: bool = False,
):
    """Run one of :data:`MECHANISMS` once and return its release object.

    With ``diagnostics=True`` the pair ``(release, BagSecrets)`` (the secret weights or label noise,
    empty for the naive mechanisms: not for publication).
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    if mechanism in ("naive-lba", "naive-llp"):
        rel = (naive_lba if mechanism == "naive-lba" else naive_llp)(X, y, m=m, k=k, rng=rng)
        return (rel, BagSecrets()) if diagnostics else rel
    if mechanism == "wtd-lba":
        return wtd_lba(X, y, m=m, k=k, rng=rng, diagnostics=diagnostics)
    if mechanism == "weighted-llp":
        return weighted_llp(X, y, m=m, k=k, rng=rng, diagnostics=diagnostics)
    return noisy_wtd_llp(X, y, m=m, k=k, rho=rho, rng=rng, noise_std=noise_std, diagnostics=diagnostics)


def fit_linear(xbar, ybar, *, b3: float | None = None) -> np.ndarray:
    """Least squares on the aggregates: r = argmin Σ_j (ȳ_j - rᵀ x̄_j)^2 (homogeneous, no intercept).
    Details: docs/label_dp_bags.md §"core.fit_linear" ([BSHNR], Theorem 1.2).
    """
    A, v = check_Xy(xbar, ybar, min_rows=1)
    r, *_ = np.linalg.lstsq(A, v, rcond=None)
    if b3 is None:
        return r
    B3 = check_positive("b3", b3)
    if np.linalg.norm(r) <= B3:
        return r
    evals, evecs = np.linalg.eigh(A.T @ A)
    evals = np.maximum(evals, 0.0)
    c = evecs.T @ (A.T @ v)

    def norm_at(mu: float) -> float:  # mu -> 0+ tends to at least ||r|| > b3
        return float(np.linalg.norm(c / (evals + mu))) if mu > 0 else math.inf

    # ||r(mu)|| decreases in mu; the upper end of the bracket keeps ||r(mu)|| <= b3 (inside F0).
    mu = solve_monotone(
        norm_at,
        B3,
        lo=0.0,
        hi=max(1.0, float(np.linalg.norm(c)) / B3),
        increasing=False,
        safe="upper",
        rtol=1e-15,
        what="mu",
    )
    return evecs @ (c / (evals + mu))


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelDPBags:
    """Frozen configuration of one aggregation mechanism.
    Details: docs/label_dp_bags.md §"core.LabelDPBags" ([BSHNR], Fig. 1, Fig. 2, Theorems 1.2).
    """

    mechanism: str = "noisy-wtd-llp"
    m: int
    k: int
    rho: float = 0.1
    noise_std: float = 1.0

    def __post_init__(self) -> None:
        check_choice("mechanism", self.mechanism, MECHANISMS)
        check_int("m", self.m, lo=1)
        check_int("k", self.k, lo=1)
        check_in_interval("rho", self.rho, 0.0, 1.0)
        check_positive("noise_std", self.noise_std)

    def run(self, X, y, *, rng: RngLike, diagnostics: bool = False):
        """Release once on (X, y); see :func:`release` (``diagnostics=True``: also the :class:`BagSecrets`)."""
        kw = dict(m=self.m, k=self.k, rho=self.rho, noise_std=self.noise_std)
        return release(self.mechanism, X, y, rng=rng, diagnostics=diagnostics, **kw)

    @property
    def is_label_dp(self) -> bool:
        """Whether the mechanism has any label-DP guarantee at all (naive and noiseless ones do not)."""
        return self.mechanism == "wtd-lba" or (self.mechanism == "noisy-wtd-llp" and self.rho > 0)

    def fraction_used(self, n: int) -> float:
        return self.m * self.k / check_int("n", n, lo=1)
