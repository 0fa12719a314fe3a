"""Label RR's audit: one example whose label is class 0 in ``D`` and class 1 in ``D'`` (replace one label),
released by RR-with-prior under the uniform prior on ``K = 2`` classes; the statistic is the released label."""

import numpy as np

from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism


def _build(*, mode, pair, epsilon, delta=0.0, dataset=None, pair_seed=0, **_):
    from . import rr_with_prior

    def sample(side, runs, rng):
        y = np.full(runs, int(side))
        return rr_with_prior(y, np.full((runs, 2), 0.5), float(epsilon), rng).astype(float)

    return AuditTarget(
        mechanism="label-rr",
        mode=mode,
        pair=pair,
        eps_claimed=float(epsilon),
        delta=0.0,
        sample=sample,
        statistic="the released label",
        note="pure ε-label-DP, [Ghazi et al. 2021, Lemma 1]",
    )


AUDIT = AuditableMechanism(
    name="label-rr",
    title="Label randomized response",
    modes={"with-prior": "RR-with-prior on two classes, uniform prior"},
    pairs={"boundary": "one label changed from class 0 to class 1"},
    build=_build,
    uses_delta=False,
    summary="The released label of one example whose label differs between D and D'.",
)
