"""``python -m dp_core calibrate dp-naive-bayes``: the budget split and Laplace scales for ``d`` features."""

from dp_core.cli._common import add_param_options, param_values
from dp_core.cli._registry import Command
from dp_core.plugin import config_from_values


def _args(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, default=1.0, help="ε > 0 (default 1)")
    p.add_argument("--d", type=int, default=1, help="number of features (default 1)")
    add_param_options(p, PLUGIN.params)


def _run(a) -> dict:
    from . import PLUGIN, NaiveBayesConfig, sensitivities

    cfg = config_from_values(NaiveBayesConfig, param_values(a, PLUGIN.params))
    keys = ("counts", "sums", "squared_sums")
    return {
        "mechanism": "dp-naive-bayes",
        "epsilon": a.eps,
        "delta": 0.0,
        "budgets": dict(zip(keys, cfg.budgets(a.eps))),
        "sensitivities": dict(zip(keys, sensitivities(a.d))),
        "laplace_scales": dict(zip(keys, cfg.scales(a.eps, a.d))),
        "status": "proved",
    }


COMMANDS = [Command("calibrate", "dp-naive-bayes", "DP naive Bayes: budget split and Laplace scales", _args, _run)]
