"""Vectorized Monte-Carlo engine: R releases of a mechanism, the linear fits, and utility tables.
Details: docs/label_dp_bags.md §"batch (module)" ([BSHNR], Fig. 1, Fig. 2, Theorem 1.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._blas import single_threaded_blas
from ..._lazy import pandas as pd
from ..._validation import check_choice, check_in_interval, check_int, check_positive, check_Xy
from ...experiments import run_sweep
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator, as_seed_sequence, child_seed
from . import bounds as acc
from .core import MECHANISMS, check_bag_sizes, noise_mask_or_set

__all__ = [
    "METHOD_KEYS",
    "ReleaseBatch",
    "ReleaseSecrets",
    "simulate_releases",
    "simulate_fits",
    "PreparedData",
    "utility_trials",
    "utility_sweep",
]

#: Mechanism name (CLI/engine) -> method key used in tables and :data:`dp_core.figures.METHOD_COLORS`.
METHOD_KEYS = {
    "naive-lba": "naive_lba",
    "naive-llp": "naive_llp",
    "wtd-lba": "wtd_lba",
    "weighted-llp": "wtd_llp",
    "noisy-wtd-llp": "noisy_wtd_llp",
    "gaussian-labels": "gaussian_label",
    "laplace-labels": "laplace_label",
    "nonprivate": "nonprivate",
}

#: Method key -> the fit it reads (for a linear model naive LLP fits as naive LBA, weighted LLP as wtd-LBA).
_FIT_OF = dict(naive_lba="naive", naive_llp="naive", wtd_lba="weighted", wtd_llp="weighted", noisy_wtd_llp="noisy")

#: Elements of X[bags] materialised at once (chunking across trials keeps memory bounded).
_CHUNK_ELEMENTS = 4_000_000


def _seeds(seed: RngLike | Sequence[np.random.SeedSequence], n_trials: int | None) -> list[np.random.SeedSequence]:
    if isinstance(seed, (list, tuple)):
        return list(seed)
    return as_seed_sequence(seed).spawn(check_int("n_trials", n_trials, lo=1))


def _draw(seeds, n, m, k, *, weighted: bool, noisy_slots: Callable | None, noise_std: float):
    """Per-trial draws in a fixed order: bags, weights, noise. Returns stacked arrays."""
    R = len(seeds)
    bags = np.empty((R, m, k), dtype=np.int64)
    W = np.empty((R, m, k)) if weighted else None
    E = np.zeros((R, m, k)) if noisy_slots is not None else None
    for t, ss in enumerate(seeds):
        g = as_generator(ss)
        bags[t] = g.choice(n, size=m * k, replace=False).reshape(m, k)
        if weighted:
            W[t] = g.standard_normal((m, k))
        if noisy_slots is not None:
            mask = noisy_slots(bags[t])
            E[t][mask] = noise_std * g.standard_normal(int(mask.sum()))
    return bags, W, E


@dataclass(frozen=True)
class ReleaseBatch:
    """R independent releases of one mechanism on a fixed dataset.
    Details: docs/label_dp_bags.md §"batch.ReleaseBatch".
    """

    mechanism: str
    bags: np.ndarray = field(repr=False)
    ybar: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    xbar: np.ndarray | None = field(default=None, repr=False)
    noise_mask: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ReleaseSecrets(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: the secret randomness of R releases (for audits and identity checks).
    Details: docs/label_dp_bags.md §"batch.ReleaseSecrets".
    """

    weights: np.ndarray | None = field(default=None, repr=False)
    label_noise: np.ndarray | None = field(default=None, repr=False)


def simulate_releases(
    X,
    y,
    *,
    mechanism: str,
    m: int,
    k: int,
    n_trials: int | None = None,
    seed: RngLike | Sequence[np.random.SeedSequence] = 0,
    rho: float = 0.1,
    noise_std: float = 1.0,
    noise_mask: np.ndarray | None = None,
    noise_set_seed: RngLike = 12345,
    with_xbar: bool = False,
    diagnostics: bool = False,
):
    """Run a mechanism R times on a fixed dataset and return the released aggregates (vectorized).
    Details: docs/label_dp_bags.md §"batch.simulate_releases" ([BSHNR], Fig. 2, Fig. 1).
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    X, y = check_Xy(X, y, min_rows=1)
    n, d = X.shape
    check_bag_sizes(n, m, k)
    seeds = _seeds(seed, n_trials)
    weighted = mechanism in ("wtd-lba", "weighted-llp", "noisy-wtd-llp")
    mask = noise_mask_or_set(n, rho, noise_mask, noise_set_seed) if mechanism == "noisy-wtd-llp" else None
    s = check_positive("noise_std", noise_std)
    slots = None if mask is None else mask.__getitem__
    bags, W, E = _draw(seeds, n, m, k, weighted=weighted, noisy_slots=slots, noise_std=s)
    ys = np.take(y, bags, mode="clip")
    if E is not None:
        ys = ys + E
    ybar = np.einsum("rjk,rjk->rj", W, ys) if weighted else ys.sum(axis=2)
    xbar = _aggregate_features(_transposed(X), bags, [W])[0] if with_xbar else None
    public_w = W if mechanism in ("weighted-llp", "noisy-wtd-llp") else None
    batch = ReleaseBatch(mechanism, bags, ybar, public_w, xbar, mask)
    if not diagnostics:
        return batch
    return batch, ReleaseSecrets(weights=W if mechanism == "wtd-lba" else None, label_noise=E)


def _aggregate_features(XT, bags, weights, buf=None) -> list[np.ndarray]:
    """Σ_r w_jr x_(i_jr) for a stack of bags, one array per entry of ``weights`` (``None``: plain sums), gathered
    one feature column of ``XT`` = X^T at a time (a column of n floats stays in cache, which makes the gather
    several times faster than ``X[bags]``); ``buf``: an array of the shape of ``bags`` for the gathered values."""
    outs = [np.empty((*bags.shape[:2], XT.shape[0])) for _ in weights]
    for j, col in enumerate(XT):
        vals = np.take(col, bags, out=buf, mode="clip")
        for out, W in zip(outs, weights):
            out[:, :, j] = vals.sum(axis=2) if W is None else np.einsum("rjk,rjk->rj", W, vals)
    return outs


def _batched_lstsq(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Minimum-norm least squares for a stack: A (R, m, d), b (R, m) -> (R, d)."""
    G = np.einsum("rjd,rje->rde", A, A)
    c = np.einsum("rjd,rj->rd", A, b)
    scale = np.maximum(np.einsum("rdd->r", G), 1e-300)[:, None, None]
    Gp = np.linalg.pinv(G / scale, rtol=1e-12, hermitian=True)
    return np.einsum("rde,re->rd", Gp, c) / scale[:, :, 0]


def _transposed(X: np.ndarray) -> np.ndarray:
    """X^T as a C-contiguous array (one feature column per row, for cache-friendly gathers)."""
    return X.T if X.T.flags["C_CONTIGUOUS"] else np.ascontiguousarray(X.T)


def simulate_fits(
    X,
    y,
    *,
    m: int,
    k: int,
    rho: float,
    seeds: Sequence[np.random.SeedSequence],
    noise_std: float = 1.0,
    noise_mask: np.ndarray | None = None,
    mechanisms: Sequence[str] = ("naive", "weighted", "noisy"),
) -> dict[str, np.ndarray]:
    """Linear fits on R releases (one per seed): ``{"naive": (R, d), "weighted": ..., "noisy": ...}``.
    Details: docs/label_dp_bags.md §"batch.simulate_fits" ([BSHNR], Theorem 1.2).
    """
    X, y = check_Xy(X, y, min_rows=1)
    n, d = X.shape
    check_bag_sizes(n, m, k)
    r = check_in_interval("rho", rho, 0.0, 1.0)
    s = check_positive("noise_std", noise_std)
    mask = noise_mask_or_set(n, r, noise_mask, 12345) if "noisy" in mechanisms else None
    want_w = "weighted" in mechanisms or "noisy" in mechanisms
    R = len(seeds)
    out = {name: np.empty((R, d)) for name in mechanisms}
    XT = _transposed(X)
    slots = None if mask is None else mask.__getitem__
    step = max(1, _CHUNK_ELEMENTS // max(1, m * k))
    buf = None
    for a in range(0, R, step):
        chunk = seeds[a : a + step]
        bags, W, E = _draw(chunk, n, m, k, weighted=want_w, noisy_slots=slots, noise_std=s)
        ys = np.take(y, bags, mode="clip")
        buf = np.empty(bags.shape) if buf is None or buf.shape != bags.shape else buf
        naive = "naive" in mechanisms
        xs = _aggregate_features(XT, bags, ([None] if naive else []) + ([W] if want_w else []), buf)
        x_w = xs[-1] if want_w else None
        if naive:
            out["naive"][a : a + step] = _batched_lstsq(xs[0], ys.sum(axis=2))
        if "weighted" in mechanisms:
            out["weighted"][a : a + step] = _batched_lstsq(x_w, np.einsum("rjk,rjk->rj", W, ys))
        if "noisy" in mechanisms:
            out["noisy"][a : a + step] = _batched_lstsq(x_w, np.einsum("rjk,rjk->rj", W, ys + E))
    return out


@dataclass(frozen=True)
class PreparedData:
    """Training and test data prepared for aggregation (features with the constant appended,
    labels mapped to [-B1, B1]) with the non-private optimum precomputed.

    Build it with :func:`dp_core.mechanisms.label_dp_bags.prepare`.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    b1: float
    b2: float
    label_lo: float
    label_hi: float
    label_range_from_data: bool
    n_clipped: int
    name: str = ""
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def optimum(self) -> dict[str, Any]:
        """r*, opt/n (gamma_hat), Q = X^T X/n and the test Gram pieces.
        Details: docs/label_dp_bags.md §"batch.PreparedData.optimum".
        """
        n, d = self.X.shape
        with single_threaded_blas():
            if n * d * d > 2e8:  # large problems: the d x d Gram matrix instead of an SVD of X
                G = self.X.T @ self.X
                r_star = np.linalg.pinv(G, rtol=1e-12, hermitian=True) @ (self.X.T @ self.y)
            else:
                r_star, *_ = np.linalg.lstsq(self.X, self.y, rcond=None)
            res = self.y - self.X @ r_star
            return {
                "r_star": r_star,
                "gamma_hat": float(res @ res / self.n),
                "Q": self.X.T @ self.X / self.n,
                "test_G": self.X_test.T @ self.X_test / len(self.y_test),
                "test_c": self.X_test.T @ self.y_test / len(self.y_test),
                "test_yy": float(self.y_test @ self.y_test / len(self.y_test)),
                "test_X": self.X_test,
                "test_y": self.y_test,
            }

    @property
    def mse_unit(self) -> float:
        """Factor from MSE on the [-B1, B1] scale to MSE in the label's original units."""
        return ((self.label_hi - self.label_lo) / (2.0 * self.b1)) ** 2

    @property
    def mae_unit(self) -> float:
        """Factor from a mean absolute error on the [-B1, B1] scale to one in the label's original units."""
        return (self.label_hi - self.label_lo) / (2.0 * self.b1)


def _metrics(coefs: np.ndarray, opt: Mapping[str, Any]) -> dict[str, np.ndarray]:
    diff = coefs - opt["r_star"][None, :]
    excess = np.einsum("rd,de,re->r", diff, opt["Q"], diff)
    test = opt["test_yy"] - 2.0 * coefs @ opt["test_c"] + np.einsum("rd,de,re->r", coefs, opt["test_G"], coefs)
    g = opt["gamma_hat"]
    ratio = 1.0 + excess / g if g > 0 else np.full_like(excess, math.inf)
    out = {"test_mse": np.maximum(test, 0.0), "excess_risk": np.maximum(excess, 0.0), "ratio": ratio}
    if "test_X" in opt:  # the same predictions' mean absolute error (one product for all trials)
        out["test_mae"] = np.mean(np.abs(opt["test_X"] @ coefs.T - opt["test_y"][:, None]), axis=0)
    return out


def utility_trials(
    data: PreparedData,
    *,
    m: int,
    k: int,
    rho: float,
    seeds: Sequence[np.random.SeedSequence],
    epsilon: float | None = None,
    delta: float | None = None,
    noise_std: float = 1.0,
    methods: Sequence[str] | None = None,
    _opt: Mapping[str, Any] | None = None,
    _cache: dict | None = None,
) -> pd.DataFrame:
    """Per-trial utility of every mechanism and baseline: one row per (trial, method).
    Details: docs/label_dp_bags.md §"batch.utility_trials" ([BSHNR], Theorem 1.2).
    """
    if methods is None:
        methods = list(METHOD_KEYS.values())
    opt = data.optimum() if _opt is None else _opt
    R = len(seeds)
    need = {_FIT_OF[meth] for meth in methods if meth in _FIT_OF}
    fit_names = [name for name in ("naive", "weighted", "noisy") if name in need]
    fits = (
        simulate_fits(data.X, data.y, m=m, k=k, rho=rho, seeds=seeds, noise_std=noise_std, mechanisms=fit_names)
        if fit_names
        else {}
    )
    frames = []
    for meth in methods:
        if meth in _FIT_OF:
            coefs = fits[_FIT_OF[meth]]
        elif meth in ("gaussian_label", "laplace_label"):
            if epsilon is None or delta is None:
                continue
            coefs = _baseline_coefs(data, meth, epsilon, delta, seeds, opt, _cache)
        elif meth == "nonprivate":
            coefs = np.repeat(opt["r_star"][None, :], R, axis=0)
        else:
            raise ValueError(f"method must be one of {sorted(METHOD_KEYS.values())}, got {meth!r}.")
        met = _metrics(coefs, opt)
        frames.append(pd.DataFrame({"method": meth, "trial": np.arange(R), **met}))
    return pd.concat(frames, ignore_index=True)


def _baseline_coefs(data: PreparedData, meth: str, epsilon: float, delta: float, seeds, opt, cache=None) -> np.ndarray:
    """OLS on all n training labels plus per-label noise: r* + (X^T X)^+ X^T noise, per trial.

    A trial's noise comes from a child stream of its seed (tag 7: Gaussian, 8: Laplace), so it is
    the same at every grid point; ``cache`` (a dict) reuses it across points of a sweep.
    """
    ckey = ("calibration", epsilon, delta, data.b1)
    if cache is not None and ckey in cache:
        cal, Gp = cache[ckey]
    else:
        cal = acc.baseline_calibration(epsilon, delta, data.b1)
        Gp = np.linalg.pinv(data.X.T @ data.X, hermitian=True)
        if cache is not None:
            cache[ckey] = (cal, Gp)
    R = len(seeds)
    out = np.empty((R, data.d))
    n = data.n
    tag = 7 if meth == "gaussian_label" else 8
    for t, ss in enumerate(seeds):
        key = (meth, ss.entropy, tuple(ss.spawn_key), epsilon, delta)
        if cache is not None and key in cache:
            out[t] = cache[key]
            continue
        g = as_generator(child_seed(ss, tag))
        if meth == "gaussian_label":
            noise = cal["gaussian_sigma"] * g.standard_normal(n)
        else:
            noise = g.laplace(0.0, cal["laplace_scale"], n)
        out[t] = opt["r_star"] + Gp @ (data.X.T @ noise)
        if cache is not None:
            cache[key] = out[t].copy()
    return out


def utility_sweep(
    data: PreparedData,
    points: Sequence[Mapping[str, Any]],
    *,
    n_trials: int,
    seed: RngLike,
    epsilon: float | None = None,
    delta: float | None = None,
    noise_std: float = 1.0,
    methods: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    block_size: int | None = None,
) -> pd.DataFrame:
    """Utility over a grid of (k, m, rho) points: the per-trial table of :func:`utility_trials`
    with the point's parameters as columns; use :func:`dp_core.experiments.summarize` on it.
    Details: docs/label_dp_bags.md §"batch.utility_sweep".
    """
    for p in points:
        check_bag_sizes(data.n, int(p["m"]), int(p["k"]))
    opt = data.optimum()
    kw = dict(epsilon=epsilon, delta=delta, noise_std=noise_std, methods=methods, _opt=opt, _cache={})

    def block(point, seeds):
        bag = dict(m=int(point["m"]), k=int(point["k"]), rho=float(point.get("rho", 0.1)))
        with single_threaded_blas():
            return utility_trials(data, **bag, seeds=list(seeds), **kw)

    return run_sweep(block, points, n_trials=n_trials, seed=seed, block_size=block_size, progress=progress)
