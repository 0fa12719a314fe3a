"""Adapters: one per mechanism, giving the comparison a uniform view of each engine.

An adapter gives the tasks, methods, a utility-vs-epsilon sweep (one tidy row per method, epsilon and
trial: ``utility``, ``excess_risk``, optional ``mae``), bounds, noise scales and each method's status
(:mod:`dp_core.status`). The contract is in ``docs/engine.md`` §"Comparison adapters".
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data import Dataset
from ..experiments import run_sweep
from ..plugin import STATUS_LABELS, STATUSES, MethodInfo

__all__ = [
    "STATUSES",
    "STATUS_LABELS",
    "MethodInfo",
    "CompareSpec",
    "Adapter",
    "BlockAdapter",
    "HookRegistry",
    "ADAPTERS",
    "register",
    "applicable_adapters",
    "adapter_key",
    "utility_metric_name",
]


#: the measured column of each target metric (:func:`dp_core.negotiate.metric_column`)
TARGET_COLUMNS = {"accuracy": "utility", "r2": "utility", "mae": "mae", "excess_risk": "excess_risk"}


def utility_metric_name(task: str) -> str:
    """``accuracy`` for classification tasks, ``r2`` for regression."""
    return "r2" if task == "regression" else "accuracy"


@dataclass(frozen=True)
class CompareSpec:
    """The settings of one comparison (hashable; every field is a scalar or a tuple); mechanism parameters are
    read as ``spec.param("k")`` or ``spec.k``. Fields: ``docs/engine.md`` §"Comparison adapters"."""

    epsilons: tuple[float, ...]
    delta: float
    n_trials: int
    seed: int
    params: tuple[tuple[str, Any], ...] = ()
    test_fraction: float = 0.2
    preprocess: str = "normalize"

    def param(self, name: str) -> Any:
        """The value of the mechanism parameter ``name`` (``KeyError`` naming the known ones)."""
        params = dict(self.__dict__.get("params", ()))  # not ``self.params``: none yet while unpickling
        if name not in params:
            raise KeyError(f"the comparison has no parameter {name!r}; known: {list(params)}.")
        return params[name]

    def __getattr__(self, name: str) -> Any:
        # ``spec.k``: a mechanism parameter read like a field (only called when no field matches)
        if not name.startswith("_") and name in dict(self.__dict__.get("params", ())):
            return self.param(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Adapter(ABC):
    """Base class of a mechanism adapter (see the module docstring). Subclasses set the class
    attributes and implement :meth:`prepare` and :meth:`sweep` (or derive from
    :class:`BlockAdapter` and implement :meth:`BlockAdapter.block`)."""

    key: str = ""
    title: str = ""
    page: str = ""
    tasks: tuple[str, ...] = ()
    methods: tuple[MethodInfo, ...] = ()
    trial_cap: int = 1000
    summary: str = ""

    # -- what subclasses provide -------------------------------------------------------------
    @abstractmethod
    def prepare(self, ds: Dataset, spec: CompareSpec) -> Any:
        """Fit-once state (non-private fits, prepared data). Raise ValueError if not applicable."""

    @abstractmethod
    def sweep(self, state: Any, spec: CompareSpec, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        """Per-trial rows: ``adapter``, ``method``, ``epsilon``, ``trial``, ``utility``, ``excess_risk`` and,
        for regression, ``mae`` (test mean absolute error in the label's units; optional column)."""

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        """Theoretical bounds on the excess risk: ``method``, ``epsilon``, ``bound``, ``label``."""
        return pd.DataFrame(columns=["method", "epsilon", "bound", "label"])

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        """Noise scales at ``epsilon``: dicts with ``method``, ``quantity``, ``value``."""
        return []

    def bound_at(self, state: Any, method: str, *, epsilon: float, n: float, spec: CompareSpec) -> float:
        """The method's excess-risk bound for ``n`` rows like this one (``nan``: none), non-increasing in ``n``."""
        return math.nan

    def nonprivate_utility(self, state: Any) -> float:
        return math.nan

    def nonprivate_mae(self, state: Any) -> float:
        """Test mean absolute error of the non-private fit in the label's units (``nan``: no MAE)."""
        return math.nan

    def notes(self, state: Any) -> tuple[str, ...]:
        return ()

    def leaks(self, state: Any) -> tuple[str, ...]:
        return ()

    def statuses(self, state: Any, spec: CompareSpec) -> list[MethodInfo]:
        """The methods with their guarantee status (may depend on the settings)."""
        return list(self.methods)

    def points(self, state: Any, spec: CompareSpec) -> list[dict]:
        """The sweep's parameter points (their count times the trials is the progress total)."""
        return [{"epsilon": float(e)} for e in spec.epsilons]

    # -- shared machinery --------------------------------------------------------------------
    def applies_to(self, task: str) -> bool:
        return task in self.tasks

    def n_trials(self, spec: CompareSpec) -> int:
        return max(1, min(int(spec.n_trials), int(self.trial_cap)))


class BlockAdapter(Adapter):
    """An adapter whose sweep is :func:`dp_core.experiments.run_sweep` over :meth:`points` of a
    per-point :meth:`block` (trial ``t`` gets the same seed at every epsilon)."""

    @abstractmethod
    def block(
        self, state: Any, point: Mapping[str, Any], seeds: Sequence[np.random.SeedSequence], spec: CompareSpec
    ) -> pd.DataFrame:
        """Per-trial rows (``method``, ``trial``, ``utility``, ``excess_risk``, optional ``mae``) at one
        epsilon point."""

    def sweep(self, state: Any, spec: CompareSpec, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        pts = self.points(state, spec)
        if not pts:
            return pd.DataFrame(columns=["adapter", "method", "epsilon", "trial", "utility", "excess_risk"])

        def block(point, seeds):
            return self.block(state, point, list(seeds), spec)

        df = run_sweep(block, pts, n_trials=self.n_trials(spec), seed=spec.seed, progress=progress)
        df["adapter"] = self.key
        return df


class HookRegistry(Mapping):
    """``{key: entry}`` of every mechanism plug-in with the hook ``hook`` (see :mod:`dp_core.registry`), filled on
    first use by importing the plug-ins' parts, so importing the package that holds it imports no mechanism.
    ``add(items, entry)`` records a loaded part (``None``: the part registers itself, as an adapter does through
    :func:`register`); :data:`ADAPTERS` and :data:`dp_core.audit.MECHANISMS` are the two."""

    def __init__(self, hook: str, add: Callable[[dict, Any], Any] | None = None) -> None:
        self._hook = hook
        self._add = add
        self._items: dict[str, Any] = {}
        self._loaded = False

    def _load(self) -> dict[str, Any]:
        if not self._loaded:
            self._loaded = True
            from ..registry import plugins

            for plugin in plugins():
                if plugin.has(self._hook):
                    entry = plugin.load(self._hook)
                    if self._add is not None:
                        self._add(self._items, entry)
        return self._items

    def reload(self) -> None:
        """Look at the registry again (after a plug-in folder was added)."""
        self._loaded = False

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


ADAPTERS = HookRegistry("compare")


def register(adapter: Adapter) -> Adapter:
    """Add an adapter to :data:`ADAPTERS` (its ``key`` must be new or replace the same class)."""
    if not adapter.key:
        raise ValueError("an adapter needs a non-empty key.")
    ADAPTERS._items[adapter.key] = adapter
    return adapter


def applicable_adapters(task: str, keys: Sequence[str] | None = None) -> list[Adapter]:
    """The registered adapters that apply to ``task`` (restricted to ``keys``, any spelling of a mechanism, if
    given, in that order); ``ValueError`` naming the valid keys if one is unknown."""
    if keys is None:
        return [a for a in ADAPTERS.values() if a.applies_to(task)]
    keys = [adapter_key(k) for k in keys]
    unknown = [k for k in keys if k not in ADAPTERS]
    if unknown:
        raise ValueError(f"mechanisms must be among {sorted(ADAPTERS)}, got unknown {unknown}.")
    return [ADAPTERS[k] for k in keys if ADAPTERS[k].applies_to(task)]


def adapter_key(name: str) -> str:
    """The adapter key of a mechanism spelled any way (unknown names are returned unchanged)."""
    if name in ADAPTERS:
        return name
    from ..registry import get

    try:
        return get(name).key
    except ValueError:
        return name
