"""Public per-column bounds and per-record preprocessing (issue 13 item 3)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from dp_core.data import DATASETS, PUBLIC_BOUNDS, load_dataset, public_bounds
from dp_core.mechanisms.input_perturbation.experiment import prepare_data
from dp_core.preprocessing import (
    PREPROCESS_METHODS,
    PublicBounds,
    bounds_from_data,
    default_eta,
    eta_cap_note,
    preprocess_rows,
    reference_eta,
)


def test_documented_ranges_contain_every_demo_row():
    for name in PUBLIC_BOUNDS:
        ds = load_dataset(name)
        b = public_bounds(ds)
        assert not b.data_derived and b.source
        assert np.all(ds.X >= np.asarray(b.lo)) and np.all(ds.X <= np.asarray(b.hi)), name


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_demo_dataset_has_public_bounds(name):
    ds = load_dataset(name)
    b = public_bounds(ds)
    assert b.d == ds.d
    assert not b.data_derived
    assert b.leak_warning == ""


def test_an_upload_gets_data_derived_bounds_with_the_leak_warning(tmp_path):
    path = tmp_path / "mine.csv"
    rows = "".join(f"{i % 7},{(i * 13) % 17},{i % 2}\n" for i in range(60))
    path.write_text("a,b,label\n" + rows)
    ds = load_dataset(str(path))
    b = public_bounds(ds)
    assert b.data_derived
    assert "computed from the uploaded records" in b.leak_warning
    prep = prepare_data(ds, "logistic_taylor")
    assert any("computed from the uploaded records" in leak for leak in prep.leaks)
    # a demo dataset's preparation has no leak at all
    assert prepare_data(load_dataset("breast_cancer"), "logistic_taylor").leaks == ()


def test_bounds_from_data_values():
    b = bounds_from_data(np.array([[0.0, 5.0], [2.0, 5.0]]))
    assert b.lo == (0.0, 4.5) and b.hi == (2.0, 5.5)
    assert b.centre == (1.0, 5.0) and b.scale == (1.0, 0.5)  # a constant column: its half-range


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"lo": (0.0,), "hi": (0.0,)}, "hi must exceed lo"),
        ({"lo": (0.0, 1.0), "hi": (1.0,)}, "same length"),
        ({"lo": (0.0,), "hi": (1.0,), "scale": (0.0,)}, "scale > 0"),
        ({"lo": (0.0,), "hi": (math.inf,)}, "finite"),
        ({"lo": (0.0,), "hi": (1.0,), "centre": (0.5, 0.5)}, "entries"),
    ],
)
def test_invalid_bounds_are_rejected_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        PublicBounds(**kw)


def test_preprocess_rejects_bad_inputs():
    b = PublicBounds((0.0, 0.0), (1.0, 1.0))
    with pytest.raises(ValueError, match="method"):
        preprocess_rows(np.zeros((2, 2)), b, "standardise")
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        preprocess_rows(np.zeros((2, 3)), b)
    with pytest.raises(ValueError, match="finite"):
        preprocess_rows(np.array([[np.nan, 0.0]]), b)
    with pytest.raises(TypeError, match="PublicBounds"):
        preprocess_rows(np.zeros((2, 2)), (0, 1))


@settings(max_examples=60, deadline=None)
@given(
    X=hst.lists(hst.lists(hst.floats(-1e3, 1e3, allow_nan=False), min_size=3, max_size=3), min_size=1, max_size=12).map(
        np.array
    ),
    method=hst.sampled_from(PREPROCESS_METHODS),
)
def test_rows_end_in_the_unit_ball_and_depend_on_their_own_record_only(X, method):
    b = PublicBounds((-10.0, 0.0, -1.0), (10.0, 100.0, 1.0), centre=(0.0, 20.0, 0.0), scale=(3.0, 15.0, 0.5))
    Z = preprocess_rows(X, b, method)
    assert Z.shape == X.shape
    assert np.all(np.linalg.norm(Z, axis=1) <= 1.0 + 1e-12)
    # per record: row i alone gives the same output (no statistic of the other rows is used)
    for i in range(X.shape[0]):
        np.testing.assert_allclose(preprocess_rows(X[i : i + 1], b, method)[0], Z[i], rtol=0, atol=1e-15)


def test_normalize_gives_unit_rows_and_minmax_matches_the_historical_rule():
    b = PublicBounds((0.0, 0.0), (2.0, 4.0))
    X = np.array([[2.0, 0.0], [0.5, 3.0], [1.0, 2.0]])
    Z = preprocess_rows(X, b, "normalize")
    np.testing.assert_allclose(np.linalg.norm(Z[:2], axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(Z[2], [0.0, 0.0])  # the centre itself stays 0
    M = preprocess_rows(X, b, "minmax")
    np.testing.assert_allclose(M, (X / np.array([2.0, 4.0])) / math.sqrt(2), rtol=1e-12)
    # values outside the declared range are clipped to it first
    np.testing.assert_allclose(preprocess_rows(np.array([[9.0, 9.0]]), b, "scale"), [[1 / math.sqrt(2)] * 2])


def test_default_eta_rule():
    assert default_eta(31, 1.0) == 1.0
    assert default_eta(31, 10.0) == pytest.approx(math.sqrt(31), rel=1e-12)
    assert default_eta(31, 100.0) == default_eta(31)
    assert default_eta(4, None, "minmax") == pytest.approx(4.0)
    etas = [default_eta(31, e) for e in (0.1, 1.0, 3.0, 5.0, 10.0, 30.0)]
    assert etas == sorted(etas) and all(e >= 1.0 for e in etas)
    assert reference_eta(31) == pytest.approx(2 * math.sqrt(31))
    with pytest.raises(ValueError, match="d must be"):
        default_eta(0)
    with pytest.raises(ValueError, match="epsilon"):
        default_eta(3, -1.0)


def test_eta_cap_note():
    assert "bound limits accuracy" in eta_cap_note(1.0, 1.0)
    assert eta_cap_note(0.5, 1.0) == ""
    with pytest.raises(ValueError, match="eta"):
        eta_cap_note(1.0, 0.0)


def _standardised_lr(ds, seed):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from dp_core.rng import as_generator

    n_test = int(round(0.2 * ds.n))
    perm = as_generator(seed).permutation(ds.n)
    te, tr = perm[:n_test], perm[n_test:]
    sc = StandardScaler().fit(ds.X[tr])
    return (
        LogisticRegression(max_iter=1000).fit(sc.transform(ds.X[tr]), ds.y[tr]).score(sc.transform(ds.X[te]), ds.y[te])
    )


@pytest.mark.slow
def test_breast_cancer_accuracy_targets():
    """Reference within 0.01 of a standardised logistic regression; best paper mechanism >= 0.95 at eps = 10.

    8 seeds (each its own split) x 10 trials; tolerances are 3 standard errors over the seeds.
    """
    pytest.importorskip("sklearn")
    from dp_core.compare.registry import CompareSpec
    from dp_core.mechanisms.input_perturbation.compare import InputPerturbationAdapter

    ds = load_dataset("breast_cancer")
    ad = InputPerturbationAdapter()
    gaps, best10 = [], []
    for seed in range(8):
        spec = CompareSpec(epsilons=(10.0,), delta=1e-5, n_trials=10, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            st = ad.prepare(ds, spec)
        gaps.append(_standardised_lr(ds, seed) - ad.nonprivate_utility(st))
        frame = ad.block(st, {"epsilon": 10.0}, np.random.SeedSequence([seed, 10]).spawn(10), spec)
        best10.append(frame.groupby("method")["utility"].mean().to_numpy())
    gaps = np.asarray(gaps)
    se_gap = gaps.std(ddof=1) / math.sqrt(len(gaps))
    assert abs(gaps.mean()) <= 0.01 + 3 * se_gap, (gaps.mean(), se_gap)
    acc = np.asarray(best10)  # seeds x methods
    means = acc.mean(axis=0)
    j = int(np.argmax(means))
    se = acc[:, j].std(ddof=1) / math.sqrt(acc.shape[0])
    assert means[j] >= 0.95 - 3 * se, (means, se)


def test_eta_cap_reports_a_binding_bound():
    from dp_core.mechanisms.input_perturbation.experiment import eta_cap

    data = prepare_data(load_dataset("breast_cancer"), "logistic_taylor")
    cap = eta_cap(data, 1.0)
    assert cap["binding"] and cap["w_norm"] > 1.0 and "bound limits accuracy" in cap["note"]
    loose = eta_cap(data, cap["w_norm"] * 1.1)
    assert not loose["binding"] and loose["note"] == ""
