"""AdaSSP: adaptive sufficient-statistics perturbation for linear regression, (ε, δ)-DP.

Yu-Xiang Wang, *Revisiting differentially private linear regression: optimal and adaptive prediction &
estimation in unbounded domain*, AISTATS 2018 (UAI 2018 proceedings), Algorithm 2. With public bounds
``‖x‖ ≤ B_X`` and ``|y| ≤ B_Y`` (rows and labels are clipped to them, a per-record map), three
statistics are released, each with the Gaussian mechanism at ``(ε/3, δ/3)``:

1. ``λ̃_min = max(λ_min(XᵀX) + σ₁ Z − σ₁ √log(6/δ), 0)``: a private lower bound on the smallest eigenvalue;
2. ``XᵀX + σ₂ Z'`` with ``Z'`` symmetric, its upper triangle (diagonal included) i.i.d. N(0, 1);
3. ``Xᵀy + σ₃ z``, ``z ~ N(0, I_d)``;

then ``λ = max(0, √(d log(2d²/ϱ)) σ₂ − λ̃_min)`` and ``θ̂ = (XᵀX̂ + λ I)⁻¹ Xᵀŷ`` (post-processing).
Replace-one L2 sensitivities: ``B_X²`` for ``λ_min`` (Weyl: ``xxᵀ − x'x'ᵀ`` has spectral norm ``≤ B_X²``),
``√2 B_X²`` for the upper triangle of ``XᵀX`` (``‖xxᵀ − x'x'ᵀ‖_F² = ‖x‖⁴ + ‖x'‖⁴ − 2(xᵀx')² ≤ 2 B_X⁴``)
and ``2 B_X B_Y`` for ``Xᵀy``. Wang writes ``σ = √log(6/δ) Δ / (ε/3)``; we calibrate each ``σ_i`` with
the analytic Gaussian mechanism (Balle and Wang, ICML 2018, Theorem 8) at ``(ε/3, δ/3)``, which is exact,
and the three compose to ``(ε, δ)`` (Dwork and Roth 2014, Theorem 3.16): status proof.
"""

import math
from dataclasses import dataclass

import numpy as np

from dp_core.calibration import gaussian_sigma_analytic
from dp_core.plugin import Mechanism, param, validate_config

__all__ = ["AdasspConfig", "PLUGIN", "sigmas", "sufficient_statistics", "release", "solve", "adassp_thetas"]


@dataclass(frozen=True)
class AdasspConfig:
    """AdaSSP's one tuning constant: the failure probability ϱ of the ridge rule (Wang 2018, Alg. 2)."""

    failure_prob: float = param(0.05, lo=1e-4, hi=0.5, label="failure probability ϱ", symbol="ϱ")

    def __post_init__(self) -> None:
        validate_config(self)


def sigmas(epsilon: float, delta: float, bx: float = 1.0, by: float = 1.0) -> tuple[float, float, float]:
    """``(σ₁, σ₂, σ₃)``: analytic Gaussian σ at ``(ε/3, δ/3)`` for sensitivities ``B_X², √2 B_X², 2 B_X B_Y``."""
    if not (epsilon > 0 and 0 < delta < 1 and bx > 0 and by > 0):
        raise ValueError(f"need epsilon > 0, delta in (0, 1), bx, by > 0; got {epsilon!r}, {delta!r}, {bx!r}, {by!r}.")
    sens = (bx * bx, math.sqrt(2.0) * bx * bx, 2.0 * bx * by)
    return tuple(gaussian_sigma_analytic(epsilon=epsilon / 3, delta=delta / 3, sensitivity=s) for s in sens)


def sufficient_statistics(X: np.ndarray, y: np.ndarray):
    """``(XᵀX, Xᵀy, λ_min(XᵀX))`` of rows already clipped to their public bounds."""
    XtX = X.T @ X
    return XtX, X.T @ y, float(np.linalg.eigvalsh(XtX)[0])


def release(stats, sig, delta: float, rng: np.random.Generator, size: int = 1):
    """``size`` releases ``(λ̃_min (size,), XᵀX̂ (size, d, d), Xᵀŷ (size, d))``, the three Gaussian mechanisms."""
    XtX, Xty, lam_min = stats
    d = XtX.shape[0]
    lam = np.maximum(lam_min + sig[0] * rng.standard_normal(size) - sig[0] * math.sqrt(math.log(6 / delta)), 0.0)
    upper = np.triu(rng.standard_normal((size, d, d)))
    sym = upper + np.transpose(np.triu(upper, 1), (0, 2, 1))
    return lam, XtX + sig[1] * sym, Xty + sig[2] * rng.standard_normal((size, d))


def solve(released, sig, cfg: AdasspConfig) -> np.ndarray:
    """Post-processing: the ridge ``λ`` of Algorithm 2 and ``θ̂ = (XᵀX̂ + λ I)⁻¹ Xᵀŷ`` (shape (size, d))."""
    lam_t, XtX, Xty = released
    d = XtX.shape[-1]
    lam = np.maximum(0.0, math.sqrt(d * math.log(2 * d * d / cfg.failure_prob)) * sig[1] - lam_t)
    A = XtX + lam[:, None, None] * np.eye(d)
    try:
        return np.linalg.solve(A, Xty[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(A, Xty)])


def adassp_thetas(stats, epsilon, delta, cfg, rng, *, bx=1.0, by=1.0, size=1) -> np.ndarray:
    """``size`` independent AdaSSP estimates from the exact statistics ``stats``."""
    sig = sigmas(epsilon, delta, bx, by)
    return solve(release(stats, sig, delta, rng, size), sig, cfg)


PLUGIN = Mechanism(
    name="adassp",
    title="AdaSSP linear regression (Wang 2018)",
    page="pages/adassp.py",  # a new file in pages/, as the papers' mechanisms (Streamlit finds it there)
    icon="📐",
    order=21,
    summary="Linear regression from Gaussian-noised XᵀX, Xᵀy and a private ridge (AdaSSP), (ε, δ)-DP.",
    configs=((AdasspConfig, "ad_"),),
    package=__name__,
)
