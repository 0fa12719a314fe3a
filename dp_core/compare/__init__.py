"""Compare every mechanism on one dataset; the shareable configuration of the explorer.

* :mod:`.config` — :class:`ExplorerConfig`, the JSON configuration / URL of a view.
* :mod:`.registry` — the adapter interface and registry (:data:`ADAPTERS`).
* :mod:`.adapters` — one adapter per mechanism (importing it registers them).
* :mod:`.baselines` — output perturbation of a ridge / logistic fit (textbook baseline).
* :mod:`.engine` — :func:`run_compare`, :class:`CompareResult`.
* :mod:`.budget` — the privacy budget card.
* :mod:`.figures` — the comparison figures.
"""

from . import adapters  # noqa: F401  (registers the adapters)
from .config import CONFIG_SCHEMA, SHARED_DEFAULTS, SHARED_KEYS, ExplorerConfig, config_from_json, config_from_mapping
from .engine import CompareResult, default_epsilons, make_spec, run_compare, utility_at
from .registry import ADAPTERS, STATUS_LABELS, STATUSES, Adapter, CompareSpec, MethodInfo, applicable_adapters

__all__ = [
    "CONFIG_SCHEMA",
    "SHARED_DEFAULTS",
    "SHARED_KEYS",
    "ExplorerConfig",
    "config_from_json",
    "config_from_mapping",
    "CompareResult",
    "default_epsilons",
    "make_spec",
    "run_compare",
    "utility_at",
    "ADAPTERS",
    "STATUS_LABELS",
    "STATUSES",
    "Adapter",
    "CompareSpec",
    "MethodInfo",
    "applicable_adapters",
]
