"""The same Monte-Carlo sweep in-process, on a LocalCluster of 1 and 2 workers, and through a separately
started ``dask scheduler`` + 2 ``dask worker`` processes on loopback.

Run: ``.venv/bin/python benchmarks/bench_cluster.py [--trials 1600] [--overhead-blocks 200]``.

The sweep is the input-perturbation simulation of ``python -m dp_core simulate input-perturbation
--dataset census`` at four training sizes (blocks of 200 trials). For each executor it prints the
start-up time, the sweep's wall time, the ratio to in-process, whether the per-trial table is
bit-identical to the in-process one, and the per-block overhead (wall time of a sweep of empty
blocks divided by their number). Then it projects the wall time at 8 and 64 workers with the model

    wall(W) = n_blocks * overhead + ceil(n_blocks / W) * cost

where ``cost`` is the in-process wall time per block and ``overhead`` the per-block cost measured on
the loopback scheduler, taken as serial (the client submits and gathers one block at a time; this is
the pessimistic end). Start-up (cluster launch, connecting) is paid once per process and is left out.
All numbers come from one run; on a shared machine, compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dp_core import execution  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402
from dp_core.experiments import run_sweep  # noqa: E402
from dp_core.mechanisms.input_perturbation.experiment import (  # noqa: E402
    SimulationConfig,
    prepare_data,
    simulate_over_n,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _empty_block(point, seeds):
    return pd.DataFrame({"x": np.zeros(len(seeds))})


class LoopbackCluster:
    """``dask scheduler`` + N ``dask worker`` processes on 127.0.0.1, killed on exit."""

    def __init__(self, workers: int = 2) -> None:
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.workers = workers
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> LoopbackCluster:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        dask = str(Path(sys.executable).parent / "dask")
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "cwd": ROOT}
        self.procs.append(
            subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"], **quiet
            )
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the dask scheduler did not start within 120 s") from None
                time.sleep(0.2)
        for _ in range(self.workers):
            self.procs.append(
                subprocess.Popen([dask, "worker", self.address, "--nthreads", "1", "--no-dashboard"], **quiet)
            )
        return self

    def __exit__(self, *exc) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1600, help="trials per training size (blocks of 200)")
    ap.add_argument("--overhead-blocks", type=int, default=200, help="empty blocks timed for the overhead")
    args = ap.parse_args()

    ds = load_dataset("census", seed=3)
    data = prepare_data(ds, "least_squares", seed=3)
    cfg = SimulationConfig(epsilon=1.0, delta=1e-5, model="least_squares")
    ns = [data.n_train // 8, data.n_train // 4, data.n_train // 2, data.n_train]
    n_blocks = len(ns) * math.ceil(args.trials / min(args.trials, 200))

    def sweep() -> pd.DataFrame:
        return simulate_over_n(data, cfg, ns, n_trials=args.trials, seed=3)

    def overhead() -> float:
        t0 = time.perf_counter()
        run_sweep(_empty_block, [{"p": 0}], n_trials=args.overhead_blocks, seed=0, block_size=1)
        return (time.perf_counter() - t0) / args.overhead_blocks

    rows = []
    reference = None
    cost = math.nan

    def measure(name: str, make) -> None:
        nonlocal reference, cost
        t0 = time.perf_counter()
        ex = make()
        start = time.perf_counter() - t0
        with execution.use_executor(ex):
            simulate_over_n(data, cfg, ns[:1], n_trials=2, seed=0)  # warm-up: imports on the workers
            t0 = time.perf_counter()
            df = sweep()
            wall = time.perf_counter() - t0
            per_block = overhead()
        if reference is None:
            reference, cost = df, wall / n_blocks
        same = reference.equals(df)
        rows.append({"executor": name, "start_s": start, "wall_s": wall, "overhead_ms": per_block * 1e3, "same": same})
        print(f"  {name}: start {start:.1f} s, sweep {wall:.2f} s, overhead {per_block * 1e3:.1f} ms/block", flush=True)

    print(
        f"sweep: input perturbation on census, n in {ns}, {args.trials} trials each, {n_blocks} blocks; "
        f"machine: {os.cpu_count()} cores (shared: compare ratios)",
        flush=True,
    )
    try:
        measure("in-process", lambda: execution.get_executor())
        measure("LocalCluster 1 worker", lambda: execution.get_executor(workers=1))
        measure("LocalCluster 2 workers", lambda: execution.get_executor(workers=2))
        execution.shutdown()
        with LoopbackCluster(2) as lc:

            def connect():
                ex = execution.get_executor(scheduler=lc.address, timeout=60)
                ex._client.wait_for_workers(2, timeout=120)
                return ex

            measure("loopback scheduler + 2 workers", connect)
            execution.shutdown()
    finally:
        execution.shutdown()

    base = rows[0]["wall_s"]
    print("\nexecutor                         start (s)  sweep (s)  ratio to in-process  overhead/block  identical")
    for r in rows:
        print(
            f"{r['executor']:<32} {r['start_s']:>9.1f} {r['wall_s']:>10.2f} {base / r['wall_s']:>15.2f}x"
            f" {r['overhead_ms']:>12.1f} ms  {'yes' if r['same'] else 'NO'}"
        )
    o = rows[-1]["overhead_ms"] / 1e3
    print(
        f"\nprojection, wall(W) = n_blocks * overhead + ceil(n_blocks / W) * cost, cost = {cost:.3f} s/block "
        f"(in-process), overhead = {o * 1e3:.1f} ms/block (loopback scheduler), start-up excluded:"
    )
    for nb in (n_blocks, 1000):
        for w in (1, 8, 64):
            proj = nb * o + math.ceil(nb / w) * cost
            print(f"  {nb:>5} blocks on {w:>2} workers: {proj:8.1f} s  (speed-up {nb * cost / proj:5.1f}x)")


if __name__ == "__main__":
    main()
