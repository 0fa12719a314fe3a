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

Each mechanism's estimators live in its folder (``dp_core/mechanisms/<m>/estimator.py``, the plug-in's
``estimator`` hook, listed in its ``__all__``); this package holds the shared base (:mod:`._base`,
:mod:`.preprocessing`) and re-exports every folder's estimators when first asked for, so that
``from dp_core.estimators import X`` keeps working and imports only the folders.
"""

from __future__ import annotations

from types import ModuleType

from .. import registry
from ._base import NEIGHBOURS, STATUSES, DPEstimator, PrivacyGuarantee  # noqa: F401 - re-exported

_BASE = ["NEIGHBOURS", "STATUSES", "PrivacyGuarantee"]


def _modules() -> list[ModuleType]:
    return [p.load("estimator") for p in registry.plugins() if p.has("estimator")]


def _estimators() -> list[str]:
    """The names of the folders' estimator classes (sorted)."""
    names = []
    for mod in _modules():
        names += [n for n in mod.__all__ if isinstance(c := getattr(mod, n), type) and issubclass(c, DPEstimator)]
    return sorted(names)


def __getattr__(name: str):
    if name == "__all__":
        return sorted(_BASE + _estimators())
    for mod in _modules():
        if name in mod.__all__:
            return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_estimators()))
