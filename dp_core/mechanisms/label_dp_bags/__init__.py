"""Label-DP by random weighted aggregation (bags of size k, m bags, noisy fraction rho).

Engine of the "Label-DP by aggregation" page: the bag sampler and the five mechanisms
(:mod:`.core`), the vectorized Monte-Carlo engine (:mod:`.batch`, including
:func:`simulate_releases` for audits), data preparation and the data conditions of wtd-LBA
(:mod:`.diagnostics`) and the figures (:mod:`.figures`). The privacy accounting lives in
:mod:`dp_core.bounds.label_dp_bags`.

References
----------
A. Brahmbhatt, R. Saket, S. Havaldar, A. Nasery, A. Raghuveer, *Label Differential Privacy via
Aggregation* (Fig. 1, Fig. 2, Theorems 1.2 and 1.3).
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
from .defaults import BagSuggestion, suggest_bag_params
from .diagnostics import (
    bag_residuals,
    conditional_noise_summary,
    data_conditions,
    prepare,
    prepare_dataset,
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
    "conditional_noise_summary",
    "utility_requirement",
    "BagSuggestion",
    "suggest_bag_params",
]
