"""Real browser: the Share panel's decision log travels through a configuration file, and the brief and the
notebook it downloads are the ones the CLI writes from the downloaded configuration (issue 28)."""

import json
import time

import pytest
from test_every_page import PAGE_TIMEOUT_S, _wait_idle, open_tab

from dp_core.cli import main

pytestmark = pytest.mark.browser

LINK = "/compare?dataset=iris&trials=10&n_eps=4&mech=output-perturbation&eps=2&seed=3"
LOG = [
    {"who": "Owner <ops>", "epsilon": 0.5, "chosen": False, "date": "2026-11-20", "note": "first offer"},
    {"who": "Analyst", "epsilon": 2.0, "chosen": True, "date": "2026-11-21", "note": "agreed & signed"},
]


def _idle(page) -> None:
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S), "the page did not finish"


def _download(page, name: str, path):
    _idle(page)  # a rerun shows the previous run's elements until it ends
    buttons = page.get_by_role("button", name=name, exact=True)
    assert buttons.count() == 1, f"{buttons.count()} buttons {name!r}"
    button = buttons.first
    with page.expect_download(timeout=180_000) as info:
        button.click()
    info.value.save_as(str(path))
    return path.read_text(encoding="utf-8")


def _share_tab(page, app_url):
    page.goto(app_url + LINK, wait_until="domcontentloaded")
    page.locator(".js-plotly-plot").first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    _idle(page)
    open_tab(page, "Share and export")


def test_decision_log_brief_and_notebook_downloads(page, app_url, screenshot_dir, tmp_path, capsys):
    _share_tab(page, app_url)
    first = json.loads(_download(page, "⬇️ Configuration (JSON)", tmp_path / "plain.json"))
    assert "decisions" not in first  # no log yet: the configuration is unchanged
    upload = tmp_path / "with_log.json"
    upload.write_text(json.dumps({**first, "decisions": LOG}), encoding="utf-8")
    page.locator("input[type=file]").last.set_input_files(str(upload))
    # the restored view opens on the tab before "Share and export" (issue 28): the message is in the hidden tab
    page.get_by_text("Configuration restored").first.wait_for(state="attached", timeout=PAGE_TIMEOUT_S * 1000)
    _idle(page)
    open_tab(page, "Share and export")  # the same session: the log lives in its state
    page.screenshot(path=str(screenshot_dir / "share_export.png"), full_page=True)
    saved = json.loads(_download(page, "⬇️ Configuration (JSON)", tmp_path / "config.json"))
    assert saved["decisions"] == LOG
    brief = _download(page, "⬇️ One-page brief (HTML)", tmp_path / "brief_app.html")
    notebook = _download(page, "⬇️ Notebook (.ipynb)", tmp_path / "view_app.ipynb")
    out, nb = tmp_path / "brief_cli.html", tmp_path / "view_cli.ipynb"
    assert main(["brief", "--config", str(tmp_path / "config.json"), "--out", str(out)]) == 0
    assert main(["notebook", "--config", str(tmp_path / "config.json"), "--out", str(nb)]) == 0
    capsys.readouterr()
    assert brief == out.read_text(encoding="utf-8")
    assert "Owner &lt;ops&gt;" in brief and "agreed &amp; signed" in brief
    assert notebook == nb.read_text(encoding="utf-8")
