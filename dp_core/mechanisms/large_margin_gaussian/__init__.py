"""Large-margin multiclass Gaussian classifier with differential privacy (Pathak & Raj).

Three modes: ``printed`` (P), ``repaired`` (P+) and ``corrected`` (R, the default, the private one); P and
P+ are **not differentially private as printed** (:data:`NOT_PRIVATE_REASONS`). Entry points:
:class:`LargeMarginGaussian`, :func:`release_many`, :func:`privacy_params`, :func:`fit_apg` /
:func:`fit_cvxpy`, :func:`sample_radial`. Our corrections: ``docs/large_margin_gaussian.md``.
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
from ...plugin import Mechanism  # noqa: E402
from .settings import Settings  # noqa: E402

PLUGIN = Mechanism(
    name="large-margin-gaussian",
    title="Large-margin Gaussian classifier (Pathak & Raj)",
    aliases=("large-margin",),
    page="pages/large_margin_gaussian.py",
    icon="🎯",
    summary="Objective perturbation of a multiclass large-margin Gaussian classifier.",
    configs=((Settings, "lm_"),),
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
