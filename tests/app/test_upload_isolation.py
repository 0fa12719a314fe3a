"""Issue 18: uploaded data stays in its own session.

Two sessions of one server process (two ``AppTest`` instances share Streamlit's process-wide caches,
exactly as two browser tabs share a server) each upload a different file and visit every page:

* neither session's results, nor anything derived from an upload, reach the shared ``st.cache_data``/
  ``st.cache_resource`` caches (checked through Streamlit's cache statistics API);
* neither can reach the other's data: not on any page, not through a link naming the other's upload;
* when a session ends, its upload and everything computed from it are gone from server memory
  (nothing else holds a reference: weak references to them die).

The resident-memory side is measured by ``benchmarks/bench_upload_memory.py`` against a real server.
"""

from __future__ import annotations

import gc
import importlib
import weakref

import numpy as np
import pytest
import streamlit as st
from streamlit.runtime.caching.cache_data_api import get_data_cache_stats_provider
from streamlit.runtime.caching.cache_resource_api import get_resource_cache_stats_provider
from streamlit.testing.v1 import AppTest

from dp_core import registry
from ui import cached_scope
from ui.cached import plan
from ui.pages import DEFAULT_PAGE, PAGES, TOUR_PAGE

APP = "../../app.py"  # as in conftest.py: relative to this file
#: Mechanisms whose cached calls are declared by a page plan (``dp_core/mechanisms/<m>/plan.py``).
PLANS = tuple(p.name for p in registry.plugins() if p.has("plan"))
MECHANISM_PAGES = [p for p, *_ in PAGES if p not in (DEFAULT_PAGE, TOUR_PAGE)]


def _csv(n: int, seed: int, scale: float) -> bytes:
    g = np.random.default_rng(seed)
    X = g.uniform(0, 1, size=(n, 3))
    y = X @ np.array([0.5, -0.25, 0.1]) * scale + 0.05 * g.standard_normal(n)
    rows = "".join(f"{a:.6f},{b:.6f},{c:.6f},{t:.6f}\n" for (a, b, c), t in zip(X, y))
    return ("x1,x2,x3,y\n" + rows).encode()


FILE_A = ("alpha.csv", _csv(300, 1, 1.0))
FILE_B = ("beta.csv", _csv(240, 2, 3.0))


def _session(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in {"trials": "10", "k": "4", "m": "20", **params}.items():  # bags that fit 240 training rows
        at.query_params[k] = str(v)
    return at.run()


def _upload(at: AppTest, file) -> AppTest:
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((file[0], file[1], "text/csv")).run()
    assert not at.exception
    assert any(f"Using **{file[0]}**" in s.value for s in at.success)
    return at


def _visit(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, (page, [e.value for e in at.exception])
    return at


def _page_text(at: AppTest) -> str:
    parts = [
        str(e.value)
        for kind in ("markdown", "caption", "info", "success", "warning", "error")
        for e in getattr(at, kind)
    ]
    return " ".join(parts)


def _shared_cache_functions() -> set[str]:
    names: set[str] = set()
    for provider in (get_data_cache_stats_provider(), get_resource_cache_stats_provider()):
        for stats in provider.get_stats().values():
            names |= {s.cache_name for s in stats}
    return names


def _upload_independent_functions() -> set[str]:
    """Display names of the wrappers declared upload-independent (allowed in the shared cache)."""
    out = set()
    for mod in (
        "ui.cached",
        "ui.cached_audit",
        "ui.cached_compare",
        "ui.risk_panel",
    ):
        m = importlib.import_module(mod)
        for name, obj in vars(m).items():
            if getattr(obj, "scoped", False) and getattr(obj, "upload_independent", False):
                out.add(f"{mod}.{name}")
    for mech in PLANS:  # a page plan's functions are cached under their own module's name
        module = registry.get(mech).load("plan")
        for name, fn in vars(module).items():
            if getattr(fn, "__cache__", {}).get("upload_independent"):
                out.add(f"{module.__name__}.{name}")
    return out


@pytest.fixture
def clean_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


def test_every_wrapper_is_scoped():
    # every cached wrapper decides through ui.cached_scope (so no page needs a special case for uploads)
    for mod in (
        "ui.cached",
        "ui.cached_audit",
        "ui.cached_compare",
    ):
        m = importlib.import_module(mod)
        wrappers = [
            o
            for n, o in vars(m).items()
            if hasattr(o, "clear") and callable(o) and not isinstance(o, type) and getattr(o, "__module__", mod) == mod
        ]
        assert wrappers, mod
        assert all(getattr(o, "scoped", False) for o in wrappers), mod
    for mech in PLANS:
        module, p = registry.get(mech).load("plan"), plan(mech)
        names = [n for n, fn in vars(module).items() if hasattr(fn, "__cache__")]
        assert names and all(getattr(getattr(p, n), "scoped", False) for n in names), mech


def test_upload_independent_wrappers_take_no_dataset():
    dataset_like = {"name", "fingerprint", "task_key", "dataset_name", "_ds", "_data", "_task", "_dataset", "n", "d"}
    import inspect

    for mod in ("ui.cached",):
        m = importlib.import_module(mod)
        for name in {f.rsplit(".", 1)[1] for f in _upload_independent_functions() if f.startswith(mod + ".")}:
            params = set(inspect.signature(getattr(m, name).__wrapped__).parameters)
            if name in ("load_demo", "sampler_check"):  # a demo name / a synthetic sample size
                params -= {"name", "n"}
            assert not params & dataset_like, (mod, name, params & dataset_like)


@pytest.mark.timeout(600)
def test_two_sessions_keep_their_uploads_apart(clean_caches):
    a = _upload(_session(), FILE_A)
    b = _upload(_session(), FILE_B)
    fa = a.session_state["upload_dataset"].fingerprint
    fb = b.session_state["upload_dataset"].fingerprint
    assert fa != fb
    shown = 0
    for page in MECHANISM_PAGES:  # interleaved, as two visitors would be
        _visit(a, page)
        _visit(b, page)
        ta, tb = _page_text(a), _page_text(b)
        assert "beta.csv" not in ta and "alpha.csv" not in tb, page
        if "upload:alpha.csv" in ta:
            assert "upload:beta.csv" in tb, page
            shown += 1
    assert shown >= 4  # the pages that show the dataset show each session its own upload
    # the shared caches hold nothing computed for either upload: only upload-independent wrappers
    leaked = _shared_cache_functions() - _upload_independent_functions()
    assert not leaked, f"shared cache entries derived from an upload: {sorted(leaked)}"
    # each session's results are in its own memo, keyed to its own upload
    ma, mb = a.session_state[cached_scope.MEMO_KEY], b.session_state[cached_scope.MEMO_KEY]
    assert ma is not mb and len(ma) > 0 and len(mb) > 0
    assert ma.upload_fingerprint == fa and mb.upload_fingerprint == fb
    assert len(ma) <= cached_scope.SESSION_MEMO_MAX_ENTRIES
    # neither session's state holds the other's data
    assert all(getattr(v, "fingerprint", None) != fb for v in _state_values(a))
    assert all(getattr(v, "fingerprint", None) != fa for v in _state_values(b))


def _state_values(at: AppTest) -> list:
    return [at.session_state[k] for k in list(at.session_state.keys())]


@pytest.mark.parametrize("page", ["pages/home.py", "pages/label_dp_bags.py"])
def test_a_link_naming_another_sessions_upload_shows_no_upload(clean_caches, page):
    a = _upload(_session(), FILE_A)
    _visit(a, "pages/label_dp_bags.py")
    assert _shared_cache_functions() <= _upload_independent_functions()
    c = _session(dataset="upload:alpha.csv")  # another visitor opens a link naming A's upload
    _visit(c, page)
    assert "alpha" not in _page_text(c)
    assert "upload_dataset" not in c.session_state or c.session_state["upload_dataset"] is None
    if page == "pages/home.py":
        assert {m.label: m.value for m in c.metric}["Rows"] == "20,000"  # the default demo (census), not A's 300 rows
    else:
        assert "census" in _page_text(c)


@pytest.mark.timeout(300)
def test_an_ended_session_leaves_nothing_behind(clean_caches):
    a = _upload(_session(), FILE_A)
    _visit(a, "pages/label_dp_bags.py")
    ds = a.session_state["upload_dataset"]
    memo = a.session_state[cached_scope.MEMO_KEY]
    assert len(memo) > 0
    refs = [weakref.ref(ds), weakref.ref(ds.X), weakref.ref(memo)]
    del ds, memo
    assert all(r() is not None for r in refs)
    del a  # the session ends
    gc.collect()
    assert [r() is None for r in refs] == [True, True, True]
    assert _shared_cache_functions() <= _upload_independent_functions()


def test_no_new_work_starts_once_the_session_has_ended(monkeypatch):
    a = _upload(_session(), FILE_A)
    _visit(a, "pages/label_dp_bags.py")
    charts_alive = len(a.get("plotly_chart"))
    assert charts_alive >= 1  # the first screen and the open sections draw charts (expert sections are lazy)
    computed = []
    monkeypatch.setattr(cached_scope, "_session_ended", lambda: True)  # as after the tab was closed
    monkeypatch.setattr(cached_scope.SessionMemo, "put", lambda self, key, value: computed.append(key))
    a.session_state[cached_scope.MEMO_KEY].reset_for(None)  # nothing cached: every wrapper would compute
    a.run()
    assert not a.exception
    assert computed == [] and len(a.get("plotly_chart")) == 0
