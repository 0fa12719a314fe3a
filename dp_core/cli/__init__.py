"""Command line of :mod:`dp_core`: ``python -m dp_core COMMAND MECHANISM [--option value ...]``.

One JSON object on stdout (non-finite numbers as ``null``), errors as one line on stderr with exit 2,
unused options refused. ``docs/engine.md`` §"Command line conventions".
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import json
import math
import os
import pkgutil
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import DPCoreError
from ._common import EXECUTION_VERBS, add_execution_options, executor_from_args
from ._lazy import modules_for
from ._registry import CliError, Command

__all__ = ["CliError", "Command", "build_parser", "discover_commands", "main", "to_jsonable"]

VERBS = {
    "calibrate": "print the noise scales and guarantees of a mechanism for given parameters",
    "simulate": "run a mechanism many times on a dataset and print the measured utility",
    "release": (
        "run a mechanism once on a dataset and print the publishable release (--diagnostics: non-private extras)"
    ),
    "reproduce": "recreate a paper's figures or tables (CSV + HTML)",
    "audit": "measure a lower bound on a mechanism's epsilon from repeated runs",
    "negotiate": "find the smallest epsilon (or n, or k) that meets a stakeholder's target",
    "report": "write an HTML report from a JSON configuration",
    "risk": "what a guarantee lets an attacker do: trade-off curve, Gaussian-DP μ, membership advantage",
    "notebook": "a JSON configuration as a runnable Jupyter notebook (--script: and a Python script that releases)",
    "brief": "a JSON configuration as a one-page privacy brief (A4 HTML) with its decision log",
    "glossary": "the meaning of a symbol (ε, σ_b, Δ*, LBA, ...) shown by the app or the CLI",
    "precompute": "recompute the shipped demo results at default settings (--check: list the stale ones)",
}


class _OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):
        sys.stderr.write(f"error: {self.prog}: {_one_line(message)} (see --help)\n")
        raise SystemExit(2)


_MAX_SHOWN = 60  # characters of a rejected value quoted back in a message


def _one_line(text: Any) -> str:
    """Collapse whitespace and shorten very long messages (a 5,000-digit value must not flood the terminal)."""
    msg = " ".join(str(text).split())
    return msg if len(msg) <= 400 else msg[:380] + " ... (shortened)"


def _shown(text: str) -> str:
    return repr(text) if len(text) <= _MAX_SHOWN else repr(text[:_MAX_SHOWN] + "...")


def finite_float(text: str) -> float:
    """argparse type: a finite real number (``nan``, ``inf`` and values that overflow to inf are refused)."""
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"invalid float value {_shown(text)}: must be a finite number") from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {_shown(text)}")
    return x


_INT_RE = re.compile(r"^[+-]?[0-9]{1,30}$")


def bounded_int(text: str) -> int:
    """argparse type: an integer written with at most 30 digits (the engine checks each option's range)."""
    t = str(text).strip().replace("_", "")
    if not _INT_RE.match(t):
        if re.match(r"^[+-]?[0-9]+$", t):
            raise argparse.ArgumentTypeError(f"must be an integer of at most 30 digits, got {_shown(text)}")
        raise argparse.ArgumentTypeError(f"invalid int value {_shown(text)}: must be an integer")
    return int(t)


def _harden(parser: argparse.ArgumentParser) -> None:
    """Give every numeric option of ``parser`` the checking types above (so new options are covered too)."""
    for action in parser._actions:
        if action.type is float:
            action.type = finite_float
        elif action.type is int:
            action.type = bounded_int


def discover_commands(only: Sequence[str] | None = None) -> list[Command]:
    """Collect the ``COMMANDS`` of the shared verb modules and of every mechanism plug-in.

    ``only`` (from :func:`dp_core.cli._lazy.modules_for`) restricts the import to the named verb
    modules and mechanism folders (``mechanisms.<folder>``).
    """
    from .. import registry

    found: list[Command] = []
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name.startswith("_") or (only is not None and mod.name not in only):
            continue
        module = importlib.import_module(f"{__name__}.{mod.name}")
        found.extend(getattr(module, "COMMANDS", []))
    if only is None:
        for plugin in registry.plugins():
            found.extend(plugin.commands())
    else:
        for name in only:
            if name.startswith("mechanisms."):
                cli = f"{registry.__package__}.{name}.cli"
                if importlib.util.find_spec(cli) is not None:
                    found.extend(getattr(importlib.import_module(cli), "COMMANDS", []))
    return found


def _deprecated(note: str) -> None:
    _stderr_line(f"warning: {note} (the old spelling will be removed)")


def normalise_argv(words: Sequence[str]) -> list[str]:
    """Replace a mechanism's old spelling and ``negotiate --epsilon`` by the canonical ones.

    Each replacement prints one deprecation line on stderr; everything else is left alone.
    """
    from .. import registry

    out = list(words)
    positional = [i for i, a in enumerate(out) if not a.startswith("-")][:2]
    if len(positional) == 2:
        i = positional[1]
        if registry.folder_of(out[i]) is not None:
            out[i] = registry.canonical_name(out[i], on_alias=_deprecated, declared_only=True)
    if positional and out[positional[0]] == "negotiate":
        for j, a in enumerate(out):
            if a == "--epsilon" or a.startswith("--epsilon="):
                _deprecated("'--epsilon' is deprecated, use '--eps'")
                out[j] = "--eps" + a[len("--epsilon") :]
                break
    return out


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
        plain = [c for c in by_verb[verb] if not c.mechanism]
        if plain:
            _add_command(vp, plain[0], verb)
            continue
        sub = vp.add_subparsers(dest="mechanism", metavar="MECHANISM", parser_class=_OneLineParser)
        sub.required = True
        for c in sorted((c for c in by_verb[verb] if c.mechanism), key=lambda c: c.mechanism):
            _add_command(sub.add_parser(c.mechanism, help=c.help, description=c.help), c, verb)
    return parser


def _add_command(p: argparse.ArgumentParser, c: Command, verb: str) -> None:
    c.add_arguments(p)
    if verb in EXECUTION_VERBS:
        add_execution_options(p)
    _harden(p)
    p.set_defaults(_run=c.run)


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, dataclasses and DataFrames for JSON; NaN and ±inf become ``None``.

    ``None`` is written as ``null``: the CLI's output never holds ``NaN``/``Infinity`` (not JSON) nor
    the strings ``"nan"``/``"inf"`` (a number that is not a number).

    >>> to_jsonable({"a": float("nan"), "b": [np.float64("-inf"), 1.5]})
    {'a': None, 'b': [None, 1.5]}
    """
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
        return x if math.isfinite(x) else None
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0: success; 2: bad input (one line on stderr); 1: an internal error (one line, never a
    traceback: it is a bug to report); 130: interrupted with Ctrl-C ("interrupted" on stderr).
    """
    try:
        words = normalise_argv(sys.argv[1:] if argv is None else argv)
        only = modules_for(words)
        parser = build_parser(discover_commands(only))
        args = parser.parse_args(words)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _run_with_executor(args)
        _show_warnings(caught)
        text = json.dumps(to_jsonable(result), indent=2, allow_nan=False)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return 0
    except SystemExit as exc:  # argparse: --help exits 0, errors exit 2 (already printed)
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except KeyboardInterrupt:
        _stderr_line("interrupted")
        return 130
    except BrokenPipeError:  # stdout closed early (``python -m dp_core ... | head``)
        try:  # point stdout at /dev/null so the interpreter's final flush does not complain
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except (OverflowError, ZeroDivisionError, FloatingPointError, MemoryError) as exc:
        # values that pass their own checks but combine into something floats cannot hold
        what = f"cannot be computed in floating point ({type(exc).__name__})"
        if isinstance(exc, MemoryError):
            what = "needs more memory than is available"
        _stderr_line(f"error: this command {what} with the values given ({_given(argv)}); use values of moderate size")
        return 2
    except (ValueError, TypeError, CliError, KeyError, OSError, DPCoreError) as exc:
        _stderr_line(f"error: {_one_line(exc) or type(exc).__name__}")
        return 2
    except BaseException as exc:  # noqa: BLE001 - never show a traceback
        _stderr_line(f"internal error: {type(exc).__name__}: {_one_line(exc)}")
        return 1


def _run_with_executor(args: argparse.Namespace) -> Any:
    """Run the command with the executor of ``--workers`` / ``--scheduler`` (closed afterwards)."""
    if getattr(args, "command", None) not in EXECUTION_VERBS:
        return args._run(args)
    import time

    from ..execution import shutdown, use_executor

    try:
        with use_executor(executor_from_args(args)) as executor:
            if hasattr(executor, "in_process_blocks"):
                executor.in_process_blocks = 0  # counted for this command's note
            start, load = time.perf_counter(), _load_average()
            result = args._run(args)
            if args.command == "reproduce" and isinstance(result, dict):
                result["execution"] = _write_run_info(args, executor, time.perf_counter() - start, load)
            elif isinstance(result, dict) and getattr(executor, "in_process_blocks", 0):
                result["execution"] = _small_job_note(executor)
            return result
    finally:
        shutdown()


def _small_job_note(executor) -> dict:
    """Says that the blocks ran in this process although workers were given (a job of a few seconds)."""
    from ..execution import SMALL_JOB_S

    return {
        **executor.describe(),
        "in_process_blocks": executor.in_process_blocks,
        "note": (
            f"a small job (estimated at most {executor.small_job_seconds():g} s from its first block) ran in this "
            f"process: Dask's scheduling would cost more than the work ($DP_CORE_SMALL_JOB_S=0 sends every "
            f"block to the workers; default {SMALL_JOB_S:g} s)."
        ),
    }


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):  # not on every platform
        return None


def _write_run_info(args: argparse.Namespace, executor, wall_time_s: float, load_at_start: float | None) -> dict:
    """``run_info.json`` beside a reproduction's outputs: machine, executor, workers, wall time."""
    import platform
    from pathlib import Path

    info = {
        "command": "python -m dp_core " + " ".join(sys.argv[1:]) if sys.argv[1:2] == [args.command] else None,
        "machine": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            # a shared machine: the 1-minute load average at the start and the end of the run
            "load_average": [load_at_start, _load_average()],
        },
        **executor.describe(),
        "wall_time_s": round(wall_time_s, 1),
        "seed": getattr(args, "seed", None),
        "quick": bool(getattr(args, "quick", False)),
    }
    out = getattr(args, "out", None)
    if out is not None and Path(out).is_dir():
        (Path(out) / "run_info.json").write_text(json.dumps(to_jsonable(info), indent=2) + "\n", encoding="utf-8")
    return info


def _given(argv: Sequence[str] | None) -> str:
    """The options of a command line, shortened, for an error message."""
    items = list(sys.argv[1:] if argv is None else argv)
    text = " ".join(a if len(a) <= 30 else a[:27] + "..." for a in items)
    return text if len(text) <= 300 else text[:297] + "..."


def _show_warnings(caught) -> None:
    """After a successful run, show dp_core's own warnings (privacy leaks, approximations) one line each.

    numpy's RuntimeWarnings (overflow in an intermediate step) are not shown: a result that is
    not finite appears as ``null`` in the JSON, and an error replaces the output.
    """
    seen: set[str] = set()
    for w in caught:
        if issubclass(w.category, RuntimeWarning) or issubclass(w.category, DeprecationWarning):
            continue
        text = _one_line(w.message)
        if text not in seen and len(seen) < 10:
            seen.add(text)
            _stderr_line(f"warning: {text}")


def _stderr_line(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
