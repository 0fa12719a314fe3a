"""A Streamlit server of the app for real-browser tests: one helper for the session's server and for tests
that need a server of their own (a killed worker, an injected failure)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(log_dir: Path, launcher: tuple[str, ...] = ("-m", "ui.serve"), env: dict | None = None):
    """A Streamlit server of the app on a free localhost port (its log in ``log_dir / "streamlit.log"``);
    yields its URL. ``launcher``: what follows the Python executable before the server options (``make run``'s
    ``-m ui.serve`` unless a test starts the app through its own script); ``env``: variables added to the
    environment."""
    port = _free_port()
    log_path = log_dir / "streamlit.log"
    log = open(log_path, "wb")
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", **(env or {}))
    proc = subprocess.Popen(
        [
            sys.executable,
            *launcher,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            log.close()
            out = log_path.read_text(errors="replace")
            pytest.fail(f"the Streamlit server exited early:\n{out[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        proc.wait()
        log.close()
        pytest.fail("the Streamlit server did not answer within 120 s")
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
