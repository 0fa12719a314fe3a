"""``calibrate gaussian`` and ``calibrate laplace``: the two textbook mechanisms."""

from __future__ import annotations

import math

from ... import calibration as cal
from ...cli._common import delta_help, eps_help
from ...cli._registry import Command


def _gaussian_args(p):
    p.add_argument("--eps", type=float, required=True, help=eps_help())
    p.add_argument("--delta", type=float, required=True, help=delta_help())
    p.add_argument("--sensitivity", type=float, default=1.0, help="l2 sensitivity (default 1)")


def _gaussian_run(a):
    setting = {"epsilon": a.eps, "delta": a.delta, "sensitivity": a.sensitivity}
    analytic = cal.gaussian_sigma_analytic(**setting)
    classic_valid = a.eps <= 1.0
    classic = cal.gaussian_sigma_classic(**setting) if classic_valid else math.nan
    return {
        "mechanism": "gaussian",
        "eps": a.eps,
        "delta": a.delta,
        "sensitivity": a.sensitivity,
        "sigma_analytic": analytic,
        "sigma_classic": classic,
        "classic_valid": classic_valid,
        "classic_note": "" if classic_valid else "the classic bound holds only for epsilon <= 1",
        "delta_at_sigma_analytic": cal.gaussian_delta_analytic(sigma=analytic, epsilon=a.eps, sensitivity=a.sensitivity)
        if analytic > 0
        else 0.0,
        "ratio_analytic_to_classic": analytic / classic if classic_valid and classic > 0 else math.nan,
    }


def _laplace_args(p):
    p.add_argument("--eps", type=float, required=True, help=eps_help())
    p.add_argument("--sensitivity", type=float, default=1.0, help="l1 sensitivity (default 1)")


def _laplace_run(a):
    b = cal.laplace_scale(epsilon=a.eps, sensitivity=a.sensitivity)
    return {"mechanism": "laplace", "eps": a.eps, "sensitivity": a.sensitivity, "scale": b, "std": b * math.sqrt(2.0)}


_GAUSSIAN_HELP = "Gaussian mechanism: classic and analytic (Balle-Wang) sigma"
COMMANDS = [
    Command("calibrate", "gaussian", _GAUSSIAN_HELP, _gaussian_args, _gaussian_run),
    Command("calibrate", "laplace", "Laplace mechanism: scale = sensitivity / epsilon", _laplace_args, _laplace_run),
]
