"""Public scales of the ℓ1 page (dp_core.mechanisms.l1_exponential.scaling) and their use in analyse_dataset."""

import numpy as np
import pytest

from dp_core.data import load_dataset, public_bounds
from dp_core.mechanisms.l1_exponential import simulation as sim
from dp_core.mechanisms.l1_exponential.mechanism import L1ExponentialRegression
from dp_core.mechanisms.l1_exponential.scaling import public_scaling
from dp_core.preprocessing import parse_bounds


def test_demo_features_take_the_documented_constants_and_census_its_public_target():
    ds = load_dataset("census")
    s = public_scaling(ds, (0, 3))
    b = public_bounds(ds)
    assert s.centre == (b.centre[0], b.centre[3]) and s.scale == (b.scale[0], b.scale[3])
    assert (s.y_centre, s.y_scale) == (0.5, 0.5) and not s.data_derived


def test_a_target_without_public_scale_is_data_derived():
    s = public_scaling(load_dataset("diabetes"), (0,))
    assert not s.features_data_derived and s.target_data_derived and s.data_derived


def test_an_upload_without_declared_ranges_is_data_derived_and_declared_ones_are_not():
    ds = load_dataset("iris")
    up = ds.__class__(**{**ds.__dict__, "name": "upload:iris.csv"})
    assert public_scaling(up, (0, 1)).features_data_derived
    declared = up.with_public_bounds(parse_bounds("4:8,2:5,1:7,0:3", up.feature_names))
    assert not public_scaling(declared, (0, 1)).features_data_derived


def test_analyse_dataset_uses_the_public_constants_and_names_the_data_derived_target():
    ds = load_dataset("diabetes")
    s = public_scaling(ds, (2,))
    est = L1ExponentialRegression(epsilon=1.0, theta=1.5, radius=1.0)
    kw = dict(feature_names=ds.feature_names, estimator=est, features=(2,), n_releases=5, seed=0, baselines=False)
    an = sim.analyse_dataset(ds.X, ds.y, standardise=False, scaling=s, **kw)
    assert any("public constants (documented ranges of diabetes)" in n for n in an.notes)
    assert any("training median" in n and "does not cover" in n for n in an.notes)
    # the scaled target the mechanism saw: centred at the training median, unit mean absolute deviation
    assert np.median(an.y_train) == pytest.approx(0.0, abs=1e-12)
    assert np.mean(np.abs(an.y_train)) == pytest.approx(1.0, rel=1e-12)
    assert an.mae_median == pytest.approx(sim.headline(an, 1.0)["mae_median"])


def test_errors_name_the_parameter():
    ds = load_dataset("census")
    with pytest.raises(ValueError, match="feature index"):
        public_scaling(ds, (99,))
    with pytest.raises(ValueError, match="at least one column"):
        public_scaling(ds, ())
    with pytest.raises(TypeError, match="Dataset"):
        public_scaling("census", (0,))
