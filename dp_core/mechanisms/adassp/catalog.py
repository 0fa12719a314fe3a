"""What the shared tables hold for AdaSSP (see :mod:`dp_core.catalog`)."""

COLORS = {"adassp": "#EE7733"}
LABELS = {"adassp": "AdaSSP (Wang 2018)"}
AUDIT_ROWS = ({"mechanism": "adassp", "mode": "standard", "claim": "proof", "expected": "consistent", "runs": 20_000},)
