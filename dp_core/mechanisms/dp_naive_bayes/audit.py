"""The audit of DP naive Bayes: the privacy-loss statistic of the full release on a worst-case pair.

Pair (d = 1, two classes, one record): ``D`` holds ``z = +1/2`` in class 0, ``D'`` holds ``z = -1/2`` in
class 1, so counts, sums and squared sums differ by exactly their L1 sensitivities ``(2, 1, 1/2)``. The
released vectors come from :func:`noisy_statistics` (the code the estimator runs); the statistic is the
log-likelihood ratio ``Σ_i (|o_i - b_i| - |o_i - a_i|) / scale_i`` of the output, whose largest value is
``ε_N + ε_S + ε_Q = ε`` (sequential composition, package docstring).
"""

import numpy as np

from dp_core.audit.core import AuditTarget
from dp_core.audit.registry import AuditableMechanism

from . import NaiveBayesConfig, class_statistics, noisy_statistics

_SIDES = ((np.array([[0.5]]), np.array([0])), (np.array([[-0.5]]), np.array([1])))


def _flat(stats) -> np.ndarray:
    return np.concatenate([np.reshape(s, (s.shape[0], -1)) for s in stats], axis=1)


def _build(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, **_):
    cfg = NaiveBayesConfig()
    exact = [_flat(tuple(s[None] for s in class_statistics(Z, y, 2))) for Z, y in _SIDES]
    scale = np.repeat(cfg.scales(epsilon, 1), (2, 2, 2))

    def sample(side, runs, rng):
        Z, y = _SIDES[side]
        out = _flat(noisy_statistics(class_statistics(Z, y, 2), epsilon, cfg, rng, size=runs))
        return np.sum((np.abs(out - exact[1]) - np.abs(out - exact[0])) / scale, axis=1)

    return AuditTarget(
        mechanism="dp-naive-bayes",
        mode=mode,
        pair=pair,
        eps_claimed=epsilon,
        delta=0.0,
        sample=sample,
        statistic="log-likelihood ratio of the released counts, sums and squared sums",
    )


AUDIT = AuditableMechanism(
    name="dp-naive-bayes",
    title="DP naive Bayes (Vaidya et al. 2013)",
    modes={"standard": "Laplace on counts, sums and squared sums"},
    pairs={"boundary": "one record moved between classes and across its feature range"},
    build=_build,
    uses_delta=False,
)
