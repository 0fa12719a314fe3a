"""Large-margin Gaussian classifier speed: one private fit, the accuracy-against-epsilon sweep, and the
fast solver against cvxpy.

Run: ``.venv/bin/python benchmarks/bench_large_margin_gaussian.py``. Prints measured times and ratios
from one run. Targets (issue 5): one private fit at n = 1,000, d = 2, 3 classes with the fast solver in
at most 50 ms; an accuracy-against-epsilon sweep of 8 values x 100 trials in at most 30 s; report the
speed ratio of the fast solver to cvxpy.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.data import make_gaussian_classes  # noqa: E402
from dp_core.mechanisms import large_margin_gaussian as lmg  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.model import sym  # noqa: E402

EPS_GRID = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


CPU = {}


def timed(fn, repeat=7):
    """Median wall time, minimum wall time, last result; the median CPU time goes to ``CPU[fn]``."""
    times, cpus, out = [], [], None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    CPU["last"] = statistics.median(cpus)
    return statistics.median(times), min(times), out


def row(name, measured, target=None, unit="s", cpu=None):
    scale = 1000.0 if unit == "ms" else 1.0
    tgt = "" if target is None else f"target <= {target * scale:g} {unit}"
    verdict = "" if target is None else ("OK" if measured <= target else "OVER")
    cpu_t = "" if cpu is None else f"(CPU {cpu * scale:.3f} {unit})"
    print(f"{name:<72s} {measured * scale:10.3f} {unit:<3s} {cpu_t:<20s} {tgt:<18s} {verdict}")


def main() -> None:
    ds = make_gaussian_classes(1000, d=2, n_classes=3, seed=0)
    cfg = lmg.LargeMarginGaussian(epsilon=1.0)
    data = lmg.prepare(ds.X, ds.y)
    acc = cfg.accounting(n=data.n, d=data.d, n_classes=3)
    print("Large-margin Gaussian classifier benchmark (n = 1000, d = 2, C = 3, eps = 1, lam = mu = 0.01, h = 0.5)")
    load = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
        "(other processes share the cores: times scale with the load)"
    )
    print("-" * 120)

    # 1. one private fit (fast solver) -------------------------------------------------------------
    phi_star = lmg.fit_nonprivate(data, lam=cfg.lam, mu=acc.mu_eff, h=cfg.h)
    seeds = iter(range(10_000))
    med, best, _ = timed(
        lambda: lmg.release_many(None, None, cfg, n_runs=1, seed=next(seeds), data=data, phi_star=phi_star)
    )
    row("one private fit, fast APG (Phi* cached, warm start; what the page does)", med, 0.050, "ms", CPU["last"])
    med_cold, _, _ = timed(lambda: lmg.release_many(ds.X, ds.y, cfg, n_runs=1, seed=next(seeds)))
    row("one private fit, fast APG, from raw data (prepare + Phi* + private solve)", med_cold, 0.050, "ms", CPU["last"])
    med_np, _, _ = timed(lambda: lmg.fit_nonprivate(data, lam=cfg.lam, mu=acc.mu_eff, h=cfg.h))
    row("non-private fit Phi*, fast APG (tol 1e-10)", med_np, None, "ms", CPU["last"])

    # 2. cvxpy (Clarabel) on the same private problem ------------------------------------------------
    N = lmg.sample_radial(acc.noise_dim, acc.beta, rng=1).reshape(3, 3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_cvx, _, (P_cvx, status) = timed(
            lambda: lmg.fit_cvxpy(data.Z, data.y, 3, cfg.lam, acc.mu_eff, cfg.h, noise=N), repeat=3
        )
    c_cvx = CPU["last"]
    lin = sym(N)[None] / data.n
    start = lmg.project_psd(phi_star[None] - lin / acc.mu_eff)
    t_apg, _, res = timed(lambda: lmg.fit_apg(data.Z, data.y, 3, cfg.lam, acc.mu_eff, cfg.h, linear=lin, phi0=start))
    c_apg = CPU["last"]
    t_apg_cold, _, res_cold = timed(lambda: lmg.fit_apg(data.Z, data.y, 3, cfg.lam, acc.mu_eff, cfg.h, linear=lin))
    diff = float(np.max(np.abs(res.phi[0] - P_cvx)))
    row(f"same private problem, cvxpy + Clarabel (status {status})", t_cvx, None, "ms", c_cvx)
    row(f"same private problem, fast APG warm start ({res.iterations} iterations)", t_apg, None, "ms", c_apg)
    row(f"same private problem, fast APG cold start from 0 ({res_cold.iterations} iterations)", t_apg_cold, None, "ms")
    print(
        f"{'speed ratio fast/cvxpy (time of APG / time of Clarabel), warm start':<72s} {t_apg / t_cvx:10.4f}"
        f"     (cvxpy is {t_cvx / t_apg:.0f}x slower)"
    )
    print(f"{'speed ratio fast/cvxpy in CPU time, warm start':<72s} {c_apg / c_cvx:10.4f}")
    print(
        f"{'speed ratio fast/cvxpy, cold start':<72s} {t_apg_cold / t_cvx:10.4f}"
        f"     (cvxpy is {t_cvx / t_apg_cold:.0f}x slower)"
    )
    print(
        f"{'max |Phi_APG - Phi_cvxpy| (entries up to ' + format(float(np.abs(P_cvx).max()), '.3g') + ')':<72s} "
        f"{diff:10.2e}"
    )

    # 3. sweeps ---------------------------------------------------------------------------------------
    task = lmg.make_task(ds, seed=0)
    c0, t0 = time.process_time(), time.perf_counter()
    df = lmg.accuracy_sweep(task, epsilons=EPS_GRID, modes=("corrected",), n_trials=100, seed=0)
    t_sweep = time.perf_counter() - t0
    row(
        "accuracy-vs-eps sweep, R (corrected), 8 eps x 100 trials (+ non-private)",
        t_sweep,
        30.0,
        "s",
        time.process_time() - c0,
    )
    for mode in ("repaired", "printed"):
        c0, t0 = time.process_time(), time.perf_counter()
        lmg.accuracy_sweep(task, epsilons=EPS_GRID, modes=(mode,), n_trials=100, seed=0)
        row(
            f"accuracy-vs-eps sweep, {mode}, 8 eps x 100 trials",
            time.perf_counter() - t0,
            None,
            "s",
            time.process_time() - c0,
        )
    est = 8 * 100 * t_cvx
    print(f"{'the R sweep with cvxpy (estimated as 800 x one Clarabel solve)':<72s} {est:10.1f} s")
    r = df[df.method == "corrected"].groupby("epsilon")["accuracy"].mean()
    print("R test accuracy by eps (100 trials):", ", ".join(f"{e:g}: {v:.3f}" for e, v in r.items()))


if __name__ == "__main__":
    main()
