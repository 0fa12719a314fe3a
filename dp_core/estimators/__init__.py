"""scikit-learn-style private estimators for every mechanism of the engine.

``from dp_core.estimators import InputPerturbationClassifier``;
``InputPerturbationClassifier(epsilon=1.0, data_norm=1.0).fit(X, y).score(X_test, y_test)``.

Each estimator follows scikit-learn's conventions (constructor stores parameters only; ``fit``
returns ``self``; ``predict``/``score``; ``get_params``/``set_params``; ``coef_``, ``intercept_``,
``classes_``, ``n_features_in_``, ``feature_names_in_``; NumPy arrays and pandas DataFrames; any
label values) without importing scikit-learn, and carries ``privacy_``, a
:class:`PrivacyGuarantee` (epsilon, delta, neighbours, local/central, status). A fitted estimator
holds only publishable state: the released parameters, public settings and the guarantee — never
the training data, the non-private fit or the noise drawn.
"""

from ._base import NEIGHBOURS, STATUSES, PrivacyGuarantee
from .l1 import L1ExponentialRegressor
from .label_dp import LabelDPBagRegressor
from .large_margin import LargeMarginGaussianClassifier
from .linear import (
    InputPerturbationClassifier,
    InputPerturbationRegressor,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
)

__all__ = [
    "NEIGHBOURS",
    "STATUSES",
    "InputPerturbationClassifier",
    "InputPerturbationRegressor",
    "L1ExponentialRegressor",
    "LabelDPBagRegressor",
    "LargeMarginGaussianClassifier",
    "ObjectivePerturbationClassifier",
    "ObjectivePerturbationRegressor",
    "OutputPerturbationClassifier",
    "OutputPerturbationRegressor",
    "PrivacyGuarantee",
]
