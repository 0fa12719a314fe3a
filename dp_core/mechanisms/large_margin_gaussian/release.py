"""``release large-margin-gaussian``: one publishable release of the classifier (contract:
:func:`dp_core.cli.release._plugin_command`)."""

from __future__ import annotations

import numpy as np

from ...cli._common import add_param_options, dataset_from_args
from .cli import cli_specs, settings_values
from .mechanism import LargeMarginGaussian, release_many

DEFAULT_DATASET = "gaussian_classes"
_SPECS = cli_specs("mode", "lam", "mu", "h", "psd")
_NOTE = (
    "Rows clipped to the unit ball, a constant 1 appended, then scaled by the mode's public input scale; "
    "classes coded 0..C-1 in sorted order."
)


def add_arguments(p) -> None:
    p.add_argument("--eps", type=float, default=1.0, help="privacy budget epsilon in (0, inf) (default 1)")
    add_param_options(p, _SPECS)


def run(a):
    v = settings_values(a, _SPECS)
    ds = dataset_from_args(
        a, bounds_unused="to release large-margin-gaussian: rows are clipped to the unit ball instead"
    )
    if ds.task == "regression":
        raise ValueError(
            f"dataset must be a classification dataset for large-margin-gaussian, got {ds.name!r} (regression)."
        )
    classes, y = np.unique(ds.y, return_inverse=True)
    cfg = LargeMarginGaussian(epsilon=a.eps, mode=v["mode"], lam=v["lam"], mu=v["mu"], h=v["h"], psd=v["psd"] == "on")
    res = release_many(ds.X, y, cfg, n_runs=1, seed=a.seed, n_classes=int(classes.size), diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    release = {
        "phi": None if rel.unbounded[0] else rel.phi[0],
        "released": not bool(rel.unbounded[0]),
        "config": rel.config.as_dict(),
        "accounting": None if rel.accounting is None else rel.accounting.as_dict(),
        "classes": [str(c) for c in classes],
    }
    return ds, release, [_NOTE], None if diag is None else _diagnostics(diag)


def _diagnostics(diag) -> dict:
    return {
        "phi_nonprivate": diag.phi_star,
        "noise_norm": float(diag.noise_norm[0]),
        "excess_risk": float(diag.excess[0]),
        "pathwise_bound": float(diag.pathwise_bound[0]),
        "solver_converged": bool(diag.converged[0]),
    }
