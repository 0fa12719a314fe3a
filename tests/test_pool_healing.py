"""ui.background heals: a dead worker ends its jobs with a plain message and "Run again"; the pool is rebuilt
once (whoever asks first), at most MAX_REBUILDS times per window; a dead progress board is replaced too."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from _helpers import wait
from streamlit.testing.v1 import AppTest

from ui import background


# ---------------------------------------------------------------- blocks (module level: picklable)
def die() -> None:
    """Kill this worker process outright, as the kernel's out-of-memory killer or a native crash would."""
    os.kill(os.getpid(), signal.SIGKILL)


def die_once(flag: str) -> int:
    """Kill this worker the first time (``flag`` does not exist yet); return 42 on every later call."""
    path = Path(flag)
    if not path.exists():
        path.write_text("died once")
        die()
    return 42


def steps(n: int, pause: float, progress=None) -> int:
    for i in range(n):
        time.sleep(pause)
        if progress is not None:
            progress(i + 1, n)
    return n


@pytest.fixture
def fresh():
    """A server-wide pool of this test's own (no rebuild counted yet); stopped afterwards."""
    background.shutdown()
    yield
    background.shutdown()


def server_job(blocks) -> background.Job:
    """A job as a page inside a server starts it (the server-wide pool, healed at submit)."""
    background.executor()
    return background.Job(blocks, executor=background._ServerPool(), board=background._PendingBoard())


@pytest.mark.skipif(background.WORKERS < 2, reason="needs two workers: one runs the other visitor's job")
def test_a_dead_worker_ends_the_running_jobs_plainly_and_the_next_job_runs(fresh):
    before, _board = background.executor()
    for f in [before.submit(os.getpid) for _ in range(background.WORKERS)]:
        f.result(timeout=120)
    wait(lambda: len(before._processes) == background.WORKERS)  # both workers up: the two jobs run side by side
    other = server_job([background.Block("long", steps, (2000, 0.05))])  # another visitor's run
    wait(lambda: other.progress() > 0)
    killer = server_job([background.Block("boom", die)])
    wait(lambda: killer.done() and other.done())
    for job in (killer, other):
        assert background.worker_lost(job.error())
        assert background.error_message(job.error()) == background.WORKER_LOST
    assert background._is_broken(before)
    again = server_job([background.Block("x", steps, (3, 0.0))])
    assert again.result(timeout=120) == {"x": 3}
    after, _board = background.executor()
    assert after is not before and not background._is_broken(after)
    assert len(background._REBUILDS) == 1


def test_sessions_asking_at_once_share_one_rebuilt_pool(fresh):
    broken, _board = background.executor()
    job = server_job([background.Block("boom", die)])
    wait(job.done)
    assert background._is_broken(broken)
    got, barrier = [], threading.Barrier(8)

    def ask() -> None:
        barrier.wait()
        got.append(id(background.executor()[0]))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len(set(got)) == 1 and got[0] != id(broken)
    assert len(background._REBUILDS) == 1


def test_rebuilds_are_capped_and_the_job_says_so(fresh, monkeypatch):
    monkeypatch.setattr(background, "MAX_REBUILDS", 2)
    for _ in range(3):  # the first pool and two rebuilt ones, each broken by a dying job
        job = server_job([background.Block("boom", die)])
        wait(job.done)
        assert background.worker_lost(job.error())
    assert len(background._REBUILDS) == 2
    refused = background.Job(
        [background.Block("x", steps, (1, 0.0))], executor=background._ServerPool(), board=background._PendingBoard()
    )
    assert isinstance(refused.error(), background.PoolUnavailable)
    message = background.error_message(refused.error())
    assert "paused" in message and "2 times" in message
    # once the window has passed, the pool is rebuilt again
    monkeypatch.setattr(background, "REBUILD_WINDOW", 0.0)
    assert server_job([background.Block("x", steps, (2, 0.0))]).result(timeout=120) == {"x": 2}


def test_a_dead_progress_board_is_replaced(fresh):
    _pool, board = background.executor()
    manager = background._MANAGER
    manager._process.kill()
    manager._process.join(timeout=30)
    job = server_job([background.Block("s", steps, (4, 0.01))])
    assert job.result(timeout=120) == {"s": 4}
    assert background._MANAGER is not manager
    assert job.progress() == 1.0


def test_a_board_that_dies_while_starting_costs_only_that_job(fresh, monkeypatch):
    """The progress board's process killed before it reported its address (EOFError in the server): the job
    ends with the lost-worker words, and the next job starts a new board and runs."""
    real_start = background.multiprocessing.managers.SyncManager.start
    calls = []

    def dies_once(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise EOFError
        return real_start(self, *args, **kwargs)

    monkeypatch.setattr(background.multiprocessing.managers.SyncManager, "start", dies_once)
    board = background._PendingBoard()
    job = background.Job([background.Block("s", steps, (2, 0.0))], executor=background._PendingPool(board), board=board)
    wait(job.done)
    assert background.worker_lost(job.error()) and background.error_message(job.error()) == background.WORKER_LOST
    assert background._MANAGER is None
    assert server_job([background.Block("s", steps, (3, 0.0))]).result(timeout=120) == {"s": 3}
    assert len(calls) == 2


# ---------------------------------------------------------------- the page's view (AppTest)
def _page():
    import streamlit as st

    from ui import background as bg

    blocks = [bg.Block("r", st.session_state["block"], tuple(st.session_state["args"]))]
    bg.start("heal", "k", blocks, private=True, background=True)
    bg.live_section("heal", lambda job: st.write(f"result {job.finished().get('r')}"))


def _job(at):
    return at.session_state[background._slot("heal")][1]


def _settle(at) -> None:
    job = _job(at)
    wait(job.done)
    at.run()


def test_the_page_says_what_happened_and_run_again_completes(fresh, tmp_path):
    at = AppTest.from_function(_page, default_timeout=120)
    at.session_state["block"], at.session_state["args"] = die_once, [str(tmp_path / "flag")]
    at.run()
    _settle(at)
    assert not at.exception
    assert [e.value for e in at.error] == [background.WORKER_LOST]
    again = at.button(key="_bg_again_heal")
    again.click().run()
    _settle(at)
    assert not at.exception and not at.error
    assert any("result 42" in m.value for m in at.markdown)
    assert not [b for b in at.button if b.key == "_bg_again_heal"]


def test_a_run_that_keeps_killing_its_worker_is_not_offered_forever(fresh):
    at = AppTest.from_function(_page, default_timeout=120)
    at.session_state["block"], at.session_state["args"] = die, []
    at.run()
    _settle(at)
    for _ in range(background.MAX_LOSSES - 1):  # every loss but the last offers "Run again"
        assert [e.value for e in at.error] == [background.WORKER_LOST]
        at.button(key="_bg_again_heal").click().run()
        _settle(at)
    assert [e.value for e in at.error] == [background.WORKER_LOST]
    assert not [b for b in at.button if b.key == "_bg_again_heal"]
    assert any(f"{background.MAX_LOSSES} times" in i.value and "not offered again" in i.value for i in at.info)
    assert not at.exception
