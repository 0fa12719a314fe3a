"""The two textbook mechanisms: Laplace (pure ε-DP) and Gaussian (ε, δ)-DP on a scalar query.

They share one folder because they share everything but the noise: the calibration formulas of
:mod:`dp_core.calibration`, one audit module (:mod:`.audit`) and one command module (:mod:`.cli`).
Dwork and Roth, Theorems 3.6 and A.1; Balle and Wang (ICML 2018), Theorem 8.
"""

from ...plugin import LOWER_IS_PRIVATE, Mechanism, ParamSpec

_SENSITIVITY = ParamSpec("sensitivity", float, 1.0, 1e-6, 1e6, private=LOWER_IS_PRIVATE, label="sensitivity Δ")

LAPLACE = Mechanism(
    name="laplace",
    title="Laplace mechanism",
    summary="Laplace noise of scale Δ/ε on a scalar query.",
    params=(_SENSITIVITY,),
    hooks={"cli": f"{__name__}.cli", "audit": f"{__name__}.audit:LAPLACE_AUDIT", "catalog": f"{__name__}.catalog"},
    order=0,
)
GAUSSIAN = Mechanism(
    name="gaussian",
    title="Gaussian mechanism",
    summary="Gaussian noise on a scalar query, calibrated for (ε, δ).",
    params=(_SENSITIVITY,),
    hooks={"cli": f"{__name__}.cli", "audit": f"{__name__}.audit:GAUSSIAN_AUDIT", "catalog": f"{__name__}.catalog"},
    order=1,
)

PLUGINS = (LAPLACE, GAUSSIAN)

__all__ = ["GAUSSIAN", "LAPLACE", "PLUGINS"]
