"""What the shared tables hold for heavy-tailed ℓ1 regression (see :mod:`dp_core.catalog`)."""

import json
from importlib.resources import files

COLORS = {"em_l1": "#D55E00", "em_clipped": "#56B4E9"}
LABELS = {"em_l1": "Exponential mechanism (truncated l1)", "em_clipped": "EM on clipped data"}
AUDIT_ROWS = tuple(
    {"mechanism": "l1-exponential", "mode": mode, "claim": claim, "expected": expected, "runs": 100_000}
    for mode, claim, expected in (
        ("paper_box", "paper", "violation"),
        ("tight", "proof", "consistent"),
        ("paper_proof", "proof", "consistent"),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`), read from catalog_glossary.json: (symbol,
#: ASCII name, plain meaning, expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS],
#: [WX] are listed there.
GLOSSARY_PAGE = "Heavy-tailed ℓ1 regression"
GLOSSARY = tuple(tuple(e) for e in json.loads(files(__package__).joinpath("catalog_glossary.json").read_text("utf-8")))
