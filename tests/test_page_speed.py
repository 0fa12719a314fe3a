"""Page-speed rules that can be checked without timing anything.

* The engine modules a page imports on its first visit do not pull in ``scipy.stats`` (about 0.4 s): the
  replacements give the same numbers as ``scipy.stats``.
* ``ui.background``'s warm-up waits while a visitor's script runs (``script_run``), and proceeds once none is.
* The large-margin page's cached figure is handed out as the stored object (no unpickled copy).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from scipy import stats

from ui import background

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


#: Modules the mechanism pages import on their first visit (the page's engine, its figures, its cached wrappers).
PAGE_MODULES = (
    "dp_core.mechanisms.label_dp_bags",
    "dp_core.mechanisms.label_dp_bags.figures",
    "dp_core.mechanisms.input_perturbation",
    "dp_core.mechanisms.large_margin_gaussian",
    "dp_core.mechanisms.label_dp_bags.plan",
    "dp_core.mechanisms.input_perturbation.plan",
    "dp_core.mechanisms.large_margin_gaussian.plan",
    "ui.widgets",
)


def test_page_modules_and_first_screen_accounting_do_not_import_scipy_stats():
    """One fresh interpreter imports every module above and runs the label-DP first screen's bag suggestion
    (the exact hypergeometric delta) and the input-perturbation conservative accounting (a chi-square
    quantile): ``scipy.stats`` is still not imported."""
    code = (
        "import sys, importlib\n"
        f"for m in {PAGE_MODULES!r}: importlib.import_module(m)\n"
        "print('scipy.stats' in sys.modules)\n"
        "from dp_core.mechanisms import label_dp_bags as lb\n"
        "from dp_core.mechanisms.input_perturbation import params as ipp\n"
        "s = lb.suggest_bag_params(2000, epsilon=1.0, d=5, rho=0.1, min_bags=7)\n"
        "p = ipp.input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)\n"
        "c = ipp.conservative_accounting(p)\n"
        "print(s.k > 0, round(c.t, 4), 'scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "True", "0.1328", "False"]


def test_hypergeom_pmf_equals_scipy_stats_exactly():
    from dp_core.mechanisms.label_dp_bags.bounds import hypergeom_pmf

    rng = np.random.default_rng(0)
    for _ in range(150):
        M = int(rng.integers(1, 600))
        n = int(rng.integers(0, M + 1))
        N = int(rng.integers(0, M + 1))
        k = np.arange(-2, N + 3)  # the support and beyond both ends
        np.testing.assert_array_equal(hypergeom_pmf(k, M, n, N), stats.hypergeom.pmf(k, M, n, N))
    # a scalar in and out, and the support sums to one
    assert float(hypergeom_pmf(0, 10, 0, 3)) == 1.0
    assert float(np.sum(hypergeom_pmf(np.arange(0, 30), 1000, 50, 29))) == pytest.approx(1.0, rel=1e-12)


def test_chi_square_replacements_equal_scipy_stats():
    from scipy import special

    rng = np.random.default_rng(1)
    for _ in range(2000):
        d = int(rng.integers(1, 400))
        q = 10 ** rng.uniform(-15, -0.01)
        assert float(special.chdtri(d, q)) == float(stats.chi2.isf(q, d))
        x = float(rng.uniform(0.01, 60.0))
        assert np.log(special.chdtrc(d, x)) == pytest.approx(float(stats.chi2.logsf(x, d)), rel=1e-12)


def test_warm_up_waits_while_a_script_runs(monkeypatch):
    """The warm-up's steps wait for a quiet moment: none starts while a visitor's script is running."""
    monkeypatch.setattr(background, "QUIET", 0.05)
    done = threading.Event()

    def waiter():
        background._wait_until_quiet(poll=0.01)
        done.set()

    with background.script_run():
        t = threading.Thread(target=waiter, daemon=True)
        t.start()
        time.sleep(0.3)
        assert not done.is_set(), "the warm-up went ahead while a script was running"
        with background.script_run():  # nested runs (two sessions) count too
            pass
        time.sleep(0.2)
        assert not done.is_set()
    t.join(timeout=30)
    assert done.is_set(), "the warm-up never went ahead after the script ended"


def test_script_run_counts_back_down_when_the_script_stops():
    before = background._RUNS
    with pytest.raises(RuntimeError):
        with background.script_run():
            assert background._RUNS == before + 1
            raise RuntimeError("st.stop() or a rerun leaves the script by an exception")
    assert background._RUNS == before


def test_large_margin_regions_figure_is_the_stored_object():
    """Two calls with the same key return the very same figure (``cache_resource``), not unpickled copies, and
    it is the figure a direct call builds."""
    from dp_core.data import load_dataset
    from dp_core.mechanisms import large_margin_gaussian as lmg
    from ui.cached import plan

    clm = plan("large-margin-gaussian")
    ds = load_dataset("gaussian_classes", n=200, seed=0)
    task = clm.task(ds.name, ds.fingerprint, None, 2, 0, _ds=ds)
    key = (task.name, task.n, task.d, task.n_classes)
    config = lmg.LargeMarginGaussian(epsilon=1.0, lam=0.01, h=0.5)
    draw = clm.one_draw(key, ds.fingerprint, config, 0, 0, _task=task)
    a = clm.regions_figure(key, ds.fingerprint, config, 0, 0, _draw=draw, _task=task)
    b = clm.regions_figure(key, ds.fingerprint, config, 0, 0, _draw=draw, _task=task)
    assert a is b
    direct = clm.regions_figure.__wrapped__(key, ds.fingerprint, config, 0, 0, _draw=draw, _task=task)
    assert a.to_json() == direct.to_json()


# ------------------------------------------------ a job started before the pool (module level: picklable)
def seeded_sum(seed: int, size: int) -> float:
    return float(np.random.default_rng(seed).normal(size=size).sum())


def counted(n: int, progress=None) -> int:
    for i in range(n):
        if progress is not None:
            progress(i + 1, n)
    return n


def _wait(cond, limit: float = 180.0) -> None:
    end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < end, "the job never reached the expected state"
        time.sleep(0.05)


def test_a_job_submitted_before_the_pool_starts_gives_the_in_thread_results():
    """The first job on a fresh server is created at once (the pool starts behind it) and gives the same
    numbers as the same blocks run in the calling thread; progress reports reach the pool's board."""
    background.shutdown()
    try:
        assert not background._pool_ready()
        blocks = [
            background.Block("a", seeded_sum, (3, 1000)),
            background.Block("b", counted, (5,)),
        ]
        board = background._PendingBoard()
        job = background.Job(blocks, executor=background._PendingPool(board), board=board)
        assert 0.0 <= job.progress() <= 1.0  # readable before the pool exists
        _wait(job.done)
        assert background._pool_ready()
        assert job.result() == background.Job(blocks).result() == {"a": seeded_sum(3, 1000), "b": 5}
        assert job.progress() == 1.0
    finally:
        background.shutdown()


def test_a_job_cancelled_before_the_pool_starts_is_cancelled():
    background.shutdown()
    try:
        board = background._PendingBoard()
        job = background.Job(
            [background.Block("b", counted, (5,))], executor=background._PendingPool(board), board=board
        )
        job.cancel()
        assert job.cancelled and job.done()
        with pytest.raises(background.JobCancelled):
            job.result()
        assert board.get(("cancel", job.id)) is True  # kept for the pool's board
    finally:
        background.shutdown()
