"""The view of a configuration as a plain Python script: the notebook's cells, and a private release.

``python view.py`` prints what the notebook prints; ``python view.py --csv MY.csv`` also fits the private
model of the view's mechanism on that file at the chosen setting (the plug-in's ``release`` hook, as
``python -m dp_core release`` runs it), prints its guarantee with its status and saves the released
parameters (``--out``, default ``released_parameters.json``). ``docs/export.md`` §"Notebook and script".
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..compare import ExplorerConfig
from .notebook import cells

__all__ = ["release_argv", "release_mechanism", "script_text"]

_RELEASE = '''

def release(csv_path, out_path, target=None):
    """Fit the private model at the chosen setting on csv_path, print its guarantee, save the release."""
    import contextlib
    import io

    from dp_core.cli import main

    argv = RELEASE_ARGV + ["--dataset", csv_path] + ([] if target is None else ["--target", target])
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(argv)
    if code != 0:
        raise SystemExit(code)
    out = json.loads(buffer.getvalue())
    rel = out["release"]
    print(f"released {out['mechanism']} on {out['dataset']} (n = {out['n']}, d = {out['d']}, seed {out['seed']})")
    for key in ("privacy_label", "privacy_status", "epsilon", "delta", "label_dp"):
        if key in rel:
            print(f"  {key}: {rel[key]}")
    for m in res.methods:
        if m["adapter"] == MECHANISMS_RELEASED:
            print(f"  guarantee of {m['label']}: {m['status_label']}: {m['statement']}")
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"mechanism": out["mechanism"], "release": rel, "publishable": out["publishable"]}, f, indent=2)
    print(f"saved the released parameters to {out_path} (publish only the 'release' object)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Recompute the view; with --csv, also release on your data.")
    parser.add_argument("--csv", default=None, help="your CSV file: fit the private model on it and save it")
    parser.add_argument("--target", default=None, help="target column of --csv (default: the last column)")
    parser.add_argument("--out", default="released_parameters.json", help="where to save the release")
    a = parser.parse_args()
    if a.csv is not None:
        if RELEASE_ARGV is None:
            raise SystemExit("this view's mechanism has no release hook; nothing to release")
        release(a.csv, a.out, a.target)
'''


def release_mechanism(config: ExplorerConfig) -> str | None:
    """The plug-in the script releases: the page's own, else the first of the view with a release hook."""
    from ..registry import plugins
    from . import page_mechanisms

    chosen = page_mechanisms(config)
    usable = (p for p in plugins() if p.has("release") and p.has("compare") and (chosen is None or p.key in chosen))
    return next((p.name for p in usable), None)


def _release_options(name: str) -> set[str]:
    """The option strings the plug-in's ``release`` hook declares (read from its ``add_arguments``, so a
    plug-in's options need no edit here; the shared ``--dataset``/``--seed`` are added by the CLI)."""
    import argparse

    from ..registry import get

    parser = argparse.ArgumentParser(add_help=False)
    get(name).load("release").add_arguments(parser)
    return {o for a in parser._actions for o in a.option_strings}


def release_argv(config: ExplorerConfig) -> list[str] | None:
    """``release`` arguments at the view's setting: its ε, δ, seed and shared parameters the hook accepts."""
    name = release_mechanism(config)
    if name is None:
        return None
    accepted = _release_options(name)
    argv = ["release", name, "--seed", str(config.seed)]
    values: dict[str, Any] = {"eps": config.eps, "delta": config.delta, **config.mechanism_params}
    for key, value in values.items():
        flag = "--" + key.replace("_", "-")
        if flag in accepted and not (key in ("k", "m") and value == 0):  # k, m = 0: the hook's own default
            argv += [flag, repr(value) if isinstance(value, float) else str(value)]
    return argv


def script_text(config: ExplorerConfig, decisions: list[dict[str, Any]] | None = None) -> str:
    """The script: a docstring, the notebook's code cells with their explanations as comments, the release."""
    parts = ['"""Recompute a Privacy-Utility Explorer view with dp_core; --csv FILE also releases on FILE."""\n']
    for kind, source in cells(config, decisions):
        if kind == "markdown":
            parts.append(textwrap.indent(source.replace("\r", ""), "# ", lambda line: True))
        else:
            parts.append(source)
    from ..registry import get

    name = release_mechanism(config)
    parts.append(f"RELEASE_ARGV = {release_argv(config)!r}")
    parts.append(f"MECHANISMS_RELEASED = {None if name is None else get(name).key!r}")
    return "\n\n".join(parts) + "\n" + _RELEASE
