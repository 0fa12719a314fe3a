"""Heavy Monte-Carlo work off the page thread: a job of blocks, its progress, a Cancel button.

Blocks run in a healing process pool (in the calling thread outside a server), with the same seeds and
results as in the page's thread; ``private=True`` jobs never leave their session. Rules and the healing
pool: ``docs/performance.md`` §"ui/background.py: heavy work off the page thread".
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import inspect
import logging
import multiprocessing
import multiprocessing.managers
import os
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from dp_core.plugin import Block, latest, staged_blocks  # noqa: F401  (the job contract, re-exported)

from .errors import reference

__all__ = [
    "Block",
    "Job",
    "JobCancelled",
    "MAX_LOSSES",
    "MAX_REBUILDS",
    "PoolUnavailable",
    "WORKER_LOST",
    "error_message",
    "executor",
    "get_job",
    "live_section",
    "run_again",
    "script_run",
    "start",
    "warm",
    "worker_lost",
]

#: A server-wide store keeps at most this many finished demo-data jobs.
SHARED_MAX = 16
#: Worker processes of the server-wide pool (the page thread stays free for the other sessions' reruns).
WORKERS = max(1, min(2, os.cpu_count() or 1))
#: A broken pool is rebuilt automatically at most this many times within :data:`REBUILD_WINDOW` seconds.
MAX_REBUILDS = 5
REBUILD_WINDOW = 600.0
#: A session's run whose worker died is offered "Run again" until it has lost its worker this many times.
MAX_LOSSES = 3

#: What a job interrupted by a dead worker says (issue 24).
WORKER_LOST = (
    "The background worker stopped unexpectedly (for example out of memory); your results were not affected by "
    "anyone else's run. Run again?"
)

_log = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised inside a block once its job has been cancelled."""


class PoolUnavailable(RuntimeError):
    """The pool broke again after :data:`MAX_REBUILDS` rebuilds within :data:`REBUILD_WINDOW` seconds: it is not
    rebuilt until the oldest of them is that old."""


def _accepts_progress(fn: Callable) -> bool:
    try:
        return "progress" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class _Reporter:
    """``progress(done, total)`` for one block; writes into a (possibly cross-process) mapping, checks cancel."""

    def __init__(self, board: Any, job_id: str, block: str) -> None:
        self.board, self.job_id, self.block = board, job_id, block

    def rebind(self, board: Any) -> _Reporter:
        """The same reporter writing into ``board`` (the pool's board, once a pending job is submitted)."""
        return _Reporter(board, self.job_id, self.block)

    def check(self) -> None:
        if self.board.get(("cancel", self.job_id)):
            raise JobCancelled(f"job {self.job_id} was cancelled")

    def __call__(self, done: int, total: int) -> None:
        self.check()
        self.board[(self.job_id, self.block)] = min(1.0, max(0.0, done / total)) if total else 1.0


def _run_block(fn: Callable, args: tuple, kwargs: dict, reporter: _Reporter | None) -> Any:
    """Run one block (in a worker process or the calling thread)."""
    if reporter is not None:
        reporter.check()
        kwargs = {**kwargs, "progress": reporter}
    return fn(*args, **kwargs)


# ------------------------------------------------------------------ the server-wide pool
_POOL_LOCK = threading.Lock()
_POOL: cf.Executor | None = None
_BOARD: Any = None
_MANAGER: Any = None


#: Modules the fork server imports once, so that every worker starts with the engine loaded (and each
#: mechanism folder's ``catalog.WORKER_PRELOAD``).
PRELOAD = ("numpy", "pandas", "scipy.linalg", "dp_core.experiments")
#: Engine modules the server imports in the background at start (pure dp_core and plotly: no Streamlit),
#: then each mechanism folder's ``catalog.PRELOAD``.
SERVER_PRELOAD = ("dp_core.audit", "dp_core.compare", "dp_core.explain", "dp_core.figures", "plotly.subplots")


def _preload(shared: tuple[str, ...], name: str) -> list[str]:
    """``shared`` and the folders' ``catalog.<name>`` (:mod:`dp_core.catalog`)."""
    from dp_core import catalog

    return [*shared, *catalog.joined(name)]


#: Workers run at a lower CPU priority than the server, so the visitors' reruns come first on a busy machine.
WORKER_NICE = 10


def _die_with_parent() -> None:
    """Linux: this process gets SIGTERM when its parent (the fork server) ends, so a killed server leaves no
    worker behind (the fork server itself exits when the server's end of its pipe closes)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: the pool's own shutdown is all there is
        pass


def _worker_start() -> None:
    """Runs once in each worker process: lower its priority, one BLAS thread (the pool is the parallelism)."""
    _die_with_parent()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    try:
        os.nice(WORKER_NICE)
    except OSError:  # not permitted here: run at the server's priority
        pass


def _context():
    # forkserver: never fork the server's threads (tornado, script runners); workers import dp_core once
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def _importable_main():
    from dp_core.execution import importable_main

    return importable_main()


class _ScriptSafePool(cf.ProcessPoolExecutor):
    """A process pool whose workers never re-run a page script: Streamlit makes the running page script the
    process's ``__main__``, and a ``forkserver``/``spawn`` child re-runs the ``__main__`` file it is given
    (:func:`dp_core.execution.importable_main` hides it while a worker starts; workers start on submit)."""

    def _spawn_process(self):
        with _importable_main():
            super()._spawn_process()


def executor() -> tuple[cf.Executor, Any]:
    """The server-wide process pool and its progress board (created on first use, reused by every session); a
    broken pool or dead board is replaced first, under the lock; :class:`PoolUnavailable` after
    :data:`MAX_REBUILDS` replacements within :data:`REBUILD_WINDOW` seconds.
    """
    with _POOL_LOCK:
        if _POOL is not None and (_is_broken(_POOL) or not _manager_alive()):
            _replace_locked()
        if _POOL is None:
            _start_locked()
        return _POOL, _BOARD


def _is_broken(pool: cf.Executor) -> bool:
    """True once a worker of ``pool`` died: ``ProcessPoolExecutor`` then refuses every submit, for good."""
    return bool(getattr(pool, "_broken", False))


def _manager_alive() -> bool:
    proc = getattr(_MANAGER, "_process", None)
    return proc is None or proc.is_alive()


def _start_locked() -> None:
    """Start the pool (and the board's manager, unless it is running); hold ``_POOL_LOCK``."""
    global _POOL, _BOARD, _MANAGER
    ctx = _context()
    if _MANAGER is None:
        if ctx.get_start_method() == "forkserver":
            # the fork server loads the engine once; each worker is a fork of it (not of the web server)
            ctx.set_forkserver_preload(_preload(PRELOAD, "WORKER_PRELOAD"))
        manager = multiprocessing.managers.SyncManager(ctx=ctx)
        try:
            with _importable_main():
                manager.start(_die_with_parent)
        except (EOFError, ConnectionError) as exc:  # the manager died while starting (killed, out of memory)
            raise cf.BrokenExecutor("the progress board's process died while starting") from exc
        _MANAGER = manager
        _BOARD = _MANAGER.dict()
    _POOL = _ScriptSafePool(max_workers=WORKERS, mp_context=ctx, initializer=_worker_start)


#: When the pool was last replaced (monotonic seconds), for the cap on automatic rebuilds.
_REBUILDS: deque[float] = deque()


def _replace_locked() -> None:
    """Drop the broken pool (and a dead manager) so that :func:`_start_locked` makes new ones; hold the lock."""
    global _POOL, _BOARD, _MANAGER
    now = time.monotonic()
    while _REBUILDS and now - _REBUILDS[0] > REBUILD_WINDOW:
        _REBUILDS.popleft()
    if len(_REBUILDS) >= MAX_REBUILDS:
        raise PoolUnavailable(
            f"Background runs are paused: the background workers stopped unexpectedly {len(_REBUILDS)} times in "
            f"the last {REBUILD_WINDOW / 60:.0f} minutes. Please run again in a few minutes."
        )
    _REBUILDS.append(now)
    manager_dead = not _manager_alive()
    _log.warning(
        "background pool replaced (%s; rebuild %d of at most %d per %.0f s)",
        "its board's manager died" if manager_dead else "a worker process died",
        len(_REBUILDS),
        MAX_REBUILDS,
        REBUILD_WINDOW,
    )
    _POOL.shutdown(wait=False, cancel_futures=True)
    _POOL = None
    if manager_dead:
        _MANAGER = _BOARD = None


def shutdown() -> None:
    """Stop the server-wide pool and its manager (tests and benchmarks call this; the server never needs to)."""
    global _POOL, _BOARD, _MANAGER
    with _POOL_LOCK:
        if _POOL is not None:
            _POOL.shutdown(wait=True, cancel_futures=True)
        if _MANAGER is not None and hasattr(_MANAGER, "shutdown"):  # a manager that never started has none
            try:
                _MANAGER.shutdown()
            except Exception:  # noqa: BLE001 - its process has died already: nothing left to stop
                pass
        _POOL = _BOARD = _MANAGER = None
        _REBUILDS.clear()


_WARMING: threading.Thread | None = None


def _noop() -> int:
    return os.getpid()


#: Script runs in progress on this server (``app.py`` wraps every full run in :func:`script_run`).
_RUNS = 0
_RUNS_LOCK = threading.Lock()
#: How long no script may have run before the warm-up thread takes its next step (seconds).
QUIET = 0.25


@contextmanager
def script_run() -> Iterator[None]:
    """``app.py`` wraps every script run in this, so that :func:`warm`'s work waits while a visitor's page runs."""
    global _RUNS, _LAST_RUN_END
    with _RUNS_LOCK:
        _RUNS += 1
    try:
        yield
    finally:
        with _RUNS_LOCK:
            _RUNS -= 1
            _LAST_RUN_END = time.monotonic()


_LAST_RUN_END = 0.0


def _wait_until_quiet(poll: float = 0.05) -> None:
    """Return once no script run is in progress and none has ended for :data:`QUIET` seconds."""
    while True:
        with _RUNS_LOCK:
            quiet = _RUNS == 0 and time.monotonic() - _LAST_RUN_END >= QUIET
        if quiet:
            return
        time.sleep(poll)


def warm() -> None:
    """Import the engine, then start the pool and its workers, in a background thread (once per server, only when
    no script runs; not outside a server nor with ``PUE_NO_WARM``): ``docs/performance.md`` §"background.warm".
    """
    global _WARMING
    if _WARMING is not None or not in_server() or os.environ.get("PUE_NO_WARM"):
        return

    def go() -> None:
        for name in _preload(SERVER_PRELOAD, "PRELOAD"):  # the first visitor of each page then pays no engine import
            _wait_until_quiet()
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module moved or failed: the page imports it and says why
                pass
        _wait_until_quiet()
        pool, _board = executor()
        for f in [pool.submit(_noop) for _ in range(WORKERS)]:
            f.result()

    with _POOL_LOCK:
        if _WARMING is None:
            _WARMING = threading.Thread(target=go, name="background-warm", daemon=True)
            _WARMING.start()


class _InlineExecutor(cf.Executor):
    """Runs each submitted call at once in the calling thread (outside a server, and for comparison)."""

    def submit(self, fn, /, *args, **kwargs):  # noqa: D102 - the Executor interface
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the future carries it to result()
            fut.set_exception(exc)
        return fut


class _PendingBoard:
    """The progress board of a job submitted before the server-wide pool had started.

    Reads give the default and writes are kept until the pool's board exists, then both go to it, so the page
    can create the job (and cancel it) without waiting for the pool to start.
    """

    def __init__(self) -> None:
        self._early: dict = {}
        self._lock = threading.Lock()

    def _real(self) -> Any:
        return _BOARD if _POOL is not None else None

    def get(self, key: Any, default: Any = None) -> Any:
        real = self._real()
        if real is None:
            with self._lock:
                return self._early.get(key, default)
        return real.get(key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        real = self._real()
        if real is None:
            with self._lock:
                self._early[key] = value
                return
        real[key] = value

    def flush(self, real: Any) -> None:
        """Copy what was written before the pool started (a cancel, say) to the pool's board."""
        with self._lock:
            for k, v in self._early.items():
                real[k] = v
            self._early.clear()


class _PendingPool(cf.Executor):
    """Submits to the server-wide pool once it has started, from a thread: the page never waits for the start
    (1–5 s before); its futures are cancelled at once by :meth:`Job.cancel`.
    """

    def __init__(self, board: _PendingBoard) -> None:
        self.board = board

    def submit(self, fn, /, *args, **kwargs):  # noqa: D102 - the Executor interface
        outer: cf.Future = cf.Future()

        def go() -> None:
            if outer.cancelled():  # cancelled before the pool started: nothing to submit
                return
            try:
                _pool, real = executor()
                self.board.flush(real)
                if outer.cancelled():
                    return
                inner = _ServerPool().submit(fn, *args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - the job shows it
                if not outer.cancelled():
                    outer.set_exception(exc)
                return

            def copy(f: cf.Future) -> None:
                if outer.cancelled():
                    return
                if f.cancelled():
                    outer.cancel()
                elif f.exception() is not None:
                    outer.set_exception(f.exception())
                else:
                    outer.set_result(f.result())

            inner.add_done_callback(copy)
            outer.add_done_callback(lambda f: inner.cancel() if f.cancelled() else None)

        threading.Thread(target=go, name="background-submit", daemon=True).start()
        return outer


class _ServerPool(cf.Executor):
    """Submits to the server-wide pool as it is now: a pool found broken at submit is replaced and the call
    submitted once more to the new one; progress reporters are bound to the current board."""

    def submit(self, fn, /, *args, **kwargs):  # noqa: D102 - the Executor interface
        for attempt in range(2):
            pool, board = executor()
            call = [a.rebind(board) if isinstance(a, _Reporter) else a for a in args]
            try:
                return pool.submit(fn, *call, **kwargs)
            except cf.BrokenExecutor:
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


def _pool_ready() -> bool:
    with _POOL_LOCK:
        return _POOL is not None


# ------------------------------------------------------------------ the job
def _submit(pool: cf.Executor, block: Block, reporter: _Reporter | None) -> cf.Future:
    """``block`` submitted to ``pool``; a pool that refuses it (broken, paused) gives a failed future instead,
    so the job shows the failure and the page goes on."""
    try:
        return pool.submit(_run_block, block.fn, tuple(block.args), dict(block.kwargs), reporter)
    except Exception as exc:  # noqa: BLE001 - the job carries it to error() and result()
        fut: cf.Future = cf.Future()
        fut.set_exception(exc)
        return fut


class Job:
    """Blocks submitted to an executor; poll it with :meth:`progress`, stop it with :meth:`cancel`.

    ``executor=None`` uses the calling thread (every block has finished when the constructor returns);
    pass :func:`executor`'s pool (and its board) to run the blocks in worker processes.
    """

    def __init__(self, blocks: Sequence[Block], *, executor: cf.Executor | None = None, board: Any = None) -> None:
        blocks = list(blocks)
        if not blocks:
            raise ValueError("blocks must contain at least one Block, got none.")
        names = [b.name for b in blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"block names must be unique, got {names}.")
        self.id = uuid.uuid4().hex
        self.blocks = {b.name: b for b in blocks}
        self.started = time.monotonic()
        self.finished_at: float | None = None
        self._board = {} if board is None else board
        self._cancelled = False
        self.in_pool = executor is not None
        pool = _InlineExecutor() if executor is None else executor
        self._futures: dict[str, cf.Future] = {}
        for b in blocks:
            reporter = _Reporter(self._board, self.id, b.name) if _accepts_progress(b.fn) else None
            self._futures[b.name] = _submit(pool, b, reporter)

    # -- the handle (the same three methods as the execution layer's)
    def progress(self) -> float:
        """Share of the work done, in [0, 1]: finished blocks count fully, running ones by their reports."""
        total = sum(b.weight for b in self.blocks.values())
        done = 0.0
        for name, fut in self._futures.items():
            w = self.blocks[name].weight
            if fut.done():
                done += w
            else:
                try:
                    done += w * float(self._board.get((self.id, name), 0.0))
                except Exception:  # noqa: BLE001 - the board's manager has gone (server stopping)
                    pass
        return min(1.0, done / total)

    def cancel(self) -> None:
        """Drop the blocks not yet started and stop the running ones at their next progress report."""
        self._cancelled = True
        try:
            self._board[("cancel", self.id)] = True
        except Exception:  # noqa: BLE001 - the board's manager has gone: nothing is running any more
            pass
        for fut in self._futures.values():
            fut.cancel()

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """Every block's result by name; waits for them, re-raises the first failure (or :class:`JobCancelled`)."""
        if self._cancelled:
            raise JobCancelled("the run was cancelled")
        out = {}
        for name, fut in self._futures.items():
            try:
                out[name] = fut.result(timeout=timeout)
            except cf.CancelledError as exc:
                raise JobCancelled("the run was cancelled") from exc
        return out

    # -- for the page
    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def done(self) -> bool:
        """True when every block has finished, failed or been cancelled."""
        finished = all(f.done() for f in self._futures.values())
        if finished and self.finished_at is None:
            self.finished_at = time.monotonic()
        return finished

    def error(self) -> BaseException | None:
        """The first failed block's exception (``None`` while running or when all succeeded)."""
        for fut in self._futures.values():
            if fut.done() and not fut.cancelled() and fut.exception() is not None:
                return fut.exception()
        return None

    def finished(self) -> dict[str, Any]:
        """Results of the blocks that have finished successfully so far (for quick results first)."""
        return {
            name: fut.result()
            for name, fut in self._futures.items()
            if fut.done() and not fut.cancelled() and fut.exception() is None
        }

    def elapsed(self) -> float:
        end = self.finished_at if self.done() and self.finished_at is not None else time.monotonic()
        return end - self.started


def worker_lost(exc: BaseException | None) -> bool:
    """True for the failure of a job whose worker process died (the pool broke under it)."""
    return isinstance(exc, cf.BrokenExecutor)


def error_message(exc: BaseException) -> str:
    """The one line a page shows for a failed job: the parameter message of a ValueError/TypeError, plain words
    for a cancelled run, a dead worker or a paused pool, and a reference id (never the text) for anything else."""
    if isinstance(exc, JobCancelled):
        return "The run was cancelled. Press the button to run it again."
    if worker_lost(exc):
        return WORKER_LOST
    if isinstance(exc, (ValueError, TypeError, PoolUnavailable)):
        return str(exc)
    return (
        "The run failed because of an internal error; the details are in the server's log under the reference "
        f"{reference(exc, 'background job')}. Run again?"
    )


# ------------------------------------------------------------------ finished demo-data results, server-wide
_SHARED: OrderedDict[str, dict] = OrderedDict()
_SHARED_LOCK = threading.Lock()


def _shared_get(key: str) -> dict | None:
    with _SHARED_LOCK:
        if key in _SHARED:
            _SHARED.move_to_end(key)
            return _SHARED[key]
    return None


def _shared_put(key: str, value: dict) -> None:
    with _SHARED_LOCK:
        _SHARED[key] = value
        _SHARED.move_to_end(key)
        while len(_SHARED) > SHARED_MAX:
            _SHARED.popitem(last=False)


def clear_shared() -> None:
    with _SHARED_LOCK:
        _SHARED.clear()


def _known(value: Any) -> Any:
    """A block whose result is already known (from the server-wide store of finished demo-data jobs)."""
    return value


# ------------------------------------------------------------------ Streamlit side
def in_server() -> bool:
    try:
        from streamlit.runtime import Runtime

        # AppTest installs a mock Runtime: only the real class means a server with its own event loop
        return Runtime.exists() and type(Runtime.instance()) is Runtime
    except Exception:  # noqa: BLE001 - no runtime: a script, the CLI
        return False


def _slot(name: str, what: str = "job") -> str:
    return f"_bg_{what}_{name}"


def _entry(name: str, what: str = "job") -> tuple | None:
    """This session's ``(key, job, private)`` of job ``name``, or with ``what="lost"`` its ``(key, losses)``."""
    import streamlit as st

    return st.session_state.get(_slot(name, what))


def get_job(name: str):
    """This session's job called ``name`` (``None`` before :func:`start`)."""
    entry = _entry(name)
    return None if entry is None else entry[1]


def start(
    name: str,
    key: str,
    blocks: Sequence[Block],
    *,
    private: bool,
    restart: bool = False,
    background: bool | None = None,
):
    """Start (or reuse) this session's job ``name`` for the settings ``key``; returns its handle
    (``restart``, ``private``, ``background``: ``docs/performance.md`` §"background.start").
    """
    import streamlit as st

    slot = _slot(name)
    entry = st.session_state.get(slot)
    if entry is not None and entry[0] == key:
        old = entry[1]
        if not (restart and (old.cancelled or old.error() is not None)):
            return old
    if entry is not None and not entry[1].done():
        entry[1].cancel()
    shared = None if private else _shared_get(key)
    if shared is not None:  # known server-wide: a job of finished blocks
        job = Job([Block(name, _known, (value,)) for name, value in shared.items()])
    else:
        job = _launch(blocks, use_pool=in_server() if background is None else background)
    st.session_state[slot] = (key, job, private)
    return job


def _launch(blocks: Sequence[Block], *, use_pool: bool) -> Job:
    """A new job of ``blocks``: in the server-wide pool (started in the background if need be), or inline."""
    import streamlit as st

    if not use_pool:
        with st.spinner("Running..."):
            return Job(blocks)
    # the board follows the pool's current board, so a job outlives a replaced manager
    board = _PendingBoard()
    if _pool_ready():
        return Job(blocks, executor=_ServerPool(), board=board)
    return Job(blocks, executor=_PendingPool(board), board=board)  # the page does not wait for the pool to start


def run_again(name: str) -> None:
    """Run this session's job ``name`` again with the same blocks and settings key (the "Run again" button)."""
    import streamlit as st

    entry = _entry(name)
    if entry is None or not isinstance(entry[1], Job):
        return
    key, old, private = entry
    if worker_lost(old.error()):
        st.session_state[_slot(name, "lost")] = (key, _losses(name, key) + 1)
    st.session_state[_slot(name)] = (key, _launch(list(old.blocks.values()), use_pool=old.in_pool), private)


def _losses(name: str, key: str) -> int:
    """How many times this session's run ``name`` with settings ``key`` has lost its worker and been re-run."""
    entry = _entry(name, "lost")
    return entry[1] if entry is not None and entry[0] == key else 0


def _remember(name: str) -> None:
    entry = _entry(name)
    if entry is None:
        return
    key, job, private = entry
    if not private and isinstance(job, Job) and job.done() and job.error() is None and not job.cancelled:
        _shared_put(key, job.finished())


def live_section(name: str, render: Callable[[Any], None], *, every: float = 1.0, label: str = "Running") -> None:
    """Draw ``render(job)`` for this session's job ``name`` in a fragment that polls it every ``every`` seconds
    while it runs (``docs/performance.md`` §"background.live_section").
    """
    import streamlit as st

    from .errors import boundary

    job = get_job(name)
    running = job is not None and not job.done()

    def body() -> None:
        j = get_job(name)
        if j is None:
            return
        if not j.done():
            st.progress(j.progress(), text=f"{label}: {j.progress():.0%} done after {j.elapsed():.0f} s")
            if st.button("✖ Cancel", key=f"_bg_cancel_{name}"):
                j.cancel()
                st.rerun()
        elif running:  # it finished since the page last ran: one full rerun stops the polling
            _remember(name)
            st.rerun()
        else:
            _remember(name)
        _show_failure(name, j)
        render(j)

    def guarded() -> None:
        with boundary(f"background section {name}"):
            body()

    st.fragment(guarded, run_every=every if running else None)()


def _show_failure(name: str, job: Any) -> None:
    """A finished job's cancellation or failure in plain words, with "Run again" where running again may help."""
    import streamlit as st

    exc = job.error() if job.done() else None
    if job.cancelled:
        st.warning(error_message(JobCancelled()), icon="✖")
    elif exc is not None:
        from dp_core.text import escape_markdown  # the message may quote an uploaded file's names

        st.error(escape_markdown(error_message(exc)), icon="⚠️")
    if not isinstance(job, Job) or not (job.cancelled or _retryable(exc)):
        return
    if worker_lost(exc):
        entry = _entry(name)
        lost = _losses(name, entry[0]) + 1 if entry is not None else 1
        if lost >= MAX_LOSSES:
            st.info(
                f"This run has stopped its background worker {lost} times, so it is not offered again: it probably "
                "needs more memory than the server has. Fewer trials or a smaller dataset need less.",
                icon="🛑",
            )
            return
    if st.button("↻ Run again", key=f"_bg_again_{name}"):
        run_again(name)
        st.rerun()


def _retryable(exc: BaseException | None) -> bool:
    """Failures that running again may cure: a dead worker, a paused pool, an internal error (not bad settings)."""
    return exc is not None and not isinstance(exc, (ValueError, TypeError, JobCancelled))
