"""The default-setting runs whose results :mod:`dp_core.precomputed` ships, and their regeneration
(``python -m dp_core precompute [--workers N]`` calls :func:`regenerate`; the numbers do not depend on N).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from . import precomputed

__all__ = ["DEMO_DELTA", "DEMO_EPSILON", "DEMO_RUNS", "DEMO_SEED", "default_target", "regenerate", "runs_of"]

#: ``(label, eps_min, eps_max, n_points, n_trials, negotiations)``: the default settings stored for every
#: demo dataset. ``cli compare``: ``python -m dp_core compare``; ``cli negotiate``: ``python -m dp_core
#: negotiate`` (smallest ε, ``--solve-for n`` at ε = 1, ``--rows-factor 2``); ``app``: the Compare page
#: (grid 0.05-10 with 8 points, 100 trials; the negotiation's three questions at the sidebar's ε = 1).
#: ``tests/test_precomputed.py`` checks these against the CLI's and the app's defaults.
DEMO_RUNS = (
    ("cli compare", 0.05, 10.0, 8, 50, False),
    ("cli negotiate", 0.01, 20.0, 10, 50, True),
    ("app", 0.05, 10.0, 8, 100, True),
)
#: Seed, δ and the chosen ε of every stored run.
DEMO_SEED, DEMO_DELTA, DEMO_EPSILON = 0, 1e-5, 1.0


def default_target(task: str) -> str:
    """The negotiation target the app starts from (its metric at the app's default value)."""
    return "r2=0.3" if task == "regression" else "accuracy=0.9"


def runs_of(name: str, runs: Sequence[tuple] = DEMO_RUNS) -> dict:
    """Every default-setting run on one demo dataset, computed with the store off and recorded."""
    import warnings

    from .compare import default_epsilons, make_spec, run_compare
    from .data import load_dataset
    from .execution import get_executor, use_executor
    from .negotiate import negotiate

    ds = load_dataset(name)
    # in this process (a worker when the datasets are spread over a cluster): never a nested cluster
    with (
        use_executor(get_executor(workers=0)),
        precomputed.disabled(),
        precomputed.recording() as rec,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        for _label, lo, hi, n_points, trials, with_negotiation in runs:
            spec = make_spec(
                epsilons=default_epsilons(lo, hi, n_points), delta=DEMO_DELTA, n_trials=trials, seed=DEMO_SEED
            )
            result = run_compare(ds, spec)
            if not with_negotiation:
                continue
            grid = {"eps_min": lo, "eps_max": hi, "n_points": n_points}
            kw = {"epsilon": DEMO_EPSILON, "delta": DEMO_DELTA, "n_trials": trials, "seed": DEMO_SEED, **grid}
            target = [default_target(ds.task)]
            negotiate(ds, target, result=result, rows_factor=2.0, **kw)
            negotiate(ds, target, solve_for="n", **kw)
    return {k: (meta, e) for k, (_n, meta, e) in rec.items()}


def regenerate(
    datasets: Sequence[str] | None = None, *, folder: Path | None = None, progress: Callable[[str], None] | None = None
) -> dict:
    """Recompute every stored run (on the current executor, one block per dataset) and rewrite the files.

    Returns ``{"files": [...], "entries": {dataset: count}, "engine_hash": ...}``.
    """
    from .data import DATASETS
    from .execution import current_executor

    names = list(DATASETS) if datasets is None else list(datasets)
    out: dict[str, dict] = {}
    for name, entries in zip(names, current_executor().map(runs_of, names)):
        out[name] = entries
        if progress is not None:
            progress(name)
    files = precomputed.write_store(out, folder=folder)
    return {
        "files": [str(p) for p in files],
        "entries": {k: len(v) for k, v in out.items()},
        "bytes": sum(p.stat().st_size for p in files),
        "engine_hash": precomputed.engine_hash(),
    }
