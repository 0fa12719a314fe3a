"""What the shared tables hold for input perturbation and its baselines (see :mod:`dp_core.catalog`)."""

import json
from importlib.resources import files

COLORS = {"input": "#D55E00", "objective": "#0072B2", "output": "#009E73", "dp_sgd": "#E69F00", "dp_gd": "#E69F00"}
LABELS = {
    "input": "Input perturbation",
    "objective": "Objective perturbation",
    "output": "Output perturbation",
    "dp_sgd": "DP-SGD",
    "dp_gd": "DP gradient descent",
}
AUDIT_ROWS = tuple(
    {"mechanism": "input-perturbation", "mode": mode, "claim": "paper", "expected": expected, "runs": runs}
    for mode, expected, runs in (
        ("COR2", "", 20_000),
        ("ALG1", "", 20_000),
        ("CORR", "", 20_000),
        ("LOCAL", "violation", 2_000),
    )
)
PRELOAD = (__package__, f"{__package__}.figures")

#: This page's symbols in the one glossary (:mod:`dp_core.glossary`): (symbol, ASCII name, plain meaning,
#: expert definition with its source, aliases...) in glossary.json; the sources [FTS17], [PR10], [BMS], [WX] are
#: listed there.
GLOSSARY_PAGE = "Input perturbation"
GLOSSARY = tuple(tuple(t) for t in json.loads(files(__package__).joinpath("glossary.json").read_text(encoding="utf-8")))
