"""Large-margin multiclass Gaussian classifier with differential privacy (Pathak & Raj): modes P, P+ (not DP as printed)
and R. See docs/large_margin_gaussian.md §"__init__ (module)"."""

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
    order=11,
    summary="Objective perturbation of a multiclass large-margin Gaussian classifier.",
    configs=((Settings, "lm_"),),
    package=__name__,
)
