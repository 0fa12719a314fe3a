"""Audit adapter for the large-margin multiclass Gaussian classifier (Pathak & Raj, eq. 8 and Theorem 5.1).

Shared-noise modes (P, P+): the KKT-consistency statistic ``ln(r_D'(Φ) + τ) − ln(r_D(Φ) + τ)``; R: the direction
statistic. Pairs ``boundary`` and ``random``. docs/large_margin_gaussian.md §"audit.py: the audit statistic and pairs";
§"Modes and why P and P+ are not private"."""

from __future__ import annotations

import numpy as np

from ..._validation import check_choice, check_int
from ...audit._stats import NO_RELEASE, pilot_seed
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism, Option
from ...data import Dataset
from ...rng import as_generator, keyed_seed
from . import NOT_PRIVATE_REASONS, LargeMarginGaussian, direction_statistic, leak_direction, make_task, release_many
from .model import gradient

__all__ = ["MODES", "PAIRS", "kkt_residual", "large_margin_target"]

MODES = {
    "repaired-psd-off": "P+ without the PSD constraint: the paper's shared noise, exact leak (not DP as printed)",
    "repaired": "P+ (paper repaired to run, PSD on): shared noise (not DP as printed)",
    "printed": "P (paper as printed, μ = 0, PSD on): shared noise, unbounded draws release nothing",
    "corrected": "R (corrected): per-class noise, ε-DP",
}
PAIRS = {
    "boundary": "worst case: one point replaced by the opposite point on the unit sphere with another label",
    "random": "from your data: one random row replaced by another",
}

_TAU = 1e-12


def _duplication(p: int) -> np.ndarray:
    """``D`` with ``vec(A) = D vech(A)`` for symmetric ``p x p`` ``A`` (row-major vec)."""
    iu = np.triu_indices(p)
    D = np.zeros((p * p, iu[0].size))
    for k, (i, j) in enumerate(zip(*iu)):
        D[i * p + j, k] = 1.0
        D[j * p + i, k] = 1.0
    return D


def kkt_residual(phi: np.ndarray, data, *, lam: float, mu: float, h: float) -> np.ndarray:
    """Residual ``min_A sqrt(sum_c ||(G_c + A) Phi_c||_F^2)`` of the shared-noise KKT conditions of ``data``'s objective
    (``lam``, ``mu``, ``h``), per release ``phi`` (R, C, p, p): shape (R,).

    Pathak & Raj eq. 8; docs/large_margin_gaussian.md §"audit.py: the audit statistic and pairs"."""
    phi = np.asarray(phi, dtype=np.float64)
    R, C, p, _ = phi.shape
    G = gradient(phi, data.Z, data.y, lam, mu, h, V=data.V)
    # vec(A Phi_c) = (I kron Phi_c^T) vec(A) in row-major order, and vec(A) = D vech(A)
    K = np.einsum("ij,rckl->rcikjl", np.eye(p), np.swapaxes(phi, -1, -2)).reshape(R, C * p * p, p * p)
    M = K @ _duplication(p)
    rhs = -np.einsum("rcab,rcbd->rcad", G, phi).reshape(R, C * p * p)
    MtM = np.einsum("rki,rkj->rij", M, M)
    ridge = 1e-13 * (np.trace(MtM, axis1=1, axis2=2) / MtM.shape[-1] + 1e-300)
    MtM = MtM + ridge[:, None, None] * np.eye(MtM.shape[-1])
    a = np.linalg.solve(MtM, np.einsum("rki,rk->ri", M, rhs)[..., None])[..., 0]
    res = np.einsum("rki,ri->rk", M, a) - rhs
    return np.sqrt(np.sum(res * res, axis=1))


def _neighbour(X, y, C: int, pair: str, pair_seed: int) -> tuple:
    """``(X', y', description)``: the neighbouring dataset of the pair ``pair``."""
    X1, y1 = X.copy(), y.copy()
    if pair == "boundary":
        nrm = float(np.linalg.norm(X[0]))
        X1[0] = -X[0] / nrm if nrm > 0 else np.eye(X.shape[1])[0]
        y1[0] = (y[0] + 1) % C
        text = f"row 0 (class {y[0]}) replaced by the opposite point on the unit sphere with class {y1[0]}"
    else:
        g = as_generator(keyed_seed(pair_seed, 0x1A46E))
        idx = np.flatnonzero(y != y[0])
        i = int(g.integers(X.shape[0]))
        others = np.flatnonzero(y != y[i])
        j = int(others[g.integers(others.size)]) if others.size else int(idx[0])
        X1[i], y1[i] = X[j], y[j]
        text = f"row {i} (class {y[i]}) replaced by row {j} (class {y[j]})"
    return X1, y1, text


def _statistic(mode: str, base_mode: str, mu: float, data, shared_direction, *, lam: float, h: float) -> tuple:
    """``(stat, statistic, event)``: the test statistic of a release and its descriptions."""
    if mode == "corrected":

        def stat(phi):
            return direction_statistic(phi, shared_direction)

        statistic = "class differences projected on the shared-noise direction Δ(Φ*_D) − Δ(Φ*_D')"
        event = "threshold on the class differences projected on Δ(Φ*_D) − Δ(Φ*_D')"
    else:

        def stat(phi):
            r0 = kkt_residual(phi, data[0], lam=lam, mu=mu, h=h)
            r1 = kkt_residual(phi, data[1], lam=lam, mu=mu, h=h)
            return np.log(r1 + _TAU) - np.log(r0 + _TAU)

        statistic = (
            "ln r_D'(Φ) − ln r_D(Φ): r_D is the residual of the optimality (KKT) conditions of D's objective "
            "with one noise matrix shared by all classes"
        )
        event = (
            "KKT consistency: the release satisfies the optimality conditions of D's (or D''s) objective with a "
            "single noise matrix shared by all classes"
        )
        if base_mode == "printed":
            event += " (draws whose literal objective is unbounded below release nothing, on both sides alike)"
    return stat, statistic, event


def large_margin_target(
    *,
    dataset: Dataset,
    epsilon: float,
    mode: str = "repaired-psd-off",
    pair: str = "boundary",
    n: int = 300,
    lam: float = 0.01,
    h: float = 0.5,
    pair_seed: int = 0,
    delta: float = 0.0,
) -> AuditTarget:
    """Audit target for the large-margin Gaussian classifier on a classification ``dataset`` (``mode`` a key of
    :data:`MODES`, ``n`` >= 20 training rows; ``delta`` unused: every mode claims pure ε). Pathak & Raj eq. 8,
    Theorem 5.1; docs/large_margin_gaussian.md §"audit.py: the audit statistic and pairs"."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    n = check_int("n", n, lo=20)
    task = make_task(dataset, n_train=n, seed=0)
    X, y, C = task.X_train, task.y_train, task.n_classes
    X1, y1, text = _neighbour(X, y, C, pair, pair_seed)
    base_mode = "repaired" if mode == "repaired-psd-off" else mode
    cfg = LargeMarginGaussian(epsilon=epsilon, mode=base_mode, lam=lam, h=h, psd=mode != "repaired-psd-off")
    ps = pilot_seed(pair_seed, 2)
    b0, g0 = release_many(X, y, cfg, n_runs=1, seed=ps, n_classes=C, diagnostics=True)
    _, g1 = release_many(X1, y1, cfg, n_runs=1, seed=ps, n_classes=C, diagnostics=True)
    acc = b0.accounting
    data = (g0.data, g1.data)
    stars = (g0.phi_star, g1.phi_star)
    shared_direction = leak_direction(stars[0], stars[1])
    stat, statistic, event = _statistic(mode, base_mode, float(acc.mu_eff), data, shared_direction, lam=lam, h=h)

    def sample(side: int, runs: int, rng: np.random.Generator):
        batch = release_many(
            None, None, cfg, n_runs=runs, seed=rng, phi_star=stars[side], data=data[side], direction=shared_direction
        )
        out = np.full(runs, NO_RELEASE)
        ok = ~batch.unbounded
        if ok.any():
            out[ok] = stat(batch.phi[ok])
        return out

    details = {"n": int(X.shape[0]), "n_classes": C, "beta": acc.beta, "mu_eff": acc.mu_eff, "k": acc.k}
    details.update(eps_claimed=acc.eps_claimed, private_as_claimed=acc.private)
    return AuditTarget(
        mechanism="large-margin-gaussian",
        mode=mode,
        pair=text,
        eps_claimed=acc.eps_claimed,
        delta=0.0,
        sample=sample,
        statistic=statistic,
        note=_note(base_mode, acc),
        max_runs=20_000,
        event=event,
        details=details,
    )


def _note(base_mode: str, acc) -> str:
    """The audit row's note: the status of R, or the paper's claim and why P/P+ break it."""
    if base_mode == "corrected":
        return "corrected: " + acc.status
    reason = NOT_PRIVATE_REASONS.get(base_mode, "").rstrip(".")
    return "ε' = ε + k as claimed by the paper (Theorem 5.1); " + reason[:1].lower() + reason[1:]


# -- the plug-in's audit entry (dp_core.audit.MECHANISMS collects it) ---------------------------
AUDIT = AuditableMechanism(
    name="large-margin-gaussian",
    title="Large-margin Gaussian classifier",
    modes=MODES,
    pairs=PAIRS,
    build=large_margin_target,
    options=(
        Option("n", int, 300, "training rows used", lo=20, hi=5_000),
        Option("lam", float, 0.01, "trace regulariser λ", lo=1e-4, hi=10.0),
        Option("h", float, 0.5, "Huber width h", lo=0.01, hi=5.0),
    ),
    uses_delta=False,
    needs_data=tuple(PAIRS),
    default_runs=1_000,
    max_runs=20_000,
    page="pages/large_margin_gaussian.py",
    default_dataset="gaussian_classes",
    summary="Objective perturbation of a multiclass large-margin Gaussian classifier.",
)
