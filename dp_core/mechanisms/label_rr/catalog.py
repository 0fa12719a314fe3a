"""What the shared tables hold for label RR (see :mod:`dp_core.catalog`)."""

COLORS = {"label_rr": "#44AA99"}
LABELS = {"label_rr": "Label RR (RR-on-bins / RR-with-prior)"}
_ROW = {"mechanism": "label-rr", "mode": "with-prior", "claim": "proof", "expected": "consistent", "runs": 20_000}
AUDIT_ROWS = (_ROW,)
GLOSSARY_PAGE = "Label randomized response"
GLOSSARY = (
    (
        "RR",
        "RR",
        "Randomized response: each label is replaced by a random one, so that no single label can be trusted.",
        "Warner (1965); RR-with-prior and RR-on-bins: Ghazi et al. (2021, 2023), ε-label-DP.",
    ),
)
