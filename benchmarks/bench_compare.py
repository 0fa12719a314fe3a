"""Benchmark of the comparison and the negotiation: seconds per mechanism and dataset.

Run: ``python benchmarks/bench_compare.py [--trials 20] [--n-eps 8]``. Prints, for every demo dataset,
the wall and CPU seconds of each applicable mechanism's utility-vs-epsilon sweep, then the time of a
full negotiation (every applicable mechanism, the CLI's default grid) next to the target of "a few
seconds". Numbers depend on the machine's load; CPU seconds are the steadier measure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.compare import applicable_adapters, default_epsilons, make_spec, run_compare  # noqa: E402
from dp_core.data import DATASETS, load_dataset  # noqa: E402
from dp_core.negotiate import negotiate  # noqa: E402


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--n-eps", type=int, default=8)
    ap.add_argument("--datasets", nargs="+", default=sorted(DATASETS))
    args = ap.parse_args()
    spec = make_spec(epsilons=default_epsilons(0.05, 10.0, args.n_eps), delta=1e-5, n_trials=args.trials, seed=0)
    print(f"{'dataset':<17}{'mechanism':<24}{'trials':>7}{'wall s':>9}{'cpu s':>8}")
    for name in args.datasets:
        ds = load_dataset(name)
        for a in applicable_adapters(ds.task):
            _, w, c = _timed(lambda ds=ds, a=a: run_compare(ds, spec, mechanisms=[a.key]))
            print(f"{name:<17}{a.key:<24}{a.n_trials(spec):>7}{w:>9.2f}{c:>8.2f}")
    print()
    print(f"{'dataset':<17}{'negotiate (all mechanisms, accuracy/r2 target)':<48}{'wall s':>9}{'cpu s':>8}")
    for name in args.datasets:
        ds = load_dataset(name)
        target = "r2=0.2" if ds.task == "regression" else "accuracy=0.8"
        _, w, c = _timed(lambda ds=ds, target=target: negotiate(ds, [target], n_trials=args.trials))
        print(f"{name:<17}{target:<48}{w:>9.2f}{c:>8.2f}")


if __name__ == "__main__":
    main()
