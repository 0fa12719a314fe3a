"""``min_k`` of the label-DP bounds returns (it used to step k down by 1 forever when the answer is beyond
float64's integer resolution, which hung the Compare page's negotiation for uploaded data)."""

import math

import pytest

from dp_core.mechanisms.label_dp_bags.bounds import _log_delta_fn, min_k


@pytest.mark.timeout(20)
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_min_k_beyond_float_resolution_returns(eps):
    params = {"m": 10, "b1": 1.0, "d": 4, "b2": 1.0, "gamma": 1e-4, "lam": 1e-3}
    k = min_k(1e-5, eps, "wtd-lba", **params)
    assert k is not None and k >= 2**53
    f = _log_delta_fn("wtd-lba", params)
    assert f(eps, float(k)) <= math.log(1e-5)  # k meets the target
    assert f(eps, float(k) * (1 - 1e-9)) > math.log(1e-5)  # and a visibly smaller k does not
