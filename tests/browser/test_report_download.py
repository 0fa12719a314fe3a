"""Real browser: open the compare page from a link, download the HTML report and open it offline."""

import pytest
from test_every_page import PAGE_TIMEOUT_S, open_tab

from dp_core.report import config_from_report_html

pytestmark = pytest.mark.browser

LINK = "/compare?dataset=iris&trials=10&n_eps=4&mech=output-perturbation&eps=2&seed=3"


def test_download_report_and_open_it(page, app_url, screenshot_dir, tmp_path, browser):
    page.goto(app_url + LINK, wait_until="domcontentloaded")
    page.get_by_text("Compare and negotiate").first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    page.wait_for_timeout(500)
    page.screenshot(path=str(screenshot_dir / "compare.png"), full_page=True)

    open_tab(page, "Share and export")
    button = page.get_by_role("button", name="Download the HTML report")
    button.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    with page.expect_download(timeout=PAGE_TIMEOUT_S * 1000) as info:
        button.click()
    path = tmp_path / "report.html"
    info.value.save_as(str(path))
    html = path.read_text(encoding="utf-8")
    cfg = config_from_report_html(html)
    assert cfg.dataset == "iris" and cfg.eps == 2.0 and cfg.seed == 3 and cfg.trials == 10
    assert cfg.params["mech"] == "output-perturbation"  # the canonical name

    # open the downloaded file with no server and no network: the charts must render
    ctx = browser.new_context(offline=True)
    try:
        report = ctx.new_page()
        report.goto(path.as_uri())
        report.get_by_text("Privacy-utility report: iris").wait_for(timeout=30_000)
        report.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        assert report.locator(".js-plotly-plot").count() >= 2
        assert report.locator(".js-plotly-plot .scatterlayer .trace").count() > 0
        report.screenshot(path=str(screenshot_dir / "report.png"), full_page=False)
    finally:
        ctx.close()
