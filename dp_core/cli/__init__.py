"""Command line of :mod:`dp_core`: ``python -m dp_core COMMAND MECHANISM [--option value ...]``.

Every command prints one JSON object on stdout. Errors print one line on stderr and exit with
status 2; no traceback is ever shown. Non-finite numbers are written as the strings ``"inf"``,
``"-inf"`` and ``"nan"`` (strict JSON has no literal for them).

Commands are discovered from the modules of this package (see :mod:`dp_core.cli._registry`).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import math
import pkgutil
import sys
from typing import Any, Sequence

import numpy as np

from ._registry import CliError, Command

__all__ = ["main", "build_parser", "discover_commands", "to_jsonable", "Command", "CliError"]

VERBS = {
    "calibrate": "print the noise scales and guarantees of a mechanism for given parameters",
    "simulate": "run a mechanism many times on a dataset and print the measured utility",
    "release": "run a mechanism once on a dataset and print the publishable release (--diagnostics: non-private extras)",
    "reproduce": "recreate a paper's figures or tables (CSV + HTML)",
    "audit": "measure a lower bound on a mechanism's epsilon from repeated runs",
    "negotiate": "find the smallest epsilon (or n, or k) that meets a stakeholder's target",
    "report": "write an HTML report from a JSON configuration",
}


class _OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"error: {self.prog}: {message} (see --help)\n")
        raise SystemExit(2)


def discover_commands() -> list[Command]:
    """Import every public module of this package and collect its ``COMMANDS``."""
    found: list[Command] = []
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{mod.name}")
        found.extend(getattr(module, "COMMANDS", []))
    return found


def build_parser(commands: Sequence[Command] | None = None) -> argparse.ArgumentParser:
    commands = discover_commands() if commands is None else list(commands)
    parser = _OneLineParser(prog="python -m dp_core", description="The Privacy-Utility Explorer engine; prints JSON.")
    verbs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    verbs.required = True
    by_verb: dict[str, list[Command]] = {}
    for c in commands:
        by_verb.setdefault(c.command, []).append(c)
    for verb in [v for v in VERBS if v in by_verb] + [v for v in by_verb if v not in VERBS]:
        vp = verbs.add_parser(verb, help=VERBS.get(verb, ""), description=VERBS.get(verb, ""))
        mechs = [c for c in by_verb[verb] if c.mechanism]
        plain = [c for c in by_verb[verb] if not c.mechanism]
        if plain:
            plain[0].add_arguments(vp)
            vp.set_defaults(_run=plain[0].run)
            continue
        sub = vp.add_subparsers(dest="mechanism", metavar="MECHANISM", parser_class=_OneLineParser)
        sub.required = True
        for c in sorted(mechs, key=lambda c: c.mechanism):
            mp = sub.add_parser(c.mechanism, help=c.help, description=c.help)
            c.add_arguments(mp)
            mp.set_defaults(_run=c.run)
    return parser


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, dataclasses, DataFrames and non-finite floats for JSON."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(dataclasses.asdict(obj))
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # DataFrame
        return to_jsonable(obj.to_dict(orient="records"))
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, 1 for an internal error, 2 for bad input)."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        result = args._run(args)
        sys.stdout.write(json.dumps(to_jsonable(result), indent=2) + "\n")
        return 0
    except SystemExit as exc:  # argparse: --help exits 0, errors exit 2 (already printed)
        return int(exc.code or 0)
    except (ValueError, TypeError, CliError, KeyError, FileNotFoundError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        sys.stderr.write(f"error: {msg}\n")
        return 2
    except Exception as exc:  # noqa: BLE001 - never show a traceback
        msg = " ".join(str(exc).split())
        sys.stderr.write(f"internal error: {type(exc).__name__}: {msg}\n")
        return 1
