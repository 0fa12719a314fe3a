r"""Text that did not come from the code itself, made safe to show: the one escaping helper of the project.

Links, uploads, column names, stored rows and environment variables can hold Markdown or HTML that
Streamlit would render (a live link, an image fetched on page load). Every such text goes through
:func:`escape_markdown` (CommonMark backslash escapes, plus a WORD JOINER against autolinks and
shortcodes); :func:`unescape_markdown` undoes it exactly; the HTML report uses :func:`escape_html`.
The rules: ``docs/foundation.md`` §"Escaping untrusted text".
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
    """``text`` (any object: its ``str``) as Markdown source that renders as exactly that text."""
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
    """The text :func:`escape_markdown` was given (its inverse)."""
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
    """``text`` (any object: its ``str``) for HTML element content or a quoted attribute (``&<>"'`` escaped)."""
    return html.escape(str(text), quote=True)
