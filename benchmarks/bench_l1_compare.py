"""Before/after cost of the l1 exponential mechanism's comparison adapter (issue 16).

Run: ``.venv/bin/python benchmarks/bench_l1_compare.py [--dataset census] [--repeat 2] [--baseline REF]``.

The adapter's sweep (``L1ExponentialAdapter.sweep``: every epsilon of the comparison page's default
grid, 10 trials each, i.e. at least 16 MCMC chains per epsilon when d > 3) runs on the chosen dataset
with two versions of the engine: this working tree ("new") and the engine of the git revision
``--baseline`` ("old", default: the commit this work started from), extracted with ``git archive`` into
a temporary folder. Each measurement is a fresh subprocess, and the versions alternate (old, new,
old, new, ...), so both see the same load; the fastest wall time of each is kept and the ratio
printed. Wall and process CPU time are both shown: on a shared machine wall time includes waiting
for a core. The chains' diagnostics (R-hat, ESS, steps, status) are printed per epsilon for both.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The commit before the issue-16 sampler work on this branch (the "old" engine by default).
BASELINE = "5cccb0a"

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from dp_core.compare import default_epsilons, make_spec
from dp_core.data import load_dataset
from dp_core.mechanisms.l1_exponential.compare import ADAPTER
from dp_core._blas import single_threaded_blas
ds = load_dataset(sys.argv[2])
spec = make_spec(epsilons=default_epsilons(), delta=1e-5, n_trials=100, seed=0)
st = ADAPTER.prepare(ds, spec)
with single_threaded_blas():  # as run_compare does
    t0, c0 = time.perf_counter(), time.process_time()
    df = ADAPTER.sweep(st, spec)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
runs = {str(e): {k: r[k] for k in ("rhat_max", "ess_min", "n_adapt", "n_sample", "status", "wall_time")}
        for e, r in st.sampler_runs.items()}
print(json.dumps({"wall": wall, "cpu": cpu, "n": int(st.X.shape[0]), "d": int(st.X.shape[1]),
                  "epsilons": list(spec.epsilons), "mode": st.mode, "runs": runs,
                  "utility": df.groupby("epsilon")["utility"].mean().round(4).tolist()}))
"""


def extract(ref: str, into: Path) -> Path:
    """The ``dp_core`` package of git revision ``ref``, unpacked under ``into``."""
    blob = subprocess.run(["git", "archive", ref, "dp_core"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into


def measure(tree: Path, dataset: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tree), dataset], check=True, capture_output=True, text=True, cwd=tree
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="census")
    ap.add_argument("--repeat", type=int, default=2, help="alternating measurements per version (default 2)")
    ap.add_argument("--baseline", default=BASELINE, help=f"git revision of the old engine (default {BASELINE})")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"old": extract(a.baseline, Path(tmp)), "new": ROOT}
        best: dict[str, dict] = {}
        for _ in range(a.repeat):
            for name, tree in trees.items():
                r = measure(tree, a.dataset)
                if name not in best or r["wall"] < best[name]["wall"]:
                    best[name] = r
    o, nw = best["old"], best["new"]
    k = len(nw["epsilons"])
    print(
        f"l1 adapter sweep on {a.dataset} (n_train = {nw['n']:,}, d = {nw['d']}, sampler {nw['mode']}), "
        f"{k} epsilons, 10 trials each; best of {a.repeat} alternating runs; old = {a.baseline}"
    )
    for name, r in (("old", o), ("new", nw)):
        print(
            f"  {name}: wall {r['wall']:6.2f} s ({r['wall'] / k:5.2f} s per epsilon)   "
            f"cpu {r['cpu']:6.2f} s ({r['cpu'] / k:5.2f} s per epsilon)"
        )
    print(f"  ratio old/new: wall {o['wall'] / nw['wall']:.2f}, cpu {o['cpu'] / nw['cpu']:.2f}")
    if nw["runs"]:
        print("  epsilon   old: steps  R-hat   ESS  status        new: steps  R-hat   ESS  status")
        for e in nw["epsilons"]:
            ro, rn = o["runs"].get(str(e)), nw["runs"][str(e)]

            def cell(r):
                if r is None:
                    return " " * 36
                steps = f"{r['n_adapt']}+{r['n_sample']}"
                return f"{steps:>9} {r['rhat_max']:6.4f} {r['ess_min']:5.0f}  {r['status']:<13}"

            print(f"  {e:7g}   {cell(ro)}  {cell(rn)}")
    print(f"  mean utility per epsilon, old: {o['utility']}")
    print(f"                            new: {nw['utility']}")
    if not math.isfinite(o["wall"]):
        print("  (no baseline measurement)")


if __name__ == "__main__":
    main()
