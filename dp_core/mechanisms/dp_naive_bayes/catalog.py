"""What the shared tables hold for DP naive Bayes (see :mod:`dp_core.catalog`)."""

COLORS = {"dp_naive_bayes": "#AA3377"}
LABELS = {"dp_naive_bayes": "DP naive Bayes (Laplace)"}
AUDIT_ROWS = (
    {"mechanism": "dp-naive-bayes", "mode": "standard", "claim": "proof", "expected": "consistent", "runs": 20_000},
)
