"""One error boundary for every page: a plain message and a reference id for the visitor, the traceback in the log.

How the boundary is entered: ``docs/performance.md`` §"One error boundary for every page" and §"ui/errors.py in brief".
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["PAGE_MESSAGE", "boundary", "fragment", "install", "reference"]

_log = logging.getLogger("pue.errors")

#: What a visitor sees when a page fails: plain words, what to do, the id to quote.
PAGE_MESSAGE = (
    "Something went wrong on this page, so it stopped here. Your settings are kept: reload the page or change a "
    "setting to try again. If it happens again, please tell the site's operator the reference {ref}."
)


def reference(exc: BaseException, where: str = "page") -> str:
    """A short random id for ``exc``; the first call logs its traceback under that id (later calls reuse it).

    The same exception object shown on several reruns (a failed job's) is logged once, with one id.
    """
    ref = getattr(exc, "_pue_reference", None)
    if ref is None:
        ref = uuid.uuid4().hex[:8]
        _log.error("reference %s: %s failed", ref, where, exc_info=(type(exc), exc, exc.__traceback__))
        try:
            exc._pue_reference = ref  # type: ignore[attr-defined]
        except AttributeError:  # an exception type with __slots__: a new id on the next call
            pass
    return ref


def _show(exc: BaseException, where: str) -> None:
    import streamlit as st

    st.error(PAGE_MESSAGE.format(ref=reference(exc, where)), icon="⚠️")


def _on_script_error(exc: Exception) -> bool:
    """Streamlit's per-run error handler: show the plain message; ``True`` suppresses Streamlit's own display."""
    _show(exc, "page")
    return True


def install() -> None:
    """Make the boundary this script run's error handler (every run: Streamlit starts each run without it)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None and hasattr(ctx, "on_script_error"):  # Streamlit ≥ 1.5x has the hook
        ctx.on_script_error = _on_script_error


def _handled_by_streamlit() -> tuple[type[BaseException], ...]:
    try:
        from streamlit.errors import FragmentHandledException
    except ImportError:  # an older Streamlit without it
        return ()
    return (FragmentHandledException,)


@contextmanager
def boundary(where: str = "page") -> Iterator[None]:
    """Run the body; any ``Exception`` it raises becomes :data:`PAGE_MESSAGE` on the page and a log entry."""
    try:
        yield
    except _handled_by_streamlit():
        raise
    except Exception as exc:  # noqa: BLE001 - the boundary: everything a page did not handle ends here
        _show(exc, where)


def fragment(func: Callable | None = None, **kwargs):
    """``st.fragment`` whose body runs inside :func:`boundary` (a fragment's reruns bypass ``app.py``'s)."""
    import streamlit as st

    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def guarded(*args, **kw):
            with boundary(f"fragment {f.__qualname__}"):
                return f(*args, **kw)

        return st.fragment(guarded, **kwargs)

    return wrap if func is None else wrap(func)
