"""``python -m dp_core release label-dp-bags``: one aggregation release with its linear fit.

The hook of :func:`dp_core.cli.release._plugin_command` (shared options and JSON shape there).
"""

from __future__ import annotations

import numpy as np

from ...cli._common import add_param_options, add_y_range, dataset_from_args, labels_in_range, param_values
from .cli import SPECS

DEFAULT_DATASET = "census"
_SPECS = [s for s in SPECS if s.name in ("k", "m", "rho", "noise_std")]


def add_arguments(p) -> None:
    from .core import MECHANISMS

    add_y_range(p)
    p.add_argument(
        "--mechanism", default="noisy-wtd-llp", help="one of " + ", ".join(MECHANISMS) + " (default noisy-wtd-llp)"
    )
    add_param_options(p, _SPECS, defaults=dict(k=16, m=20))
    p.add_argument("--b1", type=float, default=1.0, help="public label bound B1: labels are clipped to [-B1, B1]")


def run(a):
    from ..._validation import check_positive
    from .core import LabelDPBags, fit_linear

    vals = param_values(a, _SPECS)
    ds = dataset_from_args(
        a, bounds_unused="to release label-dp-bags: the features are public in label-DP and used as given"
    )
    b1 = check_positive("b1", a.b1)
    X = np.column_stack([np.asarray(ds.X, dtype=float), np.ones(ds.n)])
    y, how = labels_in_range(ds, a.y_range, b1)
    cfg = LabelDPBags(mechanism=a.mechanism, **vals)
    res = cfg.run(X, y, rng=a.seed, diagnostics=a.diagnostics)
    rel, sec = res if a.diagnostics else (res, None)
    release = {
        "aggregates": rel,
        "linear_model_from_release": fit_linear(rel.aggregated_features(), rel.ybar),
        "label_dp": cfg.is_label_dp,
        "fraction_of_rows_used": cfg.fraction_used(ds.n),
    }
    notes = [f"Features used as given (public in label-DP) with a constant 1 appended; {how} (B1)."]
    extra = None
    if sec is not None:
        theta_np, *_ = np.linalg.lstsq(X, y, rcond=None)
        extra = {"theta_nonprivate": theta_np, "secret_weights": sec.weights, "label_noise": sec.label_noise}
    return ds, release, notes, extra
