"""Helpers shared by the AppTest page tests and the in-process CLI tests.

Imported as ``from _helpers import ...``: ``pythonpath`` in pyproject.toml puts ``tests/`` on ``sys.path``
(as a folder, not as a ``tests`` package, so nothing can clash with an installed top-level ``tests`` package).
"""

from __future__ import annotations

import json

from dp_core.cli import main


def open_page(app, page: str, *, defaults: dict | None = None, check: bool = False, **query):
    """Run the app with these query parameters (``defaults`` first, then ``query``), switch to ``page``, run it.

    With ``check``, assert that the page raised no exception.
    """
    for key, value in {**(defaults or {}), **query}.items():
        app.query_params[key] = str(value)
    at = app.run()
    at.switch_page(page).run()
    if check:
        assert not at.exception, at.exception
    return at


def metrics(at) -> dict:
    """Label -> value of every ``st.metric`` shown."""
    return {m.label: m.value for m in at.metric}


def charts(at) -> list[dict]:
    """The Plotly figure specification of every chart shown, in page order."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def run_main(capsys, *args):
    """Run the CLI in-process; return its exit code and the captured ``out``/``err``."""
    code = main(list(args))
    return code, capsys.readouterr()


def wait(cond, limit: float = 120.0) -> None:
    """Wait until ``cond()`` holds (a liveness guard, not a speed assertion)."""
    import time

    end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < end, "the job never reached the expected state"
        time.sleep(0.05)
