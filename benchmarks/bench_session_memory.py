"""Peak server memory with N sessions each holding a maximum-size upload, and 2 minutes after they end (issue 24).

Reuses the server, probe and file generator of ``bench_upload_memory.py`` (issue 18), and adds what issue 24
asks for: the *peak* resident set size, sampled every 0.25 s from /proc for the whole run (the server
process alone, and with its worker processes), and the RSS 2 minutes after the last session closed, before
and after a fresh visit lets Streamlit reap the expired sessions (the server keeps a closed tab's session
``--ttl`` seconds for reconnection, 120 by default).

Usage: ``nice -n 10 python benchmarks/bench_session_memory.py [--sessions 5] [--ttl 120] [--json out.json]``
Not part of ``make test``: it takes about 5 minutes and needs Debian's Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_upload_memory import LAUNCH_ARGS, free_port, make_file, probe, rss_mb, start_server  # noqa: E402

AFTER_S = 120  # "2 minutes after they end"


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and all its descendants (the server and its Monte-Carlo worker processes), in MB."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += rss_mb(p)
            for task in Path(f"/proc/{p}/task").iterdir():
                children = (task / "children").read_text().split()
                todo.extend(int(c) for c in children)
        except (OSError, ValueError):
            continue
    return total


class PeakSampler:
    """Samples the server's RSS (alone and with its children) in a thread; keeps the peaks per phase."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every = pid, every
        self.phase = "start"
        self.peaks: dict[str, tuple[float, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            own, tree = rss_mb(self.pid), tree_rss_mb(self.pid)
            old = self.peaks.get(self.phase, (0.0, 0.0))
            self.peaks[self.phase] = (max(old[0], own), max(old[1], tree))
            time.sleep(self.every)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _page(browser):
    """A new session (browser context); generous timeouts, since the machine's two cores are shared."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(600_000)
    return ctx, page


def _visit(browser, url: str) -> None:
    ctx, page = _page(browser)
    page.goto(url)
    page.get_by_text("What ε and δ mean").first.wait_for(timeout=180_000)
    ctx.close()


def _upload(browser, url: str, path: Path):
    ctx, page = _page(browser)
    page.goto(url)
    page.get_by_text("Upload a CSV file").first.click()
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text(f"Using {path.name}").first.wait_for(timeout=600_000)
    return ctx


def run(sessions: int, ttl: int) -> dict:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="bench_session_"))
    files = [tmp / f"upload_{i + 1}.csv" for i in range(sessions)]
    rows = [make_file(f, seed=i) for i, f in enumerate(files)][0]
    out: dict = {
        "sessions": sessions,
        "file_mb": round(files[0].stat().st_size / 2**20, 1),
        "rows": rows,
        "columns": 12,
        "ttl_s": ttl,
        "steps": [],
    }
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp / "server.log", "wb") as log:
        proc = start_server(port, ttl, log, tmp)
        sampler = PeakSampler(proc.pid)

        def record(step: str) -> None:
            time.sleep(3)
            info = probe(tmp)
            row = {"step": step, "rss_mb": round(rss_mb(proc.pid), 1), "tree_rss_mb": round(tree_rss_mb(proc.pid), 1)}
            row.update({k: info.get(k) for k in ("sessions_active", "upload_bytes_held_mb", "upload_datasets_alive")})
            row["rss_after_gc_trim_mb"] = info.get("rss_after_gc_trim_mb")
            out["steps"].append(row)
            print(json.dumps(row), flush=True)

        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
                _visit(browser, url)
                record("baseline: one demo visit, closed")
                sampler.phase = "during"
                contexts = []
                for i, f in enumerate(files):
                    contexts.append(_upload(browser, url, f))
                    record(f"{i + 1} upload session(s) open")
                for ctx in contexts:
                    ctx.close()
                sampler.phase = "after"
                record("every upload tab closed")
                time.sleep(AFTER_S)
                record(f"{AFTER_S} s after the tabs closed")
                time.sleep(max(0, ttl + 5 - AFTER_S))
                _visit(browser, url)  # a fresh visit makes Streamlit reap the expired sessions
                record(f"TTL ({ttl} s) passed, after a fresh visit")
                browser.close()
        finally:
            sampler.stop()
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except Exception:  # noqa: BLE001 - a benchmark: make sure the server goes
                proc.kill()
            shutil.rmtree(tmp, ignore_errors=True)
    base = out["steps"][0]["rss_mb"]
    peak_own, peak_tree = sampler.peaks.get("during", (0.0, 0.0))
    out["peak_rss_mb"] = round(peak_own, 1)
    out["peak_tree_rss_mb"] = round(peak_tree, 1)
    out["per_session_mb"] = round((out["steps"][sessions]["rss_mb"] - base) / sessions, 1)
    out["after_2_min_rss_mb"] = out["steps"][-2]["rss_mb"]
    out["after_expiry_rss_mb"] = out["steps"][-1]["rss_mb"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=5)
    ap.add_argument("--ttl", type=int, default=120, help="server.disconnectedSessionTTL in seconds (default 120)")
    ap.add_argument("--json", default="", help="also write the results to this JSON file")
    args = ap.parse_args()
    res = run(args.sessions, args.ttl)
    print(
        f"\n{res['sessions']} sessions, each holding a {res['file_mb']} MB upload ({res['rows']:,} rows x 12): "
        f"baseline {res['steps'][0]['rss_mb']} MB; peak {res['peak_rss_mb']} MB (server), "
        f"{res['peak_tree_rss_mb']} MB (with workers); {res['per_session_mb']} MB per session held; "
        f"{AFTER_S} s after the sessions ended {res['after_2_min_rss_mb']} MB; after the {res['ttl_s']} s TTL "
        f"and a fresh visit {res['after_expiry_rss_mb']} MB."
    )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
