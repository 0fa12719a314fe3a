"""DP l1 regression on heavy-tailed data: the exponential mechanism with residual truncation.

Wang & Xu, *Differentially Private l1-norm Linear Regression with Heavy-tailed Data*
(specification ``l1_heavy_tailed.md``). Submodules:

* :mod:`.truncation` — psi_theta, the surrogate risk/score, exact sensitivity, temperatures;
* :mod:`.grid` — the exact grid exponential mechanism (Mode G, d <= 3) and
  :func:`grid_mechanism_releases`, the fast entry point for privacy audits;
* :mod:`.mcmc` — MALA / random-walk samplers of the continuous mechanism (Mode M, approximate);
* :mod:`.baselines` — B1 clipped EM and B2 DP-GD (not from the paper);
* :mod:`.lad` — non-private LAD (HiGHS LP and cvxpy SOCP);
* :mod:`.population` — exact population risk of the synthetic designs X1-X5 and noises N1-N4;
* :mod:`.mechanism` — the frozen configuration :class:`L1ExponentialRegression`;
* :mod:`.simulation` — Monte-Carlo experiments.
"""

from .baselines import BASELINE_LABEL, baseline_clipped_em, baseline_dp_gd, dp_gd_calibration
from .grid import GridEMResult, GridNet, default_grid_resolution, em_grid, grid_mechanism_releases, grid_net
from .lad import l1_risk, lad_fit, lad_fit_ball, lad_fit_linprog
from .mcmc import APPROXIMATE_LABEL, MCMCSchedule, effective_sample_size, em_mcmc, split_rhat
from .mechanism import L1Calibration, L1Diagnostics, L1ExponentialRegression, L1FitResult
from .population import HeavyTailedModel, make_eval_sample, noise_g, population_excess_risk
from .truncation import (
    CONVENTION_LABELS,
    CONVENTIONS,
    convention_guarantee,
    cost_sensitivity,
    inverse_temperature,
    kappa,
    psi,
    psi_prime,
    score_sensitivity,
    surrogate_cost,
    surrogate_cost_and_grad,
    surrogate_risk,
)

__all__ = [
    "CONVENTIONS",
    "CONVENTION_LABELS",
    "convention_guarantee",
    "cost_sensitivity",
    "inverse_temperature",
    "kappa",
    "psi",
    "psi_prime",
    "score_sensitivity",
    "surrogate_cost",
    "surrogate_cost_and_grad",
    "surrogate_risk",
    "GridEMResult",
    "GridNet",
    "default_grid_resolution",
    "em_grid",
    "grid_mechanism_releases",
    "grid_net",
    "APPROXIMATE_LABEL",
    "MCMCSchedule",
    "em_mcmc",
    "effective_sample_size",
    "split_rhat",
    "BASELINE_LABEL",
    "baseline_clipped_em",
    "baseline_dp_gd",
    "dp_gd_calibration",
    "l1_risk",
    "lad_fit",
    "lad_fit_ball",
    "lad_fit_linprog",
    "HeavyTailedModel",
    "make_eval_sample",
    "noise_g",
    "population_excess_risk",
    "L1Calibration",
    "L1ExponentialRegression",
    "L1FitResult",
    "L1Diagnostics",
]


# -- the plug-in (see dp_core.plugin; discovered by dp_core.registry) -----------------------------
from ...plugin import Mechanism, ParamSpec  # noqa: E402

PLUGIN = Mechanism(
    name="l1-exponential",
    title="Heavy-tailed ℓ1 regression (Wang & Xu)",
    aliases=("heavy-tailed-l1",),
    page="pages/l1_exponential.py",
    icon="🦎",
    summary="The exponential mechanism on a truncated ℓ1 loss.",
    params=(
        ParamSpec("theta", float, 1.5, 1.05, 2.0, step=0.05, label="moment order θ", symbol="θ", url_prefix="l1_"),
        ParamSpec(
            "conv",
            str,
            "tight",
            options=("tight", "paper_proof", "paper_box"),
            label="temperature convention",
            url_prefix="l1_",
        ),
        ParamSpec("R", float, 1.0, 0.25, 10.0, step=0.25, label="radius R", symbol="R", url_prefix="l1_"),
        ParamSpec("mode", str, "auto", options=("auto", "grid", "mcmc"), label="sampler", url_prefix="l1_"),
    ),
    hooks={
        "cli": f"{__name__}.cli",
        "compare": f"{__name__}.compare:ADAPTER",
        "audit": f"{__name__}.audit:AUDIT",
        "reproduce": f"{__name__}.reproduce:reproduce",
        "bounds": f"{__name__}.bounds",
    },
)
