"""The command registry of ``python -m dp_core``: each module of :mod:`dp_core.cli` lists its ``COMMANDS``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CliError", "Command"]


class CliError(Exception):
    """An error to report on one line of stderr with exit status 2."""


@dataclass(frozen=True)
class Command:
    """``python -m dp_core COMMAND MECHANISM [options]``: ``command``, ``mechanism`` (``""`` for none), ``help``,
    ``add_arguments(parser)``, ``run(args) -> dict`` (``docs/adding_a_mechanism.md`` §"CLI Command fields").
    """

    command: str
    mechanism: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], dict[str, Any]]
