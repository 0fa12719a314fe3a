"""The BLAS thread rule (dp_core/_blas.py): one thread for small calls, the default for large ones, restored
afterwards, and the same numbers either way (input perturbation's batched ``eigh``, issue 29)."""

import contextlib

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS, which the rule must limit too)
from threadpoolctl import threadpool_info

from dp_core import _blas
from dp_core.mechanisms.input_perturbation import solver


def _blas_threads_now() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_rule_by_size():
    assert _blas.blas_threads(50.0**3) == 1
    assert _blas.blas_threads(_blas.SMALL_FLOPS * 0.999) == 1
    assert _blas.blas_threads(_blas.SMALL_FLOPS) is None
    assert _blas.blas_threads(1e12) is None


def test_small_block_runs_on_one_thread_and_restores():
    before = _blas_threads_now()
    assert before, "threadpoolctl finds no BLAS"
    with _blas.blas_threads_for(1e3):
        assert _blas_threads_now() == [1] * len(before)
    assert _blas_threads_now() == before
    with _blas.blas_threads_for(1e12):
        assert _blas_threads_now() == before


def test_restored_after_an_exception():
    before = _blas_threads_now()
    with pytest.raises(RuntimeError), _blas.single_threaded_blas():
        raise RuntimeError("inside")
    assert _blas_threads_now() == before


def test_batched_ball_solve_same_numbers_with_and_without_the_limit(monkeypatch):
    rng = np.random.default_rng(29)
    X = rng.standard_normal((40, 80, 30))
    A = np.einsum("tij,tik->tjk", X, X)
    h = rng.standard_normal((40, 30)) * np.linspace(1.0, 60.0, 40)[:, None]  # some inside the ball, some not
    limited = solver.solve_ball(A, h, 1.0, return_info=True)
    monkeypatch.setattr(solver, "blas_threads_for", lambda flops: contextlib.nullcontext())
    free = solver.solve_ball(A, h, 1.0, return_info=True)
    np.testing.assert_allclose(limited.w, free.w, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(limited.on_boundary, free.on_boundary)
    assert limited.on_boundary.any() and not limited.on_boundary.all()
