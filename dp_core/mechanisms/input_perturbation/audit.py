"""Audit adapter for input perturbation (Fukuchi, Tran, Sakuma 2017, Algorithms 1-2, Theorem 1; the local mode
Corollary 1): the released w projected on Fisher's discriminant direction from pilot runs.

The statistic, the neighbouring pairs and the local mode: docs/input_perturbation.md §"Audit".
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr  # scipy.stats alone takes about a second to import

from ..._validation import check_choice, check_in_interval, check_int
from ...audit._stats import fisher_direction, pilot_seed
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism, Option
from ...data import Dataset
from ...exceptions import DataValidationError
from ...rng import as_generator, keyed_seed
from .experiment import prepare_data
from .mechanism import contributor_randomize, release_thetas
from .model import quadratic_features, sufficient_stats
from .params import local_privacy, params_for_model

__all__ = ["MODES", "PAIRS", "input_perturbation_target"]

PAIRS = {
    "boundary": "worst case: one contributor replaced by a contributor at the norm boundary with the opposite label",
    "random": "from your data: one random row replaced by another",
}
MODES = {
    "COR2": "σ_u from Corollary 2 (the paper's recommended formula) — as claimed by the paper",
    "ALG1": "σ_u as printed in Algorithm 1 — as claimed by the paper",
    "CORR": "σ_u with the corrected cross-term constant (docs/input_perturbation.md)",
    "LOCAL": (
        "local (ε_L, 2δ) of one contributor's record, Corollary 1 (σ_u from Corollary 2) — as claimed by the paper"
    ),
}

#: Pilot runs per side used to estimate the projection direction.
PILOT_RUNS = 2_000


def _normal_log_sf(x):
    """log P(Z > x) for a standard normal Z (what ``scipy.stats.norm.logsf`` computes)."""
    return log_ndtr(-np.asarray(x, dtype=float))


def _neighbour(X: np.ndarray, y: np.ndarray, pair: str, model: str, pair_seed: int):
    X1, y1 = X.copy(), y.copy()
    if pair == "boundary":
        norms = np.linalg.norm(X, axis=1)
        i = int(np.argmax(norms * np.abs(y)))
        x_new = X[i] / max(norms[i], 1e-300)
        y_new = -np.sign(y[i]) if y[i] != 0 else 1.0
        X1[i], y1[i] = x_new, y_new
        text = (
            f"row {i} (‖x‖ = {norms[i]:.3g}, y = {y[i]:.3g}) replaced by a contributor at the norm boundary: "
            f"‖x'‖ = 1, y' = {y_new:g}"
        )
    else:
        g = as_generator(keyed_seed(pair_seed, 0xA0D17))
        i, j = (int(t) for t in g.choice(X.shape[0], size=2, replace=False))
        X1[i], y1[i] = X[j], y[j]
        text = f"row {i} replaced by row {j} of the same data"
    if model == "logistic_taylor":
        y1 = np.where(y1 >= 0, 1.0, -1.0)
    return X1, y1, text


def _audit_rows(dataset: Dataset, n: int):
    """``(X, y, model, n)``: the first ``n`` training rows (fewer if the data have fewer), prepared with the
    stored audit table's protocol (min-max rows); the model follows the task."""
    model = "least_squares" if dataset.task == "regression" else "logistic_taylor"
    prep = prepare_data(dataset, model, seed=0, preprocess="minmax")
    if prep.n_train < n:
        n = prep.n_train
        if n < 50:
            raise DataValidationError(f"input perturbation needs at least 50 training rows, got {n}.")
    return prep.X_train[:n], prep.y_train[:n], model, n


def _direction(st0, st1, params, pair_seed: int) -> np.ndarray:
    """The discriminant direction of the released models on the two neighbours, from pilot runs."""
    p0, p1 = pilot_seed(pair_seed, 1).spawn(2)
    return fisher_direction(
        release_thetas(st0, params, PILOT_RUNS, seed=p0), release_thetas(st1, params, PILOT_RUNS, seed=p1)
    )


def input_perturbation_target(
    *,
    dataset: Dataset,
    epsilon: float,
    delta: float,
    mode: str = "COR2",
    pair: str = "boundary",
    n: int = 10_000,
    alpha: float = 1.0,
    eta: float = 1.0,
    pair_seed: int = 0,
) -> AuditTarget:
    """Audit target for input perturbation on ``dataset`` ([FTS17] Theorem 1): ``mode`` the sigma_u formula (or
    ``"LOCAL"``), ``n`` >= 50 contributors (the first training rows), ``pair_seed`` the seed of the random pair
    and of the pilot runs (docs/input_perturbation.md §"Audit")."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    n = check_int("n", n, lo=50)
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="right")
    X, y, model, n = _audit_rows(dataset, n)
    if mode == "LOCAL":
        return _local_target(
            X, y, model=model, epsilon=epsilon, delta=delta, pair=pair, n=n, alpha=alpha, eta=eta, pair_seed=pair_seed
        )
    X1, y1, text = _neighbour(X, y, pair, model, pair_seed)
    st0, st1 = sufficient_stats(X, y, model), sufficient_stats(X1, y1, model)
    params = params_for_model(
        model, eta=eta, n=n, d=st0.d, epsilon=epsilon, delta=delta, alpha=alpha, sigma_u_mode=mode
    )
    v = _direction(st0, st1, params, pair_seed)
    stats = (st0, st1)

    def sample(side: int, runs: int, rng: np.random.Generator):
        return release_thetas(stats[side], params, runs, seed=rng) @ v

    return AuditTarget(
        mechanism="input-perturbation",
        mode=mode,
        pair=text,
        eps_claimed=params.eps_run,
        delta=params.delta,
        sample=sample,
        statistic="the released model w projected on the discriminant direction (from pilot runs)",
        note="(αε, δ)-DP as claimed by the paper (Theorem 1)",
        max_runs=200_000,
        details={"model": model, "n": n, "d": st0.d, "sigma_b": params.sigma_b, "sigma_u": params.sigma_u}
        | {"Delta": params.Delta, "pilot_runs": PILOT_RUNS},
    )


def _local_target(
    X, y, *, model: str, epsilon: float, delta: float, pair: str, n: int, alpha: float, eta: float, pair_seed: int
) -> AuditTarget:
    """Audit target of Corollary 1's local claim for one contributor's randomized record."""
    d = X.shape[1]
    params = params_for_model(model, eta=eta, n=n, d=d, epsilon=epsilon, delta=delta, alpha=alpha, sigma_u_mode="COR2")
    if pair == "boundary":
        e1 = np.zeros((1, d))
        e1[0, 0] = 1.0
        recs = ((e1, np.ones(1)), (-e1, np.ones(1)))
        text = "contributor (x = e₁, y = 1) replaced by (x' = −e₁, y' = 1): q and p both move by the domain's diameter"
    else:
        g = as_generator(keyed_seed(pair_seed, 0x10CA1))
        i, j = (int(t) for t in g.choice(X.shape[0], size=2, replace=False))
        recs = ((X[i : i + 1], y[i : i + 1]), (X[j : j + 1], y[j : j + 1]))
        text = f"contributor row {i} replaced by row {j} of the same data"
    qp = [quadratic_features(xr, yr, model)[:2] for xr, yr in recs]
    su, sb = params.per_record_std_u, params.per_record_std_b
    means = [np.concatenate([q[0] / su, p[0] / sb]) for q, p in qp]
    diff = means[1] - means[0]
    mu = float(np.linalg.norm(diff))
    if mu == 0.0:
        raise DataValidationError("the two records of the pair are identical; choose another pair seed.")
    direction = diff / mu
    lp = local_privacy(params)

    def sample(side: int, runs: int, rng: np.random.Generator):
        q, p = qp[side]
        qt, pt = contributor_randomize(np.repeat(q, runs, axis=0), np.repeat(p, runs, axis=0), params, rng)
        w = np.concatenate([qt / su, pt / sb], axis=1)
        return (w - means[0][None]) @ direction

    return AuditTarget(
        mechanism="input-perturbation",
        mode="LOCAL",
        pair=text,
        eps_claimed=lp.epsilon_nominal,
        delta=lp.delta_local,
        sample=sample,
        statistic="one contributor's randomized record (q̃, p̃), whitened and projected on the direction from D's record "
        "to D''s: N(0, 1) on D",
        event="(q̃, p̃) far on D''s side: the whitened projection above a threshold, with its exact Gaussian tail on D",
        note="(ε_L, 2δ)-locally private as claimed by the paper (Corollary 1, nominal ε_L)",
        max_runs=200_000,
        null_log_sf=_normal_log_sf,
        details={"model": model, "n": n, "d": d, "sigma_b": params.sigma_b, "sigma_u": params.sigma_u}
        | {"per_record_std_u": su, "per_record_std_b": sb, "gdp_mu_of_pair": mu}
        | {"epsilon_local_nominal": lp.epsilon_nominal, "epsilon_local_exact_paper_sensitivities": lp.epsilon_exact}
        | {"corollary1_valid": lp.corollary1_valid},
    )


# -- the plug-in's audit entry (dp_core.audit.MECHANISMS collects it) ---------------------------
AUDIT = AuditableMechanism(
    name="input-perturbation",
    title="Input perturbation",
    modes=MODES,
    pairs=PAIRS,
    build=input_perturbation_target,
    options=(
        Option("n", int, 10_000, "number of contributors (first n training rows)", lo=50, hi=1_000_000),
        Option("alpha", float, 1.0, "local/central knob α in (0, 1]; the claim is (αε, δ)-DP", lo=0.01, hi=1.0),
    ),
    needs_data=tuple(PAIRS),
    default_runs=20_000,
    max_runs=200_000,
    page="pages/input_perturbation.py",
    summary="Every contributor adds Gaussian noise to its own record; the server fits a ridge-regularised model.",
)
