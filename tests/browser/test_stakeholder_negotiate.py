"""Real browser, acted out as a stakeholder (issue 13, "Done when" (b)): the smallest ε for test
accuracy ≥ 0.9 on breast_cancer, then the same for twice the rows, then the link reopens that
answer in a fresh browser with identical numbers."""

import re

import pytest

pytestmark = pytest.mark.browser

#: The stakeholder arrives on the Compare page of breast_cancer (fewer trials than the default so the
#: test stays under a minute on a shared machine; everything else at the page's defaults).
LINK = "/compare?dataset=breast_cancer&trials=20"
HEADLINE = re.compile(r"The smallest ε for test accuracy ≥ 0\.9 on breast_cancer")
NUMBER = re.compile(r"about ([0-9.,]+) \(95% range ([0-9.,]+) to ([0-9.,]+|beyond the grid)\)")


def _headline(page, needle: str) -> str:
    loc = page.get_by_text(re.compile(needle)).first
    loc.wait_for(timeout=180_000)
    return loc.inner_text()


def _settled_rows(page, timeout: float = 180.0) -> list[str]:
    """The answer rows once the page has finished its run (no "Running" status, the same rows twice in a
    row): a click reruns the page, and the headline can be drawn before the rows below it are refreshed."""
    import time

    end, last = time.time() + timeout, None
    while time.time() < end:
        time.sleep(1.0)
        rows = _answer_rows(page)
        if rows and rows == last and page.query_selector('[data-testid="stStatusWidget"]') is None:
            return rows
        last = rows
    return _answer_rows(page)


def _answer_rows(page) -> list[str]:
    """The per-method sentences under the headline (what the stakeholder reads next)."""
    return [t for t in page.locator("li").all_inner_texts() if "ε ≈" in t or "not reached" in t]


def test_stakeholder_negotiates_and_shares_the_answer(page, app_url, browser, screenshot_dir):
    page.goto(app_url + LINK, wait_until="domcontentloaded")
    page.get_by_text("Compare and negotiate").first.wait_for(timeout=180_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
    # the tabs come once the comparison has finished (its first results are drawn while it runs)
    page.get_by_role("tab", name="Negotiate").click(timeout=600_000)

    # 1. accuracy ≥ 0.9 is the default target: the page answers with one sentence and its range
    first = _headline(page, "The smallest ε for test accuracy ≥ 0.9 on breast_cancer is about")
    assert HEADLINE.search(first) and "twice" not in first
    m = NUMBER.search(first)
    assert m, first
    eps_now = float(m.group(1).replace(",", ""))
    assert 0 < eps_now <= 20
    page.screenshot(path=str(screenshot_dir / "negotiate_answer.png"), full_page=True)

    # 2. one click: the same question for twice the rows (an extrapolation, and it says so)
    page.get_by_role("button", name="What if we had twice the rows?").click()
    second = _headline(page, "with twice the rows")
    assert "1,138 rows, extrapolated" in second
    m2 = NUMBER.search(second)
    assert m2, second
    assert float(m2.group(1).replace(",", "")) <= eps_now  # more rows never need more budget here
    rows_before = _settled_rows(page)
    assert rows_before
    page.screenshot(path=str(screenshot_dir / "negotiate_twice.png"), full_page=True)
    link = page.url
    assert "cview=negotiate" in link and "trows=2" in link and "tmetric=accuracy" in link

    # 3. the link in a fresh browser opens on the same answer, with identical numbers
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        fresh = ctx.new_page()
        fresh.goto(link, wait_until="domcontentloaded")
        again = _headline(fresh, "with twice the rows")
        assert again == second
        assert _settled_rows(fresh) == rows_before
        fresh.screenshot(path=str(screenshot_dir / "negotiate_reopened.png"), full_page=True)
    finally:
        ctx.close()
