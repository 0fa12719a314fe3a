"""dp_core.estimators inside scikit-learn: Pipeline, cross_val_score, clone, and its estimator checks.

scikit-learn is a development dependency only (``dp_core`` never imports it); these tests are
skipped when it is absent.

Estimator checks that cannot apply to a differentially private estimator, and how they are handled:

* ``sample_weight`` checks: not run — ``fit`` takes no ``sample_weight`` because weighting a record
  changes its sensitivity, so the guarantee would no longer hold (scikit-learn skips these checks
  for an estimator whose ``fit`` has no such parameter).
* Determinism (``check_fit_idempotent``, ``check_methods_subset_invariance``, pickling round trips):
  they pass because scikit-learn sets ``random_state``; with ``random_state=None`` every fit draws
  fresh noise, as a private release must.
* Accuracy checks (``check_classifiers_train``, ``check_regressors_train``) pass only with a large
  epsilon (the instances below use epsilon = 1000): at a meaningful epsilon the noise is the point.
  The tags say ``poor_score=True``.
* Input perturbation's protocol needs ``n > 4 ln(8/delta)`` contributors (Fukuchi et al. 2017,
  Corollary 2); the checks fit 10-30 rows, so its instances use ``delta = 0.9``.
* ``check_array_api_input`` is skipped by scikit-learn itself (SCIPY_ARRAY_API unset).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dp_core.estimators import (
    InputPerturbationClassifier,
    InputPerturbationRegressor,
    L1ExponentialRegressor,
    LabelDPBagRegressor,
    LargeMarginGaussianClassifier,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
)
from dp_core.exceptions import PrivacyLeakWarning

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import check_estimator

CHECKED = [
    InputPerturbationClassifier(epsilon=1000.0, delta=0.9),
    InputPerturbationRegressor(epsilon=1000.0, delta=0.9),
    ObjectivePerturbationClassifier(epsilon=1000.0),
    ObjectivePerturbationRegressor(epsilon=1000.0),
    OutputPerturbationClassifier(epsilon=1000.0),
    OutputPerturbationRegressor(epsilon=1000.0),
    LargeMarginGaussianClassifier(epsilon=1000.0),
    L1ExponentialRegressor(epsilon=1000.0),
    LabelDPBagRegressor(k=2, rho=1.0),
]


@pytest.mark.parametrize("est", CHECKED, ids=lambda e: type(e).__name__)
@pytest.mark.filterwarnings("ignore")  # scikit-learn's own warnings (not a BaseEstimator subclass, skipped checks)
def test_sklearn_estimator_checks(est):
    results = check_estimator(est, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


def _breast(n=None):
    from dp_core.data import load_dataset

    ds = load_dataset("breast_cancer")
    return ds.X, np.where(ds.y == 1, "malignant", "benign")


def _standardise_rows(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


@pytest.mark.parametrize(
    "est",
    [
        ObjectivePerturbationClassifier(epsilon=5.0, data_norm=1.0, random_state=0),
        LargeMarginGaussianClassifier(epsilon=5.0, data_norm=1.0, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_pipeline_cross_val_score_and_clone(est):
    X, y = _breast()
    # The row scaler is a public rule (unit norm) applied to standardised columns; the column
    # standardisation here uses the data, which is fine for this compatibility test.
    pipe = make_pipeline(FunctionTransformer(_standardise_rows), est)
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.8)
    c = clone(est)
    assert type(c) is type(est) and c.get_params() == est.get_params() and not hasattr(c, "privacy_")
    assert is_classifier(est) and not is_regressor(est)


def test_regressor_in_pipeline_and_tags():
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, size=(600, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + 0.05 * g.standard_normal(600)
    est = OutputPerturbationRegressor(epsilon=20.0, data_norm=np.sqrt(3.0), y_bound=2.0, random_state=0)
    scores = cross_val_score(make_pipeline(FunctionTransformer(), est), X, y, cv=3)
    assert np.all(scores > 0.5)
    assert is_regressor(est)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est.fit(X, y)  # every bound declared: no leak warning
    assert est.privacy_.covers_preprocessing
