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

# The public names are imported on first use (PEP 562): the registry imports this package on every
# page of the app to read PLUGIN, and the submodules pull in scipy and the samplers.
_LAZY = {
    "baselines": ("BASELINE_LABEL", "baseline_clipped_em", "baseline_dp_gd", "dp_gd_calibration"),
    "grid": ("GridEMResult", "GridNet", "default_grid_resolution", "em_grid", "grid_mechanism_releases", "grid_net"),
    "lad": ("l1_risk", "lad_fit", "lad_fit_ball", "lad_fit_linprog"),
    "mcmc": ("APPROXIMATE_LABEL", "MCMCSchedule", "effective_sample_size", "em_mcmc", "split_rhat"),
    "mechanism": ("L1Calibration", "L1Diagnostics", "L1ExponentialRegression", "L1FitResult"),
    "population": ("HeavyTailedModel", "make_eval_sample", "noise_g", "population_excess_risk"),
    "truncation": (
        "CONVENTION_LABELS",
        "CONVENTIONS",
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
    ),
}
_WHERE = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


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

#: Choices of the page's widgets (the synthetic designs and noises are those of ``dp_core.data``).
C_IOTA_OPTIONS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0)
DESIGNS = ("pareto_sphere", "pareto_abs", "student_t", "gaussian", "lognormal_sphere")
NOISES = ("student_t", "pareto_skewed", "gaussian", "laplace")
TAIL_OPTIONS = (1.5, 1.8, 2.5, 4.0, 8.0)
#: The page's experiments on synthetic data (one Run button runs the chosen one).
EXPERIMENTS = ("rates", "epsilon", "truncation", "baselines")


def _p(name: str, kind: type, default, lo=None, hi=None, **kw) -> ParamSpec:
    return ParamSpec(name, kind, default, lo, hi, url_prefix="l1_", **kw)


#: Every setting of the page (widget, URL key ``l1_<name>``, validation), in the order the page shows them.
PARAMS = (
    _p("theta", float, 1.5, 1.05, 2.0, step=0.05, label="moment order θ", symbol="θ"),
    _p("ci", float, 1.0, options=C_IOTA_OPTIONS, label="truncation level ι / ι*", symbol="ι"),
    _p("conv", str, "tight", options=("tight", "paper_proof", "paper_box"), label="temperature convention"),
    _p("R", float, 1.0, 0.25, 10.0, step=0.25, label="radius R", symbol="R"),
    _p("mode", str, "auto", options=("auto", "grid", "mcmc"), label="sampler"),
    _p("assumption", str, "A3", options=("A1", "A2", "A3", "A4"), label="moment assumption"),
    _p("tau", float, 1.0, 0.01, 1000.0, label="moment bound τ", symbol="τ"),
    _p("sigma", float, 1.0, 0.0, 1000.0, label="noise moment σ_θ", symbol="σ_θ"),
    _p("eta", float, 0.05, options=(0.01, 0.02, 0.05, 0.1, 0.2), label="failure probability η_total", symbol="η"),
    _p("releases", int, 20, options=(10, 20, 50, 100), label="releases per method"),
    _p("scale", str, "public", options=("public", "sample", "raw"), label="scales of the features and target"),
    _p("preset", str, "quick", options=("quick", "fast", "spec"), label="MCMC length"),
    _p("noise", str, "student_t", options=NOISES, label="noise family"),
    _p("psi_iota", float, 0.5, options=(0.1, 0.2, 0.5, 1.0, 2.0), label="ι of the picture", symbol="ι"),
    _p("design", str, "pareto_sphere", options=DESIGNS, label="feature design"),
    _p("tail", float, 1.8, options=TAIL_OPTIONS, label="feature tail index"),
    _p("noise_tail", float, 1.8, options=TAIL_OPTIONS, label="noise tail index"),
    _p("sim_n", int, 2000, options=(500, 1000, 2000, 5000), label="simulation n"),
    _p("sim_trials", int, 8, options=(4, 8, 16, 32), label="simulation trials"),
    _p("exp", str, "rates", options=EXPERIMENTS, label="experiment"),
)

PLUGIN = Mechanism(
    name="l1-exponential",
    title="Heavy-tailed ℓ1 regression (Wang & Xu)",
    aliases=("heavy-tailed-l1",),
    page="pages/l1_exponential.py",
    icon="🦎",
    summary="The exponential mechanism on a truncated ℓ1 loss.",
    params=PARAMS,
    hooks={
        "cli": f"{__name__}.cli",
        "compare": f"{__name__}.compare:ADAPTER",
        "audit": f"{__name__}.audit:AUDIT",
        "reproduce": f"{__name__}.reproduce:reproduce",
        "bounds": f"{__name__}.bounds",
        "plan": f"{__name__}.plan",
        "release": f"{__name__}.release",
        "catalog": f"{__name__}.catalog",
        "estimator": f"{__name__}.estimator",
    },
)
