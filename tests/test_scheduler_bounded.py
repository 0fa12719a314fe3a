"""Reaching ``--scheduler ADDRESS`` is bounded (issue 24, part 5): a port that accepts TCP but is not a
Dask scheduler made the CLI hang with nothing on stderr (no exit after 645 s). Now the connection and
the handshake give up, the CLI exits 2 with one line naming the address, and the app falls back to
in-process with a visible note."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dp_core import execution

ROOT = Path(__file__).resolve().parents[1]
#: the hard bound of :func:`dp_core.execution.probe_scheduler`, plus the CLI's start-up
BOUND_S = 2 * (execution.CONNECT_TIMEOUT_S + execution.HANDSHAKE_GRACE_S) + 5


class FakeService:
    """A loopback TCP server that accepts every connection and says nothing, or sends non-Dask bytes."""

    def __init__(self, reply: bytes = b"") -> None:
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.conns: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(conn)
            if self.reply:
                try:
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for c in self.conns:
            c.close()
        self.sock.close()


SERVICES = {
    "silent": b"",
    "garbage": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 20,
}


@pytest.fixture(params=list(SERVICES), ids=list(SERVICES))
def service(request):
    svc = FakeService(SERVICES[request.param])
    yield svc
    svc.close()


def test_probe_gives_up_within_its_bound_naming_the_address(service):
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"cannot reach a Dask scheduler at {service.address}: it") as info:
        execution.probe_scheduler(service.address)
    assert time.monotonic() - start <= 2 * (execution.CONNECT_TIMEOUT_S + execution.HANDSHAKE_GRACE_S) + 1
    assert "another service?" in str(info.value) and "\n" not in str(info.value)


def test_cli_exits_2_with_one_line_naming_the_address(service):
    argv = ["simulate", "input-perturbation", "--trials", "2", "--scheduler", service.address]
    proc = subprocess.run(
        [sys.executable, "-m", "dp_core", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert service.address in lines[0] and "dask scheduler" in lines[0]


def test_environment_scheduler_that_is_not_dask_is_refused_in_one_line(service, monkeypatch):
    monkeypatch.setenv(execution.ENV_SCHEDULER, service.address)
    monkeypatch.setattr(execution, "_DEFAULT", None)
    with pytest.raises(ValueError, match=service.address):
        execution.current_executor()


def test_a_refused_port_still_fails_fast():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"127.0.0.1:{port}: no connection within"):
        execution.probe_scheduler(f"tcp://127.0.0.1:{port}")
    assert time.monotonic() - start < BOUND_S


def test_the_app_falls_back_to_in_process_with_a_visible_note(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from ui.executor import configure_executor

    svc = FakeService()
    monkeypatch.setenv(execution.ENV_SCHEDULER, svc.address)
    monkeypatch.setattr(execution, "_DEFAULT", None)
    configure_executor.clear()
    try:
        at = AppTest.from_file("../app.py", default_timeout=90).run()
        assert not at.exception
        notes = [e.value for e in at.sidebar.info]
        assert execution.FALLBACK_NOTE in notes
        assert svc.address not in " ".join(notes)  # the operator's address is for the log, not for visitors
        assert isinstance(execution.current_executor(), execution.InProcessExecutor)
    finally:
        configure_executor.clear()
        execution.shutdown()
        svc.close()
