import math

import numpy as np
import pytest

from dp_core import _validation as v
from dp_core.exceptions import DataValidationError, InvalidPrivacyParameter


@pytest.mark.parametrize("value", ["1", None, [1.0], True, np.bool_(True), object()])
def test_real_wrong_type(value):
    with pytest.raises(TypeError, match="lam must be a real number"):
        v.check_real("lam", value)


@pytest.mark.parametrize("value, kw", [(math.nan, {}), (math.inf, {}), (-math.inf, {})])
def test_real_wrong_value(value, kw):
    with pytest.raises(ValueError, match="lam must be"):
        v.check_real("lam", value, **kw)


def test_real_accepts_numpy_and_ints():
    assert v.check_real("x", np.float32(1.5)) == 1.5
    assert v.check_real("x", np.int64(3)) == 3.0
    assert v.check_real("x", math.inf, allow_inf=True) == math.inf


@pytest.mark.parametrize(
    "value, exc", [(0, ValueError), (-1e-9, ValueError), (math.nan, ValueError), ("0.5", TypeError)]
)
def test_epsilon(value, exc):
    with pytest.raises(exc):
        v.check_epsilon(value)


def test_epsilon_inf_allowed_by_default():
    assert v.check_epsilon(math.inf) == math.inf
    with pytest.raises(InvalidPrivacyParameter):
        v.check_epsilon(math.inf, allow_inf=False)


@pytest.mark.parametrize("value", [0.0, 1.0, -0.1, 1.5])
def test_delta_range(value):
    with pytest.raises(InvalidPrivacyParameter, match=r"delta must be in \(0, 1\)"):
        v.check_delta(value)


def test_delta_zero_allowed_when_asked():
    assert v.check_delta(0.0, allow_zero=True) == 0.0


def test_int_checks():
    assert v.check_int("n", 5.0) == 5
    with pytest.raises(TypeError):
        v.check_int("n", 5.5)
    with pytest.raises(TypeError):
        v.check_int("n", True)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 10\], got 11"):
        v.check_int("n", 11, lo=1, hi=10)


def test_interval_and_choice():
    assert v.check_in_interval("rho", 0.0, 0.0, 1.0) == 0.0
    with pytest.raises(ValueError, match=r"rho must be in \(0, 1\], got 0"):
        v.check_in_interval("rho", 0.0, 0.0, 1.0, closed="right")
    with pytest.raises(ValueError, match="closed must be one of"):
        v.check_in_interval("rho", 0.5, 0.0, 1.0, closed="open")
    with pytest.raises(ValueError, match="sampler must be one of 'records', 'stats', got 'x'"):
        v.check_choice("sampler", "x", ["records", "stats"])


def test_matrix_and_xy():
    X, y = v.check_Xy([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0])
    assert X.shape == (2, 2) and y.shape == (2,)
    with pytest.raises(DataValidationError, match="same number of rows"):
        v.check_Xy(np.ones((3, 2)), np.ones(2))
    with pytest.raises(DataValidationError, match="NaN"):
        v.check_Xy(np.array([[np.nan, 1.0], [1.0, 1.0]]), np.ones(2))
    with pytest.raises(DataValidationError, match="2-D"):
        v.check_matrix("X", np.ones(3))
    with pytest.raises(TypeError):
        v.check_matrix("X", "abc")
