"""Privacy audit speed: targets and measured times side by side, from one run.

Targets (issue 7): 1e5 runs per side of the Gaussian mechanism in at most 2 s; input perturbation
with the ``stats`` sampler at n = 1e4 in at most 20 s. Also measured: the other mechanisms at the
audit page's default run counts, and the test-selection step alone.

Run: ``.venv/bin/python benchmarks/bench_audit.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.audit import audit_statistics, make_target, run_audit  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402

_CPU: list[float] = []


def timed(fn, repeat: int = 1):
    """Best wall time of ``repeat`` calls (the CPU time of that call is kept for :func:`row`)."""
    best, out, cpu = float("inf"), None, 0.0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    _CPU.append(cpu)
    return best, out


def row(label: str, seconds: float, target: float | None, extra: str = "") -> None:
    tgt = f"target ≤ {target:g} s, ratio {seconds / target:.2f}" if target else "no target"
    print(f"{label:<66} {seconds:7.2f} s wall {_CPU[-1]:7.2f} s CPU   ({tgt}) {extra}")


def main() -> None:
    print(f"{'audit':<66} {'measured':>12}   (load average {os.getloadavg()[0]:.1f})")
    t, run = timed(lambda: run_audit(make_target("gaussian", epsilon=1.0, delta=1e-5), runs=100_000, seed=0), 3)
    row("Gaussian mechanism, 1e5 runs per side (sampling + test)", t, 2.0, f"eps_lower={run.result.eps_lower:.3f}")

    rng = np.random.default_rng(0)
    s0, s1 = rng.normal(size=100_000), rng.normal(0.3, 1.0, size=100_000)
    t, _ = timed(lambda: audit_statistics(s0, s1, eps_claimed=1.0, delta=1e-5), 3)
    row("  of which: choosing and evaluating the test (1e5 per side)", t, None)

    census = load_dataset("census")

    def ip():
        tgt = make_target("input-perturbation", epsilon=1.0, delta=1e-5, dataset=census, n=10_000)
        return run_audit(tgt, runs=100_000, seed=0)

    t, run = timed(ip)
    row(
        "Input perturbation, stats sampler, n = 1e4, 1e5 runs per side",
        t,
        20.0,
        f"(incl. 2x2,000 pilot runs) eps_lower={run.result.eps_lower:.3f}",
    )

    def ip_page():
        tgt = make_target("input-perturbation", epsilon=1.0, delta=1e-5, dataset=census, n=10_000)
        return run_audit(tgt, runs=20_000, seed=0)

    t, _ = timed(ip_page)
    row("Input perturbation, n = 1e4, 2e4 runs per side (page default)", t, None)

    classes = load_dataset("gaussian_classes", n=300, seed=0)
    t, run = timed(
        lambda: run_audit(
            make_target("large-margin-gaussian", mode="repaired-psd-off", epsilon=1.0, delta=0.0, dataset=classes),
            runs=1_000,
            seed=0,
        )
    )
    row("Large-margin classifier P+ PSD off, n = 300, 1e3 runs per side", t, None, f"verdict: {run.result.verdict}")
    t, run = timed(
        lambda: run_audit(
            make_target("large-margin-gaussian", mode="corrected", epsilon=1.0, delta=0.0, dataset=classes),
            runs=200,
            seed=0,
        )
    )
    row("Large-margin classifier R (corrected), n = 300, 200 runs per side", t, None, f"verdict: {run.result.verdict}")

    t, run = timed(
        lambda: run_audit(
            make_target("label-dp-bags", mode="naive-llp", epsilon=2.0, delta=1e-5, dataset=census, m=10, k=64, n=2000),
            runs=5_000,
            seed=0,
        )
    )
    row("Label-DP naive LLP, n = 2000, m = 10, k = 64, 5e3 runs per side", t, None, f"verdict: {run.result.verdict}")
    t, run = timed(
        lambda: run_audit(
            make_target(
                "label-dp-bags", mode="noisy-wtd-llp", epsilon=1.0, delta=1e-5, dataset=census, m=100, k=64, n=20_000
            ),
            runs=5_000,
            seed=0,
        )
    )
    row(
        "Label-DP noisy-wtd-LLP, n = 16000, m = 100, k = 64, 5e3 runs per side",
        t,
        None,
        f"verdict: {run.result.verdict}",
    )

    t, run = timed(lambda: run_audit(make_target("l1-exponential", epsilon=1.0, delta=0.0), runs=100_000, seed=0))
    row("l1 exponential mechanism (exact grid), 1e5 runs per side", t, None, f"verdict: {run.result.verdict}")


if __name__ == "__main__":
    main()
