"""What the shared tables hold for label RR (see :mod:`dp_core.catalog`)."""

COLORS = {"label_rr": "#44AA99"}
LABELS = {"label_rr": "Label RR (RR-on-bins / RR-with-prior)"}
_ROW = {"mechanism": "label-rr", "mode": "with-prior", "claim": "proof", "expected": "consistent", "runs": 20_000}
AUDIT_ROWS = (_ROW,)
