"""The execution layer (dp_core.execution): same seed, same numbers, whatever runs the blocks.

Fast tests: a sweep on a 2-worker LocalCluster is bit-identical to the in-process one; argument
checks; an unreachable scheduler fails in one line within seconds; the UI handle reports progress
and cancels. Slow tests start a loopback ``dask scheduler`` and two ``dask worker`` processes and
check the CLI JSON across executors, a worker killed mid-sweep, and a scheduler that disappears.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dp_core import execution
from dp_core.execution import ExecutionError, RunCancelled, get_executor, submit, use_executor
from dp_core.experiments import run_sweep

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CENSUS = "simulate input-perturbation --dataset census --trials 200 --seed 3 --eps 1 --delta 1e-5".split()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("DP_CORE_SCHEDULER", None)
    env.pop("DP_CORE_WORKERS", None)
    env.pop("DP_CORE_SMALL_JOB_S", None)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def _cli(*args: str, timeout: float = 240, small_job_s: str | None = None) -> subprocess.CompletedProcess:
    env = _env()
    if small_job_s is not None:
        env["DP_CORE_SMALL_JOB_S"] = small_job_s
    return subprocess.run(
        [sys.executable, "-m", "dp_core", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _block_factory(delay: float = 0.0):
    """A block function defined in a closure, so Dask ships it by value to remote workers."""

    def block(point, seeds):
        if delay:
            time.sleep(delay)
        rows = []
        for ss in seeds:
            rng = np.random.default_rng(ss)
            x = rng.standard_normal(50)
            rows.append({"value": float(np.sum(x * point["scale"])), "norm": float(np.linalg.norm(x))})
        return pd.DataFrame(rows)

    return block


POINTS = [{"scale": 0.5}, {"scale": 2.0}, {"scale": 3.0}]


def _toy_sweep(delay: float = 0.0, n_trials: int = 40, block_size: int = 5) -> pd.DataFrame:
    return run_sweep(_block_factory(delay), POINTS, n_trials=n_trials, seed=11, block_size=block_size)


# ------------------------------------------------------------------ fast


def test_local_cluster_sweep_is_bit_identical_to_in_process():
    from dp_core.audit.core import run_audit
    from dp_core.mechanisms.textbook.audit import laplace_target

    target = laplace_target(epsilon=1.0)
    reference = _toy_sweep()
    audit_reference = run_audit(target, runs=30_000, seed=4, chunk=4_000)
    try:
        with use_executor(get_executor(workers=2)) as ex:
            ex.small_job_s = 0  # every block to the workers (the small-job rule is tested below)
            assert ex.describe()["executor"] == "local-cluster"
            assert ex.describe()["workers"] == 2
            on_cluster = _toy_sweep()
            audit_on_cluster = run_audit(target, runs=30_000, seed=4, chunk=4_000)

            def bad(point, seeds):
                raise ValueError(f"scale must be at most 2, got {point['scale']}.")

            with pytest.raises(ValueError, match="scale must be at most 2, got 0.5"):
                run_sweep(bad, POINTS, n_trials=4, seed=0)  # a block's own error comes back as it is
    finally:
        execution.shutdown()
    assert len(reference) == 3 * 40
    pd.testing.assert_frame_equal(reference, on_cluster, check_exact=True)
    # the audit's 8 chunks per side ran on the workers: same draws, same bound
    np.testing.assert_array_equal(audit_reference.stats_d, audit_on_cluster.stats_d)
    np.testing.assert_array_equal(audit_reference.stats_dprime, audit_on_cluster.stats_dprime)
    assert audit_reference.result.eps_lower == audit_on_cluster.result.eps_lower
    # and the block size does not change the numbers either
    pd.testing.assert_frame_equal(reference, _toy_sweep(block_size=40), check_exact=True)


def test_lazy_local_cluster_starts_only_when_blocks_go_out():
    reference = _toy_sweep(n_trials=20, block_size=2)
    try:
        ex = get_executor(workers=2, lazy=True)
        with use_executor(ex):
            small = _toy_sweep(n_trials=20, block_size=2)
            assert execution._LOCAL is None and ex.describe() == {
                "executor": "local-cluster",
                "workers": 2,
                "address": None,
            }
            ex.small_job_s = 0
            out = _toy_sweep(n_trials=20, block_size=2)
            assert execution._LOCAL is not None and ex.describe()["address"].startswith("tcp://")
            assert ex.in_process_blocks == 3 * 10
    finally:
        execution.shutdown()
    pd.testing.assert_frame_equal(reference, small, check_exact=True)
    pd.testing.assert_frame_equal(reference, out, check_exact=True)


def test_small_job_runs_in_process_and_grouped_blocks_give_the_same_numbers():
    """Issue 29: a job of a few seconds stays in the calling process (and is counted); a larger one goes out
    in groups of blocks. Same seeds, same table either way."""
    reference = _toy_sweep(n_trials=40, block_size=2)
    try:
        ex = get_executor(workers=2)
        ex.small_job_s, ex.in_process_blocks = None, 0
        with use_executor(ex):
            small = _toy_sweep(n_trials=40, block_size=2)
            assert ex.in_process_blocks == 3 * 20
            ex.small_job_s = 1e-9  # every job "large": the blocks go out, grouped
            handle = submit(_toy_sweep, 0.0, 40, 2, executor=ex)
            grouped = handle.result(timeout=120)
            assert handle.progress() == (60, 60)
            assert ex.in_process_blocks == 3 * 20
    finally:
        execution.shutdown()
    pd.testing.assert_frame_equal(reference, small, check_exact=True)
    pd.testing.assert_frame_equal(reference, grouped, check_exact=True)


def test_unreachable_scheduler_exits_2_with_one_line_quickly():
    port = _free_port()  # nothing listens there
    proc = _cli(*CENSUS, "--scheduler", f"tcp://127.0.0.1:{port}", timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    # the connection attempt gives up after CONNECT_TIMEOUT_S (3 s), and says so
    assert f"127.0.0.1:{port}" in lines[0] and "cannot reach" in lines[0] and "within 3 s" in lines[0]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--scheduler", "not an address"], "--scheduler must be an address"),
        (["--scheduler", "tcp://127.0.0.1:99999"], "port 1-65535"),
        (["--workers", "-1"], "--workers must be an integer in [0, 256]"),
        (["--workers", "100000000000000000000"], "--workers must be an integer in [0, 256]"),
        (["--workers", "nan"], "invalid int value"),
        (["--scheduler", ""], "--scheduler must be an address"),
        (["--scheduler", "x" * 5000], "--scheduler must be an address"),
        (["--scheduler", "../../etc/passwd"], "--scheduler must be an address"),
        (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not allowed with argument"),
    ],
)
def test_bad_execution_options_exit_2(capsys, extra, needle):
    from dp_core.cli import main

    assert main([*CENSUS, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_get_executor_validates(monkeypatch):
    with pytest.raises(ValueError, match="exclusive"):
        get_executor(workers=2, scheduler="tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match=r"workers must be"):
        get_executor(workers=100_000)
    with pytest.raises(TypeError, match="scheduler must be a string"):
        get_executor(scheduler=8786)
    assert get_executor().kind == "in-process"
    assert get_executor(workers=0).kind == "in-process"
    assert execution.check_scheduler_address("127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    monkeypatch.setenv(execution.ENV_WORKERS, "two")
    monkeypatch.setattr(execution, "_DEFAULT", None)
    with pytest.raises(ValueError, match="DP_CORE_WORKERS must be an integer"):
        execution.current_executor()
    monkeypatch.setenv(execution.ENV_WORKERS, "0")
    assert execution.current_executor().kind == "in-process"


def test_environment_default_reaches_the_sweep(monkeypatch):
    monkeypatch.setenv(execution.ENV_SCHEDULER, "tcp://127.0.0.1:99999")
    monkeypatch.setattr(execution, "_DEFAULT", None)
    with pytest.raises(ValueError, match="DP_CORE_SCHEDULER must be an address"):
        _toy_sweep(n_trials=2)
    monkeypatch.setattr(execution, "_DEFAULT", None)


def test_handle_reports_progress_and_result_in_process():
    handle = submit(_toy_sweep, executor=get_executor())
    out = handle.result(timeout=60)
    assert handle.done()
    assert handle.progress() == (3 * 8, 3 * 8)  # 3 points x 40 trials in blocks of 5
    pd.testing.assert_frame_equal(out, _toy_sweep(), check_exact=True)


def test_handle_cancel_stops_the_run_and_gives_no_result():
    handle = submit(_toy_sweep, 0.05, 200, 1, executor=get_executor())
    while handle.progress()[0] < 3:
        time.sleep(0.01)
    handle.cancel()
    with pytest.raises(RunCancelled):
        handle.result(timeout=30)
    done, total = handle.progress()
    assert total == 600 and done < total


def test_handle_reraises_the_block_error():
    def bad(point, seeds):
        raise ValueError("scale must be positive, got -1.")

    handle = submit(run_sweep, bad, POINTS, n_trials=3, seed=0)
    with pytest.raises(ValueError, match="scale must be positive"):
        handle.result(timeout=30)


# ------------------------------------------------------------------ slow: a loopback cluster


def _start_scheduler(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.2)
    _stop([proc])
    pytest.fail("the dask scheduler did not start within 60 s")


def _start_worker(address: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _wait_workers(address: str, n: int) -> None:
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(n, timeout=60)


def _loopback():
    """A ``dask scheduler`` and two ``dask worker`` processes on loopback; all killed afterwards."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start_scheduler(port)]
    try:
        procs += [_start_worker(address), _start_worker(address)]
        _wait_workers(address, 2)
        yield address, procs
    finally:
        execution.shutdown()
        _stop(procs[1:] + procs[:1])


@pytest.fixture(scope="module")
def loopback_cluster():
    """Shared by the tests that leave the scheduler running (a killed worker is not reused)."""
    yield from _loopback()


@pytest.fixture
def own_loopback_cluster():
    """For the test that kills the scheduler."""
    yield from _loopback()


@pytest.mark.slow
def test_census_json_identical_in_process_workers_and_scheduler(loopback_cluster):
    address, _ = loopback_cluster
    runs = {
        "in-process": _cli(*CENSUS),
        "--workers 2": _cli(*CENSUS, "--workers", "2"),
        "--scheduler": _cli(*CENSUS, "--scheduler", address),
        "--scheduler, every block out": _cli(*CENSUS, "--scheduler", address, small_job_s="0"),
    }
    for name, proc in runs.items():
        assert proc.returncode == 0, (name, proc.stderr)
    reference = runs["in-process"].stdout
    assert json.loads(reference)["trials"] == 200
    # the census simulate is a small job: it ran in-process and says so; the numbers are the same bytes
    for name in ("--workers 2", "--scheduler"):
        out = json.loads(runs[name].stdout)
        assert out.pop("execution")["in_process_blocks"] >= 1
        assert out == json.loads(reference)  # every number parsed back exactly
    assert runs["--scheduler, every block out"].stdout == reference


@pytest.mark.slow
def test_worker_killed_mid_sweep_loses_nothing(loopback_cluster):
    address, procs = loopback_cluster
    reference = _toy_sweep(n_trials=24, block_size=2)
    ex = get_executor(scheduler=address)
    ex.small_job_s = 0  # one task per block: the test kills mid-sweep
    handle = submit(_toy_sweep, 0.3, 24, 2, executor=ex)
    deadline = time.monotonic() + 120
    while handle.progress()[0] < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not handle.done()
    procs[1].send_signal(signal.SIGKILL)  # one of the two workers dies mid-sweep
    procs[1].wait(timeout=10)
    out = handle.result(timeout=240)
    assert handle.progress() == (36, 36)
    pd.testing.assert_frame_equal(reference, out, check_exact=True)


@pytest.mark.slow
def test_scheduler_gone_raises_and_returns_no_partial_result(own_loopback_cluster):
    address, procs = own_loopback_cluster
    ex = get_executor(scheduler=address)
    ex.small_job_s = 0  # one task per block: the test kills mid-sweep
    handle = submit(_toy_sweep, 0.3, 40, 1, executor=ex)
    deadline = time.monotonic() + 120
    while handle.progress()[0] < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    procs[0].send_signal(signal.SIGKILL)  # the scheduler disappears
    with pytest.raises(ExecutionError, match="lost the Dask scheduler.*no result is returned"):
        handle.result(timeout=120)
    done, total = handle.progress()
    assert done < total == 120


# ------------------------------------------------------------------ the app: the operator chooses


def _executor_page():
    import streamlit as st

    from ui.executor import configure_executor

    configure_executor.clear()
    info = configure_executor()
    st.text(f"{info['source']} {info['executor']}")


def test_app_executor_from_secrets_and_fallback(monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(execution, "_DEFAULT", None)
    monkeypatch.delenv(execution.ENV_SCHEDULER, raising=False)
    monkeypatch.delenv(execution.ENV_WORKERS, raising=False)
    at = AppTest.from_function(_executor_page, default_timeout=60).run()
    assert not at.exception
    assert at.text[0].value == "environment in-process"

    at = AppTest.from_function(_executor_page, default_timeout=60)
    at.secrets["dp_core"] = {"workers": 0}
    at.run()
    assert not at.exception and at.text[0].value == "secrets in-process"

    at = AppTest.from_function(_executor_page, default_timeout=60)
    at.secrets["dp_core"] = {"scheduler": "anywhere you like"}  # refused, logged, in-process
    at.run()
    assert not at.exception and at.text[0].value == "fallback in-process"
    assert execution.current_executor().kind == "in-process"


@pytest.mark.slow
def test_cluster_without_the_engine_is_reported_in_one_line(tmp_path):
    """A scheduler and a worker started outside the repository, without dp_core installed (issue 29)."""
    env = _env()
    env.pop("PYTHONPATH")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    args = ["--no-dashboard"]
    sched = [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), *args]
    worker = [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-nanny", *args]
    quiet = {"cwd": tmp_path, "env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen(sched, **quiet)]
    try:
        time.sleep(2)
        procs.append(subprocess.Popen(worker, **quiet))
        _wait_workers(address, 1)
        proc = _cli(*CENSUS, "--scheduler", address)
    finally:
        _stop(procs[::-1])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "cannot import dp_core" in lines[0] and "pip install ." in lines[0] and "the scheduler" in lines[0]
