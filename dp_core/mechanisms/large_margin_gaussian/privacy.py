"""Noise sampler and privacy accounting for the three modes (P, P+, R) of the large-margin classifier.

Pathak & Raj, Algorithm (eq. 8), Theorem 5.1, Lemma 4; Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2.
docs/large_margin_gaussian.md §"privacy.py: the three modes", §"Budget split and Jacobian term"."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from importlib.resources import files

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

_TEXT = json.loads(files(__package__).joinpath("privacy_text.json").read_text(encoding="utf-8"))
MODE_LABELS = _TEXT["MODE_LABELS"]
#: One sentence per broken mode; shown on the page and in the CLI next to every P/P+ number.
NOT_PRIVATE_REASONS = _TEXT["NOT_PRIVATE_REASONS"]
PRIVACY_STATUS = _TEXT["PRIVACY_STATUS"]


def sample_radial(dim: int, beta: float, rng=None, size: int | None = None) -> NDArray[np.float64]:
    """Draw exactly from the density ``∝ exp(-beta ||v||_2)`` on ``R^dim`` (``size`` draws, or one if ``None``).

    Pathak & Raj, Sec. 5.1; docs/large_margin_gaussian.md §"privacy.py: noise sampling"."""
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
    Pathak & Raj, Theorem 5.1 (``alpha`` undefined there; read as ``1/(2h)``,
    docs/large_margin_gaussian.md §"Budget split and Jacobian term")."""
    n, lam, h = check_int("n", n, lo=1), check_positive("lam", lam), check_positive("h", h)
    a = 1.0 / (2.0 * h) / (n * lam)
    return 2.0 * math.log1p(a)


@computable
def k_corrected(n: int, mu: float, h: float, C: int, *, jacobian: str = "conservative", R_z: float = 1.0) -> float:
    """``k_R = r_J ln(1 + kappa/(n mu))`` with ``kappa = C R_z^4/(2h)``, ``r_J = 2(C-1)`` or ``C-1``.
    docs/large_margin_gaussian.md §"Budget split and Jacobian term"."""
    n, mu, h = check_int("n", n, lo=1), check_positive("mu", mu), check_positive("h", h)
    C, R_z = check_int("C", C, lo=2), check_positive("R_z", R_z)
    check_choice("jacobian", jacobian, ("conservative", "tight"))
    r_J = 2 * (C - 1) if jacobian == "conservative" else (C - 1)
    kappa = C * R_z**4 / (2.0 * h)
    return r_J * math.log1p(kappa / (n * mu))


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivacyAccounting:
    """Everything the page and the CLI display about one mode's noise and guarantee.

    Fields: docs/large_margin_gaussian.md §"privacy.py: the accounting record"."""

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


def _budget_split(mode, semantics, epsilon, *, n, lam, mu, h, C, jacobian, kP, kR, kappa) -> tuple:
    """``(mu_used, eps_noise, k, eps_claimed, fallback, Delta)``: CMS (2011) Algorithm 2's split of ``epsilon``."""
    if mode == "printed":
        return 0.0, epsilon, kP, epsilon + kP, False, 0.0
    k_full = kP if mode == "repaired" else kR
    mu_used = lam if mode == "repaired" else mu
    if semantics == "paper":
        return mu_used, epsilon, k_full, epsilon + k_full, False, 0.0
    if epsilon - k_full > 0:
        return mu_used, epsilon - k_full, k_full, epsilon, False, 0.0
    if mode == "repaired":
        Delta = 1.0 / (2.0 * h) / (n * math.expm1(epsilon / 4.0)) - lam
        return mu_used, epsilon / 2.0, k_printed(n, lam + Delta, h), epsilon, True, Delta
    r_J = 2 * (C - 1) if jacobian == "conservative" else (C - 1)
    Delta = kappa / (n * math.expm1(epsilon / (2.0 * r_J))) - mu
    return mu_used, epsilon / 2.0, k_corrected(n, mu + Delta, h, C, jacobian=jacobian), epsilon, True, Delta


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
    """Noise rate, budget split and claimed guarantee of a mode (``mu`` defaults to ``lam``).

    Pathak & Raj, Theorem 5.1; CMS (2011) Algorithm 2; docs/large_margin_gaussian.md §"Budget split and Jacobian term"
    and §"privacy.py: the accounting record"."""
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
    mu_used, eps_noise, k, eps_claimed, fallback, Delta = _budget_split(
        mode, semantics, epsilon, n=n, lam=lam, mu=mu, h=h, C=C, jacobian=jacobian, kP=kP, kR=kR, kappa=kappa
    )
    shared = mode != "corrected"
    D = p * p if shared else C * p * p
    beta = eps_noise / 2.0 if shared else eps_noise / (2.0 * G)
    private = mode == "corrected"
    status = PRIVACY_STATUS[("corrected_psd_on" if psd else "corrected_psd_off") if private else mode]
    reason = "" if private else NOT_PRIVATE_REASONS[mode]
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
