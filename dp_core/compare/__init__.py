"""Compare every mechanism on one dataset; the shareable configuration of the explorer.

* :mod:`.config` — :class:`ExplorerConfig`, the JSON configuration / URL of a view.
* :mod:`.registry` — the adapter interface and registry (:data:`ADAPTERS`).
* the adapters live in the mechanism folders (``dp_core/mechanisms/<name>/compare.py``) and are
  found through :mod:`dp_core.registry` on first use of :data:`ADAPTERS`.
* :mod:`.engine` — :func:`run_compare`, :class:`CompareResult`.
* :mod:`.budget` — the privacy budget card.
* :mod:`.figures` — the comparison figures.
"""

from .config import CONFIG_SCHEMA, SHARED_DEFAULTS, SHARED_KEYS, ExplorerConfig, config_from_json, config_from_mapping
from .engine import (
    CompareResult,
    combine_results,
    compare_param_specs,
    default_epsilons,
    make_spec,
    run_compare,
    utility_at,
)
from .registry import ADAPTERS, STATUS_LABELS, STATUSES, Adapter, CompareSpec, MethodInfo, applicable_adapters

__all__ = [
    "CONFIG_SCHEMA",
    "SHARED_DEFAULTS",
    "SHARED_KEYS",
    "ExplorerConfig",
    "config_from_json",
    "config_from_mapping",
    "CompareResult",
    "compare_param_specs",
    "default_epsilons",
    "make_spec",
    "run_compare",
    "combine_results",
    "utility_at",
    "ADAPTERS",
    "STATUS_LABELS",
    "STATUSES",
    "Adapter",
    "CompareSpec",
    "MethodInfo",
    "applicable_adapters",
]
