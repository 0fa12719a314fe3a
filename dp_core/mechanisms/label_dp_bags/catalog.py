"""What the shared tables hold for label-DP by aggregation (see :mod:`dp_core.catalog`)."""

import json
from importlib.resources import files

COLORS = {
    "naive_lba": "#999999",
    "naive_llp": "#6B6B6B",
    "wtd_lba": "#E69F00",
    "wtd_llp": "#56B4E9",
    "noisy_wtd_llp": "#D55E00",
    "gaussian_label": "#0072B2",
    "laplace_label": "#CC79A7",
}
LABELS = {
    "naive_lba": "Naive LBA",
    "naive_llp": "Naive LLP",
    "wtd_lba": "Weighted LBA",
    "wtd_llp": "Weighted LLP (no noise)",
    "noisy_wtd_llp": "Noisy weighted LLP",
    "gaussian_label": "Gaussian label noise",
    "laplace_label": "Laplace label noise",
}
_OPTIONS = {"m": 100, "k": 64, "rho": 0.1, "n": 20_000}
AUDIT_ROWS = tuple(
    {
        "mechanism": "label-dp-bags",
        "mode": mode,
        "claim": claim,
        "expected": expected,
        "runs": 2_000,
        "options": _OPTIONS,
    }
    for mode, claim, expected in (
        ("naive-llp", "none", "violation"),
        ("naive-lba", "none", "violation"),
        ("weighted-llp", "none", "violation"),
        ("wtd-lba", "paper", ""),
        ("noisy-wtd-llp", "proof", "consistent"),
        ("noisy-wtd-llp-paper", "paper", ""),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

#: This page's symbols (glossary.json) in the glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS], [WX] are listed there.
GLOSSARY_PAGE = "Label-DP by aggregation"
GLOSSARY = tuple(tuple(e) for e in json.loads(files(__package__).joinpath("glossary.json").read_text("utf-8")))
