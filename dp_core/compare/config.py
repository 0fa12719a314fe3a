"""The shareable configuration of the explorer: every shared setting plus one page's settings.

A configuration is what a link, a JSON download and a report all carry: the privacy budget
``(eps, delta)``, the Monte-Carlo ``seed`` and ``trials``, the label-DP bag parameters
``(k, m, rho)``, the dataset's *name* (never its data; a fingerprint identifies it), the page
that was open and that page's own URL parameters. :func:`config_from_json` validates everything
it reads, so an edited or foreign file is rejected with a message naming the bad key.

The same object serialises three ways: :meth:`ExplorerConfig.to_json` (the download, and the
input of ``python -m dp_core report --config``), :meth:`ExplorerConfig.to_query` (the URL query
string of a "copy link") and :meth:`ExplorerConfig.from_query` (reading a link back).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from .._validation import check_choice, check_delta, check_epsilon, check_in_interval, check_int

__all__ = [
    "CONFIG_SCHEMA",
    "SHARED_KEYS",
    "SHARED_DEFAULTS",
    "ExplorerConfig",
    "config_from_json",
    "config_from_mapping",
]

#: Identifies the file format; bump it when a key changes meaning.
CONFIG_SCHEMA = "dp-explorer-config/1"

#: The shared parameters every page reads (mirrors ``ui.constants.SHARED_PARAMS``): name -> type.
SHARED_KEYS: dict[str, type] = {
    "eps": float,
    "delta": float,
    "seed": int,
    "trials": int,
    "k": int,
    "m": int,
    "rho": float,
    "dataset": str,
    "preprocess": str,
}

#: Their defaults (the same as the app's).
SHARED_DEFAULTS: dict[str, Any] = {
    "eps": 1.0,
    "delta": 1e-5,
    "seed": 0,
    "trials": 100,
    "k": 64,
    "m": 100,
    "rho": 0.1,
    "dataset": "census",
    "preprocess": "normalize",
}

_SCALARS = (str, int, float, bool)


def _coerce(name: str, kind: type, raw: Any) -> Any:
    """Convert a JSON or URL value to ``kind``; ``TypeError`` naming the key otherwise."""
    if kind is str:
        if not isinstance(raw, str):
            raise TypeError(f"{name} must be a string, got {raw!r} of type {type(raw).__name__}.")
        return raw
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
    out = {}
    for name, kind in SHARED_KEYS.items():
        out[name] = _coerce(name, kind, values.get(name, SHARED_DEFAULTS[name]))
    check_epsilon(out["eps"], allow_inf=False, name="eps")
    check_delta(out["delta"], allow_zero=True, name="delta")
    check_int("seed", out["seed"], lo=0, hi=2**32 - 1)
    check_int("trials", out["trials"], lo=1, hi=100_000)
    check_int("k", out["k"], lo=1)
    check_int("m", out["m"], lo=1)
    check_in_interval("rho", out["rho"], 0.0, 1.0, closed="both")
    if not out["dataset"]:
        raise ValueError("dataset must be a dataset name, got ''.")
    from ..preprocessing import PREPROCESS_METHODS

    check_choice("preprocess", out["preprocess"], PREPROCESS_METHODS)
    return out


def _check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be an object of page settings, got {type(params).__name__}.")
    out = {}
    for key, value in params.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"params keys must be non-empty strings, got {key!r}.")
        if key in SHARED_KEYS:
            raise ValueError(f"params must not repeat the shared setting {key!r}; put it at the top level.")
        if not isinstance(value, _SCALARS):
            raise TypeError(f"params[{key!r}] must be a string, number or boolean, got {type(value).__name__}.")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"params[{key!r}] must be finite, got {value!r}.")
        out[key] = value
    return out


@dataclass(frozen=True)
class ExplorerConfig:
    """Everything needed to reopen a view of the app or re-run its numbers.

    Attributes
    ----------
    eps, delta : float
        The privacy budget. ``eps`` must be in (0, inf), ``delta`` in [0, 1).
    seed, trials : int
        Root seed (>= 0) and Monte-Carlo trials per point (1 to 100 000).
    k, m : int
        Bag size and number of bags of the label-DP mechanisms (>= 1).
    rho : float
        Share of noisy labels of noisy-wtd-LLP, in [0, 1].
    dataset : str
        The dataset's name (a demo name, or ``upload:<file>`` for an upload, which a report can
        identify by fingerprint but not reload).
    preprocess : str
        Row preprocessing rule of :mod:`dp_core.preprocessing` (``"normalize"`` by default).
    page : str
        The page that was open, e.g. ``"pages/compare.py"`` ('' for none).
    params : dict
        That page's own settings (its URL parameters), scalar values only.
    dataset_fingerprint : str
        SHA-256 of the data ('' when unknown); a report re-run checks it.
    """

    eps: float = SHARED_DEFAULTS["eps"]
    delta: float = SHARED_DEFAULTS["delta"]
    seed: int = SHARED_DEFAULTS["seed"]
    trials: int = SHARED_DEFAULTS["trials"]
    k: int = SHARED_DEFAULTS["k"]
    m: int = SHARED_DEFAULTS["m"]
    rho: float = SHARED_DEFAULTS["rho"]
    dataset: str = SHARED_DEFAULTS["dataset"]
    preprocess: str = SHARED_DEFAULTS["preprocess"]
    page: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    dataset_fingerprint: str = ""

    def __post_init__(self) -> None:
        shared = _check_shared({k: getattr(self, k) for k in SHARED_KEYS})
        for k, v in shared.items():
            object.__setattr__(self, k, v)
        if not isinstance(self.page, str):
            raise TypeError(f"page must be a string, got {type(self.page).__name__}.")
        if not isinstance(self.dataset_fingerprint, str):
            raise TypeError(f"dataset_fingerprint must be a string, got {type(self.dataset_fingerprint).__name__}.")
        object.__setattr__(self, "params", dict(sorted(_check_params(self.params).items())))

    # -- views -------------------------------------------------------------------------------
    @property
    def shared(self) -> dict[str, Any]:
        """The shared settings as a dict (name -> value)."""
        return {k: getattr(self, k) for k in SHARED_KEYS}

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
            if isinstance(v, bool):
                out[k] = "1" if v else "0"
            elif isinstance(v, float):
                out[k] = repr(v)
            else:
                out[k] = str(v)
        return out

    def link(self, base_url: str = "") -> str:
        """A link that reopens this view: ``base_url/<page>?<query>``."""
        path = self.page[len("pages/") :] if self.page.startswith("pages/") else self.page
        path = path[:-3] if path.endswith(".py") else path
        base = base_url.rstrip("/")
        return f"{base}/{path}?{urlencode(self.to_query())}" if path else f"{base}/?{urlencode(self.to_query())}"

    def replace(self, **changes: Any) -> ExplorerConfig:
        values = {
            **self.shared,
            "page": self.page,
            "params": dict(self.params),
            "dataset_fingerprint": self.dataset_fingerprint,
        }
        values.update(changes)
        return ExplorerConfig(**values)

    @classmethod
    def from_query(cls, query: Mapping[str, str], *, page: str = "") -> ExplorerConfig:
        """Read a link's query string: shared keys at the top level, every other key a page setting."""
        shared = {k: query[k] for k in SHARED_KEYS if k in query}
        params = {k: v for k, v in query.items() if k not in SHARED_KEYS}
        return config_from_mapping({**shared, "page": page, "params": params})


def config_from_mapping(data: Mapping[str, Any]) -> ExplorerConfig:
    """Validate a decoded configuration (unknown top-level keys are rejected by name)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"the configuration must be a JSON object, got {type(data).__name__}.")
    schema = data.get("schema", CONFIG_SCHEMA)
    if schema != CONFIG_SCHEMA:
        raise ValueError(f"schema must be {CONFIG_SCHEMA!r}, got {schema!r}.")
    known = set(SHARED_KEYS) | {"schema", "page", "params", "dataset_fingerprint"}
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
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the configuration file must be UTF-8 JSON text.") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the configuration is not valid JSON: {exc.msg} (line {exc.lineno}).") from None
    return config_from_mapping(data)
