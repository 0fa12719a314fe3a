"""``python -m dp_core release MECHANISM``: one private release, printed as publishable JSON.

The JSON has one key that may be published, ``release`` (the private output, the privacy parameters
and their status, public settings), next to descriptive keys (dataset name, sizes, seed,
preprocessing). Values computed from the private data beyond the release — the non-private fit,
the noise drawn, the excess risk, sampler diagnostics — are printed only with ``--diagnostics``,
under the key ``diagnostics_not_private`` (with a warning): publishing them voids the guarantee.

Preprocessing uses public rules only (declared bounds, clipping, a constant column): no statistic of
the data is used to scale it, so the guarantee covers the whole pipeline.
"""

from __future__ import annotations

import numpy as np

from ..publication import NOT_FOR_PUBLICATION
from ._common import (
    add_dataset_arguments,
    add_seed_argument,
    add_y_range,
    dataset_from_args,
    labels_in_range,
    two_classes,
)
from ._registry import Command

__all__ = ["COMMANDS", "DIAGNOSTICS_KEY"]

#: The only key under which non-private values ever appear in the output of ``release``.
DIAGNOSTICS_KEY = "diagnostics_not_private"
_WARNING = (
    f"{NOT_FOR_PUBLICATION}: these values were computed from the private data beyond the release "
    "(non-private fit, noise drawn, excess risk, sampler diagnostics). Publishing any of them voids the "
    "privacy guarantee of the release. Publish only the 'release' object."
)
_PUBLISH = "Only the 'release' object may be published; every other key describes the run."


def _common(p, *, default_dataset: str) -> None:
    add_dataset_arguments(p, default=default_dataset)
    add_seed_argument(p)
    p.add_argument(
        "--diagnostics",
        action="store_true",
        help=f"also print, under '{DIAGNOSTICS_KEY}', values that are NOT for publication "
        "(non-private fit, noise, excess risk)",
    )


def _out(mechanism: str, ds, seed: int, release: dict, notes: list[str], diagnostics: dict | None) -> dict:
    out = {
        "mechanism": mechanism,
        "dataset": ds.name,
        "n": int(ds.n),
        "d": int(ds.d),
        "seed": seed,
        "release": release,
        "publishable": _PUBLISH,
        "preprocessing": notes,
    }
    if diagnostics is not None:
        out[DIAGNOSTICS_KEY] = {"warning": _WARNING, **diagnostics}
    return out


# ----------------------------------------------------------------------------- input perturbation
def _ip_args(p):
    _common(p, default_dataset="census")
    add_y_range(p)
    p.add_argument("--eps", type=float, default=1.0, help="central epsilon in (0, inf) (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta in (0, 1) (default 1e-5)")
    p.add_argument("--eta", type=float, default=1.0, help="radius of the parameter ball (default 1)")
    p.add_argument("--alpha", type=float, default=1.0, help="local/central trade-off in (0, 1] (default 1)")
    p.add_argument("--x-bound", type=float, default=1.0, help="public bound on ||x||; rows are clipped to it")
    p.add_argument("--y-bound", type=float, default=1.0, help="public bound on |y|; labels are clipped to it")


def _ip_run(a):
    from ..mechanisms.input_perturbation import InputPerturbation

    ds = dataset_from_args(
        a, bounds_unused="to release input-perturbation: rows are clipped to the norm bound --x-bound instead"
    )
    if ds.task == "regression":
        y, how = labels_in_range(ds, a.y_range, a.y_bound)
        model = "least_squares"
        notes = [f"Rows clipped to ||x|| <= {a.x_bound:g} (public bound); {how}; least-squares model."]
    else:
        model, y = "logistic_taylor", two_classes(ds)
        notes = [
            (
                f"Rows clipped to ||x|| <= {a.x_bound:g} (public bound); classes coded -1/+1 in sorted order; "
                "logistic Taylor surrogate."
            )
        ]
    mech = InputPerturbation(
        epsilon=a.eps, delta=a.delta, model=model, eta=a.eta, alpha=a.alpha, x_bound=a.x_bound, y_bound=a.y_bound
    )
    res = mech.run(ds.X, y, rng=a.seed, sampler="records", diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    extra = None
    if diag is not None:
        extra = {
            "theta_nonprivate": diag.theta_nonprivate,
            "risk_nonprivate": diag.risk_nonprivate,
            "excess_risk": diag.excess_risk,
            "noise_linear": diag.noise_linear,
            "noise_quadratic": diag.noise_quadratic,
        }
    return _out("input-perturbation", ds, a.seed, rel, notes, extra)


# ----------------------------------------------------------------------------- l1 exponential mechanism
def _l1_args(p):
    _common(p, default_dataset="heavy_tailed")
    p.add_argument("--eps", type=float, default=1.0, help="pure-DP budget epsilon in (0, inf) (default 1)")
    p.add_argument("--theta", type=float, default=1.5, help="moment order theta in [1.05, 2] (default 1.5)")
    p.add_argument("--radius", type=float, default=1.0, help="radius R of the parameter ball (default 1)")
    p.add_argument("--mode", default="auto", help="auto (grid when d <= 3), grid or mcmc")
    p.add_argument("--preset", default="fast", help="MCMC schedule: spec, fast or quick (default fast)")
    p.add_argument("--draws", type=int, default=1, help="independent releases (default 1)")


def _l1_run(a):
    from .._validation import check_int
    from ..mechanisms.l1_exponential import L1ExponentialRegression
    from ..mechanisms.l1_exponential.lad import l1_risk, lad_fit

    ds = dataset_from_args(
        a,
        bounds_unused="to release l1-exponential: the features are used as given (the truncated score bounds "
        "each record's effect)",
    )
    if ds.task != "regression":
        raise ValueError(f"dataset must be a regression dataset for l1-exponential, got {ds.name!r} ({ds.task}).")
    draws = check_int("draws", a.draws, lo=1, hi=10_000)
    est = L1ExponentialRegression(epsilon=a.eps, theta=a.theta, radius=a.radius, mode=a.mode, mcmc_preset=a.preset)
    res = est.run(ds.X, ds.y, rng=a.seed, n_draws=draws, diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    release = {
        "draws": rel.draws,
        "privacy_label": rel.privacy_label,
        "exact_sampler": rel.exact,
        "calibration": rel.calibration.as_dict(),
    }
    notes = ["Features and target used as given (never clipped: the truncated score bounds the sensitivity)."]
    extra = None
    if diag is not None:
        lad = lad_fit(ds.X, ds.y, est.radius)
        extra = {
            "w_nonprivate_lad": lad.w,
            "risk_nonprivate": lad.objective,
            "excess_empirical_risk": np.atleast_1d(l1_risk(rel.draws, ds.X, ds.y)) - lad.objective,
        }
        if diag.mcmc is not None:
            extra["sampler"] = diag.mcmc.as_dict()
        if diag.grid is not None:
            p = diag.grid.probabilities
            extra["sampler"] = {
                "grid_points": int(p.size),
                "largest_probability": float(p.max()),
                "entropy": float(-np.sum(p[p > 0] * np.log(p[p > 0]))),
            }
    return _out("l1-exponential", ds, a.seed, release, notes, extra)


# ----------------------------------------------------------------------------- label-DP bags
def _bags_args(p):
    from ..mechanisms.label_dp_bags import MECHANISMS

    _common(p, default_dataset="census")
    add_y_range(p)
    p.add_argument(
        "--mechanism", default="noisy-wtd-llp", help="one of " + ", ".join(MECHANISMS) + " (default noisy-wtd-llp)"
    )
    p.add_argument("--m", type=int, default=20, help="number of bags (default 20)")
    p.add_argument("--k", type=int, default=16, help="bag size (default 16); m*k <= n")
    p.add_argument("--rho", type=float, default=0.1, help="noisy fraction of labels for noisy-wtd-llp (default 0.1)")
    p.add_argument("--noise-std", type=float, default=1.0, help="label-noise std s (default 1)")
    p.add_argument("--b1", type=float, default=1.0, help="public label bound B1: labels are clipped to [-B1, B1]")


def _bags_run(a):
    from .._validation import check_positive
    from ..mechanisms.label_dp_bags import LabelDPBags, fit_linear

    ds = dataset_from_args(
        a, bounds_unused="to release label-dp-bags: the features are public in label-DP and used as given"
    )
    b1 = check_positive("b1", a.b1)
    X = np.column_stack([np.asarray(ds.X, dtype=float), np.ones(ds.n)])
    y, how = labels_in_range(ds, a.y_range, b1)
    cfg = LabelDPBags(mechanism=a.mechanism, m=a.m, k=a.k, rho=a.rho, noise_std=a.noise_std)
    res = cfg.run(X, y, rng=a.seed, diagnostics=a.diagnostics)
    rel, sec = res if a.diagnostics else (res, None)
    release = {
        "aggregates": rel,
        "linear_model_from_release": fit_linear(rel.aggregated_features(), rel.ybar),
        "label_dp": cfg.is_label_dp,
        "fraction_of_rows_used": cfg.fraction_used(ds.n),
    }
    notes = [f"Features used as given (public in label-DP) with a constant 1 appended; {how} (B1)."]
    extra = None
    if sec is not None:
        theta_np, *_ = np.linalg.lstsq(X, y, rcond=None)
        extra = {"theta_nonprivate": theta_np, "secret_weights": sec.weights, "label_noise": sec.label_noise}
    return _out("label-dp-bags", ds, a.seed, release, notes, extra)


_HAND_WRITTEN = [
    Command("release", "input-perturbation", "one release of input perturbation (publishable JSON)", _ip_args, _ip_run),
    Command("release", "l1-exponential", "draws of EM-L1-HT (publishable JSON)", _l1_args, _l1_run),
    Command(
        "release",
        "label-dp-bags",
        "one aggregation release with its linear fit (publishable JSON)",
        _bags_args,
        _bags_run,
    ),
]


def _plugin_command(plugin) -> Command:
    """``release <name>`` of a plug-in with a ``release`` hook: a module with ``DEFAULT_DATASET``,
    ``add_arguments(parser)`` (its config's options, :func:`dp_core.cli._common.add_param_options`) and
    ``run(args) -> (dataset, release, notes, diagnostics or None)``; the shared options and the JSON
    shape (publishable ``release``, diagnostics only on request) are added here."""

    def add_arguments(p) -> None:
        mod = plugin.load("release")
        _common(p, default_dataset=mod.DEFAULT_DATASET)
        mod.add_arguments(p)

    def run(a) -> dict:
        ds, release, notes, diagnostics = plugin.load("release").run(a)
        return _out(plugin.name, ds, a.seed, release, notes, diagnostics if a.diagnostics else None)

    return Command("release", plugin.name, f"one release of {plugin.title} (publishable JSON)", add_arguments, run)


def _commands() -> list[Command]:
    from ..registry import plugins

    done = {c.mechanism for c in _HAND_WRITTEN}
    return _HAND_WRITTEN + [_plugin_command(p) for p in plugins() if p.has("release") and p.name not in done]


COMMANDS = _commands()

CLI_NAMES = (("release", "*"),)
