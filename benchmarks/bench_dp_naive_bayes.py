"""DP naive Bayes beside the papers' classifiers on breast_cancer: test accuracy over 30 seeds.

Run: ``python benchmarks/bench_dp_naive_bayes.py [--trials 30]``. Every number comes from the public
comparison engine (``run_compare``: same split, same seeds for every mechanism) at ε ∈ {0.1, 1, 10},
δ = 1e-5; the diffprivlib row is read from ``docs/estimators.md`` (its own split, measured there).
Prints the CPU seconds and the load average, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dp_core.compare import make_spec, run_compare  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402

EPS = (0.1, 1.0, 10.0)
MECHS = ("dp_naive_bayes", "large_margin_gaussian", "input_perturbation")


def diffprivlib_row() -> list[str]:
    """The diffprivlib cells at ε = 0.1, 1, 10 of the breast_cancer table in docs/estimators.md."""
    for line in (ROOT / "docs" / "estimators.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| diffprivlib LogisticRegression | 0"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            return [cells[1], cells[3], cells[6]]
    return ["?"] * 3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    ds = load_dataset("breast_cancer")
    spec = make_spec(epsilons=EPS, delta=1e-5, n_trials=args.trials, seed=0)
    cpu, wall = time.process_time(), time.perf_counter()
    res = run_compare(ds, spec, mechanisms=list(MECHS))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    status = {m["method"]: m["status"] for m in res.methods}
    s = res.summary
    print(f"breast_cancer test accuracy, mean ± SE over {args.trials} seeds (compare engine, δ = 1e-5)")
    print(f"{'method':<34}" + "".join(f"{'ε = ' + format(e, 'g'):>18}" for e in EPS))
    for method in s["method"].unique():
        rows = s[s["method"] == method].set_index("epsilon")
        cells = [f"{rows.loc[e, 'utility_mean']:.3f} ± {rows.loc[e, 'utility_se']:.3f}" for e in EPS]
        print(f"{method:<34}" + "".join(f"{c:>18}" for c in cells) + f"   {status.get(method, '')}")
    print(f"{'diffprivlib LR (docs/estimators.md)':<34}" + "".join(f"{c:>18}" for c in diffprivlib_row()))
    print("non-private: " + ", ".join(f"{k} {v:.3f}" for k, v in res.nonprivate.items()))
    load = os.getloadavg()[0]
    print(f"CPU {cpu:.1f} s (this process), wall {wall:.1f} s; load average {load:.2f} (1 min), {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
