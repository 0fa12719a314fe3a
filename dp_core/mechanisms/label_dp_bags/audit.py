"""Audit adapter for label-DP by aggregation (naive LBA/LLP, weighted LLP, noisy-wtd-LLP).
Details: docs/label_dp_bags.md §"audit (module)" ([BSHNR], Theorem 1.2), Theorem 1.3), Fig. 2, Theorem 1.3).
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import check_choice, check_delta, check_in_interval, check_int, check_positive
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism, Option
from ...data import Dataset
from ...exceptions import DataValidationError
from ...rng import as_generator, keyed_seed
from . import check_bag_sizes, noise_set, prepare_dataset, simulate_releases
from .bounds import delta_noisy_wtd_llp, llp_exact_delta, naive_delta_lower_bound

__all__ = ["MODES", "PAIRS", "label_dp_target"]

MODES = {
    "naive-llp": "naive LLP (unweighted label sums): no guarantee claimed; tests your (ε, δ)",
    "naive-lba": "naive LBA (unweighted sums of features and labels): no guarantee claimed; tests your (ε, δ)",
    "weighted-llp": "weighted LLP without noise (ρ = 0): no guarantee claimed; tests your (ε, δ)",
    "wtd-lba": "wtd-LBA (secret weights): data-dependent guarantee (Theorem 1.2); tests your (ε, δ)",
    "noisy-wtd-llp": "noisy-wtd-LLP: δ(ε) from the exact accounting (beyond the paper)",
    "noisy-wtd-llp-paper": "noisy-wtd-LLP: δ(ε) as claimed by the paper (Theorem 1.3)",
}
PAIRS = {
    "boundary": "worst case: one label flipped from +B1 to −B1 (outside the noise set)",
    "random": "from your data: the label of one random row replaced by another row's label",
}

#: Mechanisms whose bag aggregates are deterministic given the public randomness (δ ≥ m k / n).
_NOISELESS = ("naive-llp", "naive-lba", "weighted-llp")

#: Value of the log-likelihood ratio for a noiseless bag (the aggregate reveals the label).
_BIG = 1.0e5
#: Seed of the noise set N (fixed before the labels are seen; the same on both datasets).
NOISE_SET_SEED = 12345


def _bag_of(bags: np.ndarray, i_star: int):
    """``(rows, j, r)``: the runs whose bags (R, m, k) hold ``i_star``, its bag and its slot there; ``None`` if none."""
    R, _, k = bags.shape
    hit = bags == i_star
    bagged = hit.reshape(R, -1).any(axis=1)
    if not bagged.any():
        return None
    rows = np.flatnonzero(bagged)
    flat = hit[rows].reshape(rows.size, -1).argmax(axis=1)
    return rows, flat // k, flat % k


def _llr(batch, y0: np.ndarray, i_star: int, delta_label: float, noise_mask, noise_std: float) -> np.ndarray:
    """Log-likelihood ratio of D' vs D from the bag containing ``i_star`` (vectorized over runs)."""
    out = np.zeros(batch.bags.shape[0])
    found = _bag_of(batch.bags, i_star)
    if found is None:
        return out
    rows, j, r = found
    members = batch.bags[rows, j]  # (B, k)
    w = np.ones(members.shape) if batch.weights is None else batch.weights[rows, j]
    expected = np.sum(w * y0[members], axis=1)
    res = batch.ybar[rows, j] - expected
    a = w[np.arange(rows.size), r] * delta_label
    if noise_mask is None:
        v = np.zeros(rows.size)
    else:
        v = noise_std**2 * np.sum(np.where(noise_mask[members], w * w, 0.0), axis=1)
    llr = np.empty(rows.size)
    pos = v > 0
    llr[pos] = (a[pos] * res[pos] - 0.5 * a[pos] ** 2) / v[pos]
    tol = 1e-9 * (1.0 + np.abs(a[~pos]) + np.abs(expected[~pos]))
    llr[~pos] = np.where(np.abs(res[~pos] - a[~pos]) <= tol, _BIG, -_BIG)
    out[rows] = np.clip(llr, -_BIG, _BIG)
    return out


def _gauss_logpdf(x, mean, var):
    return -0.5 * (np.log(2.0 * np.pi * var) + (x - mean) ** 2 / var)


def _llr_wtd_lba(batch, X: np.ndarray, y0: np.ndarray, y1: np.ndarray, i_star: int) -> np.ndarray:
    """Exact conditional log-likelihood ratio of wtd-LBA's bag aggregate given the released x̄
    (docs/label_dp_bags.md §"Data conditions of wtd-LBA").
    Details: docs/label_dp_bags.md §"audit._llr_wtd_lba".
    """
    out = np.zeros(batch.bags.shape[0])
    found = _bag_of(batch.bags, i_star)
    if found is None:
        return out
    rows, j, _ = found
    members = batch.bags[rows, j]
    Xb = X[members]  # (B, k, d)
    xb = batch.xbar[rows, j]  # (B, d)
    yb = batch.ybar[rows, j]
    pinv = np.linalg.pinv(Xb)  # (B, d, k)
    stats = []
    for labels in (y0, y1):
        lab = labels[members]
        coef = np.einsum("bdk,bk->bd", pinv, lab)
        mean = np.einsum("bd,bd->b", xb, coef)
        resid = lab - np.einsum("bkd,bd->bk", Xb, coef)
        var = np.sum(resid * resid, axis=1)
        stats.append((mean, var))
    (m0, v0), (m1, v1) = stats
    scale = 1.0 + np.abs(m0) + np.abs(m1)
    tiny = 1e-10 * scale**2
    llr = np.zeros(rows.size)
    both = (v0 > tiny) & (v1 > tiny)
    llr[both] = _gauss_logpdf(yb[both], m1[both], v1[both]) - _gauss_logpdf(yb[both], m0[both], v0[both])
    close0 = np.abs(yb - m0) <= 1e-7 * scale
    close1 = np.abs(yb - m1) <= 1e-7 * scale
    deg0 = ~both & (v0 <= tiny) & (v1 > tiny)  # point mass under D
    llr[deg0] = np.where(close0[deg0], -_BIG, _BIG)
    deg1 = ~both & (v1 <= tiny) & (v0 > tiny)  # point mass under D'
    llr[deg1] = np.where(close1[deg1], _BIG, -_BIG)
    deg = ~both & (v0 <= tiny) & (v1 <= tiny)
    llr[deg] = np.where(close1[deg] & ~close0[deg], _BIG, np.where(close0[deg] & ~close1[deg], -_BIG, 0.0))
    out[rows] = np.clip(llr, -_BIG, _BIG)
    return out


def _pair(y: np.ndarray, pair: str, b1: float, mask, pair_seed: int):
    """``(i_star, y, y1, text)``: the changed row (outside the noise set ``mask``) and the two label vectors."""
    g = as_generator(keyed_seed(pair_seed, 0x1ABE1))
    n = y.size
    candidates = np.flatnonzero(~mask) if mask is not None else np.arange(n)
    i_star = int(candidates[g.integers(candidates.size)])
    y1 = y.copy()
    if pair == "boundary":
        y[i_star], y1[i_star] = b1, -b1
        text = f"label of row {i_star} flipped from +{b1:g} to −{b1:g} (the largest change)"
    else:
        others = np.flatnonzero(y != y[i_star])
        if others.size == 0:
            raise DataValidationError("every label is equal; a pair from the data changes nothing.")
        j = int(others[g.integers(others.size)])
        y1[i_star] = y[j]
        text = f"label of row {i_star} ({y[i_star]:.3g}) replaced by the label of row {j} ({y[j]:.3g})"
    return i_star, y, y1, text


def _claim(mode: str, mech: str, eps: float, dl: float, *, n, k, m, rho, b1, noise_std):
    """``(delta, note, vacuous)``: the δ the audit tests at ``eps`` (just below 1 when the accounting is vacuous)."""
    if mode == "noisy-wtd-llp":
        claim_delta = llp_exact_delta(eps, n, k, m, rho, b1, noise_std=noise_std).delta
        note = "δ(ε) from the exact accounting of noisy-wtd-LLP (beyond the paper)"
    elif mode == "noisy-wtd-llp-paper":
        claim_delta = delta_noisy_wtd_llp(eps, k, m, rho, b1, variant="paper", noise_std=noise_std)
        note = "δ(ε) as claimed by the paper (Theorem 1.3)"
    elif mech == "wtd-lba":
        claim_delta = dl
        note = (
            "wtd-LBA's guarantee (Theorem 1.2) holds only under conditions on the data (see the Label-DP page); "
            "the audit tests your (ε, δ)"
        )
    else:
        claim_delta = dl
        note = (
            f"the paper claims no guarantee for {mech} (δ ≥ m·k/n = {naive_delta_lower_bound(n, k, m):.4g} for "
            "every ε); the audit tests your (ε, δ)"
        )
    vacuous = not claim_delta < 1.0
    if vacuous:
        note += "; the accounting gives no guarantee at this ε (δ ≥ 1)"
        claim_delta = 1.0 - 1e-12
    return claim_delta, note, vacuous


def _sampler(X, y, y1, i_star: int, *, mech: str, m: int, k: int, rho: float, noise_std: float, mask):
    """``sample(side, runs, rng)``: the audit statistic of ``runs`` releases on ``(y, y1)[side]``."""
    labels, delta_label = (y, y1), float(y1[i_star] - y[i_star])

    def sample(side: int, runs: int, rng: np.random.Generator):
        kw = dict(m=m, k=k, rho=rho, noise_std=noise_std, noise_set_seed=NOISE_SET_SEED, with_xbar=mech == "wtd-lba")
        batch = simulate_releases(X, labels[side], mechanism=mech, n_trials=runs, seed=rng, **kw)
        if mech == "wtd-lba":
            return _llr_wtd_lba(batch, X, y, y1, i_star)
        return _llr(batch, y, i_star, delta_label, mask, noise_std)

    return sample


def label_dp_target(
    *,
    dataset: Dataset,
    epsilon: float,
    delta: float,
    mode: str = "naive-llp",
    pair: str = "boundary",
    m: int = 100,
    k: int = 64,
    rho: float = 0.1,
    n: int = 20_000,
    b1: float = 1.0,
    noise_std: float = 1.0,
    pair_seed: int = 0,
) -> AuditTarget:
    """Audit target for the label-DP aggregation mechanisms on ``dataset``.
    Details: docs/label_dp_bags.md §"audit.label_dp_target" ([BSHNR], Theorem 1.3).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    eps = check_positive("epsilon", epsilon)
    dl = check_delta(delta)
    n = check_int("n", n, lo=2)
    b1 = check_positive("b1", b1)
    noise_std = check_positive("noise_std", noise_std)
    prep = prepare_dataset(dataset, b1=b1, seed=0)
    n = min(n, prep.n)
    X, y = prep.X[:n], prep.y[:n].copy()
    n, m, k = check_bag_sizes(n, m, k)
    mech = "noisy-wtd-llp" if mode.startswith("noisy") else mode
    noisy = mech == "noisy-wtd-llp"
    if noisy:
        rho = check_in_interval("rho", rho, 0.0, 1.0, closed="right")
        mask = noise_set(n, rho, NOISE_SET_SEED)
        if mask.all():
            raise ValueError("rho = 1 puts every index in the noise set; the boundary pair needs one outside it.")
    else:
        mask = None
    i_star, y, y1, text = _pair(y, pair, b1, mask, pair_seed)
    delta_label = float(y1[i_star] - y[i_star])
    claim_delta, note, vacuous = _claim(mode, mech, eps, dl, n=n, k=k, m=m, rho=rho, b1=b1, noise_std=noise_std)
    sample = _sampler(X, y, y1, i_star, mech=mech, m=m, k=k, rho=rho, noise_std=noise_std, mask=mask)
    return AuditTarget(
        mechanism="label-dp-bags",
        mode=mode,
        pair=text,
        eps_claimed=eps,
        delta=float(claim_delta),
        sample=sample,
        statistic=(
            "log-likelihood ratio of the bag aggregate containing the changed label, given the released x̄ "
            "(weights secret)"
            if mech == "wtd-lba"
            else "log-likelihood ratio of the bag aggregate containing the changed label (public bags and weights)"
        ),
        note=note,
        max_runs=200_000,
        chunk=max(100, 4_000_000 // (m * k * (1 + X.shape[1] * (mech == "wtd-lba")))),
        details={
            "n": n,
            "m": m,
            "k": k,
            "rho": rho if noisy else 0.0,
            "mk_over_n": m * k / n,
            "changed_index": i_star,
            "label_change": delta_label,
            "claim_vacuous": vacuous,
            "delta_floor_naive": naive_delta_lower_bound(n, k, m) if mech in _NOISELESS else math.nan,
        },
    )


# -- the plug-in's audit entry (dp_core.audit.MECHANISMS collects it) ---------------------------
def _build_label_dp(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, m=10, k=64, rho=0.1, n=2000):
    return label_dp_target(
        dataset=dataset, epsilon=epsilon, delta=delta, mode=mode, pair=pair, m=m, k=k, rho=rho, n=n, pair_seed=pair_seed
    )


AUDIT = AuditableMechanism(
    name="label-dp-bags",
    title="Label-DP by aggregation",
    modes=MODES,
    pairs=PAIRS,
    build=_build_label_dp,
    options=(
        Option("m", int, 10, "number of bags m", lo=1, hi=100_000),
        Option("k", int, 64, "bag size k (m·k ≤ n)", lo=1, hi=4096),
        Option("rho", float, 0.1, "noisy fraction ρ (noisy-wtd-LLP)", lo=0.0, hi=1.0),
        Option("n", int, 2_000, "rows used (first n training rows)", lo=2, hi=1_000_000),
    ),
    needs_data=tuple(PAIRS),
    default_runs=2_000,
    max_runs=200_000,
    page="pages/label_dp_bags.py",
    summary="Labels released only as (weighted) sums over random bags.",
    extra={"page_defaults": {"n": 20_000}},  # the audit page starts from more rows than the CLI
)
