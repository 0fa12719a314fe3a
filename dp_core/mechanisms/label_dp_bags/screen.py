"""The first screen of label-DP by aggregation on the visitor's data, as a :class:`~dp_core.plugin.Screen`
(label noise, the guarantee at the sidebar's δ or ε, the measured squared error, and the alerts that qualify
them); the page draws its chart under the bag settings. See docs/label_dp_bags.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ... import display as fmt
from ... import fit_checks
from ... import status as vocab
from ...glossary import tip
from ...plugin import Screen
from .diagnostics import bags_for_useful_model

WHO = (
    "each person's **label** (the value to predict), from anyone who sees what is released. Features are "
    "public. Labels are only released as weighted sums over random bags of k rows."
)


@dataclass(frozen=True)
class Setting:
    """The page's setting: variant, bags, label noise, the sidebar's ε and δ, the rows, and ``eps_at`` (the
    smallest ε proved at the sidebar's δ, noisy-wtd-LLP with ρ > 0 only); ``summ``: ``plan.summary``."""

    variant: str
    k: int
    m: int
    rho: float
    noise_std: float
    eps: float
    delta: float
    n_rows: int
    eps_at: float | None
    summ: dict

    @property
    def no_noise(self) -> bool:
        return self.variant == "noisy-wtd-llp" and self.rho == 0


def _noise(s: Setting) -> tuple:
    if s.variant != "noisy-wtd-llp":
        return (
            "Labels made noisy",
            "none",
            "No label is changed: each bag releases sums of labels and features with secret random N(0, 1) "
            "weights, and the secrecy of the weights is what hides a label.",
        )
    return (
        "Labels made noisy",
        fmt.percent(s.rho, sig=2),
        f"A share ρ of the labels gets Gaussian noise of standard deviation {fmt.number(s.noise_std)} before "
        "the weighted bag sums are formed; the bag weights are public. " + (tip("ρ") or ""),
    )


def _secret_weights(s: Setting) -> tuple:
    d_expl = s.summ["delta_explicit"]
    return (
        f"Privacy at ε = {fmt.epsilon(s.eps)}",
        f"δ = {fmt.delta(d_expl, sig=2)}" if d_expl < 1 else "δ ≥ 1",
        "The corrected bound of the paper's theorem for secret weights; it needs bags of about 10¹² rows "
        "before δ drops below 1. " + (tip("δ") or ""),
        None if d_expl < 1 else "no guarantee at this size",
        "off",
    )


def _public_weights(s: Setting, weak: str | None) -> tuple:
    strong = s.eps_at is not None and weak is None
    return (
        f"Privacy at δ = {fmt.delta(s.delta)}",
        "no ε" if s.eps_at is None else f"ε = {fmt.epsilon(s.eps_at)}",
        f"The smallest ε whose promise fails with chance at most the sidebar's δ = {fmt.delta(s.delta)}, from "
        "the exact accounting of this mechanism (beyond the paper; the paper's own bound is vacuous at this "
        f"size, see below). At the sidebar's ε = {fmt.epsilon(s.eps)} the chance is δ = "
        f"{fmt.delta(s.summ['delta_exact'], sig=2)}. A δ above 1/n (here {fmt.delta(1.0 / s.n_rows)}) is a weak "
        "promise: it may fail for about one person in the data. " + (tip("δ") or ""),
        "none reaches this δ" if s.eps_at is None else (None if strong else "weak: above 1/n"),
        "off" if strong else "inverse",
    )


def guarantee(s: Setting) -> tuple[tuple, str, str | None]:
    """``(number, audit-table mode, why a proof is weak or None)`` of the guarantee shown."""
    if s.variant != "noisy-wtd-llp":
        return _secret_weights(s), "wtd-lba", None
    if s.no_noise:
        text = "Without noisy labels a changed label moves its bag's sum by a known amount: δ ≥ m·k/n for every ε."
        return (f"Privacy at δ = {fmt.delta(s.delta)}", "none", text), "weighted-llp", None
    weak = vocab.weak_reason(s.delta, s.n_rows) if s.eps_at is not None else None  # valid, may fail for someone
    if s.eps_at is None:
        weak = (
            f"no ε reaches the sidebar's δ = {fmt.delta(s.delta)} at k = {fmt.integer(s.k)}, m = {fmt.integer(s.m)}, "
            f"ρ = {fmt.number(s.rho)}: the proof gives no guarantee at this setting."
        )
    return _public_weights(s, weak), "noisy-wtd-llp", weak


def utility(util: dict, y) -> tuple[tuple, object]:
    """The measured squared error beside no privacy, and the poor-fit flag (far worse than the average label)."""
    r2 = 1.0 - util["mse"] / util["trivial"] if util["trivial"] > 0 else None  # a constant test label: no R²
    flag = None if r2 is None else fit_checks.poor_fit(y, r2, intercept_reach=math.inf)
    number = (
        "Test error (squared)",
        "not usable" if flag else fmt.number(util["mse"], sig=3),
        "Mean squared error on held-out rows of a linear model fitted on the release "
        f"({fmt.integer(util['n_trials'])} runs), on labels mapped to [−1, 1]: {fmt.number(util['mse'], sig=3)}. "
        f"Without privacy: {fmt.number(util['nonprivate'], sig=3)}; predicting the average label: "
        f"{fmt.number(util['trivial'], sig=3)}.",
        "far worse than the average" if flag else f"no privacy: {fmt.number(util['nonprivate'], sig=3)}",
        "inverse" if flag else "off",
    )
    return number, flag


def _delta_alert(s: Setting, auto_message: str | None):
    if s.variant != "noisy-wtd-llp" or s.rho <= 0:
        return None
    if s.eps_at is None:
        text = auto_message or (
            f"No ε reaches the sidebar's δ = {fmt.delta(s.delta)} at k = {fmt.integer(s.k)}, m = {fmt.integer(s.m)}: "
            "a bag with no noisy label is too likely. Larger bags (k) or more noisy labels (ρ) would give one."
        )
        return ("warning", text, "📏")
    if s.delta > 1.0 / s.n_rows:
        text = (
            f"The sidebar's δ = {fmt.delta(s.delta)} is above 1/n = {fmt.delta(1.0 / s.n_rows)} for these "
            f"{fmt.integer(s.n_rows)} rows: a promise that may fail for about one person. Lower δ in the "
            "sidebar for a strong guarantee."
        )
        return ("warning", text, "📏")
    return None


def first_screen(s: Setting, util: dict, y, *, codes: str | None, auto_message: str | None) -> Screen:
    """The numbers and alerts of the first screen (``auto_message``: the bag rule's own words when the page
    runs at its setting)."""
    number, mode, weak = guarantee(s)
    utility_number, flag = utility(util, y)
    alerts = []
    if flag is not None and flag.explained:  # a cause in the labels; too few bags is said under the chart
        alerts.append(("error", flag.message, "📉"))
    if codes is not None:
        text = (
            f"{codes} Its two classes are fitted as the numbers −1 and 1, so the squared error above is that of a "
            "predicted class probability (four times its Brier score), not an accuracy."
        )
        alerts.append(("info", text, "🔢"))
    alerts += [a for a in (_delta_alert(s, auto_message),) if a is not None]
    return Screen(
        who=WHO,
        numbers=(_noise(s), number, utility_number),
        audit=("label-dp-bags", mode),
        weak=weak or "",
        alerts=tuple(alerts),
    )


def _more_bags(s: Setting, need_m: int, n: int) -> str:
    text = f"Each bag is one data point for the model: about m = {fmt.integer(need_m)} bags (now {fmt.integer(s.m)}) "
    text += "would make it useful"
    if need_m * s.k > n:
        return text + f": about {fmt.integer(need_m * s.k)} rows at k = {fmt.integer(s.k)} (now {fmt.integer(n)})."
    text += (
        f". The data have room for them ({fmt.integer(need_m * s.k)} of {fmt.integer(n)} rows at "
        f"k = {fmt.integer(s.k)}), but every bag adds to δ"
    )
    if "delta_exact" in s.summ:
        d_now = s.summ["delta_exact"]
        text += f" (about {fmt.delta(d_now * need_m / s.m, sig=2)} instead of {fmt.delta(d_now, sig=2)})"
    return text + ": choose between the guarantee and a useful model, or use more rows."


def usefulness_warning(s: Setting, util: dict, d: int, n: int) -> str | None:
    """What to change when the private model predicts worse than the average label, or ``None``."""
    if util["useful"]:
        return None
    rho = s.rho if s.variant == "noisy-wtd-llp" else 0.0
    need_m = bags_for_useful_model(
        d=d,
        nonprivate=util["nonprivate"],
        trivial=util["trivial"],
        rho=rho,
        noise_std=s.noise_std,
        measured=util["mse"],
        m=s.m,
    )
    text = (
        f"At this setting the private model predicts worse than the average label (squared error "
        f"{fmt.number(util['mse'], sig=3)} against {fmt.number(util['trivial'], sig=3)}): it has learned nothing "
        "useful. "
    )
    if need_m is None:
        return text + "Even without privacy these features barely predict the label, so more rows would not help."
    text += _more_bags(s, need_m, n)
    return text + (" Less label noise (smaller ρ or s) also helps." if s.variant == "noisy-wtd-llp" else "")
