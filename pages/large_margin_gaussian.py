"""Large-margin Gaussian classifier (Pathak & Raj): the paper's mechanism as printed, repaired and corrected.

The page opens with a plain first screen (who is protected, the noise, the guarantee with its audit status, test
accuracy beside the non-private fit, one chart); settings, accounting, the printed mechanism's flaws, Monte-Carlo sweeps
and bounds follow in titled expert sections (computed only when opened)."""

import functools
from dataclasses import replace

import streamlit as st

import dp_core
from dp_core import captions
from dp_core import display as fmt
from dp_core import status as vocab
from dp_core.data import DATASETS
from dp_core.exceptions import DataValidationError
from dp_core.mechanisms import large_margin_gaussian as lmg
from dp_core.mechanisms.large_margin_gaussian import figures as lmf
from dp_core.mechanisms.large_margin_gaussian import screen as lm_screen
from dp_core.text import escape_markdown
from ui import background, badges, cached, share, state, widgets
from ui import cached_scope as scoped
from ui.cached import plan
from ui.constants import url_spec
from ui.errors import fragment
from ui.first_screen import expert_section, tip
from ui.risk_panel import risk_panel
from ui.shell import draw_screen

P = plan("large-margin-gaussian")

st.title("🎯 Large-margin Gaussian classifier")
widgets.audit_link("large-margin-gaussian", "repaired-psd-off")
st.markdown(
    "A classifier that gives each class an ellipse-shaped region, trained with a random term added to its "
    "objective so that the released classifier reveals little about any one training point "
    "(Pathak & Raj, *Large Margin Multiclass Gaussian Classification with Differential Privacy*)."
)

eps, _delta_dp, seed, trials = widgets.sidebar_controls()
st.sidebar.caption(
    "This mechanism's guarantee has no failure probability: the sidebar's δ is not used here. The δ in the "
    "settings below is the confidence of the utility bounds."
)

MODES = lmg.MODES
n4 = functools.partial(fmt.number, sig=4)  # four significant digits: the accounting's numbers
EPS_GRID = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
MU_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)
H_GRID = (0.05, 0.1, 0.2, 0.5, 1.0)
DEMO = tuple(o for o in url_spec("lm_data").options if o != "home")

home_ds = widgets.current_dataset()
home_ok = home_ds.is_classification
data_options = list(DEMO) + (["home"] if home_ok and home_ds.name not in DEMO else [])


def _data_label(v):
    if v == "home":
        return f"Home page dataset: {home_ds.name}"
    return DATASETS[v].title if v in DATASETS else v


c1, c2 = st.columns([1, 1])
widgets.prefer_upload("lm_data", "home", home_ds, fits=home_ok)  # the visitor's upload first, when it fits
data_choice = state.widget(
    "lm_data",
    label="Dataset (classification)",
    options=data_options,
    format_func=_data_label,
    container=c1,
    help="Upload a CSV with a class column on the Home page to use it here.",
)
if not home_ok:
    c1.caption(
        widgets.upload_not_used(home_ds, f"it is a {home_ds.task} dataset and this classifier needs a class column.")
        or f"The Home page dataset ({home_ds.name}) is a {home_ds.task} dataset; this page needs classes."
    )
mode = state.widget(
    "lm_mode",
    control="radio",
    label="Version of the mechanism",
    format_func=lmg.MODE_LABELS.get,
    container=c2,
    help="R is the corrected, private mechanism. P and P+ are the paper's mechanism as printed "
    "and minimally repaired: neither is differentially private.",
)
first = st.container()  # the first screen, drawn once the numbers are known

with expert_section("⚙️ Settings: regulariser, Huber width, projection, budget split"):
    s1, s2, s3 = st.columns(3)
    if data_choice == "gaussian_classes":
        n = state.widget("lm_n", control="number", container=s1, help=tip("n"))
    else:
        n = None
    try:
        if data_choice == "home":
            ds = home_ds
        elif data_choice == "gaussian_classes":
            ds = cached.load_demo("gaussian_classes", int(n), int(seed))
        else:
            ds = cached.load_demo(data_choice)
        sugg = lmg.suggest_settings(ds.name, ds.d, ds.n, int(ds.n_classes or 2))
    except (DataValidationError, ValueError, TypeError) as exc:
        widgets.show_error(exc)
        st.stop()
    # a new dataset gets the settings suggested for it (projection dimension and regulariser)
    state.reset_on_change("lm_data", data_choice, {"lm_k": sugg.k, "lm_lam": sugg.lam})
    lam = state.widget("lm_lam", default=sugg.lam, format_func=fmt.number, container=s2, help=tip("λ"))
    h = state.widget("lm_h", format_func=fmt.number, container=s3, help=tip("h"))
    s4, s5, s6 = st.columns(3)
    mu_raw = state.widget(
        "lm_mu",
        control="select_slider",
        label="Strong convexity μ (R only)",
        format_func=lambda v: v if v == "= λ" else fmt.number(float(v)),
        container=s4,
        help=(tip("μ") or "") + " P+ forces μ = λ; P has μ = 0 (the paper's literal objective).",
    )
    if ds.name != "gaussian_classes":
        k = state.widget(
            "lm_k",
            default=sugg.k,
            control="number",
            label="Projection dimension k (public)",
            hi=min(lmg.experiments.MAX_D, ds.d),
            container=s5,
            help="Real data are projected to k dimensions by a fixed random matrix (public: drawn without looking "
            "at the data). k = 2 lets the page draw decision regions; more dimensions keep more of the data but "
            f"add noise. Suggested here: {sugg.reason}.",
        )
    else:
        k = sugg.k
    psd = state.widget(
        "lm_psd",
        control="radio",
        label="PSD constraint on Φ_c",
        container=s6,
        help="Off is the variant covered by the objective-perturbation proof; on relies on the "
        "constrained analysis of Kifer, Smith & Thakurta (2012). The printed mode is always on.",
    )
    s7, s8, s9 = st.columns(3)
    semantics = state.widget(
        "lm_sem",
        control="radio",
        label="ε semantics",
        container=s7,
        help="target: ε is the total budget (CMS split). paper: ε goes to the noise and the "
        "guarantee is ε + k. P always uses paper semantics.",
    )
    jacobian = state.widget(
        "lm_jac",
        control="radio",
        label="Jacobian count r_J (R only)",
        format_func={"conservative": "conservative: 2(C − 1)", "tight": "tight: C − 1"}.get,
        container=s8,
        help=tip("r_J"),
    )
    bdelta = state.widget(
        "lm_bdelta",
        label="Bound confidence δ (utility bounds, not the privacy δ)",
        format_func=fmt.delta,
        container=s9,
        help="Failure probability of the utility bounds below; not the δ of differential privacy.",
    )
    st.caption(f"Suggested for this dataset: {sugg.reason}.")

mu = None if mu_raw == "= λ" else float(mu_raw)
psd_on = psd == "on" or mode == "printed"

try:
    task = P.task(ds.name, ds.fingerprint, None, int(k), int(seed), _ds=ds)
except (DataValidationError, ValueError, TypeError) as exc:
    with first:
        widgets.dataset_badge(ds)
        widgets.show_error(exc)
        st.info(
            "No usable setting exists for this data: the classifier needs at least two classes in the training "
            "part and 2 to 10 classes overall. More rows per class (or fewer classes) would change that."
        )
    st.stop()

tkey = (task.name, task.n, task.d, task.n_classes)
fp = ds.fingerprint

try:
    config = lmg.LargeMarginGaussian(
        epsilon=float(eps),
        mode=mode,
        lam=float(lam),
        mu=mu,
        h=float(h),
        psd=psd_on,
        semantics=semantics,
        jacobian=jacobian,
    )
    acc = P.accounting(config, task.n, task.d, task.n_classes)
except (ValueError, TypeError) as exc:
    with first:
        widgets.show_error(exc)
    st.stop()

st.session_state.setdefault("lm_draw", 0)


def _next_draw() -> None:
    st.session_state["lm_draw"] = int(st.session_state.get("lm_draw", 0)) + 1


draw = P.one_draw(tkey, fp, config, int(st.session_state["lm_draw"]), int(seed), _task=task)
acc_np = P.nonprivate_accuracy(tkey, fp, config, int(seed), _task=task)

# ------------------------------------------------------------------------------ the first screen
with first:
    widgets.dataset_badge(ds)
    draw_no = int(st.session_state["lm_draw"])
    regions = P.regions_figure(tkey, fp, config, draw_no, int(seed), _draw=draw, _task=task) if task.d == 2 else None
    screen = lm_screen.first_screen(
        task,
        acc,
        draw,
        acc_np,
        mode=mode,
        audit_mode=badges.large_margin_audit_mode(mode, psd_on),
        k=int(k) if ds.name != "gaussian_classes" else None,
        regions=regions,
    )
    draw_screen(screen, key="lm_regions" if task.d == 2 else "lm_accuracy_bars")
    b1, b2 = st.columns([1, 3])
    b1.button("🎲 Draw new noise", key="lm_resample", on_click=_next_draw)
    b2.caption(f"Draw #{fmt.integer(st.session_state['lm_draw'])} · noise size {n4(draw['noise_norm'])}.")

risk_panel(
    "large-margin-gaussian",
    eps=float(eps),
    n=int(task.n),
    k=int(task.d),
    n_classes=int(task.n_classes),
    lam=float(lam),
    h=float(h),
    mu=mu,
    mode=mode,
    sem=semantics,
    jac=jacobian,
    psd="on" if psd_on else "off",
)
with expert_section("Preprocessing (what was done to the data)"):
    if task.data_dependent:
        st.warning(
            "Preprocessing used the data itself (column standardisation): this leaks information that the "
            "privacy guarantee does not cover. A deployment would declare public feature ranges instead.",
            icon="🔓",
        )
    for note_text in task.notes:
        st.markdown(f"- {escape_markdown(note_text)}")
    st.markdown(
        f"- {fmt.integer(task.n)} training rows, {fmt.integer(task.X_test.shape[0])} test rows, "
        f"d = {fmt.integer(task.d)}, C = {fmt.integer(task.n_classes)} classes; inputs enter as z = (x, 1)/√2 (the "
        "printed mode uses (x, 1))."
    )

with expert_section(
    "1 · Privacy accounting: noise rate, budget split, Jacobian term, the three modes", key="lm_sec_accounting"
) as _open:
    if _open:
        if mode == "corrected":
            widgets.guarantee_badge(
                "corrected",
                f"{acc['status']}: ε = {n4(acc['eps_claimed'])} in total (noise {n4(acc['eps_noise'])} + Jacobian "
                f"{n4(acc['k'])}).",
            )
        else:
            widgets.guarantee_badge("broken", f"{lmg.MODE_LABELS[mode]}. {acc['reason']}")
            widgets.guarantee_badge(
                "claimed",
                f"ε′ = ε + k = {n4(acc['eps_prime'])} (k = {n4(acc['k_printed'])} with α = 1/(2h) = {n4(acc['alpha'])})"
                if mode == "printed"
                else f"ε = {n4(acc['eps_claimed'])} ({semantics} semantics; k_P = {n4(acc['k'])}).",
            )
        k_help = f"k_P = {n4(acc['k_printed'])} (paper), k_R = {n4(acc['k_corrected'])} (corrected, at μ)"
        numbers = (
            ("noise dimension", fmt.integer(acc["noise_dim"]), "p² = (d+1)² shared by every class (P, P+) or C·p² (R)"),
            ("noise rate β", n4(acc["beta"]), "density ∝ exp(−β‖N‖_F)"),
            ("E‖N‖ (mean noise norm)", n4(acc["expected_noise_norm"]), f"SD {n4(acc['sd_noise_norm'])}"),
            ("ε spent on the noise", n4(acc["eps_noise"]), None),
            ("claimed total ε", n4(acc["eps_claimed"]), None),
            ("Jacobian term k", n4(acc["k"]), k_help),
            ("extra regularisation Δ", n4(acc["Delta"]), "CMS fallback when k ≥ ε (target semantics)"),
            ("μ_eff", n4(acc["mu_eff"]), None),
            ("G (gradient bound)", n4(acc["G"]), None),
            ("κ (Hessian bound)", n4(acc["kappa"]), None),
        )
        for row in (numbers[:5], numbers[5:]):  # two rows of five
            for col, (label, value, help_) in zip(st.columns(5), row):
                col.metric(label, value, help=help_)
        st.markdown("**The three modes at this setting**")
        rows = []
        for mo in MODES:
            a = P.accounting(replace(config, mode=mo, psd=mo == "printed" or psd_on), task.n, task.d, task.n_classes)
            rows.append(
                {
                    "mode": lmg.MODE_LABELS[mo],
                    "privacy status": f"{vocab.PROVED if a['private'] else vocab.REFUTED}: {a['status']}",
                    "claimed ε": n4(a["eps_claimed"], inf=fmt.NO_GUARANTEE),
                    "β": n4(a["beta"]),
                    "E‖N‖": n4(a["expected_noise_norm"]),
                    "why": a["reason"]
                    or "noise over all C·p² coordinates, calibrated to the multiclass sensitivity 2G",
                }
            )
        widgets.table(rows, key="lm_modes_table")

with expert_section("2 · This draw in detail", key="lm_sec_draw") as _open:
    if _open:
        k1, k2, k3 = st.columns(3)
        k1.metric(
            "non-private fit, same regularisation",
            fmt.number(draw["acc_np"]),
            help="Test accuracy of the noise-free fit of the objective this draw perturbs (μ_eff, including the "
            "extra regularisation Δ of the budget split); the first screen's non-private number has no Δ.",
        )
        if draw["unbounded"]:
            k2.metric("private test accuracy", "no release")
            k3.metric("agreement with non-private", "—")
            st.caption(
                "This draw: n·λ·I_Φ + sym(b) is not positive semidefinite, so the printed objective has no minimiser."
            )
        else:
            k2.metric(f"private test accuracy ({mode})", fmt.number(draw["acc_p"]))
            k3.metric("agreement with non-private", fmt.number(draw["agreement"]))
        st.caption(
            f"‖N‖ = {n4(draw['noise_norm'])} for this draw. Background of the first screen's "
            "chart: the class each point of the unit disk is assigned to. Ellipses: "
            "{x : (x − μ_c)ᵀΨ_c(x − μ_c) = 1} recovered from Φ_c (drawn only when Ψ_c is positive definite)."
        )
        if task.d != 2:
            st.info(
                f"Decision regions are drawn for d = 2; this data has d = {fmt.integer(task.d)}. Set k = 2 in "
                "Settings to project it to two dimensions (a public projection)."
            )

with expert_section("3 · The two flaws of the printed mechanism (live numbers)", key="lm_sec_flaws") as _open:
    if _open:
        f1, f2 = st.columns(2)
        with f1:
            st.subheader("Flaw 1: no minimiser for most draws")
            ub = P.unbounded_share(task.d, task.n, float(lam), EPS_GRID, 20_000, int(seed))
            st.plotly_chart(
                lmf.unbounded_figure(
                    ub,
                    title=f"P: share of unbounded draws (d = {fmt.integer(task.d)}, nλ = {fmt.number(task.n * lam)})",
                ),
                key="lm_unbounded",
            )
            here = P.unbounded_share(task.d, task.n, float(lam), (float(eps),), 20_000, int(seed))
            st.metric(
                f"unbounded draws at ε = {fmt.epsilon(eps)}",
                fmt.percent(here["share"].iloc[0]),
                help="Exact test per draw: the objective is bounded below iff n·λ·I_Φ + sym(b) is PSD.",
            )
            st.caption(
                "The trace regulariser and the noise are both linear in Φ, so moving every Φ_c along t·vvᵀ "
                "lowers the objective without limit whenever vᵀ(nλI_Φ + sym(b))v < 0. Because I_Φ has a zero "
                "corner, this happens for at least half of all draws, whatever ε, n or λ."
            )
        with f2:
            st.subheader("Flaw 2: shared noise leaves the class differences untouched")
            lk = P.leak(tkey, fp, float(eps), float(lam), float(h), 20, int(seed), _task=task)
            rows = [
                {
                    "mode": lmg.MODE_LABELS[r["method"]],
                    "PSD": "on" if r["psd"] else "off",
                    "max ‖ΔΦᵖ − ΔΦ*‖": fmt.number(r["max_diff_error"], scale=1.0, zero_below=1e-9),
                    "draws with exact leak": fmt.percent(r["exact_leak_share"]),
                    "test predictions = non-private": fmt.percent(r["agreement"]),
                }
                for _, r in lk.iterrows()
            ]
            widgets.table(rows, key="lm_leak_table")
            st.caption(
                "ΔΦ = (Φ_c − Φ_0) for every class c: the only thing argmin_c zᵀΦ_c z depends on. One noise matrix "
                "b added to every class only moves the class average, so with PSD off P+ releases Φ*_c − sym(b)/(nμ): "
                "the class differences, and therefore every prediction, are exactly the non-private ones "
                f"(20 draws at ε = {fmt.epsilon(eps)}). R draws independent noise for every class."
            )


def _render_sweeps(job, n_trials: int, exc_mode: str) -> None:
    """The sweeps finished so far (quick results first), each once the one before it is shown."""
    done = job.finished()
    if _render_accuracy(done, n_trials) and _render_excess_n(done, exc_mode):
        _render_tradeoff(done)


def _render_accuracy(done: dict, n_trials: int) -> bool:
    """Accuracy, agreement and excess against ε and the bound's tightness; ``False`` while not finished."""
    got = P.latest(done, "accuracy")
    if got is None:
        return False
    (_df, summ), stage = got
    if stage == "quick":
        st.caption(f"Quick first look: {fmt.integer(P.QUICK_TRIALS)} trials per point; refining to {n_trials}.")
    g1, g2 = st.columns(2)
    g1.plotly_chart(
        lmf.accuracy_figure(summ, chance=1.0 / task.n_classes, title="Test accuracy against ε"), key="lm_acc"
    )
    g2.plotly_chart(
        lmf.accuracy_figure(
            summ[summ["method"] != "nonprivate"],
            chance=None,
            y="agreement",
            title="Share of test predictions equal to the non-private fit",
            y_title="agreement with non-private",
        ),
        key="lm_agree",
    )
    st.caption(
        "P and P+ are not differentially private as printed. "
        + captions.leak_story(summ, lmg.MODE_LABELS, ("printed", "repaired"))
        + " P's points average only the draws whose objective was bounded. Bands: 95% intervals over the trials."
    )
    st.plotly_chart(
        lmf.excess_vs_epsilon_figure(summ, title="Empirical excess J(Φᵖ) − J(Φ*) against ε"), key="lm_excess_eps"
    )
    st.caption(
        "Dashed: the mean of the pathwise bound 2ρ²/(n²μ_eff), which holds for every single draw. "
        "Where the CMS split adds regularisation (Δ > 0, small ε) the slope changes; where ε is "
        "only just above the Jacobian term k, the split leaves almost nothing for the noise (ε_noise = ε − k) "
        "and the excess spikes (visible for P+ when ε is close to k_P)."
    )
    tight = lmg.bound_tightness(summ)
    widgets.table(
        [
            {
                "mode": lmg.MODE_LABELS[r["method"]],
                "ε": fmt.epsilon(r["epsilon"]),
                "measured mean excess": fmt.number(r["excess_mean"]),
                "mean pathwise bound": fmt.number(r["pathwise_bound_mean"]),
                "bound ÷ measured": f"{fmt.number(r['bound_over_measured'], sig=2)}×",
            }
            for _, r in tight.iterrows()
        ],
        key="lm_tightness_table",
    )
    st.caption(
        "Bound tightness: how far the pathwise bound sits above the measured excess. "
        + captions.tightness_story(tight, lmg.MODE_LABELS)
    )
    return True


def _render_excess_n(done: dict, exc_mode: str) -> bool:
    """Excess against n beside the three tiers of bounds (and the true-risk excess); ``False`` while not finished."""
    got = P.latest(done, "excess_n")
    if got is None:
        return False
    s_n, bnds = got[0]
    st.plotly_chart(
        lmf.excess_vs_n_figure(
            s_n,
            bnds,
            method=exc_mode,
            title=f"Empirical excess J(Φᵖ) − J(Φ*) against n ({lmg.MODE_LABELS[exc_mode]}, ε = {fmt.epsilon(eps)})",
        ),
        key="lm_excess_n",
    )
    st.caption(
        "Dashed: corrected bounds (Tier C) for the mechanism actually run; dash-dot: the paper's bounds "
        "in consistent units (Tier U, P+ only); dotted red: the printed Theorem 5.2 as printed (sum-form "
        "units, not a valid bound for this per-example quantity)."
    )
    if exc_mode != "printed":
        st.plotly_chart(
            lmf.test_loss_figure(
                s_n, bnds, method=exc_mode, title="True-risk excess: measured on the test set against the C5.3 bound"
            ),
            key="lm_test_loss",
        )
        st.caption(
            "C5.3 bounds L̃(Φᵖ) − L̃(Φ*), the excess of the expected loss, with probability ≥ 1 − 2δ; the right "
            "panel shows which term dominates at each n (E: the noise, S: Sridharan's sample term scaled by "
            "G² — a heuristic multiclass adaptation; B uses ‖Φ*‖_F of the non-private fit at each n)."
        )
    return True


def _render_tradeoff(done: dict) -> None:
    """Accuracy and excess of R against μ and h."""
    st.subheader(f"Regularisation trade-off at ε = {fmt.epsilon(eps)} (R)")
    t1, t2 = st.columns(2)
    got_mu, got_h = P.latest(done, "mu"), P.latest(done, "h")
    if got_mu is None or got_h is None:
        return
    s_mu, s_h = got_mu[0], got_h[0]
    t1.plotly_chart(lmf.tradeoff_figure(s_mu, parameter="mu", title="against μ"), key="lm_trade_mu")
    t2.plotly_chart(lmf.tradeoff_figure(s_h, parameter="h", title="against h"), key="lm_trade_h")
    st.caption(
        "Larger μ shrinks the noise's effect (bounds ∝ 1/μ) but biases the fit towards small Φ; a wider "
        "Huber width h lowers the Hessian bound κ = C/(2h) (smaller Jacobian term, more budget for the "
        "noise) but smooths the hinge more."
    )


@fragment  # st.fragment inside the page's error boundary (ui.errors)
def _sweeps_section() -> None:
    """Section 4 (a fragment: its Run button reruns only this section, not the first screen)."""
    n_trials = int(min(trials, 200))
    st.caption(
        f"{fmt.integer(n_trials)} noise draws per point (the sidebar's Monte-Carlo trials, at most 200), all three "
        f"modes, ε ∈ {{{', '.join(fmt.epsilon(e) for e in EPS_GRID)}}}; trial t uses the same seed at every ε."
    )
    lm_pressed = st.button("▶ Run the Monte-Carlo sweeps", key="lm_run")
    if lm_pressed:
        st.session_state["lm_ran"] = True
    if st.session_state.get("lm_ran"):
        try:
            base = replace(config, mode="corrected", psd=psd == "on")  # the sweeps run every mode from it
            ns = P.n_grid(task.n, task.n_classes)
            blocks = P.sweep_blocks(
                task,
                base,
                epsilons=EPS_GRID,
                modes=MODES,
                exc_mode=mode,
                ns=ns,
                delta=float(bdelta),
                mu_grid=MU_GRID,
                h_grid=H_GRID,
                n_trials=n_trials,
                seed=int(seed),
                quick=background.in_server(),
            )
            job_key = repr((dp_core.__version__, tkey, fp, base, ns, float(bdelta), n_trials, int(seed)))
            background.start("lm_sweeps", job_key, blocks, private=scoped.session_uses_upload(), restart=lm_pressed)
        except (ValueError, TypeError) as exc:
            widgets.show_error(exc)
            st.session_state["lm_ran"] = False
    if st.session_state.get("lm_ran"):
        background.live_section(
            "lm_sweeps",
            functools.partial(_render_sweeps, n_trials=n_trials, exc_mode=mode),
            label="Running the Monte-Carlo sweeps",
        )
    else:
        st.info("Press the button to run the sweeps (they take a few seconds to a minute; results are cached).")


with expert_section(
    "4 · Accuracy against ε, excess risk against ε and n, regularisation (measured)", key="lm_sec_sweeps"
) as _open:
    if _open:
        _sweeps_section()

with expert_section("5 · Bounds in three tiers and the noise norm", key="lm_sec_bounds") as _open:
    if _open:
        tab = P.bounds_table(acc, float(bdelta), draw["phi_star_norm"])
        if mode == "printed":
            st.warning(
                "The printed mode has no valid bound: its objective is not strongly convex (and usually has no "
                "minimiser). Only the paper's printed values are shown.",
                icon="⚠️",
            )
        widgets.table(tab, sig=4, key="lm_bounds_table")
        st.caption(
            f"‖Φ*‖_F = {n4(draw['phi_star_norm'])} (from the non-private fit) enters term B. This draw: "
            f"J(Φᵖ) − J(Φ*) = {n4(draw['excess'])}, pathwise bound 2ρ²/(n²μ_eff) = "
            f"{n4(draw['pathwise_bound'])}."
        )
        norms = P.noise_samples(acc["noise_dim"], acc["beta"], 2000, int(seed))
        rad = P.radii(acc["noise_dim"], acc["beta"], float(bdelta), task.d, acc["eps_noise"], acc["shared_noise"])
        st.plotly_chart(
            lmf.noise_norm_figure(
                norms,
                dim=acc["noise_dim"],
                beta=acc["beta"],
                radii=rad,
                method=mode,
                title="Sampled noise norms ‖N‖ with the exact density and the radii at δ",
            ),
            key="lm_noise",
        )

share.page_share("pages/large_margin_gaussian.py", key="lm_share", dataset=ds)  # its own classes
