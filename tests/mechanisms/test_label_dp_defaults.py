"""suggest_bag_params: feasible, non-vacuous bag settings from the number of rows (issue 13 item 5)."""

import warnings

import pytest

from dp_core.data import DATASETS, load_dataset
from dp_core.mechanisms.label_dp_bags import prepare_dataset, suggest_bag_params
from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_delta


def _check(s, n, eps, d):
    """The suggestion's own claims hold: feasible, its delta is the exact profile's, labels consistent."""
    assert s.k >= 2 and s.m >= d + 2
    assert s.m * s.k <= n
    exact = llp_exact_delta(eps, n, s.k, s.m, s.rho).delta
    assert s.delta == pytest.approx(exact, rel=1e-9)
    assert s.informative == (s.delta <= s.target_delta)
    assert s.vacuous == (s.delta >= 1.0)
    assert s.message


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_demo_dataset_gets_a_feasible_non_vacuous_setting(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = prepare_dataset(load_dataset(name))
    s = suggest_bag_params(data.n, epsilon=1.0, d=data.d)
    _check(s, data.n, 1.0, data.d)
    assert not s.vacuous, s.message
    # the historical default k = 64, m = 100 does not fit most of them; the suggestion always does
    if s.informative:
        assert s.n_needed == data.n
    else:
        assert s.n_needed is not None and s.n_needed > data.n
        assert "would reach" in s.message


def test_informative_setting_is_the_most_bags_within_the_target():
    n, eps, d = 16_000, 1.0, 14
    s = suggest_bag_params(n, epsilon=eps, d=d)
    assert s.informative
    # one more bag at the same k breaks the target or the row budget
    more = s.m + 1
    assert more * s.k > n or llp_exact_delta(eps, n, s.k, more, s.rho).delta > s.target_delta


@pytest.mark.parametrize("n", [30, 100, 500])
def test_small_uploads(n):
    s = suggest_bag_params(n, epsilon=1.0, d=3)
    _check(s, n, 1.0, 3)
    if not s.informative:
        # the rows that would reach the target really do
        big = suggest_bag_params(s.n_needed, epsilon=1.0, d=3)
        assert big.informative


def test_too_few_rows_says_so_and_how_many_would_do():
    s = suggest_bag_params(20, epsilon=1.0, d=14)  # 16 bags of 2 need 32 rows
    assert (s.k, s.m) == (0, 0)
    assert s.vacuous and not s.informative
    assert "No feasible setting" in s.message
    assert s.n_needed is not None and s.n_needed >= 32
    assert suggest_bag_params(s.n_needed, epsilon=1.0, d=14).informative


def test_more_rows_and_more_budget_never_hurt():
    a = suggest_bag_params(400, epsilon=1.0, d=5)
    b = suggest_bag_params(4000, epsilon=1.0, d=5)
    c = suggest_bag_params(400, epsilon=4.0, d=5)
    assert b.m >= a.m and c.m >= a.m


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"n": 0, "epsilon": 1.0}, "n"),
        ({"n": 100, "epsilon": 0.0}, "epsilon"),
        ({"n": 100, "epsilon": 1.0, "rho": 0.0}, "rho"),
        ({"n": 100, "epsilon": 1.0, "target_delta": 1.0}, "target_delta"),
        ({"n": 100, "epsilon": 1.0, "d": 0}, "d"),
    ],
)
def test_invalid_inputs_name_the_parameter(kw, match):
    n = kw.pop("n")
    with pytest.raises(ValueError, match=match):
        suggest_bag_params(n, **kw)
