"""Audit adapter for private l1 regression with the exponential mechanism (Wang & Xu), exact grid mode.
.. [WX] D. Wang and J. Xu, *Differentially Private l1-norm Linear Regression with Heavy-tailed
   Data*, Algorithms 1-2 and Theorems 1-2; docs/l1_exponential.md §"Sensitivity and temperatures".
See docs/l1_exponential.md §"audit (module)"."""

from __future__ import annotations

import numpy as np

from ..._validation import check_choice, check_int, check_positive
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism, Option
from ...data import Dataset
from ...rng import as_generator, keyed_seed
from . import convention_guarantee, em_grid, grid_net
from .grid import sample_grid

__all__ = ["MODES", "PAIRS", "l1_exponential_target"]

#: Records (1, 0) that the constructed boundary pair shares (they make the output law peak at w = 0).
_REST = 5

MODES = {
    "paper_box": "temperature as printed in Algorithms 1-2 (κ = ε/log θ): claims ε-DP",
    "tight": "corrected temperature (κ = ε/(2 log θ)): ε-DP under replace-one",
    "paper_proof": "the proofs' temperature (κ = ε/(4 log θ)): ε-DP, over-private",
}
PAIRS = {
    "boundary": "worst case: one record moved from (1, −R) to (1, +R), the score changes by log θ at both ends of W",
    "random": "from your data: one random row replaced by another",
}


def _pair(pair: str, dataset, n: int, pair_seed: int, R: float):
    """``(X, y, X', y', description, n)`` of the neighbouring pair (replace-one)."""
    if pair == "boundary":
        X0 = np.ones((_REST + 1, 1))
        X1 = X0.copy()
        y0 = np.r_[R, np.zeros(_REST)]
        y1 = np.zeros(_REST + 1)
        text = (
            f"constructed: {_REST} records (x, y) = (1, 0) plus one record (1, {R:g}) in D, replaced by (1, 0) "
            "in D' (it fits at the edge of W in D and where the others fit in D')"
        )
    else:
        if dataset is None:
            raise ValueError("pair 'random' is built from data: pass a dataset.")
        n = min(n, dataset.n)
        x = np.asarray(dataset.X[:n, 0], dtype=np.float64)
        scale = float(np.max(np.abs(x)))
        x = x / scale if scale > 0 else x
        y = np.asarray(dataset.y[:n], dtype=np.float64)
        sd = float(np.std(y))
        y = (y - float(np.mean(y))) / (sd if sd > 0 else 1.0)
        X0, y0 = x[:, None].copy(), y.copy()
        X1, y1 = X0.copy(), y0.copy()
        g = as_generator(keyed_seed(pair_seed, 0x11E4))
        i, j = (int(t) for t in g.choice(n, size=2, replace=False))
        X1[i], y1[i] = X0[j], y0[j]
        text = f"row {i} replaced by row {j} of your data (first feature scaled to |x| ≤ 1, target standardised)"
    return X0, y0, X1, y1, text, n


def l1_exponential_target(
    *,
    dataset: Dataset,
    epsilon: float,
    mode: str = "paper_box",
    pair: str = "boundary",
    n: int = 20,
    theta: float = 1.5,
    iota: float = 1.0,
    grid_points: int = 41,
    pair_seed: int = 0,
) -> AuditTarget:
    """Audit target for the exact grid exponential mechanism of l1 regression (d = 1).
    [WX] Algorithms 1-2; docs/l1_exponential.md §"Sensitivity and temperatures"
    (replace-one loss of the printed temperature is 2ε). See docs/l1_exponential.md §"audit.l1_exponential_target"."""
    if dataset is not None and not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset or None, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    n = check_int("n", n, lo=2)
    iota = check_positive("iota", iota)
    m = check_int("grid_points", grid_points, lo=3, hi=100_000)
    R = 1.0
    X0, y0, X1, y1, text, n = _pair(pair, dataset, n, pair_seed, R)
    net = grid_net(1, R, m)
    laws = [
        em_grid(Xs, ys, epsilon=epsilon, theta=theta, iota=iota, convention=mode, n_draws=0, net=net)
        for Xs, ys in ((X0, y0), (X1, y1))
    ]
    p0, p1 = laws[0].probabilities, laws[1].probabilities
    with np.errstate(divide="ignore"):
        llr = np.clip(np.log(p1) - np.log(p0), -1e5, 1e5)
    guarantee = convention_guarantee(epsilon, theta, mode)

    def sample(side: int, runs: int, rng: np.random.Generator):
        return llr[sample_grid(laws[side].probabilities, runs, rng)]

    note = (
        guarantee.label if mode != "paper_box" else "ε-DP as claimed by the paper (Algorithms 1-2); " + guarantee.label
    )
    loss = float(np.max(np.abs(llr)))
    details = {"n": n, "theta": theta, "iota": iota, "grid_points": int(p0.size), "true_max_privacy_loss": loss}
    return AuditTarget(
        mechanism="l1-exponential",
        mode=mode,
        pair=text,
        eps_claimed=float(epsilon),
        delta=0.0,
        sample=sample,
        statistic="exact log-likelihood ratio ln p_D'(w) − ln p_D(w) of the released grid point",
        note=note,
        max_runs=2_000_000,
        details=details | {"replace_one_epsilon": guarantee.replace_one_epsilon},
    )


# -- the plug-in's audit entry (dp_core.audit.MECHANISMS collects it) ---------------------------
def _build_l1(*, mode, pair, epsilon, delta, dataset=None, **options):
    """:func:`l1_exponential_target` (pure ε-DP: ``delta`` is not used)."""
    return l1_exponential_target(dataset=dataset, epsilon=epsilon, mode=mode, pair=pair, **options)


AUDIT = AuditableMechanism(
    name="l1-exponential",
    title="Heavy-tailed ℓ1 regression",
    modes=MODES,
    pairs=PAIRS,
    build=_build_l1,
    options=(
        Option("n", int, 20, "rows used (random pair)", lo=2, hi=100_000),
        Option("theta", float, 1.5, "moment order θ in [1.05, 2]", lo=1.05, hi=2.0),
        Option("iota", float, 1.0, "truncation scale ι", lo=1e-3, hi=100.0),
        Option("grid_points", int, 41, "grid points on W = [−1, 1]", lo=3, hi=100_001),
    ),
    uses_delta=False,
    needs_data=("random",),
    default_runs=100_000,
    max_runs=2_000_000,
    page="pages/l1_exponential.py",
    default_dataset="heavy_tailed",
    summary="The exponential mechanism on a truncated ℓ1 loss (exact grid sampler, d = 1).",
)
