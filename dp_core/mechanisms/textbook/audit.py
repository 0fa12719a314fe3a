"""Audit targets for the two textbook mechanisms: Laplace and Gaussian noise on a scalar query.

The "boundary" pair moves the query by its full sensitivity (the worst case; threshold tests on the
released value are most powerful); the "random" pair replaces one row of the user's data in a clipped
mean. Details and references ([DR14], [BW18]): ``docs/audit.md`` §"Textbook mechanisms' audit targets".
"""

from __future__ import annotations

import numpy as np

from ... import calibration as cal
from ..._validation import check_choice, check_delta, check_epsilon, check_positive
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism, Option
from ...rng import as_generator

__all__ = ["PAIRS_SIMPLE", "gaussian_target", "laplace_target"]

#: Neighbouring pairs offered for the textbook mechanisms.
PAIRS_SIMPLE = ("boundary", "random")
#: The Gaussian mechanism's σ calibrations and their references.
_CALIBRATIONS = {
    "analytic": (cal.gaussian_sigma_analytic, "[BW18] Thm 8"),
    "classic": (cal.gaussian_sigma_classic, "[DR14] Thm A.1"),
}


def _query_pair(pair: str, sensitivity: float, y, clip: float, seed) -> tuple[float, float, str, float]:
    """(f(D), f(D'), description, sensitivity used), the arguments validated."""
    sensitivity = check_positive("sensitivity", sensitivity)
    check_choice("pair", pair, PAIRS_SIMPLE)
    clip = check_positive("clip", clip)
    if pair == "boundary":
        return 0.0, sensitivity, f"f(D) = 0, f(D') = {sensitivity:g} (a change of the full sensitivity)", sensitivity
    if y is None:
        raise ValueError("pair 'random' needs the data's target column y.")
    v = np.clip(np.asarray(y, dtype=np.float64).ravel(), -clip, clip)
    n = v.size
    if n < 2:
        raise ValueError(f"pair 'random' needs at least 2 rows, got {n}.")
    g = as_generator(seed)
    i, j = (int(t) for t in g.choice(n, size=2, replace=False))
    f0 = float(v.mean())
    f1 = f0 + (v[j] - v[i]) / n
    sens = 2.0 * clip / n
    text = f"mean of y clipped to [-{clip:g}, {clip:g}]; D' replaces row {i} by row {j} "
    return f0, f1, text + f"(change {abs(f1 - f0):.3g} of a possible {sens:.3g})", sens


def _target(name: str, mode: str, pair: str, sample, claim: dict, details: dict) -> AuditTarget:
    """The target of a scalar release ``f(D)`` + noise of mechanism ``name`` (Laplace or Gaussian)."""
    released = {"sample": sample, "statistic": f"the released value f(D) + {name.capitalize()} noise"}
    return AuditTarget(mechanism=name, mode=mode, pair=pair, details=details, **released, **claim)


def laplace_target(
    *, epsilon: float, sensitivity: float = 1.0, pair: str = "boundary", y=None, clip: float = 1.0, pair_seed=0
) -> AuditTarget:
    """Audit target: Laplace noise of scale ``sensitivity / epsilon`` on a scalar query ([DR14] Thm 3.6);
    ``y``, ``clip`` and ``pair_seed`` make the ``"random"`` pair (docs/audit.md)."""
    eps = check_epsilon(epsilon, allow_inf=False)
    f0, f1, text, sens = _query_pair(pair, sensitivity, y, clip, pair_seed)
    b = cal.laplace_scale(epsilon=eps, sensitivity=sens)

    def sample(side: int, runs: int, rng: np.random.Generator):
        return (f1 if side else f0) + rng.laplace(0.0, b, size=runs)

    claim = {"eps_claimed": eps, "delta": 0.0, "note": "pure ε-DP (δ = 0), [DR14] Thm 3.6"}
    return _target("laplace", "scale = sensitivity / ε", text, sample, claim, {"scale": b, "sensitivity": sens})


def gaussian_target(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    calibration: str = "analytic",
    pair: str = "boundary",
    y=None,
    clip: float = 1.0,
    pair_seed=0,
) -> AuditTarget:
    """Audit target: Gaussian noise on a scalar query, sigma from the ``"classic"`` ([DR14] Thm A.1, epsilon <= 1)
    or ``"analytic"`` ([BW18] Thm 8) calibration; other arguments as in :func:`laplace_target`."""
    eps = check_epsilon(epsilon, allow_inf=False)
    d = check_delta(delta)
    calibrate, ref = _CALIBRATIONS[check_choice("calibration", calibration, tuple(_CALIBRATIONS))]
    f0, f1, text, sens = _query_pair(pair, sensitivity, y, clip, pair_seed)
    sigma = calibrate(epsilon=eps, delta=d, sensitivity=sens)

    def sample(side: int, runs: int, rng: np.random.Generator):
        return (f1 if side else f0) + sigma * rng.standard_normal(runs)

    claim = {"eps_claimed": eps, "delta": d, "note": f"(ε, δ)-DP with σ from the {calibration} calibration, {ref}"}
    return _target("gaussian", f"{calibration} calibration", text, sample, claim, {"sigma": sigma, "sensitivity": sens})


# -- the plug-ins' audit entries (dp_core.audit.MECHANISMS collects them) -------------------------
def _build_laplace(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, sensitivity=1.0, clip=1.0):
    y = None if dataset is None else dataset.y
    return laplace_target(epsilon=epsilon, sensitivity=sensitivity, pair=pair, y=y, clip=clip, pair_seed=pair_seed)


def _build_gaussian(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, sensitivity=1.0, clip=1.0):
    data = {"pair": pair, "y": None if dataset is None else dataset.y, "clip": clip, "pair_seed": pair_seed}
    return gaussian_target(epsilon=epsilon, delta=delta, sensitivity=sensitivity, calibration=mode, **data)


_SIMPLE_PAIRS = {
    "boundary": "worst case: the query moves by its full sensitivity",
    "random": "from your data: one random row replaced by another (mean of y, clipped)",
}
_SIMPLE_OPTIONS = (
    Option("sensitivity", float, 1.0, "sensitivity of the query (boundary pair)", lo=1e-6, hi=1e6),
    Option("clip", float, 1.0, "clipping bound of the mean query (random pair)", lo=1e-6, hi=1e6),
)


LAPLACE_AUDIT = AuditableMechanism(
    name="laplace",
    title="Laplace mechanism",
    modes={"standard": "scale = sensitivity / ε (pure ε-DP)"},
    pairs=_SIMPLE_PAIRS,
    build=_build_laplace,
    options=_SIMPLE_OPTIONS,
    uses_delta=False,
    needs_data=("random",),
    summary="Laplace noise of scale Δ/ε on a scalar query.",
)
GAUSSIAN_AUDIT = AuditableMechanism(
    name="gaussian",
    title="Gaussian mechanism",
    modes={
        "analytic": "σ from the analytic calibration (Balle–Wang)",
        "classic": "σ = Δ·sqrt(2 ln(1.25/δ))/ε (ε ≤ 1)",
    },
    pairs=_SIMPLE_PAIRS,
    build=_build_gaussian,
    options=_SIMPLE_OPTIONS,
    needs_data=("random",),
    summary="Gaussian noise on a scalar query, calibrated for (ε, δ).",
)
