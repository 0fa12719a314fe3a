"""Audit adapter for the large-margin multiclass Gaussian classifier (Pathak & Raj).

The mechanism is run through its public vectorized entry point
:func:`dp_core.mechanisms.large_margin_gaussian.release_many`.

Statistic
---------
Shared-noise modes (P, P+): the paper's noise is one matrix shared by every class, so it can only
move the class-average; the class differences, which decide every prediction, are released
exactly as in a non-private fit whenever the PSD constraint does not bind (always with PSD off).
The statistic measures which dataset's non-private class differences the release reproduces:

.. math::

    s = \\ln(\\lVert \\Delta(\\Phi^p) - \\Delta(\\Phi^*_{D'}) \\rVert + \\tau)
        - \\ln(\\lVert \\Delta(\\Phi^p) - \\Delta(\\Phi^*_{D}) \\rVert + \\tau),

with :math:`\\Delta(\\Phi) = (\\Phi_c - \\Phi_0)_{c \\ge 1}` and :math:`\\tau = 10^{-9}`: it is
large and positive when the release reproduces ``D``'s class differences and large and negative
when it reproduces ``D'``'s. The references are the non-private fits of the same objective (for
P+ with PSD on, of the objective without the constraint, the leak set of spec §3.3). A draw with
no release (P: unbounded objective) gets the constant :data:`NO_RELEASE` on both sides.

Corrected mode (R): the direction statistic of the engine, the class differences projected on the
difference of the two datasets' non-private class differences (the shared-noise direction).

Neighbouring pairs
------------------
``boundary`` (the hard pair): the first training point is replaced by the opposite point on the
unit sphere, ``x' = -x_0/||x_0||``, with the next class label, which moves the non-private class
differences as much as one record can. ``random``: row ``i`` replaced by row ``j`` of the data.

References
----------
.. [PR10] M. A. Pathak and B. Raj, *Large Margin Multiclass Gaussian Classification with
   Differential Privacy*, 2010, eq. 8 and Theorem 5.1; specification sections 3.1-3.4.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_int
from ..data import Dataset
from ..mechanisms.large_margin_gaussian import (
    LargeMarginGaussian,
    NOT_PRIVATE_REASONS,
    fit_nonprivate,
    leak_direction,
    make_task,
    release_many,
)
from ..rng import as_generator
from ._stats import NO_RELEASE, pilot_seed
from .core import AuditTarget

__all__ = ["large_margin_target", "PAIRS", "MODES"]

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

_TAU = 1e-9


def _class_diffs(phi: np.ndarray) -> np.ndarray:
    return phi[..., 1:, :, :] - phi[..., :1, :, :]


def large_margin_target(*, dataset: Dataset, epsilon: float, mode: str = "repaired-psd-off", pair: str = "boundary",
                        n: int = 300, lam: float = 0.01, h: float = 0.5, pair_seed: int = 0) -> AuditTarget:
    """Audit target for the large-margin Gaussian classifier on a classification ``dataset``.

    Parameters
    ----------
    dataset : Dataset
        A classification dataset (prepared by the engine's ``make_task``: public projection to
        2 dimensions, clipped to the unit ball).
    epsilon : float
        The slider's epsilon in (0, inf); the claim audited is the mode's ``eps_claimed`` (P claims
        ``ε + k``).
    mode : str
        A key of :data:`MODES`.
    pair : {"boundary", "random"}
    n : int
        Training rows used (at least 20).
    lam, h : float
        Trace regulariser and Huber width.
    pair_seed : int

    References
    ----------
    [PR10] eq. 8, Theorem 5.1; specification §3.3 (why P and P+ are not private).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dp_core Dataset, got {type(dataset).__name__}.")
    check_choice("mode", mode, MODES)
    check_choice("pair", pair, PAIRS)
    n = check_int("n", n, lo=20)
    task = make_task(dataset, n_train=n, seed=0)
    X, y, C = task.X_train, task.y_train, task.n_classes
    X1, y1 = X.copy(), y.copy()
    if pair == "boundary":
        nrm = float(np.linalg.norm(X[0]))
        X1[0] = -X[0] / nrm if nrm > 0 else np.eye(X.shape[1])[0]
        y1[0] = (y[0] + 1) % C
        text = f"row 0 (class {y[0]}) replaced by the opposite point on the unit sphere with class {y1[0]}"
    else:
        g = as_generator(np.random.SeedSequence([int(pair_seed), 0x1A46E]))
        idx = np.flatnonzero(y != y[0])
        i = int(g.integers(X.shape[0]))
        others = np.flatnonzero(y != y[i])
        j = int(others[g.integers(others.size)]) if others.size else int(idx[0])
        X1[i], y1[i] = X[j], y[j]
        text = f"row {i} (class {y[i]}) replaced by row {j} (class {y[j]})"
    base_mode = "repaired" if mode == "repaired-psd-off" else mode
    cfg = LargeMarginGaussian(epsilon=epsilon, mode=base_mode, lam=lam, h=h, psd=mode != "repaired-psd-off")
    ps = pilot_seed(pair_seed, 2)
    b0, g0 = release_many(X, y, cfg, n_runs=1, seed=ps, n_classes=C, diagnostics=True)
    _, g1 = release_many(X1, y1, cfg, n_runs=1, seed=ps, n_classes=C, diagnostics=True)
    acc = b0.accounting
    data = (g0.data, g1.data)
    stars = (g0.phi_star, g1.phi_star)
    shared_direction = leak_direction(stars[0], stars[1])
    if mode == "corrected":
        direction = leak_direction(g0.phi_star, g1.phi_star)

        def stat(phi):
            return np.sum(_class_diffs(phi) * direction[None], axis=(1, 2, 3))

        statistic = "class differences projected on the shared-noise direction Δ(Φ*_D) − Δ(Φ*_D')"
    else:
        if mode == "repaired":  # leak set: the fit without the PSD constraint (spec §3.3)
            refs = [fit_nonprivate(d, lam=lam, mu=acc.mu_eff, h=h, psd=False) for d in data]
        else:
            refs = list(stars)
        ref0, ref1 = (_class_diffs(r) for r in refs)

        def stat(phi):
            diffs = _class_diffs(phi)
            d0 = np.sqrt(np.sum((diffs - ref0[None]) ** 2, axis=(1, 2, 3)))
            d1 = np.sqrt(np.sum((diffs - ref1[None]) ** 2, axis=(1, 2, 3)))
            return np.log(d1 + _TAU) - np.log(d0 + _TAU)

        statistic = "ln‖Δ(Φ) − Δ(Φ*_D')‖ − ln‖Δ(Φ) − Δ(Φ*_D)‖: which dataset's class differences the release reproduces"

    def sample(side: int, runs: int, rng: np.random.Generator):
        batch = release_many(None, None, cfg, n_runs=runs, seed=rng, phi_star=stars[side], data=data[side],
                             direction=shared_direction)
        out = np.full(runs, NO_RELEASE)
        ok = ~batch.unbounded
        if ok.any():
            out[ok] = stat(batch.phi[ok])
        return out

    if base_mode == "corrected":
        note = "corrected: " + acc.status
    else:
        reason = NOT_PRIVATE_REASONS.get(base_mode, "").rstrip(".")
        note = "ε' = ε + k as claimed by the paper (Theorem 5.1); " + reason[:1].lower() + reason[1:]
    return AuditTarget(
        mechanism="large-margin-gaussian", mode=mode, pair=text, eps_claimed=acc.eps_claimed, delta=0.0,
        sample=sample, statistic=statistic, note=note, max_runs=20_000,
        details={"n": int(X.shape[0]), "n_classes": C, "beta": acc.beta, "mu_eff": acc.mu_eff, "k": acc.k,
                 "eps_claimed": acc.eps_claimed, "private_as_claimed": acc.private},
    )
