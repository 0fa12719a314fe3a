"""Import only the command module a command line needs (the CLI starts in about 0.5 s, not 3 s).

``docs/performance.md`` §"CLI start-up (dp_core/cli/_lazy.py)".
"""

from __future__ import annotations

import ast
import pkgutil
from collections.abc import Sequence
from functools import cache
from pathlib import Path

__all__ = ["declared_names", "modules_for"]

_HERE = Path(__file__).resolve().parent


@cache
def declared_names() -> dict[str, tuple[tuple[str, str], ...] | None]:
    """``{module: CLI_NAMES or None}`` for every public module of the package."""
    out: dict[str, tuple[tuple[str, str], ...] | None] = {}
    for mod in pkgutil.iter_modules([str(_HERE)]):
        if mod.name.startswith("_"):
            continue
        names = None
        try:
            tree = ast.parse((_HERE / f"{mod.name}.py").read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CLI_NAMES" for t in node.targets):
                    names = tuple(tuple(p) for p in ast.literal_eval(node.value))
        except (OSError, SyntaxError, ValueError):
            names = None
        out[mod.name] = names
    return out


def modules_for(argv: Sequence[str]) -> list[str] | None:
    """The modules to import for ``argv``, or ``None`` when every module is needed (help, typos).

    Names are modules of :mod:`dp_core.cli` (``audit``) or mechanism folders (``mechanisms.textbook``).
    """
    from ..registry import folder_of

    words = [a for a in argv if not a.startswith("-")][:2]
    if not words or any(a in ("-h", "--help") for a in argv[:2]):
        return None
    verb = words[0]
    mech = words[1] if len(words) > 1 else ""
    chosen = []
    matched = False
    shared_verb = False  # a shared module (audit, release) builds this verb for every mechanism
    for name, pairs in sorted(declared_names().items()):
        if pairs is None:
            chosen.append(name)
            continue
        for v, m in pairs:
            if v == verb and (m == "*" or m == mech or (m == "" and v == verb)):
                chosen.append(name)
                matched = True
                shared_verb = shared_verb or m == "*"
                break
    folder = folder_of(mech) if mech else None
    if folder is not None and not shared_verb:
        chosen.append(f"mechanisms.{folder}")
        matched = True
    return chosen if matched else None
