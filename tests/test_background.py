"""ui.background: progress from finished blocks, cancel, a failure as a message, the same numbers as in-thread."""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
import pytest
from _helpers import wait
from streamlit.testing.v1 import AppTest

from dp_core.data import load_dataset
from dp_core.mechanisms import large_margin_gaussian as lmg
from dp_core.mechanisms.large_margin_gaussian import plan as lmj
from ui import background


# ---------------------------------------------------------------- blocks (module level: picklable)
def steps(n: int, pause: float, progress=None) -> int:
    """Count to ``n``, reporting each step."""
    for i in range(n):
        time.sleep(pause)
        if progress is not None:
            progress(i + 1, n)
    return n


def seeded_sum(seed: int, size: int) -> float:
    return float(np.random.default_rng(seed).normal(size=size).sum())


def refuse(eps: float) -> None:
    raise ValueError(f"epsilon must be > 0, got {eps}.")


@pytest.fixture(scope="module")
def pool():
    yield background.executor()
    background.shutdown()


def test_block_validation():
    with pytest.raises(TypeError, match="fn must be callable"):
        background.Block("a", 3)
    with pytest.raises(ValueError, match="weight must be > 0"):
        background.Block("a", steps, weight=0)
    with pytest.raises(ValueError, match="unique"):
        background.Job([background.Block("a", steps, (1, 0)), background.Block("a", steps, (1, 0))])
    with pytest.raises(ValueError, match="at least one Block"):
        background.Job([])


def test_inline_job_is_finished_at_once_and_matches_a_direct_call():
    job = background.Job([background.Block("s", seeded_sum, (7, 100)), background.Block("t", steps, (3, 0.0))])
    assert job.done() and job.progress() == 1.0
    assert job.result() == {"s": seeded_sum(7, 100), "t": 3}


def test_progress_grows_from_reports_and_blocks_to_one(pool):
    executor, board = pool
    blocks = [background.Block("slow", steps, (20, 0.05), weight=3.0), background.Block("fast", steps, (1, 0.0))]
    job = background.Job(blocks, executor=executor, board=board)
    seen = [job.progress()]
    while not job.done():
        seen.append(job.progress())
        time.sleep(0.02)
    seen.append(job.progress())
    assert all(0.0 <= p <= 1.0 for p in seen)
    assert seen == sorted(seen), "progress went backwards"
    assert seen[-1] == 1.0
    assert any(0.0 < p < 1.0 for p in seen), "no intermediate progress was reported"
    assert job.result() == {"slow": 20, "fast": 1}


def test_cancel_stops_a_running_block_and_drops_pending_ones(pool):
    executor, board = pool
    # 100 s of work per block if nothing stops it; more blocks than workers, so some are still pending
    blocks = [background.Block(f"b{i}", steps, (2000, 0.05)) for i in range(background.WORKERS + 2)]
    job = background.Job(blocks, executor=executor, board=board)
    wait(lambda: job.progress() > 0)
    job.cancel()
    wait(job.done)
    assert job.cancelled
    with pytest.raises(background.JobCancelled):
        job.result()
    assert "cancelled" in background.error_message(background.JobCancelled())
    assert job.progress() < 1.0 or job.done()
    # the workers are free again: a new job runs to completion
    again = background.Job([background.Block("x", steps, (2, 0.0))], executor=executor, board=board)
    assert again.result(timeout=120) == {"x": 2}


def test_failure_becomes_a_one_line_message(pool, page_failures):
    executor, board = pool
    job = background.Job(
        [background.Block("ok", steps, (1, 0.0)), background.Block("bad", refuse, (-1.0,))],
        executor=executor,
        board=board,
    )
    wait(job.done)
    assert isinstance(job.error(), ValueError)
    assert background.error_message(job.error()) == "epsilon must be > 0, got -1.0."
    assert job.finished() == {"ok": 1}
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        job.result()
    # an unexpected failure: a reference id, never its text (which may hold a server path); logged once per exception
    odd = RuntimeError("boom in /work/secret/path.py")
    shown = background.error_message(odd)
    assert "boom" not in shown and "/work/" not in shown and "RuntimeError" not in shown
    ref = re.search(r"reference ([0-9a-f]{8})\b", shown).group(1)
    assert background.error_message(odd) == shown
    logged = page_failures()
    assert len(logged) == 1 and ref in logged[0].getMessage() and logged[0].exc_info[1] is odd


def test_large_margin_sweeps_in_workers_equal_the_in_thread_run(pool):
    executor, board = pool
    task = lmg.make_task(load_dataset("iris"), n_train=None, k=2, seed=3)
    base = lmg.LargeMarginGaussian(epsilon=1.0)
    kw = dict(
        epsilons=(0.5, 2.0),
        modes=("corrected",),
        exc_mode="corrected",
        ns=(40, task.n),
        delta=0.05,
        mu_grid=(0.01, 0.1),
        h_grid=(0.5,),
        n_trials=12,
        seed=11,
    )
    here = background.Job(lmj.sweep_blocks(task, base, **kw)).result()
    there = background.Job(lmj.sweep_blocks(task, base, **kw), executor=executor, board=board).result(timeout=300)
    assert (
        set(here) == set(there) == {f"{s}:{w}" for s in ("quick", "full") for w in ("accuracy", "excess_n", "mu", "h")}
    )
    for name in here:
        a, b = here[name], there[name]
        for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,), strict=True):
            pd.testing.assert_frame_equal(x, y)
    # the quick pass is the first trials of the full run (prefix, not a redraw)
    quick_df, full_df = here["quick:accuracy"][0], here["full:accuracy"][0]
    head = full_df[full_df["trial"] < lmj.QUICK_TRIALS].reset_index(drop=True)
    pd.testing.assert_frame_equal(quick_df.reset_index(drop=True), head)


def _script():
    import streamlit as st

    from dp_core.mechanisms.large_margin_gaussian.plan import QUICK_TRIALS  # noqa: F401 - the page plan imports cleanly
    from ui import background as bg

    private = bool(st.session_state.get("private", False))
    key = "k-private" if private else "k-demo"
    bg.start("demo", key, [bg.Block("s", divmod, (7, 2))], private=private)
    bg.live_section("demo", lambda job: st.write(f"result {job.finished().get('s')}"))


@pytest.mark.parametrize("private", [False, True])
def test_finished_jobs_are_shared_only_for_demo_data(private):
    background.clear_shared()
    at = AppTest.from_function(_script, default_timeout=60)
    at.session_state["private"] = private
    at.run()
    assert not at.exception, at.exception
    assert any("result (3, 1)" in m.value for m in at.markdown)
    assert (background._shared_get("k-demo" if not private else "k-private") is not None) == (not private)


def _failing_script():
    import streamlit as st

    from ui import background as bg

    st.session_state["runs"] = st.session_state.get("runs", 0)

    def _count_and_fail(x: int) -> None:
        st.session_state["runs"] += 1  # inline blocks run in this session (this counts how often the block ran)
        raise ValueError(f"x must be > 1, got {x}.")

    restart = st.button("Run", key="run")
    job = bg.start("f", "k", [bg.Block("bad", _count_and_fail, (1,))], private=True, restart=restart)
    bg.live_section("f", lambda j: None)
    st.write(f"job {id(job)}")


def test_a_failed_job_is_shown_once_and_rerun_only_on_request():
    at = AppTest.from_function(_failing_script, default_timeout=60)
    at.run()
    assert any("x must be > 1, got 1." in e.value for e in at.error)
    at.run()  # a rerun shows the failure again without running the block again
    assert at.session_state["runs"] == 1
    at.button(key="run").click().run()  # the Run button retries
    assert at.session_state["runs"] == 2
    assert any("x must be > 1" in e.value for e in at.error)
