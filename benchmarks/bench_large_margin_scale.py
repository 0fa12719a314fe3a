"""The large-margin estimator's fit at n = 10^4 .. 10^6 rows: before and after the block-wise solver, and beside
diffprivlib's ``LogisticRegression`` when it is importable (its own environment: requirements-bench.txt).

Run: ``python benchmarks/bench_large_margin_scale.py [--sizes 1e4 1e5 1e6] [--d 20]``. "Before" is the solver as it
was until 2026-11-28, kept here to be measured side by side: the ``n x p^2`` outer products in memory, the default
BLAS threads and the non-private fit inside every private fit. Prints CPU and wall seconds and the load average;
the "before" column is skipped where its outer products would not fit in a quarter of the memory.
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

from dp_core.mechanisms.large_margin_gaussian import mechanism as lm_mech  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian import solvers  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.estimator import LargeMarginGaussianClassifier  # noqa: E402
from dp_core.mechanisms.large_margin_gaussian.model import loss_gradient, outer_vectors  # noqa: E402


class _OuterProductWorkspace:
    """The loss gradient as computed before: from the ``n x p^2`` outer products ``V`` (same sums)."""

    def __init__(self, Z, y, C, p, h, R):
        self.V, self.y, self.h = outer_vectors(Z), y, h

    def __call__(self, Phi):
        return loss_gradient(Phi, self.V, self.y, self.h)


def _fourth_moment_dense(Z) -> float:
    V = outer_vectors(Z)
    return float(np.linalg.eigvalsh(V.T @ V / V.shape[0])[-1])


def _before(fit):
    """Run ``fit`` with the old solver: outer products, default BLAS threads, the non-private fit as warm start."""
    saved = (solvers._LossGradWorkspace, solvers._fourth_moment_top, lm_mech.fit_apg, lm_mech.release_many)
    solvers._LossGradWorkspace, solvers._fourth_moment_top = _OuterProductWorkspace, _fourth_moment_dense
    lm_mech.fit_apg = solvers.fit_apg.__wrapped__
    release = lm_mech.release_many
    lm_mech.release_many = lambda *a, **k: release(*a, **{**k, "warm_start": True})
    try:
        return fit()
    finally:
        solvers._LossGradWorkspace, solvers._fourth_moment_top, lm_mech.fit_apg, lm_mech.release_many = saved


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


def _row(n: int, d: int, rng, dpl, mem: int) -> str:
    """One table row: the fit before and after, and diffprivlib's, on ``n`` synthetic rows of ``d`` features."""
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)

    def est():
        return LargeMarginGaussianClassifier(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)

    p = min(d, 20) + 1
    before = _timed(lambda: _before(est)) if 8 * n * p * p * 3 < mem / 4 else None
    after = _timed(est)
    base = _timed(lambda: dpl(epsilon=1.0, data_norm=8.0, random_state=0).fit(X, y)) if dpl else None
    b = f"{before[0]:.2f} / {before[1]:.2f}" if before else "skipped (memory)"
    r = f"{before[0] / after[0]:.1f}" if before else "—"
    q = f"{base[0]:.2f} | {after[0] / base[0]:.1f}" if base else "not installed | —"
    return f"| {n:,} | {b} | {after[0]:.2f} / {after[1]:.2f} | {r} | {q} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5])
    ap.add_argument("--d", type=int, default=20)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    dpl = _diffprivlib()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    print(f"d = {a.d}, ε = 1, data_norm = 8; load average {os.getloadavg()[0]:.2f}; cpu count {os.cpu_count()}")
    print("| n | before CPU / wall (s) | after CPU / wall (s) | before ÷ after (CPU) ", end="")
    print("| diffprivlib CPU (s) | after ÷ diffprivlib |\n|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in (int(s) for s in a.sizes):
        print(_row(n, a.d, rng, dpl, mem), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
