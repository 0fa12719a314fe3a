"""Use the machine (issue 29): each figure before and after, side by side in one run, CPU and wall time with
the load average (the machine is shared).

1. Input perturbation trials (n = 10^5, d = 50, 100 trials, the ``stats`` sampler and the batched ball
   solver): before = OpenBLAS's default threads (the ``dp_core/_blas.py`` rule switched off in this
   process), after = the rule (one thread for the small batched ``eigh`` and products). Same numbers.
2. Dask on a small job (census simulate, 200 trials): in-process, ``--workers 2`` before (every block sent
   out: ``DP_CORE_SMALL_JOB_S=0``), ``--workers 2`` after (the job estimated small runs in-process).
3. Start-up of ``python -m dp_core calibrate gaussian``: before = the old import chain (``dp_core.data`` and
   every mechanism's catalog loaded first, as ``import dp_core`` and the ``--eps`` help did), after = the
   command as it is; the CPU time of the process and whether pandas / scipy.stats were imported.
4. (optional, ``--memory [--memory-n N]``) the one-off sufficient-statistics pass: peak memory against the
   data and CPU, before (the whole Q and P built first, kept callable here) and after (streamed blocks).

Run: ``.venv/bin/python benchmarks/bench_machine.py [--trials 100] [--n 100000] [--d 50] [--memory]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


@contextlib.contextmanager
def clock(out: dict):
    c0, w0 = time.process_time(), time.perf_counter()
    yield
    out["cpu"], out["wall"] = time.process_time() - c0, time.perf_counter() - w0


def row(label: str, before: dict, after: dict, unit: str = "s") -> None:
    ratio = before["cpu"] / max(after["cpu"], 1e-9)
    print(
        f"  {label:<34} before: CPU {before['cpu']:7.3f} {unit}, wall {before['wall']:7.3f} {unit}   "
        f"after: CPU {after['cpu']:7.3f} {unit}, wall {after['wall']:7.3f} {unit}   CPU ratio {ratio:5.1f}x"
    )


# ------------------------------------------------------------------ 1. BLAS threads
def bench_threads(n: int, d: int, trials: int) -> None:
    from dp_core.mechanisms.input_perturbation import mechanism, solver
    from dp_core.mechanisms.input_perturbation.mechanism import input_perturbation_thetas
    from dp_core.mechanisms.input_perturbation.model import model_constants, sufficient_stats
    from dp_core.mechanisms.input_perturbation.params import input_perturbation_params

    rng = np.random.default_rng(29)
    X = rng.standard_normal((n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    y = np.clip(X @ (rng.standard_normal(d) / np.sqrt(d)) + 0.1 * rng.standard_normal(n), -1, 1)
    st = sufficient_stats(X, y)
    c = model_constants("least_squares")
    p = input_perturbation_params(n=n, d=d, epsilon=1.0, delta=1e-5, zeta=c.zeta, lam=c.lam)
    seeds = np.random.SeedSequence(1).spawn(trials)
    input_perturbation_thetas(st, p, rng=seeds[:2])  # warm-up (imports, thread pools)
    rule = (solver.blas_threads_for, mechanism.blas_threads_for)
    before, after = {}, {}
    solver.blas_threads_for = mechanism.blas_threads_for = lambda flops: contextlib.nullcontext()
    try:
        with clock(before):
            w_before = input_perturbation_thetas(st, p, rng=seeds)
    finally:
        solver.blas_threads_for, mechanism.blas_threads_for = rule
    with clock(after):
        w_after = input_perturbation_thetas(st, p, rng=seeds)
    same = np.array_equal(w_before, w_after)
    print(f"1. input perturbation, n = {n:,}, d = {d}, {trials} trials ({load()}); identical numbers: {same}")
    row("default BLAS threads -> the rule", before, after)


# ------------------------------------------------------------------ 2. Dask small job
CENSUS = "simulate input-perturbation --dataset census --trials 200 --seed 3 --eps 1 --delta 1e-5".split()


def run_cli(args: list[str], env_extra: dict | None = None) -> tuple[dict, subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    env.pop("DP_CORE_WORKERS", None)
    env.pop("DP_CORE_SCHEDULER", None)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-500:])
    return {"cpu": cpu, "wall": wall}, proc


def bench_dask() -> None:
    args = ["-m", "dp_core", *CENSUS]
    t_in, p_in = run_cli(args)
    t_before, p_before = run_cli([*args, "--workers", "2"], {"DP_CORE_SMALL_JOB_S": "0"})
    t_after, p_after = run_cli([*args, "--workers", "2"])
    ref = json.loads(p_in.stdout)
    out_before, out_after = json.loads(p_before.stdout), json.loads(p_after.stdout)
    note = out_after.pop("execution", {}).get("note", "(no note)")
    out_before.pop("execution", None)
    print(f"2. census simulate, 200 trials ({load()}); same numbers: {ref == out_before == out_after}")
    print(f"  in-process                         CPU {t_in['cpu']:7.3f} s, wall {t_in['wall']:7.3f} s")
    row("--workers 2: all out -> small rule", t_before, t_after)
    print(
        f"  wall ratio to in-process: before {t_before['wall'] / t_in['wall']:.1f}x, "
        f"after {t_after['wall'] / t_in['wall']:.1f}x (CPU of the workers, grandchildren, not counted)"
    )
    print(f"  note in the JSON: {note}")


# ------------------------------------------------------------------ 3. start-up
#: What ``import dp_core`` and the ``--eps`` help loaded before (dp_core.data with pandas, every catalog).
_OLD_CHAIN = "import dp_core.data, dp_core.experiments, dp_core.glossary; dp_core.glossary.all_entries()"
_RUN = (
    "import runpy, sys, io, contextlib\n"
    "sys.argv = ['dp_core', 'calibrate', 'gaussian', '--eps', '1', '--delta', '1e-5']\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try: runpy.run_module('dp_core', run_name='__main__')\n"
    "    except SystemExit: pass\n"
    "print(','.join(m for m in ('pandas', 'pyarrow', 'scipy.stats') if m in sys.modules) or 'none')\n"
)


def bench_startup(repeats: int = 3) -> None:
    best = {}
    for name, prefix in (("before", _OLD_CHAIN), ("after", "")):
        runs = [run_cli(["-c", prefix + "\n" + _RUN]) for _ in range(repeats)]
        t = min((r[0] for r in runs), key=lambda x: x["cpu"])
        best[name] = (t, runs[0][1].stdout.strip())
    print(f"3. python -m dp_core calibrate gaussian, whole process, best of {repeats} ({load()})")
    row("start-up", best["before"][0], best["after"][0])
    print(f"  heavy modules imported: before {best['before'][1]}; after {best['after'][1]}")


# ------------------------------------------------------------------ 4. memory (optional)
def _old_pass(X, y):
    """The pass before streaming: the whole Q and P built first (kept here for the side-by-side)."""
    from dp_core.mechanisms.input_perturbation import model as m

    Q, P, s = m.quadratic_features(X, y)
    S = np.zeros((Q.shape[1],) * 2)
    for start in range(0, Q.shape[0], m._CHUNK):
        S += Q[start : start + m._CHUNK].T @ Q[start : start + m._CHUNK]
    return S, P.sum(axis=0), float(s.sum())


def _traced(fn) -> tuple[dict, int, object]:
    import tracemalloc

    t: dict = {}
    tracemalloc.start()
    with clock(t):
        out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return t, peak, out


def bench_memory(n: int, d: int) -> None:
    from dp_core.mechanisms.input_perturbation.model import sufficient_stats

    rng = np.random.default_rng(5)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.clip(rng.standard_normal(n), -1, 1)
    data = X.nbytes + y.nbytes
    t_old, peak_old, old = _traced(lambda: _old_pass(X, y))
    t_new, peak_new, st = _traced(lambda: sufficient_stats(X, y))
    bare: dict = {}
    with clock(bare):
        X.T @ X
    same = np.array_equal(0.5 * (old[0] + old[0].T), st.S) and np.array_equal(old[1], st.p) and old[2] == st.s_sum
    print(f"4. sufficient statistics, n = {n:,}, d = {d} ({load()}): data {data / 1e6:.0f} MB; same numbers: {same}")
    print(
        f"  peak (data + tracemalloc's extra): before {(data + peak_old) / data:.2f}x the data, "
        f"after {(data + peak_new) / data:.2f}x"
    )
    row("the one-off pass", t_old, t_new)
    print(f"  a bare X^T X: CPU {bare['cpu']:.3f} s (after / bare: {t_new['cpu'] / max(bare['cpu'], 1e-9):.1f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--memory", action="store_true", help="also the peak memory of the one-off pass")
    ap.add_argument("--memory-n", type=int, default=None, help="rows for the memory figure (default --n)")
    a = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, {load()}")
    bench_threads(a.n, a.d, a.trials)
    bench_dask()
    bench_startup()
    if a.memory:
        bench_memory(a.memory_n or a.n, a.d)


if __name__ == "__main__":
    main()
