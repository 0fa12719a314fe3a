"""Exception and warning classes of :mod:`dp_core`.

Bad parameters raise a ``ValueError`` or ``TypeError`` subclass; the warnings' meaning is in
``docs/engine.md`` §"Exceptions".
"""

from __future__ import annotations

__all__ = [
    "DPCoreError",
    "InvalidPrivacyParameter",
    "DataValidationError",
    "SolverFailed",
    "InfeasibleProblem",
    "UnboundedProblem",
    "PrivacyLeakWarning",
    "ApproximateGuaranteeWarning",
    "DegenerateFitWarning",
    "InvalidGuaranteeWarning",
]


class DPCoreError(Exception):
    """Base class of every error raised on purpose by :mod:`dp_core`."""


class InvalidPrivacyParameter(DPCoreError, ValueError):
    """A privacy parameter (epsilon, delta, sensitivity, ...) is out of its valid range."""


class DataValidationError(DPCoreError, ValueError):
    """A dataset (an uploaded CSV, an array) cannot be used as given; the message says what to do."""


class SolverFailed(DPCoreError, RuntimeError):
    """A numerical solver did not return a usable solution."""


class InfeasibleProblem(SolverFailed):
    """The optimisation problem has no feasible point."""


class UnboundedProblem(SolverFailed):
    """The optimisation problem is unbounded below (for example a non-PSD quadratic)."""


class PrivacyLeakWarning(UserWarning):
    """A quantity that should be declared in advance (a norm bound, a label range) was computed from the
    private data, so the guarantee no longer holds exactly as stated."""


class ApproximateGuaranteeWarning(UserWarning):
    """A sampler is only approximately the mechanism the guarantee is about."""


class DegenerateFitWarning(UserWarning):
    """A fitted private model is no better than a trivial predictor on its own training data (after ``fit``;
    names the likely cause and the setting to change; not part of what the estimator publishes)."""


class InvalidGuaranteeWarning(UserWarning):
    """The estimator was asked, explicitly, for a variant that gives no privacy guarantee (an explicit opt-in
    only; a choice that silently loses the guarantee is refused instead)."""
