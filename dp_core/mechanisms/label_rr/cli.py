"""``python -m dp_core calibrate label-rr``: RR-on-bins' output values for a label range, or RR's keep rate."""

import math

from ...cli._common import add_param_options, param_values
from ...cli._registry import Command
from ...plugin import config_from_values


def _args(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, default=1.0, help="ε > 0 (default 1)")
    p.add_argument("--classes", type=int, default=0, help="number of classes K (0: numeric labels; default 0)")
    add_param_options(p, PLUGIN.params)


def _run(a) -> dict:
    from . import PLUGIN, LabelRRConfig, _check_eps, uniform_outputs

    cfg = config_from_values(LabelRRConfig, param_values(a, PLUGIN.params))
    _check_eps(a.eps)
    if a.classes == 1 or a.classes < 0:
        raise ValueError(f"classes must be 0 (numeric labels) or >= 2, got {a.classes}.")
    out = {"mechanism": "label-rr", "epsilon": a.eps, "delta": 0.0, "status": "proof"}
    if a.classes:
        return out | {"keep_probability_uniform_prior": 1.0 / (1.0 + (a.classes - 1) * math.exp(-a.eps))}
    _, values, loss = uniform_outputs(cfg, a.eps)
    return out | {"outputs_uniform_prior_on_0_1": values.tolist(), "expected_squared_error": loss}


COMMANDS = [Command("calibrate", "label-rr", "label RR: outputs or keep probability at ε", _args, _run)]
