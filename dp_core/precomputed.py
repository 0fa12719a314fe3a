"""Shipped results of deterministic comparison runs on the demo datasets at default settings.

Every Monte-Carlo run of :func:`dp_core.compare.run_compare` is seeded, so one mechanism's part of a
comparison (its per-trial table, bounds, non-private utility, notes and guarantee statuses) is a
deterministic function of the dataset, the :class:`~dp_core.compare.CompareSpec`, the mechanism and the
engine's code. This module keeps those parts for the demo datasets at the app's and the command line's
default settings in ``dp_core/precomputed_data/<dataset>.json.xz`` (xz-compressed JSON, one file per
dataset; floats are written with Python's shortest round-trip ``repr``, so every number comes back
bit for bit, and the column types are stored beside the columns).

Keys
    An entry is found by :func:`entry_key`: the SHA-256 of the dataset's name, fingerprint, size, task and
    public bounds, the mechanism's adapter key and every field of the spec (ε grid, δ, trials, seed,
    mechanism parameters, test fraction, preprocessing). A file also records :func:`engine_hash`, the
    SHA-256 of every engine source that can change a number (every ``.py`` file of :mod:`dp_core` except
    :data:`UNHASHED`, which only format, explain, plot or parse) and of the numerical libraries' versions.
    A lookup whose key is absent or whose file was written by other code returns ``None`` and the caller
    computes as before: a stale or missing entry costs time, never correctness.

Regenerating
    ``python -m dp_core precompute [--workers N]`` reruns every default-setting run of
    :data:`DEMO_RUNS` with the store switched off, records each mechanism's part and rewrites the files;
    ``python -m dp_core precompute --check`` exits 1 listing the stale files. Run it after any change to
    the engine (``docs/performance.md``).

Switching it off
    ``DP_CORE_NO_PRECOMPUTED=1`` in the environment, ``--no-precomputed`` on the command line, or
    ``with precomputed.disabled(): ...`` in code.

Nothing here is a release: the stored tables are the analyst's own evaluation of many releases (as
:class:`~dp_core.compare.CompareResult` documents); the prepared states (data, non-private fits) are
never stored, they are recomputed on first use (:class:`LazyState`).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
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

from .publication import NonPublicDiagnostics

__all__ = [
    "DEMO_RUNS",
    "ENV_DISABLE",
    "STORE_DIR",
    "UNHASHED",
    "Entry",
    "LazyState",
    "check",
    "disabled",
    "enabled",
    "engine_hash",
    "entry_key",
    "lookup",
    "memo",
    "recording",
    "regenerate",
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
    "display.py",
    "explain.py",
    "figures.py",
    "glossary.py",
    "report.py",
    "tour.py",
    "compare/figures.py",
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
def disabled() -> Iterator[None]:
    """Compute everything inside this block (the store is not read)."""
    token = _enabled_var.set(False)
    try:
        yield
    finally:
        _enabled_var.reset(token)


@contextlib.contextmanager
def store_folder(folder: str | Path) -> Iterator[None]:
    """Read the store from ``folder`` instead of :data:`STORE_DIR` inside this block (tests, trials)."""
    token = _folder_var.set(Path(folder))
    try:
        yield
    finally:
        _folder_var.reset(token)


@contextlib.contextmanager
def recording() -> Iterator[dict]:
    """Collect ``{key: (dataset name, Entry)}`` of every mechanism part computed inside this block."""
    rec: dict = {}
    token = _recorder.set(rec)
    try:
        yield rec
    finally:
        _recorder.reset(token)


# ------------------------------------------------------------------------------------------ hashing
def _hashed_files() -> list[Path]:
    out = []
    for p in sorted(_ROOT.rglob("*.py")):
        rel = p.relative_to(_ROOT).as_posix()
        if any(rel == u or (u.endswith("/") and rel.startswith(u)) for u in UNHASHED):
            continue
        out.append(p)
    return out


@functools.cache
def engine_hash() -> str:
    """SHA-256 (hex, 16 characters) of the engine sources and library versions the stored numbers depend on."""
    from importlib import metadata

    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    for lib in _LIBRARIES:
        try:
            v = metadata.version(lib)
        except metadata.PackageNotFoundError:
            v = "absent"
        h.update(f"{lib} {v}\n".encode())
    h.update(f"machine {platform.machine()}\n".encode())
    for p in _hashed_files():
        h.update(p.relative_to(_ROOT).as_posix().encode() + b"\0")
        h.update(p.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


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
    """One mechanism's part of a comparison, as :func:`dp_core.compare.run_compare` computes it.

    ``skipped`` is the reason when the mechanism could not run (``phase`` says whether ``prepare`` or the
    sweep refused); otherwise ``trials`` is the sweep's table, ``bounds`` the bound table, ``total`` the
    number of trial blocks (for progress), and the rest as in :class:`~dp_core.compare.CompareResult`.
    """

    skipped: str | None = None
    phase: str = ""
    trials: Any = field(default=None, repr=False)
    bounds: Any = field(default=None, repr=False)
    total: int = 0
    nonprivate: float = math.nan
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
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
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
    """The stored part of ``adapter_key`` on ``ds`` with ``spec``, or ``None`` (compute it then).

    Only demo datasets are looked up; ``None`` also when the store is switched off, the dataset's file is
    missing or was written by other engine code (:func:`engine_hash`), or the key is absent.
    """
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
    """``compute()``, or its stored value: a deterministic follow-up call on a stored part (for example the
    label-DP bag-size answer of a negotiation), keyed by ``name`` and ``args`` beside the part's key.

    The value must be JSON-like (numbers, strings, lists, dicts, tuples); it is recorded inside
    :func:`recording` so that regeneration stores it with the part.
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
            "regenerate": "python -m dp_core precompute",
            "entries": {k: {"meta": meta, "entry": _encode_entry(e)} for k, (meta, e) in sorted(entries[name].items())},
        }
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
        path = _path(name, folder)
        path.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
        written.append(path)
    clear_cache()
    return written


# ------------------------------------------------------------------------------------------ lazy state
_UNSET = object()


class LazyState(NonPublicDiagnostics):
    """A mechanism's prepared state that is prepared on first use.

    A stored comparison needs no state to show its tables; the negotiation's bounds, the budget card's
    noise scales and label-DP's bag-size answer do. Attribute access prepares the state once
    (``ADAPTERS[key].prepare(ds, spec)``, deterministic) and forwards to it. What a sweep adds to a state
    (large-margin's non-private utility, the ℓ1 sampler's runs) is not recomputed: it reaches the result
    through the stored part (``nonprivate``, the method rows). NOT FOR PUBLICATION, like the state itself.
    """

    __slots__ = ("_adapter", "_ds", "_spec", "_value", "_lock")

    def __init__(self, adapter_key: str, ds, spec) -> None:
        object.__setattr__(self, "_adapter", adapter_key)
        object.__setattr__(self, "_ds", ds)
        object.__setattr__(self, "_spec", spec)
        object.__setattr__(self, "_value", _UNSET)
        object.__setattr__(self, "_lock", threading.Lock())

    def resolve(self) -> Any:
        """The prepared state (prepared now if needed)."""
        if self._value is _UNSET:
            with self._lock:
                if self._value is _UNSET:
                    import warnings

                    from .compare.registry import ADAPTERS
                    from .exceptions import PrivacyLeakWarning

                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", PrivacyLeakWarning)
                        value = ADAPTERS[self._adapter].prepare(self._ds, self._spec)
                    object.__setattr__(self, "_value", value)
        return self._value

    def __getattr__(self, name: str) -> Any:
        if name in LazyState.__slots__:
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.resolve(), name, value)

    def __reduce__(self):
        return (_restore_lazy, (self._adapter, self._ds, self._spec, None if self._value is _UNSET else self._value))

    def __repr__(self) -> str:
        return f"LazyState({self._adapter!r}, prepared={self._value is not _UNSET})"


def _restore_lazy(adapter_key: str, ds, spec, value) -> LazyState:
    s = LazyState(adapter_key, ds, spec)
    if value is not None:
        object.__setattr__(s, "_value", value)
    return s


# ------------------------------------------------------------------------------------------ the runs
#: ``(label, eps_min, eps_max, n_points, n_trials, negotiations)``: the default settings stored for every
#: demo dataset. ``cli compare``: ``python -m dp_core compare``; ``cli negotiate``: ``python -m dp_core
#: negotiate`` (smallest ε, ``--solve-for n`` at ε = 1, ``--rows-factor 2``); ``app``: the Compare page
#: (grid 0.05-10 with 8 points, 100 trials; the negotiation's three questions at the sidebar's ε = 1).
#: ``tests/test_precomputed.py`` checks these against the CLI's and the app's defaults.
DEMO_RUNS = (
    ("cli compare", 0.05, 10.0, 8, 50, False),
    ("cli negotiate", 0.01, 20.0, 10, 50, True),
    ("app", 0.05, 10.0, 8, 100, True),
)
#: Seed, δ and the chosen ε of every stored run.
DEMO_SEED, DEMO_DELTA, DEMO_EPSILON = 0, 1e-5, 1.0


def default_target(task: str) -> str:
    """The negotiation target the app starts from (its metric at the app's default value)."""
    return "r2=0.3" if task == "regression" else "accuracy=0.9"


def _runs_of(name: str, runs: Sequence[tuple] = DEMO_RUNS) -> dict:
    """Every default-setting run on one demo dataset, computed with the store off and recorded."""
    import warnings

    from .compare import default_epsilons, make_spec, run_compare
    from .data import load_dataset
    from .execution import get_executor, use_executor
    from .negotiate import negotiate

    ds = load_dataset(name)
    # in this process (a worker when the datasets are spread over a cluster): never a nested cluster
    with use_executor(get_executor(workers=0)), disabled(), recording() as rec, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _label, lo, hi, n_points, trials, with_negotiation in runs:
            spec = make_spec(
                epsilons=default_epsilons(lo, hi, n_points), delta=DEMO_DELTA, n_trials=trials, seed=DEMO_SEED
            )
            result = run_compare(ds, spec)
            if not with_negotiation:
                continue
            kw = {
                "epsilon": DEMO_EPSILON,
                "delta": DEMO_DELTA,
                "n_trials": trials,
                "seed": DEMO_SEED,
                "eps_min": lo,
                "eps_max": hi,
                "n_points": n_points,
            }
            target = [default_target(ds.task)]
            negotiate(ds, target, result=result, rows_factor=2.0, **kw)
            negotiate(ds, target, solve_for="n", **kw)
    return {k: (meta, e) for k, (_n, meta, e) in rec.items()}


def regenerate(
    datasets: Sequence[str] | None = None,
    *,
    folder: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Recompute every stored run (on the current executor, one block per dataset) and rewrite the files.

    Returns ``{"files": [...], "entries": {dataset: count}, "engine_hash": ...}``.
    """
    from .data import DATASETS
    from .execution import current_executor

    names = list(DATASETS) if datasets is None else list(datasets)
    out: dict[str, dict] = {}
    for name, entries in zip(names, current_executor().map(_runs_of, names)):
        out[name] = entries
        if progress is not None:
            progress(name)
    files = write_store(out, folder=folder)
    return {
        "files": [str(p) for p in files],
        "entries": {k: len(v) for k, v in out.items()},
        "bytes": sum(p.stat().st_size for p in files),
        "engine_hash": engine_hash(),
    }


def check(datasets: Sequence[str] | None = None, *, folder: Path | None = None) -> list[str]:
    """The stale files: ``"<dataset>: <why>"`` for every demo dataset whose file is missing, unreadable or
    written by other engine code (empty list: every shipped entry matches this engine)."""
    from .data import DATASETS

    names = list(DATASETS) if datasets is None else list(datasets)
    stale = []
    for name in names:
        path = _path(name, folder)
        if not path.is_file():
            stale.append(f"{name}: no file {path.name}")
            continue
        obj = _read_file(path)
        if obj is None:
            stale.append(f"{name}: {path.name} is unreadable or of another format")
        elif obj.get("engine_hash") != engine_hash():
            stale.append(
                f"{name}: {len(obj.get('entries', {}))} entries written by engine {obj.get('engine_hash')}, "
                f"this engine is {engine_hash()}"
            )
        elif not obj.get("entries"):
            stale.append(f"{name}: no entries")
    return stale
