"""Benchmark of the negotiation: wall seconds per demo dataset, before and after, in one run.

Run: ``python benchmarks/bench_negotiate.py [--trials 50] [--datasets census iris] [--table store|bounds|both]``.

``--table store`` (the default) prints, per demo dataset, the full negotiation at the default settings (the
smallest ε for the app's default target, the smallest n at ε = 1, and the smallest ε with twice the rows)
answered from the shipped precomputed results (:mod:`dp_core.precomputed`, ``with store``) and computed
(``DP_CORE_NO_PRECOMPUTED``, ``without``), side by side in one process, with their ratio. The store only
answers the default settings: any other trials, grid or seed is computed as before (the ``without`` column).
The ``with store`` figures include reading the dataset's file (the in-process cache is emptied first).

``--table bounds`` prints the older table: for every demo dataset

* ``compare``: the comparison every negotiation starts from (all applicable mechanisms, the CLI's
  default grid of 10 ε from 0.01 to 20, ``--trials`` trials); the page caches it, the CLI runs it;
* ``bounds old`` / ``bounds new``: the negotiation on top of that comparison for an excess-risk
  target, with the bound crossings evaluated the old way (every one of the 241 fine-grid ε, per
  method) and the new way (bisection on the grid, bound tables shared by a mechanism's methods),
  measured side by side on the same comparison, with their ratio;
* ``utility``: the negotiation on top of the comparison for an accuracy / R² target;
* ``n``: the smallest n at ε = 1 from the learning curves (subsamples at ε = 1 only);
* ``twice``: the smallest ε for twice the rows (learning curves over the whole grid).

The machine may be shared: compare ratios measured in the same run, not seconds across runs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dp_core.negotiate as neg  # noqa: E402
from dp_core import precomputed  # noqa: E402
from dp_core.compare import default_epsilons, make_spec, run_compare  # noqa: E402
from dp_core.data import DATASETS, load_dataset  # noqa: E402
from dp_core.precomputed_runs import default_target  # noqa: E402


def _old_bound_crossing(adapter, state, method, spec, target, grid, cache=None):
    """The negotiation's bound crossing before this change: every grid ε evaluated, per method."""
    b = adapter.bounds(state, list(grid), spec)
    if b is None or not len(b):
        return math.nan, "no bound for this mechanism"
    b = b[b["method"] == method]
    if not len(b):
        return math.nan, "no bound for this method"
    out = []
    for lab, g in b.groupby("label", sort=False):
        g = g.sort_values("epsilon")
        e, note = neg.crossing(g["epsilon"].to_numpy(), g["bound"].to_numpy(), target)
        if note == "interpolated":
            vals, eg = g["bound"].to_numpy(dtype=float), g["epsilon"].to_numpy(dtype=float)
            ok = [i for i in np.nonzero(eg >= e * (1 - 1e-12))[0] if target.met(vals[i])]
            e = float(eg[ok[0]]) if ok else e
        out.append((e, f"{lab}: {note}"))
    return min(out, key=lambda t: (math.isnan(t[0]), t[0]))


def _wall(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _full_negotiation(ds, trials: int) -> tuple[float, float, float]:
    """Seconds of the three questions at the CLI's default grid: smallest ε, smallest n, twice the rows."""
    kw = {"n_trials": trials, "seed": 0, "eps_min": 0.01, "eps_max": 20.0, "n_points": 10, "epsilon": 1.0}
    target = [default_target(ds.task)]
    eps, t_eps = _wall(lambda: neg.negotiate(ds, target, **kw))
    _, t_n = _wall(lambda: neg.negotiate(ds, target, solve_for="n", **kw))
    # "twice the rows" reuses the comparison the first question ran, as the page and the CLI do
    result = run_compare(ds, make_spec(epsilons=default_epsilons(0.01, 20.0, 10), delta=1e-5, n_trials=trials, seed=0))
    _, t_twice = _wall(lambda: neg.negotiate(ds, target, result=result, rows_factor=2.0, **kw))
    return t_eps, t_n, t_twice


def store_table(datasets, trials: int) -> None:
    head = ["dataset", "ε (store)", "n (store)", "2× (store)", "total store", "ε", "n", "2×", "total", "ratio"]
    print("".join(f"{h:>12}" if i else f"{h:<16}" for i, h in enumerate(head)), flush=True)
    import scipy.stats  # noqa: F401 - imported by the first label-DP call either way; not the negotiation's cost

    from dp_core.registry import plugins

    plugins()
    for name in datasets:
        ds = load_dataset(name)
        precomputed.clear_cache()
        with_store = _full_negotiation(ds, trials)
        with precomputed.disabled():
            without = _full_negotiation(ds, trials)
        ratio = sum(without) / sum(with_store)
        cells = [*with_store, sum(with_store), *without, sum(without), ratio]
        print(f"{name:<16}" + "".join(f"{c:>12.2f}" for c in cells), flush=True)
    print(
        f"\nSeconds of wall time at {trials} trials, warm process; this machine may be shared (load average "
        f"{os.getloadavg()[0]:.1f} at the end): compare the ratio, measured side by side."
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=50, help="the CLI's default (50)")
    ap.add_argument("--datasets", nargs="+", default=sorted(DATASETS))
    ap.add_argument("--skip-learning-curves", action="store_true")
    ap.add_argument("--table", choices=("store", "bounds", "both"), default="store")
    args = ap.parse_args()
    if args.table in ("store", "both"):
        store_table(args.datasets, args.trials)
        if args.table == "store":
            return
        print()
    grid = default_epsilons(0.01, 20.0, 10)
    spec = make_spec(epsilons=grid, delta=1e-5, n_trials=args.trials, seed=0)
    head = ["dataset", "compare", "bounds old", "bounds new", "old/new", "utility", "n", "twice"]
    print("".join(f"{h:>12}" if i else f"{h:<16}" for i, h in enumerate(head)), flush=True)
    kw = {"n_trials": args.trials, "seed": 0, "eps_min": 0.01, "eps_max": 20.0, "n_points": 10}
    for name in args.datasets:
        ds = load_dataset(name)
        metric = "r2=0.2" if ds.task == "regression" else "accuracy=0.9"
        result, t_cmp = _wall(lambda ds=ds: run_compare(ds, spec))
        with mock.patch.object(neg, "_bound_crossing", _old_bound_crossing):
            old, t_old = _wall(lambda ds=ds, r=result: neg.negotiate(ds, ["excess_risk=0.05"], result=r, **kw))
        new, t_new = _wall(lambda ds=ds, r=result: neg.negotiate(ds, ["excess_risk=0.05"], result=r, **kw))
        same = all(
            (a["epsilon_bound"] == b["epsilon_bound"])
            or (math.isnan(a["epsilon_bound"]) and math.isnan(b["epsilon_bound"]))
            for a, b in zip(old["methods"], new["methods"])
        )
        _, t_util = _wall(lambda ds=ds, r=result, m=metric: neg.negotiate(ds, [m], result=r, **kw))
        t_n = t_twice = math.nan
        if not args.skip_learning_curves:
            _, t_n = _wall(lambda ds=ds, m=metric: neg.negotiate(ds, [m], solve_for="n", **kw))
            _, t_twice = _wall(
                lambda ds=ds, r=result, m=metric: neg.negotiate(ds, [m], result=r, rows_factor=2.0, **kw)
            )
        cells = [t_cmp, t_old, t_new, t_old / t_new, t_util, t_n, t_twice]
        print(
            f"{name:<16}"
            + "".join(f"{c:>12.2f}" for c in cells)
            + ("" if same else "   (old and new bound answers differ!)"),
            flush=True,
        )
    print("\nSeconds of wall time on this machine (shared: compare the ratio column, not the seconds across runs).")


if __name__ == "__main__":
    main()
