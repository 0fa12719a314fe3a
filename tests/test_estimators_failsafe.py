"""Estimators never fail silently (issue 23, part G).

A fit that yields a constant or worse-than-trivial predictor warns (``DegenerateFitWarning``) naming the
cause and the fix; a setting whose guarantee is not valid is refused (``ValueError``), or warns
(``InvalidGuaranteeWarning``) when the user asked for a non-private variant by name; the large-margin
classifier's defaults beat the majority rate on held-out data; every classifier has ``predict_proba``, so
soft voting and log-loss scoring work.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dp_core.estimators import (
    InputPerturbationClassifier,
    LabelDPBagRegressor,
    LargeMarginGaussianClassifier,
    ObjectivePerturbationClassifier,
    OutputPerturbationClassifier,
)
from dp_core.exceptions import DegenerateFitWarning, InvalidGuaranteeWarning
from dp_core.mechanisms.label_dp_bags.defaults import utility_min_bags
from dp_core.mechanisms.large_margin_gaussian.estimator import default_components, default_regularisers

CLASSIFIERS = [
    lambda **kw: InputPerturbationClassifier(data_norm=1.0, **kw),
    lambda **kw: ObjectivePerturbationClassifier(data_norm=1.0, **kw),
    lambda **kw: OutputPerturbationClassifier(data_norm=1.0, **kw),
    lambda **kw: LargeMarginGaussianClassifier(data_norm=1.0, **kw),
]


def _clf_data(n=400, d=4, seed=0, classes=2):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    score = X[:, 0] + 0.5 * X[:, 1]
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X / np.linalg.norm(X, axis=1, keepdims=True), np.array(["a", "b", "c"])[y]


def _reg_data(n, d, seed=0):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    return X, X @ g.standard_normal(d) + 0.5 * g.standard_normal(n)


# -- warnings after a degenerate fit -------------------------------------------------------------
def test_constant_linear_classifier_warns_with_cause_and_fix():
    X, y = _clf_data()
    # a data_norm a million times the rows' norm shrinks every row to ~0: only the intercept is left
    with pytest.warns(DegenerateFitWarning, match=r"single class '(a|b)' for all 400 training rows") as rec:
        m = ObjectivePerturbationClassifier(epsilon=1.0, data_norm=1e6, random_state=0).fit(X, y)
    assert np.unique(m.predict(X)).size == 1
    assert "data_norm" in str(rec[0].message) and "Fix:" in str(rec[0].message)


def test_constant_large_margin_classifier_warns():
    X, y = _clf_data()
    with pytest.warns(DegenerateFitWarning, match="lam = 5, mu = 5") as rec:
        m = LargeMarginGaussianClassifier(epsilon=5.0, lam=5.0, mu=5.0, data_norm=1.0, random_state=0).fit(X, y)
    assert np.unique(m.predict(X)).size == 1 and "lam='auto'" in str(rec[0].message)


def test_no_warning_when_the_fit_is_useful():
    X, y = _clf_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateFitWarning)
        m = LargeMarginGaussianClassifier(epsilon=5.0, data_norm=1.0, random_state=0).fit(X, y)
    assert m.score(X, y) > 0.8


def test_regressor_far_worse_than_the_mean_warns():
    # k='auto' takes the fewest bags (smallest ε): on 300 rows the fit is far worse than the mean, and says so
    X, y = _reg_data(300, 5)
    with pytest.warns(DegenerateFitWarning, match="R² on its own training data") as rec:
        m = LabelDPBagRegressor(y_range=(-10.0, 10.0), random_state=0).fit(X, y)
    assert m.score(X, y) < -1.0
    assert "more bags at a larger epsilon" in str(rec[0].message)


# -- guarantees that are not valid ---------------------------------------------------------------
def test_label_dp_refuses_a_setting_without_a_guarantee():
    X, y = _reg_data(300, 5)
    with pytest.raises(ValueError, match=r"k = 10, m = 30.*ε = ∞.*use k = 23, m = 13 "):
        LabelDPBagRegressor(k=10, y_range=(-10.0, 10.0), random_state=0).fit(X, y)


def test_label_dp_refuses_too_few_bags_and_no_noise():
    X, y = _reg_data(150, 20)
    with pytest.raises(ValueError, match=r"m = 1 bag\(s\).*21 parameters.*m must be in \[21, 75\]"):
        LabelDPBagRegressor(k=100, y_range=(-10.0, 10.0)).fit(X, y)
    X, y = _reg_data(2000, 3)
    with pytest.raises(ValueError, match=r"rho must be in \(0, 1\].*mechanism='weighted-llp'"):
        LabelDPBagRegressor(rho=0.0, y_range=(-10.0, 10.0)).fit(X, y)


def test_label_dp_auto_setting_is_the_compare_rule_and_has_a_guarantee():
    X, y = _reg_data(2000, 3)
    with warnings.catch_warnings():  # a loose y_range: the label noise dominates, and the fit says so
        warnings.simplefilter("ignore", DegenerateFitWarning)
        m = LabelDPBagRegressor(y_range=(-10.0, 10.0), random_state=0).fit(X, y)  # 2000 // 100 bags of 100
    mb = utility_min_bags(3 + 1)  # 9 bags, the fewest for a useful fit, fewer than 2000 // 100
    assert (m.privacy_.extra["m"], m.privacy_.extra["k"]) == (20, 100) and mb < 20
    assert math.isfinite(m.privacy_.epsilon) and m.privacy_.epsilon > 0
    X, y = _reg_data(300, 5)  # 300 // 100 = 3 bags < 2(d + 1) + 1 = 13: the Compare page's floor
    with warnings.catch_warnings():  # so few bags fit poorly here, and say so (tested above)
        warnings.simplefilter("ignore", DegenerateFitWarning)
        small = LabelDPBagRegressor(y_range=(-10.0, 10.0), random_state=0).fit(X, y)
    assert (small.privacy_.extra["m"], small.privacy_.extra["k"]) == (utility_min_bags(6), 300 // 13)


@pytest.mark.parametrize("mode", ["repaired", "printed"])
def test_non_private_large_margin_mode_warns(mode):
    X, y = _clf_data()
    with pytest.warns(InvalidGuaranteeWarning, match=f"mode='{mode}'"):
        LargeMarginGaussianClassifier(mode=mode, epsilon=5.0, data_norm=1.0, random_state=0).fit(X, y)


def test_non_private_label_dp_mechanism_warns():
    X, y = _reg_data(2000, 3)
    with pytest.warns(InvalidGuaranteeWarning, match="naive-llp"):
        LabelDPBagRegressor("naive-llp", k=20, y_range=(-10.0, 10.0), random_state=0).fit(X, y)


# -- the large-margin defaults --------------------------------------------------------------------
def test_default_rule_depends_on_public_sizes_only():
    assert default_components(455, 30) == 5 and default_components(142, 13) == 5
    assert default_components(10**6, 300) == 20 and default_components(5000, 8) is None
    lam, mu = default_regularisers(1000, 2.0)
    assert mu == pytest.approx(45.0 / 2000) and lam == pytest.approx(mu / 10)
    assert default_regularisers(10, 0.01) == (0.1, 1.0)  # capped


@pytest.mark.parametrize("name", ["digits0", "wine0", "fair", "anes96"])
def test_default_beats_the_majority_rate_on_held_out_data(name):
    """ε = 5, 4 seeded splits: mean accuracy minus the majority rate exceeds 2 standard errors, no constant fit."""
    pytest.importorskip("sklearn")
    if name in ("fair", "anes96"):
        pytest.importorskip("statsmodels")
    from benchmarks.bench_estimator_defaults import load, split

    X, y = load(name)
    gain, constant = [], 0
    for seed in range(4):
        Xtr, ytr, Xte, yte = split(X, y, seed)
        m = LargeMarginGaussianClassifier(epsilon=5.0, data_norm=1.0, random_state=seed).fit(Xtr, ytr)
        constant += np.unique(m.predict(Xtr)).size == 1
        gain.append(m.score(Xte, yte) - np.bincount(yte).max() / yte.size)
    g = np.asarray(gain)
    assert constant == 0
    assert g.mean() > 2 * g.std(ddof=1) / math.sqrt(g.size)


# -- probabilities, soft voting, log loss ---------------------------------------------------------
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("make", CLASSIFIERS)
def test_predict_proba_rows_sum_to_one_and_agree_with_predict(make, classes):
    X, y = _clf_data(classes=classes)
    m = make(epsilon=5.0, random_state=0).fit(X, y)
    P = m.predict_proba(X)
    assert P.shape == (X.shape[0], classes) and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(m.classes_[np.argmax(P, axis=1)], m.predict(X))
    np.testing.assert_allclose(np.exp(m.predict_log_proba(X)), P, atol=1e-12)


def test_soft_voting_and_log_loss_scoring():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.ensemble import VotingClassifier
    from sklearn.model_selection import cross_val_score

    assert sklearn is not None
    X, y = _clf_data(n=600)
    vote = VotingClassifier(
        [
            ("lm", LargeMarginGaussianClassifier(epsilon=5.0, data_norm=1.0, random_state=0)),
            ("op", ObjectivePerturbationClassifier(epsilon=5.0, data_norm=1.0, random_state=0)),
        ],
        voting="soft",
    ).fit(X, y)
    P = vote.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert vote.score(X, y) > 0.8
    losses = -cross_val_score(
        LargeMarginGaussianClassifier(epsilon=5.0, data_norm=1.0, random_state=0), X, y, cv=3, scoring="neg_log_loss"
    )
    assert np.all(np.isfinite(losses)) and np.all(losses < math.log(2.0))  # better than a coin's log loss
