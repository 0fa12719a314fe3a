"""EM-L1-HT as one frozen configuration: calibration read-outs and a ``run`` that releases w. Wang & Xu, Algorithms 1-2
and Theorems 1-2; docs/l1_exponential.md §"Sensitivity and temperatures", docs/l1_exponential.md
§"Moments and the explicit bound". See docs/l1_exponential.md §"mechanism (module)"."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import (
    check_choice,
    check_epsilon,
    check_in_interval,
    check_int,
    check_positive,
    check_probability,
    check_Xy,
)
from ...publication import NonPublicDiagnostics
from ...rng import RngLike
from . import bounds
from .grid import BUDGET_INTERACTIVE, GridEMResult, default_grid_resolution, em_grid, grid_net, grid_size
from .mcmc import APPROXIMATE_LABEL, MCMC_PRESETS, MIN_CHAINS, MCMCDiagnostics, MCMCSchedule, em_mcmc, release_status
from .truncation import (
    CONVENTIONS,
    check_theta,
    convention_guarantee,
    cost_sensitivity,
    exact_sampler_suffix,
    kappa,
    score_sensitivity,
)

__all__ = ["MODES", "L1Calibration", "L1Diagnostics", "L1ExponentialRegression", "L1FitResult"]

MODES = ("auto", "grid", "mcmc")


@dataclass(frozen=True)
class L1Calibration:
    """Every public number the mechanism and its bound use (the page's read-outs)."""

    n: int
    d: int
    epsilon: float
    theta: float
    convention: str
    mode: str
    grid_m: int | None
    net_size: float
    zeta: float
    log_N: float
    iota: float
    iota_star: float
    iota_paper: float
    threshold: float
    cost_sensitivity: float
    score_sensitivity: float
    score_sensitivity_paper: float
    kappa: float
    kappas: dict
    beta: float
    moments: dict
    bound: dict
    bound_assumption: str
    rate_paper: float
    eta: float
    privacy_label: str
    replace_one_epsilon: float
    add_remove_epsilon: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, eq=False)
class L1FitResult:
    """Releases of EM-L1-HT on one dataset: only what may be published.
    See docs/l1_exponential.md §"mechanism.L1FitResult"."""

    draws: NDArray[np.float64] = field(repr=False)
    calibration: L1Calibration
    privacy_label: str
    sampler_status: str = "exact"
    sampler_message: str = ""

    @property
    def w(self) -> NDArray[np.float64]:
        return self.draws[0]

    @property
    def exact(self) -> bool:
        """Drawn by the exact grid sampler (a public setting)."""
        return self.calibration.mode == "grid"

    @property
    def exact_or_converged_sampler(self) -> bool:
        """The draws come from the exact law (grid) or from chains that passed the thresholds."""
        return self.sampler_status in ("exact", "converged")


@dataclass(frozen=True, eq=False)
class L1Diagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: what a run of EM-L1-HT computed from the private data beyond the draws.
    See docs/l1_exponential.md §"mechanism.L1Diagnostics"."""

    grid: GridEMResult | None = None
    mcmc: MCMCDiagnostics | None = None

    def status_dict(self) -> dict:
        """``sampler_status``, ``sampler_message``, ``exact_sampler`` and the diagnostics (or None)."""
        out = release_status(self.mcmc)
        out["sampler_diagnostics"] = None if self.mcmc is None else self.mcmc.as_dict()
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class L1ExponentialRegression:
    """EM-L1-HT: the exponential mechanism on the Catoni-type truncated l1 risk. Wang & Xu, Algorithms 1-2, Theorems
    1-2; docs/l1_exponential.md §"Sensitivity and temperatures", docs/l1_exponential.md §"Samplers",
    docs/l1_exponential.md §"Moments and the explicit bound". See docs/l1_exponential.md
    §"mechanism.L1ExponentialRegression"."""

    epsilon: float = 1.0
    theta: float = 1.5
    radius: float = 1.0
    convention: str = "tight"
    iota: float | None = None
    c_iota: float = 1.0
    iota_base: str = "star"
    tau: float = 1.0
    sigma_theta: float = 1.0
    assumption: str = "A3"
    eta_total: float = 0.05
    mode: str = "auto"
    grid_m: int | None = None
    grid_budget: int = BUDGET_INTERACTIVE
    mcmc_preset: str = "fast"
    mcmc_schedule: MCMCSchedule | None = None

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_theta(self.theta)
        if check_positive("radius", self.radius) > 1e6:  # R^theta terms overflow far above
            raise ValueError(f"radius must be in (0, 1e+06], got {self.radius:g}.")
        check_choice("convention", self.convention, CONVENTIONS)
        if self.iota is not None:
            check_positive("iota", self.iota)
        check_in_interval("c_iota", self.c_iota, 0.05, 20.0)
        check_choice("iota_base", self.iota_base, ("star", "paper"))
        check_positive("tau", self.tau)
        check_positive("sigma_theta", self.sigma_theta, allow_zero=True)
        check_choice("assumption", self.assumption, bounds.ASSUMPTIONS)
        check_probability("eta_total", self.eta_total, closed="neither")
        check_choice("mode", self.mode, MODES)
        if self.grid_m is not None:
            check_int("grid_m", self.grid_m, lo=2, hi=1 << 20)
        check_int("grid_budget", self.grid_budget, lo=1000)
        check_choice("mcmc_preset", self.mcmc_preset, tuple(MCMC_PRESETS))
        if self.mcmc_schedule is not None and not isinstance(self.mcmc_schedule, MCMCSchedule):
            raise TypeError(f"mcmc_schedule must be an MCMCSchedule or None, got {type(self.mcmc_schedule).__name__}.")

    def schedule(self) -> MCMCSchedule:
        """The MCMC schedule used in mode ``mcmc``."""
        return self.mcmc_schedule if self.mcmc_schedule is not None else MCMCSchedule.preset(self.mcmc_preset)

    def resolved_mode(self, d: int) -> str:
        if self.mode == "auto":
            return "grid" if d <= 3 else "mcmc"
        if self.mode == "grid" and d > 3:
            raise ValueError(f"mode 'grid' needs d <= 3, got d = {d}; use mode 'mcmc' or 'auto'.")
        return self.mode

    def bound_assumption(self) -> str:
        if self.theta < 2.0 and self.assumption in ("A1", "A2"):
            return {"A1": "A3", "A2": "A4"}[self.assumption]
        return self.assumption

    def calibrate(self, n: int, d: int) -> L1Calibration:
        """All public quantities for a dataset of size n in dimension d (no data needed)."""
        n = check_int("n", n, lo=1)
        d = check_int("d", d, lo=1)
        mode = self.resolved_mode(d)
        th = self.theta
        R = self.radius
        eta = self.eta_total / 5.0
        ass = self.bound_assumption()
        mom = bounds.moment_constants(ass, tau=self.tau, d=d, theta=th, sigma_theta=self.sigma_theta, radius=R)
        if mode == "grid":
            m = self.grid_m if self.grid_m is not None else default_grid_resolution(n, d, R, budget=self.grid_budget)
            N = grid_size(d, m, R) if d > 1 else m
            zeta = (2.0 * R / m) * math.sqrt(d) / 2.0
            log_N = math.log(N)
        else:
            m = None
            zeta = 1.0 / n
            log_N = bounds.log_net_size(d, min(zeta, 2 * R), 2 * R)
            N = math.exp(log_N) if log_N < 700 else math.inf
        ks = {c: kappa(self.epsilon, th, c) for c in CONVENTIONS}
        k = ks[self.convention]
        common = bounds.bound_arguments(mom, n=n, d=d, zeta=zeta, eta=eta, log_N=log_N, radius=R)
        i_star = bounds.iota_star(kappa_value=k, **common)
        # the paper's iota and rate, at a huge finite epsilon when epsilon = inf
        paper = (n, d, self.epsilon if math.isfinite(self.epsilon) else 1e300, self.eta_total, th, self.tau, ass)
        i_paper = bounds.iota_paper(*paper)
        if self.iota is not None:
            iota = self.iota
        else:
            iota = self.c_iota * (i_star if self.iota_base == "star" else i_paper)
        bt = bounds.explicit_bound(iota, m1=mom.m1, kappa_value=k, **common)
        rate = bounds.rate_paper(*paper)
        guar = convention_guarantee(self.epsilon, th, self.convention)
        label = guar.label + (exact_sampler_suffix(self.convention) if mode == "grid" else f" — {APPROXIMATE_LABEL}")
        return L1Calibration(
            n=n,
            d=d,
            epsilon=self.epsilon,
            theta=th,
            convention=self.convention,
            mode=mode,
            grid_m=m,
            net_size=float(N),
            zeta=zeta,
            log_N=log_N,
            iota=iota,
            iota_star=i_star,
            iota_paper=i_paper,
            threshold=1.0 / iota,
            cost_sensitivity=cost_sensitivity(th),
            score_sensitivity=score_sensitivity(n, iota, th),
            score_sensitivity_paper=score_sensitivity(n, iota, th, kind="paper"),
            kappa=k,
            kappas=ks,
            beta=k * n * iota,
            moments=mom.as_dict(),
            bound=bt.as_dict(),
            bound_assumption=ass,
            rate_paper=rate,
            eta=eta,
            privacy_label=label,
            replace_one_epsilon=guar.replace_one_epsilon,
            add_remove_epsilon=guar.add_remove_epsilon,
        )

    def run(self, X: ArrayLike, y: ArrayLike, *, rng: RngLike, n_draws: int = 1, diagnostics: bool = False):
        """Release ``n_draws`` independent outputs of the mechanism on ``(X, y)``.
        See docs/l1_exponential.md §"mechanism.L1ExponentialRegression.run"."""
        X, y = check_Xy(X, y, min_rows=1)
        n_draws = check_int("n_draws", n_draws, lo=1)
        n, d = X.shape
        cal = self.calibrate(n, d)
        kw = dict(epsilon=self.epsilon, theta=self.theta, iota=cal.iota, convention=self.convention, rng=rng)
        if cal.mode == "grid":
            res = em_grid(X, y, n_draws=n_draws, net=grid_net(d, self.radius, cal.grid_m), **kw)
            fit = L1FitResult(draws=res.draws, calibration=cal, privacy_label=cal.privacy_label)
            return (fit, L1Diagnostics(grid=res)) if diagnostics else fit
        res = em_mcmc(X, y, radius=self.radius, n_draws=max(MIN_CHAINS, n_draws), schedule=self.schedule(), **kw)
        label = cal.privacy_label
        if not res.diagnostics.converged:
            label = res.diagnostics.message  # starts with NOT_CONVERGED_MESSAGE
        status = dict(sampler_status=res.diagnostics.status, sampler_message=res.diagnostics.message)
        fit = L1FitResult(draws=res.draws[:n_draws], calibration=cal, privacy_label=label, **status)
        return (fit, L1Diagnostics(mcmc=res.diagnostics)) if diagnostics else fit
