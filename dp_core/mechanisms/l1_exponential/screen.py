"""The first screen of heavy-tailed l1 regression on the visitor's data, as a :class:`~dp_core.plugin.Screen`
(numbers, guarantee, releases chart and the alerts that qualify them). See docs/l1_exponential.md §"The page (module)".
"""

from __future__ import annotations

from ... import display as fmt
from ... import fit_checks
from ...glossary import tip
from ...plugin import Screen
from ...text import escape_html, escape_markdown
from . import figures as lf
from . import simulation as sim
from .mcmc import APPROXIMATE_LABEL

MECH = "l1-exponential"
WHO = (
    "each training row (its features and its response) is protected from whoever sees the released "
    "coefficients: they cannot tell whether any one row was used. The coefficients are public."
)


def _guarantee(eps: float, conv: str, mcmc, data_derived: bool) -> tuple:
    """``("Privacy guarantee", value, help, delta, colour)`` without the help, which the caller adds."""
    if conv == "paper_box":  # the printed temperature is exactly 2ε-DP under replace-one
        return f"ε = {fmt.epsilon(2 * eps)}", f"the paper says {fmt.epsilon(eps)}", "inverse"
    if mcmc is not None:
        return f"ε = {fmt.epsilon(eps)}", "approximate sampler", "off"
    if data_derived:
        return f"ε = {fmt.epsilon(eps)}", "scales from the data: not covered", "inverse"
    return f"ε = {fmt.epsilon(eps)}", None, "off"


def _scales_said(an, scale: str, scaling) -> str:
    if scale == "sample":
        return (
            "Features and target standardised with the training sample's own statistics: computed from the private "
            "rows, so the guarantee does not cover this step ('public scales' in the settings avoids it)."
        )
    if scaling is not None:
        return " ".join(n for n in an.notes if "centred" in n)
    return "Features and target on their raw scale."


def _numbers(an, head: dict, guarantee: tuple, flag, n_rel: int) -> tuple:
    cal = an.result.calibration
    gap = head["mae_private"] - head["mae_nonprivate"]
    mae_help = tip("MAE", "Mean absolute error on held-out rows") + (
        f" Private: mean over {fmt.integer(n_rel)} releases on the held-out rows (standard error "
        f"{fmt.number(head['mae_private_se'])}); without privacy: the LAD fit on the same rows."
    )
    return (
        (
            "Noise (spread)",
            fmt.number(head["spread"]),
            f"How far the private coefficients land from the non-private fit: root-mean-square distance "
            f"over {fmt.integer(n_rel)} releases. The mechanism draws the coefficients with probability "
            f"∝ exp(−κ·S(w)), at inverse temperature κ = {fmt.number(cal['kappa'], sig=4)}; a smaller ε means "
            "a smaller κ, a hotter draw and a wider spread.",
        ),
        ("Privacy guarantee", guarantee[0], an.result.privacy_label, guarantee[1], guarantee[2]),
        (
            "Prediction error (MAE)",
            fmt.number(head["mae_private"]),
            mae_help,
            # an ASCII sign: Streamlit reads it for the arrow (down and green when privacy costs nothing)
            "far worse than the median" if flag else f"{'+-'[gap < 0]}{fmt.number(abs(gap), sig=2)} vs no privacy",
            "inverse",
        ),
    )


def _alerts(head: dict, flag, mcmc, radius: float, scales: str, data_derived: bool) -> tuple:
    out = [("caption", scales, "")]
    if data_derived:
        text = f"{scales} The ε shown covers the mechanism given these scales, not the choice of scales, so no status "
        out = [("warning", text + "is shown for it.", "🔓")]
    if flag is not None:
        out.append(("error", flag.message, "📉"))
    if mcmc is not None and mcmc["status"] == "not_converged":
        text = (
            "**Not proved: the sampler did not converge.** These releases carry no privacy guarantee. "
            "Choose a longer MCMC length in the settings, or at most 3 features for the exact sampler."
        )
        out.append(("error", text, "⛔"))
    elif mcmc is not None:
        out.append(("warning", APPROXIMATE_LABEL[0].upper() + APPROXIMATE_LABEL[1:] + ".", "⚠️"))
    if head["lad_on_boundary"]:
        text = (
            f"The non-private fit reaches the largest coefficients allowed (radius R = {fmt.number(radius)}): "
            "the data would prefer larger ones. A larger R in the settings lets both fits reach them but widens "
            "the private draw's spread; compare the held-out error after the change."
        )
        out.append(("info", text, "ℹ️"))
    return tuple(out)


def first_screen(an, *, eps: float, radius: float, conv: str, n_rel: int, feats, names, scale: str, scaling):
    """The page's first screen for the analysis ``an`` (:func:`~.simulation.analyse_dataset`) at these settings."""
    head = sim.headline(an, float(radius))
    mcmc = an.result.mcmc
    # any step that reads the private rows to set the scales: named on the first screen, and no proved status
    data_derived = scale == "sample" or (scaling is not None and scaling.data_derived)
    # a fit far worse than predicting the median is flagged with its cause, not drawn as a normal result
    flag = fit_checks.poor_fit(an.y_train, 1.0 - head["mae_private"] / head["mae_median"], kind="absolute")
    subset = f"{fmt.integer(len(feats))} of {fmt.integer(len(names))} features: {escape_markdown(', '.join(feats))}"
    subset += "; choose more in the settings below." if len(feats) < len(names) else "."
    # Plotly draws <a href> in its text: the file's column names go in escaped
    names_safe = [escape_html(n) for n in an.feature_names]
    chart = None if flag else lf.releases_figure(an.result.em_draws, an.result.lad_w, names_safe, convention=conv)
    return Screen(
        who=WHO,
        numbers=_numbers(an, head, _guarantee(eps, conv, mcmc, data_derived), flag, int(n_rel)),
        audit=None if data_derived else (MECH, conv),
        chart=chart,
        caption="Each dot is one private release; the diamond is the non-private fit (LAD) on the same rows.",
        note=(
            f"**{subset}** Held-out error without privacy (the LAD fit): {fmt.number(head['mae_nonprivate'])}; "
            f"predicting the median: {fmt.number(head['mae_median'])}. {fmt.integer(an.n_train)} training rows, "
            f"{fmt.integer(an.n_test)} held out; "
            + ("exact sampler." if mcmc is None else "approximate sampler (MCMC).")
        ),
        alerts=_alerts(head, flag, mcmc, radius, _scales_said(an, scale, scaling), data_derived),
    )
