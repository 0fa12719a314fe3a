"""What the shared tables hold for DP-GD (see :mod:`dp_core.catalog`)."""

COLORS = {"dp_gd": "#882255"}
LABELS = {"dp_gd": "Noisy gradient descent (DP-GD)"}
AUDIT_ROWS = ({"mechanism": "dp-gd", "mode": "standard", "claim": "proof", "expected": "consistent", "runs": 20_000},)
GLOSSARY_PAGE = "Noisy gradient descent"
GLOSSARY = (
    (
        "RDP",
        "RDP",
        "Rényi differential privacy: a way of adding up the privacy cost of many noisy steps exactly.",
        "Mironov (2017); the accountant of dp_accounting turns it into (ε, δ) for the steps run.",
    ),
)
