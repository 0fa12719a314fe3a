"""One glossary of every symbol and abbreviation the app and the CLI show to people.

Each :class:`Entry` gives the symbol as shown, an ASCII name, a plain meaning, the expert definition
with its citation and the page where it matters most; the shared entries and the statuses' expert
side are data in ``glossary.json``. Tooltips, the CLI's ``glossary`` command and the ``--eps``/``--delta``
help are generated from it; :func:`symbols_in` finds the symbol-like tokens of a text. The reference
keys ([DR14], [BW18], [JUO20], ...) are listed in ``docs/foundation.md`` §"Glossary".
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from . import status as _status

__all__ = [
    "tip",
    "GLOSSARY",  # noqa: F822 - module __getattr__
    "Entry",
    "all_entries",
    "entry",
    "as_dicts",
    "as_markdown",
    "lookup",
    "symbols_in",
    "tooltip",
    "unknown_symbols",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One glossary entry: ``symbol`` as shown (``"σ_b"``); ASCII ``name`` (accepted by :func:`lookup` and the
    CLI); ``plain``, one sentence for a newcomer; ``expert``, the definition and its source (paper, equation);
    ``page``, a title of ``ui/pages.py`` (``""`` for general terms); ``aliases``, other spellings shown (``"ε_run"``).
    """

    symbol: str
    name: str
    plain: str
    expert: str
    page: str = ""
    aliases: tuple[str, ...] = ()


def entry(symbol, name, plain, expert, page="", *aliases) -> Entry:
    return Entry(symbol, name, plain, expert, page, tuple(aliases))


#: The shared entries and the statuses' expert side (plain side: :data:`dp_core.status.DEFINITIONS`).
_DATA = json.loads(Path(__file__).with_name("glossary.json").read_text(encoding="utf-8"))
_SHARED: tuple[Entry, ...] = tuple(
    entry(e["symbol"], e["name"], e["plain"], e["expert"], e["page"], *e.get("aliases", ())) for e in _DATA["shared"]
)
_STATUS_EXPERT: dict[str, str] = _DATA["status_expert"]

_STATUS_ENTRIES = tuple(
    entry(s, s.split(":")[0].replace(" ", "_"), _status.DEFINITIONS[s], _STATUS_EXPERT[s], "Privacy audit")
    for s in _status.STATUSES
)


def all_entries() -> tuple[Entry, ...]:
    """The whole glossary: the shared entries, each mechanism folder's ``catalog.GLOSSARY`` (registry order,
    :mod:`dp_core.catalog`; tuples ``(symbol, name, plain, expert, *aliases)`` on ``catalog.GLOSSARY_PAGE``),
    then the statuses."""
    from . import catalog

    pages = tuple(entry(*t[:4], page, *t[4:]) for c in catalog.catalogs() for page, t in _folder_entries(c))
    return _SHARED + pages + _STATUS_ENTRIES


def _folder_entries(c) -> list[tuple[str, tuple]]:
    """``(page, entry tuple)`` of a folder's catalog: its ``GLOSSARY`` on ``GLOSSARY_PAGE``, or else the folder's
    ``glossary.json`` (``{"page": ..., "entries": [[symbol, name, plain, expert, *aliases], ...]}``) if present."""
    if hasattr(c, "GLOSSARY"):
        return [(c.GLOSSARY_PAGE, tuple(t)) for t in c.GLOSSARY]
    from importlib.resources import files

    path = files(c.__package__).joinpath("glossary.json")
    if not path.is_file():
        return []
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [(doc["page"], tuple(t)) for t in doc["entries"]]


def __getattr__(name: str):
    if name == "GLOSSARY":  # collected when first used: the folders' catalogs import this module
        return all_entries()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------ symbol extraction
_GREEK = "α-ωΑ-Ωϑϕϵϰ"
_MODS = "\u0302\u0303\u0304*′'ᵖᵀ"  # combining hat, tilde, bar; star, primes, superscript p, transpose
_SUB = r"(?:_\{?[A-Za-z0-9]+\}?)"
_TOKEN = re.compile(
    "|".join(
        [
            # Greek letter (optionally after a Δ as in ΔΦ), with hats, stars, primes and subscripts
            rf"(?P<greek>[{_GREEK}][{_MODS}]*{_SUB}?[{_MODS}]*{_SUB}?)",
            # a norm written with double bars: ‖x‖, ‖w‖, ‖Φ*‖_F
            r"(?P<norm>‖[^‖\s]{1,8}‖(?:_F)?)",
            # Latin letter with a hat or tilde (R̂, ŵ) or a subscript (k_R, r_J, TPR_low)
            rf"(?<![\w\\/.-])(?P<latin>[A-Za-z][\u0302\u0303]|[ŵŷ]|[A-Za-z]{_SUB}|[A-Z]{{2,}}{_SUB})(?![\w/])",
            # abbreviations in capitals (LBA, LLP, ESS, MCMC, COR2) and numbered names (A3, B1, C5.3)
            r"(?<![\w\\/.=&?])(?P<caps>[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*|[A-Z]\d+(?:\.\d+)*)(?![\w/=])",
            # tiers
            r"(?P<tier>\bTier [A-Z0-9]+\b)",
            # a single Latin letter used in a formula: "n = 16,000", "d > k", "k ≤ n/m", "(k, m, ρ)"
            r"(?<![\w\\/.'’-])(?P<single>[A-Za-z])(?=\s*(?:[=≤≥<>≈×·]|\)|,\s*[A-Za-z{_GREEK}]\W))",
        ]
    )
)
#: Words in capitals that are ordinary words, not symbols.
_NOT_SYMBOLS = {"I", "A", "OK"}
_CODE = re.compile(r"```.*?```|`[^`]*`", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_EMPHASIS = re.compile(r"\*\*|__|\\")


def _clean(text: str) -> str:
    """Remove what is not prose: code spans and blocks, link targets, bold markers and escapes."""
    text = _CODE.sub(" ", text)
    text = _LINK_TARGET.sub("] ", text)
    return _EMPHASIS.sub("", text)


def _norm(symbol: str) -> str:
    s = unicodedata.normalize("NFC", str(symbol).strip())
    s = s.replace("{", "").replace("}", "").replace("’", "′").replace("'", "′")
    return s


def symbols_in(text: str) -> set[str]:
    """The symbol-like tokens of ``text`` (Markdown as the pages write it), normalised."""
    found: set[str] = set()
    for m in _TOKEN.finditer(_clean(str(text))):
        tok = m.group(0)
        if m.lastgroup == "greek":
            tok = tok.rstrip("'")
        if m.lastgroup == "caps" and tok in _NOT_SYMBOLS:
            continue
        found.add(_norm(tok))
    return found


@cache
def _index() -> dict[str, Entry]:
    idx: dict[str, Entry] = {}
    for e in all_entries():
        for key in (e.symbol, e.name, *e.aliases):
            k = _norm(key)
            if k in idx and idx[k] is not e:
                raise RuntimeError(f"glossary key {key!r} is used by two entries")
            idx[k] = e
    return idx


def lookup_shared(symbol: str) -> Entry | None:
    """The shared entry (``glossary.json``) of ``symbol`` exactly as written, without loading the mechanism
    folders' catalogs (the same entry :func:`lookup` gives: the full index refuses a key used twice), for the
    command line's help texts (issue 29: ``calibrate`` starts without pandas)."""
    key = _norm(symbol)
    return next((e for e in _SHARED if key in (_norm(e.symbol), *map(_norm, e.aliases))), None)


def lookup(symbol: str) -> Entry | None:
    """The entry of ``symbol`` (as shown, its ASCII name or an alias), or ``None`` when there is none.

    Symbols and aliases must match exactly (after Unicode normalisation); ASCII names in any case.
    """
    if not isinstance(symbol, str):
        raise TypeError(f"symbol must be a string, got {type(symbol).__name__}.")
    key = _norm(symbol)
    if key in _index():
        return _index()[key]
    return next((e for e in all_entries() if e.name.lower() == key.lower()), None)  # "Epsilon", "SIGMA_B"


def tooltip(symbol: str) -> str:
    """A short text for a Streamlit ``help=``: ``"σ_b — plain meaning (source)"``.

    Raises ``KeyError`` for a symbol without an entry (a page must not show an unexplained symbol).
    """
    e = lookup(symbol)
    if e is None:
        raise KeyError(
            f"{symbol!r} has no glossary entry: add one to dp_core.glossary or to the mechanism folder's catalog.py."
        )
    return f"{e.symbol} — {e.plain}"


def tip(symbol: str, fallback: str = "") -> str | None:
    """:func:`tooltip` of ``symbol``, or ``fallback`` (``None`` if empty) when it has no entry."""
    try:
        return tooltip(symbol)
    except (KeyError, ValueError):
        return fallback or None


def unknown_symbols(text: str) -> list[str]:
    return sorted(s for s in symbols_in(text) if lookup(s) is None)


def as_dicts(entries=None) -> list[dict[str, object]]:
    return [{**asdict(e), "aliases": list(e.aliases)} for e in (all_entries() if entries is None else entries)]


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def as_markdown(entries=None) -> str:
    """The glossary as one Markdown table (symbol, meaning, definition and source, page)."""
    lines = ["| Symbol | Meaning | Definition and source | Page |", "|---|---|---|---|"]
    for e in all_entries() if entries is None else entries:
        shown = e.symbol + (f" ({', '.join(e.aliases)})" if e.aliases else "")
        lines.append(f"| {_md_cell(shown)} | {_md_cell(e.plain)} | {_md_cell(e.expert)} | {_md_cell(e.page)} |")
    return "\n".join(lines)
