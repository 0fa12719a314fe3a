"""The label-DP first screen's engine pieces: measured utility, bags for a useful model, bag warnings."""

from __future__ import annotations

import dataclasses

import pytest

from dp_core.data import load_dataset
from dp_core.mechanisms import label_dp_bags as lb


@pytest.fixture(scope="module")
def census():
    return lb.prepare_dataset(load_dataset("census"), label_range=None, b1=1.0, seed=0)


def test_first_screen_utility_is_seeded_and_between_no_privacy_and_the_average(census):
    kw = dict(variant="noisy-wtd-llp", k=2, m=841, rho=0.1, noise_std=1.0, n_trials=20, seed=3)
    a = lb.first_screen_utility(census, **kw)
    assert a == lb.first_screen_utility(census, **kw)  # same seed, same numbers
    assert a["nonprivate"] < a["mse"] < a["trivial"] and a["useful"]
    assert a["gaussian"] is None
    b = lb.first_screen_utility(census, **kw, epsilon=1.0, delta=1e-5)
    assert b["mse"] == pytest.approx(a["mse"], rel=1e-12)  # the baseline does not change the mechanism's draws
    assert b["gaussian"] > b["nonprivate"]
    # the error shrinks with more bags, as the random-design prediction says (d = 15 unknowns)
    few = lb.first_screen_utility(census, **{**kw, "m": 40})
    assert few["mse"] > a["mse"] + 3 * (few["mse_se"] + a["mse_se"])


def test_first_screen_utility_refuses_a_non_private_variant(census):
    with pytest.raises(ValueError, match="variant"):
        lb.first_screen_utility(census, variant="naive-llp", k=2, m=10, rho=0.1, noise_std=1.0, n_trials=5, seed=0)
    with pytest.raises(ValueError, match="n_trials"):
        lb.first_screen_utility(census, variant="wtd-lba", k=2, m=10, rho=0.1, noise_std=1.0, n_trials=1, seed=0)


def test_bags_for_useful_model_meets_the_prediction():
    d, npv, triv, rho = 15, 0.2, 0.35, 0.1
    m = lb.bags_for_useful_model(d=d, nonprivate=npv, trivial=triv, rho=rho)

    def predicted(mm):
        return npv + (npv + rho) * d / (mm - d - 1)

    assert predicted(m) < triv <= predicted(m - 1)
    # more noise, or a smaller gap to the average, needs more bags; no gap: no number of rows helps
    assert lb.bags_for_useful_model(d=d, nonprivate=npv, trivial=triv, rho=0.5) > m
    assert lb.bags_for_useful_model(d=d, nonprivate=npv, trivial=0.25, rho=rho) > m
    assert lb.bags_for_useful_model(d=d, nonprivate=0.4, trivial=0.35) is None
    # from a measurement at m bags: scaled as 1/(m - d - 1), never fewer bags than a useless measurement had
    m_meas = lb.bags_for_useful_model(d=d, nonprivate=npv, trivial=triv, measured=0.5, m=40)
    assert m_meas > 40 and npv + (0.5 - npv) * (40 - d - 1) / (m_meas - d - 1) < triv


def test_utility_min_bags_and_bag_warnings(census):
    assert lb.utility_min_bags(15) == 31
    with pytest.raises(ValueError, match="d"):
        lb.utility_min_bags(0)
    c = lb.data_conditions(census.X, census.y, 1.0, k=4, m=10)
    base = lb.data_conditions(census.X, census.y, 1.0)
    assert c["warnings"] == base["warnings"] + lb.bag_warnings(base["n"], base["rank"], k=4, m=10)
    assert any("rank" in w for w in lb.bag_warnings(100, 15, k=4)) and lb.bag_warnings(100, 3, k=400) == []
    assert any("infeasible" in w for w in lb.bag_warnings(100, 3, k=20, m=10))


def test_public_label_ranges_hold_the_demo_labels_and_uploads_get_none():
    from dp_core.data import DATASETS, Dataset

    for name in DATASETS:
        ds = load_dataset(name)
        got = lb.public_label_range(ds)
        if got is not None:
            lo, hi, source = got
            assert lo <= ds.y.min() and ds.y.max() <= hi and source
    assert lb.public_label_range(load_dataset("census"))[:2] == (0.0, 1.0)
    assert lb.public_label_range(load_dataset("diabetes")) is None
    upload = dataclasses.replace(load_dataset("iris"), name="upload:iris.csv")
    assert isinstance(upload, Dataset) and lb.public_label_range(upload) is None
    with pytest.raises(TypeError, match="ds"):
        lb.public_label_range("census")
