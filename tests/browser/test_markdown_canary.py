"""Issue 24, part 2, in a real browser: link and file payloads never become a link or a fetched image.

A canary HTTP server on loopback counts every request it gets. The payload corpus of ``tests/_hostile.py``
points at it: Markdown links, images, autolinks, reference links, raw HTML (``<img onerror>``, ``<a href>``,
``<script>``, ``<iframe>``, ``<svg onload>``), LaTeX ``\\href`` / ``\\includegraphics``, shortcodes and
directives. Then

* every page is opened from a link whose keys carry the payloads (the shared ones and the page's own);
* a file whose name, column headers, category cells and class labels are payloads is uploaded on Home and
  every page is visited with it; on Compare its HTML report is downloaded and opened in the browser;

and after each page is idle the DOM holds no element whose ``href``/``src`` (or ``xlink:href``, ``srcset``,
``action``, ``poster``, ``data``) names the canary, the payload reads literally on the page, and the canary
has received no request at all.
"""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import cycle
from pathlib import Path
from urllib.parse import urlencode

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _hostile import markdown_payloads, payload_csv  # noqa: E402
from test_every_page import _wait_idle, open_tab  # noqa: E402

from ui.constants import URL_PARAMS, plugin_url_params  # noqa: E402
from ui.pages import DEFAULT_PAGE, PAGES  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

PAGE_TIMEOUT_S = 240
#: Quick settings kept valid (not payloads), so that every page computes in seconds.
QUICK = {"trials": "10", "seed": "1", "k": "4", "m": "20"}
QUICK_PAGE = {
    "pages/large_margin_gaussian.py": {"lm_n": "300"},
    "pages/l1_exponential.py": {"l1_sim_trials": "4", "l1_sim_n": "500", "l1_releases": "10"},
    "pages/compare.py": {"n_eps": "4"},
    "pages/audit.py": {"audit_runs": "2000"},
}
ATTRS = ("href", "src", "xlink:href", "srcset", "action", "formaction", "poster", "data")
_FIND_JS = """([needle, attrs]) => {
  const hits = [];
  for (const el of document.querySelectorAll('*')) {
    for (const name of attrs) {
      const v = el.getAttribute(name);
      if (v && v.includes(needle)) hits.push(el.tagName + '[' + name + '=' + v.slice(0, 120) + ']');
    }
  }
  return hits;
}"""


class Canary:
    """A loopback HTTP server that counts every request (any method, any path)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        canary = self

        class Handler(BaseHTTPRequestHandler):
            def _count(self) -> None:
                canary.hits.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_HEAD = do_OPTIONS = _count

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def canary():
    c = Canary()
    yield c
    c.close()


def _check(page, canary: Canary, where: str) -> None:
    hits = page.evaluate(_FIND_JS, [canary.host, list(ATTRS)])
    assert hits == [], f"{where}: elements pointing at the canary: {hits[:5]}"
    errors = page.locator('[data-testid="stException"]').all_inner_texts()
    assert errors == [], f"{where}: {[e[:600] for e in errors]}"
    time.sleep(0.5)  # a fetch started by a rendered image would have reached the loopback canary by now
    assert canary.hits == [], f"{where}: the canary was reached: {canary.hits[:5]}"


def _link_keys(path: str) -> list[str]:
    declared = {**{k: s for k, s in plugin_url_params().items() if s.page is not None}, **URL_PARAMS}
    return [k for k, s in declared.items() if s.page in (None, path) and k not in QUICK | QUICK_PAGE.get(path, {})]


@pytest.mark.parametrize("entry", PAGES, ids=[Path(p[0]).stem for p in PAGES])
def test_link_payloads_on_every_page(entry, page, app_url, canary):
    path = entry[0]
    payloads = markdown_payloads(canary.host)
    keys = [*_link_keys(path), "source"]
    query = {**dict(zip(keys, cycle(payloads))), **QUICK, **QUICK_PAGE.get(path, {})}
    stem = "" if path == DEFAULT_PAGE else Path(path).stem
    page.goto(f"{app_url}/{stem}?{urlencode(query)}", wait_until="domcontentloaded")
    page.locator('[data-testid="stAlert"]').first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S), f"{path} did not finish"
    _check(page, canary, path)
    shown = page.evaluate("() => document.body.innerText").replace("\u2060", "")
    assert "The link" in shown


def test_a_link_payload_reads_literally(page, app_url, canary):
    phish = f"[Click to verify your account](http://{canary.host}/phish)"
    page.goto(f"{app_url}/?{urlencode({'dataset': phish, **QUICK})}", wait_until="domcontentloaded")
    alert = page.locator('[data-testid="stAlert"]', has_text="(dataset)").first
    alert.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S)
    assert phish in alert.inner_text().replace("\u2060", "")  # shown as the link gave it, no backslash
    assert alert.locator("a").count() == 0
    _check(page, canary, "home, dataset link")


def _visit(page, stem: str) -> None:
    side = '[data-testid="stSidebar"]'
    page.locator(f'{side} a[href="{stem}"], {side} a[href$="/{stem}"]').first.click()
    page.wait_for_url(f"**/{stem}*", timeout=60_000)
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S), f"{stem} did not finish"


def test_an_uploaded_files_payloads_and_its_report(page, app_url, canary, browser, tmp_path):
    name = f"[report](http://{canary.host}/file).csv"
    page.goto(f"{app_url}/?{urlencode(QUICK)}", wait_until="domcontentloaded")
    page.get_by_text("Upload a CSV file").click()
    page.locator("input[type=file]").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": payload_csv(canary.host)}
    )
    using = page.locator('[data-testid="stAlert"]', has_text="Using")
    using.first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S)
    assert name in using.first.inner_text().replace("\u2060", "")
    _check(page, canary, "home with the upload")
    for path, *_ in PAGES:
        if path != DEFAULT_PAGE:
            _visit(page, Path(path).stem)
            _check(page, canary, f"{path} with the upload")
    _visit(page, "compare")
    open_tab(page, "Share and export")
    button = page.get_by_role("button", name="Download the HTML report")
    button.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    with page.expect_download(timeout=PAGE_TIMEOUT_S * 1000) as info:
        button.click()
    report_path = tmp_path / "report.html"
    info.value.save_as(str(report_path))
    ctx = browser.new_context()  # online: a request from the report to the canary would be counted
    try:
        report = ctx.new_page()
        report.goto(report_path.as_uri())
        report.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        assert "[report](http" in report.evaluate("() => document.body.innerText")  # the name, as text
        hits = report.evaluate(_FIND_JS, [canary.host, list(ATTRS)])
        assert hits == [], hits[:5]
        time.sleep(0.5)
        assert canary.hits == [], canary.hits[:5]
    finally:
        ctx.close()
