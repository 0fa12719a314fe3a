"""Thread-local single-threaded BLAS for the many small matrix products of the samplers.

The samplers split their work over (at most two) threads of their own. OpenBLAS's own thread
pool on top of that, on a two-core machine shared with other work, makes small products tens of
times slower. OpenBLAS >= 0.3.27 offers ``openblas_set_num_threads_local``, which changes the
thread count *of the calling thread only*; this module calls it through ctypes when the library
is found and otherwise does nothing (results are identical either way; only speed changes).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["single_threaded_blas"]


@functools.cache
def _local_setter():
    folder = os.path.dirname(np.__file__) + ".libs"
    for path in sorted(glob.glob(os.path.join(folder, "lib*openblas*.so*"))):
        try:
            lib = ctypes.CDLL(path)
            fn = lib.openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_int]
        return fn
    return None


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the body with one BLAS thread in the calling thread (no effect on other threads)."""
    fn = _local_setter()
    if fn is None:
        yield
        return
    old = fn(1)
    try:
        yield
    finally:
        fn(max(int(old), 1))
