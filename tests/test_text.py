"""dp_core.text: the one escaping helper (issue 24, part 2).

Streamlit's renderer cannot run in a unit test, so the tests assert the structural properties that make a
Markdown renderer show the escaped text literally:

* every ASCII punctuation character of the output that could open or close Markdown syntax where it stands
  is backslash-escaped (CommonMark 2.4): ``[ ] < ! $ * ` # \\ | ~ { } ^ &`` everywhere, ``(`` at the start,
  ``@`` unless white space follows, ``:`` unless white space or a word not followed by ``: / [ {`` follows,
  ``_`` unless it stands between two letters or digits, ``- + = >`` and list numbers at the start of a
  line; so none can open a link, an image, an autolink, a reference, emphasis, a heading, a list, a table,
  raw HTML or math;
* the text the renderer sees after resolving those escapes matches none of the patterns that are applied
  to rendered text (GFM's literal autolinks, as written in Streamlit's bundled
  mdast-util-gfm-autolink-literal, and the ``:emoji:`` / ``:material/…:`` shortcodes);
* unescaping gives the original text back (nothing is lost or changed).
"""

from __future__ import annotations

import html
import re
import string

import pytest
from _hostile import MARKDOWN_PAYLOADS, markdown_payloads
from hypothesis import given, settings
from hypothesis import strategies as st

from dp_core.text import JOINER, escape_html, escape_markdown, unescape_markdown

HOST = "127.0.0.1:8765"
PAYLOADS = markdown_payloads(HOST)
#: The patterns applied to rendered text: GFM literal autolinks (URL and e-mail) and shortcodes.
RENDERED_PATTERNS = (
    re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I | re.A),
    re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.A),
    re.compile(r":[\w+-]+:", re.A),
    re.compile(r":material[/_]\w+:", re.A),
)


ANYWHERE = set("[]<!$*`#\\|~{}^&")


def raw_syntax(source: str) -> list[str]:
    """Unescaped characters of ``source`` that could start or end Markdown syntax where they stand."""
    bad, i, n = [], 0, len(source)
    while i < n:
        if source[i] == "\\" and i + 1 < n and source[i + 1] in string.punctuation:
            i += 2
            continue
        ch, before, after = source[i], source[i - 1 : i], source[i + 1 : i + 2]
        line_start = source[:i].split("\n")[-1].strip(" \t") == ""
        rest = rendered_text(source[i + 1 : i + 200]) if ch == ":" else ""  # what a shortcode pattern sees
        word = re.match(r"[A-Za-z0-9_+-]+", rest)
        word_end = rest[word.end() : word.end() + 1] if word else ""
        if (
            ch in ANYWHERE
            or (ch == "(" and i == 0)
            or (ch == "@" and not after.isspace())
            or (ch == ":" and not (after.isspace() or (word and word_end and word_end not in ":/[{")))
            or (ch == "_" and not (before.isalnum() and after.isalnum()))
            or (ch in "-+=>" and line_start)
        ):
            bad.append(f"{i}:{ch}")
        i += 1
    return bad


def rendered_text(source: str) -> str:
    """The text a CommonMark renderer shows for ``source`` once every character is escaped (escapes resolved)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", source)


def check_inert(text: str) -> None:
    source = escape_markdown(text)
    assert raw_syntax(source) == []
    assert not re.search(r"(?m)^[ \t]*\d+[.)]", source)  # no ordered-list item
    shown = rendered_text(source)
    for pattern in RENDERED_PATTERNS:
        assert not pattern.search(shown), (pattern.pattern, shown[:200])
    assert unescape_markdown(source) == text
    assert shown.replace(JOINER, "") == text.replace(JOINER, "")  # what the visitor reads is the text itself


def test_the_corpus_is_large_and_covers_every_kind():
    assert len(PAYLOADS) >= 30
    kinds = ("](http", "![", "<http", "]: http", "<img", "<a href", "<script", "\\href", "\\(", ":red[", ":smile:")
    for needle in kinds:
        assert any(needle in p for p in PAYLOADS), needle
    assert max(len(p) for p in PAYLOADS) > 5000
    assert sum(HOST in p for p in PAYLOADS) >= 25  # most point at the canary host


@pytest.mark.parametrize("payload", PAYLOADS, ids=[f"p{i:02d}" for i in range(len(MARKDOWN_PAYLOADS))])
def test_every_payload_is_inert_and_round_trips(payload):
    check_inert(payload)


@pytest.mark.parametrize(
    "text",
    ["", "plain words", "ε = 0.1, δ = 1e-5", "a\\b", "\\", JOINER, f"a{JOINER}.", f":{JOINER}", "w.", "\\\\."]
    + [f"WwW{JOINER * i}.x" for i in range(3)]
    + ["1. item", "  12. x\n3) y", "1\\. z", "www:.", "www\\.x", "a: b", "a:", "_a_", "x_y", "é_ü", "\n- x", " > q"]
    + ["a:\u2060b", "a\\:b", "a\\\\:b", "- a\n  + b\n=\n", "\r1) x", "a@b.org", "x @y"]
    + ["(x)", "a:b:c", "x:y.z:w", ":material/home:", "a:b", ":red[x]", "]:b", "a](b)", ":+1:", "x:é:"],
)
def test_edge_cases_round_trip(text):
    check_inert(text)


def test_plain_prose_keeps_its_words():
    assert escape_markdown("census rows 20 000") == "census rows 20 000"
    prose_cases = ("data.csv, 0.5; ok? 'a' \"b\" 10%", "File rejected: gzip-compressed (.gz)", "column delta_t")
    for prose in (*prose_cases, "a@ b", "upload:alpha.csv", "twice the rows (1,138 rows)"):
        assert escape_markdown(prose) == prose
    assert escape_markdown(3) == "3"


def test_the_attack_of_issue_24_is_not_a_link_or_an_image():
    source = escape_markdown(f"[Click to verify your account](http://{HOST}/phish)")
    assert source.startswith("\\[") and "\\](" in source  # the link text's brackets are literal: no link
    assert not re.search(r"(?<!\\)[\[\]]", source)
    image = escape_markdown(f"![x](http://{HOST}/pixel.png)")
    assert image.startswith("\\!\\[")


PUNCTUATION_HEAVY = st.sampled_from([*string.punctuation, "w", "W", "h", "t", "p", "s", "1", " ", "\n", JOINER, "é"])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=PUNCTUATION_HEAVY))
def test_any_punctuation_heavy_text_is_inert_and_round_trips(text):
    check_inert(text)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_is_inert_and_round_trips(text):
    check_inert(text)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_escape_html_round_trips_and_leaves_no_markup(text):
    out = escape_html(text)
    assert not set("<>\"'") & set(out)
    assert html.unescape(out) == text
