"""Issue 13, task (a), acted out in a real browser: a teacher opens the app, goes to Start here, reads what ε
means and reaches accuracy against ε on breast_cancer, in at most 6 clicks. Every click is counted.

Screenshots of every step of the tour are saved to ``tests/browser/screenshots/tour_step_<n>.png``.
"""

from __future__ import annotations

import re
import time

import pytest

from ui.constants import TOUR_STEPS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

MAX_CLICKS = 6
WAIT_MS = 120_000

_BUSY_JS = """() => {
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  const running = !!status && /running|connecting/i.test(status.innerText || '');
  const spinner = document.querySelectorAll('[data-testid="stSpinner"]').length > 0;
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app ? app.getAttribute('data-test-script-state') : 'initial';
  return running || spinner || ['initial', 'running', 'rerunRequested'].includes(state);
}"""


def _idle(page, timeout_s: float = 120.0, idle_s: float = 0.8) -> None:
    deadline, since = time.time() + timeout_s, None
    while time.time() < deadline:
        if page.evaluate(_BUSY_JS):
            since = None
        elif since is None:
            since = time.time()
        elif time.time() - since >= idle_s:
            return
        page.wait_for_timeout(150)
    raise AssertionError("the page did not become idle")


class Clicks:
    """Clicks through this counter only, so that the test can count them."""

    def __init__(self, page):
        self.page, self.n = page, 0

    def click(self, locator) -> None:
        locator.click()
        self.n += 1
        _idle(self.page)


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback (most recent call last)" not in page.inner_text("body")


def _main(page):
    return page.locator('[data-testid="stMain"]')


def test_teacher_reaches_accuracy_against_epsilon_on_breast_cancer(page, app_url, screenshot_dir):
    page.goto(app_url + "/?trials=10", wait_until="domcontentloaded")  # a bare link opens Home
    page.locator("h1", has_text="Privacy-Utility Explorer").first.wait_for(timeout=WAIT_MS)
    _idle(page)
    clicks = Clicks(page)

    # 1. Start here (first entry of the sidebar)
    clicks.click(page.get_by_role("link", name=re.compile("Start here")).first)
    page.locator("h1", has_text="Start here").first.wait_for(timeout=WAIT_MS)
    _main(page).get_by_text("What ε and δ mean").first.wait_for(timeout=WAIT_MS)
    body = _main(page).inner_text()
    assert "privacy budget ε" in body and "Laplace" in body and "Release 1" in body
    assert re.search(r"[?&]step=1\b", page.url)
    _no_exception(page)
    page.screenshot(path=str(screenshot_dir / "tour_step_1.png"), full_page=True)

    # 2. Next: noise against ε (live)
    clicks.click(_main(page).get_by_role("button", name=re.compile("Next")).first)
    _main(page).get_by_text("Noise against ε").first.wait_for(timeout=WAIT_MS)
    _main(page).locator(".js-plotly-plot").first.wait_for(timeout=WAIT_MS)
    _no_exception(page)
    page.screenshot(path=str(screenshot_dir / "tour_step_2.png"), full_page=True)

    # 3. Next: accuracy against ε on breast_cancer
    clicks.click(_main(page).get_by_role("button", name=re.compile("Next")).first)
    _main(page).get_by_text("Accuracy against ε on real data").first.wait_for(timeout=WAIT_MS)
    chart = _main(page).locator(".js-plotly-plot").first
    chart.wait_for(timeout=WAIT_MS)
    _idle(page)
    assert "accuracy" in chart.inner_text().lower()
    assert "breast-cancer" in _main(page).inner_text()
    assert re.search(r"[?&]step=3\b", page.url)
    _no_exception(page)
    page.screenshot(path=str(screenshot_dir / "tour_step_3.png"), full_page=True)
    assert clicks.n <= MAX_CLICKS, f"task (a) took {clicks.n} clicks"

    # the rest of the tour, for the screenshots (and no exception on any step)
    for step in range(4, TOUR_STEPS + 1):
        clicks.click(_main(page).get_by_role("button", name=re.compile("Next")).first)
        _main(page).get_by_text(f"Step {step} of {TOUR_STEPS}").first.wait_for(timeout=WAIT_MS)
        _idle(page)
        _no_exception(page)
        page.screenshot(path=str(screenshot_dir / f"tour_step_{step}.png"), full_page=True)
    assert all(b.is_disabled() for b in _main(page).get_by_role("button", name=re.compile("Next")).all())


def test_a_link_to_a_step_opens_that_step(page, app_url):
    page.goto(app_url + "/start_here?step=5&trials=10", wait_until="domcontentloaded")
    page.get_by_text("A paper guarantee that is wrong").first.wait_for(timeout=WAIT_MS)
    _idle(page)
    _no_exception(page)
    text = _main(page).inner_text()
    assert "Status: refuted" in text and "Status: proved" in text
