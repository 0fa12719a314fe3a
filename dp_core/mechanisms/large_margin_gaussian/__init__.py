"""Large-margin multiclass Gaussian classifier with differential privacy (Pathak & Raj).

Three modes: ``printed`` (P, the paper as printed), ``repaired`` (P+, minimal repair so it runs)
and ``corrected`` (R, the default, which is differentially private). P and P+ are **not
differentially private as printed** (:data:`NOT_PRIVATE_REASONS`).

Main entry points
-----------------
* :class:`LargeMarginGaussian` — frozen configuration; ``.run(X, y, rng=...)``.
* :func:`release_many` — vectorized: ``R`` releases of a mode on a fixed dataset (a publishable
  :class:`ReleaseBatch`); with ``diagnostics=True`` also the non-public :class:`ReleaseDiagnostics`
  (non-private fit, noise, excess risk, shared-noise direction statistic) for experiments and audits.
* :func:`privacy_params` — noise rate, budget split and claimed guarantee.
* :func:`fit_apg` / :func:`fit_cvxpy` — the two solvers (they agree to 1e-6).
* :func:`sample_radial` — exact sampler of the density ``∝ exp(-beta ||v||)``.

References
----------
M. A. Pathak and B. Raj, "Large Margin Multiclass Gaussian Classification with Differential
Privacy"; specification ``large_margin_gaussian.md``.
"""

from .experiments import (
    ClassificationTask,
    SuggestedSettings,
    accuracy_sweep,
    bound_tightness,
    decision_grid,
    excess_vs_n,
    leak_demo,
    make_task,
    nonprivate_accuracy,
    public_projection,
    regularisation_sweep,
    suggest_settings,
    unbounded_share,
    utility_note,
)
from .mechanism import (
    LargeMarginGaussian,
    PreparedData,
    ReleaseBatch,
    ReleaseDiagnostics,
    direction_statistic,
    fit_nonprivate,
    leak_direction,
    prepare,
    release_many,
)
from .model import (
    decision_values,
    gaussian_params,
    gradient,
    huber_hinge,
    huber_hinge_grad,
    loss,
    objective,
    phi_from_gaussian,
    predict,
    preprocess,
)
from .privacy import (
    MODE_LABELS,
    MODES,
    NOT_PRIVATE_REASONS,
    PrivacyAccounting,
    k_corrected,
    k_printed,
    privacy_params,
    sample_radial,
)
from .solvers import APGResult, fit_apg, fit_cvxpy, literal_objective_bounded, project_psd

__all__ = [
    "ClassificationTask",
    "accuracy_sweep",
    "bound_tightness",
    "decision_grid",
    "excess_vs_n",
    "leak_demo",
    "make_task",
    "nonprivate_accuracy",
    "SuggestedSettings",
    "suggest_settings",
    "public_projection",
    "regularisation_sweep",
    "unbounded_share",
    "utility_note",
    "LargeMarginGaussian",
    "PreparedData",
    "ReleaseBatch",
    "ReleaseDiagnostics",
    "direction_statistic",
    "fit_nonprivate",
    "leak_direction",
    "prepare",
    "release_many",
    "decision_values",
    "gaussian_params",
    "gradient",
    "huber_hinge",
    "huber_hinge_grad",
    "loss",
    "objective",
    "phi_from_gaussian",
    "predict",
    "preprocess",
    "MODE_LABELS",
    "MODES",
    "NOT_PRIVATE_REASONS",
    "PrivacyAccounting",
    "k_corrected",
    "k_printed",
    "privacy_params",
    "sample_radial",
    "APGResult",
    "fit_apg",
    "fit_cvxpy",
    "literal_objective_bounded",
    "project_psd",
]


# -- the plug-in (see dp_core.plugin; discovered by dp_core.registry) -----------------------------
from ...plugin import Mechanism, ParamSpec  # noqa: E402
from .experiments import MAX_D  # noqa: E402

_LAM_OPTIONS = (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)

PLUGIN = Mechanism(
    name="large-margin-gaussian",
    title="Large-margin Gaussian classifier (Pathak & Raj)",
    aliases=("large-margin",),
    page="pages/large_margin_gaussian.py",
    icon="🎯",
    summary="Objective perturbation of a multiclass large-margin Gaussian classifier.",
    params=(
        ParamSpec(
            "mode", str, "corrected", options=("corrected", "repaired", "printed"), label="mode", url_prefix="lm_"
        ),
        ParamSpec(
            "lam",
            float,
            0.01,
            options=_LAM_OPTIONS,
            label="trace regulariser λ",
            symbol="λ",
            url_prefix="lm_",
        ),
        ParamSpec(
            "h",
            float,
            0.5,
            options=(0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
            label="Huber width h",
            symbol="h",
            url_prefix="lm_",
        ),
        ParamSpec("n", int, 1000, 100, 20_000, step=100, label="training points n", symbol="n", url_prefix="lm_"),
        # -- the page's further settings (widgets and links; the CLI has its own flags for them) --
        ParamSpec(
            "data",
            str,
            "gaussian_classes",
            options=("gaussian_classes", "iris", "wine", "breast_cancer", "home"),
            label="dataset",
            help="The page's demo datasets, or 'home' for the classification dataset chosen on Home.",
            url_prefix="lm_",
        ),
        ParamSpec(
            "mu",
            str,
            "= λ",
            options=("= λ", *(str(v) for v in _LAM_OPTIONS)),
            label="strong convexity μ",
            symbol="μ",
            url_prefix="lm_",
        ),
        ParamSpec("k", int, 2, 1, MAX_D, step=1, label="projection dimension k", symbol="k", url_prefix="lm_"),
        ParamSpec("psd", str, "on", options=("on", "off"), label="PSD constraint", url_prefix="lm_"),
        ParamSpec("sem", str, "target", options=("target", "paper"), label="ε semantics", url_prefix="lm_"),
        ParamSpec(
            "jac", str, "conservative", options=("conservative", "tight"), label="Jacobian count", url_prefix="lm_"
        ),
        ParamSpec(
            "bdelta",
            float,
            0.05,
            options=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5),
            label="bound confidence δ",
            symbol="δ",
            url_prefix="lm_",
        ),
    ),
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
