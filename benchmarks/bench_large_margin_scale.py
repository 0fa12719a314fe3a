"""The large-margin estimator's fit at n = 10^4 .. 10^6 rows: before and after the proximal Newton solver, and
beside diffprivlib's ``LogisticRegression`` when it is importable (its own environment: requirements-bench.txt).

Run: ``python benchmarks/bench_large_margin_scale.py [--sizes 1e4 1e5 1e6] [--d 20]``. "Before" is the estimator as
it was until this change, kept here to be measured side by side: one accelerated-projected-gradient solve
(``fit_apg``) and predictions (the fit's constant-predictor check) through the ``n x p^2`` outer products. Prints
CPU and wall seconds and the load average; "before" is skipped above ``--before-max`` rows (it takes minutes).
Earlier figures (the solver before it read the rows block by block) are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dp_core.mechanisms.large_margin_gaussian import estimator as lm_est  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian import mechanism as lm_mech  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.estimator import LargeMarginGaussianClassifier  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.model import decision_values  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.solvers import fit_apg  # noqa: E402


def _before(fit):
    """Run ``fit`` as before: ``fit_apg`` for the one private solve, predictions through the outer products."""
    saved = (lm_mech.fit_newton, lm_est.decision_values_blocked)
    lm_mech.fit_newton = lambda *a, **k: fit_apg(*a, **k, max_iter=50_000)
    lm_est.decision_values_blocked = decision_values
    try:
        return fit()
    finally:
        lm_mech.fit_newton, lm_est.decision_values_blocked = saved


def _timed(fit, repeat: int = 1) -> tuple[float, float, object]:
    """The median CPU and wall seconds of ``repeat`` calls of ``fit``, and the last result."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fit()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return float(np.median(cpu)), float(np.median(wall)), out


def _warm_up(dpl) -> None:
    """Touch 4 GB once and fit each estimator on 2,000 rows, so that neither side pays one-off costs in its timing:
    imports, and the virtual machine's first touch of guest memory (about 2 s per GB here, 0.2 s per GB after)."""
    buf = np.empty(500_000_000 // 8 * 8)
    buf[:] = 1.0
    del buf
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2_000, 5))
    y = (X[:, 0] > 0).astype(int)
    LargeMarginGaussianClassifier(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)
    if dpl:
        dpl(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)


def _diffprivlib():
    try:
        from diffprivlib.models import LogisticRegression
    except (ImportError, TypeError, AttributeError):
        return None
    return LogisticRegression


def _row(n: int, d: int, rng, dpl, before_max: int, repeat: int) -> str:
    """One table row: the fit before and after, and diffprivlib's, on ``n`` synthetic rows of ``d`` features."""
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)

    def est():
        return LargeMarginGaussianClassifier(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)

    before = _timed(lambda: _before(est)) if n <= before_max else None
    after = _timed(est, repeat)
    base = _timed(lambda: dpl(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y), repeat) if dpl else None
    gap = f"{np.max(np.abs(before[2].phi_ - after[2].phi_)):.1e}" if before else "—"
    b = f"{before[0]:.2f} / {before[1]:.2f}" if before else "skipped"
    r = f"{before[0] / after[0]:.1f}" if before else "—"
    q = f"{base[0]:.2f} | {after[0] / base[0]:.1f}" if base else "not installed | —"
    return f"| {n:,} | {b} | {after[0]:.2f} / {after[1]:.2f} | {r} | {gap} | {q} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5])
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--before-max", type=float, default=1e5)
    ap.add_argument("--repeat", type=int, default=3, help="fits timed per row (medians shown; 'before' once)")
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    dpl = _diffprivlib()
    _warm_up(dpl)
    print(f"d = {a.d}, ε = 1, data_norm = 8; load average {os.getloadavg()[0]:.2f}; cpu count {os.cpu_count()}")
    print("| n | before CPU / wall (s) | after CPU / wall (s) | before ÷ after (CPU) | max |Δphi| ", end="")
    print("| diffprivlib CPU (s) | after ÷ diffprivlib |\n|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in (int(s) for s in a.sizes):
        print(_row(n, a.d, rng, dpl, int(a.before_max), a.repeat), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
