"""Full-batch noisy gradient descent with per-example clipping (DP-GD) for logistic and least-squares ERM.

Algorithm (R. Bassily, A. Smith, A. Thakurta, *Private Empirical Risk Minimization: Efficient Algorithms and
Tight Error Bounds*, FOCS 2014, Algorithm 1 without sampling; the clipping of M. Abadi et al., *Deep Learning
with Differential Privacy*, CCS 2016, Algorithm 1 at sampling rate 1): from ``θ_0 = 0``, for ``t < T``,
``θ_{t+1} = θ_t − η [(Σ_i clip_C(∇ℓ(θ_t; x_i, y_i)) + N(0, (2Cz)² I)) / n + λ θ_t]``, ``clip_C(g) = g min(1, C/||g||)``.
Replacing one record moves the clipped sum by at most ``2C``, so each step is the Gaussian mechanism with noise
multiplier ``z`` and the iterates are its ``T``-fold adaptive composition, accounted by ``dp_accounting``'s Rényi
accountant (I. Mironov, *Rényi Differential Privacy*, CSF 2017: Table II for the Gaussian, Proposition 1 for
composition, then ``dp_accounting.rdp``'s conversion to (ε, δ)). ``z`` is the smallest multiplier whose ε for
the ``T`` steps actually run is at most the target (bisection, safe side): status **proof**.

Public rule (``n``, ``ε``, the task and the declared parameters only, never the data values): rows with
``||x|| ≤ 1`` (an intercept included); labels ``±1`` (logistic), class codes (multinomial) or in ``[-1, 1]``
(least squares); ``C = clip`` (default 1, which the logistic gradient never exceeds); ``η = step / (L + λ)``, ``L``
the loss's smoothness on the unit ball (1/4 logistic, 1/2 multinomial, 1 least squares); ``T = steps`` or, when
``steps = 0``, ``T = min(100, max(5, round(n ε / 20)))`` (the noise in ``θ_T`` grows with the horizon ``η T``).
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from ..._validation import check_delta, check_epsilon, check_int
from ...plugin import HIGHER_IS_PRIVATE, LOWER_IS_PRIVATE, Mechanism, param, validate_config

SMOOTHNESS = {"binary": 0.25, "multiclass": 0.5, "regression": 1.0}


@dataclass(frozen=True)
class DPGDConfig:
    """DP-GD's parameters, each declared once (CLI flag, link key, widget and check derive from it)."""

    clip: float = param(1.0, lo=1e-3, hi=1e3, private=LOWER_IS_PRIVATE, label="clipping norm", symbol="C")
    steps: int = param(0, lo=0, hi=2000, label="steps (0: public rule)", symbol="T")
    step: float = param(1.0, lo=1e-3, hi=10.0, label="step size × smoothness", symbol="ηL")
    l2: float = param(1e-3, lo=0.0, hi=100.0, private=HIGHER_IS_PRIVATE, label="L2 penalty", symbol="λ")

    def __post_init__(self) -> None:
        validate_config(self)

    def n_steps(self, n: int, epsilon: float) -> int:
        """``steps``, or the public rule ``min(100, max(5, round(n ε / 20)))`` when ``steps = 0``."""
        if self.steps:
            return int(self.steps)
        return int(min(100, max(5, round(n * epsilon / 20.0))))

    def eta(self, task: str) -> float:
        """Step size ``step / (L + λ)`` with ``L`` the loss's smoothness on the unit ball."""
        return self.step / (SMOOTHNESS[task] + self.l2)


def accounted_epsilon(z: float, steps: int, delta: float) -> float:
    """ε of ``steps`` compositions of the Gaussian mechanism with noise multiplier ``z`` (dp_accounting, RDP)."""
    import dp_accounting
    from dp_accounting import rdp

    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(float(z)), int(steps)))
    return float(acc.get_epsilon(float(delta)))


@lru_cache(maxsize=512)
def noise_multiplier(epsilon: float, delta: float, steps: int) -> float:
    """The smallest ``z`` (to relative 1e-6, safe side) with ``accounted_epsilon(z, steps, delta) <= epsilon``."""
    epsilon, delta = check_epsilon(epsilon, allow_inf=False), check_delta(delta)
    steps = check_int("steps", steps, lo=1)
    lo, hi = 1e-3, 1.0
    while accounted_epsilon(hi, steps, delta) > epsilon:
        lo, hi = hi, hi * 2.0
    while hi / lo > 1 + 1e-6:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if accounted_epsilon(mid, steps, delta) <= epsilon else (mid, hi)
    return hi


def _clipped_sum(task: str, X: np.ndarray, y: np.ndarray, Theta: np.ndarray, clip: float, xn: np.ndarray):
    """Σ_i clip_C(∇ℓ_i) for each trial's parameters ``Theta`` ((k, D), or (k, C, D) for multiclass)."""
    if task == "multiclass":
        Z = np.einsum("kcd,nd->knc", Theta, X)
        P = special.softmax(Z, axis=2)
        P[:, np.arange(y.size), y.astype(int)] -= 1.0
        f = np.minimum(1.0, clip / np.maximum(np.linalg.norm(P, axis=2) * xn, 1e-300))
        return np.einsum("knc,nd->kcd", P * f[..., None], X)
    M = Theta @ X.T
    if task == "binary":
        coef = special.expit(-y * M)
        coef *= -y
    else:
        coef = np.subtract(M, y, out=M)
    f = np.abs(coef)  # the clipping factor min(1, C / |coef_i| ||x_i||), in place (same operations, same order)
    f *= xn
    np.divide(clip, np.maximum(f, 1e-300, out=f), out=f)
    coef *= np.minimum(f, 1.0, out=f)
    return coef @ X


def run_gd(task, X, y, cfg: DPGDConfig, steps: int, sigma: float, rngs, n_classes: int = 2, runs: int = 0):
    """Final iterates of ``len(rngs)`` independent DP-GD runs (one per generator), vectorised over runs, or of
    ``runs`` runs drawn from one generator ``rngs``; ``sigma`` is the noise multiplier ``z`` (0: the noise-free
    schedule) and the noise std on the clipped sum is ``2 C z``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    shape = (n_classes, d) if task == "multiclass" else (d,)
    one = isinstance(rngs, np.random.Generator)
    k = int(runs) if one else max(1, len(rngs))
    Theta = np.zeros((k,) + shape)
    xn = np.linalg.norm(X, axis=1)
    eta = cfg.eta(task)
    noise = None
    if sigma > 0:
        draws = rngs.standard_normal((k, steps) + shape) if one else [g.standard_normal((steps,) + shape) for g in rngs]
        noise = np.asarray(draws) * (2.0 * cfg.clip * sigma)
    for t in range(steps):
        G = _clipped_sum(task, X, y, Theta, cfg.clip, xn)
        if noise is not None:
            G = G + noise[:, t]
        Theta = Theta - eta * (G / n + cfg.l2 * Theta)
    return Theta


PLUGIN = Mechanism(
    name="dp-gd",
    title="Noisy gradient descent (Bassily, Smith & Thakurta)",
    page="pages/dp_gd.py",
    icon="📉",
    order=20,
    summary="Full-batch gradient descent with per-example clipping and Gaussian noise, accounted by dp_accounting.",
    configs=((DPGDConfig, "gd_"),),
    package=__name__,
)

__all__ = ["PLUGIN", "DPGDConfig", "accounted_epsilon", "noise_multiplier", "run_gd"]
