"""One glossary of every symbol and abbreviation the app and the CLI show to people.

Each entry of :data:`GLOSSARY` gives the symbol as it is shown (``ε``, ``σ_b``, ``Δ*``, ``LBA``), an
ASCII name (what the CLI accepts, e.g. ``epsilon``, ``sigma_b``), a plain one-sentence meaning for a
newcomer, the expert definition with the paper and equation it comes from, and the page where it
matters most. The app's tooltips (:func:`tooltip`), the CLI's ``glossary`` command and the help of
the shared ``--eps``/``--delta`` options are all generated from this one table.

:func:`symbols_in` finds the symbol-like tokens of a text (Greek letters with their subscripts,
hats and stars, subscripted Latin letters, single letters used in a formula, abbreviations in
capitals, assumption and tier names); a test checks that every token a page shows has an entry.

References (cited by authors, title and equation)
-------------------------------------------------
* [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014.
* [BW18] B. Balle and Y.-X. Wang, *Improving the Gaussian Mechanism for Differential Privacy:
  Analytical Calibration and Optimal Denoising*, ICML 2018.
* [FTS17] K. Fukuchi, Q. K. Tran and J. Sakuma, *Differentially Private Empirical Risk Minimization
  with Input Perturbation*, Discovery Science 2017.
* [PR10] M. A. Pathak and B. Raj, *Large Margin Multiclass Gaussian Classification with
  Differential Privacy*, PSDML 2010.
* [BMS] R. Brahmbhatt et al., *Label Differential Privacy via Aggregation*.
* [WX] D. Wang and J. Xu, *On Sparse Linear Regression in the Local Differential Privacy Model* /
  heavy-tailed ℓ1 regression with the exponential mechanism on a truncated loss.
* [KST12] D. Kifer, A. Smith and A. Thakurta, *Private Convex Empirical Risk Minimization and
  High-dimensional Regression*, COLT 2012.
* [CMS11] K. Chaudhuri, C. Monteleoni and A. Sarwate, *Differentially Private Empirical Risk
  Minimization*, JMLR 2011.
* [JUO20] M. Jagielski, J. Ullman and A. Oprea, *Auditing Differentially Private Machine Learning*,
  NeurIPS 2020.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from . import status as _status

__all__ = [
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
    """One glossary entry.

    Attributes
    ----------
    symbol : str
        As shown on the pages (``"σ_b"``).
    name : str
        ASCII name (``"sigma_b"``), accepted by :func:`lookup` and the CLI.
    plain : str
        One sentence for a newcomer.
    expert : str
        The precise definition and where it comes from (paper, equation or theorem).
    page : str
        The page where it matters most (a title of ``ui/pages.py``; ``""`` for general terms).
    aliases : tuple of str
        Other spellings shown on the pages (``"ε_run"`` for the ε a mechanism runs at, ...).
    """

    symbol: str
    name: str
    plain: str
    expert: str
    page: str = ""
    aliases: tuple[str, ...] = ()


#: Pages (titles of ``ui/pages.py``) of the shared entries; a mechanism's entries are in its folder's catalog.
_HOME, _CMP, _AUD, _TOUR = ("Home", "Compare and negotiate", "Privacy audit", "Start here")


def entry(symbol, name, plain, expert, page="", *aliases) -> Entry:
    """An :class:`Entry`, its aliases given as further arguments."""
    return Entry(symbol, name, plain, expert, page, tuple(aliases))


_SHARED: tuple[Entry, ...] = (
    # ---------------------------------------------------------------- the privacy budget
    entry(
        "ε",
        "epsilon",
        "The privacy budget: smaller ε means stronger privacy and more noise; whatever is learned "
        "about one person can change by a factor of at most e^ε.",
        "A mechanism M is (ε, δ)-differentially private if P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ for all neighbouring "
        "D, D′ and all events S [DR14, Definition 2.4].",
        _HOME,
        "eps",
        "e^ε",
    ),
    entry(
        "δ",
        "delta",
        "The small probability that the ε promise may fail; keep it far below 1/n.",
        "The additive slack of (ε, δ)-differential privacy [DR14, Definition 2.4]; δ ≥ 1/n would allow publishing "
        "one whole record.",
        _HOME,
        "δ′",
    ),
    entry(
        "e",
        "euler",
        "Euler's number 2.718…; e^ε is the largest factor by which odds can change.",
        "Base of the natural logarithm in the definition of (ε, δ)-DP [DR14, Definition 2.4].",
        _HOME,
    ),
    entry(
        "DP",
        "differential_privacy",
        "Differential privacy: a promise that the result barely depends on any one person's record.",
        "(ε, δ)-differential privacy [DR14, Definition 2.4]; label-DP protects the labels "
        "only, local DP protects each contributor's message.",
        _HOME,
        "label-DP",
        "GDP",
    ),
    entry(
        "σ",
        "sigma",
        "The standard deviation of the Gaussian noise added to a result.",
        "Gaussian mechanism: σ from the analytic calibration [BW18, Theorem 8] or the classic "
        "σ = Δ₂√(2 ln(1.25/δ))/ε, valid for ε ≤ 1 [DR14, Theorem A.1].",
        _HOME,
    ),
    entry(
        "b",
        "laplace_scale",
        "The scale of Laplace noise (its standard deviation is √2·b); also the noise "
        "matrix or vector added to an objective.",
        "Laplace mechanism b = Δ₁/ε [DR14, Theorem 3.6]; in objective "
        "perturbation b is the random linear term [CMS11, Algorithm 2], [PR10, eq. (9)].",
        _HOME,
    ),
    entry(
        "Δ₁",
        "sensitivity",
        "How much one person can change the result before noise is added.",
        "ℓ1 or ℓ2 sensitivity: the largest change of f between neighbouring datasets [DR14, Definition 3.1].",
        _TOUR,
        "Δ₂",
        "Δu",
        "Δ_u",
    ),
    entry(
        "D",
        "dataset",
        "The dataset; D and D′ are two neighbouring datasets that differ in one person's record.",
        "Neighbouring datasets (replace-one or add/remove) in the definition of DP [DR14, §2.3].",
        _AUD,
        "D′",
        "p_D",
        "Φ*_D",
    ),
    entry(
        "n",
        "n",
        "The number of rows (people) in the data.",
        "Training-set size, public [FTS17, §2]; all bounds are stated in n.",
        _HOME,
    ),
    entry(
        "d",
        "d",
        "The number of features (columns used to predict).",
        "Dimension of the feature vector x (and of the parameter w).",
        _HOME,
    ),
    entry("x", "x", "One person's features.", "Feature vector x ∈ R^d, usually scaled so that ‖x‖ ≤ 1.", _HOME),
    entry("y", "y", "One person's label (what is predicted).", "Label y, bounded |y| ≤ 1 or |y| ≤ B1.", _HOME),
    entry(
        "‖x‖",
        "norm_x",
        "The length of a row of features; mechanisms need it bounded, usually ‖x‖ ≤ 1.",
        "Euclidean norm ‖x‖₂; the bound must be public, not read from the data [DR14, §3.3].",
        _HOME,
    ),
    entry(
        "LOCAL",
        "LOCAL",
        "The audit mode that tests one contributor's local privacy claim.",
        "Audits ε_L of [FTS17, Corollary 1] on one contributor's message.",
        _AUD,
    ),
    entry(
        "R̂",
        "R_hat",
        "A convergence check of MCMC chains: close to 1 means the chains agree.",
        "Rank-normalised split R̂ (Vehtari et al. 2021); threshold R̂ ≤ 1.05.",
        _CMP,
    ),
    entry(
        "ESS",
        "ESS",
        "Effective sample size: how many independent draws the MCMC chains are worth.",
        "Bulk ESS (Vehtari et al. 2021); threshold ESS ≥ 100.",
        _CMP,
    ),
    # ---------------------------------------------------------------- compare, audit, general
    entry("OLS", "OLS", "Ordinary least squares: the plain linear regression.", "argmin Σ(y − ⟨x, w⟩)².", _CMP),
    entry(
        "L2",
        "L2",
        "The usual (Euclidean) length of a vector.",
        "ℓ2 norm; L2 sensitivity [DR14, Definition 3.8].",
        _CMP,
        "ℓ2",
        "ℓ1",
    ),
    entry(
        "R²",
        "r2",
        "How much of the target's variation a model explains (1 is perfect).",
        "Coefficient of determination on held-out data.",
        _CMP,
    ),
    entry(
        "TPR_low",
        "TPR_low",
        "The audit's lower confidence limit on how often the test spots dataset D.",
        "Clopper-Pearson bound; ε ≥ ln((TPR_low − δ)/FPR_high) [JUO20, Algorithm 2].",
        _AUD,
        "FPR_high",
        "TPR",
        "FPR",
    ),
    entry(
        "BW18",
        "references",
        "A reference to a paper by its authors' initials and year (BW18: Balle and Wang 2018).",
        "The references listed in the docstring of dp_core.glossary: BW18, DR14, FTS17, PR10, BMS, WX, "
        "KST12, CMS11, JUO20.",
        _AUD,
        "DR14",
        "KST12",
        "CMS11",
        "CMS",
        "FTS17",
        "PR10",
        "BMS",
        "WX",
        "JUO20",
    ),
    entry(
        "IPUMS",
        "IPUMS",
        "A public census-data archive; the census demo is synthetic data shaped like it.",
        "The Integrated Public Use Microdata Series extract used by [FTS17, §6].",
        _HOME,
    ),
    entry(
        "JSON",
        "JSON",
        "A plain-text file format for settings and results.",
        "A standard text format for structured data.",
        _CMP,
        "CSV",
        "HTML",
    ),
)


#: Where each status comes from (the expert side of the status entries; plain side: :data:`dp_core.status.DEFINITIONS`).
_STATUS_EXPERT = {
    _status.PROVED: "A theorem of the paper or a proof in the project's docs (docs/<mechanism>.md) covers "
    "the exact (ε, δ) and sampler that run, with δ ≤ 1/n [DR14, §2.3]; an audit that finds no violation is "
    "supporting evidence only.",
    _status.PROVED_WEAK: "As proved, but δ > 1/n or δ ≥ 1: the guarantee allows publishing about one whole "
    "record [DR14, §2.3].",
    _status.CLAIMED: "The paper's theorem as printed; not re-derived in the project's docs (docs/audit.md).",
    _status.AUDITED: "A seeded audit [JUO20, Algorithm 2] found an ε lower bound not above the claimed ε; "
    "a lower bound cannot show a guarantee holds.",
    _status.REFUTED: "A counterexample in the project's docs (docs/<mechanism>.md) or an audit lower bound "
    "above the claimed ε [JUO20, Algorithm 2] shows the claim false.",
}

_STATUS_ENTRIES = tuple(
    entry(s, s.split(":")[0].replace(" ", "_"), _status.DEFINITIONS[s], _STATUS_EXPERT[s], _AUD)
    for s in _status.STATUSES
)


def all_entries() -> tuple[Entry, ...]:
    """The whole glossary: the shared entries, each mechanism folder's ``catalog.GLOSSARY`` (registry order,
    :mod:`dp_core.catalog`; tuples ``(symbol, name, plain, expert, *aliases)`` on ``catalog.GLOSSARY_PAGE``),
    then the statuses."""
    from . import catalog

    pages = tuple(
        entry(*t[:4], c.GLOSSARY_PAGE, *t[4:]) for c in catalog.catalogs() for t in getattr(c, "GLOSSARY", ())
    )
    return _SHARED + pages + _STATUS_ENTRIES


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
    """The symbol-like tokens of ``text`` (Markdown as the pages write it), normalised.

    >>> sorted(symbols_in("With ε = 1 and σ_b = 2, the LBA bound for k_R holds (‖x‖ ≤ 1)."))
    ['LBA', 'k_R', 'ε', 'σ_b', '‖x‖']
    """
    found: set[str] = set()
    for m in _TOKEN.finditer(_clean(str(text))):
        tok = m.group(0)
        if m.lastgroup == "greek":
            tok = tok.rstrip("'")
        if m.lastgroup == "caps" and tok in _NOT_SYMBOLS:
            continue
        found.add(_norm(tok))
    return found


_INDEX: dict[str, Entry] | None = None


def _index() -> dict[str, Entry]:
    global _INDEX
    if _INDEX is None:
        idx: dict[str, Entry] = {}
        for e in all_entries():
            for key in (e.symbol, e.name, *e.aliases):
                k = _norm(key)
                if k in idx and idx[k] is not e:
                    raise RuntimeError(f"glossary key {key!r} is used by two entries")
                idx[k] = e
        _INDEX = idx
    return _INDEX


def lookup(symbol: str) -> Entry | None:
    """The entry of ``symbol`` (as shown, its ASCII name or an alias), or ``None`` when there is none.

    Symbols and aliases must match exactly (after Unicode normalisation); ASCII names in any case.
    """
    if not isinstance(symbol, str):
        raise TypeError(f"symbol must be a string, got {type(symbol).__name__}.")
    idx = _index()
    key = _norm(symbol)
    if key in idx:
        return idx[key]
    for e in all_entries():  # ASCII names in any case ("Epsilon", "SIGMA_B")
        if e.name.lower() == key.lower():
            return e
    return None


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


def unknown_symbols(text: str) -> list[str]:
    """The symbol-like tokens of ``text`` that have no glossary entry (sorted)."""
    return sorted(s for s in symbols_in(text) if lookup(s) is None)


def as_dicts(entries=None) -> list[dict[str, object]]:
    """The entries as plain dictionaries (for JSON and tables)."""
    return [
        {
            "symbol": e.symbol,
            "name": e.name,
            "plain": e.plain,
            "expert": e.expert,
            "page": e.page,
            "aliases": list(e.aliases),
        }
        for e in (all_entries() if entries is None else entries)
    ]


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def as_markdown(entries=None) -> str:
    """The glossary as one Markdown table (symbol, meaning, definition and source, page)."""
    lines = ["| Symbol | Meaning | Definition and source | Page |", "|---|---|---|---|"]
    for e in all_entries() if entries is None else entries:
        shown = e.symbol + (f" ({', '.join(e.aliases)})" if e.aliases else "")
        lines.append(f"| {_md_cell(shown)} | {_md_cell(e.plain)} | {_md_cell(e.expert)} | {_md_cell(e.page)} |")
    return "\n".join(lines)
