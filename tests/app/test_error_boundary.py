"""One error boundary around every page: a failure shows a plain message with a reference id, the traceback goes
to the server's log only, and Streamlit's own control flow (st.stop, st.rerun, st.switch_page) passes through."""

from __future__ import annotations

import re

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
from streamlit.testing.v1 import AppTest

from ui import errors, state, widgets
from ui.pages import DEFAULT_PAGE, PAGES

APP = "../../app.py"
#: An exception text that must never reach the page: a server path, a secret-looking value.
LEAK = "/work/main/secret/module.py: token=abc123"
PATH = re.compile(r"(?:/[\w.-]+){2,}|[A-Z]:\\\\")
REF = re.compile(PAGE_REF := re.escape(errors.PAGE_MESSAGE.split("{ref}")[0]) + r"([0-9a-f]{8})")


def _fail(*_args, **_kwargs):
    raise RuntimeError(LEAK)


def _page_text(at) -> str:
    parts = [e.value for e in at.error] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("page", [p[0] for p in PAGES])
def test_a_failure_in_any_page_shows_a_plain_message_and_logs_the_traceback(page, monkeypatch, page_failures):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["trials"] = "10"
    at.run()  # Home, as a visitor lands: app.py registers the navigation
    assert not at.exception and not page_failures()
    monkeypatch.setattr(state, "sync_url", _fail)  # every page calls it (in widgets.sidebar_controls)
    if page != DEFAULT_PAGE:
        at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    messages = [e.value for e in at.error if REF.match(e.value)]
    assert len(messages) == 1, [e.value for e in at.error]
    ref = REF.match(messages[0]).group(1)
    text = _page_text(at)
    assert "Traceback" not in text and "RuntimeError" not in text and "token=" not in text
    assert not PATH.search(text), PATH.search(text)
    logged = page_failures()
    assert len(logged) == 1 and ref in logged[0].getMessage()
    assert logged[0].exc_info[0] is RuntimeError and LEAK in str(logged[0].exc_info[1])


def test_streamlit_control_flow_passes_through_the_boundary():
    for signal in (StopException(), RerunException(None)):
        with pytest.raises(type(signal)), errors.boundary():
            raise signal


def test_st_stop_in_a_page_is_not_an_error(monkeypatch):
    import streamlit as st

    monkeypatch.setattr(widgets, "sidebar_controls", lambda: st.stop())
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not at.error
    assert at.title and not at.header, "the page did not stop where st.stop() was called"


def _fragment_script():
    import streamlit as st

    from ui import background as bg
    from ui.errors import fragment

    bg.start("f", "k", [bg.Block("ok", divmod, (7, 2))], private=True)

    def render(job) -> None:
        raise KeyError(f"missing column in {job.finished()}")

    bg.live_section("f", render)

    @fragment
    def section() -> None:
        raise OSError("[Errno 2] No such file or directory: '/work/data/x.csv'")

    section()
    st.write("the rest of the page")


def test_a_failing_fragment_or_background_section_shows_the_message_and_the_page_goes_on(page_failures):
    at = AppTest.from_function(_fragment_script, default_timeout=60).run()
    assert not at.exception
    refs = [REF.match(e.value).group(1) for e in at.error if REF.match(e.value)]
    assert len(refs) == 2 and len(set(refs)) == 2
    assert any("the rest of the page" in m.value for m in at.markdown)
    assert not PATH.search(_page_text(at)) and "KeyError" not in _page_text(at)
    assert sorted(r.exc_info[0].__name__ for r in page_failures()) == ["KeyError", "OSError"]
