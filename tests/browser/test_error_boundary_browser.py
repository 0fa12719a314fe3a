"""The error boundary in a real server and browser: a failure injected into every page shows the plain message
with a reference id, no traceback, no exception element and no server path; the server's log has the traceback
under the same id.

The failure is injected without any hook in the app: this module starts its own server in a Python process
that first replaces ``ui.state.sync_url`` (called by every page, in ``widgets.sidebar_controls``) with a
function that raises, then runs Streamlit's command line in the same process.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from _server import serve

from ui.errors import PAGE_MESSAGE
from ui.pages import DEFAULT_PAGE, PAGES

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
LEAK = "/work/secret/injected.py"
SERVER = f"""
import sys
import ui.state

def _fail(*args, **kwargs):
    raise RuntimeError("injected failure in {LEAK}")

ui.state.sync_url = _fail
from streamlit.web.cli import main
sys.argv = ["streamlit", "run", "app.py", *sys.argv[1:]]
sys.exit(main())
"""
REF = re.compile(re.escape(PAGE_MESSAGE.split("{ref}")[0]) + r"([0-9a-f]{8})")
LEAKS = re.compile(r"Traceback|RuntimeError|injected failure|(?:/work|/home|/usr|/root|/tmp)/\w")


@pytest.fixture(scope="module")
def failing_server(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("failing_server")
    with serve(log_dir, launcher=("-c", SERVER), env={"PUE_NO_WARM": "1"}) as url:
        yield url, log_dir / "streamlit.log"


@pytest.mark.parametrize("path", [p[0] for p in PAGES])
def test_every_page_fails_plainly_in_the_browser(browser, failing_server, path):
    url, log_path = failing_server
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    try:
        page.goto(f"{url}/{'' if path == DEFAULT_PAGE else Path(path).stem}")
        alert = page.get_by_text(REF).first
        alert.wait_for(timeout=240_000)
        ref = REF.search(alert.inner_text()).group(1)
        assert page.locator('[data-testid="stException"]').count() == 0
        text = page.locator('[data-testid="stMain"]').first.inner_text()
        assert LEAKS.search(text) is None, LEAKS.search(text).group(0)
    finally:
        ctx.close()
    deadline = time.monotonic() + 30
    while f"reference {ref}" not in log_path.read_text(errors="replace"):  # the log is flushed by another process
        assert time.monotonic() < deadline, f"reference {ref} not in the server's log"
        time.sleep(0.2)
    logged = log_path.read_text(errors="replace")
    entry = logged[logged.index(f"reference {ref}") :]
    assert "Traceback (most recent call last)" in entry[:4000] and LEAK in entry[:4000]
