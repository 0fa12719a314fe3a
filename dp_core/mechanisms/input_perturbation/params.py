"""Step 0 of input perturbation: the public parameters every contributor and the server derive.

[FTS17] Fukuchi, Tran & Sakuma, arXiv:1710.07425 (2017), Algorithms 1-2, Lemma 1, Corollaries 1-3, Theorem 1;
our corrections: docs/input_perturbation.md §"Our corrections and choices". Natural logarithms throughout.
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
    "params_for_model",
]

#: ``COR2``: Corollary 2 (default); ``ALG1``: Algorithm 1 as printed; ``CORR``: the diagnostic value
#: of docs/input_perturbation.md §"Corrected σ_u (CORR)" (ours, no privacy claim).
SIGMA_U_MODES = ("COR2", "ALG1", "CORR")


def min_n(delta: float) -> dict[str, float]:
    """Minimum sample sizes of docs/input_perturbation.md §"Minimum sample sizes" (strict for the two sigma_u modes,
    >= for Theorem 2).
    """
    dl = check_delta(delta)
    return {"cor2": 4.0 * math.log(8.0 / dl), "alg1": 4.0 * math.log(4.0 / dl), "theorem2": 16.0 * math.log(8.0 / dl)}


@dataclass(frozen=True, slots=True)
class Feasibility:
    """Whether ``n`` contributors suffice at ``delta`` for a sigma_u mode (``ok``, the mode's ``n_min``), the
    smallest delta they allow (``delta_min``) and Theorem 2's size (docs/input_perturbation.md
    §"Minimum sample sizes")."""

    ok: bool
    n_min: float
    delta_min: float
    n_theorem2: float


def feasibility(n: int, delta: float, mode: str = "COR2") -> Feasibility:
    """Can input perturbation run with ``n`` contributors at ``delta``? ([FTS17] Algorithm 1, Corollary 2;
    docs/input_perturbation.md §"Minimum sample sizes")
    """
    n = check_int("n", n, lo=1)
    dl = check_delta(delta)
    mode = check_choice("mode", mode, SIGMA_U_MODES)
    c, key = (4.0, "alg1") if mode == "ALG1" else (8.0, "cor2")
    mins = min_n(dl)
    return Feasibility(ok=n > mins[key], n_min=mins[key], delta_min=c * math.exp(-n / 4.0), n_theorem2=mins["theorem2"])


def _a_values(n: float, delta: float) -> tuple[float, float]:
    gamma = delta / 2.0
    return math.sqrt(math.log(2.0 / gamma) / n), math.sqrt(math.log(4.0 / gamma) / n)


def sigma_u_value(*, n: float, d: int, eps_run: float, delta: float, lam: float, mode: str = "COR2") -> float:
    """The aggregate scale sigma_u of the quadratic-term noise: [FTS17] Algorithm 1 (ALG1), Corollary 2 (COR2),
    docs/input_perturbation.md §"Corrected σ_u (CORR)" (CORR). ``nan`` at or below the mode's minimum ``n``.
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
    """Every public quantity of Step 0 ([FTS17] Algorithms 1-2, Corollary 2), in the paper's symbols
    (docs/input_perturbation.md §"Step-0 parameters")."""

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
        for k in ("per_record_std_b", "per_record_std_u", "kappa_lower", "kappa_upper", "valid"):
            out[k] = getattr(self, k)
        return out


@computable
def _check_n(n: int, dl: float, mode: str) -> dict[str, float]:
    """:func:`min_n` at ``dl``; ``ValueError`` when ``n`` is too small for the chosen sigma_u formula."""
    mins = min_n(dl)
    c, key = (4, "alg1") if mode == "ALG1" else (8, "cor2")
    if not n > mins[key]:
        raise ValueError(
            f"n must be greater than 4 ln({c}/delta) = {mins[key]:.4g} for sigma_u_mode={mode!r}, got {n}."
        )
    return mins


def delta_star(*, zeta: float, d: int, delta: float, eps_run: float, eta: float) -> float:
    """Delta* = 4 zeta sqrt(d (8 ln(4/delta) + 4 eps)) / (eps eta), the Delta minimising the first two terms of
    [FTS17] Theorem 2 at ||w^|| = eta (docs/input_perturbation.md §"Regularisation Δ")."""
    return 4.0 * zeta * math.sqrt(d * (8.0 * math.log(4.0 / delta) + 4.0 * eps_run)) / (eps_run * eta)


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
    if eps_run * eps_run == 0.0:  # the variance zeta^2 K / eps^2 would not be a finite number
        raise InvalidPrivacyParameter(f"epsilon is too small for a finite noise scale (eps_run = {eps_run:g}).")
    if math.isinf(eps_run * eps_run):  # eps^2 overflows (``**`` would raise OverflowError)
        raise InvalidPrivacyParameter(f"epsilon is too large: its square overflows a float (eps_run = {eps_run:g}).")
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
    """Derive every Step-0 quantity ([FTS17] Algorithms 1-2, Corollary 2; the parameters, their ranges and
    errors: docs/input_perturbation.md §"Step-0 parameters").
    """
    n = check_int("n", n, lo=1)
    d = check_int("d", d, lo=1)
    eps = check_epsilon(epsilon, allow_inf=False)
    dl = check_delta(delta)
    eta, zeta, lam = (check_positive(k, v) for k, v in (("eta", eta), ("zeta", zeta), ("lam", lam)))
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="right", error=InvalidPrivacyParameter)
    mode = check_choice("sigma_u_mode", sigma_u_mode, SIGMA_U_MODES)
    margin = check_positive("sigma_u_margin", sigma_u_margin, allow_zero=True)
    mult = check_positive("Delta_multiplier", Delta_multiplier)

    mins = _check_n(n, dl, mode)
    eps_run = alpha * eps
    a2, a4 = _a_values(n, dl)
    thr = 2.0 * lam / eps_run
    Delta_star = delta_star(zeta=zeta, d=d, delta=dl, eps_run=eps_run, eta=eta)
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
        gamma=dl / 2.0,
        delta_prime=dl / 2.0,
        a2=a2,
        a4=a4,
        **_noise_scales(n, d, eps_run, dl, zeta, lam, mode, margin),
        ridge_threshold=thr,
        Delta_star=Delta_star,
        Delta=Delta_v,
        Delta_in=Delta_v - thr,
        **{f"n_min_{k}": v for k, v in mins.items()},
        valid_cor2=bool(n > mins["cor2"]),
        valid_alg1=bool(n > mins["alg1"]),
        valid_theorem2=bool(n >= mins["theorem2"]),
    )


def params_for_model(model: str, *, eta: float = 1.0, x_bound: float = 1.0, y_bound: float = 1.0, **kw):
    """:func:`input_perturbation_params` with the loss constants zeta, lam of ``model`` on the ball of radius
    ``eta`` for rows declared within ``x_bound`` and labels within ``y_bound`` (:func:`.model.model_constants`)."""
    from .model import model_constants

    c = model_constants(model, eta=eta, x_bound=x_bound, y_bound=y_bound)
    return input_perturbation_params(eta=eta, zeta=c.zeta, lam=c.lam, **kw)


@dataclass(frozen=True, slots=True)
class LocalPrivacy:
    """Local privacy of one contributor's release: ``epsilon_nominal`` ([FTS17] Corollary 1, c at its infimum,
    valid only if ``corollary1_valid``) and ``epsilon_exact`` (Gaussian DP at the same delta_L;
    docs/input_perturbation.md §"Domain sensitivities and the exact local level")."""

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
    """Smallest epsilon with delta_mu(epsilon) <= delta_local for a mu-GDP release (the Gaussian privacy
    profile, Balle and Wang 2018, Thm 8; docs/input_perturbation.md §"Domain sensitivities and the exact local level").
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
    """Local privacy of Algorithm 1's release, nominal ([FTS17] Corollary 1, Theorem 3) and exact (GDP).

    ``sensitivities="paper"``: diameters 2 lam, 2 zeta; ``"domain"``: 2 ``q_bound``, 2 ``p_bound`` (sup||q||,
    sup||p||; docs/input_perturbation.md §"Domain sensitivities and the exact local level").
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
    large_n = 2.0 * c * math.sqrt(n) * math.sqrt(er)
    large_n *= math.sqrt(params.lam / 2.0) + math.sqrt(er / (8.0 * math.log(2.0 / params.delta_prime) + 4.0 * er))
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
    """The conservative alternative accounting (ours, conditions on U): docs/input_perturbation.md
    §"Conservative accounting"; ``epsilon`` is inf unless the ridge condition holds."""

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
    """Conservative central guarantee that does not rely on Lemma 7 (ours: docs/input_perturbation.md
    §"Conservative accounting"; Kifer, Smith & Thakurta 2012, Theorem 2). ``gamma_t``: failure probability of
    max_i ||u_i|| <= t, default delta / 2 (total delta' + gamma_t = delta).
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
