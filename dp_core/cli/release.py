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
    dataset_from_args,
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


# ----------------------------------------------------------------------------- large-margin Gaussian
def _lmg_args(p):
    from ..mechanisms.large_margin_gaussian.privacy import MODES

    _common(p, default_dataset="gaussian_classes")
    p.add_argument("--eps", type=float, default=1.0, help="privacy budget epsilon in (0, inf) (default 1)")
    p.add_argument(
        "--mode",
        default="corrected",
        help="one of " + ", ".join(MODES) + " (default corrected; only corrected is differentially private)",
    )
    p.add_argument("--lam", type=float, default=0.01, help="trace regulariser lambda (default 0.01)")
    p.add_argument("--mu", type=float, default=None, help="Frobenius coefficient mu (default lambda)")
    p.add_argument("--h", type=float, default=0.5, help="Huber width h (default 0.5)")
    p.add_argument("--psd", default="on", help="PSD constraint: on (default) or off")


def _lmg_run(a):
    from .._validation import check_choice
    from ..mechanisms.large_margin_gaussian import LargeMarginGaussian, release_many

    ds = dataset_from_args(
        a, bounds_unused="to release large-margin-gaussian: rows are clipped to the unit ball instead"
    )
    if ds.task == "regression":
        raise ValueError(
            f"dataset must be a classification dataset for large-margin-gaussian, got {ds.name!r} (regression)."
        )
    psd = check_choice("psd", a.psd, ("on", "off")) == "on"
    classes, y = np.unique(ds.y, return_inverse=True)
    cfg = LargeMarginGaussian(epsilon=a.eps, mode=a.mode, lam=a.lam, mu=a.mu, h=a.h, psd=psd)
    res = release_many(ds.X, y, cfg, n_runs=1, seed=a.seed, n_classes=int(classes.size), diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    release = {
        "phi": None if rel.unbounded[0] else rel.phi[0],
        "released": not bool(rel.unbounded[0]),
        "config": rel.config.as_dict(),
        "accounting": None if rel.accounting is None else rel.accounting.as_dict(),
        "classes": [str(c) for c in classes],
    }
    notes = [
        (
            "Rows clipped to the unit ball, a constant 1 appended, then scaled by the mode's public input scale; "
            "classes coded 0..C-1 in sorted order."
        )
    ]
    extra = None
    if diag is not None:
        extra = {
            "phi_nonprivate": diag.phi_star,
            "noise_norm": float(diag.noise_norm[0]),
            "excess_risk": float(diag.excess[0]),
            "pathwise_bound": float(diag.pathwise_bound[0]),
            "solver_converged": bool(diag.converged[0]),
        }
    return _out("large-margin-gaussian", ds, a.seed, release, notes, extra)


_HAND_WRITTEN = [
    Command(
        "release",
        "large-margin-gaussian",
        "one release of the large-margin Gaussian classifier (publishable JSON)",
        _lmg_args,
        _lmg_run,
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
