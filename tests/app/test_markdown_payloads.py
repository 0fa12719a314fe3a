"""Issue 24, part 2: Markdown and HTML in a link or an uploaded file never becomes the app's own markup.

Every page is opened (AppTest) with the payload corpus of ``tests/_hostile.py`` spread over all the link
keys it reads, and again with an uploaded file whose name, column headers, category cells and class
labels are payloads. Then every text the page hands to Streamlit's Markdown renderer (bodies of Markdown,
captions, headings and alerts; labels and tooltips of widgets, metrics, expanders and page links; radio
options) is checked: the payloads' addresses appear only escaped (``127.0.0.1\\:⁠9``, never
``127.0.0.1:9``), so no link, image or autolink can be formed, and Plotly text carries no ``<a>`` tag to
them. The real browser with a canary server is ``tests/browser/test_markdown_canary.py``.
"""

from __future__ import annotations

import json
import re
from itertools import cycle
from pathlib import Path

import pytest
from _hostile import markdown_payloads, payload_csv
from streamlit.testing.v1 import AppTest

from dp_core.text import escape_markdown
from ui.pages import DEFAULT_PAGE, PAGES
from ui.state import WEAKER_OK
from ui.widgets import A11Y_CSS

APP = "../../app.py"
HOST = "127.0.0.1:9"
PAYLOADS = markdown_payloads(HOST)
#: Markdown that would make a link, an image, raw HTML or a LaTeX link out of a payload: unescaped syntax in
#: the source (a backslash before the character disarms it) ...
SOURCE_ATTACKS = (
    re.compile(r"(?<!\\)\]\(\s*<?\s*(?:https?:|javascript:|data:|//)", re.I),  # [x](u), ![x](u)
    re.compile(r"(?<!\\)\]\s*:\s*<?\s*(?:https?:|javascript:|data:)", re.I),  # [1]: u
    re.compile(r"(?<!\\)<\s*(?:https?:|mailto:|a\b|img\b|script\b|iframe\b|svg\b|style\b)", re.I),  # autolink, HTML
    re.compile(r"(?<!\\)\$+[^$]*?(?<!\\)\\(?:href|url|includegraphics)"),  # $\href{u}{x}$
)
#: ... and the autolinks GFM and Streamlit find in the rendered text (escapes resolved, as in test_text.py).
RENDERED_ATTACKS = (
    re.compile(r"(?:https?://|www\.)[-.\w]", re.I | re.A),
    re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.A),
)
PAGE_PATHS = [p[0] for p in PAGES]
#: Fields of element protos that Streamlit renders as Markdown, and element types whose field is plain text.
MARKDOWN_FIELDS = {"body", "label", "help", "placeholder", "options", "captions"}
PLAIN = {"metric": {"body"}, "selectbox": {"options"}, "multiselect": {"options"}, "select_slider": {"options"}}
PLAIN_TYPES = {"text", "code", "json", "exception", "plotly_chart", "dataframe", "arrow_data_frame"}
PLOTLY_ANCHOR = re.compile(r"<\s*a\b[^>]*(127\.0\.0\.1|javascript:)", re.I)


def _strings(message, type_: str):
    """``(field, text)`` of the Markdown-rendered string fields of a proto message (nested ones too)."""
    for field, value in message.ListFields():
        if field.message_type is not None:
            for item in [value] if hasattr(value, "ListFields") else list(value):
                yield from _strings(item, type_)
        elif field.name in MARKDOWN_FIELDS and field.name not in PLAIN.get(type_, ()):
            for text in [value] if isinstance(value, str) else list(value):
                if isinstance(text, str):
                    yield field.name, text


def markdown_sources(at: AppTest) -> list[tuple[str, str, str]]:
    """``(element type, field, Markdown source)`` of every element of the page."""
    out: list[tuple[str, str, str]] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        type_ = getattr(node, "type", "")
        if proto is not None and type_ not in PLAIN_TYPES:
            out.extend((type_, f, t) for f, t in _strings(proto, type_))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return out


def _rendered(source: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", source)


def leaks(at: AppTest) -> list[str]:
    """Payload text that reached a Markdown source as syntax, or an anchor in a chart's text."""
    found = [
        f"{t}.{f}: {s[:160]!r}"
        for t, f, s in markdown_sources(at)
        if s != A11Y_CSS  # the app's own constant style sheet (ui.widgets), never a visitor's text
        and _attack(s)
    ]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        texts = re.findall(r'"((?:[^"\\]|\\.)*)"', json.dumps({k: v for k, v in spec.items() if k != "config"}))
        found += [f"plotly: {t[:160]!r}" for t in texts if PLOTLY_ANCHOR.search(json.loads(f'"{t}"'))]
    return found


def _attack(source: str) -> bool:
    return any(p.search(source) for p in SOURCE_ATTACKS) or any(p.search(_rendered(source)) for p in RENDERED_ATTACKS)


def test_the_check_sees_raw_payloads_and_passes_escaped_ones():
    raw = [p for p in PAYLOADS if _attack(p)]
    assert len(raw) >= 25  # the links, images, autolinks, references, HTML and LaTeX of the corpus
    assert not [p for p in PAYLOADS if _attack(escape_markdown(p))]
    assert not _attack("Audit table: **proved** [reopen ↗](audit?mechanism=gaussian)")  # the app's own links


def page_keys(path: str) -> list[str]:
    from test_hostile_links import DECLARED

    return [k for k, s in DECLARED.items() if s.page in (None, path) and k != "trials"]


# ------------------------------------------------------------------ link values
@pytest.mark.parametrize("path", PAGE_PATHS, ids=[Path(p).stem for p in PAGE_PATHS])
def test_payloads_in_every_link_key_stay_text(path):
    at = AppTest.from_file(APP, default_timeout=240)
    keys = page_keys(path) + ["source"]
    at.session_state[WEAKER_OK] = set(keys)
    for key, payload in zip(keys, cycle(PAYLOADS)):
        at.query_params[key] = payload
    at.query_params["trials"] = "10"
    if path != DEFAULT_PAGE:
        at.switch_page(path)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    sources = markdown_sources(at)
    quoted = [s for _t, _f, s in sources if "The link" in s]
    assert quoted, "no message about the hostile link values was shown"
    assert len(keys) >= 10  # every shared key and the page's own
    assert leaks(at) == []


def test_a_shared_payload_in_a_message_reads_as_the_link_gave_it():
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["dataset"] = PAYLOADS[0]
    at.run()
    messages = [w.value for w in at.warning if "(dataset)" in w.value]
    assert len(messages) == 1 and "127.0.0.1\\:\u20609" in messages[0]
    assert leaks(at) == []


# ------------------------------------------------------------------ an uploaded file
FILE_NAME = "[report](http://127.0.0.1:9/file).csv"


@pytest.fixture(scope="module")
def uploaded() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    for key, value in {"trials": "10", "k": "4", "m": "20"}.items():
        at.query_params[key] = value
    at.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((FILE_NAME, payload_csv(HOST), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["upload_dataset"] is not None, [e.value for e in at.error]
    return at


def test_the_upload_is_accepted_and_its_name_shown_escaped(uploaded):
    names = [s.value for s in uploaded.success if "Using" in s.value]
    assert len(names) == 1 and "\\[report\\](http\\:\u2060//127.0.0.1\\:\u20609/file).csv" in names[0]
    assert leaks(uploaded) == []


@pytest.mark.parametrize("path", PAGE_PATHS, ids=[Path(p).stem for p in PAGE_PATHS])
def test_an_uploaded_files_payloads_stay_text_on_every_page(uploaded, path):
    uploaded.switch_page(path).run()
    assert not uploaded.exception, [e.value for e in uploaded.exception]
    assert leaks(uploaded) == []
    assert uploaded.session_state["p_source"] == "upload"
    assert uploaded.query_params.get("source") in ("upload", ["upload"])  # the address bar says it, too
    if path == "pages/compare.py":  # the share link: the marker, never the file or its name
        links = [c.value for c in uploaded.code if "?" in c.value and "eps=" in c.value]
        assert links and all("source=upload" in c and "report" not in c and "127.0.0.1" not in c for c in links)
