"""``python -m dp_core release toy-mean``: one private clipped mean (the generic release adds the rest)."""

import numpy as np

from dp_core.cli._common import add_param_options, dataset_from_args, param_values
from dp_core.plugin import config_from_values

DEFAULT_DATASET = "diabetes"


def add_arguments(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, default=1.0, help="ε > 0 (default 1)")
    add_param_options(p, PLUGIN.params)


def run(a):
    from . import PLUGIN, ToyConfig, noisy_means

    cfg = config_from_values(ToyConfig, param_values(a, PLUGIN.params))
    ds = dataset_from_args(a, bounds_unused="to release the toy mean: labels are clipped to --clip instead")
    value = float(noisy_means(ds.y, cfg, a.eps, np.random.default_rng(a.seed))[0])
    release = {"mean": value, "epsilon": a.eps, "delta": 0.0, "clip": cfg.clip, "status": "proved"}
    notes = [f"labels clipped to [-{cfg.clip:g}, {cfg.clip:g}] (public bound)"]
    true = float(np.clip(ds.y, -cfg.clip, cfg.clip).mean())
    return ds, release, notes, {"mean_nonprivate": true, "noise": value - true}
