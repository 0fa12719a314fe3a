"""The real-browser test: load the app, move the ε slider with the keyboard, upload a CSV, screenshot."""

import re

import pytest

pytestmark = pytest.mark.browser

CSV = "height,weight,age,smoker\n" + "".join(
    f"{150 + i % 40},{50 + (i * 7) % 45},{20 + i % 50},{i % 2}\n" for i in range(80)
)


def test_home_slider_upload_screenshot(page, app_url, screenshot_dir, tmp_path):
    page.goto(app_url + "/?eps=1&dataset=census", wait_until="domcontentloaded")
    page.get_by_text("Privacy-Utility Explorer").first.wait_for(timeout=120_000)
    page.get_by_text("× 2.72", exact=True).first.wait_for(timeout=90_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=90_000)

    # Move the epsilon slider with the keyboard: 1 -> 1.2 (the next readable value).
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.get_by_text("× 3.32", exact=True).first.wait_for(timeout=90_000)
    assert re.search(r"eps=1\.2", page.url)

    # Upload a CSV and see it become the active dataset.
    page.get_by_text("Upload a CSV file").click()
    path = tmp_path / "people.csv"
    path.write_text(CSV)
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text("Using people.csv").wait_for(timeout=90_000)
    page.get_by_text("80 rows, 3 features, binary").first.wait_for(timeout=90_000)
    page.wait_for_timeout(500)
    page.screenshot(path=str(screenshot_dir / "home.png"), full_page=True)

    # A bad file is rejected and the uploaded dataset stays active.
    bad = tmp_path / "bad.csv"
    bad.write_text("only_one_column\n" + "1\n" * 30)
    page.locator("input[type=file]").set_input_files(str(bad))
    page.get_by_text("only one column").wait_for(timeout=90_000)
    page.get_by_text("Your previous dataset and settings are still active.").first.wait_for(timeout=90_000)
