"""The command registry of ``python -m dp_core``.

Every module in :mod:`dp_core.cli` (other than those starting with ``_``) defines a list
``COMMANDS`` of :class:`Command` objects; :func:`dp_core.cli.main` discovers them, so adding a
mechanism to the CLI means adding one module, without touching a shared file.
"""

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
    """``python -m dp_core COMMAND MECHANISM [options]``.

    Attributes
    ----------
    command : str
        The verb: ``calibrate``, ``simulate``, ``reproduce``, ``audit``, ``negotiate``, ``report``.
    mechanism : str
        The mechanism's CLI name, for example ``gaussian`` or ``input-perturbation``. Verbs that
        take no mechanism (``negotiate``, ``report``) use ``""``.
    help : str
        One line for ``--help``.
    add_arguments : callable
        ``add_arguments(parser)`` adds the options (use ``--kebab-case`` names).
    run : callable
        ``run(args) -> dict``; the dict is printed as one JSON object on stdout. Raise
        ``ValueError``/``TypeError`` (or :class:`CliError`) for bad input: the CLI prints one line
        on stderr and exits 2.
    """

    command: str
    mechanism: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], dict[str, Any]]
