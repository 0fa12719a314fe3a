"""The audit of AdaSSP: the log-likelihood ratio of the three released statistics on a neighbouring pair.

Pair (d = 2, ``B_X = B_Y = 1``): ``D = {((1, 0), 1), ((0, 1), 1)}``, ``D'`` replaces the second record by
``((1, 0), -1)``. ``λ_min`` moves from 1 to 0 and the upper triangle of ``XᵀX`` by ``√2`` (both their
sensitivities), ``Xᵀy`` by ``√2`` (of ``2``). The
releases come from :func:`release` (the code the estimator runs); the statistic is the Gaussian
log-likelihood ratio of the noisy ``λ̃_min`` (before its clamp at 0), upper triangle and ``Xᵀŷ``.
"""

import math

import numpy as np

from dp_core.audit.core import AuditTarget
from dp_core.audit.registry import AuditableMechanism

from . import release, sigmas, sufficient_statistics

_SIDES = (
    (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0])),
    (np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1.0, -1.0])),
)
_IU = np.triu_indices(2)


def _vector(lam, XtX, Xty, shift: float) -> np.ndarray:
    lam = np.atleast_1d(lam) + shift  # undo the public shift: λ_min + σ₁ Z
    return np.column_stack([lam, XtX[..., _IU[0], _IU[1]], Xty])


def _raw_release(stats, sig, delta, rng, size):
    """:func:`release` with ``λ_min`` moved far above 0, so the clamp at 0 never hides its noise."""
    XtX, Xty, lam_min = stats
    lam, A, b = release((XtX, Xty, lam_min + 1e6), sig, delta, rng, size)
    return lam - 1e6, A, b


def _build(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, **_):
    sig = sigmas(epsilon, delta)
    shift = sig[0] * math.sqrt(math.log(6 / delta))
    scale = np.array([sig[0], sig[1], sig[1], sig[1], sig[2], sig[2]])
    means = [_vector(s[2], s[0][None], s[1][None], 0.0)[0] for s in (sufficient_statistics(*p) for p in _SIDES)]

    def sample(side, runs, rng):
        out = _vector(*_raw_release(sufficient_statistics(*_SIDES[side]), sig, delta, rng, runs), shift)
        return np.sum(((out - means[1]) ** 2 - (out - means[0]) ** 2) / (2 * scale**2), axis=1)

    return AuditTarget(
        mechanism="adassp",
        mode=mode,
        pair=pair,
        eps_claimed=epsilon,
        delta=delta,
        sample=sample,
        statistic="log-likelihood ratio of the released λ_min, XᵀX and Xᵀy",
    )


AUDIT = AuditableMechanism(
    name="adassp",
    title="AdaSSP linear regression (Wang 2018)",
    modes={"standard": "three Gaussian releases at (ε/3, δ/3)"},
    pairs={"boundary": "one record moved across the unit ball, its label from 1 to -1"},
    build=_build,
)
