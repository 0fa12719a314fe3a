"""A module imported on its first attribute access: ``pandas`` costs 0.2–0.9 s to import, and commands that
never build a table (``calibrate``, ``glossary``) import the modules that build them (issue 29, start-up)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name`` and imports it when one of its attributes is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # copy and pickle probe for hooks before ``_name`` exists on a new copy
            raise AttributeError(attr)
        module = importlib.import_module(self._name)
        # later reads find the public names on this object: no second import look-up
        self.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
        return getattr(module, attr)

    def __reduce__(self) -> tuple:
        return (LazyModule, (self._name,))

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


pandas = LazyModule("pandas")
