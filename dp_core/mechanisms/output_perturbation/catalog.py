"""What the shared tables hold for output perturbation (see :mod:`dp_core.catalog`)."""

COLORS = {"output_gaussian": "#009E73", "output_laplace": "#117733"}
LABELS = {"output_gaussian": "Output perturbation (Gaussian)", "output_laplace": "Output perturbation (Laplace-norm)"}
