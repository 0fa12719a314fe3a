"""Label RR on census beside the label-DP bags: test R², mean ± standard error over 30 seeded trials.

Through the public comparison engine (census, its default 20,000 rows, one seeded 80/20 split), at
ε ∈ {0.1, 0.5, 1, 2, 5, 10} and δ = 1e-5; label RR is pure ε-label-DP (δ = 0). The bags' noisy weighted LLP is
reported at the ε its privacy profile gives for its (k, m, ρ). Prints CPU time and the load average.

Run: ``.venv/bin/python benchmarks/bench_label_rr.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.compare.engine import make_spec, run_compare  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402

EPS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)


def main() -> None:
    c0, t0 = time.process_time(), time.perf_counter()
    spec = make_spec(epsilons=EPS, delta=1e-5, n_trials=30, seed=0)
    res = run_compare(load_dataset("census"), spec, mechanisms=["label_rr", "label_dp_bags"])
    print("census test R², mean ± SE over 30 trials, δ = 1e-5 (compare engine, seed 0)")
    print(f"{'method':<18}{'ε':>8}{'R²':>10}{'± SE':>9}{'MAE':>9}")
    for (method, eps), g in res.summary.groupby(["method", "epsilon"], sort=False):
        row = g.iloc[0]
        mae = row.get("mae_mean", float("nan"))
        print(f"{method:<18}{eps:>8.3g}{row['utility_mean']:>10.4f}{row['utility_se']:>9.4f}{mae:>9.4f}")
    print("non-private fits:", {k: round(v, 4) for k, v in res.nonprivate.items()})
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    print(f"CPU {cpu:.1f} s, wall {wall:.1f} s, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
