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


#: The options of a setting besides ``--eps``, ``--delta`` and ``--method``: ``add_argument``'s keywords.
_OPTIONS = {
    "sensitivity": {"type": float, "default": 1.0, "help": "sensitivity Δ of the query (default 1)"},
    "compose": {"type": int, "default": 1, "help": "number of releases composed (default 1)"},
    "n": {"type": int, "default": 20_000, "help": "rows n (default 20000)"},
    "d": {"type": int, "default": 10, "help": "dimension d of the model (default 10)"},
    "n_classes": {"type": int, "default": 3, "help": "number of classes (default 3)"},
}


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


def _command(mechanism: str, what: str, keys, params=(), *, eps=None, defaults=None, zero_delta=False) -> Command:
    """``risk <mechanism>`` with the options ``keys`` (passed to the guarantee by name; ``compose`` as ``compose_k``)
    and the declared parameters ``params``; ``eps``: the default of ``--eps`` (``None``: required)."""

    def add_arguments(p):
        options = {
            **_OPTIONS,
            "eps": {"type": float, "default": eps, "required": eps is None, "help": "ε of the guarantee, in (0, inf)"},
            "delta": {
                "type": float,
                "default": 1e-5,
                "help": f"δ, in {'[0, 1)' if zero_delta else '(0, 1)'} (default 1e-05)",
            },
            "method": {"choices": ("analytic", "classic"), "default": "analytic", "help": "σ calibration"},
        }
        for k in keys:
            p.add_argument(f"--{k.replace('_', '-')}", **options[k])
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


COMMANDS = [
    # textbook
    _command("gaussian", "Gaussian mechanism (analytic σ)", ("eps", "delta", "sensitivity", "compose", "method")),
    _command("laplace", "Laplace mechanism", ("eps", "sensitivity", "compose")),
    _command("pure", "any pure ε-DP mechanism (exponential mechanism)", ("eps",)),
    _command("approx", "any (ε, δ)-DP mechanism", ("eps", "delta"), zero_delta=True),
    # paper mechanisms
    _command(
        "label-dp-bags",
        "noisy-wtd-LLP (exact accounting)",
        ("n", "delta"),
        ("k", "m", "rho", "noise_std"),
        defaults={"k": 64, "m": 100},
    ),
    _command(
        "input-perturbation",
        "input perturbation",
        ("eps", "delta", "d"),
        ("alpha", "eta", "mode", "n", "dmult", "model"),
        eps=1.0,
    ),
    _command(
        "large-margin-gaussian",
        "large-margin Gaussian",
        ("eps", "n_classes"),
        ("mode", "lam", "h", "n", "mu", "k", "psd", "sem", "jac"),
        eps=1.0,
    ),
    _command("l1-exponential", "ℓ1 exponential mechanism", ("eps",), ("theta", "conv"), eps=1.0),
]
