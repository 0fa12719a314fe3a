"""Compare every mechanism on one dataset; the shareable configuration of the explorer.

:mod:`.config` (:class:`ExplorerConfig`), :mod:`.registry` (the adapters, found in
``dp_core/mechanisms/<name>/compare.py``), :mod:`.engine` (:func:`run_compare`), :mod:`.budget`, :mod:`.figures`.
"""

from .config import (
    CONFIG_SCHEMA,
    ExplorerConfig,
    config_from_json,
    config_from_mapping,
    mechanism_param_specs,
    shared_defaults,
    shared_keys,
)
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
    "ExplorerConfig",
    "mechanism_param_specs",
    "shared_defaults",
    "shared_keys",
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


def __getattr__(name: str):
    # ``SHARED_KEYS`` / ``SHARED_DEFAULTS`` (name -> type / default of every shared setting, the
    # plug-ins' comparison parameters included): computed from the registry when first read
    if name == "SHARED_KEYS":
        return shared_keys()
    if name == "SHARED_DEFAULTS":
        return shared_defaults()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
