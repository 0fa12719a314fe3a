"""Convergence of the l1 exponential mechanism's MCMC sampler, before and after preconditioning.

Run: ``.venv/bin/python benchmarks/bench_l1_convergence.py`` (about 2 minutes on 2 shared cores).

Part 1 — randhie (real data, d = 9, raw features, the CLI's 80 % training split, epsilon = 1,
iota = iota*): the older sampler (isotropic MALA, every chain started at the centre of W, its
presets quick = 150 + 250 and fast = 300 + 600 steps) against the current one (chains started
uniformly on W, dense preconditioners adapted during warm-up from the chains' own draws, the
``ball`` or ``tanh`` kernel chosen during warm-up, quick = 200 + 400 and fast = 300 + 600 steps),
side by side in one run. Part 1b does the same on randhie standardised as the comparison page
does (its unconstrained fit lies outside W, so the target's mass sits against the boundary). Both
are diagnosed the same way: rank-normalised split-R-hat (max of bulk and folded, over the log
target and every coordinate) and the smallest bulk ESS, on the whole sampling phase. Convergence means R-hat <= 1.05
and ESS >= 100 (``dp_core.mechanisms.l1_exponential.mcmc.RHAT_THRESHOLD`` / ``ESS_MIN``).

Part 2 — cost of 100 draws at n = 1e4, d = 5 (the speed target of the issue on sampler speed:
<= 3 s wanted, and no slower than the older sampler's 10.5 s) for the quick preset and the
library default preset (fast), old and new, with the ratio new/old.

Wall time and process CPU time are both shown: on a shared machine the wall time includes waiting.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.data import load_dataset, make_heavy_tailed, train_test_split
from dp_core.mechanisms.l1_exponential import kappa
from dp_core.mechanisms.l1_exponential.bounds import iota_star, moment_constants
from dp_core.mechanisms.l1_exponential.mcmc import ESS_MIN, RHAT_THRESHOLD, MCMCSchedule, em_mcmc
from dp_core.mechanisms.l1_exponential.mechanism import L1ExponentialRegression


def run(X, y, iota, K, schedule, seed):
    c0, t0 = time.process_time(), time.perf_counter()
    res = em_mcmc(X, y, epsilon=1.0, theta=1.5, iota=iota, n_draws=K, schedule=schedule, rng=seed)
    return res.diagnostics, time.perf_counter() - t0, time.process_time() - c0


def fmt_diag(dg, wall):
    return (
        f"R-hat {dg.rhat_max:7.3f}  ESS {dg.ess_min:6.0f}  acc {dg.acceptance:4.2f}  {dg.parametrisation:<4}  "
        f"{dg.status:<13}  wall {wall:6.2f} s"
    )


def main() -> None:
    ds = load_dataset("randhie")
    tr, _ = train_test_split(ds, seed=0)
    iota = L1ExponentialRegression(epsilon=1.0).calibrate(tr.n, tr.d).iota
    print(f"Part 1: randhie, n = {tr.n:,} training rows, d = {tr.d}, eps = 1, theta = 1.5, iota* = {iota:.4g}")
    print(f"Converged when R-hat <= {RHAT_THRESHOLD} and bulk ESS >= {ESS_MIN:g}.\n")
    header = f"{'chains':>6} {'preset':<6} {'seed':>4} | {'before (older sampler)':<78} | {'after':<78} | time ratio"
    print(header)
    print("-" * len(header))
    for K in (16, 100):
        for preset in ("quick", "fast"):
            seeds = (0, 1, 2) if K == 16 else (0,)
            for seed in seeds:
                d_old, w_old, _ = run(tr.X, tr.y, iota, K, MCMCSchedule.legacy(preset), seed)
                d_new, w_new, _ = run(tr.X, tr.y, iota, K, MCMCSchedule.preset(preset), seed)
                print(
                    f"{K:>6} {preset:<6} {seed:>4} | {fmt_diag(d_old, w_old):<78} | {fmt_diag(d_new, w_new):<78} | "
                    f"{w_new / w_old:5.2f}",
                    flush=True,
                )

    X, y = tr.X, tr.y
    Xs = (X - X.mean(axis=0)) / X.std(axis=0) / 3.0
    ys = (y - np.median(y)) / np.median(np.abs(y - np.median(y)))
    print(
        f"\nPart 1b: randhie standardised as on the comparison page (features by their sd and sqrt(d), label by "
        f"its median absolute deviation), same iota = {iota:.4g}"
    )
    print(header)
    print("-" * len(header))
    for preset in ("quick", "fast"):
        for seed in (0, 1):
            d_old, w_old, _ = run(Xs, ys, iota, 16, MCMCSchedule.legacy(preset), seed)
            d_new, w_new, _ = run(Xs, ys, iota, 16, MCMCSchedule.preset(preset), seed)
            print(
                f"{16:>6} {preset:<6} {seed:>4} | {fmt_diag(d_old, w_old):<78} | {fmt_diag(d_new, w_new):<78} | "
                f"{w_new / w_old:5.2f}",
                flush=True,
            )

    n, d = 10_000, 5
    ds5 = make_heavy_tailed(n, d=d, seed=1)
    c = moment_constants("A3", tau=1.0, d=d, theta=1.5)
    iota5 = iota_star(
        zeta=1 / n,
        n=n,
        eta=0.01,
        theta=1.5,
        M_theta=c.M_theta,
        V_theta=c.V_theta,
        diam_W=2.0,
        kappa_value=kappa(1.0, 1.5),
        d=d,
    )
    print(f"\nPart 2: 100 draws (100 chains), heavy-tailed synthetic n = {n:,}, d = {d}, eps = 1, iota* = {iota5:.4g}")
    for preset in ("quick", "fast"):
        d_old, w_old, c_old = run(ds5.X, ds5.y, iota5, 100, MCMCSchedule.legacy(preset), 0)
        d_new, w_new, c_new = run(ds5.X, ds5.y, iota5, 100, MCMCSchedule.preset(preset), 0)
        print(f"  {preset:<5} before: {fmt_diag(d_old, w_old)} (cpu {c_old:5.1f} s, {d_old.n_adapt}+{d_old.n_sample})")
        print(
            f"  {preset:<5} after:  {fmt_diag(d_new, w_new)} (cpu {c_new:5.1f} s, {d_new.n_adapt}+{d_new.n_sample})"
            f"  ratio after/before {w_new / w_old:4.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
