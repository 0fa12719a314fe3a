"""The view of a configuration as a Jupyter notebook that recomputes it through the public ``dp_core`` API.

The cells load the configuration, the dataset, run the same comparison with the same seeds
(:func:`dp_core.compare.run_compare`, as the page and ``python -m dp_core compare`` do) and print every
number as one ``RESULT`` JSON line (floats written exactly), with short explanations between them.
``docs/export.md`` §"Notebook and script".
"""

from __future__ import annotations

import json
from typing import Any

from ..compare import ExplorerConfig
from . import page_mechanisms

__all__ = ["cells", "notebook_json"]

_INTRO = """# {title}

This notebook recomputes the view of the Privacy-Utility Explorer saved in the configuration below,
through the public `dp_core` API (not the app): same dataset, ε grid, trials and seed (seed {seed}),
so it prints the same numbers. Each number is printed on a `RESULT` line as JSON."""

_SETUP = """import json

from dp_core.compare import make_spec, run_compare
from dp_core.data import load_dataset
from dp_core.export import load_export_config
from dp_core.report import compare_settings, dataset_for_config

CONFIG = json.loads({config!r})
MECHANISMS = {mechanisms!r}  # the comparison adapters of the page (None: every applicable one)
DATA_CSV = None  # an uploaded dataset: put the path of the same CSV file here
cfg, decisions = load_export_config(CONFIG)"""

_DATA_MD = """## The data
The dataset the view used; an upload is checked against the configuration's fingerprint."""

_DATA = """ds = dataset_for_config(cfg, None if DATA_CSV is None else load_dataset(DATA_CSV))
print(f"dataset {ds.name}: n = {ds.n} rows, d = {ds.d} features, fingerprint {ds.fingerprint[:16]}")"""

_RUN_MD = """## The comparison
Every method on the view's ε grid, each ε run `trials` times with per-trial random streams spawned
from the seed: the mean utility, its standard error and 95% interval, and the excess risk."""

_RUN = """settings = compare_settings(cfg)
spec = make_spec(
    epsilons=settings["grid"],
    delta=cfg.delta,
    n_trials=cfg.trials,
    seed=cfg.seed,
    preprocess=cfg.preprocess,
    **cfg.mechanism_params,
)
res = run_compare(ds, spec, mechanisms=MECHANISMS)
print(f"metric {res.metric}; ε grid {list(spec.epsilons)}; δ = {spec.delta:g}; {spec.n_trials} trials")
for row in res.summary.drop(columns=["adapter"]).to_dict(orient="records"):
    print("RESULT", json.dumps(row, allow_nan=True))"""

_CHOSEN_MD = """## At the chosen ε
The grid point nearest the ε chosen on the page, and each method's guarantee with its status
(proof, claimed, audited without violation, refuted)."""

_CHOSEN = """at = min(spec.epsilons, key=lambda e: abs(e - cfg.eps))
status = {m["method"]: m["status_label"] for m in res.methods}
for row in res.summary[res.summary["epsilon"] == at].to_dict(orient="records"):
    print(
        f"{row['method']}: {res.metric} {row['utility_mean']:.4g} "
        f"(95% interval {row['utility_lo']:.4g} to {row['utility_hi']:.4g}) at ε = {at:g}; {status[row['method']]}"
    )"""


def cells(config: ExplorerConfig, decisions: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    """The notebook's cells as ``(kind, source)`` pairs, ``kind`` "markdown" or "code"."""
    data = {**config.to_dict(), "decisions": list(decisions or [])}
    title = f"Privacy-Utility Explorer: {config.page or 'Home'} on {config.dataset}"
    return [
        ("markdown", _INTRO.format(title=title.replace("#", ""), seed=config.seed)),
        ("code", _SETUP.format(config=json.dumps(data, sort_keys=True), mechanisms=page_mechanisms(config))),
        ("markdown", _DATA_MD),
        ("code", _DATA),
        ("markdown", _RUN_MD),
        ("code", _RUN),
        ("markdown", _CHOSEN_MD),
        ("code", _CHOSEN),
    ]


def notebook_json(config: ExplorerConfig, decisions: list[dict[str, Any]] | None = None) -> str:
    """The notebook (nbformat 4) as JSON text, kernel ``python3``; no outputs (run it to get them); deterministic."""
    import nbformat
    from nbformat import v4

    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, source) in enumerate(cells(config, decisions)):
        make = v4.new_markdown_cell if kind == "markdown" else v4.new_code_cell
        nb.cells.append(make(source, id=f"cell-{i}"))  # fixed ids: the same configuration, the same file
    nbformat.validate(nb)
    return nbformat.writes(nb)
