"""The first screen of input perturbation on the visitor's data, as a :class:`~dp_core.plugin.Screen` (noise,
guarantee, measured utility against n and the alerts that qualify them). See docs/input_perturbation.md §"Page".
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import display as fmt
from ... import fit_checks
from ...glossary import tip
from ...plugin import Screen

MECH = "input-perturbation"
WHO = (
    "each contributor's record (her features and her label), from everyone, the analyst who fits "
    "the model included: she randomises her own record before it leaves her hands, and the released "
    "model is differentially private."
)
NOTE = (
    "Each contributor's own noisy message is also claimed to be locally private (Corollary 1); the "
    "audit refutes that claim (see *Privacy guarantees* below). More contributors mean less noise "
    "per record and a model closer to the non-private one."
)


def utility_text(x: float) -> str:
    """An accuracy or R² for the first screen: two significant digits, 0 below half a percent."""
    return fmt.number(x, sig=2, scale=1.0, zero_below=5e-3)


@dataclass(frozen=True)
class PageSetting:
    """What the first screen says about the page's setting: the run's parameters (``readouts``' ``params``),
    the training rows, the sweep's sizes and trials, η against its rule and its cap (``plan.eta_cap``)."""

    params: dict
    n_full: int
    delta: float
    alpha: float
    mode: str
    eps: float
    eta: float
    eta_rule: float
    cap: dict
    ns: tuple
    n_trials: int
    n_min_rows: int
    switched: str | None = None


def _flag(head, data, eta: float, preprocess: str):
    """A fit far worse than predicting the mean, with its cause (never drawn as a normal result)."""
    if head is None or head["metric"] != "test R²":
        return None
    reach = fit_checks.intercept_reach(float(eta), minmax_dim=data.d if preprocess == "minmax" else None)
    return fit_checks.poor_fit(data.y_train, min(head["private"], head["nonprivate"]), intercept_reach=reach)


def _utility(head, flag, s: PageSetting) -> tuple:
    """The third number: the measured utility beside non-private (or why there is none)."""
    if head is None:
        why = "The run did not finish (see the message above)."
        if not s.ns:
            why = f"The measured curve needs more training rows than the {fmt.integer(s.n_full)} this dataset has."
        return ("Utility", "not measured", why)
    label = f"{head['metric'].removeprefix('test ').capitalize()} vs non-private"
    if flag is not None:
        return (
            label,
            "not usable",
            f"Held-out R² {utility_text(head['private'])} with privacy and {utility_text(head['nonprivate'])} "
            f"without ({fmt.integer(head['trials'])} runs on {fmt.integer(head['n'])} training rows): below −1, the "
            "squared error is more than twice that of predicting the mean. The cause is named below the numbers.",
            "far worse than the mean",
            "inverse",
        )
    return (
        label,
        f"{utility_text(head['private'])} / {utility_text(head['nonprivate'])}",
        f"Mean over {fmt.integer(head['trials'])} runs on {fmt.integer(head['n'])} training rows "
        f"(95% range {fmt.interval(head['private_lo'], head['private_hi'])}), measured on held-out rows "
        f"({head['metric']}: {fmt.number(head['private'])} with privacy, {fmt.number(head['nonprivate'])} "
        "for the same model fitted without any noise).",
    )


def cap_text(s: PageSetting) -> str:
    """Why η is capped, and the rule's value at this ε."""
    return (
        s.cap["note"] + f" The rule gives η = {fmt.number(s.eta_rule)} at ε = {fmt.epsilon(s.eps)}, which balances "
        "the two for this budget."
    )


def _numbers(s: PageSetting) -> tuple:
    p = s.params
    return (
        (
            "Noise σ_b / σ_u",
            f"{fmt.number(p['sigma_b'], sig=3)} / {fmt.number(p['sigma_u'], sig=3, inf='undefined')}",
            f"{tip('σ_b')} {tip('σ_u')} Each of the {fmt.integer(s.n_full)} contributors adds 1/√n of "
            f"it: {fmt.number(p['per_record_std_b'], sig=3)} and "
            f"{fmt.number(p['per_record_std_u'], sig=3, inf='undefined')}.",
        ),
        (
            "Released model",
            f"ε = {fmt.epsilon(p['eps_run'])}",
            f"({fmt.epsilon(p['eps_run'])}, {fmt.delta(s.delta)})-differential privacy for the "
            f"released model, as claimed by the paper (Theorem 1), at α·ε with α = {fmt.number(s.alpha)}. "
            f"{tip('ε')}",
        ),
    )


def _advice(head, flag, s: PageSetting) -> list:
    """The plain notes when the numbers need a reading: η below its rule, no better than the trivial guess."""
    out = []
    baseline = "predicting the mean" if head and head["metric"] == "test R²" else "predicting the majority class"
    if s.cap["binding"] and float(s.eta) < s.eta_rule * (1 - 1e-9):
        # below the rule's value the bound is the user's choice and worth a flag here (at or above it, a plain
        # note in the Preprocessing section)
        out.append(("info", cap_text(s), "📏"))
    plain = head is not None and flag is None  # with a flag, the flag says what the numbers mean
    if plain and head["nonprivate"] <= head["trivial"] + 0.01:
        text = (
            f"Even without any noise this model does no better than {baseline} ({utility_text(head['trivial'])}) "
            "on this data, so privacy costs nothing measurable here."
        )
        if s.cap["binding"]:
            text += " A larger η (Settings) lets the model fit; the noise grows with η."
        out.append(("info", text, "💡"))
    elif plain and head["private_hi"] <= head["trivial"] + 0.01:
        text = (
            f"At {fmt.integer(head['n'])} training rows the private model does no better than {baseline} "
            f"({utility_text(head['trivial'])}): the noise drowns the signal. What would help: a larger ε (sidebar), "
            "α = 1 (Settings) or more rows; the chart shows how it improves with n."
        )
        out.append(("info", text, "💡"))
    return out


def first_screen(head, chart, data, s: PageSetting, *, preprocess: str) -> Screen:
    """The page's first screen for the sweep's headline ``head`` (``None`` before it exists) and its chart."""
    flag = _flag(head, data, s.eta, preprocess)
    alerts = [("error", flag.message, "📉")] if flag is not None else []
    if s.switched:
        alerts.append(("info", s.switched, "🔢"))
    if head is not None and head["trials"] < s.n_trials:
        quick = f"Quick first look: {fmt.integer(head['trials'])} runs; refining to {fmt.integer(s.n_trials)} in the "
        alerts.append(("caption", quick + "background.", ""))
    alerts += _advice(head, flag, s)
    if not s.ns:
        text = (
            f"The measured curve needs more than {fmt.integer(s.n_min_rows)} training rows; this dataset has "
            f"{fmt.integer(s.n_full)}. A larger δ (sidebar) or a larger dataset would allow it."
        )
        alerts.append(("info", text, ""))
    return Screen(
        who=WHO,
        numbers=(*_numbers(s), _utility(head, flag, s)),
        audit=(MECH, s.mode),
        chart=None if flag is not None else chart,
        note=NOTE,
        alerts=tuple(alerts),
    )
