"""One error boundary for every page: a plain message and a reference id for the visitor, the traceback in the log.

``app.py`` runs the whole page inside :func:`boundary`; a fragment's own reruns run only the fragment, so a
fragment's body is wrapped too (:func:`fragment`, and ``ui.background.live_section``). Any exception a page
does not handle ends there: the visitor sees :data:`PAGE_MESSAGE` with a short reference id, and the server's
log gets the full traceback under the same id (:func:`reference`). No exception text, type, traceback or server
path reaches the page. Streamlit's own control flow (``st.rerun``, ``st.stop``, ``st.switch_page``) raises
``BaseException`` subclasses, which pass through untouched; so does ``FragmentHandledException`` (an error
Streamlit has already shown: ``client.showErrorDetails = "none"`` in ``.streamlit/config.toml`` keeps that
display free of details too).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["PAGE_MESSAGE", "boundary", "fragment", "reference"]

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


def _handled_by_streamlit() -> tuple[type[BaseException], ...]:
    try:
        from streamlit.errors import FragmentHandledException
    except ImportError:  # an older Streamlit without it
        return ()
    return (FragmentHandledException,)


@contextmanager
def boundary(where: str = "page") -> Iterator[None]:
    """Run the body; any ``Exception`` it raises becomes :data:`PAGE_MESSAGE` on the page and a log entry."""
    import streamlit as st

    try:
        yield
    except _handled_by_streamlit():
        raise
    except Exception as exc:  # noqa: BLE001 - the boundary: everything a page did not handle ends here
        st.error(PAGE_MESSAGE.format(ref=reference(exc, where)), icon="⚠️")


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
