"""``release input-perturbation``: one run of Algorithms 1-2 (Fukuchi, Tran, Sakuma 2017) on a dataset."""

from __future__ import annotations

from ...cli._common import add_param_options, add_y_range, dataset_from_args, labels_in_range, param_values, two_classes
from ...plugin import config_from_values
from .experiment import SimulationConfig

DEFAULT_DATASET = "census"
# the model follows the data's task; the sampler of a release is always "records" (every contributor's noise)
_SKIP = ("model", "sampler", "pos", "n", "wnorm")


def _specs():
    from . import PLUGIN

    return [s for s in PLUGIN.params if s.name not in _SKIP]


def add_arguments(p) -> None:
    add_y_range(p)
    p.add_argument("--eps", type=float, default=1.0, help="central epsilon in (0, inf) (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta in (0, 1) (default 1e-5)")
    add_param_options(p, _specs())
    p.add_argument("--x-bound", type=float, default=1.0, help="public bound on ||x||; rows are clipped to it")
    p.add_argument("--y-bound", type=float, default=1.0, help="public bound on |y|; labels are clipped to it")


def _labels(ds, a) -> tuple[str, object, str]:
    """``(model, labels, note)``: least squares on a clipped numeric target, else the logistic surrogate."""
    clip = f"Rows clipped to ||x|| <= {a.x_bound:g} (public bound)"
    if ds.task == "regression":
        y, how = labels_in_range(ds, a.y_range, a.y_bound)
        return "least_squares", y, f"{clip}; {how}; least-squares model."
    return (
        "logistic_taylor",
        two_classes(ds),
        f"{clip}; classes coded -1/+1 in sorted order; logistic Taylor surrogate.",
    )


def run(a):
    ds = dataset_from_args(
        a, bounds_unused="to release input-perturbation: rows are clipped to the norm bound --x-bound instead"
    )
    model, y, note = _labels(ds, a)
    cfg = config_from_values(SimulationConfig, param_values(a, _specs()), epsilon=a.eps, delta=a.delta, model=model)
    mech = cfg.mechanism(x_bound=a.x_bound, y_bound=a.y_bound)
    res = mech.run(ds.X, y, rng=a.seed, sampler="records", diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    extra = None
    if diag is not None:
        names = ("theta_nonprivate", "risk_nonprivate", "excess_risk", "noise_linear", "noise_quadratic")
        extra = {k: getattr(diag, k) for k in names}
    return ds, rel, [note], extra
