"""Adapters: one per mechanism, giving the comparison a uniform view of each engine.

An adapter says which tasks a mechanism applies to, which *methods* (modes, variants) it
draws, how to run a cheap utility-vs-epsilon sweep through the mechanism's public functions,
its theoretical bound on the excess risk, its noise scales at one epsilon, and the status of
each method's guarantee:

* ``certified``: a proof covers the stated (epsilon, delta) (textbook mechanisms, corrected modes);
* ``claimed``: the paper claims it, but the proof has gaps or the constants are not explicit;
* ``refuted``: the specification shows the claim is false (a counterexample or a failed audit);
* ``none``: the method makes no privacy claim (shown for reference only).

Every sweep returns the same tidy table: one row per (method, epsilon, trial) with ``utility``
(test accuracy for classification, test R^2 for regression) and ``excess_risk`` (the increase of
the mechanism's *own* training objective over its non-private optimum, the quantity its bound
controls).
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

__all__ = [
    "STATUSES",
    "STATUS_LABELS",
    "MethodInfo",
    "CompareSpec",
    "Adapter",
    "BlockAdapter",
    "ADAPTERS",
    "register",
    "applicable_adapters",
    "utility_metric_name",
]

STATUSES = ("certified", "claimed", "refuted", "none")
STATUS_LABELS = {
    "certified": "certified (a proof covers it)",
    "claimed": "claimed only (as claimed by the paper; not certified)",
    "refuted": "refuted (the claim is false)",
    "none": "no privacy claim",
}


def utility_metric_name(task: str) -> str:
    """``accuracy`` for classification tasks, ``r2`` for regression."""
    return "r2" if task == "regression" else "accuracy"


@dataclass(frozen=True)
class MethodInfo:
    """One curve of the comparison.

    Attributes
    ----------
    key : str
        Unique method name (also its colour key in :data:`dp_core.figures.METHOD_COLORS`).
    label : str
        Legend label.
    status : str
        One of :data:`STATUSES`.
    statement : str
        One sentence: what is guaranteed (or why not), with the paper's name for it.
    pure : bool
        Pure epsilon-DP (delta = 0).
    label_dp : bool
        The guarantee protects labels only (features public).
    audit : str
        ``MECHANISM/MODE`` of :data:`dp_core.audit.MECHANISMS` that measures this claim ('' if none).
    """

    key: str
    label: str
    status: str
    statement: str
    pure: bool = False
    label_dp: bool = False
    audit: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}.")


@dataclass(frozen=True)
class CompareSpec:
    """The settings of one comparison (hashable; every field is a scalar or a tuple).

    Attributes
    ----------
    epsilons : tuple of float
        The epsilon grid, each in (0, inf).
    delta : float
        delta of the (epsilon, delta) mechanisms, in (0, 1).
    n_trials : int
        Trials per point (each adapter caps it at its ``trial_cap``).
    seed : int
        Root seed (also the train/test split seed).
    k, m, rho : int, int, float
        Label-DP bag parameters.
    test_fraction : float
        Held-out share.
    preprocess : str
        Row preprocessing of the feature-based mechanisms (:data:`dp_core.preprocessing.PREPROCESS_METHODS`).
    """

    epsilons: tuple[float, ...]
    delta: float
    n_trials: int
    seed: int
    k: int = 64
    m: int = 100
    rho: float = 0.1
    test_fraction: float = 0.2
    preprocess: str = "normalize"


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
        """Per-trial rows: ``adapter``, ``method``, ``epsilon``, ``trial``, ``utility``, ``excess_risk``."""

    def bounds(self, state: Any, epsilons: Sequence[float], spec: CompareSpec) -> pd.DataFrame:
        """Theoretical bounds on the excess risk: ``method``, ``epsilon``, ``bound``, ``label``."""
        return pd.DataFrame(columns=["method", "epsilon", "bound", "label"])

    def noise(self, state: Any, epsilon: float, spec: CompareSpec) -> list[dict]:
        """Noise scales at ``epsilon``: dicts with ``method``, ``quantity``, ``value``."""
        return []

    def bound_at(self, state: Any, method: str, *, epsilon: float, n: float, spec: CompareSpec) -> float:
        """The method's excess-risk bound for a dataset of ``n`` rows like this one (``nan``: none).

        Used to answer "how many rows are needed" (:func:`dp_core.negotiate.negotiate` with
        ``solve_for="n"``); the bound must not increase with ``n``.
        """
        return math.nan

    def nonprivate_utility(self, state: Any) -> float:
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
        """Per-trial rows (``method``, ``trial``, ``utility``, ``excess_risk``) at one epsilon point."""

    def sweep(self, state: Any, spec: CompareSpec, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        pts = self.points(state, spec)
        if not pts:
            return pd.DataFrame(columns=["adapter", "method", "epsilon", "trial", "utility", "excess_risk"])

        def block(point, seeds):
            return self.block(state, point, list(seeds), spec)

        df = run_sweep(block, pts, n_trials=self.n_trials(spec), seed=spec.seed, progress=progress)
        df["adapter"] = self.key
        return df


ADAPTERS: dict[str, Adapter] = {}


def register(adapter: Adapter) -> Adapter:
    """Add an adapter to :data:`ADAPTERS` (its ``key`` must be new or replace the same class)."""
    if not adapter.key:
        raise ValueError("an adapter needs a non-empty key.")
    ADAPTERS[adapter.key] = adapter
    return adapter


def applicable_adapters(task: str, keys: Sequence[str] | None = None) -> list[Adapter]:
    """The registered adapters that apply to ``task`` (restricted to ``keys`` if given, in that order).

    Raises ``ValueError`` naming the valid keys if ``keys`` holds an unknown one.
    """
    if keys is None:
        return [a for a in ADAPTERS.values() if a.applies_to(task)]
    unknown = [k for k in keys if k not in ADAPTERS]
    if unknown:
        raise ValueError(f"mechanisms must be among {sorted(ADAPTERS)}, got unknown {unknown}.")
    return [ADAPTERS[k] for k in keys if ADAPTERS[k].applies_to(task)]
