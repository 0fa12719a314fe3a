"""The user's choices for the large-margin Gaussian classifier: one declaration each (page, links, CLI).

Each :func:`~dp_core.plugin.param` field below is the parameter's only declaration: its link key is ``lm_<field>``, its
command-line flag ``--<field>`` and its widget range come from it."""

from __future__ import annotations

from dataclasses import dataclass

from ...plugin import param, validate_config
from .experiments import MAX_D

LAM_OPTIONS = (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
MU_SAME = "= λ"  # the Frobenius coefficient mu follows lam (the engine's mu=None)


def mu_value(text: str) -> float | None:
    """``None`` (mu = lam) for :data:`MU_SAME`, else the number ``text`` names."""
    return None if text.strip() == MU_SAME else float(text)


@dataclass(frozen=True)
class Settings:
    """The page's settings of the mechanism (and of its ``calibrate``/``simulate``/``release`` commands)."""

    mode: str = param("corrected", options=("corrected", "repaired", "printed"), label="mode")
    lam: float = param(0.01, options=LAM_OPTIONS, label="trace regulariser λ", symbol="λ")
    h: float = param(0.5, options=(0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0), label="Huber width h", symbol="h")
    n: int = param(1000, lo=100, hi=20_000, step=100, label="training points n", symbol="n")
    data: str = param(
        "gaussian_classes",
        options=("gaussian_classes", "iris", "wine", "breast_cancer", "home"),
        label="dataset",
        help="The page's demo datasets, or 'home' for the classification dataset chosen on Home.",
    )
    mu: str = param(MU_SAME, options=(MU_SAME, *(str(v) for v in LAM_OPTIONS)), label="strong convexity μ", symbol="μ")
    k: int = param(2, lo=1, hi=MAX_D, step=1, label="projection dimension k", symbol="k")
    psd: str = param("on", options=("on", "off"), label="PSD constraint")
    sem: str = param("target", options=("target", "paper"), label="ε semantics")
    jac: str = param("conservative", options=("conservative", "tight"), label="Jacobian count")
    bdelta: float = param(
        0.05, options=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5), label="bound confidence δ", symbol="δ"
    )

    def __post_init__(self) -> None:
        validate_config(self)
