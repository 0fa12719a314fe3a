"""The "What this ε means" panel in a real browser: opened on Home and on every page that calls it, its charts
drawn (the chart checks of ``test_every_page``), no exception; screenshots ``screenshots/risk_panel_<page>.png``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_every_page import QUICK, QUICK_PAGE, _check_charts, _page_errors, _url, _wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
#: (page, extra query, screenshot name): the default settings, and two refuted claims
PAGES = (
    ("pages/home.py", "", "home"),
    ("pages/input_perturbation.py", "", "input_perturbation"),
    ("pages/large_margin_gaussian.py", "", "large_margin_gaussian"),
    ("pages/large_margin_gaussian.py", "&lm_mode=printed", "large_margin_gaussian_printed"),
    ("pages/label_dp_bags.py", "", "label_dp_bags"),
    ("pages/l1_exponential.py", "", "l1_exponential"),
    ("pages/l1_exponential.py", "&l1_conv=paper_box", "l1_exponential_paper_box"),
)
TIMEOUT_S = 240


@pytest.mark.parametrize(("path", "extra", "name"), PAGES)
def test_panel_opens(path, extra, name, page, app_url, screenshot_dir):
    if "risk_panel(" not in (ROOT / path).read_text(encoding="utf-8"):
        pytest.skip(f"{path} does not call ui.risk_panel.risk_panel yet")
    query = QUICK + (f"&{QUICK_PAGE[path]}" if path in QUICK_PAGE else "") + extra
    page.goto(_url(app_url, path, query), wait_until="domcontentloaded")
    assert _wait_idle(page, time.time() + TIMEOUT_S), "the page did not become idle"
    panel = page.locator('[data-testid="stExpander"]', has_text="What this ε means").first
    panel.locator("summary").first.click()
    assert _wait_idle(page, time.time() + TIMEOUT_S)
    text = panel.inner_text()
    for words in ("catches at most", "Gaussian-DP μ", "TPR at 1 % FPR", "published deployments", "not on one scale"):
        assert words in text, words
    assert panel.locator(".js-plotly-plot").count() == 2
    if "paper_box" in extra or "printed" in extra:  # a refuted claim: the measured point breaks its curve
        assert "This claim is refuted" in text and "outside: the claim is broken" in panel.inner_html()
    problems, count = _check_charts(page, path)
    assert count >= 2 and problems == [] and _page_errors(page) == []
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": int(min(height + 50, 16000))})
    page.wait_for_timeout(500)  # the charts redraw at the new size
    panel.screenshot(path=str(screenshot_dir / f"risk_panel_{name}.png"))
