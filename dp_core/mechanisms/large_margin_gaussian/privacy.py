"""Noise sampler and privacy accounting for the three modes of the large-margin classifier.

Modes (docs/large_margin_gaussian.md §"Modes and why P and P+ are not private"):

``printed`` (Algorithm P)
    The paper as printed: inputs ``(x, 1)``, one noise matrix ``b`` shared by every class with rate
    ``beta = eps/2``, no quadratic term (``mu = 0``), PSD constraint, claimed ``eps' = eps + k_P``.
``repaired`` (Algorithm P+)
    The minimum changes that make Algorithm P run: scaled inputs ``(x, 1)/sqrt(2)``, ``mu := lam``,
    CMS budget split under target semantics. The noise is still shared by every class.
``corrected`` (Algorithm R, default)
    One radial draw over the stacked ``C x p x p`` parameter with rate ``beta = eps_noise/(2G)``,
    ``G = sqrt(C(C-1)) R_z^2``, Jacobian term ``k_R = r_J ln(1 + kappa/(n mu))``, CMS split.

References
----------
Pathak & Raj, Algorithm (eq. 8), Theorem 5.1 and Lemma 4; K. Chaudhuri, C. Monteleoni and
A. D. Sarwate, "Differentially private empirical risk minimization", JMLR 12 (2011), Algorithm 2
(budget split and extra regulariser). docs/large_margin_gaussian.md §"Budget split and Jacobian term".
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from ..._validation import check_array_size, check_choice, check_epsilon, check_int, check_positive, computable
from ...calibration import sample_laplace_norm
from ...rng import as_generator

__all__ = [
    "MODES",
    "MODE_LABELS",
    "NOT_PRIVATE_REASONS",
    "PrivacyAccounting",
    "privacy_params",
    "sample_radial",
    "k_printed",
    "k_corrected",
]

MODES = ("printed", "repaired", "corrected")

MODE_LABELS = {
    "printed": "P — paper as printed",
    "repaired": "P+ — paper, repaired to run",
    "corrected": "R — corrected (default)",
}

#: One sentence per broken mode; shown on the page and in the CLI next to every P/P+ number.
NOT_PRIVATE_REASONS = {
    "printed": (
        "Not differentially private as printed: its objective is unbounded below for at least half "
        "of the noise draws, and when it is not, the single noise matrix shared by all classes leaves "
        "the class differences that decide every prediction untouched."
    ),
    "repaired": (
        "Not differentially private as printed: the repair makes the objective bounded, but the "
        "single noise matrix is still shared by all classes, so the class differences that decide "
        "every prediction are released exactly as in the non-private fit."
    ),
}

PRIVACY_STATUS = {
    "printed": "not differentially private as printed",
    "repaired": "not differentially private as printed",
    "corrected_psd_off": "ε-DP (objective-perturbation proof covers PSD off)",
    "corrected_psd_on": "ε-DP (PSD-constrained; relies on Kifer–Smith–Thakurta 2012, not re-derived)",
}


def sample_radial(dim: int, beta: float, rng=None, size: int | None = None) -> NDArray[np.float64]:
    """Draw exactly from the density ``∝ exp(-beta ||v||_2)`` on ``R^dim``.

    ``||v|| ~ Gamma(shape=dim, scale=1/beta)`` and the direction is uniform on the sphere
    (a normalised standard normal vector), independently.

    Parameters
    ----------
    dim : int
        Dimension ``m >= 1``.
    beta : float
        Rate in ``(0, inf)``.
    rng : None, int, Generator or SeedSequence
    size : int, optional
        Number of draws; ``None`` returns one vector of shape ``(dim,)``.

    References
    ----------
    Pathak & Raj, Sec. 5.1 (noise sampling); docs/large_margin_gaussian.md §"Budget split and Jacobian term" (the Gamma
    parameter ``2/eps`` is a scale, not a rate).

    Examples
    --------
    >>> sample_radial(9, 0.5, rng=0).shape
    (9,)
    """
    dim = check_int("dim", dim, lo=1)
    beta = check_positive("beta", beta)
    gen = as_generator(rng)
    shape = (1 if size is None else check_int("size", size, lo=0),)
    check_array_size("dim x size", dim * max(shape[0], 1))
    v = sample_laplace_norm(gen, shape[0], dim, scale=1.0 / beta, radius_first=True)
    return v[0] if size is None else v


@computable
def k_printed(n: int, lam: float, h: float) -> float:
    """The paper's Jacobian term ``k = ln(1 + 2 alpha/(n lam) + alpha^2/(n lam)^2)``, ``alpha = 1/(2h)``.

    References
    ----------
    Pathak & Raj, Theorem 5.1 (``alpha`` undefined there; read as ``1/(2h)``,
    docs/large_margin_gaussian.md §"Budget split and Jacobian term").
    """
    n, lam, h = check_int("n", n, lo=1), check_positive("lam", lam), check_positive("h", h)
    a = 1.0 / (2.0 * h) / (n * lam)
    return 2.0 * math.log1p(a)


@computable
def k_corrected(n: int, mu: float, h: float, C: int, *, jacobian: str = "conservative", R_z: float = 1.0) -> float:
    """``k_R = r_J ln(1 + kappa/(n mu))`` with ``kappa = C R_z^4/(2h)``, ``r_J = 2(C-1)`` or ``C-1``.

    References
    ----------
    docs/large_margin_gaussian.md §"Budget split and Jacobian term".
    """
    n, mu, h = check_int("n", n, lo=1), check_positive("mu", mu), check_positive("h", h)
    C, R_z = check_int("C", C, lo=2), check_positive("R_z", R_z)
    check_choice("jacobian", jacobian, ("conservative", "tight"))
    r_J = 2 * (C - 1) if jacobian == "conservative" else (C - 1)
    kappa = C * R_z**4 / (2.0 * h)
    return r_J * math.log1p(kappa / (n * mu))


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivacyAccounting:
    """Everything the page and the CLI display about one mode's noise and guarantee.

    Attributes
    ----------
    mode, semantics, jacobian : str
    epsilon : float
        The slider value.
    noise_dim : int
        ``D = p^2`` (shared noise) or ``D_B = C p^2`` (stacked noise).
    shared_noise : bool
    beta : float
        Noise rate: density ``∝ exp(-beta ||N||_F)``.
    eps_noise : float
        Part of the budget spent on the noise density (``2 beta`` or ``2 G beta``).
    k : float
        Jacobian part evaluated at ``mu_eff`` (``k_P`` for P/P+, ``k_R`` for R).
    k_printed : float
        The paper's ``k`` with ``alpha = 1/(2h)`` and the slider's ``lam``.
    k_corrected : float
        ``k_R`` at ``mu`` (before any extra regularisation).
    eps_prime : float
        ``eps + k_P``: the paper's claimed total for P (and P+ under paper semantics).
    eps_claimed : float
        The total the mode claims: ``eps'`` for P, ``eps`` (target) or ``eps + k`` (paper) otherwise.
    fallback : bool
        Whether the CMS split added extra regularisation ``Delta > 0``.
    Delta, mu, mu_eff : float
    G, kappa, alpha, R_z : float
    expected_noise_norm, sd_noise_norm, expected_noise_norm_sq : float
    private : bool
        ``False`` for P and P+ (not differentially private as printed).
    status : str
        Privacy status badge text.
    reason : str
        One sentence for P/P+ (empty for R).
    """

    mode: str
    semantics: str
    jacobian: str
    epsilon: float
    n: int
    d: int
    n_classes: int
    lam: float
    h: float
    psd: bool
    noise_dim: int
    shared_noise: bool
    beta: float
    eps_noise: float
    k: float
    k_printed: float
    k_corrected: float
    eps_prime: float
    eps_claimed: float
    fallback: bool
    Delta: float
    mu: float
    mu_eff: float
    G: float
    kappa: float
    alpha: float
    R_z: float
    input_scale: float
    expected_noise_norm: float
    sd_noise_norm: float
    expected_noise_norm_sq: float
    private: bool
    status: str
    reason: str

    def as_dict(self) -> dict:
        """Plain ``dict`` (JSON-friendly)."""
        return asdict(self)


@computable
def privacy_params(
    *,
    epsilon: float,
    n: int,
    d: int,
    n_classes: int,
    lam: float,
    h: float,
    mu: float | None = None,
    mode: str = "corrected",
    semantics: str = "target",
    jacobian: str = "conservative",
    psd: bool = True,
) -> PrivacyAccounting:
    """Noise rate, budget split and claimed guarantee of a mode.

    Parameters
    ----------
    epsilon : float
        Privacy budget in ``(0, inf)`` (the slider value).
    n, d, n_classes : int
        Training size (``>= 1``), input dimension (``>= 1``) and number of classes (``>= 2``).
    lam : float
        Trace coefficient (average form), ``(0, inf)``.
    h : float
        Huber width, ``(0, inf)``.
    mu : float, optional
        Frobenius coefficient ``(0, inf)``; default ``lam``. Ignored by P (``mu = 0``) and P+
        (``mu := lam``).
    mode : {"printed", "repaired", "corrected"}
    semantics : {"target", "paper"}
        ``target``: ``epsilon`` is the total budget (CMS split). ``paper``: ``epsilon`` is spent on
        the noise and the total is ``epsilon + k``. ``printed`` always uses paper semantics.
    jacobian : {"conservative", "tight"}
        Rank count ``r_J = 2(C-1)`` or ``C-1`` in ``k_R``.
    psd : bool
        PSD constraint (only changes the status text of R).

    Returns
    -------
    PrivacyAccounting

    References
    ----------
    Pathak & Raj, Theorem 5.1; CMS (2011) Algorithm 2; docs/large_margin_gaussian.md
    §"Budget split and Jacobian term", check-value rows 1-13
    and 30-39.

    Examples
    --------
    >>> acc = privacy_params(epsilon=1.0, n=1000, d=2, n_classes=3, lam=0.01, h=0.5)
    >>> round(acc.k_corrected, 3), round(acc.Delta, 5), round(acc.beta, 4)
    (1.049, 0.01253, 0.1021)
    """
    epsilon = check_epsilon(epsilon, allow_inf=False)
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1)
    C = check_int("n_classes", n_classes, lo=2)
    lam = check_positive("lam", lam)
    h = check_positive("h", h)
    mode = check_choice("mode", mode, MODES)
    semantics = check_choice("semantics", semantics, ("target", "paper"))
    jacobian = check_choice("jacobian", jacobian, ("conservative", "tight"))
    if mu is None:
        mu = lam
    mu = check_positive("mu", mu)
    p = d + 1
    alpha = 1.0 / (2.0 * h)
    if mode == "printed":
        semantics = "paper"
        R_z, scale = math.sqrt(2.0), 1.0
    else:
        R_z, scale = 1.0, 1.0 / math.sqrt(2.0)
    G = math.sqrt(C * (C - 1)) * R_z**2
    kappa = C * R_z**4 / (2.0 * h)
    kP = k_printed(n, lam, h)
    kR = k_corrected(n, mu, h, C, jacobian=jacobian)
    r_J = 2 * (C - 1) if jacobian == "conservative" else (C - 1)
    Delta = 0.0
    fallback = False
    if mode == "printed":
        mu_used = 0.0
        eps_noise = epsilon
        k = kP
        eps_claimed = epsilon + kP
    elif mode == "repaired":
        mu_used = lam
        if semantics == "paper":
            eps_noise, k = epsilon, kP
            eps_claimed = epsilon + kP
        elif epsilon - kP > 0:
            eps_noise, k = epsilon - kP, kP
            eps_claimed = epsilon
        else:
            fallback = True
            Delta = alpha / (n * math.expm1(epsilon / 4.0)) - lam
            eps_noise = epsilon / 2.0
            k = k_printed(n, lam + Delta, h)
            eps_claimed = epsilon
    else:
        mu_used = mu
        if semantics == "paper":
            eps_noise, k = epsilon, kR
            eps_claimed = epsilon + kR
        elif epsilon - kR > 0:
            eps_noise, k = epsilon - kR, kR
            eps_claimed = epsilon
        else:
            fallback = True
            Delta = kappa / (n * math.expm1(epsilon / (2.0 * r_J))) - mu
            eps_noise = epsilon / 2.0
            k = k_corrected(n, mu + Delta, h, C, jacobian=jacobian)
            eps_claimed = epsilon
    shared = mode != "corrected"
    D = p * p if shared else C * p * p
    beta = eps_noise / 2.0 if shared else eps_noise / (2.0 * G)
    if mode == "corrected":
        private = True
        status = PRIVACY_STATUS["corrected_psd_on" if psd else "corrected_psd_off"]
        reason = ""
    else:
        private = False
        status = PRIVACY_STATUS[mode]
        reason = NOT_PRIVATE_REASONS[mode]
    return PrivacyAccounting(
        mode=mode,
        semantics=semantics,
        jacobian=jacobian,
        epsilon=epsilon,
        n=n,
        d=d,
        n_classes=C,
        lam=lam,
        h=h,
        psd=bool(psd),
        noise_dim=D,
        shared_noise=shared,
        beta=beta,
        eps_noise=eps_noise,
        k=k,
        k_printed=kP,
        k_corrected=kR,
        eps_prime=epsilon + kP,
        eps_claimed=eps_claimed,
        fallback=fallback,
        Delta=Delta,
        mu=mu_used,
        mu_eff=mu_used + Delta,
        G=G,
        kappa=kappa,
        alpha=alpha,
        R_z=R_z,
        input_scale=scale,
        expected_noise_norm=D / beta,
        sd_noise_norm=math.sqrt(D) / beta,
        expected_noise_norm_sq=D * (D + 1) / beta**2,
        private=private,
        status=status,
        reason=reason,
    )
