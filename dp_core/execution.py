"""Where Monte-Carlo blocks run: in this process, on a local Dask cluster, or on an existing one; results in
submission order, so the numbers are identical whichever executor ran them.
``docs/performance.md`` §"`dp_core/execution.py`: where Monte-Carlo blocks run".
"""

from __future__ import annotations

import abc
import asyncio
import atexit
import contextlib
import contextvars
import functools
import logging
import math
import os
import re
import sys
import threading
import time
import types
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ._validation import check_int
from .exceptions import DPCoreError

__all__ = [
    "CONNECT_TIMEOUT_S",
    "ENV_SCHEDULER",
    "ENV_WORKERS",
    "ExecutionError",
    "Executor",
    "InProcessExecutor",
    "DaskExecutor",
    "RunCancelled",
    "RunHandle",
    "FALLBACK_NOTE",
    "configure",
    "current_executor",
    "fallback_note",
    "get_executor",
    "probe_scheduler",
    "shutdown",
    "submit",
    "use_executor",
]

ENV_SCHEDULER = "DP_CORE_SCHEDULER"
ENV_WORKERS = "DP_CORE_WORKERS"
#: Optional file to which every executor appends one line per finished block (for long batch runs).
ENV_PROGRESS_LOG = "DP_CORE_PROGRESS_LOG"
#: Seconds allowed to reach a scheduler (and for it to show at least one worker).
CONNECT_TIMEOUT_S = 3.0
#: Extra seconds allowed for the Dask handshake once a TCP connection is open. distributed's own timeout
#: covers the connection, not a peer that accepts and then says nothing (issue 24: no exit after 645 s).
HANDSHAKE_GRACE_S = 2.0
#: Most worker processes a local cluster may start.
MAX_LOCAL_WORKERS = 256
#: A job whose blocks are estimated (from its first block, run in the calling process) to take at most this
#: many seconds in all runs in-process even on a cluster: Dask's scheduling costs 0.1-0.3 s per task, 4-7x the
#: whole census simulate (issue 29). ``$DP_CORE_SMALL_JOB_S`` overrides it; ``0`` sends every block out.
SMALL_JOB_S = 3.0
ENV_SMALL_JOB_S = "DP_CORE_SMALL_JOB_S"
#: Scheduling cost assumed per Dask task, and its largest share of a task's time: consecutive blocks go
#: out together so that each task computes for at least ``TASK_OVERHEAD_S / MAX_OVERHEAD_SHARE`` seconds.
TASK_OVERHEAD_S = 0.1
MAX_OVERHEAD_SHARE = 0.1

_ADDRESS_RE = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$")


class ExecutionError(DPCoreError, RuntimeError):
    """The cluster failed during a run (scheduler gone, a block's workers kept dying); no result."""


class RunCancelled(DPCoreError, RuntimeError):
    """The run was cancelled through :meth:`RunHandle.cancel`; no result."""


class RunHandle:
    """A run started by :func:`submit`: progress from completed blocks, cancel, result."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done_blocks = 0
        self._total_blocks = 0
        self._cancelled = threading.Event()
        self._finished = threading.Event()
        self._futures: list = []
        self._client = None
        self._value: Any = None
        self._error: BaseException | None = None

    def _add_total(self, n: int) -> None:
        with self._lock:
            self._total_blocks += n

    def _add_done(self, n: int = 1) -> None:
        with self._lock:
            self._done_blocks += n

    def _track(self, client, futures: list) -> None:
        with self._lock:
            self._client = client
            self._futures = list(futures)
        if self._cancelled.is_set():
            client.cancel(futures)

    def _check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise RunCancelled("the run was cancelled.")

    def progress(self) -> tuple[int, int]:
        """``(blocks done, blocks submitted so far)``."""
        with self._lock:
            return self._done_blocks, self._total_blocks

    def cancel(self) -> None:
        """Stop the run: no new block starts; blocks queued on a cluster are cancelled."""
        self._cancelled.set()
        with self._lock:
            client, futures = self._client, list(self._futures)
        if client is not None and futures:
            with contextlib.suppress(Exception):
                client.cancel(futures)

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def done(self) -> bool:
        return self._finished.is_set()

    def result(self, timeout: float | None = None) -> Any:
        """The return value of the submitted function, or its exception, :class:`RunCancelled` after
        :meth:`cancel`, :class:`TimeoutError` after ``timeout`` seconds."""
        if not self._finished.wait(timeout):
            raise TimeoutError(f"the run has not finished within {timeout} s.")
        if self._error is not None:
            raise self._error
        return self._value


_JOB: contextvars.ContextVar[RunHandle | None] = contextvars.ContextVar("dp_core_job", default=None)
_EXECUTOR: contextvars.ContextVar[Executor | None] = contextvars.ContextVar("dp_core_executor", default=None)


class Executor(abc.ABC):
    """Runs ``fn`` over items and yields the results in the order of the items."""

    kind = "abstract"
    workers = 0
    address: str | None = None

    @abc.abstractmethod
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Yield ``fn(item)`` for every item, in the order of ``items`` (whatever order they finish in)."""

    def describe(self) -> dict:
        """What runs the blocks, for summaries."""
        return {"executor": self.kind, "workers": self.workers, "address": self.address}

    def close(self) -> None:  # noqa: B027 - optional hook: executors without resources keep this no-op
        """Release the executor's resources (a no-op in-process)."""


class InProcessExecutor(Executor):
    """Run blocks one after another in the calling thread (the default)."""

    kind = "in-process"
    workers = 1

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        items = list(items)
        job = _JOB.get()
        if job is not None:
            job._add_total(len(items))
        return self._iterate(fn, items, job)

    @staticmethod
    def _iterate(fn, items, job) -> Iterator[Any]:
        tag = uuid.uuid4().hex[:8]
        for i, item in enumerate(items):
            if job is not None:
                job._check_cancelled()
            out = fn(item)
            if job is not None:
                job._add_done(1)
            _log_progress(tag, i + 1, len(items))
            yield out


def _log_progress(tag: str, done: int, total: int) -> None:
    """Append ``time tag done/total`` to ``$DP_CORE_PROGRESS_LOG`` when it is set (never fails a run)."""
    path = os.environ.get(ENV_PROGRESS_LOG, "").strip()
    if path:
        with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {tag} {done}/{total}\n")


def _identity(x):
    return x


def _call(fn, item):
    # a block running on a worker runs its own nested sweeps in that worker's process (a worker
    # that inherited DP_CORE_WORKERS must not start a cluster of its own)
    with use_executor(_IN_PROCESS):
        return fn(item)


def _count_when_finished(job: RunHandle, n: int, future: Any) -> None:
    if future.status == "finished":
        job._add_done(n)


def _call_group(fn, group: list) -> list:
    return [_call(fn, item) for item in group]


class DaskExecutor(Executor):
    """Run blocks as Dask futures through a ``distributed.Client``."""

    def __init__(self, client, *, kind: str, address: str, cluster=None) -> None:
        self._client = client
        self._cluster = cluster
        self.kind = kind
        self.address = address
        self._n_requested: int | None = None
        self.small_job_s: float | None = None  # None: $DP_CORE_SMALL_JOB_S or SMALL_JOB_S
        self.in_process_blocks = 0  # blocks run in the calling process because their job was small

    @property
    def workers(self) -> int:  # type: ignore[override]
        try:
            return len(self._client.scheduler_info(n_workers=-1).get("workers", {}))
        except TypeError:  # older distributed without n_workers
            return len(self._client.scheduler_info().get("workers", {}))
        except Exception:  # noqa: BLE001 - a lost scheduler has no workers
            return 0

    def small_job_seconds(self) -> float:
        """The in-process threshold: :attr:`small_job_s` when set, else ``$DP_CORE_SMALL_JOB_S`` or the default."""
        if self.small_job_s is not None:
            return float(self.small_job_s)
        try:
            return float(os.environ.get(ENV_SMALL_JOB_S, SMALL_JOB_S))
        except ValueError:
            return SMALL_JOB_S

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        items = list(items)
        job = _JOB.get()
        if job is not None:
            job._check_cancelled()
            job._add_total(len(items))
        if not items:
            return iter(())
        if self.small_job_seconds() <= 0:
            return self._submit(fn, [[item] for item in items], job)
        return self._adaptive(fn, items, job)

    def _adaptive(self, fn, items: list, job) -> Iterator[Any]:
        """The first block in the calling process times the job: the rest in-process when the whole job is
        estimated to take at most :meth:`small_job_seconds`, else on the cluster in groups of blocks."""
        start = time.perf_counter()
        first = _call(fn, items[0])
        cost = max(time.perf_counter() - start, 1e-6)
        if job is not None:
            job._add_done(1)
        rest = items[1:]
        if cost * len(items) <= self.small_job_seconds():
            self.in_process_blocks += len(items)  # counted before the first result (a caller may stop there)
            yield first
            yield from InProcessExecutor._iterate(fn, rest, job)
            return
        size = max(1, math.ceil(TASK_OVERHEAD_S / MAX_OVERHEAD_SHARE / cost))
        later = self._submit(fn, [rest[i : i + size] for i in range(0, len(rest), size)], job)
        yield first
        yield from later

    def _submit(self, fn, groups: list[list], job) -> Iterator[Any]:
        """Each group of blocks as one Dask task; the blocks' results in order."""
        if not groups:
            return iter(())
        client = self._client
        tag = uuid.uuid4().hex[:12]
        try:
            # ship the (possibly large) block function once, as a task the scheduler can recompute
            # if the worker holding it dies; every block task depends on it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Sending large graph": the data is sent once, on purpose
                fn_future = client.submit(_identity, fn, key=f"dp-core-fn-{tag}", pure=False)
            futures = [
                client.submit(_call_group, fn_future, group, key=f"dp-core-block-{tag}-{i}", pure=False)
                for i, group in enumerate(groups)
            ]
        except Exception as exc:  # noqa: BLE001 - the scheduler is unreachable
            raise self._lost(0, len(groups), exc) from None
        if job is not None:
            for f, g in zip(futures, groups):
                f.add_done_callback(functools.partial(_count_when_finished, job, len(g)))
            job._track(client, futures)
        return (out for outs in self._gather_in_order(futures, fn_future, job, tag) for out in outs)

    def _lost(self, done: int, total: int, exc: BaseException) -> ExecutionError:
        return ExecutionError(
            f"lost the Dask {self.kind} at {self.address} after {done} of {total} blocks "
            f"({type(exc).__name__}: {' '.join(str(exc).split())[:200] or 'no detail'}); "
            "the run is incomplete and no result is returned."
        )

    def _gather_in_order(self, futures, fn_future, job, tag: str) -> Iterator[Any]:
        from distributed import KilledWorker

        done = 0
        try:
            for fut in futures:
                try:
                    out = fut.result()
                except KilledWorker as exc:
                    raise ExecutionError(
                        f"a block kept killing its Dask workers ({' '.join(str(exc).split())[:200]}); "
                        "the run is incomplete and no result is returned."
                    ) from None
                except (Exception, asyncio.CancelledError) as exc:
                    if fut.status == "error":
                        raise  # the block's own error (a ValueError from bad parameters, ...)
                    if job is not None and job.cancelled:
                        raise RunCancelled("the run was cancelled.") from None
                    raise self._lost(done, len(futures), exc) from None  # scheduler gone, future lost
                done += 1
                fut.release()
                _log_progress(tag, done, len(futures))
                yield out
        finally:
            rest = [f for f in futures if f.status not in ("finished", "lost", "cancelled")]
            with contextlib.suppress(Exception):
                if rest:
                    self._client.cancel(rest)
                fn_future.release()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.close(timeout=5)
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close(timeout=10)


class _LazyLocalCluster(DaskExecutor):
    """A local cluster started when a job first sends blocks out: a small job (run in-process) never pays
    for starting the worker processes (seconds on a shared machine, longer than the census simulate)."""

    def __init__(self, workers: int) -> None:
        super().__init__(None, kind="local-cluster", address=None)
        self._n_requested = workers
        self._real: DaskExecutor | None = None
        self._start_lock = threading.Lock()

    def _started(self) -> DaskExecutor:
        with self._start_lock:
            if self._real is None:
                self._real = _local_cluster(self._n_requested)
                self.address = self._real.address
            return self._real

    @property
    def workers(self) -> int:  # type: ignore[override]
        return self._n_requested if self._real is None else self._real.workers

    def _submit(self, fn, groups: list[list], job) -> Iterator[Any]:
        return self._started()._submit(fn, groups, job) if groups else iter(())

    def close(self) -> None:
        """The cluster itself belongs to the process (closed by :func:`shutdown`)."""


_LOCK = threading.Lock()
_IN_PROCESS = InProcessExecutor()
_LOCAL: DaskExecutor | None = None  # the one local cluster of this process
_REMOTE: dict[str, DaskExecutor] = {}
_DEFAULT: Executor | None = None  # set by configure() or from the environment on first use
_ATEXIT = False


def check_scheduler_address(address: Any, name: str = "scheduler") -> str:
    """``tcp://host:port`` (or ``tls://``, or plain ``host:port``) with a port in [1, 65535]."""
    if not isinstance(address, str):
        raise TypeError(f"{name} must be a string like tcp://127.0.0.1:8786, got {type(address).__name__}.")
    text = address.strip()
    m = _ADDRESS_RE.match(text)
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ValueError(f"{name} must be an address like tcp://127.0.0.1:8786 (port 1-65535), got {shown!r}.")
    return text if m.group(1) else "tcp://" + text


def _quiet_distributed() -> None:
    for name in ("distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _register_atexit() -> None:
    global _ATEXIT
    if not _ATEXIT:
        atexit.register(shutdown)
        _ATEXIT = True


@contextlib.contextmanager
def importable_main():
    """Start worker processes without re-running a (page) script as their ``__main__``.

    Why: ``docs/performance.md`` §"execution.importable_main".
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    started_as = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if main is None or getattr(main, "__spec__", None) is not None or not path or os.path.abspath(path) == started_as:
        yield  # a module (python -m ...) or the script that was started: workers may import it
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _local_cluster(workers: int) -> DaskExecutor:
    global _LOCAL
    with _LOCK:
        if _LOCAL is not None and _LOCAL._cluster is not None and _LOCAL._n_requested == workers:
            return _LOCAL
        if _LOCAL is not None:
            _LOCAL.close()
            _LOCAL = None
        _quiet_distributed()
        from distributed import Client, LocalCluster

        with importable_main():
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=":0",  # a free port: never fight another cluster for 8787
                silence_logs=logging.CRITICAL,  # a worker outliving its scheduler at shutdown is not news
            )
        client = Client(cluster, set_as_default=False)
        ex = DaskExecutor(client, kind="local-cluster", address=cluster.scheduler_address, cluster=cluster)
        ex._n_requested = workers
        _LOCAL = ex
        _register_atexit()
        return ex


def _connect(address: str, timeout: float) -> DaskExecutor:
    with _LOCK:
        ex = _REMOTE.get(address)
        if ex is not None and ex._client.status == "running":
            return ex
        _quiet_distributed()
        from distributed import Client

        probe_scheduler(address, timeout)
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ValueError(
                f"scheduler: cannot reach a Dask scheduler at {address} within {timeout:g} s "
                f"({type(exc).__name__}); start one with `dask scheduler` or check the address."
            ) from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            with contextlib.suppress(Exception):
                client.close(timeout=2)
            raise ValueError(
                f"scheduler: the Dask scheduler at {address} has no workers (none joined within {timeout:g} s); "
                "start some with `dask worker " + address + "`."
            ) from None
        _require_engine(client, address)
        ex = DaskExecutor(client, kind="scheduler", address=address)
        _REMOTE[address] = ex
        _register_atexit()
        return ex


#: Evaluated on the scheduler and each worker: a builtin (``eval``) carries it, since a function of dp_core
#: could not be unpickled where dp_core is missing, which is the very case to detect.
_HAS_ENGINE = "__import__('importlib.util').util.find_spec('dp_core') is not None"


def _require_engine(client: Any, address: str) -> None:
    """One line naming the fix when the scheduler or a worker cannot import dp_core (the task graph would
    otherwise fail to deserialize there, with Dask's "different environments" error)."""
    try:
        on_workers = client.run(eval, _HAS_ENGINE)
        on_scheduler = client.run_on_scheduler(eval, _HAS_ENGINE)
    except Exception:  # noqa: BLE001 - a cluster that forbids run(): let the blocks say what they find
        return
    missing = (["the scheduler"] if not on_scheduler else []) + [w for w, ok in on_workers.items() if not ok]
    if missing:
        with contextlib.suppress(Exception):
            client.close(timeout=2)
        raise ValueError(
            f"scheduler: {', '.join(missing)} at {address} cannot import dp_core; run `pip install .` from the "
            "repository in the scheduler's and every worker's environment, then restart them (README, Dask)."
        )


async def _ask_identity(address: str, timeout: float) -> Any:
    """The ``identity`` reply of the Dask server at ``address``; every step bounded by ``timeout`` s."""
    from distributed.comm import connect

    comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout + HANDSHAKE_GRACE_S)
    try:
        await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), timeout)
        return await asyncio.wait_for(comm.read(), timeout)
    finally:
        comm.abort()


def probe_scheduler(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Check that a Dask scheduler answers at ``address`` within ``2 (timeout + HANDSHAKE_GRACE_S)`` s, every step
    bounded, in its own thread; one ``ValueError`` naming the address otherwise (issue 24: a silent peer).
    """
    box: dict = {}

    def ask() -> None:
        try:
            box["reply"] = asyncio.run(_ask_identity(address, timeout))
        except BaseException as exc:  # noqa: BLE001 - reported below as one line
            box["error"] = f"{type(exc).__name__}"
            box["refused"] = isinstance(exc, OSError) and not isinstance(exc, TimeoutError)

    worker = threading.Thread(target=ask, name="dp-core-probe", daemon=True)
    worker.start()
    worker.join(2 * timeout + 2 * HANDSHAKE_GRACE_S)
    reply = box.get("reply")
    if isinstance(reply, dict) and reply.get("type") == "Scheduler":
        return
    if box.get("refused"):
        why = f"no connection within {timeout:g} s ({box['error']})"
    elif worker.is_alive() or box.get("error") == "TimeoutError":
        why = f"it accepts connections but no Dask scheduler answered within {timeout:g} s (another service?)"
    else:
        why = "it answered, but not as a Dask scheduler (another service?)"
    raise ValueError(
        f"scheduler: cannot reach a Dask scheduler at {address}: {why}; start one with `dask scheduler` or check "
        "the address and port."
    )


#: What the app tells a visitor when the operator's executor could not be used (the address stays in the log).
FALLBACK_NOTE = (
    "The computing cluster configured for this server could not be used, so runs happen in the server's own "
    "process: the numbers are the same, long runs may take longer."
)


def fallback_note(description: Any) -> str | None:
    """:data:`FALLBACK_NOTE` when ``description`` (an executor's ``describe()`` with the ``source`` the app
    adds, ``"fallback"`` after a failed configuration) says runs fell back to in-process, else ``None``.

    >>> fallback_note({"executor": "in-process", "source": "fallback"}) == FALLBACK_NOTE
    True
    >>> fallback_note({"executor": "in-process", "source": "environment"}) is None
    True
    """
    return FALLBACK_NOTE if isinstance(description, dict) and description.get("source") == "fallback" else None


def get_executor(
    workers: int | None = None,
    scheduler: str | None = None,
    *,
    timeout: float = CONNECT_TIMEOUT_S,
    lazy: bool = False,
) -> Executor:
    """The executor for ``workers`` (a local cluster, 1 to 256; ``0``: in-process) or ``scheduler``
    (``tcp://host:port``, exclusive with ``workers``, ``timeout`` seconds to connect); both ``None``: in-process.
    ``lazy``: the local cluster starts only when a job first sends blocks out (the command line, and the app's
    default executor: a server start never waits for worker processes).
    """
    if workers is not None and scheduler is not None:
        raise ValueError("workers and scheduler are exclusive: give one of them (workers starts a local cluster).")
    if scheduler is not None:
        return _connect(check_scheduler_address(scheduler), float(timeout))
    w = None if workers is None else check_int("workers", workers, lo=0, hi=MAX_LOCAL_WORKERS)
    if not w:
        return _IN_PROCESS
    return _LazyLocalCluster(w) if lazy else _local_cluster(w)


def _from_environment() -> Executor:
    address = os.environ.get(ENV_SCHEDULER, "").strip() or None
    text = os.environ.get(ENV_WORKERS, "").strip()
    workers = None
    if text:
        try:
            workers = int(text)
        except ValueError:
            raise ValueError(f"{ENV_WORKERS} must be an integer in [0, {MAX_LOCAL_WORKERS}], got {text!r}.") from None
    if address is not None and workers is not None:
        raise ValueError(f"set only one of {ENV_SCHEDULER} and {ENV_WORKERS}.")
    if address is not None:
        return get_executor(scheduler=check_scheduler_address(address, ENV_SCHEDULER))
    return get_executor(workers=workers, lazy=True)


def configure(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """Set this process's default executor (used where no :func:`use_executor` is active; else the environment's)."""
    global _DEFAULT
    _DEFAULT = get_executor(workers=workers, scheduler=scheduler, lazy=True)
    return _DEFAULT


def current_executor() -> Executor:
    """The executor of this context: the one of :func:`use_executor`, else the process default."""
    global _DEFAULT
    ex = _EXECUTOR.get()
    if ex is not None:
        return ex
    if _DEFAULT is None:
        if not (os.environ.get(ENV_SCHEDULER, "").strip() or os.environ.get(ENV_WORKERS, "").strip()):
            return _IN_PROCESS
        _DEFAULT = _from_environment()
    return _DEFAULT


@contextlib.contextmanager
def use_executor(executor: Executor) -> Iterator[Executor]:
    """Run the body with ``executor`` as :func:`current_executor` (in this thread/context)."""
    if not isinstance(executor, Executor):
        raise TypeError(f"executor must be a dp_core.execution.Executor, got {type(executor).__name__}.")
    token = _EXECUTOR.set(executor)
    try:
        yield executor
    finally:
        _EXECUTOR.reset(token)


def submit(fn: Callable[..., Any], /, *args: Any, executor: Executor | None = None, **kwargs: Any) -> RunHandle:
    """Run ``fn(*args, **kwargs)`` in a background thread on ``executor`` (default: the caller's); every sweep
    inside ``fn`` reports its blocks to the returned :class:`RunHandle` and stops when it is cancelled."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}.")
    ex = current_executor() if executor is None else executor
    handle = RunHandle()
    ctx = contextvars.copy_context()

    def body() -> None:
        _JOB.set(handle)
        _EXECUTOR.set(ex)
        try:
            handle._value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to result()
            handle._error = RunCancelled("the run was cancelled.") if handle.cancelled else exc
        finally:
            handle._finished.set()

    threading.Thread(target=ctx.run, args=(body,), name="dp-core-run", daemon=True).start()
    return handle


def shutdown() -> None:
    """Close the local cluster and every scheduler connection of this process."""
    global _LOCAL, _DEFAULT
    with _LOCK:
        executors = ([_LOCAL] if _LOCAL is not None else []) + list(_REMOTE.values())
        _LOCAL = None
        _REMOTE.clear()
        if _DEFAULT is not _IN_PROCESS:
            _DEFAULT = None
    for ex in executors:
        ex.close()
