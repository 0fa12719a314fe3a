"""The privacy-proof diagnostic of input perturbation ([FTS17] Fukuchi, Tran & Sakuma 2017, Lemma 1, Lemma 7,
Corollary 2, proof of Theorem 1): the two events measured over draws of the noise U, beside the paper's promise.
docs/input_perturbation.md §"Privacy-proof diagnostic" and §"Corrected σ_u (CORR)".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr  # the normal cdf; scipy.stats alone takes about a second to import

from ..._validation import check_int
from ...publication import NonPublicDiagnostics
from ...rng import as_generator
from .mechanism import _stats_draw, nonprivate_theta
from .model import SufficientStats
from .params import InputPerturbationParams

__all__ = ["PrivacyDiagnostic", "privacy_diagnostic", "pointwise_event_probability"]


@dataclass(frozen=True)
class PrivacyDiagnostic(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: measured fractions of the two events, with standard errors, beside the paper's promise.

    The draws of ``M`` use the private ``Q^T Q``, so the per-draw arrays and fractions describe the private data.
    """

    threshold: float
    promised: float
    n_draws: int
    lmin_plus_ridge: np.ndarray
    lmin: np.ndarray
    quad_form: np.ndarray
    frac_needed: float
    frac_needed_se: float
    frac_lemma1: float
    frac_lemma1_se: float
    frac_lmin_only: float
    lemma1_normal_approx: float
    Delta_in: float

    def summary(self) -> dict:
        return {
            "threshold_2lam_over_eps": self.threshold,
            "promised_probability": self.promised,
            "n_draws": self.n_draws,
            "measured_fraction_lmin_M_plus_Delta_in": self.frac_needed,
            "se_lmin_M_plus_Delta_in": self.frac_needed_se,
            "measured_fraction_lemma1_pointwise": self.frac_lemma1,
            "se_lemma1_pointwise": self.frac_lemma1_se,
            "measured_fraction_lmin_M_alone": self.frac_lmin_only,
            "normal_approximation_lemma1": self.lemma1_normal_approx,
            "mean_lmin_M": float(np.mean(self.lmin)),
            "mean_wMw": float(np.mean(self.quad_form)),
            "sd_wMw": float(np.std(self.quad_form, ddof=1)) if self.n_draws > 1 else math.nan,
            "detectable_failure_rate": 3.0 / self.n_draws,  # rule of three: rarer failures go unseen
            "ci95_half_needed": 1.959963984540054 * self.frac_needed_se,
            "ci95_half_lemma1": 1.959963984540054 * self.frac_lemma1_se,
            "needed_consistent": bool(self.frac_needed >= self.promised - 4.0 * self._se_at_promise()),
            "lemma1_consistent": bool(self.frac_lemma1 >= self.promised - 4.0 * self._se_at_promise()),
        }

    def _se_at_promise(self) -> float:
        # binomial standard error at the promised probability, floored at one draw's worth
        p = self.promised
        return max(math.sqrt(p * (1.0 - p) / self.n_draws), 1.0 / self.n_draws)


def pointwise_event_probability(stats: SufficientStats, params: InputPerturbationParams, w: np.ndarray) -> float:
    """Normal approximation of Pr[w^T M w >= 2 lambda/eps] for a unit vector w (docs/input_perturbation.md
    §"Privacy-proof diagnostic")."""
    w = np.asarray(w, dtype=float) / np.linalg.norm(w)
    s2 = params.sigma_u**2
    qw2 = float(w @ stats.S @ w)
    sd = math.sqrt(4.0 * s2 * qw2 / stats.n + 2.0 * s2 * s2 / stats.n)
    return float(ndtr(-(params.ridge_threshold - s2) / sd))  # the normal upper tail


def privacy_diagnostic(
    stats: SufficientStats, params: InputPerturbationParams, *, n_draws: int = 400, seed=0, w: np.ndarray | None = None
) -> PrivacyDiagnostic:
    """Monte-Carlo frequency over ``n_draws`` >= 2 draws of U of the events Theorem 1's proof needs ([FTS17] Lemma 1);
    ``w`` the direction of the pointwise event, default w^ / ||w^|| (docs/input_perturbation.md
    §"Privacy-proof diagnostic")."""
    R = check_int("n_draws", n_draws, lo=2, hi=1_000_000)
    if w is None:
        w = nonprivate_theta(stats, params.eta)
        if not np.linalg.norm(w) > 0:
            w = np.eye(stats.d)[0]
    w = np.asarray(w, dtype=float)
    w = w / np.linalg.norm(w)
    g = as_generator(seed)
    lmins, quads = [], []
    for start in range(0, R, 20_000):
        T = min(20_000, R - start)
        QtQt, _ = _stats_draw(stats, params, g, T)
        M = QtQt - stats.S[None]
        lmins.append(np.linalg.eigvalsh(M)[:, 0])
        quads.append(np.einsum("i,tij,j->t", w, M, w))
    lmin = np.concatenate(lmins)
    quad = np.concatenate(quads)
    thr = params.ridge_threshold
    needed = lmin + params.Delta_in >= thr
    lemma1 = quad >= thr

    def se(b):
        f = b.mean()
        return float(math.sqrt(max(f * (1 - f), 1e-300) / b.size))

    return PrivacyDiagnostic(
        threshold=thr,
        promised=1.0 - params.gamma,
        n_draws=R,
        lmin_plus_ridge=lmin + params.Delta_in,
        lmin=lmin,
        quad_form=quad,
        frac_needed=float(needed.mean()),
        frac_needed_se=se(needed),
        frac_lemma1=float(lemma1.mean()),
        frac_lemma1_se=se(lemma1),
        frac_lmin_only=float((lmin >= thr).mean()),
        lemma1_normal_approx=pointwise_event_probability(stats, params, w),
        Delta_in=params.Delta_in,
    )
