"""Shared parameters: one canonical value per name in ``st.session_state``, mirrored in the URL.

Canonical values live under ``p_<name>`` (plain session keys, which survive page switches even
when the widget that sets them is not on the current page). Widgets use ``w_<name>`` keys and copy
their value into the canonical key in their ``on_change`` callback. On a session's first run the
canonical values are read from the URL query string, so a copied link reopens the same setting.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from .constants import SHARED_PARAMS

_LOADED = "_qp_loaded"


def _parse(kind: type, raw: str) -> Any:
    if kind is int:
        return int(float(raw))
    if kind is float:
        v = float(raw)
        if not math.isfinite(v):
            raise ValueError(raw)
        return v
    return str(raw)


def init_state() -> list[str]:
    """Fill the canonical keys from the URL (first run only) or the defaults; return URL problems."""
    problems: list[str] = []
    first = not st.session_state.get(_LOADED, False)
    for name, (kind, default) in SHARED_PARAMS.items():
        key = f"p_{name}"
        if first and name in st.query_params:
            try:
                st.session_state[key] = _parse(kind, st.query_params[name])
            except (TypeError, ValueError):
                problems.append(f"The link's value {name}={st.query_params[name]!r} is not valid; using {default!r}.")
                st.session_state[key] = default
        elif key not in st.session_state:
            st.session_state[key] = default
    st.session_state[_LOADED] = True
    return problems


def get(name: str) -> Any:
    """The canonical value of a shared parameter."""
    if f"p_{name}" not in st.session_state:
        init_state()
    return st.session_state[f"p_{name}"]


def set_value(name: str, value: Any) -> None:
    st.session_state[f"p_{name}"] = value


def sync_url(extra: dict[str, Any] | None = None) -> None:
    """Write every shared parameter (and ``extra`` page parameters) into the URL query string."""
    values = {name: st.session_state.get(f"p_{name}") for name in SHARED_PARAMS}
    values.update(extra or {})
    for name, value in values.items():
        if value is None:
            continue
        text = f"{value:.6g}" if isinstance(value, float) else str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text


def url_param(name: str, default: Any, kind: type = str) -> Any:
    """A page-specific parameter restored from the URL once per session (key ``u_<name>``)."""
    key = f"u_{name}"
    if key not in st.session_state:
        raw = st.query_params.get(name)
        try:
            st.session_state[key] = default if raw is None else _parse(kind, raw)
        except (TypeError, ValueError):
            st.session_state[key] = default
    return st.session_state[key]


def seed_widget(key: str, default: Any, kind: type = str, options: Any = None) -> None:
    """Before creating a page widget with ``key`` (and no ``value=``): give it its last value in this
    session, else the URL's, else ``default``; values outside ``options`` fall back to ``default``."""
    if key in st.session_state:
        return
    kept = f"{key}__keep"
    value = st.session_state[kept] if kept in st.session_state else url_param(key, default, kind)
    if options is not None and value not in options:
        value = default
    st.session_state[key] = value


def keep_widget(key: str) -> Any:
    """After creating a page widget: remember its value across page switches and return it."""
    value = st.session_state.get(key)
    st.session_state[f"{key}__keep"] = value
    return value
