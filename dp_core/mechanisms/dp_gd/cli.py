"""``python -m dp_core calibrate dp-gd``: the steps and the noise multiplier for (ε, δ) and ``n`` records."""

from ...cli._common import add_param_options, param_values
from ...cli._registry import Command
from ...plugin import config_from_values


def _args(p) -> None:
    from . import PLUGIN

    p.add_argument("--eps", type=float, default=1.0, help="ε > 0 (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="δ in (0, 1) (default 1e-5)")
    p.add_argument("--n", type=int, default=1000, help="number of records (public; default 1000)")
    add_param_options(p, PLUGIN.params)


def _run(a) -> dict:
    from . import PLUGIN, DPGDConfig, accounted_epsilon, noise_multiplier

    cfg = config_from_values(DPGDConfig, param_values(a, PLUGIN.params))
    if a.n < 1:
        raise ValueError(f"n must be >= 1, got {a.n}.")
    steps = cfg.n_steps(a.n, a.eps)
    z = noise_multiplier(float(a.eps), float(a.delta), steps)
    return {
        "mechanism": "dp-gd",
        "steps": steps,
        "noise_multiplier": z,
        "noise_std": 2.0 * cfg.clip * z,
        "epsilon_accounted": accounted_epsilon(z, steps, a.delta),
        "delta": a.delta,
        "status": "proof",
    }


COMMANDS = [Command("calibrate", "dp-gd", "DP-GD: steps and noise multiplier for (ε, δ)", _args, _run)]
