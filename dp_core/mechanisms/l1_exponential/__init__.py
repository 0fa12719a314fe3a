"""DP l1 regression on heavy-tailed data: the exponential mechanism with residual truncation.
See docs/l1_exponential.md §"__init__ (module)"."""

# The public names are imported on first use (PEP 562): the registry imports this package on every
# page of the app to read PLUGIN, and the submodules pull in scipy and the samplers.
_LAZY = {
    "baselines": ("BASELINE_LABEL", "baseline_clipped_em", "baseline_dp_gd", "dp_gd_calibration"),
    "grid": ("GridEMResult", "GridNet", "default_grid_resolution", "em_grid", "grid_mechanism_releases", "grid_net"),
    "lad": ("l1_risk", "lad_fit", "lad_fit_ball", "lad_fit_linprog"),
    "mcmc": ("APPROXIMATE_LABEL", "MCMCSchedule", "effective_sample_size", "em_mcmc", "split_rhat"),
    "mechanism": ("L1Calibration", "L1Diagnostics", "L1ExponentialRegression", "L1FitResult"),
    "population": ("HeavyTailedModel", "make_eval_sample", "noise_g", "population_excess_risk"),
    "truncation": tuple(
        "CONVENTION_LABELS CONVENTIONS convention_guarantee cost_sensitivity kappa psi psi_prime score_sensitivity "
        "surrogate_cost surrogate_cost_and_grad surrogate_risk".split()
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


__all__ = [name for names in _LAZY.values() for name in names]


# -- the plug-in (see dp_core.plugin; discovered by dp_core.registry) -----------------------------
from ...plugin import Mechanism  # noqa: E402
from .settings import C_IOTA_OPTIONS, DESIGNS, EXPERIMENTS, NOISES, TAIL_OPTIONS, L1PageSettings, L1Settings  # noqa: E402,F401

PLUGIN = Mechanism(
    name="l1-exponential",
    title="Heavy-tailed ℓ1 regression (Wang & Xu)",
    aliases=("heavy-tailed-l1",),
    page="pages/l1_exponential.py",
    icon="🦎",
    order=13,
    summary="The exponential mechanism on a truncated ℓ1 loss.",
    configs=((L1Settings, "l1_"), (L1PageSettings, "l1_")),
    package=__name__,
)
