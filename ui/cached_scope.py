"""Where a cached result may live: demo data in the server's shared cache, uploads in the session only.

Every wrapper in ``ui/cached*.py`` uses :func:`cache_data`/:func:`cache_resource` from here, which choose the store per
call; work stops with the session. Rules: ``docs/performance.md`` §"Cache scope (ui/cached_scope.py)".
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

__all__ = [
    "MEMO_KEY",
    "SESSION_MEMO_MAX_BYTES",
    "SESSION_MEMO_MAX_ENTRIES",
    "UPLOAD_PREFIX",
    "SessionMemo",
    "approx_nbytes",
    "cache_data",
    "cache_resource",
    "is_upload_value",
    "session_uses_upload",
]

#: The most results one session keeps for its upload.
SESSION_MEMO_MAX_ENTRIES = 24
#: The most bytes of arrays and tables those results may hold together (the newest result is always kept).
SESSION_MEMO_MAX_BYTES = 256 * 2**20
#: The ``st.session_state`` key of the memo.
MEMO_KEY = "_upload_memo"
#: How ``dp_core.data.table_to_dataset`` names an uploaded dataset.
UPLOAD_PREFIX = "upload:"


def approx_nbytes(value: Any, _depth: int = 0) -> int:
    """The bytes held by the arrays and tables inside ``value`` (a bounded walk; small objects count 0)."""
    if _depth > 4 or value is None or isinstance(value, (str, bytes, int, float, bool)):
        return len(value) if isinstance(value, bytes) else 0
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return int(value.memory_usage(deep=False).sum()) if isinstance(value, pd.DataFrame) else int(value.nbytes)
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    elif hasattr(value, "__dict__"):
        items = list(vars(value).values())
    elif hasattr(value, "__slots__"):
        items = [getattr(value, k, None) for k in value.__slots__]
    else:
        return 0
    return sum(approx_nbytes(v, _depth + 1) for v in items[:10_000])


class SessionMemo:
    """A bounded least-recently-used store of one session's results for its current upload."""

    def __init__(self, max_entries: int = SESSION_MEMO_MAX_ENTRIES, max_bytes: int = SESSION_MEMO_MAX_BYTES) -> None:
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self.upload_fingerprint: str | None = None
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        self._sizes: dict[tuple, int] = {}
        self._lock = threading.Lock()

    @property
    def nbytes(self) -> int:
        """Bytes of arrays and tables held by the stored results (see :func:`approx_nbytes`)."""
        return sum(self._sizes.values())

    def __len__(self) -> int:
        return len(self._entries)

    def functions(self) -> list[str]:
        """The names of the functions whose results are stored (for tests and diagnostics)."""
        return [k[0] for k in self._entries]

    def reset_for(self, fingerprint: str | None) -> None:
        """Forget every result when the session's upload changes."""
        with self._lock:
            if fingerprint != self.upload_fingerprint:
                self._entries.clear()
                self._sizes.clear()
                self.upload_fingerprint = fingerprint

    def get(self, key: tuple) -> tuple[bool, Any]:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return True, self._entries[key]
        return False, None

    def put(self, key: tuple, value: Any) -> None:
        size = approx_nbytes(value)
        with self._lock:
            self._entries[key] = value
            self._sizes[key] = size
            self._entries.move_to_end(key)
            while len(self._entries) > 1 and (
                len(self._entries) > self.max_entries or sum(self._sizes.values()) > self.max_bytes
            ):
                old, _ = self._entries.popitem(last=False)
                self._sizes.pop(old, None)


def is_upload_value(value: Any) -> bool:
    """True for an uploaded dataset, its name, or an object named after it (a prepared task, ...)."""
    if isinstance(value, str):
        return value.startswith(UPLOAD_PREFIX)
    name = getattr(value, "name", None)
    return isinstance(name, str) and name.startswith(UPLOAD_PREFIX)


def _in_session() -> bool:
    return get_script_run_ctx(suppress_warning=True) is not None


def session_uses_upload() -> bool:
    """True when this session's current dataset is its uploaded file (``ui.widgets.current_dataset``)."""
    if not _in_session():
        return False
    return st.session_state.get("p_source") == "upload" and st.session_state.get("upload_dataset") is not None


def _session_ended() -> bool:
    """True when this script run's browser session has disconnected (the tab was closed)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return False
    try:
        from streamlit.runtime import Runtime

        return Runtime.exists() and not Runtime.instance().is_active_session(ctx.session_id)
    except Exception:  # noqa: BLE001 - no runtime (tests, bare mode): the session cannot have ended
        return False


def _memo() -> SessionMemo:
    memo = st.session_state.get(MEMO_KEY)
    if not isinstance(memo, SessionMemo):
        memo = SessionMemo()
        st.session_state[MEMO_KEY] = memo
    upload = st.session_state.get("upload_dataset")
    memo.reset_for(getattr(upload, "fingerprint", None))
    return memo


def _digest(value: Any) -> str:
    try:
        payload = pickle.dumps(value, protocol=5)
    except Exception:  # noqa: BLE001 - unpicklable argument: fall back to its text (a miss at worst)
        payload = repr(value).encode()
    return hashlib.sha256(payload).hexdigest()


def _key(name: str, signature: inspect.Signature, args: tuple, kwargs: dict) -> tuple:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    parts = tuple((k, _digest(v)) for k, v in bound.arguments.items() if not k.startswith("_"))
    return (name, parts)


def _private(args: tuple, kwargs: dict) -> bool:
    return session_uses_upload() or any(is_upload_value(v) for v in (*args, *kwargs.values()))


def _scoped(
    streamlit_cache: Callable, copy_results: bool, upload_independent: bool, **cache_kwargs
) -> Callable[[Callable], Callable]:
    spinner = cache_kwargs.get("show_spinner", True)

    def decorate(fn: Callable) -> Callable:
        shared = streamlit_cache(**cache_kwargs)(fn)
        if upload_independent:
            shared.upload_independent = True
            shared.scoped = True
            return shared
        signature = inspect.signature(fn)
        name = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if _session_ended():
                st.stop()  # the visitor has gone: start no new work for this session
            if not (_in_session() and _private(args, kwargs)):
                return shared(*args, **kwargs)
            memo = _memo()
            key = _key(name, signature, args, kwargs)
            hit, value = memo.get(key)
            if not hit:
                if isinstance(spinner, str):
                    with st.spinner(spinner):
                        value = fn(*args, **kwargs)
                else:
                    value = fn(*args, **kwargs)
                memo.put(key, value)
            return copy.deepcopy(value) if copy_results else value

        call.shared = shared  # the shared-cache function (its .clear() clears the shared entries)
        call.clear = shared.clear
        call.scoped = True
        call.upload_independent = False
        return call

    return decorate


def cache_data(*, upload_independent: bool = False, **cache_kwargs) -> Callable[[Callable], Callable]:
    """``st.cache_data`` for demo data, this session's memo for an upload (see the module docstring)."""
    return _scoped(st.cache_data, True, upload_independent, **cache_kwargs)


def cache_resource(*, upload_independent: bool = False, **cache_kwargs) -> Callable[[Callable], Callable]:
    """``st.cache_resource`` for demo data, this session's memo for an upload (see the module docstring)."""
    return _scoped(st.cache_resource, False, upload_independent, **cache_kwargs)
