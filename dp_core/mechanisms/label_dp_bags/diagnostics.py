"""Data preparation and the data conditions of wtd-LBA (gamma, lambda*, rank), per-bag residuals.
Details: docs/label_dp_bags.md §"diagnostics (module)" ([BSHNR], Theorem 1.2, Lemma 3.4).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._blas import single_threaded_blas
from ..._validation import check_int, check_positive, check_real, check_Xy
from ...data import split_indices
from ...exceptions import DataValidationError
from ...rng import RngLike, as_generator
from .batch import PreparedData
from .core import check_bag_sizes

__all__ = [
    "prepare",
    "prepare_dataset",
    "data_conditions",
    "bag_warnings",
    "bag_residuals",
    "conditional_noise_summary",
    "utility_requirement",
    "first_screen_utility",
    "bags_for_useful_model",
    "public_label_range",
]


def _features(X: np.ndarray) -> np.ndarray:
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1.0)
    Z[:, sd == 0] = 0.0
    norms = np.linalg.norm(Z, axis=1)
    top = float(norms.max()) if norms.size else 0.0
    if top > 0:
        Z = Z / top
    return Z


def prepare(
    X_raw,
    y_raw,
    *,
    label_range: tuple[float, float] | None = None,
    b1: float = 1.0,
    test_fraction: float = 0.2,
    seed: RngLike = 0,
    name: str = "",
) -> PreparedData:
    """Prepare (X, y) for the aggregation mechanisms.
    Details: docs/label_dp_bags.md §"diagnostics.prepare" ([BSHNR], Section 1.).
    """
    X, y = check_Xy(X_raw, y_raw, min_rows=4)
    B1 = check_positive("b1", b1)
    from_data = label_range is None
    if from_data:
        lo, hi = float(y.min()), float(y.max())
    else:
        lo, hi = check_real("label_lo", label_range[0]), check_real("label_hi", label_range[1])
    if not hi > lo:
        if from_data:
            raise DataValidationError(
                f"the label is constant ({lo:g}); there is nothing to learn. Choose another target."
            )
        raise ValueError(f"label_hi must be greater than label_lo, got label_lo={lo:g}, label_hi={hi:g}.")
    yc = np.clip(y, lo, hi)
    n_clipped = int((yc != y).sum())
    ys = -B1 + (yc - lo) * (2.0 * B1) / (hi - lo)
    Z = np.hstack([_features(X), np.ones((X.shape[0], 1))])
    b2 = float(np.linalg.norm(Z, axis=1).max())
    f = float(test_fraction)
    if not 0.0 <= f < 1.0:
        raise ValueError(f"test_fraction must be in [0, 1), got {test_fraction!r}.")
    tr, te = split_indices(X.shape[0], test_fraction=f, seed=seed, min_test=0)
    if te.size == 0:
        te = tr
    notes = []
    if from_data:
        notes.append(
            f"The label range [{lo:.4g}, {hi:.4g}] was read from the data. It depends on the private labels, so it "
            "leaks "
            "information that the guarantee does not cover; declare a public range instead."
        )
    if n_clipped:
        notes.append(f"{n_clipped} labels outside the declared range [{lo:.4g}, {hi:.4g}] were clipped.")
    X_train = np.asfortranarray(Z[tr])  # column-major: X.T is C-contiguous for the per-column gathers
    return PreparedData(
        X=X_train,
        y=ys[tr],
        X_test=Z[te],
        y_test=ys[te],
        b1=B1,
        b2=b2,
        label_lo=lo,
        label_hi=hi,
        label_range_from_data=from_data,
        n_clipped=n_clipped,
        name=name,
        notes=tuple(notes),
    )


def prepare_dataset(
    ds, *, label_range=None, b1: float = 1.0, test_fraction: float = 0.2, seed: RngLike = 0
) -> PreparedData:
    """:func:`prepare` for a :class:`dp_core.data.Dataset`; a classification target is used as a number
    (its class code), which is said in the notes."""
    prep = prepare(ds.X, ds.y, label_range=label_range, b1=b1, test_fraction=test_fraction, seed=seed, name=ds.name)
    if getattr(ds, "task", "regression") != "regression":
        note = (
            f"'{ds.name}' is a {ds.task} task: its class code (0..{max(ds.n_classes - 1, 1)}) is treated as a number "
            "and "
            "fitted by least squares. The mechanisms are about real-valued labels; read the MSE as that of a linear "
            "score."
        )
        prep = PreparedData(**{**prep.__dict__, "notes": (note,) + prep.notes})
    return prep


def data_conditions(X, y, b1: float, *, k: int | None = None, m: int | None = None) -> dict[str, Any]:
    """The data constants of the wtd-LBA guarantee, computed from the data
    (docs/label_dp_bags.md §"Data conditions of wtd-LBA").
    Details: docs/label_dp_bags.md §"diagnostics.data_conditions" ([BSHNR], Theorem 1.2, Lemma 3.4).
    """
    A, v = check_Xy(X, y, min_rows=2)
    B1 = check_positive("b1", b1)
    v = np.clip(v, -B1, B1)
    n, d = A.shape
    b2 = float(np.linalg.norm(A, axis=1).max())
    with single_threaded_blas():  # small d x d products: BLAS threads only slow them down (same numbers)
        r, *_ = np.linalg.lstsq(A, v, rcond=None)
        res = v - A @ r
        opt = float(res @ res)
        Q = A.T @ A / n
        ev = np.sort(np.linalg.eigvalsh(Q))[::-1]
        rank = int(np.linalg.matrix_rank(A))
    lam_star = float(ev[rank - 1]) if rank > 0 else 0.0
    gamma_hat = opt / n
    root = math.sqrt(opt) - 2.0 * B1
    gamma = min(B1 * B1 / 3.0, root * root / n) if root > 0 else None
    warns = []
    if gamma_hat >= B1 * B1 / 3.0:
        warns.append(
            f"gamma_hat = {gamma_hat:.4g} is at least B1^2/3 = {B1 * B1 / 3:.4g}; the theorem caps gamma at B1^2/3."
        )
    if gamma is None:
        warns.append(
            "sqrt(opt) <= 2 B1: some neighbouring dataset may fit the features exactly; no gamma > 0 holds for every "
            "neighbour."
        )
    warns += bag_warnings(n, rank, k=k, m=m)
    return {
        "n": n,
        "d": d,
        "rank": rank,
        "b1": B1,
        "b2": b2,
        "opt": opt,
        "gamma_hat": gamma_hat,
        "gamma": gamma,
        "gamma_capped": min(gamma_hat, B1 * B1 / 3.0),
        # the value offered for accounting: the neighbour-safe gamma, else half the capped gamma_hat
        "gamma_default": gamma if gamma is not None else max(min(gamma_hat, B1 * B1 / 3.0) / 2.0, 1e-6),
        "lam_star": lam_star,
        "label_variance": float(v.var()),
        "depends_on_private_labels": True,
        "warnings": warns,
    }


def bag_warnings(n: int, rank: int, *, k: int | None = None, m: int | None = None) -> list[str]:
    """The warnings of :func:`data_conditions` that depend on the bag size ``k`` and the number of bags ``m``.

    Cheap (no linear algebra), so a page can keep the data constants of :func:`data_conditions` (computed
    once with ``k = m = None``) and add these for each setting.
    """
    warns = []
    if k is not None:
        if k <= rank:
            warns.append(
                f"k = {k} <= rank = {rank}: every bag's labels lie in the span of its features, so wtd-LBA gives no "
                "privacy at all."
            )
        elif math.sqrt(k) <= rank:
            warns.append(
                f"sqrt(k) = {math.sqrt(k):.3g} <= rank = {rank}: the chi-square term Pr[chi2_rank > sqrt(k)] is close "
                "to 1."
            )
    if k is not None and m is not None and m * k > n:
        warns.append(f"m*k = {m * k} > n = {n}: infeasible (bags are disjoint); the largest k for m = {m} is {n // m}.")
    return warns


def bag_residuals(X, y, *, m: int, k: int, rng: RngLike) -> np.ndarray:
    """RSS_bag = min_r ||y_bag - X_bag r||^2 for m random disjoint bags (vectorized).
    Details: docs/label_dp_bags.md §"diagnostics.bag_residuals" ([BSHNR], Lemma 3.4), Lemma 3.4, eqs. (3)-(5)).
    """
    A, v = check_Xy(X, y, min_rows=1)
    check_bag_sizes(A.shape[0], m, k)
    g = as_generator(rng)
    S = g.permutation(A.shape[0])[: m * k].reshape(m, k)
    Xb = A[S]
    yb = v[S]
    coef = np.einsum("jdk,jk->jd", np.linalg.pinv(Xb, rtol=1e-10), yb)
    res = yb - np.einsum("jkd,jd->jk", Xb, coef)
    return np.einsum("jk,jk->j", res, res)


def conditional_noise_summary(
    rss: np.ndarray, *, k: int, b1: float, gamma: float | None, rank: int
) -> dict[str, float]:
    """Summaries of per-bag residuals: fraction of bags below gamma/4 per example, median
    conditional noise std sqrt(RSS), and the shift bound 4 B1/(sqrt(gamma) k^{1/4}).
    Details: docs/label_dp_bags.md §"diagnostics.conditional_noise_summary".
    """
    kk = check_int("k", k, lo=1)
    rss = np.asarray(rss, dtype=float)
    out = {
        "median_noise_std": float(np.median(np.sqrt(rss))),
        "fraction_zero_residual": float(np.mean(rss <= 1e-12)),
        "sensitivity": 2.0 * float(b1),
        "typical_shift": 2.0 * float(b1) * math.sqrt(max(rank, 1)) / max(float(np.median(np.sqrt(rss))), 1e-300),
    }
    if gamma is not None and gamma > 0:
        out["fraction_below_threshold"] = float(np.mean(rss / kk < gamma / 4.0))
        out["shift_bound"] = 4.0 * float(b1) / (math.sqrt(gamma) * kk**0.25)
    return out


def utility_requirement(data, *, k: int, theta: float = 0.5, target: float = 0.05) -> dict[str, float]:
    """How many bags the paper's wtd-LBA utility statement needs on these data.
    Details: docs/label_dp_bags.md §"diagnostics.utility_requirement" ([BSHNR], Theorem 1.2).
    """
    from . import bounds as acc

    opt = data.optimum()
    b3 = float(np.linalg.norm(opt["r_star"]))
    B = data.b1 + data.b2 * b3
    g = opt["gamma_hat"]
    out = {"b3": b3, "B": B, "gamma_hat": g}
    if g <= 0:
        return {**out, "m_required_paper_c0": math.inf, "m_required_valid_c0": math.inf}
    return {
        **out,
        "theta": theta,
        "target": target,
        "m_required_paper_c0": acc.lba_utility_required_m(target, k, data.d, theta, g, B, 0.5),
        "m_required_valid_c0": acc.lba_utility_required_m(target, k, data.d, theta, g, B, 1.0 / 16.0),
    }


def first_screen_utility(
    data,
    *,
    variant: str,
    k: int,
    m: int,
    rho: float,
    noise_std: float,
    n_trials: int,
    seed: RngLike,
    epsilon: float | None = None,
    delta: float | None = None,
) -> dict[str, Any]:
    """Measured test MSE of ``variant`` at one setting, beside the non-private fit and the trivial model.
    Details: docs/label_dp_bags.md §"diagnostics.first_screen_utility".
    """
    from ...experiments import summarize
    from .batch import METHOD_KEYS, utility_sweep

    if variant not in ("noisy-wtd-llp", "wtd-lba"):
        raise ValueError(f"variant must be 'noisy-wtd-llp' or 'wtd-lba', got {variant!r}.")
    t = check_int("n_trials", n_trials, lo=2)
    key = METHOD_KEYS[variant]
    baseline = epsilon is not None and delta is not None
    df = utility_sweep(
        data,
        [{"k": int(k), "m": int(m), "rho": float(rho)}],
        n_trials=t,
        seed=seed,
        epsilon=epsilon,
        delta=delta,
        noise_std=noise_std,
        methods=[key, "nonprivate"] + (["gaussian_label"] if baseline else []),
    )
    s = summarize(df, by=["method"], values=["test_mse"]).set_index("method")
    trivial = float(np.mean((data.y_test - float(np.mean(data.y))) ** 2))
    mse = float(s.loc[key, "test_mse_mean"])
    return {
        "mse": mse,
        "mse_se": float(s.loc[key, "test_mse_se"]),
        "nonprivate": float(s.loc["nonprivate", "test_mse_mean"]),
        "trivial": trivial,
        "gaussian": float(s.loc["gaussian_label", "test_mse_mean"]) if baseline else None,
        "useful": bool(mse < trivial),
        "n_trials": t,
    }


def bags_for_useful_model(
    *,
    d: int,
    nonprivate: float,
    trivial: float,
    rho: float = 0.0,
    noise_std: float = 1.0,
    measured: float | None = None,
    m: int | None = None,
) -> int | None:
    """About how many bags make the fit on the bags better than predicting the average label.
    Details: docs/label_dp_bags.md §"diagnostics.bags_for_useful_model".
    """
    dd = check_int("d", d, lo=1)
    npv = check_positive("nonprivate", nonprivate, allow_zero=True)
    tv = check_positive("trivial", trivial, allow_zero=True)
    r = check_real("rho", rho)
    s = check_positive("noise_std", noise_std)
    if tv <= npv:
        return None
    if measured is not None and m is not None and check_int("m", m, lo=1) > dd + 1:
        excess = max(check_real("measured", measured) - npv, 0.0) * (m - dd - 1)
        return dd + 1 + math.floor(excess / (tv - npv)) + 1
    return dd + 1 + math.floor((npv + r * s * s) * dd / (tv - npv)) + 1


#: Label domains of the demo datasets that are public by construction or by the task's definition.
_PUBLIC_LABEL_RANGES: dict[str, tuple[float, float, str]] = {
    "census": (0.0, 1.0, "income is capped at a public maximum and mapped to [0, 1] by construction"),
    "breast_cancer": (0.0, 1.0, "the two classes are coded 0 and 1 by the task's definition"),
    "wine": (0.0, 2.0, "the three classes are coded 0, 1 and 2 by the task's definition"),
    "iris": (0.0, 2.0, "the three classes are coded 0, 1 and 2 by the task's definition"),
    "gaussian_classes": (0.0, 2.0, "the three classes are coded 0, 1 and 2 by the generator"),
}


def public_label_range(ds) -> tuple[float, float, str] | None:
    """The label range of a demo dataset that is public without looking at its labels, with its source.
    Details: docs/label_dp_bags.md §"diagnostics.public_label_range".
    """
    from ...data import DATASETS, Dataset

    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a dp_core Dataset, got {type(ds).__name__}.")
    if ds.name in DATASETS and ds.name in _PUBLIC_LABEL_RANGES:
        return _PUBLIC_LABEL_RANGES[ds.name]
    if ds.task == "binary":  # any binary target is coded 0/1 (dp_core.data.table_to_dataset): fixed by the task
        return (0.0, 1.0, "the class codes 0 and 1 of a binary task")
    return None
