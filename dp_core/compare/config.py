"""The shareable configuration of the explorer: every shared setting plus one page's settings.

One object carried by a link, a JSON download and a report, validated on every read
(:func:`config_from_json`); ``docs/compare.md`` §"The shareable configuration".
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from .._validation import check_choice, check_delta, check_epsilon, check_int

__all__ = [
    "CONFIG_SCHEMA",
    "ExplorerConfig",
    "mechanism_param_specs",
    "shared_defaults",
    "shared_keys",
    "config_from_json",
    "config_from_mapping",
    "decode_config_json",
]

#: Identifies the file format; bump it when a key changes meaning.
CONFIG_SCHEMA = "dp-explorer-config/1"

#: The settings every page reads that belong to no mechanism: name -> (type, default). The mechanisms'
#: shared comparison parameters (label-DP's ``k``, ``m``, ``rho``) come from their plug-ins.
_BASE_BEFORE: dict[str, tuple[type, Any]] = {
    "eps": (float, 1.0),
    "delta": (float, 1e-5),
    "seed": (int, 0),
    "trials": (int, 100),
}
_BASE_AFTER: dict[str, tuple[type, Any]] = {
    "dataset": (str, "census"),
    "preprocess": (str, "normalize"),
    "bounds": (str, ""),
}
_BASE = {**_BASE_BEFORE, **_BASE_AFTER}


def mechanism_param_specs() -> dict[str, Any]:
    """``{name: ParamSpec}`` of the plug-ins' shared comparison parameters (``Mechanism.compare_params``).

    These are part of every configuration (top-level keys of the JSON, attributes of
    :class:`ExplorerConfig`), so a new mechanism with shared parameters needs no edit of this module.
    """
    from .engine import compare_param_specs

    return compare_param_specs(reserved=_BASE)


def _shared(column: int) -> dict[str, Any]:
    mech = {name: (spec.kind, spec.default)[column] for name, spec in mechanism_param_specs().items()}
    return {**{k: v[column] for k, v in _BASE_BEFORE.items()}, **mech, **{k: v[column] for k, v in _BASE_AFTER.items()}}


def shared_keys() -> dict[str, type]:
    """The shared parameters every page reads (mirrors ``ui.constants.SHARED_PARAMS``): name -> type."""
    return _shared(0)


def shared_defaults() -> dict[str, Any]:
    """Their defaults (the same as the app's)."""
    return _shared(1)


def __getattr__(name: str) -> Any:
    # SHARED_KEYS and SHARED_DEFAULTS (not in __all__): computed from the registry when first read (PEP 562)
    if name == "SHARED_KEYS":
        return shared_keys()
    if name == "SHARED_DEFAULTS":
        return shared_defaults()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SCALARS = (str, int, float, bool)


def _coerce(name: str, kind: type, raw: Any) -> Any:
    """Convert a JSON or URL value to ``kind``; ``TypeError`` naming the key otherwise."""
    if kind is str:
        if not isinstance(raw, str):
            raise TypeError(f"{name} must be a string, got {raw!r} of type {type(raw).__name__}.")
        return raw
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("1", "true", "0", "false"):
            return raw.strip().lower() in ("1", "true")
        raise TypeError(f"{name} must be true or false, got {raw!r}.")
    if isinstance(raw, bool):
        raise TypeError(f"{name} must be a number, got {raw!r}.")
    if isinstance(raw, str):
        try:
            raw = float(raw)
        except ValueError:
            raise TypeError(f"{name} must be a number, got {raw!r}.") from None
    if not isinstance(raw, (int, float)):
        raise TypeError(f"{name} must be a number, got {raw!r} of type {type(raw).__name__}.")
    if kind is int:
        if isinstance(raw, float) and not raw.is_integer():
            raise TypeError(f"{name} must be an integer, got {raw!r}.")
        return int(raw)
    return float(raw)


def _check_shared(values: Mapping[str, Any]) -> dict[str, Any]:
    kinds, defaults, mech = shared_keys(), shared_defaults(), mechanism_param_specs()
    out = {}
    for name, kind in kinds.items():
        out[name] = _coerce(name, kind, values.get(name, defaults[name]))
    check_epsilon(out["eps"], allow_inf=False, name="eps")
    check_delta(out["delta"], allow_zero=True, name="delta")
    check_int("seed", out["seed"], lo=0, hi=2**32 - 1)
    check_int("trials", out["trials"], lo=1, hi=100_000)
    for name, spec in mech.items():  # each plug-in validates its own (e.g. k >= 1, rho in [0, 1])
        out[name] = spec.validate(out[name])
    if not out["dataset"]:
        raise ValueError("dataset must be a dataset name, got ''.")
    from ..preprocessing import PREPROCESS_METHODS

    check_choice("preprocess", out["preprocess"], PREPROCESS_METHODS)
    if out["bounds"]:
        from ..preprocessing import parse_bounds

        parse_bounds(out["bounds"])  # the text form; the column count is checked against the data later
    return out


def _check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be an object of page settings, got {type(params).__name__}.")
    shared = shared_keys()
    out = {}
    for key, value in params.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"params keys must be non-empty strings, got {key!r}.")
        if key in shared:
            raise ValueError(f"params must not repeat the shared setting {key!r}; put it at the top level.")
        if not isinstance(value, _SCALARS):
            raise TypeError(f"params[{key!r}] must be a string, number or boolean, got {type(value).__name__}.")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"params[{key!r}] must be finite, got {value!r}.")
        out[key] = value
    return out


class ExplorerConfig:
    """Everything needed to reopen a view of the app or re-run its numbers (immutable).

    Fields (``eps``, ``delta``, ``seed``, ``trials``, the plug-ins' ``mechanism_params`` passed and read as
    keywords/attributes, ``dataset``, ``preprocess``, ``bounds``, ``page``, ``params``, ``dataset_fingerprint``)
    and their ranges: ``docs/compare.md`` §"ExplorerConfig fields".
    """

    __slots__ = ("_shared", "page", "params", "dataset_fingerprint")

    def __init__(
        self,
        *,
        page: str = "",
        params: Mapping[str, Any] | None = None,
        dataset_fingerprint: str = "",
        mechanism_params: Mapping[str, Any] | None = None,
        **shared: Any,
    ) -> None:
        kinds = shared_keys()
        unknown = sorted(set(shared) - set(kinds))
        if unknown:
            raise TypeError(f"unknown configuration setting(s) {unknown}; valid: {list(kinds)}.")
        values = {**dict(mechanism_params or {}), **shared}
        object.__setattr__(self, "_shared", _check_shared(values))
        if not isinstance(page, str):
            raise TypeError(f"page must be a string, got {type(page).__name__}.")
        if not isinstance(dataset_fingerprint, str):
            raise TypeError(f"dataset_fingerprint must be a string, got {type(dataset_fingerprint).__name__}.")
        object.__setattr__(self, "page", page)
        object.__setattr__(self, "params", dict(sorted(_check_params(params or {}).items())))
        object.__setattr__(self, "dataset_fingerprint", dataset_fingerprint)

    def __getattr__(self, name: str) -> Any:
        # ``cfg.eps``, ``cfg.k``: the shared settings read like fields (only called when no slot matches)
        if not name.startswith("_"):
            try:
                return object.__getattribute__(self, "_shared")[name]
            except (AttributeError, KeyError):
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ExplorerConfig is immutable; use .replace({name}=...)")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExplorerConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # params is a dict

    def __reduce__(self) -> tuple:
        # pickling and copying go through the validated JSON form (the slots are read-only)
        return (config_from_mapping, (self.to_dict(),))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "schema")
        return f"ExplorerConfig({inner})"

    # -- views -------------------------------------------------------------------------------
    @property
    def shared(self) -> dict[str, Any]:
        """The shared settings as a dict (name -> value)."""
        return dict(self._shared)

    @property
    def mechanism_params(self) -> dict[str, Any]:
        """The mechanisms' shared comparison parameters (``{"k": 64, "m": 100, "rho": 0.1}`` today)."""
        return {k: self._shared[k] for k in mechanism_param_specs()}

    def param(self, name: str, default: Any = None) -> Any:
        """A page setting, or ``default``."""
        return self.params.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": CONFIG_SCHEMA,
            **self.shared,
            "page": self.page,
            "params": dict(self.params),
            "dataset_fingerprint": self.dataset_fingerprint,
        }

    def to_json(self) -> str:
        """The JSON configuration (stable key order; round-trips through :func:`config_from_json`)."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def to_query(self) -> dict[str, str]:
        """URL query parameters: the shared settings and the page settings (as text)."""
        out: dict[str, str] = {}
        for k, v in {**self.shared, **self.params}.items():
            if k == "bounds" and not v:
                continue  # no declared bounds: nothing to carry
            if isinstance(v, bool):
                out[k] = "1" if v else "0"
            elif isinstance(v, float):
                out[k] = repr(v)
            else:
                out[k] = str(v)
        return out

    def link(self, base_url: str = "") -> str:
        """A link that reopens this view: ``base_url/<page>?<query>``."""
        path = self.page.removeprefix("pages/").removesuffix(".py")
        return f"{base_url.rstrip('/')}/{path}?{urlencode(self.to_query())}"

    def replace(self, **changes: Any) -> ExplorerConfig:
        values = self.to_dict()
        del values["schema"]
        return ExplorerConfig(**{**values, **changes})

    @classmethod
    def from_query(cls, query: Mapping[str, str], *, page: str = "") -> ExplorerConfig:
        """Read a link's query string: shared keys at the top level, every other key a page setting."""
        keys = shared_keys()
        shared = {k: query[k] for k in keys if k in query}
        params = {k: v for k, v in query.items() if k not in keys}
        return config_from_mapping({**shared, "page": page, "params": params})


def config_from_mapping(data: Mapping[str, Any]) -> ExplorerConfig:
    """Validate a decoded configuration (unknown top-level keys are rejected by name)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"the configuration must be a JSON object, got {type(data).__name__}.")
    schema = data.get("schema", CONFIG_SCHEMA)
    if schema != CONFIG_SCHEMA:
        raise ValueError(f"schema must be {CONFIG_SCHEMA!r}, got {schema!r}.")
    # ``decisions``: the negotiation's log, read by dp_core.export (the brief); the view itself ignores it
    known = set(shared_keys()) | {"schema", "page", "params", "dataset_fingerprint", "decisions"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown configuration key(s) {unknown}; valid keys: {sorted(known)}.")
    shared = _check_shared(data)
    return ExplorerConfig(
        **shared,
        page=data.get("page", ""),
        params=data.get("params", {}) or {},
        dataset_fingerprint=data.get("dataset_fingerprint", ""),
    )


def config_from_json(text: str | bytes) -> ExplorerConfig:
    """Parse and validate a JSON configuration (as written by :meth:`ExplorerConfig.to_json`).

    >>> cfg = ExplorerConfig(eps=2.0, page="pages/compare.py", params={"metric": "utility"})
    >>> config_from_json(cfg.to_json()) == cfg
    True
    """
    return config_from_mapping(decode_config_json(text))


def decode_config_json(text: str | bytes) -> Any:
    """The decoded JSON of a configuration file; ``ValueError`` for text that is not UTF-8 or not JSON."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the configuration file must be UTF-8 JSON text.") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the configuration is not valid JSON: {exc.msg} (line {exc.lineno}).") from None
