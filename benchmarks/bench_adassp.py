"""AdaSSP beside input and objective perturbation: test R² on diabetes and census over 30 seeds.

Run: ``python benchmarks/bench_adassp.py [--trials 30]``. Every number comes from the public comparison
engine (``run_compare``: same split, same rows, same seeds for every mechanism) at ε ∈ {0.1, 1, 10},
δ = 1e-5. Prints the CPU seconds and the load average, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.compare import make_spec, run_compare  # noqa: E402
from dp_core.data import load_dataset  # noqa: E402

EPS = (0.1, 1.0, 10.0)
MECHS = ("adassp", "input_perturbation")  # the input-perturbation adapter also runs objective perturbation


def table(name: str, trials: int) -> None:
    spec = make_spec(epsilons=EPS, delta=1e-5, n_trials=trials, seed=0)
    cpu, wall = time.process_time(), time.perf_counter()
    res = run_compare(load_dataset(name), spec, mechanisms=list(MECHS))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    s = res.summary
    print(f"\n{name}: test R², mean ± SE [median] over {trials} seeds (compare engine, δ = 1e-5)")
    print(f"{'method':<14}" + "".join(f"{'ε = ' + format(e, 'g'):>26}" for e in EPS))
    t = res.trials
    for method in s["method"].unique():
        rows = s[s["method"] == method].set_index("epsilon")
        med = t[t["method"] == method].groupby("epsilon")["utility"].median()
        cells = [f"{rows.loc[e, 'utility_mean']:.3f} ± {rows.loc[e, 'utility_se']:.3f} [{med[e]:.3f}]" for e in EPS]
        print(f"{method:<14}" + "".join(f"{c:>26}" for c in cells))
    print("non-private: " + ", ".join(f"{k} {v:.3f}" for k, v in res.nonprivate.items()))
    load = os.getloadavg()[0]
    print(f"CPU {cpu:.1f} s (this process), wall {wall:.1f} s; load average {load:.2f} (1 min), {os.cpu_count()} cores")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    for name in ("diabetes", "census"):
        table(name, args.trials)


if __name__ == "__main__":
    main()
