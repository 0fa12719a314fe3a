import math

import numpy as np
import pytest

from dp_core import calibration as cal
from dp_core.exceptions import InvalidPrivacyParameter


def test_check_values_gaussian():
    # Issue 2: analytic sigma = 3.7306 and classic sigma = 4.8448 at eps=1, delta=1e-5, sensitivity 1.
    assert cal.gaussian_sigma_analytic(epsilon=1.0, delta=1e-5, sensitivity=1.0) == pytest.approx(3.7306, rel=1e-3)
    assert cal.gaussian_sigma_classic(epsilon=1.0, delta=1e-5, sensitivity=1.0) == pytest.approx(4.8448, rel=1e-3)


def test_laplace_scale_and_inverse():
    assert cal.laplace_scale(epsilon=0.5, sensitivity=2.0) == 4.0
    assert cal.laplace_epsilon(scale=4.0, sensitivity=2.0) == 0.5
    assert cal.laplace_scale(epsilon=math.inf, sensitivity=1.0) == 0.0
    assert cal.laplace_scale(epsilon=1.0, sensitivity=0.0) == 0.0


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-6, 1e-3, 0.1])
def test_analytic_round_trip(eps, delta):
    sigma = cal.gaussian_sigma_analytic(epsilon=eps, delta=delta, sensitivity=1.0)
    back = cal.gaussian_epsilon_analytic(sigma=sigma, delta=delta, sensitivity=1.0)
    assert back == pytest.approx(eps, rel=1e-6)
    # safe side: the delta actually achieved never exceeds the target
    assert cal.gaussian_delta_analytic(sigma=sigma, epsilon=eps, sensitivity=1.0) <= delta * (1 + 1e-9)
    # and sigma is (nearly) the smallest such value
    assert cal.gaussian_delta_analytic(sigma=sigma * (1 - 1e-6), epsilon=eps, sensitivity=1.0) > delta


@pytest.mark.parametrize("eps", [0.01, 0.05, 0.2, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.01, 0.2])
@pytest.mark.parametrize("sens", [0.1, 1.0, 7.0])
def test_analytic_never_exceeds_classic(eps, delta, sens):
    a = cal.gaussian_sigma_analytic(epsilon=eps, delta=delta, sensitivity=sens)
    c = cal.gaussian_sigma_classic(epsilon=eps, delta=delta, sensitivity=sens)
    assert a <= c


def test_classic_round_trip_and_limit():
    s = cal.gaussian_sigma_classic(epsilon=0.3, delta=1e-6, sensitivity=2.0)
    assert cal.gaussian_epsilon_classic(sigma=s, delta=1e-6, sensitivity=2.0) == pytest.approx(0.3)
    with pytest.raises(InvalidPrivacyParameter, match="analytic"):
        cal.gaussian_sigma_classic(epsilon=2.0, delta=1e-5, sensitivity=1.0)


def test_sigma_scales_linearly_with_sensitivity():
    a1 = cal.gaussian_sigma_analytic(epsilon=0.7, delta=1e-6, sensitivity=1.0)
    a3 = cal.gaussian_sigma_analytic(epsilon=0.7, delta=1e-6, sensitivity=3.0)
    assert a3 == pytest.approx(3 * a1, rel=1e-9)


def test_sigma_monotone_in_eps_and_delta():
    eps = np.geomspace(0.01, 10, 15)
    s = [cal.gaussian_sigma_analytic(epsilon=e, delta=1e-5, sensitivity=1.0) for e in eps]
    assert np.all(np.diff(s) < 0)
    deltas = np.geomspace(1e-12, 0.1, 12)
    s = [cal.gaussian_sigma_analytic(epsilon=1.0, delta=d, sensitivity=1.0) for d in deltas]
    assert np.all(np.diff(s) < 0)


def test_degenerate_cases():
    assert cal.gaussian_sigma_analytic(epsilon=math.inf, delta=1e-5, sensitivity=1.0) == 0.0
    assert cal.gaussian_sigma_analytic(epsilon=1.0, delta=1e-5, sensitivity=0.0) == 0.0
    assert cal.gaussian_epsilon_analytic(sigma=math.inf, delta=1e-5, sensitivity=1.0) == 0.0
    assert cal.gaussian_epsilon_analytic(sigma=0.0, delta=1e-5, sensitivity=1.0) == math.inf
    # delta so large that epsilon = 0 already suffices
    assert cal.gaussian_epsilon_analytic(sigma=100.0, delta=0.5, sensitivity=1.0) == 0.0


def test_analytic_profile_against_monte_carlo():
    # delta(eps) = P[L > eps] - e^eps P[L' > eps] for the privacy loss L ~ N(mu, 2 mu), mu = 1/(2 sigma^2)
    sigma, eps = 1.3, 0.8
    mu = 1.0 / (2 * sigma**2)
    rng = np.random.default_rng(5)
    z = rng.standard_normal(2_000_000)
    loss = mu + math.sqrt(2 * mu) * z
    mc = np.mean(np.maximum(0.0, 1.0 - np.exp(eps - loss)))
    se = np.std(np.maximum(0.0, 1.0 - np.exp(eps - loss))) / math.sqrt(z.size)
    exact = cal.gaussian_delta_analytic(sigma=sigma, epsilon=eps, sensitivity=1.0)
    assert abs(mc - exact) < 4 * se


@pytest.mark.parametrize(
    "fn, kwargs, exc",
    [
        (cal.gaussian_sigma_analytic, dict(epsilon=0.0, delta=1e-5, sensitivity=1.0), ValueError),
        (cal.gaussian_sigma_analytic, dict(epsilon=-1.0, delta=1e-5, sensitivity=1.0), ValueError),
        (cal.gaussian_sigma_analytic, dict(epsilon=1.0, delta=0.0, sensitivity=1.0), ValueError),
        (cal.gaussian_sigma_analytic, dict(epsilon=1.0, delta=1.0, sensitivity=1.0), ValueError),
        (cal.gaussian_sigma_analytic, dict(epsilon=1.0, delta=1e-5, sensitivity=-1.0), ValueError),
        (cal.gaussian_sigma_analytic, dict(epsilon="1", delta=1e-5, sensitivity=1.0), TypeError),
        (cal.gaussian_sigma_analytic, dict(epsilon=1.0, delta=None, sensitivity=1.0), TypeError),
        (cal.gaussian_sigma_analytic, dict(epsilon=True, delta=1e-5, sensitivity=1.0), TypeError),
        (cal.gaussian_sigma_classic, dict(epsilon=float("nan"), delta=1e-5, sensitivity=1.0), ValueError),
        (cal.laplace_scale, dict(epsilon=0.0, sensitivity=1.0), ValueError),
        (cal.laplace_scale, dict(epsilon=1.0, sensitivity=[1]), TypeError),
        (cal.gaussian_epsilon_analytic, dict(sigma=-2.0, delta=1e-5, sensitivity=1.0), ValueError),
    ],
)
def test_validation_table(fn, kwargs, exc):
    with pytest.raises(exc) as info:
        fn(**kwargs)
    # the message names a parameter and what was received
    assert "got" in str(info.value) or "must" in str(info.value)


def test_error_message_format():
    with pytest.raises(ValueError, match=r"^epsilon must be in \(0, inf\], got -1\.$"):
        cal.laplace_scale(epsilon=-1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\), got 2\.$"):
        cal.gaussian_sigma_analytic(epsilon=1.0, delta=2.0, sensitivity=1.0)


def test_solve_monotone_errors():
    with pytest.raises(InvalidPrivacyParameter, match="grew past"):
        cal.solve_monotone(lambda x: 0.0, 1.0, lo=1e-3, hi=1.0, increasing=True, safe="upper", max_doublings=5)
    with pytest.raises(ValueError, match="safe"):
        cal.solve_monotone(lambda x: x, 1.0, lo=0.1, hi=1.0, increasing=True, safe="middle")
