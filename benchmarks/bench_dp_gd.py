"""DP-GD on breast_cancer beside the papers' classifiers, and diffprivlib's figures from docs/estimators.md.

Test accuracy, mean ± standard error over 30 seeded trials at ε ∈ {0.1, 1, 10}, δ = 1e-5, through the public
comparison engine (one seeded 80/20 split, every applicable adapter). The diffprivlib row is read from the
table of ``docs/estimators.md`` §"Benchmark against diffprivlib" (its own splits: a reference, not a paired
comparison). Prints CPU time and the load average.

Run: ``.venv/bin/python benchmarks/bench_dp_gd.py``.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dp_core.compare.engine import make_spec, run_compare  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402

EPS = (0.1, 1.0, 10.0)


def diffprivlib_row() -> dict[float, str]:
    """diffprivlib LogisticRegression's cells at ``EPS`` from the docs table (columns ε = 0.1, 0.5, 1, 2, 5, 10)."""
    text = (ROOT / "docs" / "estimators.md").read_text("utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("| diffprivlib LogisticRegression |"))
    cells = [c.strip() for c in line.strip("|").split("|")][1:7]
    cols = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
    return {e: re.sub(r"\s+", " ", cells[cols.index(e)]) for e in EPS}


def main() -> None:
    c0, t0 = time.process_time(), time.perf_counter()
    spec = make_spec(epsilons=EPS, delta=1e-5, n_trials=30, seed=0)
    res = run_compare(load_dataset("breast_cancer"), spec)
    s = res.summary
    print("breast_cancer test accuracy, mean ± SE over 30 trials, δ = 1e-5 (compare engine, seed 0)")
    print(f"{'method':<34}" + "".join(f"{'ε = ' + format(e, 'g'):>18}" for e in EPS))
    for method, g in s.groupby("method", sort=False):
        g = g.set_index("epsilon")
        cells = [f"{g.loc[e, 'utility_mean']:.3f} ± {g.loc[e, 'utility_se']:.3f}" for e in EPS]
        print(f"{method:<34}" + "".join(f"{c:>18}" for c in cells))
    dpl = diffprivlib_row()
    print(f"{'diffprivlib LR (docs, own splits)':<34}" + "".join(f"{dpl[e]:>18}" for e in EPS))
    print(f"non-private dp_gd schedule (T = 100): {res.nonprivate['dp_gd']:.3f}")
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    print(f"CPU {cpu:.1f} s, wall {wall:.1f} s, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
