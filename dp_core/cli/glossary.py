"""``glossary [SYMBOL]``: the meaning of every symbol the app and the CLI show (from :mod:`dp_core.glossary`)."""

from __future__ import annotations

from .. import glossary
from ._registry import CliError, Command


def _args(p):
    p.add_argument(
        "symbol",
        nargs="?",
        default=None,
        help="a symbol as shown (ε, σ_b, Δ*, LBA) or its ASCII name (epsilon, sigma_b, Delta_star); "
        "omit it to list every entry",
    )


def _run(a):
    if a.symbol is None:
        return {"entries": glossary.as_dicts()}
    entry = glossary.lookup(a.symbol)
    if entry is None:
        raise CliError(
            f"no glossary entry for {a.symbol!r}; run `python -m dp_core glossary` for the list "
            "(symbols as shown, e.g. ε, or ASCII names, e.g. epsilon)."
        )
    return glossary.as_dicts([entry])[0]


# ``verb mechanism`` pairs this module defines, read without importing it (see dp_core.cli._lazy)
CLI_NAMES = (("glossary", ""),)

COMMANDS = [Command("glossary", "", "the meaning of a symbol shown by the app or the CLI (JSON)", _args, _run)]
