"""Start here: a guided tour in six steps, one screen each, with the step in the URL (``?step=1..6``).

Each step uses the same engine and chart builders as the page it introduces and ends with a link to
that page. Every number goes through ``dp_core.display``; every symbol has a glossary tooltip and the
step's symbols are listed under "Symbols on this step".
"""

import streamlit as st

from dp_core import display, explain, glossary, tour
from dp_core.audit.table import audit_row
from dp_core.compare import default_epsilons, make_spec
from dp_core.compare.figures import compare_figure
from dp_core.figures import noise_scale_figure, vline
from dp_core.mechanisms.input_perturbation import figures as ipf
from ui import badges, cached, state, widgets
from ui import cached_compare as cc
from ui.cached import plan
from ui.constants import EPS_OPTIONS, IP_ALPHA_OPTIONS, TOUR_STEPS

eps, delta, seed, trials = widgets.sidebar_controls()

TOUR_DATASET = "breast_cancer"
TOUR_TRIALS = 10  # a small Monte-Carlo run: the tour must answer in seconds
STEPS = (
    "What ε and δ mean",
    "Noise against ε",
    "Accuracy against ε on real data",
    "Local versus central privacy",
    "A paper guarantee that is wrong, and its audit",
    "Negotiating a target",
)
assert len(STEPS) == TOUR_STEPS
_KEY = "tour_step"
tip = glossary.tooltip

# ------------------------------------------------------------------ the step, from the link or the buttons
changed, linked = state.link_value("step", 1)
restored = st.session_state.pop("step", None)  # a restored configuration's step (ui.share.apply_config)
if changed:
    st.session_state[_KEY] = int(linked)
elif restored is not None:
    st.session_state[_KEY] = int(restored)
elif _KEY not in st.session_state:
    st.session_state[_KEY] = 1
step = int(min(max(st.session_state[_KEY], 1), TOUR_STEPS))


def _go(delta_step: int) -> None:
    st.session_state[_KEY] = int(min(max(st.session_state[_KEY] + delta_step, 1), TOUR_STEPS))


state.sync_url({"step": step})
state.mark_seen({"step": step})

st.title("🧭 Start here")
st.caption(
    f"Step {display.integer(step)} of {display.integer(TOUR_STEPS)} · a guided tour of what differential privacy "
    "costs, on real demo data. The sidebar's privacy budget ε is shared with every page."
)
st.progress(step / TOUR_STEPS)
st.header(f"{display.integer(step)} · {STEPS[step - 1]}")


def _nav(where: str = "") -> None:
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button("← Back", key=f"tour_back{where}", on_click=_go, args=(-1,), disabled=step <= 1, width="stretch")
    b2.button("Next →", key=f"tour_next{where}", on_click=_go, args=(1,), disabled=step >= TOUR_STEPS, width="stretch")


_nav()  # at the top, so that each step starts on the screen where the visitor clicked


def _symbols(*symbols: str) -> None:
    entries = []
    for s in symbols:
        e = glossary.lookup(s)
        if e is not None and e not in entries:
            entries.append(e)
    with st.expander("Symbols on this step", expanded=False):
        st.markdown(glossary.as_markdown(entries))


def _deeper(path: str, label: str, **params) -> None:
    st.page_link(path, label=f"Go deeper: {label}", icon="➡️", query_params=params or None)


# ------------------------------------------------------------------ the steps
if step == 1:
    meaning = explain.budget_meaning(epsilon=eps, delta=delta, n=None)
    st.markdown(
        "Differential privacy is a promise about **one person**: whatever is published, it would have been about "
        f"as likely without that person's record. The privacy budget ε = **{display.epsilon(eps)}** (set in the "
        "sidebar) bounds *about as likely*: odds of any statement about one person change by a factor of at most "
        f"e^ε = **{display.number(meaning['odds_factor'])}**. δ = **{display.delta(delta)}** is the small "
        "probability that the promise may fail."
    )
    ds = cached.load_demo(TOUR_DATASET)
    true_count = int((ds.y == 1).sum())  # target 1 = malignant
    out = tour.noisy_counts(true_count, epsilon=eps, n_draws=5, seed=seed)
    st.markdown(
        f"**A tiny live example.** In the breast-cancer data, {display.integer(true_count)} of "
        f"{display.integer(ds.n)} tumours are malignant. Publishing that count privately means adding Laplace "
        f"noise of scale b = 1/ε = {display.number(out['scale'])}. {display.integer(len(out['released']))} releases "
        f"at ε = {display.epsilon(eps)}:"
    )
    c = st.columns(len(out["released"]))
    for i, (col, v) in enumerate(zip(c, out["released"])):
        col.metric(f"Release {i + 1}", display.number(v, sig=4), help=tip("ε"))
    lo, hi = meaning["posterior_from_half"]
    st.markdown(
        f"Someone 50 % sure of a fact about you could end up between **{display.percent(lo)}** and "
        f"**{display.percent(hi)}** sure. Move ε in the sidebar: a smaller ε gives noisier counts and a "
        "tighter promise."
    )
    with st.expander("A coin game: randomized response", expanded=False):
        st.markdown(
            "One private yes/no question to a class: *have you ever cheated on a test?* Each student flips a fair "
            "coin in secret. Heads: answer truthfully. Tails: flip again and say yes on heads, no on tails."
        )
        g1, g2 = st.columns(2)
        n_class = g1.number_input("Students in the class", 10, 100_000, 30, step=10, key="tour_coin_n")
        share = g2.slider("True share of yes (simulated)", 0.0, 1.0, 0.3, 0.05, key="tour_coin_share")
        game = tour.coin_game(int(n_class), float(share), seed=seed)
        k1, k2, k3 = st.columns(3)
        k1.metric("Said yes", display.integer(game["yes"]))
        k2.metric("Estimated share of yes", display.percent(game["estimate"]))
        k3.metric("Noise (standard error)", f"± {display.percent(game['std_error'])}")
        for sentence in tour.coin_story(game):
            st.markdown(sentence)
    _symbols("ε", "δ", "e", "b", "n")
    _deeper("pages/home.py", "what ε and δ mean on your own dataset (Home)")
elif step == 2:
    st.markdown(
        "The noise a mechanism must add is set by ε: it falls as ε grows. Move the slider: the chart shows the "
        "scale of Laplace noise (pure ε-DP) and the σ of Gaussian noise (at the sidebar's δ) for one count."
    )

    def _copy_eps() -> None:
        state.set_value("eps", float(st.session_state["tour_eps"]))

    if "tour_eps" not in st.session_state or st.session_state["tour_eps"] not in EPS_OPTIONS:
        st.session_state["tour_eps"] = min(EPS_OPTIONS, key=lambda v: abs(v - eps))
    e2 = st.select_slider(
        "Privacy budget ε",
        options=EPS_OPTIONS,
        key="tour_eps",
        format_func=display.epsilon,
        on_change=_copy_eps,
        help=tip("ε"),
    )
    table = tour.noise_scale_table(EPS_OPTIONS, delta=delta)
    fig = noise_scale_figure(
        table,
        x="epsilon",
        y="scale",
        title="Noise for one count against ε",
        x_title="ε (privacy budget)",
        y_title="noise scale (b or σ)",
    )
    vline(fig, float(e2), log_x=True, line_dash="dot", line_color="#444")
    st.plotly_chart(fig, width="stretch", key="tour_noise_chart")
    st.markdown(tour.noise_story(table, float(e2)))
    sig = cached.gaussian_sigmas(float(e2), delta)
    m1, m2 = st.columns(2)
    m1.metric(f"Laplace b at ε = {display.epsilon(e2)}", display.number(sig["laplace"]), help=tip("b"))
    m2.metric(f"Gaussian σ at ε = {display.epsilon(e2)}", display.number(sig["analytic"]), help=tip("σ"))
    _symbols("ε", "δ", "b", "σ")
    _deeper("pages/audit.py", "run a noise mechanism and measure its ε (Privacy audit)", mechanism="laplace")
elif step == 3:
    ds = cached.load_demo(TOUR_DATASET)
    grid = default_epsilons(0.1, 10.0, 5)
    st.markdown(
        f"Noise costs accuracy. Here every mechanism that applies is trained on the **breast-cancer data** "
        f"({display.integer(ds.n)} patients, {display.integer(ds.d)} features; is a tumour malignant?) at "
        f"{display.integer(len(grid))} values of ε, {display.integer(TOUR_TRIALS)} runs each, with the same engine "
        "and chart as the Compare page. The dotted line is the accuracy without privacy."
    )
    try:
        spec = make_spec(epsilons=grid, delta=delta, n_trials=TOUR_TRIALS, seed=seed)
        result = cc.compare(ds.name, ds.fingerprint, spec, None, ds)
    except (TypeError, ValueError) as exc:
        widgets.show_error(exc)
    else:
        st.plotly_chart(compare_figure(result, y="utility", eps_marker=eps), width="stretch", key="tour_accuracy")
        guess = tour.guessing_score(ds.y, ds.task)
        st.markdown(tour.accuracy_story(result.summary, result.methods, metric=result.metric, guess=guess))
        st.caption("Where the curves rise is the price of privacy.")
    _symbols("ε", "δ")
    _deeper("pages/compare.py", "every mechanism on your data (Compare and negotiate)", dataset=TOUR_DATASET)
elif step == 4:
    st.markdown(
        "**Central** privacy trusts a server with the raw data and protects the published model. **Local** privacy "
        "trusts nobody: each person noises her own record before sending it. Input perturbation (Fukuchi, Tran & "
        "Sakuma 2017) does both: α splits the budget. The central guarantee uses α·ε; each contributor's own message "
        "gets a local ε that grows with the number of contributors."
    )
    ds = cached.load_demo(TOUR_DATASET)
    if "tour_alpha" not in st.session_state:
        st.session_state["tour_alpha"] = 1.0
    alpha = st.select_slider("α: local / central trade-off", options=IP_ALPHA_OPTIONS, key="tour_alpha", help=tip("α"))
    try:
        data = plan("input-perturbation").prepared(ds.name, ds.fingerprint, "logistic_taylor", None, int(seed), _ds=ds)
        _by_eps, trade = plan("input-perturbation").noise_tables(
            int(data.n_train), int(data.d), float(eps), float(delta), "logistic_taylor", 1.0, 1.0, "COR2"
        )
    except (TypeError, ValueError) as exc:
        widgets.show_error(exc)
    else:
        row = trade.iloc[(trade["alpha"] - float(alpha)).abs().argsort().iloc[0]]
        m1, m2, m3 = st.columns(3)
        m1.metric("σ_b (linear-part noise)", display.number(row["sigma_b"]), help=tip("σ_b"))
        m2.metric("σ_u (quadratic-part noise)", display.number(row["sigma_u"]), help=tip("σ_u"))
        m3.metric("central ε = α·ε", display.epsilon(row["central_epsilon"]), help=tip("ε_run"))
        st.plotly_chart(ipf.tradeoff_figure(trade), width="stretch", key="tour_tradeoff")
        st.caption(
            f"n = {display.integer(data.n_train)} contributors, d = {display.integer(data.d)}; local ε of one "
            f"contributor at this α: {display.number(row['local_epsilon_exact'])} (exact, Gaussian DP). "
            + tour.tradeoff_story(trade)
        )
    _symbols("α", "σ_b", "σ_u", "ε_run", "ε_L", "n", "d")
    _deeper("pages/input_perturbation.py", "input perturbation's noise, bounds and proofs")
elif step == 5:
    st.markdown(
        "Papers can be wrong. The heavy-tailed ℓ1 regression paper (Wang & Xu) prints a sampling temperature that "
        "gives 2ε-differential privacy, not the claimed ε, when one person's record is *replaced*. "
        "An **audit** runs the mechanism many times on two datasets that differ in one record and measures "
        "a lower bound on ε: above the claim means the claim is false. The badges below come from the stored "
        "audit table (no run needed)."
    )
    st.markdown("**As printed in the paper** (temperature convention *paper_box*):")
    badges.audit_badge("l1-exponential", "paper_box")
    st.markdown("**Corrected** (temperature convention *tight*, exact sensitivity log θ):")
    badges.audit_badge("l1-exponential", "tight")
    for mode, title in (("paper_box", "As printed"), ("tight", "Corrected")):
        row = audit_row("l1-exponential", mode)
        if row is not None:
            st.markdown("- " + tour.audit_story(row, title))
    st.caption(
        "An audit can show a claim false; a consistent audit is evidence, never a proof. Other corrected papers: "
        "the large-margin Gaussian classifier and label-DP by aggregation."
    )
    _symbols("ε", "δ", "θ", "D")
    _deeper("pages/audit.py", "run the audit yourself (Privacy audit)", mechanism="l1-exponential")
else:
    st.markdown(
        "A stakeholder rarely asks for an ε; she asks for a result: *we need at least 90 % accuracy on the "
        "breast-cancer data, how much privacy can we offer?* The Compare page's **Negotiate** tab answers with the "
        "smallest ε that meets the target for every mechanism, measured and from the theoretical bound."
    )
    st.link_button(
        "Open the negotiation: breast_cancer, accuracy ≥ 0.9",
        f"compare?dataset={TOUR_DATASET}&tmetric=accuracy&tvalue=0.9&n_eps=8",
        icon="🤝",
    )
    st.caption(
        "The button opens a new tab with the dataset and the target in its link, so it can be shared as is. The "
        "answer is in the tab '🤝 Negotiate'."
    )
    _symbols("ε", "δ")
    _deeper("pages/compare.py", "Compare and negotiate on your current dataset")

st.divider()
_nav("_end")
with st.expander("Glossary: every symbol the app and the command line show", expanded=False):
    st.markdown(glossary.as_markdown())
    st.caption("The same table from the shell: `python -m dp_core glossary` (or `python -m dp_core glossary σ_b`).")
