"""Shipped results of deterministic comparison runs on the demo datasets at default settings.

A key or hash that does not match returns ``None`` and the caller computes; nothing here is a release.
``docs/performance.md`` §"Precomputed demo results (`dp_core/precomputed.py`)".
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import fnmatch
import functools
import hashlib
import json
import lzma
import math
import os
import platform
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_DISABLE",
    "STORE_DIR",
    "UNHASHED",
    "Entry",
    "check",
    "clear_cache",
    "disabled",
    "enabled",
    "engine_hash",
    "code_hash",
    "library_versions",
    "stale_by_libraries_only",
    "entry_key",
    "lookup",
    "memo",
    "recording",
    "remember",
    "write_store",
    "store_folder",
]

#: Folder of the shipped files (one ``<dataset>.json.xz`` per demo dataset).
STORE_DIR = Path(__file__).resolve().parent / "precomputed_data"
#: Environment variable that switches the store off when set to anything but ``""``/``0``.
ENV_DISABLE = "DP_CORE_NO_PRECOMPUTED"
#: Format version of the files (part of the engine hash).
FORMAT = 1
_ROOT = Path(__file__).resolve().parent
#: Sources of dp_core left out of :func:`engine_hash`: they format, explain, plot or parse, and never
#: change a number of a comparison. Everything else under dp_core counts (better too much than too little).
UNHASHED = (
    "cli/",
    "audit/",
    "captions.py",
    "display.py",
    "explain.py",
    "figures.py",
    "glossary.py",
    "report.py",
    "reproduction_claims.py",
    "text.py",
    "tour.py",
    "compare/figures.py",
    "export/",
    # a mechanism folder's page plan, first screen, commands and catalog: no comparison imports them
    "mechanisms/*/plan.py",
    "mechanisms/*/screen.py",
    "mechanisms/*/cli.py",
    "mechanisms/*/release.py",
    "mechanisms/*/catalog.py",
)
#: Libraries whose version can change a number (random streams, solvers, linear algebra).
_LIBRARIES = ("numpy", "scipy", "pandas", "cvxpy", "clarabel", "scs", "osqp", "highspy")

_enabled_var: contextvars.ContextVar[bool] = contextvars.ContextVar("dp_core_precomputed", default=True)
_recorder: contextvars.ContextVar[dict | None] = contextvars.ContextVar("dp_core_precomputed_rec", default=None)
_folder_var: contextvars.ContextVar[Path | None] = contextvars.ContextVar("dp_core_precomputed_dir", default=None)


# ------------------------------------------------------------------------------------------ switches
def enabled() -> bool:
    """Whether lookups may answer (not switched off by :func:`disabled` or ``DP_CORE_NO_PRECOMPUTED``)."""
    if os.environ.get(ENV_DISABLE, "").strip() not in ("", "0"):
        return False
    return _enabled_var.get()


@contextlib.contextmanager
def _setting(var: contextvars.ContextVar, value: Any) -> Iterator[Any]:
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


def disabled() -> contextlib.AbstractContextManager[None]:
    """Compute everything inside this block (the store is not read)."""
    return _setting(_enabled_var, False)


def store_folder(folder: str | Path) -> contextlib.AbstractContextManager[Path]:
    """Read the store from ``folder`` instead of :data:`STORE_DIR` inside this block (tests, trials)."""
    return _setting(_folder_var, Path(folder))


def recording() -> contextlib.AbstractContextManager[dict]:
    """Collect ``{key: (dataset name, Entry)}`` of every mechanism part computed inside this block."""
    return _setting(_recorder, {})


# ------------------------------------------------------------------------------------------ hashing
def _hashed_files() -> list[Path]:
    out = []
    for p in sorted([*_ROOT.rglob("*.py"), _ROOT / "datasets.json"]):  # the demo data's catalogue and bounds
        rel = p.relative_to(_ROOT).as_posix()
        if any(fnmatch.fnmatchcase(rel, u) or (u.endswith("/") and rel.startswith(u)) for u in UNHASHED):
            continue
        out.append(p)
    return out


@functools.cache
def library_versions() -> dict[str, str]:
    """The installed versions of the libraries in :data:`_LIBRARIES` (``"absent"`` when not installed)."""
    from importlib import metadata

    out = {}
    for lib in _LIBRARIES:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = "absent"
    return out


@functools.cache
def code_hash() -> str:
    """SHA-256 (hex, 16 characters) of the engine sources alone (:func:`engine_hash` without the libraries)."""
    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    h.update(f"machine {platform.machine()}\n".encode())
    for p in _hashed_files():
        h.update(p.relative_to(_ROOT).as_posix().encode() + b"\0")
        h.update(p.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


def engine_hash() -> str:
    """SHA-256 (hex, 16 characters) of the engine sources and library versions the stored numbers depend on."""
    h = hashlib.sha256(f"code {code_hash()}\n".encode())
    for lib, v in library_versions().items():
        h.update(f"{lib} {v}\n".encode())
    return h.hexdigest()[:16]


def stale_by_libraries_only(datasets: Sequence[str] | None = None, *, folder: Path | None = None) -> dict:
    """Files written by this very engine code under other library versions: ``{dataset: {lib: (stored,
    installed)}}``. Such a file is unused (a lookup needs :func:`engine_hash` to match) until it is
    regenerated; a new numpy or solver release on the machine causes it, not a change of this code."""
    out = {}
    now = library_versions()
    for name, _file, obj in _stored(datasets, folder):
        if obj is None or obj.get("code_hash") != code_hash():
            continue
        stored = obj.get("libraries") or {}
        diff = {k: (stored.get(k, "?"), v) for k, v in now.items() if stored.get(k) != v}
        if diff:
            out[name] = diff
    return out


def _bounds_text(ds) -> str:
    from .data import public_bounds

    try:
        return repr(public_bounds(ds))
    except (TypeError, ValueError):
        return ""


def _spec_dict(spec) -> dict:
    return json.loads(json.dumps(dataclasses.asdict(spec), default=str))


def entry_key(ds, adapter_key: str, spec) -> str:
    """The canonical key (SHA-256 hex, 24 characters) of one mechanism's part of a comparison."""
    payload = {
        "dataset": ds.name,
        "fingerprint": ds.fingerprint,
        "task": ds.task,
        "shape": [int(ds.n), int(ds.d)],
        "public_bounds": _bounds_text(ds),
        "adapter": str(adapter_key),
        "spec": _spec_dict(spec),
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


# ------------------------------------------------------------------------------------------ entries
@dataclass(frozen=True, eq=False)
class Entry:
    """One mechanism's part of a comparison, as :func:`dp_core.compare.run_compare` computes it (``skipped``:
    the reason it could not run, ``phase`` where; else ``trials``, ``bounds``, ``total`` blocks, ...).
    """

    skipped: str | None = None
    phase: str = ""
    trials: Any = field(default=None, repr=False)
    bounds: Any = field(default=None, repr=False)
    total: int = 0
    nonprivate: float = math.nan
    #: the non-private test MAE (regression; NaN otherwise or when the mechanism measures none)
    nonprivate_mae: float = math.nan
    notes: tuple = ()
    leaks: tuple = ()
    methods: list = field(default_factory=list)
    #: results of deterministic follow-up calls on this part (see :func:`memo`), by canonical call text
    extras: dict = field(default_factory=dict)


def _encode_value(v: Any) -> Any:
    import numpy as np

    if isinstance(v, tuple):
        return {"__tuple__": [_encode_value(x) for x in v]}
    if isinstance(v, list):
        return [_encode_value(x) for x in v]
    if isinstance(v, dict):
        return {"__dict__": [[_encode_value(k), _encode_value(x)] for k, x in v.items()]}
    for numpy_type, python_type in ((np.bool_, bool), (np.integer, int), (np.floating, float)):
        if isinstance(v, numpy_type):
            return python_type(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"cannot store a value of type {type(v).__name__} in the precomputed store.")


def _decode_value(v: Any) -> Any:
    if isinstance(v, list):
        return [_decode_value(x) for x in v]
    if isinstance(v, dict):
        if "__tuple__" in v:
            return tuple(_decode_value(x) for x in v["__tuple__"])
        if "__dict__" in v:
            return {_decode_value(k): _decode_value(x) for k, x in v["__dict__"]}
    return v


def _encode_frame(df) -> dict | None:
    if df is None:
        return None
    import pandas as pd

    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    cols = [str(c) for c in df.columns]
    dtypes = [str(t) for t in df.dtypes]
    data = [[_encode_value(x) for x in df[c].tolist()] for c in df.columns]
    return {"columns": cols, "dtypes": dtypes, "data": data, "rows": len(df)}


def _decode_frame(obj: dict | None):
    if obj is None:
        return None
    import pandas as pd

    series = {c: pd.Series(vals, dtype=dt) for c, dt, vals in zip(obj["columns"], obj["dtypes"], obj["data"])}
    return pd.DataFrame(series, columns=obj["columns"], index=pd.RangeIndex(obj["rows"]))


def _encode_entry(e: Entry) -> dict:
    return {
        "skipped": e.skipped,
        "phase": e.phase,
        "trials": _encode_frame(e.trials),
        "bounds": _encode_frame(e.bounds),
        "total": int(e.total),
        "nonprivate": _encode_value(e.nonprivate),
        "nonprivate_mae": _encode_value(e.nonprivate_mae),
        "notes": _encode_value(tuple(e.notes)),
        "leaks": _encode_value(tuple(e.leaks)),
        "methods": _encode_value(list(e.methods)),
        "extras": {k: _encode_value(v) for k, v in sorted(e.extras.items())},
    }


def _decode_entry(d: dict) -> Entry:
    return Entry(
        skipped=d["skipped"],
        phase=d["phase"],
        trials=_decode_frame(d["trials"]),
        bounds=_decode_frame(d["bounds"]),
        total=int(d["total"]),
        nonprivate=d["nonprivate"],
        nonprivate_mae=d.get("nonprivate_mae", math.nan),
        notes=_decode_value(d["notes"]),
        leaks=_decode_value(d["leaks"]),
        methods=_decode_value(d["methods"]),
        extras={k: _decode_value(v) for k, v in d.get("extras", {}).items()},
    )


# ------------------------------------------------------------------------------------------ files
def _folder(folder: str | Path | None) -> Path:
    if folder is not None:
        return Path(folder)
    return _folder_var.get() or STORE_DIR


def _path(name: str, folder: str | Path | None = None) -> Path:
    return _folder(folder) / f"{name}.json.xz"


_cache_lock = threading.Lock()
_loaded: dict[tuple[str, str], dict | None] = {}


def _stored(datasets: Sequence[str] | None, folder: Path | None) -> Iterator[tuple[str, Path, dict | None]]:
    """``(dataset, path, contents or None)`` of each demo dataset's file (``datasets``: all by default)."""
    from .data import DATASETS

    for name in list(DATASETS) if datasets is None else list(datasets):
        path = _path(name, folder)
        yield name, path, _read_file(path) if path.is_file() else None


def _read_file(path: Path) -> dict | None:
    try:
        with lzma.open(path, "rt", encoding="utf-8") as fh:
            obj = json.load(fh)
    except (OSError, ValueError, EOFError, lzma.LZMAError):
        return None
    return obj if isinstance(obj, dict) and obj.get("format") == FORMAT else None


def _file_entries(name: str, folder: Path | None = None) -> dict | None:
    """The raw entries of one dataset's file when it was written by this engine (else ``None``); cached."""
    path = _path(name, folder)
    key = (str(path), engine_hash())
    with _cache_lock:
        if key in _loaded:
            return _loaded[key]
    obj = _read_file(path)
    entries = obj["entries"] if obj is not None and obj.get("engine_hash") == engine_hash() else None
    with _cache_lock:
        _loaded[key] = entries
    return entries


def clear_cache() -> None:
    """Forget the files read so far (after they were rewritten)."""
    with _cache_lock:
        _loaded.clear()


def lookup(ds, adapter_key: str, spec, *, folder: Path | None = None) -> Entry | None:
    """The stored part of ``adapter_key`` on the demo dataset ``ds`` with ``spec``, or ``None`` (compute it then)."""
    from .data import DATASETS

    if not enabled() or getattr(ds, "name", None) not in DATASETS:
        return None
    entries = _file_entries(ds.name, folder)
    if not entries:
        return None
    key = entry_key(ds, adapter_key, spec)
    raw = entries.get(key)
    if raw is None:
        return None
    with _cache_lock:  # decoded once per process; the engine copies what it changes (tables, method rows)
        if "__decoded__" not in raw:
            raw["__decoded__"] = _decode_entry(raw["entry"])
        return raw["__decoded__"]


def memo(ds, adapter_key: str, spec, name: str, args: dict, compute: Callable[[], Any]) -> Any:
    """``compute()``, or its stored JSON-like value, keyed by ``name`` and ``args`` beside the part's key
    (recorded inside :func:`recording`).
    """
    call = name + json.dumps(args, sort_keys=True, default=repr)
    hit = lookup(ds, adapter_key, spec)
    if hit is not None and call in hit.extras:
        return _decode_value(_encode_value(hit.extras[call]))  # a fresh copy
    value = compute()
    rec = _recorder.get()
    if rec is not None:
        key = entry_key(ds, adapter_key, spec)
        if key in rec:
            rec[key][2].extras[call] = _decode_value(_encode_value(value))
    return value


def remember(ds, adapter_key: str, spec, entry: Entry) -> None:
    """Record a computed part when inside :func:`recording` (no-op otherwise)."""
    rec = _recorder.get()
    if rec is None:
        return
    meta = {
        "adapter": adapter_key,
        "n": int(ds.n),
        "epsilons": list(spec.epsilons),
        "n_trials": int(spec.n_trials),
        "test_fraction": float(spec.test_fraction),
    }
    rec[entry_key(ds, adapter_key, spec)] = (ds.name, meta, entry)


def write_store(entries: dict[str, dict], *, folder: Path | None = None) -> list[Path]:
    """Write ``{dataset: {key: (meta, Entry)}}`` as one deterministic ``.json.xz`` per dataset."""
    folder = _folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(entries):
        body = {
            "format": FORMAT,
            "dataset": name,
            "engine_hash": engine_hash(),
            "code_hash": code_hash(),
            "libraries": library_versions(),
            "regenerate": "python -m dp_core precompute",
            "entries": {k: {"meta": meta, "entry": _encode_entry(e)} for k, (meta, e) in sorted(entries[name].items())},
        }
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
        path = _path(name, folder)
        path.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
        written.append(path)
    clear_cache()
    return written


def check(datasets: Sequence[str] | None = None, *, folder: Path | None = None) -> list[str]:
    """The stale files: ``"<dataset>: <why>"`` for every demo dataset whose file is missing, unreadable or
    written by other engine code (empty list: every shipped entry matches this engine)."""
    stale = []
    for name, path, obj in _stored(datasets, folder):
        if not path.is_file():
            stale.append(f"{name}: no file {path.name}")
        elif obj is None:
            stale.append(f"{name}: {path.name} is unreadable or of another format")
        elif obj.get("engine_hash") != engine_hash():
            stale.append(
                f"{name}: {len(obj.get('entries', {}))} entries written by engine {obj.get('engine_hash')}, "
                f"this engine is {engine_hash()}"
            )
        elif not obj.get("entries"):
            stale.append(f"{name}: no entries")
    return stale
