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


def _timed(fit) -> tuple[float, float, object]:
    c, w = time.process_time(), time.perf_counter()
    out = fit()
    return time.process_time() - c, time.perf_counter() - w, out


def _diffprivlib():
    try:
        from diffprivlib.models import LogisticRegression
    except (ImportError, TypeError, AttributeError):
        return None
    return LogisticRegression


def _row(n: int, d: int, rng, dpl, before_max: int) -> str:
    """One table row: the fit before and after, and diffprivlib's, on ``n`` synthetic rows of ``d`` features."""
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)

    def est():
        return LargeMarginGaussianClassifier(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)

    before = _timed(lambda: _before(est)) if n <= before_max else None
    after = _timed(est)
    base = _timed(lambda: dpl(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)) if dpl else None
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
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    dpl = _diffprivlib()
    print(f"d = {a.d}, ε = 1, data_norm = 8; load average {os.getloadavg()[0]:.2f}; cpu count {os.cpu_count()}")
    print("| n | before CPU / wall (s) | after CPU / wall (s) | before ÷ after (CPU) | max |Δphi| ", end="")
    print("| diffprivlib CPU (s) | after ÷ diffprivlib |\n|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in (int(s) for s in a.sizes):
        print(_row(n, a.d, rng, dpl, int(a.before_max)), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
