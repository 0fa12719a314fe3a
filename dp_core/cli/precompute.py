"""``python -m dp_core precompute [--check]``: regenerate the shipped demo results, or (``--check``) exit 1
listing the stale files (:mod:`dp_core.precomputed`).
"""

from __future__ import annotations

import argparse
import sys

from ._registry import Command

# ``verb mechanism`` pairs this module defines, read without importing it (see dp_core.cli._lazy)
CLI_NAMES = (("precompute", ""),)


def _add_precompute(p: argparse.ArgumentParser) -> None:
    from ..data import DATASETS

    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing the stale files (missing, or written by other engine code)",
    )
    p.add_argument(
        "--datasets",
        nargs="+",
        default=None,
        choices=sorted(DATASETS),
        metavar="NAME",
        help="only these demo datasets (default: all)",
    )


def _run_precompute(args: argparse.Namespace) -> dict:
    from .. import precomputed

    if args.check:
        stale = precomputed.check(args.datasets)
        if stale:
            for line in stale:
                sys.stderr.write(f"stale: {line}\n")
            sys.stderr.write("regenerate with: python -m dp_core precompute [--workers 2]\n")
            sys.stderr.flush()
            raise SystemExit(1)
        return {"stale": [], "engine_hash": precomputed.engine_hash()}

    def note(name: str) -> None:
        sys.stderr.write(f"done: {name}\n")
        sys.stderr.flush()

    from ..precomputed_runs import regenerate

    return regenerate(args.datasets, progress=note)


COMMANDS = [
    Command(
        "precompute",
        "",
        "recompute the shipped results of the demo datasets at default settings (--check: list stale ones)",
        _add_precompute,
        _run_precompute,
    )
]
