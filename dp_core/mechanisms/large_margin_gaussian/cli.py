"""``calibrate large-margin-gaussian`` and ``simulate large-margin-gaussian``.

Modes on the command line: ``printed`` (P), ``repaired`` (P+), ``corrected`` (R, default). Every P/P+ output carries
``"private": false``, ``"privacy_status": "not differentially private as printed"`` and a one-sentence
``"privacy_reason"``."""

from __future__ import annotations

import dataclasses
import math

from ... import status as vocab
from ..._validation import check_choice, check_int, check_probability, check_seed
from ...cli._common import (
    CliError,
    add_dataset_arguments,
    add_param_options,
    add_seed_argument,
    dataset_from_args,
    param_values,
    reproduce_command,
)
from ...cli._registry import Command
from ...experiments import mean_se
from ...plugin import config_params
from . import (
    MODE_LABELS,
    MODES,
    LargeMarginGaussian,
    accuracy_sweep,
    make_task,
    privacy_params,
)
from .bounds import bounds_for_mode
from .settings import Settings, mu_value

_MODE_HELP = "printed (P, the paper as printed), repaired (P+), corrected (R, default; the private one)"


def cli_specs(*names: str) -> list:
    """The :class:`Settings` fields ``names`` as command-line options.

    The page offers a grid of numbers; the command line accepts any number the engine accepts, so a numeric setting
    keeps its name, kind and default but not the page's grid or range."""
    specs = {s.name: s for s in config_params(Settings, url_prefix="lm_")}
    out = []
    for name in names:
        spec = specs[name]
        if spec.kind in (int, float) or name == "mu":
            spec = dataclasses.replace(spec, options=(), lo=None, hi=None)
        out.append(spec)
    return out


def settings_values(a, specs) -> dict:
    """The options' values; ``mu`` as the engine's number or ``None`` (mu = lam)."""
    values = param_values(a, specs)
    if "mu" in values:
        try:
            values["mu"] = mu_value(values["mu"])
        except ValueError:
            raise CliError(f"--mu: mu must be '= λ' or a number in (0, inf), got {values['mu']!r}.") from None
    return values


#: The accounting fields every calibrate/simulate entry carries, in the JSON's order (after the status keys).
_ACCOUNTING_KEYS = ("semantics", "noise_dim", "shared_noise", "beta", "expected_noise_norm", "sd_noise_norm")
_ACCOUNTING_KEYS += ("eps_noise", "k", "k_printed", "k_corrected", "Delta", "mu_eff", "G", "kappa", "alpha")
_ACCOUNTING_KEYS += ("fallback", "eps_claimed")


def _privacy_block(acc) -> dict:
    out = {
        "mode": acc.mode,
        "mode_label": MODE_LABELS[acc.mode],
        "private": acc.private,
        "privacy_status": acc.status,
        "privacy_reason": acc.reason,
    }
    out.update((key, getattr(acc, key)) for key in _ACCOUNTING_KEYS)
    out["eps_claimed_label"] = (
        f"{vocab.REFUTED} (the paper's claim)" if not acc.private else f"{vocab.PROVED} (corrected)"
    )
    if acc.mode in ("printed", "repaired"):
        out["eps_prime"] = acc.eps_prime
    return out


_CALIBRATE = cli_specs("mode", "n", "lam", "mu", "h", "bdelta", "sem", "jac")


def _calibrate_args(p):
    add_param_options(p, _CALIBRATE)
    p.add_argument("--d", type=int, required=True, help="input dimension d >= 1")
    p.add_argument("--classes", type=int, default=3, help="number of classes C >= 2 (default 3)")
    p.add_argument("--eps", type=float, required=True, help="privacy budget epsilon in (0, inf)")
    p.add_argument(
        "--phi-star-norm",
        type=float,
        default=None,
        help="||Phi*||_F for term B of the corrected C5.3 bound (omitted when not given)",
    )


def _calibrate_run(a):
    v = settings_values(a, _CALIBRATE)
    acc = privacy_params(
        epsilon=a.eps,
        n=v["n"],
        d=a.d,
        n_classes=a.classes,
        lam=v["lam"],
        h=v["h"],
        mu=v["mu"],
        mode=v["mode"],
        semantics=v["sem"],
        jacobian=v["jac"],
    )
    delta = check_probability("bdelta", v["bdelta"], closed="neither")
    out = {
        "mechanism": "large-margin-gaussian",
        "eps": a.eps,
        "n": v["n"],
        "d": a.d,
        "classes": a.classes,
        "lam": v["lam"],
        "h": v["h"],
        "delta": delta,
        "delta_note": "bound confidence (utility failure probability), not a DP delta",
    }
    out.update(_privacy_block(acc))
    out["bounds"] = bounds_for_mode(acc, delta=delta, phi_star_norm=a.phi_star_norm)
    return out


_SIMULATE = cli_specs("data", "n", "k", "lam", "mu", "h", "psd")


def _simulate_args(p):
    add_dataset_arguments(p, default="gaussian_classes")
    add_seed_argument(p)
    add_param_options(p, _SIMULATE, defaults={"data": None})
    p.add_argument("--modes", default="printed,repaired,corrected", help="comma-separated modes (" + _MODE_HELP + ")")
    p.add_argument("--eps", type=float, default=1.0, help="privacy budget epsilon in (0, inf)")
    p.add_argument("--trials", type=int, default=30, help="noise draws per mode (default 30)")


def _simulate_task(a, v):
    """The training task of ``simulate``: the synthetic classes drawn with ``n`` rows, other data subsampled."""
    if a.dataset == "gaussian_classes":
        ds = dataset_from_args(
            a,
            n=v["n"],
            seed=a.seed,
            bounds_unused="to the synthetic dataset 'gaussian_classes': its rows are used as generated",
        )
        n_train = None
    else:
        ds = dataset_from_args(a)
        n_train = v["n"]
    return ds, make_task(ds, n_train=n_train if n_train and n_train < ds.n else None, k=v["k"], seed=a.seed)


def _method_entry(g, method: str, base: LargeMarginGaussian, task) -> dict:
    """Mean and SE of one method's trials, with its privacy keys (``nonprivate``: the reference)."""
    entry = {}
    for col, name in (("accuracy", "accuracy"), ("excess", "excess_risk"), ("agreement", "agreement_with_nonprivate")):
        entry[f"{name}_mean"], entry[f"{name}_se"] = mean_se(g[col])
    bounded = g["unbounded"] == 0
    entry |= {
        "unbounded_share": float(g["unbounded"].mean()),
        "nonconverged_share_of_bounded": float(1.0 - g.loc[bounded, "converged"].mean()) if bounded.any() else math.nan,
        "trials": len(g),
    }
    if method == "nonprivate":
        entry.update(mode="nonprivate", private=False, privacy_status="no privacy (reference)", unbounded_share=0.0)
        return entry
    cfg = dataclasses.replace(base, mode=method, psd=method == "printed" or base.psd)
    entry.update(_privacy_block(cfg.accounting(n=task.n, d=task.d, n_classes=task.n_classes)))
    return entry


def _simulate_run(a):
    v = settings_values(a, _SIMULATE)
    if v["data"] == "home":
        raise CliError("--data: 'home' is the page's Home dataset; give the dataset by --dataset NAME|PATH.csv.")
    if v["data"] is not None:  # the page's dataset choice, as a link would give it
        a.dataset = v["data"]
    modes = [m.strip() for m in str(a.modes).split(",") if m.strip()]
    if not modes:
        raise ValueError(f"modes must name at least one of {', '.join(MODES)}, got {a.modes!r}.")
    for m in modes:
        check_choice("modes", m, MODES)
    psd = v["psd"] == "on"
    trials = check_int("trials", a.trials, lo=1, hi=100_000)
    check_seed(a.seed)
    ds, task = _simulate_task(a, v)
    base = LargeMarginGaussian(epsilon=a.eps, lam=v["lam"], mu=v["mu"], h=v["h"], psd=psd)
    df = accuracy_sweep(task, epsilons=[a.eps], modes=modes, base=base, n_trials=trials, seed=a.seed)
    results = {method: _method_entry(g, method, base, task) for method, g in df.groupby("method", sort=False)}
    return {
        "mechanism": "large-margin-gaussian",
        "dataset": ds.name,
        "n_train": task.n,
        "n_test": int(task.X_test.shape[0]),
        "d": task.d,
        "classes": task.n_classes,
        "eps": a.eps,
        "lam": v["lam"],
        "h": v["h"],
        "psd": psd,
        "trials": trials,
        "seed": a.seed,
        "preprocessing": list(task.notes),
        "data_dependent_preprocessing": task.data_dependent,
        "excess_risk_definition": "J(Phi^p) - J(Phi*) for the same smoothed objective (same lam, mu_eff, h)",
        "results": results,
    }


_NAME = "large-margin-gaussian"
_TITLE = "Large-margin Gaussian classifier: "
COMMANDS = [
    Command(
        "calibrate",
        _NAME,
        _TITLE + "noise rate, budget split, claimed epsilon and bound tiers per mode",
        _calibrate_args,
        _calibrate_run,
    ),
    Command(
        "simulate",
        _NAME,
        _TITLE + "accuracy and excess risk per mode (mean, SE) and the unbounded share",
        _simulate_args,
        _simulate_run,
    ),
    reproduce_command(
        _NAME,
        _TITLE + "re-run our reference pilot (the paper has no experiments)",
        __package__,
        out_help="output directory (created if missing)",
        quick_help="5 draws per point and a 5,000-point test set (for CI)",
        trials_help="noise draws per point (default 20 / 15; quick: 5)",
    ),
]
