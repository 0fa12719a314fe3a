"""The guarantee each mechanism of the app gives at a setting, as a privacy profile (``docs/risk.md``
§"Each mechanism's guarantee"): the claim, its status from the stored audit table, and the profile that
actually holds when it differs. [BW18] Balle & Wang, ICML 2018; [KOV15] Kairouz, Oh & Viswanath, ICML 2015;
[DR14] Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import status as _status
from .._validation import check_choice, check_int
from .curves import (
    Profile,
    _eps_grid,
    approx_profile,
    compose,
    epsilon_at,
    gaussian_profile,
    laplace_profile,
    pure_profile,
    risk_summary,
    tabulated_profile,
)

__all__ = ["GUARANTEES", "Guarantee", "guarantee", "mechanism_risk", "risk_sentences"]


@dataclass(frozen=True)
class Guarantee:
    """A mechanism's privacy claim at one setting.

    ``profile`` is the claim; ``epsilon``/``delta`` its nominal point; ``actual`` the profile known
    to hold when it differs from the claim (a refuted claim's true loss, or input perturbation's
    conservative accounting), else ``None``; ``audit_key`` the stored audit row
    (``"mechanism:mode"``) that tested this mode, if any.
    """

    mechanism: str
    label: str
    profile: Profile
    epsilon: float
    delta: float
    status: str
    setting: dict[str, Any] = field(default_factory=dict)
    actual: Profile | None = None
    audit_key: str | None = None


def _audited(mechanism, label, prof, eps, delta, setting, key: str, default: str, actual=None) -> Guarantee:
    """A guarantee tested by the stored audit row ``key``: its status is the row's (``default`` without one)."""
    from ..audit.table import audit_row

    row = audit_row(*key.split(":", 1))
    return Guarantee(mechanism, label, prof, eps, delta, row["status"] if row else default, setting, actual, key)


def _composed(label: str, compose_k: int) -> str:
    return label + (f", composed {compose_k} times" if compose_k > 1 else "")


# -- textbook mechanisms -------------------------------------------------------------------------
def gaussian(
    *, eps: float, delta: float = 1e-5, sensitivity: float = 1.0, method: str = "analytic", compose_k: int = 1
):
    """The Gaussian mechanism: σ from :func:`dp_core.calibration.gaussian_sigma`, μ = Δ/σ ([BW18] Thm 8)."""
    from ..calibration import gaussian_sigma

    sigma = gaussian_sigma(epsilon=eps, delta=delta, sensitivity=sensitivity, method=method)
    prof = compose(gaussian_profile(sensitivity / sigma), compose_k)
    label = _composed(f"Gaussian mechanism, σ = {sigma:.4g} for Δ = {sensitivity:g} ({method} calibration)", compose_k)
    setting = {"eps": eps, "delta": delta, "sensitivity": sensitivity, "method": method, "sigma": sigma}
    eps_total = eps if compose_k == 1 else epsilon_at(prof, delta)
    return _audited("gaussian", label, prof, eps_total, delta, setting, f"gaussian:{method}", _status.PROVED)


def laplace(*, eps: float, sensitivity: float = 1.0, compose_k: int = 1):
    """The Laplace mechanism of scale Δ/ε ([DR14] Thm 3.6); composed by ``dp_accounting``'s PLD."""
    prof = compose(laplace_profile(eps), compose_k, sensitivity=sensitivity)
    label = _composed(f"Laplace mechanism, scale b = {sensitivity / eps:.4g} for Δ = {sensitivity:g}", compose_k)
    setting = {"eps": eps, "sensitivity": sensitivity, "scale": sensitivity / eps}
    eps_total = eps * compose_k  # pure ε-DP composes exactly ([DR14] Thm 3.14)
    return _audited("laplace", label, prof, eps_total, 0.0, setting, "laplace:standard", _status.PROVED)


def pure(*, eps: float):
    """Any pure ε-DP mechanism, the exponential mechanism included: the worst case of ε-DP."""
    return Guarantee("pure", f"any ε-DP mechanism, ε = {eps:g}", pure_profile(eps), eps, 0.0, _status.PROVED)


def approx(*, eps: float, delta: float):
    """Any (ε, δ)-DP mechanism: the worst case of the claim ([KOV15] Thm 2.1)."""
    label = f"any (ε, δ)-DP mechanism, ε = {eps:g}, δ = {delta:g}"
    return Guarantee("approx", label, approx_profile(eps, delta), eps, delta, _status.CLAIMED)


# -- the paper mechanisms ------------------------------------------------------------------------
def label_dp_bags(*, n: int, k: int, m: int, rho: float, noise_std: float = 1.0, b1: float = 1.0, delta=1e-5):
    """noisy-wtd-LLP from its exact accounting (:func:`...label_dp_bags.bounds.llp_exact_delta_curve`).

    The profile is tabulated on a grid of ε; ``epsilon`` is the smallest ε with δ(ε) ≤ ``delta``
    (``inf`` when the δ floor of bags without a noisy label is above it).
    """
    from ..mechanisms.label_dp_bags.bounds import llp_exact_delta_curve, llp_exact_min_eps

    n, k, m = check_int("n", n, lo=2), check_int("k", k, lo=2), check_int("m", m, lo=1)
    eps = _eps_grid(80.0, 300)
    exact = llp_exact_min_eps(float(delta), n, k, m, rho, b1, noise_std=noise_std)  # the pages' ε at this δ
    if exact is not None and 0.0 < exact < eps[-1]:
        eps = np.unique(np.append(eps, exact))
    curve = llp_exact_delta_curve(eps, n, k, m, rho, b1, noise_std=noise_std)
    prof = tabulated_profile(eps, [min(1.0, c.delta) for c in curve])
    eps_nom = epsilon_at(prof, delta)
    label = f"noisy-wtd-LLP, n = {n}, k = {k}, m = {m}, ρ = {rho:g} (exact accounting)"
    setting = {"n": n, "k": k, "m": m, "rho": rho, "noise_std": noise_std, "b1": b1, "delta_floor": curve[0].floor}
    key = "label-dp-bags:noisy-wtd-llp"
    return _audited("label-dp-bags", label, prof, eps_nom, delta, setting, key, _status.PROVED)


def input_perturbation(
    *, eps: float, delta: float, n: int, d: int, alpha=1.0, eta=1.0, mode="COR2", dmult=1.0, model="least_squares"
):
    """The conservative central accounting (:func:`...input_perturbation.params.conservative_accounting`).

    One (ε_c, δ_c) point, so the curve is the worst case of (ε_c, δ_c)-DP. The paper's claim is
    (αε, δ); the conservative ε_c is what the project can prove without the paper's Lemma 7.
    """
    from ..mechanisms.input_perturbation.model import model_constants
    from ..mechanisms.input_perturbation.params import conservative_accounting, input_perturbation_params

    c = model_constants(model, eta=eta)
    kw = dict(n=n, d=d, epsilon=eps, delta=delta, eta=eta, alpha=alpha, Delta_multiplier=dmult, sigma_u_mode=mode)
    p = input_perturbation_params(zeta=c.zeta, lam=c.lam, **kw)
    ca = conservative_accounting(p)
    claim = approx_profile(alpha * eps, delta)
    if not math.isfinite(ca.epsilon):
        actual, label = None, "input perturbation: the conservative accounting proves nothing here (ridge too small)"
    else:
        actual = approx_profile(ca.epsilon, min(ca.delta, 1.0))
        label = (
            f"input perturbation ({mode}): claims (αε, δ) = ({alpha * eps:g}, {delta:g}); "
            f"the conservative accounting proves ({ca.epsilon:.4g}, {ca.delta:.3g})"
        )
    setting = dict(eps=eps, delta=delta, n=n, d=d, alpha=alpha, eta=eta, mode=mode, dmult=dmult, model=model)
    setting.update(eps_conservative=ca.epsilon, delta_conservative=ca.delta)
    key = f"input-perturbation:{mode}"
    return _audited("input-perturbation", label, claim, alpha * eps, delta, setting, key, _status.CLAIMED, actual)


def large_margin_gaussian(
    *,
    eps: float,
    n: int,
    k: int = 2,
    n_classes: int = 3,
    lam=0.01,
    h=0.5,
    mu=None,
    mode="corrected",
    sem="target",
    jac="conservative",
    psd="on",
):
    """Objective perturbation (:func:`...large_margin_gaussian.privacy_params`): a pure ε claim.

    ``k`` is the projected input dimension. Printed and repaired modes are refuted (the stored audit).
    """
    from ..mechanisms.large_margin_gaussian.privacy import privacy_params

    setting = dict(eps=eps, n=n, k=k, n_classes=n_classes, lam=lam, h=h, mode=mode, sem=sem, jac=jac, psd=psd)
    kw = dict(n=n, n_classes=n_classes, lam=lam, h=h, mu=mu, mode=mode, semantics=sem, jacobian=jac)
    acc = privacy_params(epsilon=eps, d=k, psd=psd == "on", **kw)
    label = f"large-margin Gaussian ({mode}): claims {acc.eps_claimed:.4g}-DP"
    setting["eps_claimed"] = acc.eps_claimed
    key = f"large-margin-gaussian:{mode if psd == 'on' or mode != 'repaired' else 'repaired-psd-off'}"
    default = _status.PROVED if acc.private else _status.REFUTED
    prof = pure_profile(acc.eps_claimed)
    return _audited("large-margin-gaussian", label, prof, acc.eps_claimed, 0.0, setting, key, default)


def l1_exponential(*, eps: float, theta: float = 1.5, conv: str = "tight"):
    """The ℓ1 exponential mechanism (:func:`...l1_exponential.truncation.convention_guarantee`): pure ε.

    Under ``paper_box`` the claim is ε but the replace-one loss is 2ε: ``actual`` is pure 2ε-DP.
    """
    from ..mechanisms.l1_exponential.truncation import convention_guarantee

    g = convention_guarantee(eps, theta, conv)
    actual = pure_profile(g.replace_one_epsilon) if g.replace_one_epsilon > eps * (1 + 1e-12) else None
    setting = {"eps": eps, "theta": theta, "conv": conv, "replace_one_epsilon": g.replace_one_epsilon}
    default = _status.REFUTED if actual is not None else _status.PROVED
    return _audited(
        "l1-exponential", g.label, pure_profile(eps), eps, 0.0, setting, f"l1-exponential:{conv}", default, actual
    )


#: Mechanism name → the function giving its guarantee.
GUARANTEES = {
    "gaussian": gaussian,
    "laplace": laplace,
    "pure": pure,
    "approx": approx,
    "label-dp-bags": label_dp_bags,
    "input-perturbation": input_perturbation,
    "large-margin-gaussian": large_margin_gaussian,
    "l1-exponential": l1_exponential,
}


def guarantee(mechanism: str, **setting) -> Guarantee:
    """The guarantee of ``mechanism`` at ``setting`` (keyword arguments of its function in :data:`GUARANTEES`, or of
    ``guarantee`` in a plug-in's ``risk`` hook)."""
    from .. import registry

    plugin = next((p for p in registry.plugins() if p.name == mechanism), None)
    if mechanism not in GUARANTEES and plugin is not None and plugin.has("risk"):
        return plugin.load("risk").guarantee(**setting)
    check_choice("mechanism", mechanism, tuple(GUARANTEES))
    return GUARANTEES[mechanism](**setting)


def mechanism_risk(mechanism: str, *, with_audit: bool = True, **setting) -> dict[str, Any]:
    """Everything the "What this ε means" panel shows for one mechanism at one setting.

    Returns the fields of :func:`~dp_core.risk.curves.risk_summary` for the claimed profile, plus
    ``mechanism``, ``label``, ``status``, ``refuted``, ``epsilon``, ``delta``, ``setting``, ``actual``
    (the risk summary of :attr:`Guarantee.actual`, or None), ``audit`` (the stored audit row's
    measured point, :func:`dp_core.risk.audit_points.audit_points`, with ``matches_claim``: whether
    the row tested this same (ε, δ); or None) and ``sentences`` (:func:`risk_sentences`).
    """
    g = guarantee(mechanism, **setting)
    out = {k: getattr(g, k) for k in ("mechanism", "label", "status")}
    out.update(refuted=g.status == _status.REFUTED, epsilon=g.epsilon, delta=g.delta, setting=g.setting)
    out.update(risk_summary(g.profile, epsilon=g.epsilon))
    out["actual"] = None if g.actual is None else risk_summary(g.actual, epsilon=None)
    out["audit"] = None
    if with_audit and g.audit_key:
        from .audit_points import audit_points_for

        audit = audit_points_for(g.audit_key)
        if audit is not None:  # the row tested this very claim, or another setting of the mode
            same = math.isclose(audit["eps_claimed"], g.epsilon, rel_tol=1e-9) and math.isclose(
                audit["delta"], g.delta, rel_tol=1e-9, abs_tol=1e-15
            )
            audit["matches_claim"] = bool(same)
        out["audit"] = audit
    out["sentences"] = risk_sentences(out)
    return out


def risk_sentences(result: dict[str, Any]) -> list[str]:
    """Plain sentences for a :func:`mechanism_risk` result (the panel's text)."""
    tpr = result["tpr_at_fpr"]
    lead = "If the claim held, someone" if result["refuted"] else "Someone"
    out = [
        f"{lead} trying to tell whether you are in the data, who wrongly accuses at most 1 person in 100, "
        f"catches at most {100 * tpr['0.01']:.1f} in 100 of those who are (at most {100 * tpr['0.001']:.2f} "
        "in 100 when wrongly accusing at most 1 in 1,000).",
        f"Their advantage, the rate of true accusations minus the rate of false ones, is at most "
        f"{100 * result['mia_advantage']:.1f} percentage points.",
    ]
    if result["mu"] is not None:
        out.append(f"This is exactly Gaussian differential privacy with μ = {result['mu']:.3g}.")
    if result["refuted"]:
        out.append("This claim is refuted: the audit measured an attack that the claimed curve does not allow.")
    return out
