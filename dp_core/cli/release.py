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

from ..publication import NOT_FOR_PUBLICATION
from ._common import add_dataset_arguments, add_seed_argument
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


def _plugin_command(plugin) -> Command:
    """``release <name>`` of a plug-in with a ``release`` hook: a module with ``DEFAULT_DATASET``,
    ``add_arguments(parser)`` (its config's options, :func:`dp_core.cli._common.add_param_options`) and
    ``run(args) -> (dataset, release, notes, diagnostics or None)``; the shared options and the JSON
    shape (publishable ``release``, diagnostics only on request) are added here."""

    def add_arguments(p) -> None:
        mod = plugin.load("release")
        add_dataset_arguments(p, default=mod.DEFAULT_DATASET)
        add_seed_argument(p)
        p.add_argument(
            "--diagnostics",
            action="store_true",
            help=f"also print, under '{DIAGNOSTICS_KEY}', values that are NOT for publication "
            "(non-private fit, noise, excess risk)",
        )
        mod.add_arguments(p)

    def run(a) -> dict:
        ds, release, notes, diagnostics = plugin.load("release").run(a)
        out = {
            "mechanism": plugin.name,
            "dataset": ds.name,
            "n": int(ds.n),
            "d": int(ds.d),
            "seed": a.seed,
            "release": release,
            "publishable": _PUBLISH,
            "preprocessing": notes,
        }
        if a.diagnostics and diagnostics is not None:
            out[DIAGNOSTICS_KEY] = {"warning": _WARNING, **diagnostics}
        return out

    return Command("release", plugin.name, f"one release of {plugin.title} (publishable JSON)", add_arguments, run)


def _commands() -> list[Command]:
    from ..registry import plugins

    return [_plugin_command(p) for p in plugins() if p.has("release")]


COMMANDS = _commands()

CLI_NAMES = (("release", "*"),)
