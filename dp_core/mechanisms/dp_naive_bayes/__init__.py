"""Differentially private Gaussian naive Bayes: Laplace noise on per-class counts, sums and squared sums.

J. Vaidya, B. Shafiq, A. Basu and Y. Hong, *Differentially Private Naive Bayes Classification*
(IEEE/WIC/ACM WI-IAT 2013), §4: a Gaussian naive Bayes model needs, per class ``c`` and feature ``j``,
the count ``N_c``, the mean and the variance; they are released with the Laplace mechanism and the
classifier is post-processing. Here each feature is mapped by its *public* range ``[lo_j, hi_j]`` to
``z_j = clip((x_j - lo_j) / (hi_j - lo_j), 0, 1) - 1/2`` and three vectors are released:

* counts ``N_c``: replacing one record moves two counts by 1, L1 sensitivity ``2``;
* sums ``S_cj = Σ z_j``: ``|z_j| ≤ 1/2``, so the two affected classes move by at most ``1`` per feature,
  L1 sensitivity ``d``;
* squared sums ``Q_cj = Σ z_j²``: ``z_j² ∈ [0, 1/4]``, L1 sensitivity ``d / 2``.

Budget split: ``ε_N = s ε`` on the counts
and ``ε_S = ε_Q = (1 - s) ε / 2`` on the sums and squared sums, ``s = count_share``. Each is the Laplace
mechanism (Dwork, McSherry, Nissim and Smith 2006, Example 1) and the three compose sequentially
(Dwork and Roth 2014, Theorem 3.16), so the release is ε-DP with δ = 0. Means ``S/N`` and variances
``Q/N - (S/N)²`` are clamped to their public ranges (post-processing, Dwork and Roth Proposition 2.1);
Vaidya et al. use the same Laplace-on-statistics construction with per-statistic sensitivities.
"""

from dataclasses import dataclass

import numpy as np

from dp_core.plugin import Mechanism, param, validate_config

__all__ = ["NaiveBayesConfig", "PLUGIN", "class_statistics", "noisy_statistics", "model_from_statistics"]
__all__ += ["scale_features", "log_posteriors", "sensitivities"]


@dataclass(frozen=True)
class NaiveBayesConfig:
    """The budget split and the public variance floor of DP naive Bayes (each declared once)."""

    count_share: float = param(0.1, lo=0.01, hi=0.9, label="count budget share", symbol="s")
    var_floor: float = param(1e-3, lo=1e-6, hi=0.25, label="variance floor", symbol="v₀")

    def __post_init__(self) -> None:
        validate_config(self)

    def budgets(self, epsilon: float) -> tuple[float, float, float]:
        """``(ε_N, ε_S, ε_Q)``: ``s ε`` on counts, ``(1 - s) ε / 2`` on sums and on squared sums."""
        if not epsilon > 0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
        rest = (1.0 - self.count_share) * epsilon / 2.0
        return self.count_share * epsilon, rest, rest

    def scales(self, epsilon: float, d: int) -> tuple[float, float, float]:
        """Laplace scales ``(2/ε_N, d/ε_S, (d/2)/ε_Q)`` (sensitivity over budget, module docstring)."""
        return tuple(s / e for s, e in zip(sensitivities(d), self.budgets(epsilon)))


def sensitivities(d: int) -> tuple[float, float, float]:
    """L1 sensitivities of (counts, sums, squared sums) under replace-one: ``(2, d, d/2)``."""
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d!r}.")
    return 2.0, float(d), d / 2.0


def scale_features(X, lo, hi) -> np.ndarray:
    """``clip((X - lo) / (hi - lo), 0, 1) - 1/2``: each row's features in ``[-1/2, 1/2]`` from public ranges."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    return np.clip((np.asarray(X, dtype=float) - lo) / (hi - lo), 0.0, 1.0) - 0.5


def class_statistics(Z: np.ndarray, codes: np.ndarray, n_classes: int):
    """Exact ``(N (C,), S (C, d), Q (C, d))`` of the scaled rows ``Z`` per class code ``0..C-1``."""
    onehot = np.eye(n_classes)[np.asarray(codes, dtype=int)]
    return onehot.sum(axis=0), onehot.T @ Z, onehot.T @ (Z * Z)


def noisy_statistics(stats, epsilon: float, cfg: NaiveBayesConfig, rng: np.random.Generator, size: int = 1):
    """``size`` independent Laplace releases of ``stats`` (leading axis ``size``)."""
    N, S, Q = stats
    bN, bS, bQ = cfg.scales(epsilon, S.shape[1])
    return (
        N + rng.laplace(0.0, bN, size=(size, *N.shape)),
        S + rng.laplace(0.0, bS, size=(size, *S.shape)),
        Q + rng.laplace(0.0, bQ, size=(size, *Q.shape)),
    )


def model_from_statistics(N, S, Q, var_floor: float):
    """Post-processing: log priors, means in ``[-1/2, 1/2]`` and variances in ``[var_floor, 1/4]``."""
    n = np.maximum(N, 1.0)
    prior = n / n.sum(axis=-1, keepdims=True)
    mean = np.clip(S / n[..., None], -0.5, 0.5)
    var = np.clip(Q / n[..., None] - mean**2, var_floor, 0.25)
    return np.log(prior), mean, var


def log_posteriors(Z: np.ndarray, log_prior, mean, var) -> np.ndarray:
    """Unnormalised log posteriors ``(..., m, C)`` of the rows ``Z (m, d)`` under Gaussian naive Bayes."""
    diff = Z[:, None, :] - mean[..., None, :, :]
    ll = -0.5 * np.sum(diff**2 / var[..., None, :, :] + np.log(2 * np.pi * var[..., None, :, :]), axis=-1)
    return ll + log_prior[..., None, :]


PLUGIN = Mechanism(
    name="dp-naive-bayes",
    title="DP naive Bayes (Vaidya et al. 2013)",
    page="pages/dp_naive_bayes.py",  # a new file in pages/, as the papers' mechanisms (Streamlit finds it there)
    icon="🎲",
    order=22,
    summary="Gaussian naive Bayes from Laplace-noised class counts, sums and squared sums (pure ε).",
    configs=((NaiveBayesConfig, "nb_"),),
    package=__name__,
)
