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


# -- textbook ------------------------------------------------------------------------------------
def _gaussian_args(p):
    _eps(p)
    _delta(p, 1e-5)
    _compose(p)
    p.add_argument("--method", choices=("analytic", "classic"), default="analytic", help="σ calibration")


def _gaussian_run(a):
    _check(a)
    s = dict(eps=a.eps, delta=a.delta, sensitivity=a.sensitivity, method=a.method, compose_k=a.compose)
    return _risk("gaussian", **s)


def _laplace_args(p):
    _eps(p)
    _compose(p)


def _laplace_run(a):
    _check(a)
    return _risk("laplace", eps=a.eps, sensitivity=a.sensitivity, compose_k=a.compose)


def _pure_args(p):
    _eps(p)


def _pure_run(a):
    _check(a)
    return _risk("pure", eps=a.eps)


def _approx_args(p):
    _eps(p)
    _delta(p, 1e-5, zero=True)


def _approx_run(a):
    _check(a, zero_delta=True)
    return _risk("approx", eps=a.eps, delta=a.delta)


# -- paper mechanisms ----------------------------------------------------------------------------
_LB = ("k", "m", "rho", "noise_std")


def _label_args(p):
    p.add_argument("--n", type=int, default=20_000, help="rows n (default 20000)")
    _delta(p, 1e-5)
    add_param_options(p, _specs("label-dp-bags", _LB), defaults={"k": 64, "m": 100})


def _label_run(a):
    _check(a)
    v = param_values(a, _specs("label-dp-bags", _LB))
    return _risk("label-dp-bags", n=a.n, delta=a.delta, **v)


_IP = ("alpha", "eta", "mode", "n", "dmult", "model")


def _ip_args(p):
    _eps(p, 1.0)
    _delta(p, 1e-5)
    p.add_argument("--d", type=int, default=10, help="dimension d of the model (default 10)")
    add_param_options(p, _specs("input-perturbation", _IP))


def _ip_run(a):
    _check(a)
    v = param_values(a, _specs("input-perturbation", _IP))
    return _risk("input-perturbation", eps=a.eps, delta=a.delta, d=a.d, **v)


_LM = ("mode", "lam", "h", "n", "mu", "k", "psd", "sem", "jac")


def _lm_args(p):
    _eps(p, 1.0)
    p.add_argument("--n-classes", type=int, default=3, help="number of classes (default 3)")
    add_param_options(p, _specs("large-margin-gaussian", _LM))


def _lm_run(a):
    _check(a)
    v = param_values(a, _specs("large-margin-gaussian", _LM))
    mu = v.pop("mu", None)
    mu = None if mu in (None, "= λ") else float(mu)
    return _risk("large-margin-gaussian", eps=a.eps, n_classes=a.n_classes, mu=mu, **v)


_L1 = ("theta", "conv")


def _l1_args(p):
    _eps(p, 1.0)
    add_param_options(p, _specs("l1-exponential", _L1))


def _l1_run(a):
    _check(a)
    return _risk("l1-exponential", eps=a.eps, **param_values(a, _specs("l1-exponential", _L1)))


COMMANDS = [
    Command("risk", "gaussian", "Gaussian mechanism (analytic σ): " + _HELP, _gaussian_args, _gaussian_run),
    Command("risk", "laplace", "Laplace mechanism: " + _HELP, _laplace_args, _laplace_run),
    Command("risk", "pure", "any pure ε-DP mechanism (exponential mechanism): " + _HELP, _pure_args, _pure_run),
    Command("risk", "approx", "any (ε, δ)-DP mechanism: " + _HELP, _approx_args, _approx_run),
    Command("risk", "label-dp-bags", "noisy-wtd-LLP (exact accounting): " + _HELP, _label_args, _label_run),
    Command("risk", "input-perturbation", "input perturbation: " + _HELP, _ip_args, _ip_run),
    Command("risk", "large-margin-gaussian", "large-margin Gaussian: " + _HELP, _lm_args, _lm_run),
    Command("risk", "l1-exponential", "ℓ1 exponential mechanism: " + _HELP, _l1_args, _l1_run),
]
