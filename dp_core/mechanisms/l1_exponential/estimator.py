"""The l1 exponential-mechanism regressor (Wang & Xu) as a scikit-learn-style estimator.
D. Wang and J. Xu, *Differentially Private l1-norm Linear Regression with Heavy-tailed Data*,
Algorithms 1-2 and Theorems 1-2. See docs/l1_exponential.md §"estimator (module)"."""

from __future__ import annotations

import numpy as np

from ... import status as vocab
from ...estimators._base import (
    DPEstimator,
    DPRegressorMixin,
    PrivacyGuarantee,
    audited_status,
    check_number,
    check_random_state_like,
)

__all__ = ["L1ExponentialRegressor"]


class L1ExponentialRegressor(DPRegressorMixin, DPEstimator):
    """Private l1 (least absolute deviation) regression by the exponential mechanism (Wang & Xu).
    See docs/l1_exponential.md §"estimator.L1ExponentialRegressor"."""

    def __init__(
        self,
        epsilon=1.0,
        *,
        theta=1.5,
        radius=1.0,
        x_scale=1.0,
        y_scale=1.0,
        fit_intercept=True,
        convention="tight",
        mcmc_preset="quick",
        mode="auto",
        random_state=None,
    ):
        self._store_params(locals())

    def _design(self, A: np.ndarray) -> np.ndarray:
        Z = A / self.x_scale
        return np.column_stack([Z, np.ones(Z.shape[0])]) if self.fit_intercept else Z

    def fit(self, X, y):
        """Fit on ``X`` (array or DataFrame) and ``y`` (numbers); returns ``self``."""
        import warnings

        from . import L1ExponentialRegression

        eps = check_number("epsilon", self.epsilon)
        check_number("x_scale", self.x_scale)
        ys = check_number("y_scale", self.y_scale)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be a bool, got {self.fit_intercept!r}.")
        A, v = self._validate_Xy(X, y)
        Z = self._design(A)
        kw = {k: getattr(self, k) for k in ("theta", "radius", "convention", "mode", "mcmc_preset")}
        cfg = L1ExponentialRegression(epsilon=eps, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fit, diag = cfg.run(Z, v / ys, rng=check_random_state_like(self.random_state), diagnostics=True)
        cal = fit.calibration
        exact = cal.mode == "grid"
        converged = None if exact else not bool(diag.mcmc.flagged)
        del diag, Z, v
        w = np.asarray(fit.w, dtype=np.float64) * ys
        d = A.shape[1]
        self.coef_ = w[:d] / self.x_scale
        self.intercept_ = float(w[d]) if self.fit_intercept else 0.0
        sampler = "grid (exact)" if exact else f"MCMC (MALA, preset {self.mcmc_preset!r})"
        self.sampler_ = {"sampler": sampler, "exact": exact, "converged": converged}
        status, reason = self._status(cal, fit.privacy_label, exact, converged)
        self._warn_if_no_guarantee(audited_status("l1-exponential", cal.convention) == vocab.REFUTED, converged)
        self.privacy_ = PrivacyGuarantee(
            epsilon=eps,
            delta=0.0,
            neighbours="replace one record",
            model="central",
            status=status,
            mechanism="Exponential mechanism on the truncated l1 risk (Wang & Xu, Algorithms 1-2)",
            reason=reason,
            extra={"sampler": self.sampler_["sampler"], "converged": converged},
        )
        self._warn_if_degenerate(X, y)
        return self

    def _warn_if_no_guarantee(self, refuted: bool, converged: bool | None) -> None:
        """Warn when the convention is refuted (audit table) or the MCMC chains did not converge."""
        from ...exceptions import ApproximateGuaranteeWarning

        if refuted:
            self._warn_no_guarantee(
                f"L1ExponentialRegressor(convention={self.convention!r}) is not ε-DP as claimed (the audit table "
                "refutes this temperature): privacy_ has no valid guarantee. Use convention='tight' for a private "
                "release."
            )
        if converged is False:
            self._warn_no_guarantee(
                "the MCMC chains of the l1 exponential mechanism failed their convergence check "
                "(split-R-hat > 1.05): the draw may be far from the mechanism's distribution, so neither "
                "its accuracy nor its guarantee can be relied on; see sampler_ and privacy_.reason.",
                ApproximateGuaranteeWarning,
            )

    @staticmethod
    def _status(cal, label: str, exact: bool, converged: bool | None) -> tuple[str, str]:
        """The status and its reason: the audit table's for the convention, unless MCMC weakens it."""
        table = audited_status("l1-exponential", cal.convention)
        source = f"status of the audit table's row l1-exponential:{cal.convention}"
        if table == vocab.REFUTED:
            return table, f"{label}. Not private as claimed: {source} is {table}."
        if exact:
            return table, f"Pure ε-DP, exact grid sampler: {cal.privacy_label} ({source})."
        if converged:
            return vocab.CLAIMED, (
                f"{cal.privacy_label}. The chains passed their convergence check (split-R-hat <= 1.05, "
                "bulk ESS >= 100); the guarantee is that of the exact target, conditional on convergence."
            )
        return vocab.REFUTED, (
            f"{label}. Not proved: the sampler did not converge, so this draw is not a "
            "sample of the ε-DP distribution (do not use this fit). Try mcmc_preset='fast' or 'spec', "
            "fewer features, or at most 3 features for the exact grid sampler."
        )

    def _degenerate_advice(self) -> str:
        return (
            f"Likely cause: x_scale = {self.x_scale!r} and y_scale = {self.y_scale!r} leave the scaled rows and "
            f"labels far from the ball of radius {self.radius!r} the mechanism searches, the noise dominates at "
            f"epsilon = {self.epsilon!r}, or the MCMC chains did not converge (see sampler_). Fix: set x_scale "
            "and y_scale so that scaled features and labels are of order 1, raise epsilon, or use at most 3 "
            "fitted dimensions (the exact grid sampler)."
        )

    def predict(self, X) -> np.ndarray:
        """Predicted targets ``X @ coef_ + intercept_``."""
        self._check_fitted()
        A = self._validate_X(X, reset=False)
        return A @ self.coef_ + self.intercept_
