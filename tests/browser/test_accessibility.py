"""Issue 28: accessible pages, measured in a real browser with axe-core (from npm: ``npm ci`` at the root).

* every page of ``ui/pages.py``: axe-core reports 0 critical and 0 serious violations (every rule on);
  each page's violations are printed (``pytest -s``);
* at phone width (390×844) the ε slider is reached with the keyboard, moved with the arrow keys and
  visible when focused, and the collapsed sidebar never takes the focus while hidden;
* the ε slider has its end labels and a plain note at very large and very small ε.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_every_page import PAGE_TIMEOUT_S, QUICK, QUICK_PAGE, _expected_title, _url, _wait_idle, open_tab

from ui.constants import EPS_LARGE, EPS_OPTIONS, EPS_SLIDER_ENDS, EPS_SMALL
from ui.pages import PAGES
from ui.widgets import eps_note

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("critical", "serious")


@pytest.fixture(scope="module")
def axe_path() -> Path:
    if not AXE.is_file():
        import os

        why = f"{AXE} is missing: run `npm ci` at the repository root"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    return AXE


#: True once no element is marked stale (Streamlit fades the previous run's elements until a rerun replaces them).
STALE_GONE = """() => document.querySelectorAll('[data-stale="true"]').length === 0"""


def _open(page, app_url: str, path: str, title: str, extra: str = "") -> None:
    query = "&".join(q for q in (QUICK, QUICK_PAGE.get(path, ""), extra) if q)
    page.goto(_url(app_url, path, query), wait_until="domcontentloaded")
    page.locator("h1", has_text=_expected_title(path, title)).first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S), f"{path} did not finish"
    page.wait_for_timeout(500)


def _axe(page, axe_path: Path) -> list[dict]:
    """axe-core's violations of the page as the person sees it: never of a rerun's faded, stale elements."""
    assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S), "the page did not finish"
    page.wait_for_function(STALE_GONE, timeout=PAGE_TIMEOUT_S * 1000, polling=200)
    page.add_script_tag(path=str(axe_path))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        {"id": v["id"], "impact": v["impact"], "target": n["target"], "why": n.get("failureSummary", "")[-160:]}
        for v in result["violations"]
        for n in v["nodes"]
    ]


@pytest.mark.parametrize("entry", PAGES, ids=[p for p, *_ in PAGES])
def test_no_critical_or_serious_violation(entry, browser, app_url, axe_path):
    path, title, *_ = entry
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        _open(page, app_url, path, title)
        found = _axe(page, axe_path)
        tabs = page.get_by_role("tab")
        for name in [tabs.nth(i).inner_text() for i in range(1, tabs.count())]:  # every tab, as the person opens it
            open_tab(page, name)  # a tab may rerun the page: waits for its end, not its faded state
            seen = {(v["id"], str(v["target"])) for v in found}
            found += [v for v in _axe(page, axe_path) if (v["id"], str(v["target"])) not in seen]
    finally:
        ctx.close()
    counts = {
        k: len({v["id"] for v in found if v["impact"] == k}) for k in ("critical", "serious", "moderate", "minor")
    }
    print(f"\naxe {path}: violations by impact {counts}, {len(found)} elements")
    for v in found:
        print(f"   {v['impact']:8s} {v['id']} {str(v['target'])[-90:]} {v['why']!r}")
    assert not [v for v in found if v["impact"] in BLOCKING], found


_FOCUSED = """() => {
  const e = document.activeElement;
  // a slider's focus sits on a hidden input; what the eye sees is its thumb (two levels up), with its ring
  const thumb = e.tagName === 'INPUT' && e.closest('[role="group"]') ? e.parentElement.parentElement : null;
  const r = (thumb || e).getBoundingClientRect();
  return {label: e.getAttribute('aria-label') || (e.innerText || '').slice(0, 40), x: r.x, y: r.y, w: r.width,
          h: r.height, testid: e.getAttribute('data-testid') || '',
          inSidebar: !!e.closest('[data-testid="stSidebar"]'),
          collapsed: document.querySelector('[data-testid="stSidebar"]').getAttribute('data-collapsed'),
          ring: thumb ? getComputedStyle(thumb).boxShadow : 'no thumb'};
}"""


def _tab_to(page, want, limit: int = 40, key: str = "Tab") -> list[dict]:
    """Press ``key`` until ``want(focused)``; return every element focused on the way."""
    seen = []
    for _ in range(limit):
        page.keyboard.press(key)
        f = page.evaluate(_FOCUSED)
        seen.append(f)
        if want(f):
            return seen
    raise AssertionError(f"not reached with {limit} Tab presses: {[f['label'] for f in seen]}")


def test_phone_width_eps_slider_by_keyboard(browser, app_url):
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = ctx.new_page()
        _open(page, app_url, "pages/home.py", "Home", "eps=1")
        # the sidebar is collapsed: nothing in it takes the focus; the button that opens it does
        seen = _tab_to(page, lambda f: f["testid"] == "stExpandSidebarButton")
        assert seen[-1]["collapsed"] == "true"
        assert not [f["label"] for f in seen if f["inSidebar"]], "the hidden sidebar took the focus"
        page.keyboard.press("Enter")
        page.wait_for_timeout(800)
        # the open sidebar comes before its button in the page: Shift+Tab walks back into it
        seen = _tab_to(page, lambda f: f["label"] == "Privacy budget ε (log scale)", limit=12, key="Shift+Tab")
        slider = seen[-1]
        assert slider["collapsed"] == "false" and slider["ring"] not in ("none", "no thumb"), slider
        assert 0 <= slider["x"] and slider["x"] + slider["w"] <= 390 and 0 <= slider["y"] <= 844 - slider["h"]
        page.keyboard.press("ArrowRight")
        assert _wait_idle(page, time.time() + PAGE_TIMEOUT_S)
        page.wait_for_timeout(500)
        above = EPS_OPTIONS[EPS_OPTIONS.index(1.0) + 1]
        assert f"eps={above:g}" in page.url, page.url
    finally:
        ctx.close()


@pytest.mark.parametrize("eps", [EPS_SMALL / 2, 1.0, EPS_LARGE])
def test_eps_slider_end_labels_and_notes(eps, browser, app_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        _open(page, app_url, "pages/home.py", "Home", f"eps={eps:g}")
        sidebar = page.get_by_test_id("stSidebar").inner_text()
        assert EPS_SLIDER_ENDS[0] in sidebar and EPS_SLIDER_ENDS[1] in sidebar
        note = eps_note(eps)
        assert bool(note) == (eps != 1.0)
        if note:  # the note as written (markdown's bold and the ≈ number aside)
            assert note.split(":")[0].replace("*", "") in sidebar.replace("\n", " "), sidebar
    finally:
        ctx.close()
