"""``python -m dp_core calibrate adassp``: the three Gaussian σ and the sensitivities at (ε, δ)."""

from dp_core.cli._common import add_param_options, param_values
from dp_core.cli._registry import Command
from dp_core.plugin import config_from_values


def _args(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, default=1.0, help="ε > 0 (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="δ in (0, 1) (default 1e-5)")
    p.add_argument("--data-norm", type=float, default=1.0, help="public bound B_X on ‖x‖ (default 1)")
    p.add_argument("--y-bound", type=float, default=1.0, help="public bound B_Y on |y| (default 1)")
    add_param_options(p, PLUGIN.params)


def _run(a) -> dict:
    import math

    from . import PLUGIN, AdasspConfig, sigmas

    cfg = config_from_values(AdasspConfig, param_values(a, PLUGIN.params))
    keys = ("lambda_min", "xtx", "xty")
    bx, by = a.data_norm, a.y_bound
    sens = (bx * bx, math.sqrt(2.0) * bx * bx, 2.0 * bx * by)
    return {
        "mechanism": "adassp",
        "epsilon": a.eps,
        "delta": a.delta,
        "per_release": {"epsilon": a.eps / 3, "delta": a.delta / 3},
        "sensitivities": dict(zip(keys, sens)),
        "sigmas": dict(zip(keys, sigmas(a.eps, a.delta, bx, by))),
        "failure_prob": cfg.failure_prob,
        "status": "proved",
    }


COMMANDS = [Command("calibrate", "adassp", "AdaSSP: Gaussian σ of its three releases", _args, _run)]
