"""DP-GD's audit: the real algorithm (least squares, one feature) on two one-row datasets whose rows' clipped
gradients are ``+C`` and ``−C`` at every step (labels ``∓10⁶``, ``x = 1``): the worst case of replacing one
record, the clipped sums differing by ``2 C``. The statistic is the released final iterate ``θ_T``."""

import numpy as np

from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism

STEPS = 10


def _build(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, **_):
    from . import DPGDConfig, accounted_epsilon, noise_multiplier, run_gd

    cfg = DPGDConfig()
    z = noise_multiplier(float(epsilon), float(delta), STEPS)
    X = np.ones((1, 1))

    def sample(side, runs, rng):
        y = np.array([1e6 if side else -1e6])
        return run_gd("regression", X, y, cfg, STEPS, z, rng, runs=runs)[:, 0]

    eps_acc = accounted_epsilon(z, STEPS, delta)
    return AuditTarget(
        mechanism="dp-gd",
        mode=mode,
        pair=pair,
        eps_claimed=float(epsilon),
        delta=float(delta),
        sample=sample,
        statistic="the released final iterate θ_T",
        note=f"T = {STEPS} steps, noise multiplier z = {z:.4g} (RDP ε = {eps_acc:.4g}), C = {cfg.clip:g}",
        details={"noise_multiplier": z, "steps": STEPS},
    )


AUDIT = AuditableMechanism(
    name="dp-gd",
    title="Noisy gradient descent",
    modes={"standard": "clipped gradient sum + Gaussian noise, T steps accounted by RDP"},
    pairs={"boundary": "one row whose clipped gradient flips from +C to −C (worst case)"},
    build=_build,
    summary="The final iterate of DP-GD on two one-row datasets at the clipping boundary.",
)
