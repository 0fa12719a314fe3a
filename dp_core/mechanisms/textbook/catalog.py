"""What the shared tables hold for the Laplace and Gaussian mechanisms (see :mod:`dp_core.catalog`)."""

COLORS = {
    "laplace": "#CC79A7",
    "gaussian": "#0072B2",
    "gaussian_classic": "#56B4E9",
    "gaussian_analytic": "#0072B2",
}
LABELS = {
    "laplace": "Laplace",
    "gaussian": "Gaussian",
    "gaussian_classic": "Gaussian (classic)",
    "gaussian_analytic": "Gaussian (analytic)",
}
AUDIT_ROWS = (
    {"mechanism": "laplace", "mode": "standard", "claim": "proof", "expected": "consistent", "runs": 20_000},
    {"mechanism": "gaussian", "mode": "analytic", "claim": "proof", "expected": "consistent", "runs": 20_000},
    {"mechanism": "gaussian", "mode": "classic", "claim": "proof", "expected": "consistent", "runs": 20_000},
)
