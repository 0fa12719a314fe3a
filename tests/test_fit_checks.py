"""dp_core.fit_checks on data the project never tuned on: statsmodels' affairs survey, scikit-learn's digits
and wine, and a seeded synthetic target."""

import numpy as np
import pytest

from dp_core.fit_checks import (
    R2_FLAG,
    classification_target,
    intercept_reach,
    poor_fit,
    target_offset,
    target_skewness,
)

datasets = pytest.importorskip("sklearn.datasets")
sm = pytest.importorskip("statsmodels.api")


def _affairs() -> np.ndarray:
    return sm.datasets.fair.load_pandas().data["affairs"].to_numpy(dtype=float)


def _to_unit(y: np.ndarray) -> np.ndarray:
    """The target mapped from its range to [-1, 1], as input perturbation does without a public range."""
    return 2.0 * (y - y.min()) / (y.max() - y.min()) - 1.0


def test_digits_and_wine_codes_are_read_as_classes_even_when_declared_regression():
    for y in (datasets.load_digits().target, datasets.load_wine().target):
        sentence = classification_target(y.astype(float))
        assert sentence is not None and "class codes" in sentence
        assert str(len(np.unique(y))) in sentence


def test_a_declared_classification_task_is_named():
    y = datasets.load_wine().target.astype(float)
    assert "multiclass target with 3 classes" in classification_target(y, task="multiclass", name="cultivar")


def test_real_valued_targets_are_not_class_codes():
    assert classification_target(_affairs()) is None
    assert classification_target(datasets.load_diabetes().target) is None  # integers, but hundreds of them
    y = np.random.default_rng(3).normal(size=500)
    assert classification_target(y) is None


def test_non_consecutive_few_values_are_not_codes():
    assert classification_target(np.array([0.0, 10.0, 20.0, 10.0])) is None


def test_offset_predicts_the_r2_of_predicting_zero():
    y = np.random.default_rng(7).normal(5.0, 2.0, size=2000)
    r2_zero = 1.0 - np.mean(y**2) / np.var(y)
    assert r2_zero == pytest.approx(-(target_offset(y) ** 2), rel=1e-12)


def test_affairs_mapped_to_unit_range_is_flagged_with_offset_and_skew():
    ys = _to_unit(_affairs())
    assert target_offset(ys) > 10 and target_skewness(ys) > 5
    flag = poor_fit(ys, -9.0, intercept_reach=intercept_reach(1.0))
    assert flag is not None and len(flag.causes) == 2
    assert "standard deviations from 0" in flag.causes[0] and "skewed" in flag.causes[1]
    assert "10 times" in flag.message and "R² = -9" in flag.message


def test_a_wide_intercept_removes_the_offset_cause():
    ys = _to_unit(_affairs())
    flag = poor_fit(ys, -5.0, intercept_reach=2.0)
    assert flag is not None and not any("standard deviations" in c for c in flag.causes)


def test_clipping_far_inside_the_range_is_a_cause():
    y = np.random.default_rng(11).normal(0.0, 50.0, size=1000)  # centred, symmetric: only the clip remains
    flag = poor_fit(y, -3.0, clip=1.0)
    assert flag is not None and len(flag.causes) == 1 and "clipped at ±1" in flag.causes[0]


def test_a_fit_above_the_threshold_is_not_flagged():
    ys = _to_unit(_affairs())
    assert poor_fit(ys, R2_FLAG) is None and poor_fit(ys, 0.3) is None
    assert poor_fit(ys, R2_FLAG - 1e-9) is not None


def test_intercept_reach_formula():
    c = 0.25
    assert intercept_reach(2.0, c) == pytest.approx(2.0 * c / np.sqrt(1 + c * c))


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: classification_target([1.0]), ValueError, "at least 2 finite"),
        (lambda: classification_target([0.0, 1.0], task="ranking"), ValueError, "task must be one of"),
        (lambda: poor_fit([0.0, 1.0, np.nan], -2.0), ValueError, "at least 2 finite"),
        (lambda: poor_fit([0.0, 1.0], float("nan")), ValueError, "r2 must be a number"),
        (lambda: poor_fit([0.0, 1.0, 5.0], -2.0, clip=0.0), ValueError, "clip"),
        (lambda: intercept_reach(-1.0), ValueError, "eta"),
    ],
)
def test_errors_name_the_parameter(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_absolute_kind_speaks_of_the_median():
    ys = _to_unit(_affairs())
    flag = poor_fit(ys, 1.0 - 3.0, kind="absolute")
    assert flag is not None and "absolute error 3 times that of predicting the median" in flag.message
    with pytest.raises(ValueError, match="kind must be"):
        poor_fit(ys, -3.0, kind="huber")


def test_a_symmetric_heavy_tailed_target_is_named_heavy_tailed_not_skewed():
    t = np.random.default_rng(2).standard_t(1.8, size=2000)  # the heavy_tailed generator's noise law
    y = np.concatenate([t, -t])  # exactly symmetric: skewness 0, the tails alone remain
    assert abs(target_skewness(y)) < 1e-9
    flag = poor_fit(y, -3.0, intercept_reach=1.0)
    assert flag is not None and len(flag.causes) == 1
    assert flag.causes[0].startswith("The target is heavy-tailed (kurtosis") and "extreme rows" in flag.causes[0]


def test_a_normal_target_has_no_shape_cause():
    y = np.random.default_rng(4).normal(size=5000)
    flag = poor_fit(y, -2.0, intercept_reach=1.0)
    assert flag is not None and flag.causes == (
        "The features barely predict this target on held-out rows, and the fit overshoots.",
    )


def test_explained_says_whether_the_target_gave_a_cause():
    assert poor_fit(_to_unit(_affairs()), -5.0, intercept_reach=0.1).explained
    assert not poor_fit(np.random.default_rng(4).normal(size=500), -5.0, intercept_reach=1.0).explained
