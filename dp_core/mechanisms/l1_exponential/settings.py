"""The user parameters of EM-L1-HT, each declared once (page widget, link key ``l1_<name>``, CLI flag).
See docs/l1_exponential.md §"settings (module)"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...plugin import param, validate_config

#: Choices of the page's widgets (the synthetic designs and noises are those of ``dp_core.data``).
C_IOTA_OPTIONS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0)
DESIGNS = ("pareto_sphere", "pareto_abs", "student_t", "gaussian", "lognormal_sphere")
NOISES = ("student_t", "pareto_skewed", "gaussian", "laplace")
TAIL_OPTIONS = (1.5, 1.8, 2.5, 4.0, 8.0)
#: The page's experiments on synthetic data (one Run button runs the chosen one).
EXPERIMENTS = ("rates", "epsilon", "truncation", "baselines")


@dataclass(frozen=True)
class L1Settings:
    """The public settings of the mechanism and of its bound (Wang & Xu, Algorithms 1-2, Theorems 1-2), and the
    synthetic model of ``simulate`` (designs X1-X5, noises N1-N4). See docs/l1_exponential.md §"settings.L1Settings"."""

    theta: float = param(1.5, lo=1.05, hi=2.0, step=0.05, label="moment order θ", symbol="θ")
    ci: float = param(1.0, options=C_IOTA_OPTIONS, label="truncation level ι / ι*", symbol="ι")
    conv: str = param("tight", options=("tight", "paper_proof", "paper_box"), label="temperature convention")
    R: float = param(1.0, lo=0.25, hi=10.0, step=0.25, label="radius R", symbol="R")
    mode: str = param("auto", options=("auto", "grid", "mcmc"), label="sampler")
    assumption: str = param("A3", options=("A1", "A2", "A3", "A4"), label="moment assumption")
    tau: float = param(1.0, lo=0.01, hi=1000.0, label="moment bound τ", symbol="τ")
    sigma: float = param(1.0, lo=0.0, hi=1000.0, label="noise moment σ_θ", symbol="σ_θ")
    eta: float = param(0.05, options=(0.01, 0.02, 0.05, 0.1, 0.2), label="failure probability η_total", symbol="η")
    preset: str = param("quick", options=("quick", "fast", "spec"), label="MCMC length")
    noise: str = param("student_t", options=NOISES, label="noise family")
    design: str = param("pareto_sphere", options=DESIGNS, label="feature design")
    tail: float = param(1.8, options=TAIL_OPTIONS, label="feature tail index")
    noise_tail: float = param(1.8, options=TAIL_OPTIONS, label="noise tail index")

    def __post_init__(self) -> None:
        validate_config(self)

    def mechanism_kwargs(self) -> dict:
        """The sampler's settings under the names of ``L1ExponentialRegression`` and ``SimulationConfig``."""
        kw = dict(theta=self.theta, convention=self.conv, c_iota=self.ci, radius=self.R)
        return kw | dict(mode=self.mode, mcmc_preset=self.preset)


@dataclass(frozen=True)
class L1PageSettings:
    """Settings of the page only (no command takes them): releases and scales of the first screen, the
    picture of psi and the synthetic experiment run by the page."""

    PAGE_ONLY: ClassVar[bool] = True

    releases: int = param(20, options=(10, 20, 50, 100), label="releases per method")
    scale: str = param("public", options=("public", "sample", "raw"), label="scales of the features and target")
    psi_iota: float = param(0.5, options=(0.1, 0.2, 0.5, 1.0, 2.0), label="ι of the picture", symbol="ι")
    sim_n: int = param(2000, options=(500, 1000, 2000, 5000), label="simulation n")
    sim_trials: int = param(8, options=(4, 8, 16, 32), label="simulation trials")
    exp: str = param("rates", options=EXPERIMENTS, label="experiment")

    def __post_init__(self) -> None:
        validate_config(self)
