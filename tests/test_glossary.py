"""The glossary (dp_core.glossary), its CLI command, the --eps/--delta help built from it, and the tour's maths."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _helpers import run_main

from dp_core import glossary, tour
from dp_core.cli import build_parser


# ------------------------------------------------------------------ lookup and tooltips
@pytest.mark.parametrize(
    ("key", "symbol"),
    [
        ("ε", "ε"),
        ("epsilon", "ε"),
        ("EPSILON", "ε"),
        ("σ_b", "σ_b"),
        ("sigma_b", "σ_b"),
        ("Δ*", "Δ*"),
        ("Delta_star", "Δ*"),
        ("LBA", "LBA"),
        ("wtd-LBA", "LBA"),
        ("Tier U", "Tier U"),
        ("C5.3", "C"),
        ("k_R", "k_R"),
        ("R̂", "R̂"),
        ("ESS", "ESS"),
        ("δ′", "δ"),
    ],
)
def test_lookup_by_symbol_name_or_alias(key, symbol):
    assert glossary.lookup(key).symbol == symbol


def test_lookup_is_exact_for_symbols():
    assert glossary.lookup("σ_x") is None  # a subscript is part of the symbol: σ_b does not explain σ_x
    assert glossary.lookup("Δ**") is None
    with pytest.raises(TypeError, match="symbol must be a string"):
        glossary.lookup(3)


def test_tooltip_is_short_and_refuses_unknown_symbols():
    t = glossary.tooltip("σ_u")
    assert t.startswith("σ_u — ") and glossary.lookup("σ_u").plain in t
    assert all(len(glossary.tooltip(e.symbol)) < 300 for e in glossary.GLOSSARY)
    with pytest.raises(KeyError, match="no glossary entry"):
        glossary.tooltip("ξ")


def test_every_entry_is_complete_and_keys_are_unique():
    seen = set()
    for e in glossary.GLOSSARY:
        assert e.symbol and e.name.isascii() and e.plain.endswith(".") and e.expert
        for k in {e.symbol, e.name, *e.aliases}:
            assert k not in seen, k
            seen.add(k)
    assert len(glossary.GLOSSARY) >= 80


def test_the_issue_symbols_have_entries():
    # issue 13: "σ_b, σ_u, Δ*, η, α, k_R, Tier U, C5.3, LBA, LLP" and the brief's list
    for s in [
        "σ_b",
        "σ_u",
        "Δ*",
        "η",
        "α",
        "k_R",
        "Tier U",
        "C5.3",
        "LBA",
        "LLP",
        "ε",
        "δ",
        "k",
        "m",
        "ρ",
        "θ",
        "ι",
        "R̂",
        "ESS",
        "λ",
        "μ",
        "h",
        "C",
    ]:
        assert glossary.lookup(s) is not None, s


def test_the_glossary_explains_its_own_symbols():
    assert glossary.unknown_symbols(glossary.as_markdown()) == []


def test_as_markdown_is_one_table_row_per_entry():
    md = glossary.as_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| Symbol | Meaning")
    assert len(lines) == 2 + len(glossary.GLOSSARY)
    assert all(line.count("|") - line.count("\\|") == 5 for line in lines)


# ------------------------------------------------------------------ symbol extraction (the page test relies on it)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("With ε = 1 and σ_b = 2.", {"ε", "σ_b"}),
        ("The bound Δ* and Δ_in; ‖ŵ‖ ≤ η.", {"Δ*", "Δ_in", "‖ŵ‖", "η"}),
        ("wtd-LBA and noisy-wtd-LLP at k = 64, m = 100", {"LBA", "LLP", "k", "m"}),
        ("largest R̂ 1.029, smallest bulk ESS 597", {"R̂", "ESS"}),
        ("Tier U bounds and C5.3", {"Tier U", "C5.3"}),
        ("**ε** = 1 and `python -m dp_core --eps 1 --DELTA` [link](audit?mechanism=x&MODE=Y)", {"ε"}),
        ("A person and I agree: it is OK.", set()),
    ],
)
def test_symbols_in(text, expected):
    assert glossary.symbols_in(text) == expected


def test_unknown_symbols_catches_a_symbol_without_entry():
    page = "The new bound uses ξ_q, the XQZ test and k_Z at ε = 1 (Tier Q)."
    assert glossary.unknown_symbols(page) == ["Tier Q", "XQZ", "k_Z", "ξ_q"]


# ------------------------------------------------------------------ CLI
def test_cli_glossary_one_symbol(capsys):
    code, out = run_main(capsys, "glossary", "σ_b")
    assert code == 0
    data = json.loads(out.out)
    assert data["symbol"] == "σ_b" and data["name"] == "sigma_b" and "FTS17" in data["expert"]
    code, out = run_main(capsys, "glossary", "Delta_star")
    assert code == 0 and json.loads(out.out)["symbol"] == "Δ*"


def test_cli_glossary_lists_every_entry(capsys):
    code, out = run_main(capsys, "glossary")
    assert code == 0
    entries = json.loads(out.out)["entries"]
    assert [e["symbol"] for e in entries] == [e.symbol for e in glossary.GLOSSARY]


def test_cli_glossary_unknown_symbol_exits_2_with_one_line(capsys):
    code, out = run_main(capsys, "glossary", "nope")
    assert code == 2 and out.out == ""
    assert out.err.count("\n") == 1 and "no glossary entry for 'nope'" in out.err


def test_eps_and_delta_help_come_from_the_glossary():
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices["calibrate"]
    gauss = sub._subparsers._group_actions[0].choices["gaussian"]
    helps = {a.dest: a.help for a in gauss._actions}
    assert glossary.lookup("ε").plain in helps["eps"]
    assert glossary.lookup("δ").plain in helps["delta"]


# ------------------------------------------------------------------ the tour's maths
def test_noisy_counts_seeded_and_calibrated():
    a = tour.noisy_counts(212, epsilon=0.5, n_draws=5, seed=3)
    b = tour.noisy_counts(212, epsilon=0.5, n_draws=5, seed=3)
    np.testing.assert_array_equal(a["released"], b["released"])
    assert a["scale"] == pytest.approx(2.0, rel=1e-12)
    big = tour.noisy_counts(212, epsilon=0.5, n_draws=10_000, seed=1)
    err = np.abs(big["released"] - 212)
    # Laplace(b): E|X| = b, sd |X| = b; 5 standard errors
    assert abs(err.mean() - 2.0) < 5 * 2.0 / math.sqrt(10_000)
    with pytest.raises(ValueError, match="n_draws"):
        tour.noisy_counts(1, epsilon=1.0, n_draws=0)
    with pytest.raises(ValueError):
        tour.noisy_counts(1, epsilon=-1.0)


def test_noise_scale_table_falls_with_epsilon():
    eps = [0.1, 0.5, 1.0, 2.0, 10.0]
    t = tour.noise_scale_table(eps, delta=1e-5)
    lap = t[t["method"] == "laplace"]["scale"].to_numpy()
    gau = t[t["method"] == "gaussian"]["scale"].to_numpy()
    np.testing.assert_allclose(lap, [1 / e for e in eps], rtol=1e-3)
    assert np.all(np.diff(gau) < 0) and np.all(gau > 0)
    with pytest.raises(ValueError, match="epsilons"):
        tour.noise_scale_table([], delta=1e-5)
