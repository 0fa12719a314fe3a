"""Declared values that are the data's own statistics are detected, and the coarse public grid avoids them
(``dp_core.preprocessing.data_derived_matches`` / ``coarse_public_bounds``; issue 24, part 3)."""

from __future__ import annotations

import numpy as np
import pytest

from dp_core.preprocessing import (
    DATA_STATISTIC,
    PublicBounds,
    bounds_from_data,
    clipped_counts,
    coarse_public_bounds,
    data_derived_matches,
    format_bounds,
    parse_bounds,
    rounded_bounds,
)

ALL = tuple(DATA_STATISTIC.values())


def _data(seed: int) -> np.ndarray:
    """Columns of very different scales and offsets, one with minimum exactly 0, one constant."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 6)) * [1e-4, 1.0, 30.0, 2e5, 1.0, 1.0] + [0.0, 2.0, 1990.0, -1e6, 0.0, 0.0]
    X[:, 4] = np.abs(X[:, 4])
    X[np.argmin(X[:, 4]), 4] = 0.0
    X[:, 5] = 7.0
    return X


SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_prefilled_table_and_its_link_text_are_recognised_in_every_column(seed):
    X = _data(seed)
    derived = bounds_from_data(X)
    names = [f"c{j}" for j in range(X.shape[1])]
    table = rounded_bounds(derived)  # what Home prefills (4 significant digits)
    assert data_derived_matches(table, derived, names) == tuple((n, ALL) for n in names)
    assert data_derived_matches(derived, derived, names) == tuple((n, ALL) for n in names)
    # the link's text form, read back, is still the data's statistics
    again = parse_bounds(format_bounds(table), names)
    assert data_derived_matches(again, derived, names) == tuple((n, ALL) for n in names)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("sig", [1, 2, 3])
def test_the_coarse_grid_contains_the_data_and_matches_none_of_its_statistics(seed, sig):
    X = _data(seed)
    derived = bounds_from_data(X)
    grid = coarse_public_bounds(derived, sig=sig)
    assert clipped_counts(X, grid) == (0,) * X.shape[1]  # outward: nothing clipped
    assert data_derived_matches(grid, derived) == ()
    assert not grid.data_derived
    # a link round trip keeps it exactly, and the text is short (coarse numbers)
    text = format_bounds(grid)
    back = parse_bounds(text)
    assert (back.lo, back.hi, back.centre, back.scale) == (grid.lo, grid.hi, grid.centre, grid.scale)
    assert max(len(e) for e in text.split(",")) <= 40


def test_the_coarse_grid_is_coarse():
    derived = PublicBounds((2.06, 1990.0, 0.0), (4.0, 2020.0, 0.873), data_derived=True)
    grid = coarse_public_bounds(derived)
    assert grid.lo == (2.0, 1989.0, -0.01) and grid.hi == (4.1, 2021.0, 0.88)
    # the year column is symmetric: its midpoint 2005 is the mean, so the centre moves off it
    assert format_bounds(coarse_public_bounds(derived, sig=1)) == "2:5,1980:2030:2015:25,-0.1:0.9"


def test_only_the_statistics_that_match_are_named():
    derived = PublicBounds((2.06, 0.0), (4.0, 1.0), (3.117, 0.5), (0.4594, 0.2), data_derived=True)
    declared = PublicBounds((2.0, 0.0), (4.0, 1.0), (3.0, 0.5), (0.4594, 0.25))
    assert data_derived_matches(declared, derived, ["x", "y"]) == (
        ("x", ("maximum", "standard deviation")),
        ("y", ("minimum", "maximum", "mean")),
    )


def test_a_value_one_table_unit_away_is_not_a_match_and_a_rounding_error_is():
    derived = PublicBounds((1990.0,), (2020.0,), (2004.37,), (8.6612,), data_derived=True)
    assert data_derived_matches(PublicBounds((1989.0,), (2021.0,), (2006.0,), (9.0,)), derived) == ()
    near = PublicBounds((1990.4,), (2020.6,), (2004.4,), (8.661,))
    assert data_derived_matches(near, derived) == (("column 1", ALL),)


def test_errors_name_the_argument():
    b = PublicBounds((0.0,), (1.0,))
    with pytest.raises(TypeError, match="declared must be PublicBounds"):
        data_derived_matches("0:1", b)
    with pytest.raises(ValueError, match="same number of columns"):
        data_derived_matches(PublicBounds((0.0, 0.0), (1.0, 1.0)), b)
    with pytest.raises(ValueError, match="feature_names must have 1 entries"):
        data_derived_matches(b, b, ["a", "b"])
    with pytest.raises(ValueError, match=r"sig must be an integer in \[1, 3\]"):
        coarse_public_bounds(b, sig=0)
    with pytest.raises(TypeError, match="derived must be PublicBounds"):
        coarse_public_bounds(None)
