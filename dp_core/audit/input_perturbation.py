"""Audit adapter for input perturbation (Fukuchi, Tran, Sakuma 2017).

The mechanism is run through its public vectorized entry point
:func:`dp_core.mechanisms.input_perturbation.mechanism.release_thetas` (the exact ``stats``
sampler: cost independent of n). The released model ``w`` is reduced to a scalar by projecting
it on Fisher's discriminant direction between the two datasets, estimated from pilot runs drawn
from a seed independent of the audit's.

Neighbouring pairs
------------------
``boundary``
    The hard pair the specification names: one contributor is replaced by a contributor at the
    norm boundary, ``x' = x_i / ||x_i||`` (so ``||x'|| = 1``) with the opposite label
    ``y' = -sign(y_i)`` at the label bound. The replaced row ``i`` is the one with the largest
    ``|y_i| ||x_i||``, so that ``y'x' - y_i x_i`` (the change of the linear term the noise must
    hide) has norm close to its maximum 2.
``random``
    Row ``i`` replaced by row ``j`` of the same data (both chosen at random).

The claim audited is Theorem 1 of the paper, "(alpha epsilon, delta)-DP as claimed by the paper",
for the chosen sigma_u formula.

References
----------
.. [FTS17] K. Fukuchi, Q. K. Tran, J. Sakuma, *Differentially Private Empirical Risk Minimization
   with Input Perturbation*, 2017, Algorithms 1-2 and Theorem 1; specification section 3.1.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_in_interval, check_int
from ..data import Dataset
from ..exceptions import DataValidationError
from ..mechanisms.input_perturbation.experiment import prepare_data
from ..mechanisms.input_perturbation.mechanism import release_thetas
from ..mechanisms.input_perturbation.model import model_constants, sufficient_stats
from ..mechanisms.input_perturbation.params import input_perturbation_params
from ..rng import as_generator
from ._stats import fisher_direction, pilot_seed
from .core import AuditTarget

__all__ = ["MODES", "PAIRS", "input_perturbation_target"]

PAIRS = {
    "boundary": "worst case: one contributor replaced by a contributor at the norm boundary with the opposite label",
    "random": "from your data: one random row replaced by another",
}
MODES = {
    "COR2": "σ_u from Corollary 2 (the paper's recommended formula) — as claimed by the paper",
    "ALG1": "σ_u as printed in Algorithm 1 — as claimed by the paper",
    "CORR": "σ_u with the corrected cross-term constant (spec §8 P1)",
}

#: Pilot runs per side used to estimate the projection direction.
PILOT_RUNS = 2_000


def _neighbour(X: np.ndarray, y: np.ndarray, pair: str, model: str, pair_seed: int):
    X1, y1 = X.copy(), y.copy()
    if pair == "boundary":
        norms = np.linalg.norm(X, axis=1)
        i = int(np.argmax(norms * np.abs(y)))
        x_new = X[i] / max(norms[i], 1e-300)
        y_new = -np.sign(y[i]) if y[i] != 0 else 1.0
        X1[i], y1[i] = x_new, y_new
        text = (f"row {i} (‖x‖ = {norms[i]:.3g}, y = {y[i]:.3g}) replaced by a contributor at the norm boundary: "
                f"‖x'‖ = 1, y' = {y_new:g}")
    else:
        g = as_generator(np.random.SeedSequence([int(pair_seed), 0xA0D17]))
        i, j = (int(t) for t in g.choice(X.shape[0], size=2, replace=False))
        X1[i], y1[i] = X[j], y[j]
        text = f"row {i} replaced by row {j} of the same data"
    if model == "logistic_taylor":
        y1 = np.where(y1 >= 0, 1.0, -1.0)
    return X1, y1, text


def input_perturbation_target(*, dataset: Dataset, epsilon: float, delta: float, mode: str = "COR2",
                              pair: str = "boundary", n: int = 10_000, alpha: float = 1.0, eta: float = 1.0,
                              pair_seed: int = 0) -> AuditTarget:
    """Audit target for input perturbation on ``dataset``.

    Parameters
    ----------
    dataset : Dataset
        Regression data use the least-squares model; classification data the logistic (Taylor)
        model. Rows are bounded by the mechanism's own preparation (``prepare_data``).
    epsilon, delta : float
        Target central privacy, ``epsilon`` in (0, inf), ``delta`` in (0, 1).
    mode : {"COR2", "ALG1", "CORR"}
        Which sigma_u formula the mechanism uses.
    pair : {"boundary", "random"}
    n : int
        Number of contributors (the first ``n`` training rows). Must be at least 50.
    alpha : float
        Local/central knob in (0, 1]; the claim is (alpha epsilon, delta)-DP.
    eta : float
        Radius of the parameter ball.
    pair_seed : int
        Seed of the random pair and of the pilot runs.

    References
    ----------
    [FTS17] Theorem 1.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    n = check_int("n", n, lo=50)
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="right")
    model = "least_squares" if dataset.task == "regression" else "logistic_taylor"
    prep = prepare_data(dataset, model, seed=0)
    if prep.n_train < n:
        n = prep.n_train
        if n < 50:
            raise DataValidationError(f"input perturbation needs at least 50 training rows, got {n}.")
    X, y = prep.X_train[:n], prep.y_train[:n]
    X1, y1, text = _neighbour(X, y, pair, model, pair_seed)
    const = model_constants(model, eta=eta)
    st0 = sufficient_stats(X, y, model)
    st1 = sufficient_stats(X1, y1, model)
    params = input_perturbation_params(n=n, d=st0.d, epsilon=epsilon, delta=delta, eta=eta, zeta=const.zeta,
                                       lam=const.lam, alpha=alpha, sigma_u_mode=mode)
    p0, p1 = pilot_seed(pair_seed, 1).spawn(2)
    v = fisher_direction(release_thetas(st0, params, PILOT_RUNS, seed=p0),
                         release_thetas(st1, params, PILOT_RUNS, seed=p1))
    stats = (st0, st1)

    def sample(side: int, runs: int, rng: np.random.Generator):
        return release_thetas(stats[side], params, runs, seed=rng) @ v

    return AuditTarget(
        mechanism="input-perturbation", mode=mode, pair=text, eps_claimed=params.eps_run, delta=params.delta,
        sample=sample, statistic="the released model w projected on the discriminant direction (from pilot runs)",
        note="(αε, δ)-DP as claimed by the paper (Theorem 1)", max_runs=200_000,
        details={"model": model, "n": n, "d": st0.d, "sigma_b": params.sigma_b, "sigma_u": params.sigma_u,
                 "Delta": params.Delta, "pilot_runs": PILOT_RUNS},
    )
