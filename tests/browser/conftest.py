"""Fixtures for the real-browser test: a Streamlit server on a free localhost port and Debian's Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _server import serve

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
INSTALL_HINT = "install Debian's Chromium with `sudo apt-get install chromium chromium-driver`"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _chromium() -> str | None:
    for c in CHROMIUM_CANDIDATES:
        if Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return shutil.which("chromium")


def _unavailable(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests must run under CI=true, but {reason}; {INSTALL_HINT}")
    pytest.skip(f"{reason}; {INSTALL_HINT} to run the real-browser test")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _chromium()
    if path is None:
        _unavailable("no Chromium executable was found")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright Python package is not installed (pip install -r requirements-dev.txt)")
    return path


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """One server for the session's browser tests."""
    with serve(tmp_path_factory.mktemp("server")) as url:
        yield url


@pytest.fixture
def fresh_app_url(tmp_path_factory):
    """A server of its own, for a test whose faults must not meet another test's state (a killed worker)."""
    with serve(tmp_path_factory.mktemp("fresh_server")) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    yield pg
    ctx.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    d = ROOT / "tests" / "browser" / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d
