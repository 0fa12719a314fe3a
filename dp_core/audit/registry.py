"""The mechanisms the audit knows, their modes, neighbouring pairs and options.

One :class:`AuditableMechanism` per mechanism (a folder's ``AUDIT`` in ``dp_core/mechanisms/<name>/audit.py``);
the CLI and the audit page are both built from :data:`MECHANISMS` (docs/audit.md §"The audit's registry").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._validation import check_choice, check_epsilon
from ..compare.registry import HookRegistry
from ..exceptions import InvalidPrivacyParameter
from ..plugin import ParamSpec
from .core import AuditTarget

__all__ = ["MECHANISMS", "AuditableMechanism", "Option", "make_target", "register"]


def Option(
    name: str, kind: type, default: Any, help: str, lo: float | None = None, hi: float | None = None
) -> ParamSpec:  # noqa: N802
    """A mechanism-specific numeric option of an audit (CLI ``--kebab-name``, page widget, URL key): a
    :class:`dp_core.plugin.ParamSpec`, so its default is checked against its range."""
    return ParamSpec(name, kind, default, lo, hi, label=help, help=help)


@dataclass(frozen=True)
class AuditableMechanism:
    """How to audit one mechanism: ``modes``/``pairs`` are ``{key: description}`` (the first is the default);
    ``build(*, mode, pair, epsilon, delta, dataset, pair_seed, **options) -> AuditTarget``. The other fields
    are described in ``docs/audit.md`` §"The audit's registry and table rows"."""

    name: str
    title: str
    modes: dict[str, str]
    pairs: dict[str, str]
    build: Callable[..., AuditTarget]
    options: tuple[ParamSpec, ...] = ()
    uses_delta: bool = True
    needs_data: tuple[str, ...] = ()
    default_runs: int = 100_000
    max_runs: int = 1_000_000
    page: str = ""
    summary: str = ""
    default_dataset: str = "census"
    extra: dict = field(default_factory=dict)


#: ``{name: AuditableMechanism}`` of every mechanism plug-in with an ``audit`` hook, filled on first use
#: (importing :mod:`dp_core.audit` imports no mechanism); :func:`register` adds one by hand.
MECHANISMS = HookRegistry("audit", lambda items, entry: items.setdefault(entry.name, entry))


def register(m: AuditableMechanism) -> None:
    """Add (or replace) a mechanism in :data:`MECHANISMS`."""
    MECHANISMS._items[m.name] = m


def make_target(
    mechanism: str,
    *,
    mode: str | None = None,
    pair: str | None = None,
    epsilon: float,
    delta: float,
    dataset=None,
    pair_seed: int = 0,
    **options,
) -> AuditTarget:
    """Build the :class:`AuditTarget` of ``mechanism`` in ``mode`` on ``pair`` (default: the first of each) at
    ``epsilon``/``delta``; ``dataset`` for pairs built from data, ``pair_seed`` for random pairs, ``options``
    the mechanism's own (docs/audit.md §"The audit's registry and table rows")."""
    check_choice("mechanism", mechanism, MECHANISMS)
    # exp(epsilon) appears in every test statistic; above 100 no number of runs could tell epsilons apart
    if check_epsilon(epsilon, allow_inf=False) > 100.0:
        raise InvalidPrivacyParameter(f"epsilon must be in (0, 100] for an audit, got {epsilon:g}.")
    m = MECHANISMS[mechanism]
    mode = next(iter(m.modes)) if mode is None else check_choice("mode", mode, m.modes)
    pair = next(iter(m.pairs)) if pair is None else check_choice("pair", pair, m.pairs)
    known = {o.name for o in m.options}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for mechanism {mechanism!r}; valid: {sorted(known)}.")
    if pair in m.needs_data and dataset is None:
        raise ValueError(f"pair {pair!r} of mechanism {mechanism!r} is built from data: pass a dataset.")
    return m.build(mode=mode, pair=pair, epsilon=epsilon, delta=delta, dataset=dataset, pair_seed=pair_seed, **options)
