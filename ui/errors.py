"""One error boundary for every page: a plain message and a reference id for the visitor, the traceback in the log.

Any exception a page does not handle ends at the boundary: the visitor sees :data:`PAGE_MESSAGE` with a short
reference id, and the server's log gets the full traceback under the same id (:func:`reference`). No exception
text, type, traceback or server path reaches the page. The boundary is entered three ways, all showing the same:

* ``app.py`` runs everything after ``set_page_config`` inside :func:`boundary`;
* :func:`install` (``app.py`` and ``ui.widgets.sidebar_controls``, the first call of every page) makes it this
  script run's error handler, for the runs that do not pass through ``app.py`` (Streamlit runs a page file
  directly when a session's first request names it, and in ``AppTest`` after ``switch_page``) and for a
  fragment's body during a full run;
* a fragment's own reruns run only the fragment, so a fragment's body is wrapped too (:func:`fragment`, and
  ``ui.background.live_section``).

Streamlit's own control flow (``st.rerun``, ``st.stop``, ``st.switch_page``) raises ``BaseException``
subclasses, which pass through untouched; so does ``FragmentHandledException`` (an error already shown).
``client.showErrorDetails = "none"`` in ``.streamlit/config.toml`` is the second line of defence: were an
exception ever to reach Streamlit's own display, it would show no message, type or traceback.
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
