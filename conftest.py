"""Suite-wide guard (the repository root, so that no second module named conftest sits among the doctest-collected
test folders): a page that fails inside the error boundary fails its test.

``app.py`` runs every page inside ``ui.errors.boundary``, which turns an exception into a plain message
(so ``at.exception`` stays empty) and logs it on the ``pue.errors`` logger. Every test therefore fails when
that logger recorded an error, unless it asks for :func:`page_failures` (the tests that inject one on purpose).
"""

from __future__ import annotations

import logging
import os

import pytest
from hypothesis import settings

# Under CI the property tests draw the same examples on every run (a fixed database-free seed), so a red build
# is reproducible; developers keep hypothesis' random exploration.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")

BOUNDARY_LOGGER = "pue.errors"

# The toy mechanism's folder is a plug-in, not a test module: its page runs only inside the app (tests import it
# through the registry, tests/test_toy_mechanism.py); doctest collection would import page.py on its own.
collect_ignore_glob = ["tests/toy_mechanism/*"]


def _boundary_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == BOUNDARY_LOGGER and r.levelno >= logging.ERROR]


@pytest.fixture
def page_failures(caplog):
    """The errors the boundary logged during this test (a callable: call it to read them); the test expects them."""
    return lambda: _boundary_records(caplog)


@pytest.fixture(autouse=True)
def _no_page_failed_silently(request, caplog):
    yield
    if "page_failures" in request.fixturenames:
        return
    failed = _boundary_records(caplog)
    assert not failed, "a page failed inside the error boundary:\n" + "\n\n".join(
        f"{r.getMessage()}\n{caplog.handler.formatter.formatException(r.exc_info) if r.exc_info else ''}"
        for r in failed
    )
