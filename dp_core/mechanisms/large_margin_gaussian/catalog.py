"""What the shared tables hold for the large-margin Gaussian classifier (see :mod:`dp_core.catalog`)."""

import json
from importlib.resources import files

COLORS = {
    "printed": "#CC79A7",
    "repaired": "#E69F00",
    "corrected": "#009E73",
    "lmg_printed": "#CC79A7",
    "lmg_repaired": "#E69F00",
    "lmg_corrected": "#332288",
}
LABELS = {
    "printed": "P: as printed (not differentially private as printed)",
    "repaired": "P+: repaired (not differentially private as printed)",
    "corrected": "R: corrected",
    "lmg_printed": "Large-margin P: as printed",
    "lmg_repaired": "Large-margin P+: repaired",
    "lmg_corrected": "Large-margin R: corrected",
}
AUDIT_ROWS = tuple(
    {"mechanism": "large-margin-gaussian", "mode": mode, "claim": claim, "expected": expected, "runs": runs}
    for mode, claim, expected, runs in (
        ("printed", "paper", "violation", 2_000),
        ("repaired", "paper", "violation", 1_000),
        ("repaired-psd-off", "paper", "violation", 1_000),
        ("corrected", "proof", "consistent", 1_000),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")
#: The workers' fork server loads this folder once (its solvers are the slowest import).
WORKER_PRELOAD = (__package__,)

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...); the sources [FTS17], [PR10], [BMS], [WX] are listed there.
GLOSSARY_PAGE = "Large-margin Gaussian classifier"
GLOSSARY = tuple(tuple(e) for e in json.loads(files(__package__).joinpath("glossary.json").read_text(encoding="utf-8")))
