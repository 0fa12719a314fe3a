"""scikit-learn-style private estimators for every mechanism of the engine.

``from dp_core.estimators import InputPerturbationClassifier``;
``InputPerturbationClassifier(epsilon=1.0, data_norm=1.0).fit(X, y).score(X_test, y_test)``.

Each follows scikit-learn's conventions without importing it and carries ``privacy_``, a
:class:`PrivacyGuarantee`; a fitted estimator holds only publishable state. The estimators live in the
mechanism folders (``estimator.py``) and are re-exported here when first asked for; this package holds
the shared base (:mod:`._base`, :mod:`.preprocessing`). See ``docs/estimators.md``.
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
