"""Label-DP by random weighted aggregation (bags of size k, m bags, noisy fraction rho).
Details: docs/label_dp_bags.md §"__init__ (module)" (Fig. 1, Fig. 2, Theorems 1.2).
"""

from .batch import (
    METHOD_KEYS,
    PreparedData,
    ReleaseBatch,
    ReleaseSecrets,
    simulate_fits,
    simulate_releases,
    utility_sweep,
    utility_trials,
)
from .core import (
    MECHANISM_LABELS,
    MECHANISMS,
    BagSecrets,
    LabelDPBags,
    LBARelease,
    LLPRelease,
    check_bag_sizes,
    fit_linear,
    naive_lba,
    naive_llp,
    noise_set,
    noisy_wtd_llp,
    release,
    sample_bags,
    weighted_llp,
    wtd_lba,
)
from .defaults import AutoBags, BagSuggestion, auto_bag_setting, suggest_bag_params, utility_min_bags
from .diagnostics import (
    bag_residuals,
    bag_warnings,
    bags_for_useful_model,
    conditional_noise_summary,
    data_conditions,
    first_screen_utility,
    prepare,
    prepare_dataset,
    public_label_range,
    utility_requirement,
)

__all__ = [
    "MECHANISMS",
    "MECHANISM_LABELS",
    "METHOD_KEYS",
    "LabelDPBags",
    "LBARelease",
    "LLPRelease",
    "BagSecrets",
    "PreparedData",
    "ReleaseBatch",
    "ReleaseSecrets",
    "check_bag_sizes",
    "sample_bags",
    "noise_set",
    "naive_lba",
    "naive_llp",
    "wtd_lba",
    "weighted_llp",
    "noisy_wtd_llp",
    "release",
    "fit_linear",
    "simulate_releases",
    "simulate_fits",
    "utility_trials",
    "utility_sweep",
    "prepare",
    "prepare_dataset",
    "data_conditions",
    "bag_residuals",
    "bag_warnings",
    "bags_for_useful_model",
    "conditional_noise_summary",
    "utility_requirement",
    "AutoBags",
    "BagSuggestion",
    "auto_bag_setting",
    "suggest_bag_params",
    "utility_min_bags",
    "first_screen_utility",
    "public_label_range",
]


# -- the plug-in (see dp_core.plugin; discovered by dp_core.registry) -----------------------------
from ...plugin import Mechanism  # noqa: E402
from .settings import BagSettings  # noqa: E402

PLUGIN = Mechanism(
    name="label-dp-bags",
    title="Label-DP by aggregation (Brahmbhatt et al.)",
    aliases=("label-aggregation",),
    page="pages/label_dp_bags.py",
    icon="🎒",
    order=12,
    summary="Labels released only as (weighted) sums over random bags.",
    configs=((BagSettings, ""),),
    compare_params=("k", "m", "rho"),
    package=__name__,
)
