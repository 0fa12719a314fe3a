"""The examples that were doctests of dp_core.audit.core, dp_core.text, dp_core.figures, dp_core.report,
dp_core.glossary and dp_core.export (same inputs, same values)."""

import numpy as np

from dp_core.audit.core import audit_statistics, clopper_pearson, runs_grid
from dp_core.export import check_decisions
from dp_core.figures import to_axis_units
from dp_core.glossary import symbols_in
from dp_core.report import targets_from_params
from dp_core.text import JOINER, escape_html, escape_markdown, unescape_markdown


def test_audit_statistics():
    rng = np.random.default_rng(0)
    r = audit_statistics(rng.laplace(0, 1, 20000), rng.laplace(1, 1, 20000), eps_claimed=1.0, delta=0.0)
    assert (r.verdict, 0.8 < r.eps_lower <= 1.0) == ("consistent with the claim", True)


def test_clopper_pearson():
    lo, hi = clopper_pearson(0, 100)
    assert (float(lo), round(float(hi), 5)) == (0.0, 0.03622)
    lo, hi = clopper_pearson(50, 100)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.3983, 0.6017)


def test_runs_grid():
    assert runs_grid(100000, points=4) == [100, 1000, 10000, 100000]


def test_text_escapes():
    assert escape_markdown("[x](http://h/p)").replace(JOINER, "<WJ>") == r"\[x\](http\:<WJ>//h/p)"
    assert unescape_markdown(escape_markdown("![x](http://h/p.png)")) == "![x](http://h/p.png)"
    assert escape_html('<img src=x onerror="alert(1)">') == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
    assert (
        escape_markdown("**bold** $x$ in data_set.csv: ok (upload:a.csv)")
        == r"\*\*bold\*\* \$x\$ in data_set.csv: ok (upload:a.csv)"
    )
    assert unescape_markdown(escape_markdown("a_b: c.d@e www.x 1. y")) == "a_b: c.d@e www.x 1. y"


def test_to_axis_units():
    assert (to_axis_units(100.0, log=True), to_axis_units(0.5, log=False)) == (2.0, 0.5)


def test_targets_from_params():
    assert targets_from_params({"tmetric": "accuracy", "tvalue": 0.9, "tdelta": 1e-6}) == [
        "accuracy=0.9",
        "delta=1e-06",
    ]


def test_symbols_in():
    text = "With ε = 1 and σ_b = 2, the LBA bound for k_R holds (‖x‖ ≤ 1)."
    assert sorted(symbols_in(text)) == ["LBA", "k_R", "ε", "σ_b", "‖x‖"]


def test_check_decisions():
    rows = [{"who": "Ana", "epsilon": 2, "chosen": True, "date": "2026-11-28", "note": ""}]
    assert check_decisions(rows) == [{"epsilon": 2.0, "chosen": True, "who": "Ana", "date": "2026-11-28", "note": ""}]
