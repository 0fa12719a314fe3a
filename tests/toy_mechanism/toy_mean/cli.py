"""``python -m dp_core calibrate toy-mean``: the Laplace scale of the clipped mean."""

from dp_core.cli._common import add_param_options, param_values
from dp_core.cli._registry import Command
from dp_core.plugin import config_from_values


def _args(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, required=True, help="ε > 0")
    p.add_argument("--n", type=int, default=1, help="number of labels (default 1)")
    add_param_options(p, PLUGIN.params)


def _run(a) -> dict:
    from . import PLUGIN, ToyConfig

    cfg = config_from_values(ToyConfig, param_values(a, PLUGIN.params))
    return {"mechanism": "toy-mean", "scale": cfg.scale(a.eps, a.n)}


COMMANDS = [Command("calibrate", "toy-mean", "toy: Laplace scale of a clipped mean", _args, _run)]
