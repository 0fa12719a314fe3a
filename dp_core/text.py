r"""Text that did not come from the code itself, made safe to show: the one escaping helper of the project.

A link's value, an uploaded file's name, column headers, categories and cells, a stored audit row or an
environment variable can hold Markdown or HTML. Streamlit renders Markdown in ``st.markdown``,
``st.caption``, alerts (``st.warning`` ...), widget labels and tooltips (``help=``); shown there unescaped,
``[Click](http://host/phish)`` becomes a live link and ``![x](http://host/pixel.png)`` an image the
visitor's browser fetches when the page opens. Every such text goes through :func:`escape_markdown`
before it reaches one of those places; the HTML report uses :func:`escape_html`.

How :func:`escape_markdown` neutralises Markdown (CommonMark 0.31 section 2.4 "Backslash escapes": an ASCII
punctuation character after a backslash renders as itself, and starts or ends no syntax):

* always escaped: ``\\ ` * [ ] < ! $ # | ~ { } ^ &``. That disarms link texts and images ``[x]``,
  ``![x]``, autolinks and raw HTML ``<…>``, reference links ``[x][1]`` / ``[1]: u``, footnotes, emphasis
  with ``*``, code spans, ATX headings, tables, strikethrough, ``$…$`` math and entities;
* escaped where they could start syntax, left alone where they cannot (so that ordinary messages keep
  their words: ``data_set.csv``, ``upload:alpha.csv``, ``File rejected: gzip-compressed (.gz)``):
  ``(`` at the start of the text (right after a ``]`` of the surrounding Markdown it would open a link
  destination; inside the text every ``]`` is escaped, so no other ``(`` can);
  ``_`` unless it stands between two letters or digits (intraword ``_`` opens no emphasis, section 6.2);
  ``@`` unless white space follows (an e-mail autolink needs a domain after it);
  ``:`` unless white space follows or a word that ends in neither ``:``, ``/``, ``[`` nor ``{`` (a scheme
  ``http://``, a shortcode ``:smile:`` or ``:material/icon:`` and a directive ``:red[…]`` all need one
  of those); ``- + = >`` at the start of a line (list items, setext headings, thematic breaks, block
  quotes) and the ``.`` or ``)`` after a number that opens a line (an ordered list item);
* three constructs are recognised in the *rendered* text, after escapes are resolved, so a backslash does
  not stop them: GFM's literal autolinks (``http://…``, ``www.…``, ``name@host.org``) and Streamlit's
  ``:emoji:`` / ``:material/icon:`` shortcodes. An invisible WORD JOINER (U+2060) follows every escaped
  ``:`` and ``@`` and separates ``www`` from a following ``.``, where none of their patterns accepts it.

The start and the end of the text count as a line start and as "no white space follows" (the text may be
put anywhere in a sentence). ``. , ; ? ' " / % -`` and the rest start nothing in running text.

:func:`unescape_markdown` undoes exactly that, so ``unescape_markdown(escape_markdown(t)) == t`` for every
text ``t`` (a property test checks it).

>>> print(escape_markdown("[x](http://h/p)").replace(JOINER, "<WJ>"))
\[x\](http\:<WJ>//h/p)
>>> unescape_markdown(escape_markdown("![x](http://h/p.png)"))
'![x](http://h/p.png)'
"""

from __future__ import annotations

import html
import re
import string
from typing import Any

__all__ = ["ALWAYS", "JOINER", "escape_html", "escape_markdown", "unescape_markdown"]

#: ASCII punctuation escaped wherever it stands.
ALWAYS = frozenset("\\`*[]<!$#|~{}^&")
_PUNCTUATION = frozenset(string.punctuation)  # what a backslash may escape (CommonMark 2.4)
#: U+2060 WORD JOINER: invisible, no line break, not a word or space character in any autolink pattern.
JOINER = "\u2060"
_JOIN_AFTER = frozenset(":@")  # "http://", "name@host", ":emoji:", ":material/icon:"
_LINE_START = frozenset("-+=>")  # list items, setext headings and thematic breaks, block quotes
_WWW = re.compile(f"(?i)(www{JOINER}*)\\.")  # "www.host": one more joiner before the dot
_WWW_BACK = re.compile(f"(?i)(www{JOINER}*){JOINER}\\.")
_LIST_NUMBER = re.compile(r"[ \t]*\d{1,9}[.)]")  # "1. item", "2) item"
_WORD = re.compile(r"[A-Za-z0-9_+-]+")  # what a shortcode or a directive name is made of


def _needs_escape(text: str, i: int, line_start: bool) -> bool:
    """Whether the punctuation character ``text[i]`` could start or end Markdown syntax where it stands."""
    ch = text[i]
    if ch in ALWAYS:
        return True
    after = text[i + 1] if i + 1 < len(text) else ""
    if ch == "(":
        return i == 0
    if ch == "@":
        return not after.isspace()  # also at the end of the text: "" is not white space
    if ch == ":":
        word = _WORD.match(text, i + 1)
        end = text[word.end() : word.end() + 1] if word else ""
        return not (after.isspace() or (word and end and end not in ":/[{"))
    if ch == "_":
        before = text[i - 1] if i > 0 else ""
        return not (before.isalnum() and after.isalnum())
    return line_start and ch in _LINE_START


def escape_markdown(text: Any) -> str:
    r"""``text`` (any object: its ``str``) as Markdown source that renders as exactly that text.

    >>> print(escape_markdown("**bold** $x$ in data_set.csv: ok (upload:a.csv)"))
    \*\*bold\*\* \$x\$ in data_set.csv: ok (upload:a.csv)
    """
    text = str(text)
    out = []
    line_start, number_end = True, -1  # only blanks so far on this line; where its list number ends
    for i, ch in enumerate(text):
        if line_start and not ch.isspace():
            found = _LIST_NUMBER.match(text, i)
            number_end = found.end() - 1 if found else -1
        if ch in _PUNCTUATION and (_needs_escape(text, i, line_start) or i == number_end):
            out.append("\\")
            out.append(ch)
            if ch in _JOIN_AFTER:
                out.append(JOINER)
        else:
            out.append(ch)
        line_start = ch in "\n\r" or (line_start and ch in " \t")
    return _WWW.sub(rf"\1{JOINER}.", "".join(out))


def unescape_markdown(text: str) -> str:
    """The text :func:`escape_markdown` was given (its inverse).

    >>> unescape_markdown(escape_markdown("a_b: c.d@e www.x 1. y"))
    'a_b: c.d@e www.x 1. y'
    """
    text = _WWW_BACK.sub(r"\1.", text)
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _PUNCTUATION:
            ch = text[i + 1]
            i += 1
            if ch in _JOIN_AFTER and i + 1 < n and text[i + 1] == JOINER:
                i += 1  # the joiner put after an escaped ":" or "@"
        out.append(ch)
        i += 1
    return "".join(out)


def escape_html(text: Any) -> str:
    """``text`` (any object: its ``str``) for HTML element content or a quoted attribute (``&<>"'`` escaped).

    >>> escape_html('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(str(text), quote=True)
