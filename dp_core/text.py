r"""Text that did not come from the code itself, made safe to show: the one escaping helper of the project.

A link's value, an uploaded file's name, column headers, categories and cells, a stored audit row or an
environment variable can hold Markdown or HTML. Streamlit renders Markdown in ``st.markdown``,
``st.caption``, alerts (``st.warning`` ...), widget labels and tooltips (``help=``); shown there unescaped,
``[Click](http://host/phish)`` becomes a live link and ``![x](http://host/pixel.png)`` an image the
visitor's browser fetches when the page opens. Every such text goes through :func:`escape_markdown`
before it reaches one of those places; the HTML report uses :func:`escape_html`.

How :func:`escape_markdown` neutralises Markdown (CommonMark section 2.4 "Backslash escapes": any ASCII
punctuation character may be backslash-escaped and then renders as itself):

* every ASCII punctuation character gets a backslash, which disarms links ``[x](u)``, images ``![x](u)``,
  autolinks ``<http://…>``, reference links ``[x][1]`` / ``[1]: u``, emphasis, headings, lists, block
  quotes, tables, code spans, raw HTML, entities, ``$…$`` math, ``:red[…]`` directives;
* three constructs are recognised in the *rendered* text, after escapes are resolved, so a backslash does
  not stop them: GFM's literal autolinks (``http://…``, ``www.…``, ``name@host.org``) and Streamlit's
  ``:emoji:`` / ``:material/icon:`` shortcodes. An invisible WORD JOINER (U+2060) is put after every ``:``
  and ``@`` and before every ``.``, which none of their patterns accepts there.

:func:`unescape_markdown` undoes exactly that, so ``unescape_markdown(escape_markdown(t)) == t`` for every
text ``t`` (a property test checks it).

>>> print(escape_markdown("[x](http://h/p)").replace(JOINER, "<WJ>"))
\[x\]\(http\:<WJ>\/\/h\/p\)
>>> unescape_markdown(escape_markdown("![x](http://h/p.png)"))
'![x](http://h/p.png)'
"""

from __future__ import annotations

import html
import string
from typing import Any

__all__ = ["JOINER", "PUNCTUATION", "escape_html", "escape_markdown", "unescape_markdown"]

#: ASCII punctuation: the characters CommonMark lets a backslash escape.
PUNCTUATION = frozenset(string.punctuation)
#: U+2060 WORD JOINER: invisible, no line break, not a word or space character in any autolink pattern.
JOINER = "\u2060"
_JOIN_AFTER = frozenset(":@")  # "http://", "name@host", ":emoji:", ":material/icon:"
_JOIN_BEFORE = frozenset(".")  # "www.host"


def escape_markdown(text: Any) -> str:
    r"""``text`` (any object: its ``str``) as Markdown source that renders as exactly that text.

    >>> print(escape_markdown("**bold** $x$"))
    \*\*bold\*\* \$x\$
    """
    out = []
    for ch in str(text):
        if ch in _JOIN_BEFORE:
            out.append(JOINER)
        if ch in PUNCTUATION:
            out.append("\\")
        out.append(ch)
        if ch in _JOIN_AFTER:
            out.append(JOINER)
    return "".join(out)


def unescape_markdown(text: str) -> str:
    """The text :func:`escape_markdown` was given (its inverse).

    >>> unescape_markdown(escape_markdown("a_b: c.d@e"))
    'a_b: c.d@e'
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == JOINER and text[i + 1 : i + 3] in {f"\\{c}" for c in _JOIN_BEFORE}:
            i += 1  # the joiner put before an escaped "."
            continue
        if ch == "\\" and i + 1 < n and text[i + 1] in PUNCTUATION:
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
