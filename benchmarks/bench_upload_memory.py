"""Resident memory of a real Streamlit server around maximum-size uploads (issue 18).

Starts ``streamlit run app.py`` on a free localhost port, drives Debian's Chromium with Playwright, and
prints the server's resident set size (RSS, from /proc) at each step:

1. before: after one visitor opened Home on the demo data;
2. during: after each of N visitors (separate browser contexts = separate sessions) uploaded a
   maximum-size CSV file (and optionally opened a mechanism page on it);
3. closed: right after every visitor closed the tab;
4. expired: after the server's disconnected-session TTL has passed (plus a fresh visit, which makes
   Streamlit reap expired sessions).

RSS is noisy (the allocator keeps freed pages for reuse), so the interesting numbers are the ratio of
memory still held after the sessions ended to the memory the uploads added, not single megabytes. The
server runs with a small probe thread (this file's ``--serve`` mode) that answers each measurement with
what Streamlit's own APIs say: live and stored sessions, uploaded files held by the server, shared-cache
bytes, uploaded datasets and session memos still alive, and the RSS after ``gc.collect()`` and glibc's
``malloc_trim`` (memory the allocator could give back).

Usage: ``nice -n 10 python benchmarks/bench_upload_memory.py [--uploads 5] [--ttl 30] [--page pages/label_dp_bags.py]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dp_core.data import LIMITS

LAUNCH_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_file(path: Path, seed: int) -> int:
    """A CSV just under the upload limit: 12 numeric columns of random numbers, as many rows as fit."""
    g = np.random.default_rng(seed)
    cols = 12
    n = LIMITS["max_rows"]
    X = g.uniform(0, 1, size=(n, cols))
    lines = [",".join(f"x{j + 1}" for j in range(cols - 1)) + ",y"]
    size = len(lines[0]) + 1
    budget = LIMITS["max_bytes"] - 1024
    for row in X:
        line = ",".join(f"{v:.7f}" for v in row)
        if size + len(line) + 1 > budget:
            break
        lines.append(line)
        size += len(line) + 1
    path.write_text("\n".join(lines) + "\n")
    return len(lines) - 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _probe_loop(probe_dir: Path) -> None:
    """Server side: answer each request file with the server's own view of what it holds."""
    import ctypes
    import gc
    import json

    from streamlit.runtime import Runtime
    from streamlit.runtime.caching.cache_data_api import get_data_cache_stats_provider
    from streamlit.runtime.caching.cache_resource_api import get_resource_cache_stats_provider

    request, answer = probe_dir / "request", probe_dir / "answer"
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except OSError:
        trim = None
    while True:
        time.sleep(0.3)
        if not request.exists() or not Runtime.exists():
            continue
        request.unlink()
        rt = Runtime.instance()
        mgr = rt._session_mgr
        stored = mgr._session_storage
        out = {
            "rss_mb": rss_mb(os.getpid()),
            "sessions_active": len(mgr.list_active_sessions()),
            "sessions_stored": len(getattr(stored._cache, "_data", stored._cache))
            if hasattr(stored, "_cache")
            else None,
        }
        files = getattr(rt.uploaded_file_mgr, "file_storage", {})
        out["upload_sessions_with_files"] = sum(1 for v in files.values() if v)
        out["upload_bytes_held_mb"] = sum(len(f.data) for v in files.values() for f in v.values()) / 2**20
        shared = 0
        for provider in (get_data_cache_stats_provider(), get_resource_cache_stats_provider()):
            shared += sum(st.byte_length for stats in provider.get_stats().values() for st in stats)
        out["shared_cache_mb"] = shared / 2**20
        gc.collect()
        alive = [o for o in gc.get_objects() if type(o).__name__ in ("Dataset", "SessionMemo")]
        out["upload_datasets_alive"] = sum(
            1 for o in alive if type(o).__name__ == "Dataset" and str(getattr(o, "name", "")).startswith("upload:")
        )
        out["session_memos_alive"] = sum(1 for o in alive if type(o).__name__ == "SessionMemo")
        del alive
        gc.collect()
        if trim is not None:
            trim(0)
        out["rss_after_gc_trim_mb"] = rss_mb(os.getpid())
        answer.write_text(json.dumps(out))


def serve(port: int, ttl: int, probe_dir: Path) -> None:
    """``--serve`` mode: run the app in this process with the probe thread beside it."""
    import threading

    from streamlit.web import cli

    os.chdir(ROOT)
    threading.Thread(target=_probe_loop, args=(probe_dir,), daemon=True).start()
    sys.argv = [
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.disconnectedSessionTTL",
        str(ttl),
    ]
    cli.main()


def probe(probe_dir: Path, timeout: float = 120.0) -> dict:
    import json

    answer = probe_dir / "answer"
    answer.unlink(missing_ok=True)
    (probe_dir / "request").write_text("measure")
    deadline = time.time() + timeout
    while time.time() < deadline:
        if answer.exists():
            time.sleep(0.2)
            return json.loads(answer.read_text())
        time.sleep(0.2)
    return {}


def start_server(port: int, ttl: int, log, probe_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--serve",
            str(port),
            "--ttl",
            str(ttl),
            "--probe-dir",
            str(probe_dir),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the Streamlit server exited early")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the Streamlit server did not answer within 60 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uploads", type=int, default=5)
    ap.add_argument("--ttl", type=int, default=120, help="server.disconnectedSessionTTL in seconds (default 120)")
    ap.add_argument("--page", default="", help="a page to open after each upload (file stem, e.g. label_dp_bags)")
    ap.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--probe-dir", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, args.ttl, Path(args.probe_dir))
        return
    page_title = ""
    if args.page:
        from ui.pages import PAGES

        page_title = {Path(path).stem: title for path, title, _icon, _desc in PAGES}[args.page]

    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="bench_upload_"))
    files = []
    for i in range(args.uploads):
        f = tmp / f"upload_{i + 1}.csv"
        rows = make_file(f, seed=i)
        files.append(f)
    print(f"{args.uploads} files of {files[0].stat().st_size / 2**20:.1f} MB ({rows:,} rows x 12 columns) each")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    rows_out = []
    with open(tmp / "server.log", "wb") as log:
        proc = start_server(port, args.ttl, log, tmp)
        print(
            f"{'step':<40} {'RSS':>8} {'sessions':>9} {'files':>6} {'file MB':>8} {'shared MB':>9} "
            f"{'uploads':>7} {'memos':>5} {'RSS gc+trim':>11}"
        )

        def record(step: str) -> None:
            time.sleep(3)
            rss = rss_mb(proc.pid)
            info = probe(tmp)
            rows_out.append((step, rss, info.get("rss_after_gc_trim_mb", float("nan"))))
            sessions = f"{info.get('sessions_active', '?')}+{info.get('sessions_stored', '?')}"
            print(
                f"{step:<40} {rss:8.1f} {sessions:>9} {info.get('upload_sessions_with_files', '?'):>6} "
                f"{info.get('upload_bytes_held_mb', float('nan')):8.1f} "
                f"{info.get('shared_cache_mb', float('nan')):9.1f} "
                f"{info.get('upload_datasets_alive', '?'):>7} {info.get('session_memos_alive', '?'):>5} "
                f"{rows_out[-1][2]:11.1f}",
                flush=True,
            )

        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(url)
                page.get_by_text("Privacy-Utility Explorer").first.wait_for(timeout=120_000)
                page.get_by_text("What ε and δ mean").first.wait_for(timeout=120_000)
                if args.page:  # the same page on demo data first, so that its imports are in the baseline
                    page.get_by_role("link", name=page_title).first.click()
                    if args.page == "label_dp_bags":
                        page.get_by_text("allows at most").first.wait_for(state="attached", timeout=1_200_000)
                ctx.close()
                record("before (one demo visit, closed)")
                contexts = []
                for i, f in enumerate(files):
                    ctx = browser.new_context()
                    page = ctx.new_page()
                    page.goto(url)
                    page.get_by_text("Upload a CSV file").first.click()
                    page.locator("input[type=file]").set_input_files(str(f))
                    page.get_by_text(f"Using {f.name}").first.wait_for(timeout=300_000)
                    if args.page:  # through the sidebar link: a new URL load would start a new session
                        page.get_by_role("link", name=page_title).first.click()
                        page.get_by_text(f"upload:{f.name}").first.wait_for(timeout=600_000)
                        if args.page == "label_dp_bags":  # the last caption of its utility tab
                            page.get_by_text("allows at most").first.wait_for(state="attached", timeout=1_200_000)
                    contexts.append(ctx)
                    record(f"during: {i + 1} upload session(s) open")
                for ctx in contexts:
                    ctx.close()
                record("closed: every upload tab closed")
                time.sleep(args.ttl + 5)
                ctx = browser.new_context()  # a fresh visit makes Streamlit reap the expired sessions
                page = ctx.new_page()
                page.goto(url)
                page.get_by_text("What ε and δ mean").first.wait_for(timeout=120_000)
                ctx.close()
                time.sleep(args.ttl + 5)
                ctx = browser.new_context()
                page = ctx.new_page()
                page.goto(url)
                page.get_by_text("What ε and δ mean").first.wait_for(timeout=120_000)
                ctx.close()
                record(f"expired: {args.ttl} s TTL passed twice")
                browser.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            shutil.rmtree(tmp, ignore_errors=True)  # the generated files (about 23 MB each) and the server log
    print(
        "\n(sessions = active+stored for reconnection; files/file MB = uploaded files the server still holds; "
        "uploads/memos = uploaded datasets and session memos alive in the server; RSS columns in MB)"
    )
    for col, label in ((1, "RSS"), (2, "RSS after gc + malloc_trim")):
        before = rows_out[0][col]
        peak = max(r[col] for r in rows_out if r[0].startswith("during"))
        after = rows_out[-1][col]
        added = peak - before
        print(
            f"{label}: the uploads added {added:.1f} MB ({added / args.uploads:.1f} MB per session); still held "
            f"after expiry: {after - before:.1f} MB = {(after - before) / added:.0%} of it"
        )


if __name__ == "__main__":
    main()
