"""Count the symbols a newcomer meets on each page's first screen, in a real browser.

Starts the app on a free localhost port, opens every page of the navigation in headless Chromium
(viewport 1400 x 900), waits until the script has finished, and collects the text of every element
whose top lies inside the first viewport (the sidebar excluded). A *symbol* is a token that holds
a Greek letter, a subscript/hat/star (σ_b, R̂, Δ*), a maths operator (‖w‖) or an upper-case code
of two or more letters or a code with a dot (LBA, LLP, C5.3). Prints one Markdown table row per
page: the distinct symbols on the first screen, how many of them have an entry in
``dp_core.glossary`` (when that module exists), and the page's height in screens.

Usage: ``python benchmarks/first_screen_symbols.py [--pages home,compare] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VIEW_W, VIEW_H = 1400, 900
GREEK = "α-ωΑ-Ω"
SYMBOL = re.compile(
    rf"[^\s,;:()\[\]{{}}]*[{GREEK}‖√∑∏∞̂ˆ∗⋆][^\s,;:()\[\]{{}}]*"  # Greek letters, norms, hats
    r"|\b[A-Z]{2,}[0-9]*\b"  # codes: LBA, LLP, MALA, ESS
    r"|\b[A-Z][0-9]+(?:\.[0-9]+)+\b"  # C5.3
    r"|\b[a-zA-Z]_[a-zA-Z0-9]+\b"  # k_R, sigma_b
)
# Upper-case words that are ordinary English or the app's own chrome, not symbols to explain.
NOT_SYMBOLS = {"CSV", "URL", "JSON", "OK", "UI", "PDF", "HTML", "I", "A", "II", "III", "IV", "FAQ"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(port: int) -> subprocess.Popen:
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
        + ["--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the Streamlit server did not answer within 90 s")


JS_FIRST_SCREEN = """
(limit) => {
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  const out = [];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  let node;
  let bottom = 0;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim()) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    bottom = Math.max(bottom, r.bottom);
    if (r.top >= 0 && r.top < limit) out.push(node.textContent);
  }
  // Chart text (Plotly SVG) counts too: it is on the screen.
  return {text: out.join(' '), height: bottom};
}
"""


def symbols_in(text: str) -> list[str]:
    found = set()
    for m in SYMBOL.finditer(text):
        tok = m.group(0).strip(".-–—'\"")
        if tok and tok not in NOT_SYMBOLS and not tok.isdigit():
            found.add(tok)
    return sorted(found)


def _glossary_lookup():
    try:
        from dp_core import glossary  # type: ignore[attr-defined]
    except ImportError:
        return None

    def known(tok: str) -> bool:
        try:
            return glossary.lookup(tok) is not None
        except (KeyError, ValueError):
            return False

    return known


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="", help="comma-separated page file stems (default: every page)")
    ap.add_argument("--json", default="", help="also write the result as JSON to this file")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from ui.pages import DEFAULT_PAGE, PAGES

    stems = [Path(p[0]).stem for p in PAGES]
    if args.pages:
        wanted = set(args.pages.split(","))
        stems = [s for s in stems if s in wanted]
    known = _glossary_lookup()
    port = _free_port()
    proc = _start_server(port)
    rows = []
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--headless"])
            for stem in stems:
                ctx = b.new_context(viewport={"width": VIEW_W, "height": VIEW_H})
                pg = ctx.new_page()
                path = "" if stem == Path(DEFAULT_PAGE).stem else stem  # the default page has no path
                pg.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
                pg.wait_for_selector('[data-testid="stMain"]', timeout=180_000)
                time.sleep(1.0)
                pg.wait_for_function(
                    "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=240_000
                )
                # Settled: the same first-screen text and page height for two seconds running.
                res, last, t_end = None, None, time.time() + 240
                while time.time() < t_end:
                    time.sleep(1.0)
                    res = pg.evaluate(JS_FIRST_SCREEN, VIEW_H)
                    settled = res["text"].strip() and res == last
                    if settled and pg.query_selector('[data-testid="stStatusWidget"]') is None:
                        break
                    last = res
                syms = symbols_in(res["text"])
                unexplained = [s for s in syms if known is None or not known(s)]
                rows.append(
                    {
                        "page": stem,
                        "symbols": syms,
                        "count": len(syms),
                        "without_glossary_entry": unexplained if known else None,
                        "screens": round(res["height"] / VIEW_H, 1),
                    }
                )
                ctx.close()
            b.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print("| page | symbols on the first screen | count | screens tall |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['page']} | {' '.join(r['symbols'])} | {r['count']} | {r['screens']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
