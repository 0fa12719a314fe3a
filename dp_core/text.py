r"""Text that did not come from the code itself, made safe to show: the one escaping helper of the project.

A link's value, an uploaded file's name, column headers, categories and cells, a stored audit row or an
environment variable can hold Markdown or HTML. Streamlit renders Markdown in ``st.markdown``,
``st.caption``, alerts (``st.warning`` ...), widget labels and tooltips (``help=``); shown there unescaped,
``[Click](http://host/phish)`` becomes a live link and ``![x](http://host/pixel.png)`` an image the
visitor's browser fetches when the page opens. Every such text goes through :func:`escape_markdown`
before it reaches one of those places; the HTML report uses :func:`escape_html`.

How :func:`escape_markdown` neutralises Markdown (CommonMark section 2.4 "Backslash escapes": an ASCII
punctuation character after a backslash renders as itself):

* every ASCII punctuation character that can start or end Markdown syntax gets a backslash (all of them
  but ``. , ; ? ' " / %``, which start nothing in running text), which disarms links ``[x](u)``, images
  ``![x](u)``, autolinks ``<http://…>``, reference links ``[x][1]`` / ``[1]: u``, emphasis, headings, lists,
  block quotes, tables, code spans, raw HTML, entities, ``$…$`` math and ``:red[…]`` directives; a ``.``
  after the digits that open a line (an ordered list item) gets one too;
* three constructs are recognised in the *rendered* text, after escapes are resolved, so a backslash does
  not stop them: GFM's literal autolinks (``http://…``, ``www.…``, ``name@host.org``) and Streamlit's
  ``:emoji:`` / ``:material/icon:`` shortcodes. An invisible WORD JOINER (U+2060) is put after every ``:``
  and ``@`` and between ``www`` and a following ``.``, where none of their patterns accepts it.

:func:`unescape_markdown` undoes exactly that, so ``unescape_markdown(escape_markdown(t)) == t`` for every
text ``t`` (a property test checks it).

>>> print(escape_markdown("[x](http://h/p)").replace(JOINER, "<WJ>"))
\[x\]\(http\:<WJ>//h/p\)
>>> unescape_markdown(escape_markdown("![x](http://h/p.png)"))
'![x](http://h/p.png)'
"""

from __future__ import annotations

import html
import re
import string
from typing import Any

__all__ = ["ESCAPED", "JOINER", "escape_html", "escape_markdown", "unescape_markdown"]

#: The ASCII punctuation :func:`escape_markdown` backslash-escapes: all but ``. , ; ? ' " / %``.
ESCAPED = frozenset(string.punctuation) - frozenset(".,;?'\"/%")
_PUNCTUATION = frozenset(string.punctuation)  # what a backslash may escape (CommonMark 2.4)
#: U+2060 WORD JOINER: invisible, no line break, not a word or space character in any autolink pattern.
JOINER = "\u2060"
_JOIN_AFTER = frozenset(":@")  # "http://", "name@host", ":emoji:", ":material/icon:"
_WWW = re.compile(f"(?i)(www{JOINER}*)\\.")  # "www.host": one more joiner before the dot
_WWW_BACK = re.compile(f"(?i)(www{JOINER}*){JOINER}\\.")
_LIST_ITEM = re.compile(r"(?m)^([ \t]*\d{1,9})\.")  # "1. item" at the start of a line


def escape_markdown(text: Any) -> str:
    r"""``text`` (any object: its ``str``) as Markdown source that renders as exactly that text.

    >>> print(escape_markdown("**bold** $x$ in data.csv"))
    \*\*bold\*\* \$x\$ in data.csv
    """
    out = []
    for ch in str(text):
        if ch in ESCAPED:
            out.append("\\")
        out.append(ch)
        if ch in _JOIN_AFTER:
            out.append(JOINER)
    escaped = _LIST_ITEM.sub(r"\1\\.", "".join(out))
    return _WWW.sub(rf"\1{JOINER}.", escaped)


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
