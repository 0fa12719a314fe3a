"""What the shared tables hold for DP-GD (see :mod:`dp_core.catalog`)."""

COLORS = {"dp_gd": "#882255"}
LABELS = {"dp_gd": "Noisy gradient descent (DP-GD)"}
AUDIT_ROWS = ({"mechanism": "dp-gd", "mode": "standard", "claim": "proof", "expected": "consistent", "runs": 20_000},)
