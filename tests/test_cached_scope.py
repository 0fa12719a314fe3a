"""The per-session memo of ``ui.cached_scope``: bounded, keyed like Streamlit's cache, reset per upload."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ui import cached_scope as cs


def test_memo_is_lru_and_bounded_in_entries():
    m = cs.SessionMemo(max_entries=3, max_bytes=10**9)
    for i in range(5):
        m.put(("f", i), i)
    assert len(m) == 3 and m.get(("f", 0)) == (False, None) and m.get(("f", 4)) == (True, 4)
    m.get(("f", 2))  # touching an entry keeps it
    m.put(("f", 5), 5)
    assert m.get(("f", 2))[0] and not m.get(("f", 3))[0]


def test_memo_is_bounded_in_bytes_but_keeps_the_newest():
    m = cs.SessionMemo(max_entries=100, max_bytes=3 * 8_000)
    for i in range(5):
        m.put(("a", i), np.zeros(1_000))  # 8,000 bytes each
    assert len(m) == 3 and m.nbytes == 24_000
    m.put(("big",), np.zeros(10_000))  # alone above the cap: kept, everything older dropped
    assert len(m) == 1 and m.get(("big",))[0]


def test_memo_resets_when_the_upload_changes():
    m = cs.SessionMemo()
    m.reset_for("fp1")
    m.put(("f", 1), "x")
    m.reset_for("fp1")
    assert len(m) == 1
    m.reset_for("fp2")
    assert len(m) == 0 and m.upload_fingerprint == "fp2"


@dataclass
class _Holder:
    X: np.ndarray
    frame: pd.DataFrame
    label: str


def test_approx_nbytes_counts_arrays_and_tables():
    h = _Holder(np.zeros((100, 10)), pd.DataFrame({"a": np.zeros(50)}), "x")
    assert cs.approx_nbytes(h) >= 8_000 + 400
    assert cs.approx_nbytes((h, {"k": np.zeros(10)})) >= 8_000 + 400 + 80
    assert cs.approx_nbytes("text") == 0 and cs.approx_nbytes(None) == 0


def test_keys_ignore_underscore_arguments_like_streamlit():
    def f(name, fingerprint, k, _data, _v="1"):
        return k

    sig = inspect.signature(f)
    k1 = cs._key("f", sig, ("n", "fp", 3, object()), {})
    k2 = cs._key("f", sig, ("n", "fp", 3, object()), {"_v": "2"})
    k3 = cs._key("f", sig, ("n", "fp", 4, None), {})
    assert k1 == k2 != k3


def test_upload_values_are_recognised():
    class Task:
        name = "upload:x.csv"

    assert cs.is_upload_value("upload:x.csv") and cs.is_upload_value(Task())
    assert not cs.is_upload_value("census") and not cs.is_upload_value(3)


def test_outside_a_session_wrappers_use_the_shared_cache():
    calls = []

    @cs.cache_data(max_entries=4, show_spinner=False)
    def double(x: int) -> int:
        calls.append(x)
        return 2 * x

    assert double(3) == 6 and double(3) == 6 and calls == [3]  # one computation: the shared cache served it
    assert double.scoped and not double.upload_independent
    double.clear()
