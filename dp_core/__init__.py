"""dp_core: the engine of the Privacy-Utility Explorer.

Pure, validated, documented functions for differential-privacy mechanisms, their noise
calibration, their theoretical bounds, and Monte-Carlo measurement of what they cost.
It never imports Streamlit; the command line ``python -m dp_core`` exposes the same engine as JSON.
"""

from . import calibration, data, experiments, rng
from .calibration import (
    gaussian_delta_analytic,
    gaussian_epsilon_analytic,
    gaussian_sigma_analytic,
    gaussian_sigma_classic,
    laplace_scale,
)
from .data import Dataset, load_dataset
from .exceptions import (
    DataValidationError,
    DPCoreError,
    InvalidPrivacyParameter,
    PrivacyLeakWarning,
    SolverFailed,
)
from .experiments import run_sweep, summarize
from .rng import as_generator, spawn

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "calibration",
    "data",
    "experiments",
    "rng",
    "gaussian_delta_analytic",
    "gaussian_epsilon_analytic",
    "gaussian_sigma_analytic",
    "gaussian_sigma_classic",
    "laplace_scale",
    "Dataset",
    "load_dataset",
    "DataValidationError",
    "DPCoreError",
    "InvalidPrivacyParameter",
    "PrivacyLeakWarning",
    "SolverFailed",
    "run_sweep",
    "summarize",
    "as_generator",
    "spawn",
]
