"""The adapters of the comparison, one module per mechanism; importing this package registers them.

Each module imports its mechanism's engine lazily (inside the adapter's methods), so the compare
page loads quickly and a mechanism is only imported when it runs.
"""

# each module registers its adapter when imported
from . import input_perturbation, l1_exponential, label_dp_bags, large_margin_gaussian, output_perturbation  # noqa: F401

__all__ = ["input_perturbation", "l1_exponential", "label_dp_bags", "large_margin_gaussian", "output_perturbation"]
