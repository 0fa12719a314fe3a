"""Issue 28: the link copied on Compare's "Share and export" tab reopens the tab the person was on before."""

from __future__ import annotations

import time

import pytest
from test_every_page import PAGE_TIMEOUT_S, _wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def test_link_from_the_share_tab_reopens_the_negotiate_answer(browser, app_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        page.goto(
            f"{app_url}/compare?trials=10&n_eps=4&dataset=breast_cancer&cview=negotiate&tmetric=accuracy&tvalue=0.9"
        )
        page.locator("h1", has_text="Compare and negotiate").first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
        assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S)
        page.get_by_role("tab", name="🔗 Share and export").click()
        assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S)
        page.wait_for_timeout(500)
        code = page.locator("code", has_text="compare?").first.inner_text()
        assert "cview=negotiate" in code and "mech=all" in code, code
        # the link, opened by someone else, shows the Negotiate tab and the same answer
        answer = page.get_by_text("The smallest ε for test accuracy").first.inner_text()
        other = ctx.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        other.goto(code.strip() if code.startswith("http") else f"{app_url}{code.strip()}")
        other.locator("h1", has_text="Compare and negotiate").first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
        assert _wait_idle(other, time.time() + PAGE_TIMEOUT_S)
        selected = other.get_by_role("tab", selected=True).inner_text()
        assert "Negotiate" in selected
        assert other.get_by_text("The smallest ε for test accuracy").first.inner_text() == answer
        other.context.close()
    finally:
        ctx.close()
