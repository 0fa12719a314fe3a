"""The toy's audit: the released mean on two neighbouring label sets whose clipped means differ by 2 clip/n."""

from dp_core.audit.core import AuditTarget
from dp_core.audit.registry import AuditableMechanism


def _build(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0):
    def sample(side, runs, rng):  # n = 1, clip = 1/2: the means are 0 and 1, the scale is 1/ε
        return side + rng.laplace(0.0, 1.0 / epsilon, size=runs)

    return AuditTarget(mechanism="toy-mean", mode=mode, pair=pair, eps_claimed=epsilon, delta=0.0, sample=sample)


AUDIT = AuditableMechanism(
    name="toy-mean",
    title="Toy mean",
    modes={"standard": "Laplace"},
    pairs={"boundary": "worst case"},
    build=_build,
    uses_delta=False,
)
