"""Thread-local single-threaded BLAS for the many small matrix products of the simulations.

The samplers split their work over (at most two) threads of their own, and the comparison sweeps run
thousands of small fits and products. OpenBLAS's own thread pool on top of that, on a two-core machine
shared with other work (other sessions of the app, other processes), makes small products tens of
times slower: the compare sweep on breast_cancer took 3.6 times as long with it (measured side by side).
OpenBLAS >= 0.3.27 offers ``openblas_set_num_threads_local``, which changes the thread count *of the
calling thread only* (other sessions' threads keep theirs); this module calls it through ctypes when
the library is found and otherwise does nothing (results are identical either way; only speed changes).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["single_threaded_blas"]


@functools.cache
def _local_setters() -> tuple:
    """``openblas_set_num_threads_local`` of every OpenBLAS bundled with numpy and scipy (each has its own)."""
    found = []
    for package in ("numpy", "scipy"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = os.path.dirname(next(iter(spec.submodule_search_locations))) + f"/{package}.libs"
        for path in sorted(glob.glob(os.path.join(folder, "lib*openblas*.so*"))):
            try:
                lib = ctypes.CDLL(path)
                fn = lib.openblas_set_num_threads_local
            except (OSError, AttributeError):
                continue
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_int]
            found.append(fn)
    return tuple(found)


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the body with one BLAS thread in the calling thread (no effect on other threads)."""
    setters = _local_setters()
    old = [fn(1) for fn in setters]
    try:
        yield
    finally:
        for fn, value in zip(setters, old):
            fn(max(int(value), 1))
