"""The examples that were doctests of ui.state, dp_core.tour, dp_core.captions and dp_core.explain."""

import math

import numpy as np
import pandas as pd
import pytest

from dp_core.captions import bags_needed_story, tightness_story
from dp_core.explain import noise_figure, posterior_bounds
from dp_core.tour import guessing_score, noisy_counts
from ui.state import parse_url_value, repeated_message


def test_parse_url_value():
    assert parse_url_value("trials", "50") == (50, None)
    assert parse_url_value("trials", "inf")[0] == 100
    assert parse_url_value("eps", "1e-9")[0] == 0.01


def test_repeated_message():
    assert repeated_message("trials", ["50", "1000"], 100) == (
        "The link gives Monte-Carlo trials (trials) twice (“50”, “1000”); neither was applied. Using the default 100."
    )


def test_noisy_counts():
    out = noisy_counts(100, epsilon=1.0, n_draws=3, seed=0)
    assert (out["scale"], len(out["released"])) == (1.0, 3)


def test_guessing_score():
    assert guessing_score(np.array([0, 1, 1, 1]), "binary") == 0.75


def test_tightness_story():
    t = pd.DataFrame({"method": ["corrected"] * 2, "epsilon": [1.0, 2.0], "bound_over_measured": [13.0, 24.0]})
    assert tightness_story(t, {"corrected": "R"}) == (
        "Here the mean pathwise bound is 13–24 times the measured mean excess for R (2 values of ε)."
    )


def test_bags_needed_story():
    assert bags_needed_story(2.5e9, 100) == (
        "The paper's own utility bound (Theorem 1.2) needs m ≥ 2,500,000,000 bags, 25,000,000 times this m = 100."
    )


def test_posterior_bounds():
    lo, hi = posterior_bounds(0.5, epsilon=math.log(3))
    assert (float(lo), float(hi)) == pytest.approx((0.25, 0.75), rel=1e-12)


def test_noise_figure():
    fig = noise_figure(epsilon=1.0, delta=1e-5)
    assert [t.name for t in fig.data][:2] == ["Laplace", "Gaussian"]
