"""The engine helpers behind the input-perturbation page: feasibility, size grids and the utility numbers."""

import math

import numpy as np
import pandas as pd
import pytest

from dp_core.mechanisms.input_perturbation.experiment import n_choices, sweep_sizes, utility_at, utility_frame
from dp_core.mechanisms.input_perturbation.params import feasibility, input_perturbation_params, min_n


@pytest.mark.parametrize("mode", ["COR2", "ALG1", "CORR"])
@pytest.mark.parametrize("n", [20, 40, 55, 80, 1000])
def test_feasibility_is_the_sigma_u_domain_and_delta_min_inverts_it(n, mode):
    delta = 1e-5
    f = feasibility(n, delta, mode)
    key = "alg1" if mode == "ALG1" else "cor2"
    assert f.n_min == pytest.approx(min_n(delta)[key], rel=1e-12)
    assert f.n_theorem2 == pytest.approx(min_n(delta)["theorem2"], rel=1e-12)
    assert f.ok == (n > f.n_min)
    # delta_min is where n sits exactly at the minimum: n = 4 ln(c / delta_min)
    assert min_n(min(f.delta_min, 0.5))[key] == pytest.approx(n, rel=1e-9) or f.delta_min > 0.5
    if f.ok:  # sigma_u is defined: the calibration succeeds
        p = input_perturbation_params(n=n, d=3, epsilon=1.0, delta=delta, eta=1.0, zeta=2.0, lam=1.0, sigma_u_mode=mode)
        assert math.isfinite(p.sigma_u)
    if f.delta_min < 0.5:  # just above delta_min, the same n is enough
        assert feasibility(n, f.delta_min * 1.01, mode).ok


def test_feasibility_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match="delta"):
        feasibility(100, 0.0)
    with pytest.raises(ValueError, match="mode"):
        feasibility(100, 1e-5, "XYZ")
    with pytest.raises((ValueError, TypeError), match="n"):
        feasibility(0, 1e-5)


def test_size_grids():
    assert sweep_sizes(16000, 14, 54.4) == (64, 256, 1024, 4096, 16000)
    assert sweep_sizes(80, 4, 54.4) == (64, 80)
    assert sweep_sizes(55, 4, 54.4) == ()
    opts = n_choices(80, 54.4)
    assert opts[:2] == (64, 80) and all(v > 54.4 for v in opts) and list(opts) == sorted(opts)


def _frame(metric_name: str, values: dict) -> pd.DataFrame:
    rows = [
        {"n": n, "method": m, "trial": t, "test_metric": v, "metric_name": metric_name}
        for (n, m), vs in values.items()
        for t, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def test_utility_r2_from_rmse_and_the_trivial_baseline():
    y = np.array([-1.0, 0.0, 1.0, 2.0])  # variance 1.25
    df = _frame("rmse", {(10, "input"): [1.0, 0.5], (10, "nonprivate"): [0.0, 0.0], (5, "input"): [9.0, 9.0]})
    u, name = utility_frame(df, y)
    assert name == "test R²"
    assert u["utility"].tolist()[:2] == pytest.approx([1 - 1 / 1.25, 1 - 0.25 / 1.25])
    h = utility_at(df, y)
    assert h["n"] == 10 and h["trials"] == 2 and h["trivial"] == 0.0
    assert h["private"] == pytest.approx(1 - 0.625 / 1.25) and h["nonprivate"] == pytest.approx(1.0)
    se = np.std([0.2, 0.8], ddof=1) / math.sqrt(2)
    assert h["private_hi"] - h["private"] == pytest.approx(1.96 * se)
    with pytest.raises(ValueError, match="n must be one of"):
        utility_at(df, y, n=7)
    with pytest.raises(ValueError, match="constant"):
        utility_frame(df, np.ones(4))


def test_utility_accuracy_kept_and_majority_baseline():
    y = np.array([1.0, 1.0, 1.0, -1.0])
    df = _frame("accuracy", {(4, "input"): [0.5, 0.75], (4, "nonprivate"): [1.0, 1.0]})
    h = utility_at(df, y)
    assert h["metric"] == "test accuracy" and h["private"] == pytest.approx(0.625) and h["trivial"] == 0.75


def test_the_tour_alpha_choices_are_the_plugin_s():
    from dp_core.mechanisms.input_perturbation import PLUGIN
    from ui.constants import IP_ALPHA_OPTIONS

    assert tuple(PLUGIN.param("alpha").options) == IP_ALPHA_OPTIONS
