"""The label-DP engine runs its small least-squares products with one BLAS thread: the same numbers as before.

``PreparedData.optimum``, ``data_conditions`` and the blocks of ``utility_sweep`` (hence the page's first-screen
utility) run inside ``dp_core._blas.single_threaded_blas`` for speed on a shared machine. Here each is computed
again with that context replaced by a no-op (BLAS's own thread count, as before) and compared.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from dp_core.data import load_dataset
from dp_core.mechanisms import label_dp_bags as lb
from dp_core.mechanisms.label_dp_bags import batch, diagnostics

RTOL = 1e-12


@pytest.fixture(scope="module", params=["census", "diabetes"])
def data(request):
    ds = load_dataset(request.param)
    known = lb.public_label_range(ds)
    return lb.prepare_dataset(ds, label_range=None if known is None else known[:2], b1=1.0, seed=0)


def _without_single_thread(monkeypatch):
    for mod in (batch, diagnostics):
        monkeypatch.setattr(mod, "single_threaded_blas", contextlib.nullcontext)


def _close(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _close(a[key], b[key])
    elif isinstance(a, np.ndarray | float | int) and not isinstance(a, bool):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)
    else:
        assert a == b


def _all(data) -> dict:
    k, m = 4, data.n // 8
    return {
        "optimum": data.optimum(),
        "conditions": {key: v for key, v in lb.data_conditions(data.X, data.y, 1.0).items() if key != "warnings"},
        "utility": lb.first_screen_utility(
            data, variant="noisy-wtd-llp", k=k, m=m, rho=0.1, noise_std=1.0, n_trials=6, seed=3, epsilon=1.0, delta=1e-5
        ),
        "sweep": lb.utility_sweep(
            data, [{"k": 2, "m": m, "rho": 0.2}, {"k": k, "m": m // 2, "rho": 0.1}], n_trials=3, seed=5
        )[["test_mse", "excess_risk", "ratio"]].to_numpy(),
    }


def test_one_blas_thread_gives_the_same_numbers(data, monkeypatch):
    now = _all(data)
    _without_single_thread(monkeypatch)
    before = _all(data)
    _close(now, before)
    assert 0 < now["utility"]["nonprivate"] <= now["utility"]["mse"]  # real numbers were compared
