"""Step 0 of input perturbation: the public parameters every contributor and the server derive.

All formulas are those of Fukuchi, Tran and Sakuma (2017), Algorithms 1-2 and Corollaries 1-3; our
corrections cite ``docs/input_perturbation.md`` §"Our corrections and choices". Natural logarithms throughout.

References
----------
.. [FTS17] K. Fukuchi, Q. K. Tran, J. Sakuma, *Differentially Private Empirical Risk Minimization
   with Input Perturbation*, arXiv:1710.07425 (2017): Algorithm 1, Algorithm 2, Lemma 1,
   Corollaries 1-3, Theorem 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..._validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_in_interval,
    check_int,
    check_positive,
    computable,
)
from ...calibration import gaussian_epsilon_analytic
from ...exceptions import InvalidPrivacyParameter

__all__ = [
    "SIGMA_U_MODES",
    "InputPerturbationParams",
    "input_perturbation_params",
    "sigma_u_value",
    "kappa_lower",
    "kappa_upper",
    "kappa_lower_one_sided",
    "min_n",
    "Feasibility",
    "feasibility",
    "LocalPrivacy",
    "local_privacy",
    "exact_local_epsilon",
]

#: ``COR2``: Corollary 2 (default); ``ALG1``: Algorithm 1 as printed; ``CORR``: the diagnostic value
#: of docs/input_perturbation.md §"Corrected σ_u (CORR)" (ours, no privacy claim).
SIGMA_U_MODES = ("COR2", "ALG1", "CORR")


def min_n(delta: float) -> dict[str, float]:
    """Minimum sample sizes of docs/input_perturbation.md §"Minimum sample sizes" (strict for the two sigma_u modes,
    >= for Theorem 2).

    >>> round(min_n(0.01)["cor2"], 2)
    26.74
    """
    dl = check_delta(delta)
    return {
        "cor2": 4.0 * math.log(8.0 / dl),
        "alg1": 4.0 * math.log(4.0 / dl),
        "theorem2": 16.0 * math.log(8.0 / dl),
    }


@dataclass(frozen=True, slots=True)
class Feasibility:
    """Whether ``n`` contributors suffice at ``delta`` for a sigma_u mode, and what would change it.

    Attributes
    ----------
    ok : bool
        ``n`` is above the mode's minimum (sigma_u is defined).
    n_min : float
        The mode's minimum: 4 ln(8/delta) (Corollary 2, also CORR) or 4 ln(4/delta) (Algorithm 1).
    delta_min : float
        The smallest delta at which ``n`` contributors suffice (``n > n_min(delta)``), i.e.
        8 exp(-n/4) (4 exp(-n/4) for Algorithm 1); above 0.5 when no useful delta exists.
    n_theorem2 : float
        16 ln(8/delta): from this size on, the utility bound of Theorem 2 applies.
    """

    ok: bool
    n_min: float
    delta_min: float
    n_theorem2: float


def feasibility(n: int, delta: float, mode: str = "COR2") -> Feasibility:
    """Can input perturbation run with ``n`` contributors at ``delta``?
    (docs/input_perturbation.md §"Minimum sample sizes")

    The quadratic-noise scale sigma_u of Corollary 2 (and of Algorithm 1) has a positive denominator
    only for n > 4 ln(8/delta) (n > 4 ln(4/delta)); inverting it gives the smallest delta that ``n``
    contributors allow. [FTS17] Algorithm 1 and Corollary 2.

    >>> f = feasibility(80, 1e-5)
    >>> f.ok, round(f.n_min, 1)
    (True, 54.4)
    >>> f = feasibility(40, 1e-5)
    >>> f.ok, f"{f.delta_min:.2g}"
    (False, '0.00036')
    """
    n = check_int("n", n, lo=1)
    dl = check_delta(delta)
    mode = check_choice("mode", mode, SIGMA_U_MODES)
    c = 4.0 if mode == "ALG1" else 8.0
    mins = min_n(dl)
    n_min = mins["alg1" if mode == "ALG1" else "cor2"]
    return Feasibility(ok=n > n_min, n_min=n_min, delta_min=c * math.exp(-n / 4.0), n_theorem2=mins["theorem2"])


def _a_values(n: float, delta: float) -> tuple[float, float]:
    gamma = delta / 2.0
    return math.sqrt(math.log(2.0 / gamma) / n), math.sqrt(math.log(4.0 / gamma) / n)


def sigma_u_value(*, n: float, d: int, eps_run: float, delta: float, lam: float, mode: str = "COR2") -> float:
    """The aggregate scale sigma_u of the quadratic-term noise ([FTS17] Algorithm 1, Corollary 2).

    Returns ``nan`` when ``n`` is at or below the minimum of the chosen mode (the formula's
    denominator is not positive there) so that curves over ``n`` can be drawn without raising.

    Parameters
    ----------
    n : float
        Number of contributors. Must be > 0.
    d : int
        Dimension.
    eps_run : float
        The epsilon actually used (alpha * epsilon).
    delta : float
        Target delta in (0, 1); gamma = delta / 2.
    lam : float
        Smoothness constant lambda.
    mode : {"COR2", "ALG1", "CORR"}

    References
    ----------
    [FTS17] Algorithm 1 (ALG1), Corollary 2 (COR2); docs/input_perturbation.md §"Corrected σ_u (CORR)" (CORR).

    >>> round(sigma_u_value(n=10_000, d=10, eps_run=1.0, delta=1e-5, lam=1.0), 4)
    1.653
    """
    a2, a4 = _a_values(n, delta)
    gamma = delta / 2.0
    thr = 2.0 * lam / eps_run
    if mode == "ALG1":
        den = 1.0 - 2.0 * a2
        lin = math.sqrt(2.0 * d) * lam * a2
    elif mode == "COR2":
        den = 1.0 - 2.0 * a4
        lin = math.sqrt(2.0 * d) * lam * a2
    elif mode == "CORR":
        den = 1.0 - 2.0 * a4
        lin = math.sqrt(2.0 * lam * math.log(2.0 / gamma))
    else:
        check_choice("sigma_u_mode", mode, SIGMA_U_MODES)
        raise AssertionError  # unreachable
    if not den > 0.0:
        return math.nan
    return (lin + math.sqrt(lin * lin + thr * den)) / den


def kappa_lower(*, sigma_u: float, n: float, d: int, delta: float, lam: float) -> float:
    """The two-sided lower bound varkappa(n, gamma) on Delta_0 of [FTS17] Lemma 1 (gamma = delta/2)."""
    a2, a4 = _a_values(n, delta)
    return sigma_u**2 * (1.0 - 2.0 * a4) - 2.0 * math.sqrt(2.0 * d) * lam * sigma_u * a2


def kappa_lower_one_sided(*, sigma_u: float, n: float, d: int, delta: float, lam: float) -> float:
    """The one-sided lower bound that Theorem 1 needs (docs/input_perturbation.md §"Lemma 7's one-sided bound");
    ALG1 is its root."""
    a2, _ = _a_values(n, delta)
    return sigma_u**2 * (1.0 - 2.0 * a2) - 2.0 * math.sqrt(2.0 * d) * lam * sigma_u * a2


def kappa_upper(*, sigma_u: float, n: float, d: int, delta: float, lam: float) -> float:
    """The upper bound kappa(n, gamma) on Delta_0 of [FTS17] Lemma 1 (gamma = delta/2)."""
    a2, a4 = _a_values(n, delta)
    return sigma_u**2 * (1.0 + 2.0 * a4 + 2.0 * a4 * a4) + 2.0 * math.sqrt(2.0 * d) * lam * sigma_u * a2


@dataclass(frozen=True, slots=True, kw_only=True)
class InputPerturbationParams:
    """Every public quantity of Step 0 ([FTS17] Algorithm 1), computed once and shared.

    Attributes follow the paper's symbols: ``eps_run`` = alpha * epsilon, ``gamma`` =
    ``delta_prime`` = delta / 2, ``a2``, ``a4``, ``K`` = 8 ln(2/delta') + 4 eps_run, ``sigma_b``
    (aggregate std of the linear-term noise b), ``sigma_u`` (the value in use, with margin),
    ``sigma_u_alg1`` / ``sigma_u_cor2`` / ``sigma_u_corr`` (the three formulas), ``ridge_threshold``
    = 2 lambda / eps_run, ``Delta_star``, ``Delta``, ``Delta_in`` = Delta - 2 lambda / eps_run,
    minimum sample sizes and validity flags.

    References
    ----------
    [FTS17] Algorithm 1 (sigma_b, sigma_u), Algorithm 2 (Delta_in), Corollary 2 (sigma_u, COR2).
    """

    n: int
    d: int
    epsilon: float
    delta: float
    eta: float
    zeta: float
    lam: float
    alpha: float
    sigma_u_mode: str
    sigma_u_margin: float
    Delta_multiplier: float
    eps_run: float
    gamma: float
    delta_prime: float
    a2: float
    a4: float
    K: float
    sigma_b2: float
    sigma_b: float
    sigma_u: float
    sigma_u_alg1: float
    sigma_u_cor2: float
    sigma_u_corr: float
    ridge_threshold: float
    Delta_star: float
    Delta: float
    Delta_in: float
    n_min_cor2: float
    n_min_alg1: float
    n_min_theorem2: float
    valid_cor2: bool
    valid_alg1: bool
    valid_theorem2: bool

    @property
    def per_record_std_b(self) -> float:
        """Per-contributor std of r_i: sigma_b / sqrt(n) (docs/input_perturbation.md §"Per-record noise variance")."""
        return self.sigma_b / math.sqrt(self.n)

    @property
    def per_record_std_u(self) -> float:
        """Per-contributor std of u_i: sigma_u / sqrt(n)."""
        return self.sigma_u / math.sqrt(self.n)

    @property
    def kappa_lower(self) -> float:
        return kappa_lower(sigma_u=self.sigma_u, n=self.n, d=self.d, delta=self.delta, lam=self.lam)

    @property
    def kappa_upper(self) -> float:
        return kappa_upper(sigma_u=self.sigma_u, n=self.n, d=self.d, delta=self.delta, lam=self.lam)

    @property
    def valid(self) -> bool:
        """True when the chosen sigma_u mode is defined and Theorem 2's sample-size condition holds."""
        mode_ok = self.valid_alg1 if self.sigma_u_mode == "ALG1" else self.valid_cor2
        return bool(mode_ok and self.valid_theorem2)

    def as_dict(self) -> dict:
        out = {f: getattr(self, f) for f in self.__slots__}  # type: ignore[attr-defined]
        out.update(
            per_record_std_b=self.per_record_std_b,
            per_record_std_u=self.per_record_std_u,
            kappa_lower=self.kappa_lower,
            kappa_upper=self.kappa_upper,
            valid=self.valid,
        )
        return out


@computable
def _check_n(n: int, dl: float, mode: str) -> dict[str, float]:
    """:func:`min_n` at ``dl``; ``ValueError`` when ``n`` is too small for the chosen sigma_u formula."""
    mins = min_n(dl)
    if mode == "ALG1" and not n > mins["alg1"]:
        raise ValueError(f"n must be greater than 4 ln(4/delta) = {mins['alg1']:.4g} for sigma_u_mode='ALG1', got {n}.")
    if mode in ("COR2", "CORR") and not n > mins["cor2"]:
        raise ValueError(
            f"n must be greater than 4 ln(8/delta) = {mins['cor2']:.4g} for sigma_u_mode={mode!r}, got {n}."
        )
    return mins


def _regularisation(Delta: float | None, scaled_star: float, thr: float) -> float:
    """Delta as given (it must exceed 2 lam / eps_run, [FTS17] Theorem 1), else multiplier x Delta*, raised to just
    above the threshold if needed (docs/input_perturbation.md §"Regularisation Δ")."""
    if Delta is None:
        return max(scaled_star, thr * (1.0 + 1e-9))
    Delta_v = check_positive("Delta", Delta)
    if not Delta_v > thr:
        raise InvalidPrivacyParameter(
            f"Delta must be greater than 2*lam/eps_run = {thr:.6g} (Theorem 1 needs Delta_in > 0), got {Delta_v:g}."
        )
    return Delta_v


def _noise_scales(n: int, d: int, eps_run: float, dl: float, zeta: float, lam: float, mode: str, margin: float):
    """sigma_b and the three sigma_u formulas ([FTS17] Algorithm 1, Corollary 2; CORR ours), the chosen one
    times 1 + margin."""
    K = 8.0 * math.log(2.0 / (dl / 2.0)) + 4.0 * eps_run
    sigma_b2 = zeta**2 * K / eps_run**2
    kw = dict(n=n, d=d, eps_run=eps_run, delta=dl, lam=lam)
    s = {m: sigma_u_value(mode=m, **kw) for m in ("ALG1", "COR2", "CORR")}
    return dict(
        K=K,
        sigma_b2=sigma_b2,
        sigma_b=math.sqrt(sigma_b2),
        sigma_u=s[mode] * (1.0 + margin),
        sigma_u_alg1=s["ALG1"],
        sigma_u_cor2=s["COR2"],
        sigma_u_corr=s["CORR"],
    )


def input_perturbation_params(
    *,
    n: int,
    d: int,
    epsilon: float,
    delta: float,
    eta: float = 1.0,
    zeta: float,
    lam: float,
    alpha: float = 1.0,
    Delta: float | None = None,
    Delta_multiplier: float = 1.0,
    sigma_u_mode: str = "COR2",
    sigma_u_margin: float = 0.0,
) -> InputPerturbationParams:
    """Derive every Step-0 quantity of input perturbation ([FTS17] Algorithm 1, Corollary 2).

    Parameters
    ----------
    n : int
        Number of contributors, fixed in advance. Must exceed 4 ln(8/delta) (COR2, CORR) or
        4 ln(4/delta) (ALG1).
    d : int
        Dimension of w. Must be >= 1.
    epsilon, delta : float
        Target central privacy, epsilon in (0, inf), delta in (0, 1).
    eta : float
        Radius of the parameter ball W. Must be > 0.
    zeta, lam : float
        Lipschitz and smoothness constants of the loss on W. Must be > 0.
    alpha : float
        Local/central trade-off knob in (0, 1]; the mechanism runs with eps_run = alpha * epsilon.
    Delta : float, optional
        Total regularisation. Must be > 2 lam / eps_run. Default: ``Delta_multiplier * Delta_star``,
        raised to just above 2 lam / eps_run if needed (docs/input_perturbation.md §"Regularisation Δ").
    Delta_multiplier : float
        Multiplier of Delta_star when ``Delta`` is not given. Must be > 0.
    sigma_u_mode : {"COR2", "ALG1", "CORR"}
        Which sigma_u formula to use ([FTS17] Algorithm 1, Corollary 2; docs/input_perturbation.md
        §"Corrected σ_u (CORR)").
    sigma_u_margin : float
        sigma_u is multiplied by 1 + margin (docs/input_perturbation.md §"Lemma 7's one-sided bound").
        Must be >= 0.

    Raises
    ------
    InvalidPrivacyParameter
        For an out-of-range epsilon, delta, or alpha, or ``Delta <= 2 lam / eps_run``.
    ValueError
        When ``n`` is at or below the minimum of the chosen sigma_u mode, or other ranges fail.

    References
    ----------
    [FTS17] Algorithm 1, Algorithm 2, Corollary 2.

    >>> p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, eta=1.0, zeta=1.0, lam=1.0)
    >>> round(p.sigma_b, 2), round(p.sigma_u, 3), round(p.Delta, 1)
    (10.35, 1.653, 131.0)
    """
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1)
    eps = check_epsilon(epsilon, allow_inf=False)
    dl = check_delta(delta)
    eta = check_positive("eta", eta)
    zeta = check_positive("zeta", zeta)
    lam = check_positive("lam", lam)
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="right", error=InvalidPrivacyParameter)
    mode = check_choice("sigma_u_mode", sigma_u_mode, SIGMA_U_MODES)
    margin = check_positive("sigma_u_margin", sigma_u_margin, allow_zero=True)
    mult = check_positive("Delta_multiplier", Delta_multiplier)

    mins = _check_n(n, dl, mode)
    valid_cor2 = n > mins["cor2"]
    valid_alg1 = n > mins["alg1"]

    eps_run = alpha * eps
    gamma = dl / 2.0
    delta_prime = dl / 2.0
    a2, a4 = _a_values(n, dl)
    thr = 2.0 * lam / eps_run
    Delta_star = 4.0 * zeta * math.sqrt(d * (8.0 * math.log(4.0 / dl) + 4.0 * eps_run)) / (eps_run * eta)
    Delta_v = _regularisation(Delta, mult * Delta_star, thr)
    return InputPerturbationParams(
        n=n,
        d=d,
        epsilon=eps,
        delta=dl,
        eta=eta,
        zeta=zeta,
        lam=lam,
        alpha=alpha,
        sigma_u_mode=mode,
        sigma_u_margin=margin,
        Delta_multiplier=mult,
        eps_run=eps_run,
        gamma=gamma,
        delta_prime=delta_prime,
        a2=a2,
        a4=a4,
        **_noise_scales(n, d, eps_run, dl, zeta, lam, mode, margin),
        ridge_threshold=thr,
        Delta_star=Delta_star,
        Delta=Delta_v,
        Delta_in=Delta_v - thr,
        n_min_cor2=mins["cor2"],
        n_min_alg1=mins["alg1"],
        n_min_theorem2=mins["theorem2"],
        valid_cor2=bool(valid_cor2),
        valid_alg1=bool(valid_alg1),
        valid_theorem2=bool(n >= mins["theorem2"]),
    )


@dataclass(frozen=True, slots=True)
class LocalPrivacy:
    """The local (data) privacy level of one contributor's release (q~_i, p~_i).

    ``epsilon_nominal`` is [FTS17] Corollary 1 with c at its infimum (a limit value, formally valid
    only when both per-component epsilons are < 1: ``corollary1_valid``); ``epsilon_exact`` is the
    exact level of the same Gaussian release via Gaussian DP at the same delta_L (docs/input_perturbation.md
    §"Domain sensitivities and the exact local level").
    """

    epsilon_nominal: float
    epsilon_exact: float
    delta_local: float
    epsilon_q: float
    epsilon_p: float
    mu: float
    c: float
    corollary1_valid: bool
    sensitivities: str
    epsilon_large_n: float


def exact_local_epsilon(mu: float, delta_local: float) -> float:
    """Smallest epsilon with delta_mu(epsilon) <= delta_local for a mu-GDP release.

    delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) is the Gaussian privacy profile
    (Balle and Wang 2018, Thm 8, with sensitivity mu and unit noise), solved by bisection in log space.

    >>> round(exact_local_epsilon(4.739, 0.02), 1)
    20.1
    """
    mu = check_positive("mu", mu)
    return gaussian_epsilon_analytic(sigma=1.0, delta=delta_local, sensitivity=mu)


def local_privacy(
    params: InputPerturbationParams,
    *,
    sensitivities: str = "paper",
    q_bound: float | None = None,
    p_bound: float | None = None,
) -> LocalPrivacy:
    """Local privacy of Algorithm 1's release, nominal ([FTS17] Corollary 1) and exact (GDP).

    Parameters
    ----------
    params : InputPerturbationParams
    sensitivities : {"paper", "domain"}
        ``"paper"``: q-diameter 2 lambda and p-diameter 2 zeta as in Corollary 1; ``"domain"``:
        2 sup||q|| and 2 sup||p|| (docs/input_perturbation.md §"Domain sensitivities and the exact local level"),
        from ``q_bound`` and ``p_bound``.
    q_bound, p_bound : float, optional
        sup||q(z)|| and sup||p(z)|| over the data domain (needed for ``"domain"``).

    References
    ----------
    [FTS17] Corollary 1 and Theorem 3; docs/input_perturbation.md §"Domain sensitivities and the exact local level".
    """
    check_choice("sensitivities", sensitivities, ("paper", "domain"))
    n = params.n
    c = math.sqrt(2.0 * math.log(1.25 / params.delta))
    if sensitivities == "paper":
        bq, bp = 2.0 * params.lam, 2.0 * params.zeta
    else:
        if q_bound is None or p_bound is None:
            raise ValueError("q_bound and p_bound must be given for sensitivities='domain', got None.")
        bq = 2.0 * check_positive("q_bound", q_bound)
        bp = 2.0 * check_positive("p_bound", p_bound)
    eps_q = c * bq * math.sqrt(n) / params.sigma_u
    eps_p = c * bp * math.sqrt(n) / params.sigma_b
    mu = math.sqrt(n) * math.hypot(bq / params.sigma_u, bp / params.sigma_b)
    delta_local = 2.0 * params.delta
    eps_exact = exact_local_epsilon(mu, delta_local) if delta_local < 1.0 else 0.0
    er = params.eps_run
    large_n = (
        2.0
        * c
        * math.sqrt(n)
        * math.sqrt(er)
        * (math.sqrt(params.lam / 2.0) + math.sqrt(er / (8.0 * math.log(2.0 / params.delta_prime) + 4.0 * er)))
    )
    return LocalPrivacy(
        epsilon_nominal=eps_q + eps_p,
        epsilon_exact=eps_exact,
        delta_local=delta_local,
        epsilon_q=eps_q,
        epsilon_p=eps_p,
        mu=mu,
        c=c,
        corollary1_valid=bool(eps_q < 1.0 and eps_p < 1.0),
        sensitivities=sensitivities,
        epsilon_large_n=large_n,
    )


@dataclass(frozen=True, slots=True)
class ConservativeAccounting:
    """The conservative alternative accounting of docs/input_perturbation.md §"Conservative accounting" (ours;
    conditions on U).

    On the event max_i ||u_i|| <= t (probability >= 1 - gamma_t), the server runs Gaussian objective
    perturbation on the records (q~_i, p_i) with smoothness lam~ = (sqrt(lam) + t)^2 and Lipschitz
    constant zeta~ = lam~ eta + sup||p||. It is (eps, delta' + gamma_t)-DP if Delta_in >= 2 lam~/eps and
    sigma_b^2 >= zeta~^2 (8 ln(2/delta') + 4 eps)/eps^2. ``epsilon_from_sigma_b`` is the smallest eps the
    sigma_b in use supports; ``epsilon`` is that value when the ridge condition also holds (else inf).
    """

    t: float
    chi2_quantile: float
    lam_tilde: float
    zeta_tilde: float
    ridge_needed: float
    ridge_ok: bool
    sigma_b_needed: float
    sigma_b_ok: bool
    epsilon_from_sigma_b: float
    epsilon: float
    delta: float


def conservative_accounting(params: InputPerturbationParams, *, gamma_t: float | None = None) -> ConservativeAccounting:
    """Conservative central guarantee that does not rely on Lemma 7.

    Ours: docs/input_perturbation.md §"Conservative accounting".

    Parameters
    ----------
    params : InputPerturbationParams
    gamma_t : float, optional
        Failure probability of the event max_i ||u_i|| <= t; default delta / 2, so that the total
        delta is delta' + gamma_t = delta.

    References
    ----------
    docs/input_perturbation.md §"Conservative accounting"; D. Kifer, A. Smith, A. Thakurta (2012), Theorem 2
    (Gaussian objective perturbation).

    >>> p = input_perturbation_params(n=10_000, d=10, epsilon=1.0, delta=1e-5, zeta=1.0, lam=1.0)
    >>> c = conservative_accounting(p)
    >>> round(c.t, 4), round(c.lam_tilde, 3), round(c.ridge_needed, 3), c.ridge_ok
    (0.1328, 1.283, 2.566, True)
    """
    from scipy.special import chdtri  # chi2.isf without importing scipy.stats (about 0.4 s on a page's first visit)

    p = params
    gt = p.delta / 2.0 if gamma_t is None else check_in_interval("gamma_t", gamma_t, 0.0, 1.0, closed="neither")
    q = float(chdtri(p.d, gt / p.n))  # the chi-square quantile of upper tail gt / n (scipy.stats.chi2.isf)
    t = p.sigma_u * math.sqrt(q) / math.sqrt(p.n)
    lam_t = (math.sqrt(p.lam) + t) ** 2
    p_sup = max(p.zeta - p.lam * p.eta, 0.0)
    zeta_t = lam_t * p.eta + p_sup
    e = p.eps_run
    L = 8.0 * math.log(2.0 / p.delta_prime)
    ridge_needed = 2.0 * lam_t / e
    sigma_needed = zeta_t * math.sqrt(L + 4.0 * e) / e
    # sigma_b^2 e^2 - 4 zeta~^2 e - L zeta~^2 = 0  ->  smallest eps supported by the sigma_b in use
    s2, z2 = p.sigma_b2, zeta_t * zeta_t
    e_b = (4.0 * z2 + math.sqrt(16.0 * z2 * z2 + 4.0 * s2 * L * z2)) / (2.0 * s2)
    ridge_ok_at_eb = p.Delta_in >= 2.0 * lam_t / e_b
    return ConservativeAccounting(
        t=t,
        chi2_quantile=q,
        lam_tilde=lam_t,
        zeta_tilde=zeta_t,
        ridge_needed=ridge_needed,
        ridge_ok=bool(p.Delta_in >= ridge_needed),
        sigma_b_needed=sigma_needed,
        sigma_b_ok=bool(p.sigma_b >= sigma_needed),
        epsilon_from_sigma_b=e_b,
        epsilon=e_b if ridge_ok_at_eb else math.inf,
        delta=p.delta_prime + gt,
    )


__all__ += ["ConservativeAccounting", "conservative_accounting"]
