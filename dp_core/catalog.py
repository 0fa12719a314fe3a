"""The shared tables collected from the mechanism folders' ``catalog`` modules.

A folder's ``catalog.py`` is plain data (``COLORS``, ``LABELS``, ``GLOSSARY``, ``AUDIT_ROWS``, ``PRELOAD``,
``WORKER_PRELOAD``), read here when first used, so the foundation imports no mechanism (docs/engine.md §"Catalogs").
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

from . import registry

__all__ = ["catalogs", "joined", "merged"]


@cache
def _catalogs(plugins: tuple) -> tuple[ModuleType, ...]:
    refs: list[str] = []
    out = []
    for p in plugins:
        if p.has("catalog") and p.hooks["catalog"] not in refs:  # one folder may declare several plug-ins
            refs.append(p.hooks["catalog"])
            out.append(p.load("catalog"))
    return tuple(out)


def catalogs() -> tuple[ModuleType, ...]:
    """The catalog module of every registered plug-in that has one, in registry order (once per folder)."""
    return _catalogs(registry.plugins())


def merged(name: str) -> dict[str, Any]:
    """The dictionaries ``name`` of every catalog, merged in registry order."""
    out: dict[str, Any] = {}
    for c in catalogs():
        out.update(getattr(c, name, {}))
    return out


def joined(name: str) -> tuple:
    """The sequences ``name`` of every catalog, concatenated in registry order."""
    return tuple(x for c in catalogs() for x in getattr(c, name, ()))
