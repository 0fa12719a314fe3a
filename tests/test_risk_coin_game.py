"""The tour's randomized-response coin game: ε = ln 3, an unbiased estimate, its standard error, same seed."""

import math

import numpy as np
import pytest

from dp_core import tour


def test_same_seed_same_class():
    assert tour.coin_game(30, 0.3, seed=4) == tour.coin_game(30, 0.3, seed=4)


def test_epsilon_is_ln3_and_the_estimate_is_unbiased():
    games = [tour.coin_game(200, 0.3, seed=s) for s in range(400)]
    assert games[0]["epsilon"] == pytest.approx(math.log(3), rel=1e-15)
    est = np.array([g["estimate"] for g in games])
    se = games[0]["std_error"]
    assert se == pytest.approx(2 * math.sqrt(0.4 * 0.6 / 200), rel=1e-12)
    assert abs(est.mean() - 0.3) < 4 * se / math.sqrt(len(games))  # unbiased
    assert est.std() == pytest.approx(se, rel=0.15)  # noise as stated (the true share varies a little too)


def test_story_is_computed():
    g = tour.coin_game(50, 0.5, seed=1)
    text = " ".join(tour.coin_story(g))
    assert f"{g['yes']} said yes" in text and "ln 3" in text


@pytest.mark.parametrize("bad", [dict(n=0, share=0.3), dict(n=10, share=1.5)])
def test_bad_inputs(bad):
    with pytest.raises(ValueError):
        tour.coin_game(bad["n"], bad["share"])
