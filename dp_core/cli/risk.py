"""``risk MECHANISM [options]``: what a guarantee lets an attacker do (:mod:`dp_core.risk`).

Prints the risk figures of the guarantee at the setting given: ``mu`` (Gaussian-DP μ, null when the
curve is not Gaussian; ``mu_fit`` and ``mu_fit_error`` then give the closest Gaussian), ``mia_advantage``,
``tpr_at_fpr`` (keys ``"0.01"``, ``"0.001"``), ``posterior_50``, ``tradeoff`` ([α, β] pairs), ``profile``
([ε, δ] pairs), the refuted claim's true curve (``actual``) and the stored audit's measured point
(``audit``). ``gaussian`` and ``laplace`` are the textbook cases; ``pure`` and ``approx`` the worst case
of any ε-DP (the exponential mechanism) and any (ε, δ)-DP mechanism; the paper mechanisms take the
options that determine their guarantee.
"""

from __future__ import annotations

import math

from ._common import add_param_options, param_values
from ._registry import CliError, Command

CLI_NAMES = (("risk", "*"),)

_HELP = "what the guarantee lets an attacker do: trade-off curve, μ, membership-inference advantage (JSON)"


def _eps(p, default=None):
    req = default is None
    p.add_argument("--eps", type=float, default=default, required=req, help="ε of the guarantee, in (0, inf)")


def _delta(p, default, *, zero=False):
    rng = "[0, 1)" if zero else "(0, 1)"
    p.add_argument("--delta", type=float, default=default, help=f"δ, in {rng} (default {default:g})")


def _compose(p):
    p.add_argument("--sensitivity", type=float, default=1.0, help="sensitivity Δ of the query (default 1)")
    p.add_argument("--compose", type=int, default=1, help="number of releases composed (default 1)")


def _check(a, *, zero_delta=False) -> None:
    """One line naming the option for a value out of range (exit 2)."""
    if hasattr(a, "eps") and not (0.0 < a.eps < math.inf):
        raise CliError(f"--eps must be in (0, inf), got {a.eps:g}.")
    if hasattr(a, "delta") and not ((0.0 <= a.delta if zero_delta else 0.0 < a.delta) and a.delta < 1.0):
        raise CliError(f"--delta must be in {'[0, 1)' if zero_delta else '(0, 1)'}, got {a.delta:g}.")
    if hasattr(a, "sensitivity") and not (0.0 < a.sensitivity < math.inf):
        raise CliError(f"--sensitivity must be in (0, inf), got {a.sensitivity:g}.")
    if hasattr(a, "compose") and not 1 <= a.compose <= 10_000:
        raise CliError(f"--compose must be an integer in [1, 10000], got {a.compose}.")
    for name in ("n", "d", "n_classes"):
        v = getattr(a, name, None)
        if isinstance(v, int) and v < 1:
            raise CliError(f"--{name.replace('_', '-')} must be a positive integer, got {v}.")


def _specs(mechanism: str, names):
    from .. import registry

    return [s for s in registry.get(mechanism).params if s.name in names]


def _risk(mechanism: str, **setting):
    from ..risk import mechanism_risk

    try:
        return mechanism_risk(mechanism, **setting)
    except ValueError as exc:  # an engine check: name the option it came from
        msg = " ".join(str(exc).split())
        name = msg.split(" ", 1)[0]
        where = f"--{name.replace('_', '-')}" if name in setting else mechanism
        raise CliError(f"{where}: {msg}") from None


def _command(mechanism: str, what: str, add, keys, params=(), *, defaults=None, zero_delta=False) -> Command:
    """``risk <mechanism>``: ``add(parser)`` adds the options ``keys`` (passed to the guarantee by name; ``compose``
    as ``compose_k``), ``params`` names the declared parameters taken as options too."""

    def add_arguments(p):
        add(p)
        if params:
            add_param_options(p, _specs(mechanism, params), defaults=defaults)

    def run(a):
        _check(a, zero_delta=zero_delta)
        setting = {("compose_k" if k == "compose" else k): getattr(a, k) for k in keys}
        setting.update(param_values(a, _specs(mechanism, params)) if params else {})
        if "mu" in setting:  # large-margin Gaussian: "= λ" (or none) means μ = λ
            setting["mu"] = None if setting["mu"] in (None, "= λ") else float(setting["mu"])
        return _risk(mechanism, **setting)

    return Command("risk", mechanism, f"{what}: {_HELP}", add_arguments, run)


def _gaussian_args(p):
    _eps(p)
    _delta(p, 1e-5)
    _compose(p)
    p.add_argument("--method", choices=("analytic", "classic"), default="analytic", help="σ calibration")


def _laplace_args(p):
    _eps(p)
    _compose(p)


def _approx_args(p):
    _eps(p)
    _delta(p, 1e-5, zero=True)


def _label_args(p):
    p.add_argument("--n", type=int, default=20_000, help="rows n (default 20000)")
    _delta(p, 1e-5)


def _ip_args(p):
    _eps(p, 1.0)
    _delta(p, 1e-5)
    p.add_argument("--d", type=int, default=10, help="dimension d of the model (default 10)")


def _lm_args(p):
    _eps(p, 1.0)
    p.add_argument("--n-classes", type=int, default=3, help="number of classes (default 3)")


COMMANDS = [
    # textbook
    _command(
        "gaussian",
        "Gaussian mechanism (analytic σ)",
        _gaussian_args,
        ("eps", "delta", "sensitivity", "method", "compose"),
    ),
    _command("laplace", "Laplace mechanism", _laplace_args, ("eps", "sensitivity", "compose")),
    _command("pure", "any pure ε-DP mechanism (exponential mechanism)", _eps, ("eps",)),
    _command("approx", "any (ε, δ)-DP mechanism", _approx_args, ("eps", "delta"), zero_delta=True),
    # paper mechanisms
    _command(
        "label-dp-bags",
        "noisy-wtd-LLP (exact accounting)",
        _label_args,
        ("n", "delta"),
        ("k", "m", "rho", "noise_std"),
        defaults={"k": 64, "m": 100},
    ),
    _command(
        "input-perturbation",
        "input perturbation",
        _ip_args,
        ("eps", "delta", "d"),
        ("alpha", "eta", "mode", "n", "dmult", "model"),
    ),
    _command(
        "large-margin-gaussian",
        "large-margin Gaussian",
        _lm_args,
        ("eps", "n_classes"),
        ("mode", "lam", "h", "n", "mu", "k", "psd", "sem", "jac"),
    ),
    _command("l1-exponential", "ℓ1 exponential mechanism", lambda p: _eps(p, 1.0), ("eps",), ("theta", "conv")),
]
