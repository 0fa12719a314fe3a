"""Excess-risk bounds of the large-margin Gaussian classifier in three labelled tiers: ``printed`` (verbatim),
``tier_u`` (consistent units), ``tier_c`` (corrected, for the mechanism actually run).

Pathak & Raj, Lemma 4, Theorems 5.2 and 5.3; Sridharan, Shalev-Shwartz & Srebro (NIPS 2008).
docs/large_margin_gaussian.md §"Utility bounds in three tiers", §"bounds.py: formulas"; check-value rows 14-49."""

from __future__ import annotations

import math

from scipy import special

from ..._validation import check_choice, check_int, check_positive, check_probability, computable

__all__ = ["noise_radius", "printed_radius", "printed_bounds", "tier_u_bounds", "tier_c_bounds", "bounds_for_mode"]
__all__ += ["TIER_LABELS"]

TIER_LABELS = {
    "printed": "as printed in the paper (mixed units; not a valid bound)",
    "tier_u": "paper's bounds in consistent units (arithmetic fixed)",
    "tier_c": "corrected (for the mechanism actually run)",
}


def _common(d, C, n, delta):
    d = check_int("d", d, lo=1)
    C = check_int("n_classes", C, lo=2)
    n = check_int("n", n, lo=1)
    delta = check_probability("delta", delta, closed="neither")
    return d, C, n, delta


def _paper_terms(d, C, n, epsilon, lam, delta) -> tuple:
    """Validated ``(d, C, n, epsilon, lam, delta)``, then ``L = ln(d/delta)``, ``(d+1)^4`` and the sample term
    ``16 (32 + ln(1/delta))/(lam n)`` shared by the printed and the consistent-unit bounds."""
    d, C, n, delta = _common(d, C, n, delta)
    epsilon, lam = check_positive("epsilon", epsilon), check_positive("lam", lam)
    t3 = 16.0 * (32.0 + math.log(1.0 / delta)) / (lam * n)
    return d, C, n, epsilon, lam, delta, math.log(d / delta), (d + 1) ** 4, t3


def noise_radius(dim: int, beta: float, delta: float, *, kind: str = "exact") -> float:
    """Radius ``r`` with ``P(||N|| >= r) <= delta`` for radial noise of dimension ``m`` and rate ``beta``.

    ``union`` or ``exact`` (Gamma quantile); corrects Lemma 4. docs/large_margin_gaussian.md §"bounds.py: formulas"."""
    m = check_int("dim", dim, lo=1)
    beta = check_positive("beta", beta)
    delta = check_probability("delta", delta, closed="neither")
    kind = check_choice("kind", kind, ("union", "exact"))
    if kind == "union":
        return (m / beta) * math.log(m / delta)
    return float(special.gammaincinv(m, 1.0 - delta)) / beta


def printed_radius(d: int, epsilon: float, delta: float) -> float:
    """The paper's Lemma 4 radius ``(2 (d+1)^2/eps) ln(d/delta)`` (as printed; fails for ``d = 1``)."""
    d = check_int("d", d, lo=1)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_probability("delta", delta, closed="neither")
    return 2.0 * (d + 1) ** 2 / epsilon * math.log(d / delta)


@computable
def printed_bounds(*, d: int, n_classes: int, n: int, epsilon: float, lam: float, delta: float) -> dict:
    """Theorems 5.2 and 5.3 evaluated literally (``lam`` as entered; check-value rows 14-21).

    Keys ``thm52``, ``thm53_term1..3``, ``thm53_total``, ``log_d_over_delta``, ``radius_printed``, ``probability``.
    Pathak & Raj, Lemma 4, Theorems 5.2 and 5.3."""
    d, C, n, epsilon, lam, delta, L, p4, t3 = _paper_terms(d, n_classes, n, epsilon, lam, delta)
    thm52 = 8.0 * p4 * C * L**2 / (epsilon**2 * lam)
    t1 = 4.0 * math.sqrt(d) * (d + 1) ** 2 * C * L / (epsilon * lam)
    return {
        "tier": "printed",
        "label": TIER_LABELS["printed"],
        "log_d_over_delta": L,
        "radius_printed": printed_radius(d, epsilon, delta),
        "thm52": thm52,
        "thm53_term1": t1,
        "thm53_term2": thm52,
        "thm53_term3": t3,
        "thm53_total": t1 + thm52 + t3,
        "probability": 1.0 - delta,
    }


@computable
def tier_u_bounds(*, d: int, n_classes: int, n: int, epsilon: float, lam: float, delta: float) -> dict:
    """Paper-mode bounds in per-example units with the arithmetic fixed (check-value rows 22-25).

    docs/large_margin_gaussian.md §"bounds.py: formulas"."""
    d, C, n, epsilon, lam, delta, L, p4, t3 = _paper_terms(d, n_classes, n, epsilon, lam, delta)
    u52 = 8.0 * p4 * C * L**2 / (n**2 * epsilon**2 * lam)
    t1 = 4.0 * math.sqrt(d) * (d + 1) ** 2 * C * L / (n * epsilon)
    t2 = 16.0 * p4 * C * L**2 / (n**2 * epsilon**2 * lam)
    return {
        "tier": "tier_u",
        "label": TIER_LABELS["tier_u"],
        "u52": u52,
        "u52_probability": 1.0 - delta,
        "u53_term1": t1,
        "u53_term2": t2,
        "u53_term3": t3,
        "u53_total": t1 + t2 + t3,
        "u53_probability": 1.0 - 2.0 * delta,
    }


def tier_c_bounds(
    *,
    d: int,
    n_classes: int,
    n: int,
    beta: float,
    lam: float,
    mu_eff: float,
    delta: float,
    shared_noise: bool,
    phi_star_norm: float | None = None,
    R_z: float = 1.0,
) -> dict:
    """Corrected bounds for the mechanism actually run (check-value rows 26-29 and 40-49): C5.2, expected pathwise,
    C5.3 = A + B + E + S (``B`` and the total need ``phi_star_norm``). docs/large_margin_gaussian.md
    §"bounds.py: formulas"."""
    d, C, n, delta = _common(d, n_classes, n, delta)
    beta = check_positive("beta", beta)
    lam = check_positive("lam", lam, allow_zero=True)
    mu_eff = check_positive("mu_eff", mu_eff)
    p = d + 1
    m = p * p if shared_noise else C * p * p
    r_union = noise_radius(m, beta, delta, kind="union")
    r_exact = noise_radius(m, beta, delta, kind="exact")
    scale = math.sqrt(C) if shared_noise else 1.0
    rho_u, rho_e = scale * r_union, scale * r_exact
    e_rho2 = (C if shared_noise else 1) * m * (m + 1) / beta**2
    G = math.sqrt(C * (C - 1)) * R_z**2
    c52_union = 2.0 * rho_u**2 / (n**2 * mu_eff)
    c52_exact = 2.0 * rho_e**2 / (n**2 * mu_eff)
    e_path = 2.0 * e_rho2 / (n**2 * mu_eff)
    A = 2.0 * lam * math.sqrt(d * C) * rho_u / (n * mu_eff)
    E = 4.0 * rho_u**2 / (n**2 * mu_eff)
    S = 16.0 * G**2 * (32.0 + math.log(1.0 / delta)) / (mu_eff * n)
    out = {
        "tier": "tier_c",
        "label": TIER_LABELS["tier_c"],
        "noise_dim": m,
        "r_union": r_union,
        "r_exact": r_exact,
        "rho_union": rho_u,
        "rho_exact": rho_e,
        "c52_union": c52_union,
        "c52_exact": c52_exact,
        "c52_probability": 1.0 - delta,
        "expected_pathwise": e_path,
        "c53_A": A,
        "c53_E": E,
        "c53_S": S,
        "c53_probability": 1.0 - 2.0 * delta,
        "c53_S_note": "heuristic multiclass scaling of the Sridharan constant (G^2), not a proven constant",
    }
    if phi_star_norm is not None:
        B = 2.0 * check_positive("phi_star_norm", phi_star_norm, allow_zero=True) * rho_u / n
        out["c53_B"] = B
        out["c53_total"] = A + B + E + S
    return out


def bounds_for_mode(accounting, *, delta: float, phi_star_norm: float | None = None) -> dict:
    """The bound tiers that apply to a mode's :class:`PrivacyAccounting` (P: printed only).

    docs/large_margin_gaussian.md §"bounds.py: formulas"."""
    a = accounting
    out: dict = {"mode": a.mode, "delta": delta}
    if a.mode in ("printed", "repaired"):
        out["printed"] = printed_bounds(
            d=a.d, n_classes=a.n_classes, n=a.n, epsilon=a.eps_noise, lam=a.lam, delta=delta
        )
    if a.mode == "repaired":
        out["tier_u"] = tier_u_bounds(
            d=a.d, n_classes=a.n_classes, n=a.n, epsilon=a.eps_noise, lam=a.mu_eff, delta=delta
        )
    if a.mode in ("repaired", "corrected"):
        out["tier_c"] = tier_c_bounds(
            d=a.d,
            n_classes=a.n_classes,
            n=a.n,
            beta=a.beta,
            lam=a.lam,
            mu_eff=a.mu_eff,
            delta=delta,
            shared_noise=a.shared_noise,
            phi_star_norm=phi_star_norm,
            R_z=a.R_z,
        )
    return out
