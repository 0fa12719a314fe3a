"""Where the app's Monte-Carlo blocks run: chosen by the server's operator (secrets, then environment, then
in-process), never by a visitor (``docs/performance.md`` §"ui/executor.py: where the app's blocks run").
"""

from __future__ import annotations

import logging
import threading

import streamlit as st

from dp_core import execution

__all__ = ["configure_executor"]

_log = logging.getLogger(__name__)


def _secrets_section() -> dict:
    try:
        section = st.secrets.get("dp_core", None)
    except Exception:  # noqa: BLE001 - no secrets file at all is the common case
        return {}
    return dict(section) if section else {}


def configure_executor() -> dict:
    """Set the process's default executor once per server process; returns its description."""
    section = _secrets_section()
    key = (section.get("scheduler"), section.get("workers"))
    with _LOCK:
        if key not in _DONE:
            _DONE[key] = _configure(*key)
        return _DONE[key]


#: the setting applied in this server process, per (scheduler, workers): plain module state, not a
#: Streamlit cache (it derives from the operator's secrets, never from a visitor's data)
_DONE: dict = {}
_LOCK = threading.Lock()


def _clear() -> None:
    with _LOCK:
        _DONE.clear()


configure_executor.clear = _clear  # type: ignore[attr-defined]  # for tests


def _configure(scheduler, workers) -> dict:
    """Apply the operator's setting (once per value and server process)."""
    try:
        if scheduler is None and workers is None:
            return {**execution.current_executor().describe(), "source": "environment"}
        ex = execution.configure(workers=workers, scheduler=scheduler)
        return {**ex.describe(), "source": "secrets"}
    except (ValueError, TypeError) as exc:
        _log.error("dp_core executor not configured (%s); running in-process", exc)
        return {**execution.configure().describe(), "source": "fallback", "error": str(exc)}
