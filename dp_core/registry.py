"""The one registry of mechanisms, discovered from the folders of :mod:`dp_core.mechanisms`.

Every sub-package of :mod:`dp_core.mechanisms` that exports ``PLUGIN`` (a
:class:`dp_core.plugin.Mechanism`) or ``PLUGINS`` (a tuple of them) is a mechanism. The command
line, the comparison, the audit and the negotiation iterate over :func:`plugins`; adding a
mechanism means adding its folder (and its page), with no edit of a shared file.

Two ways to look:

* :func:`declared` reads each folder's ``__init__.py`` with :mod:`ast` (names and aliases only,
  nothing imported), so ``python -m dp_core COMMAND MECHANISM`` imports one mechanism;
* :func:`plugins` imports the folders and returns the :class:`~dp_core.plugin.Mechanism` objects.

More folders can be put on the search path with :func:`add_search_path` or the environment
variable ``DP_CORE_PLUGIN_PATH`` (directories separated by ``os.pathsep``): their sub-packages
become ``dp_core.mechanisms.<folder>``.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from . import mechanisms as _pkg
from .plugin import Mechanism

__all__ = [
    "add_search_path",
    "canonical_name",
    "declared",
    "declared_pages",
    "folder_of",
    "get",
    "plugins",
]

_ENV = "DP_CORE_PLUGIN_PATH"


def _apply_env() -> None:
    for d in os.environ.get(_ENV, "").split(os.pathsep):
        if d and d not in _pkg.__path__:
            _pkg.__path__.append(d)


def add_search_path(path: str | os.PathLike) -> None:
    """Look for mechanism folders in ``path`` too (its sub-packages become ``dp_core.mechanisms.<name>``)."""
    p = str(Path(path).resolve())
    if p not in _pkg.__path__:
        _pkg.__path__.append(p)
    _clear()


def _clear() -> None:
    declared.cache_clear()
    plugins.cache_clear()


def _folders() -> list[tuple[str, Path]]:
    _apply_env()
    found = pkgutil.iter_modules(list(_pkg.__path__))
    return sorted(
        (m.name, Path(m.module_finder.path) / m.name) for m in found if m.ispkg and not m.name.startswith("_")
    )


def _mechanism_calls() -> Iterator[tuple[str, Path, ast.Call]]:
    """``(folder, path, call)`` of every ``Mechanism(...)`` call in a folder's ``__init__.py`` (nothing imported)."""
    for folder, path in _folders():
        try:
            tree = ast.parse((path / "__init__.py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Mechanism":
                yield folder, path, node


def _literal_names(call: ast.Call) -> tuple[str, tuple[str, ...]] | None:
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    try:
        name = ast.literal_eval(kw["name"]) if "name" in kw else ast.literal_eval(call.args[0])
        aliases = tuple(ast.literal_eval(kw["aliases"])) if "aliases" in kw else ()
    except (ValueError, IndexError, KeyError, TypeError, SyntaxError):
        return None
    return (name, aliases) if isinstance(name, str) else None


@cache
def declared() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """``{folder: ((name, aliases), ...)}`` from each folder's literal ``Mechanism(name=..., aliases=...)``."""
    out: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {}
    for folder, _path, node in _mechanism_calls():
        got = _literal_names(node)
        if got:
            out[folder] = (*out.get(folder, ()), got)
    return out


_PAGE_FIELDS = ("name", "title", "page", "summary", "icon")


def declared_pages() -> list[dict[str, str]]:
    """``[{name, title, page, summary, icon}]`` (literal strings only) of every plug-in with a page, read without
    importing it, in the plug-ins' ``order`` (100 when absent), then folder name: the app's navigation."""
    out, order = [], {}
    for _folder, path, node in _mechanism_calls():
        entry, rank = {}, 100
        for k in node.keywords:
            if k.arg in _PAGE_FIELDS and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                entry[k.arg] = k.value.value
            elif k.arg == "order" and isinstance(k.value, ast.Constant) and type(k.value.value) is int:
                rank = k.value.value
        if entry.get("page"):
            entry["page"] = page_path(path, entry["page"])
            order[len(out)] = rank
            out.append(entry)
    return [out[i] for i in sorted(range(len(out)), key=order.__getitem__)]


_ROOT = Path(__file__).resolve().parent.parent


def page_path(folder: Path, page: str) -> str:
    """The page file of a plug-in: ``page`` as given (``pages/x.py``, from the repository root), or, when
    the file lies in the plug-in's own folder (``page="page.py"``), its path from the root (absolute
    when the folder is outside the repository), so a mechanism's page can live in its folder."""
    local = Path(folder) / page
    if not page or (_ROOT / page).is_file() or not local.is_file():
        return page
    local = local.resolve()
    return local.relative_to(_ROOT).as_posix() if local.is_relative_to(_ROOT) else local.as_posix()


def folder_of(name: str) -> str | None:
    """The folder declaring the mechanism spelled ``name`` (canonical, identifier form or alias)."""
    for folder, entries in declared().items():
        for canon, aliases in entries:
            if name in (canon, canon.replace("-", "_"), *aliases):
                return folder
    return None


@cache
def plugins() -> tuple[Mechanism, ...]:
    """Every registered mechanism, in folder order (imports the folders)."""
    out: list[Mechanism] = []
    seen: dict[str, str] = {}
    for folder, _ in _folders():
        module = importlib.import_module(f"{_pkg.__name__}.{folder}")
        found = list(getattr(module, "PLUGINS", ()))
        if hasattr(module, "PLUGIN"):
            found.insert(0, module.PLUGIN)
        for p in found:
            if not isinstance(p, Mechanism):
                raise TypeError(
                    f"{module.__name__}: PLUGIN(S) must be dp_core.plugin.Mechanism, got {type(p).__name__}."
                )
            object.__setattr__(p, "page", page_path(Path(module.__file__).parent, p.page))
            for s in p.spellings:
                if s in seen and seen[s] != p.name:
                    raise ValueError(f"mechanism name {s!r} is used by both {seen[s]!r} and {p.name!r}.")
                seen[s] = p.name
            out.append(p)
    return tuple(sorted(out, key=lambda p: p.order))


def get(name: str) -> Mechanism:
    """The mechanism spelled ``name`` (any spelling); ``ValueError`` naming the valid names."""
    for p in plugins():
        if name in p.spellings:
            return p
    raise ValueError(f"mechanism must be one of {[p.name for p in plugins()]}, got {name!r}.")


def canonical_name(name: str, *, on_alias: Callable[[str], None] | None = None, declared_only: bool = False) -> str:
    """The canonical name of the mechanism spelled ``name``; an old spelling calls ``on_alias`` with a deprecation
    note; ``declared_only``: from the declarations alone (no import)."""
    if declared_only:
        entries = [e for es in declared().values() for e in es]
    else:
        entries = [(p.name, p.aliases) for p in plugins()]
    for canon, aliases in entries:
        if name == canon:
            return canon
        if name in aliases or name == canon.replace("-", "_"):
            if on_alias is not None:
                on_alias(f"{name!r} is deprecated, use {canon!r}")
            return canon
    raise ValueError(f"mechanism must be one of {sorted(c for c, _ in entries)}, got {name!r}.")
