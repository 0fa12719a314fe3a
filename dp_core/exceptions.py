"""Exception and warning classes of :mod:`dp_core`.

Every error a user can cause by passing bad parameters is a ``ValueError`` or a ``TypeError``
(or a subclass), so callers that only know the standard library can still catch them.
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
    """A dataset (an uploaded CSV, an array) cannot be used as given.

    The message says what is wrong and what to do about it.
    """


class SolverFailed(DPCoreError, RuntimeError):
    """A numerical solver did not return a usable solution."""


class InfeasibleProblem(SolverFailed):
    """The optimisation problem has no feasible point."""


class UnboundedProblem(SolverFailed):
    """The optimisation problem is unbounded below (for example a non-PSD quadratic)."""


class PrivacyLeakWarning(UserWarning):
    """A quantity that should be declared in advance was computed from the private data.

    Computing a norm bound or a label range from the data itself leaks information about the
    data, so the resulting guarantee no longer holds exactly as stated.
    """


class ApproximateGuaranteeWarning(UserWarning):
    """A sampler is only approximately the mechanism the guarantee is about."""


class DegenerateFitWarning(UserWarning):
    """A fitted private model is no better than a trivial predictor on its own training data.

    Raised after ``fit`` when a classifier predicts one class for every training row, or a
    regressor does far worse than predicting the mean. The message names the likely cause and
    the setting to change. The check reads the training data after the release; its answer is
    for the analyst who holds that data and is not part of what the estimator publishes.
    """


class InvalidGuaranteeWarning(UserWarning):
    """The estimator was asked, explicitly, for a variant that gives no privacy guarantee.

    Only raised for an explicit opt-in (a non-private ``mode`` or ``mechanism`` kept to show why it
    fails); a default or a parameter choice that silently loses the guarantee is refused instead.
    """
