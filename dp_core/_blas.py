"""BLAS threads by problem size: one rule for every small-matrix path of the engine, through threadpoolctl.

The samplers split their work over threads of their own, and the simulations run thousands of small fits,
products and batched eigendecompositions. OpenBLAS's own thread pool on top of that, on a shared machine,
makes small operations many times slower: input perturbation's batched ``eigh`` (d = 50, 100 trials) took
13-23x the CPU time with the default threads than with one (issue 29); the compare sweep on breast_cancer
3.6x the wall time. The rule (:func:`blas_threads`): an operation whose single matrix call costs fewer
than ``SMALL_FLOPS`` floating-point operations runs on one BLAS thread; a larger one keeps the library's
default. Results are the same either way (only speed changes).

threadpoolctl (a scikit-learn project) finds every BLAS loaded in the process (numpy and scipy each bundle
their own OpenBLAS). Where the OpenBLAS offers ``openblas_set_num_threads_local`` (>= 0.3.27) the limit
applies to the calling thread only, so other sessions of the app keep their threads; otherwise
threadpoolctl's process-wide limit is used for the duration of the block.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

__all__ = ["SMALL_FLOPS", "blas_threads", "blas_threads_for", "single_threaded_blas"]

#: One matrix call below this many flops runs on one BLAS thread (a 270 x 270 product or ``eigh``; measured
#: on the 2-core machine: threads start to pay off for products of a few times 10^7 flops).
SMALL_FLOPS = 2e7


def blas_threads(flops: float) -> int | None:
    """BLAS threads for one matrix call of ``flops`` operations: 1 when small, ``None`` (library default) otherwise.

    >>> blas_threads(50**3), blas_threads(1e9)
    (1, None)
    """
    return 1 if float(flops) < SMALL_FLOPS else None


@functools.cache
def _controller(scipy_linalg_loaded: bool):
    """threadpoolctl's view of the BLAS libraries loaded now (scipy's OpenBLAS loads with ``scipy.linalg``)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def _local_setters(controller) -> list:
    """``openblas_set_num_threads_local`` of each OpenBLAS, or ``[]`` when one of the libraries lacks it."""
    setters = []
    for lib in controller.lib_controllers:
        fn = getattr(getattr(lib, "dynlib", None), "openblas_set_num_threads_local", None)
        if lib.internal_api != "openblas" or fn is None:
            return []
        setters.append(fn)
    return setters


@contextmanager
def _limited(threads: int) -> Iterator[None]:
    controller = _controller("scipy.linalg" in sys.modules)
    setters = _local_setters(controller)
    if not setters:
        with controller.limit(limits=threads):
            yield
        return
    old = [fn(threads) for fn in setters]
    try:
        yield
    finally:
        for fn, value in zip(setters, old):
            fn(max(int(value), 1))


def blas_threads_for(flops: float):
    """Context manager applying :func:`blas_threads` to the body (no change for a large problem)."""
    threads = blas_threads(flops)
    return nullcontext() if threads is None else _limited(threads)


def single_threaded_blas():
    """One BLAS thread for the body: the rule for paths known to make only small calls."""
    return _limited(1)
