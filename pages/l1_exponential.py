"""Heavy-tailed l1 regression (Wang & Xu): the exponential mechanism with residual truncation.
See docs/l1_exponential.md §"The page (module)"."""

import math

import streamlit as st

from dp_core import display as fmt
from dp_core import fit_checks
from dp_core.mechanisms.l1_exponential import DESIGNS, NOISES, bounds
from dp_core.mechanisms.l1_exponential import figures as lf
from dp_core.mechanisms.l1_exponential import screen as l1_screen
from dp_core.mechanisms.l1_exponential import simulation as sim
from dp_core.mechanisms.l1_exponential.mcmc import APPROXIMATE_LABEL, MCMCSchedule
from dp_core.mechanisms.l1_exponential.mechanism import L1ExponentialRegression
from dp_core.mechanisms.l1_exponential.population import HeavyTailedModel
from dp_core.mechanisms.l1_exponential.scaling import public_scaling
from dp_core.mechanisms.l1_exponential.truncation import CONVENTION_LABELS, CONVENTIONS
from dp_core.text import escape_markdown
from ui import background, share, state, widgets
from ui import cached_scope as scoped
from ui.cached import plan
from ui.errors import fragment
from ui.first_screen import expert_section, tip
from ui.risk_panel import risk_panel
from ui.shell import draw_screen

P = plan("l1-exponential")

MECH = "l1-exponential"
NOISE_NAMES = {
    "student_t": "N2 Student-t (symmetric)",
    "pareto_skewed": "N3 skewed Pareto (median 0)",
    "gaussian": "N1 Gaussian",
    "laplace": "N4 Laplace",
}
DESIGN_NAMES = {
    "pareto_sphere": "X3 Pareto radius × direction",
    "pareto_abs": "X4 Pareto radius × |direction|",
    "student_t": "X2 Student-t coordinates",
    "gaussian": "X1 Gaussian (light tails)",
    "lognormal_sphere": "X5 log-normal radius",
}
SCALE_NAMES = {"public": "public scales", "sample": "sample's own", "raw": "raw"}
CONV_NAMES = {"tight": "tight (default)", "paper_proof": "paper proof", "paper_box": "paper box (as printed)"}
EXPERIMENT_NAMES = {
    "rates": "Error against n",
    "epsilon": "Error against ε",
    "truncation": "Truncation trade-off",
    "baselines": "Heavy tails against clipping",
}
FIG_KEYS = {"rates": "l1_rates_fig", "epsilon": "l1_eps_fig", "truncation": "l1_trunc_fig", "baselines": "l1_base_fig"}
assert set(NOISE_NAMES) == set(NOISES) and set(DESIGN_NAMES) == set(DESIGNS)

st.title("🦎 Heavy-tailed ℓ1 regression")
st.markdown(
    "Median regression that stays reliable when some values are extreme, released with differential privacy: "
    "the coefficients are **drawn at random**, favouring those that fit the data well, instead of being "
    "computed and then blurred."
)

eps, delta, seed, trials = widgets.sidebar_controls()
ds = widgets.current_dataset()
widgets.dataset_badge(ds)
screen = st.container()  # the first screen, drawn once the settings below are known


def _steps(preset_name: str, d: int) -> str:
    a, n = MCMCSchedule.preset(preset_name).lengths(max(d, 1))
    return f"{fmt.integer(a)} + {fmt.integer(n)} steps"


# ------------------------------------------------------------------------------------------ settings
with st.expander("⚙️ Settings of the mechanism", expanded=False):
    names = list(ds.feature_names)
    feats = st.multiselect(
        "Features used (at most 3 keep the exact sampler)",
        names,
        default=names[: min(2, len(names))],
        key=f"l1_features_{ds.fingerprint[:12]}",
        help="The regression uses these columns; with more than 3 the approximate sampler (MCMC) is used.",
    )
    c1, c2, c3 = st.columns(3)
    theta = state.widget("l1_theta", container=c1, help=tip("θ"))
    c_iota = state.widget("l1_ci", container=c2, format_func=fmt.number, help=tip("ι*"))
    conv = state.widget(
        "l1_conv",
        control="radio",
        container=c3,
        format_func=CONV_NAMES.get,
        help="tight: exact ε-DP. paper proof: twice as cautious. paper box: the temperature printed in the "
        "paper, which is only 2ε-DP under replace-one (not a valid ε guarantee).",
    )
    c4, c5, c6, c7 = st.columns(4)
    radius = state.widget("l1_R", container=c4, help=tip("R"))
    scale = state.widget(
        "l1_scale",
        control="radio",
        container=c5,
        format_func=SCALE_NAMES.get,
        help="public: centred and scaled with public constants (the dataset's documented or declared ranges), "
        "costing no privacy; sample's own: with the training sample's statistics (depends on the private data, "
        "not covered by the guarantee); raw: the data as they are.",
    )
    n_rel = state.widget("l1_releases", container=c6, help="How many private releases are drawn and averaged.")
    mode = state.widget(
        "l1_mode",
        control="radio",
        container=c7,
        help="grid: the exact mechanism (d ≤ 3). mcmc: an approximate sampler (guarantee not proved). "
        "auto: grid when d ≤ 3.",
    )
    c8, c9, c10, c11 = st.columns(4)
    assumption = state.widget("l1_assumption", control="select", container=c8, help=tip("A3"))
    tau = state.widget("l1_tau", control="number", container=c9, step=0.1, help=tip("τ"))
    sigma = state.widget("l1_sigma", control="number", container=c10, step=0.1, help=tip("σ_θ"))
    eta_total = state.widget("l1_eta", container=c11, format_func=fmt.number, help=tip("η_total"))
    uses_mcmc = mode == "mcmc" or (mode == "auto" and len(feats) > 3)
    preset = "quick"
    if uses_mcmc:
        preset = state.widget(
            "l1_preset",
            control="radio",
            format_func=lambda p: f"{p} (at most {_steps(p, len(feats))})",
            help="Warm-up + sampling steps per chain. Sampling stops early once the convergence checks pass "
            "(R̂ and ESS), so the length is a maximum; longer runs converge more often.",
        )

# a regression of class codes treats them as amounts: refused on the first screen, in plain words
codes = fit_checks.classification_target(ds.y, task=ds.task, name=f"“{escape_markdown(ds.target_name)}”")
if codes is not None:
    with screen:
        st.error(
            f"{codes} Heavy-tailed ℓ1 regression predicts an amount, so it would treat the codes as amounts "
            "(a larger code as a larger amount) and score them by absolute error: it does not fit these data. Pick a "
            "regression dataset on Home, or the large-margin Gaussian classifier for classes.",
            icon="🚫",
        )
    st.stop()

if not math.isfinite(eps):
    st.warning("ε = ∞ means no privacy; the mechanism's samplers need a finite ε. Using ε = 10 on this page.")
    eps = 10.0


try:
    sampler = dict(theta=theta, radius=radius, convention=conv, c_iota=c_iota, mode=mode, mcmc_preset=preset)
    bound = dict(tau=tau, sigma_theta=sigma, assumption=assumption, eta_total=eta_total)
    est = L1ExponentialRegression(epsilon=eps, grid_budget=20_000_000, **sampler, **bound)
except ValueError as exc:
    with screen:
        widgets.show_error(exc)
    st.stop()

if not feats:
    with screen:
        st.warning("Select at least one feature in the settings below.")
    st.stop()

idx = tuple(names.index(f) for f in feats)
standardise = scale == "sample"
scaling = public_scaling(ds, idx) if scale == "public" else None
try:
    an = P.analysis(ds.name, ds.fingerprint, est, idx, standardise, int(n_rel), int(seed), ds, scaling=scaling)
except ValueError as exc:
    with screen:
        widgets.show_error(exc)
        st.info(
            "The mechanism needs at least 10 rows with finite values in the chosen columns. Pick other "
            "features, or a dataset with more rows.",
            icon="ℹ️",
        )
    st.stop()

cal = an.result.calibration
mcmc = an.result.mcmc
with screen:
    draw_screen(
        l1_screen.first_screen(
            an, eps=eps, radius=radius, conv=conv, n_rel=n_rel, feats=feats, names=names, scale=scale, scaling=scaling
        ),
        key="l1_releases_fig",
    )


# ------------------------------------------------------------------------------------------ expert sections
def _run_section(name: str, label: str, make_job, render, *, running: str) -> None:
    """One Run button; once pressed, the section's job follows the settings in the background.
    See docs/l1_exponential.md §"The page: _run_section"."""
    pressed = st.button(label, key=f"{name}_btn")
    if pressed:
        st.session_state[f"{name}_on"] = True
    if not st.session_state.get(f"{name}_on"):
        return
    try:
        key, blocks = make_job()
        background.start(name, key, blocks, private=scoped.session_uses_upload(), restart=pressed)
    except (ValueError, TypeError) as exc:
        widgets.show_error(exc)
        return
    background.live_section(name, lambda job: render(job.finished()), label=running)


def _sampler_status(diag: dict, advice: bool = True) -> None:
    """The MCMC release's status: a red 'not proved' box, or how well it converged (never 'proved')."""
    if diag["status"] == "not_converged":
        what = " What to do: choose a longer MCMC length (fast or spec), select fewer features, or select at most 3 "
        what += "features to use the exact grid sampler (exactly ε-DP)."
        st.error(
            "**Not proved: the sampler did not converge.** These releases are not samples of the ε-DP "
            "distribution and carry no privacy guarantee." + (what if advice else ""),
            icon="⛔",
        )
    else:
        st.warning(
            "**Approximate sampler, converged by its diagnostics.** The ε-DP guarantee is that of the "
            "exact target distribution; these draws carry it only to the extent that the chains reached "
            "that distribution, which the diagnostics below support but cannot prove.",
            icon="⚠️",
        )
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(
        "split-R̂ (max)",
        fmt.number(diag["rhat_max"], sig=4, inf="∞ (stuck)"),
        help=f"{diag['rhat_kind']}, over the log target and every coordinate. Converged when ≤ "
        f"{fmt.number(diag['rhat_threshold'])}.",
    )
    c2.metric(
        "Smallest bulk ESS",
        fmt.integer(diag["ess_min"]),
        help=f"{diag['ess_kind']}. Converged when ≥ {fmt.integer(diag['ess_threshold'])}.",
    )
    c3.metric("Acceptance (MALA)", fmt.number(diag["acceptance"], sig=2), help="MALA: 0.4 to 0.8 is healthy.")
    c4.metric(
        "Chains × steps",
        f"{fmt.integer(diag['n_chains'])} × {fmt.integer(diag['n_adapt'] + diag['n_sample'])}",
        help=f"{fmt.integer(diag['n_adapt'])} warm-up steps (step size and preconditioner adapted) and "
        f"{fmt.integer(diag['n_sample'])} sampling steps; {fmt.number(diag['wall_time'], sig=2)} s.",
    )
    label = APPROXIMATE_LABEL[0].upper() + APPROXIMATE_LABEL[1:]
    st.caption(
        f"MCMC diagnostics of this run ({diag['parametrisation']} kernel). {label}. "
        "The diagnostics are themselves computed from the private data and are shown for teaching; they are "
        "not covered by the guarantee."
    )


risk_panel("l1-exponential", eps=float(eps), theta=float(theta), conv=conv)
with expert_section(
    "How the coefficients are drawn: truncation, temperature and the guarantee", key="l1_x_how"
) as shown:
    if shown:
        st.markdown(
            "Instead of clipping the data, the mechanism replaces each absolute residual |r| by a *truncated* loss "
            "(1/ι)·ψ_θ(ι|r|) that stops growing at the **threshold 1/ι**. Every record then moves the summed cost "
            "S(w) by at most **log θ**, whatever its size, and the **exponential mechanism** samples w with "
            "probability ∝ exp(−κ·S(w)). Pure ε-DP: δ plays no role here (it is only used by the DP-GD baseline). "
            "Source: Di Wang and Jinhui Xu, *Differentially Private ℓ1-norm Linear Regression with Heavy-tailed Data*."
        )
        if conv == "paper_box":
            widgets.guarantee_badge("broken", CONVENTION_LABELS["paper_box"])
        elif cal["mode"] == "grid":
            widgets.guarantee_badge("corrected" if conv == "tight" else "claimed", cal["privacy_label"])
        if mcmc is not None:
            _sampler_status(mcmc)
        m1, m2, m3, m4, m5 = st.columns(5)
        m1.metric("Truncation scale ι", fmt.number(cal["iota"]), help=tip("ι"))
        m2.metric("Residual threshold 1/ι", fmt.number(cal["threshold"]), help=tip("1/ι"))
        m3.metric("Sensitivity of S: log θ", fmt.number(cal["cost_sensitivity"], sig=4), help=tip("θ"))
        m4.metric(
            "Score sensitivity Δu",
            fmt.number(cal["score_sensitivity"]),
            help=f"Exact log θ/(nι). The paper's 2 log θ/(nι) = "
            f"{fmt.number(cal['score_sensitivity_paper'])} is a valid bound, loose by 2×.",
        )
        m5.metric("Inverse temperature κ", fmt.number(cal["kappa"], sig=4), help=tip("κ"))
        grid = ""
        if cal["mode"] == "grid":
            grid = f" (grid {fmt.integer(cal['grid_m'])} cells per axis, N = {fmt.integer(cal['net_size'])} points, "
            grid += f"ζ_G = {fmt.number(cal['zeta'])})"
        kappas = " / ".join(fmt.number(cal["kappas"][c], sig=4) for c in CONVENTIONS)
        st.caption(
            f"n = {fmt.integer(an.n_train)}; d = {fmt.integer(len(feats))}; sampler: **{cal['mode']}**{grid}; κ for "
            f"tight / paper proof / paper box = {kappas}; β = κnι = {fmt.number(cal['beta'], sig=4)}. "
            f"Paper's sensitivity 2·log θ/(nι) = {fmt.number(cal['score_sensitivity_paper'])} (loose by 2×)."
        )
        widgets.audit_link(MECH, conv)

with expert_section("Where the noise comes from: the output law and the residuals", key="l1_x_noise") as shown:
    if shown:
        for note in an.notes:
            (st.warning if "leaks" in note else st.caption)(escape_markdown(note))
        if an.density is not None:
            marks = {"LAD (non-private)": an.result.lad_w}
            if len(feats) == 1:
                probs = {c.replace("_", " "): an.density[c] for c in CONVENTIONS}
            else:
                probs = {conv.replace("_", " "): an.density[conv]}
            st.plotly_chart(lf.density_figure(an.density_points, probs, marks=marks), width="stretch", key="l1_density")
        else:
            st.caption("The exact output law is drawn for one or two features.")
        st.plotly_chart(lf.residual_histogram(an.residuals, cal["iota"]), width="stretch", key="l1_resid")

with expert_section("Against clipping baselines on this data (not from the paper)", key="l1_x_base") as shown:
    if shown:
        st.caption(
            "At equal ε: the paper's mechanism, the exponential mechanism on clipped data (B1) and DP gradient "
            f"descent with clipping (B2, (ε, δ = {fmt.delta(delta)})-DP), held-out MAE over the same releases."
        )

        def _render_data_baselines(results: dict) -> None:
            if "full" in results:
                widgets.table(
                    sim.summarize_releases(results["full"].result.table),
                    key="l1_release_summary",
                    formats={"releases": fmt.integer},
                    headers={"index": "method"},
                )

        _run_section(
            "l1_run_data_base",
            "Run the baselines on this data",
            lambda: P.data_baseline_blocks(
                ds, est, idx, standardise, int(n_rel), int(seed), float(delta), scaling=scaling
            ),
            _render_data_baselines,
            running="Running the baselines",
        )

with expert_section("The paper's error bound for this setting", key="l1_x_bound") as shown:
    if shown:
        b = cal["bound"]
        widgets.table(
            bounds.bound_terms_table(b),
            sig=4,
            key="l1_bound_terms",
            formats={"value": lambda v: fmt.number(v, sig=4, inf=fmt.UNBOUNDED)},
        )
        st.caption(
            f"{bounds.EXPLICIT_LABEL}; assumption {cal['bound_assumption']} with τ = {fmt.number(tau)}, "
            f"σ_θ = {fmt.number(sigma)}, η = η_total/5 = {fmt.number(cal['eta'])}. Paper rate "
            f"({bounds.RATE_LABEL}): {fmt.number(cal['rate_paper'], sig=4)}. ι* = "
            f"{fmt.number(cal['iota_star'], sig=4)}, paper's ι = {fmt.number(cal['iota_paper'], sig=4)}."
        )


@fragment  # st.fragment inside the page's error boundary (ui.errors)
def _truncation_picture(theta: float) -> None:
    iota_show = state.widget("l1_psi_iota", format_func=fmt.number, help=tip("ι"))
    fig = lf.psi_figure(sorted({1.2, 1.5, 2.0, float(theta)}), float(iota_show))
    st.plotly_chart(fig, width="stretch", key="l1_psi_fig")
    st.caption(
        "The loss grows like |r| for small residuals and is flat beyond 1/ι, so a single huge outlier "
        "cannot move the cost by more than log θ. For θ < 2 even small residuals are under-weighted. "
        "There is no clipping of the data: the only threshold is on residuals."
    )


with expert_section("The truncated loss ψ_θ", key="l1_x_psi") as shown:
    if shown:
        _truncation_picture(float(theta))

with expert_section("Norm against coordinate-wise moment assumptions", key="l1_x_assume") as shown:
    if shown:
        fig = lf.assumption_rates_figure(n=int(an.n_train), epsilon=eps, eta_total=eta_total, theta=theta)
        st.plotly_chart(fig, width="stretch", key="l1_assumption_fig")
        st.caption(
            f"n = {fmt.integer(an.n_train)}, ε = {fmt.epsilon(eps)}. A bound on every coordinate's moment (A2, A4) is "
            "weaker than a bound on the norm's moment (A1, A3), and the rate pays an extra √d (second moment) or "
            "d^(1/θ) factor; hidden constants set to 1 (rate only)."
        )


@fragment  # st.fragment inside the page's error boundary (ui.errors)
def _experiments(
    eps: float, delta: float, seed: int, theta: float, conv: str, c_iota: float, eta_total: float, assumption: str
) -> None:
    a, b, c, d_, e = st.columns(5)
    design = state.widget("l1_design", control="select", container=a, format_func=DESIGN_NAMES.get)
    tail = state.widget("l1_tail", container=b, format_func=fmt.number)
    noise_tail = state.widget("l1_noise_tail", container=c, format_func=fmt.number)
    sim_n = state.widget("l1_sim_n", container=d_, format_func=fmt.integer)
    sim_trials = state.widget("l1_sim_trials", container=e)
    f1, f2 = st.columns([1, 2])
    noise = state.widget("l1_noise", control="select", container=f1, format_func=NOISE_NAMES.get)
    which = state.widget("l1_exp", control="radio", container=f2, format_func=EXPERIMENT_NAMES.get)
    model = HeavyTailedModel(d=1, design=design, noise=noise, tail=float(tail), noise_tail=float(noise_tail))
    privacy = dict(epsilon=eps, theta=theta, convention=conv, c_iota=c_iota, eta_total=eta_total, assumption=assumption)
    sampler = dict(radius=1.0, mode="auto", grid_budget=2_000_000, mcmc_preset="quick", eval_size=5000, delta=delta)
    base = sim.SimulationConfig(model=model, n=int(sim_n), **privacy, **sampler)
    st.caption(
        "Our synthetic protocol (not from the paper, which has no experiments): d = 1, "
        "w₀ = 0.5, exact population risk (noise integrated in closed form), exact grid sampler. ι = c·ι* per n."
    )
    _run_section(
        "l1_run_exp",
        "Run the experiment",
        lambda: P.experiment_blocks(which, base, int(sim_trials), int(seed), quick=background.in_server()),
        lambda results: _render_experiment(which, results, theta, conv),
        running=f"Running: {EXPERIMENT_NAMES[which].lower()}",
    )


def _render_experiment(which: str, results: dict, theta: float, conv: str) -> None:
    got = P.latest(results)
    if got is None:
        return
    value, stage = got
    if stage == "quick":
        st.caption(f"Quick first look with {fmt.integer(P.QUICK_TRIALS)} trials per point; refining.")
    fig = lf.experiment_figure(which, value, theta=theta, convention=conv)
    st.plotly_chart(fig, width="stretch", key=FIG_KEYS[which])
    if which != "rates":
        return
    b1 = value[1]
    viol = b1[b1["assumption_violated"]]
    if len(viol):
        st.warning(
            "θ = " + ", ".join(fmt.number(v) for v in sorted(set(viol["theta"]))) + ": assumption "
            "violated for these tails (infinite moment): no utility guarantee; privacy is unaffected."
        )
    widgets.table(
        b1[["n", "theta", "iota", "total", "rate_paper"]],
        key="l1_rates_table",
        index=False,
        headers={"total": "explicit bound U(ι)", "rate_paper": "paper rate (constant 1)"},
        formats={"n": fmt.integer, "total": lambda v: fmt.number(v, inf=fmt.UNBOUNDED)},
    )
    st.caption("Dotted lines: reference slope −(θ−1)/θ anchored at the first point; the fitted slope is in the legend.")


with expert_section("Experiments on synthetic data", key="l1_x_exp") as shown:
    if shown:
        _experiments(
            float(eps), float(delta), int(seed), float(theta), conv, float(c_iota), float(eta_total), assumption
        )


@fragment  # st.fragment inside the page's error boundary (ui.errors)
def _sampler_check(eps: float, theta: float, seed: int) -> None:
    st.warning(f"**MCMC (Mode M):** {APPROXIMATE_LABEL}.", icon="⚠️")
    st.caption(
        "d = 2, n = 1000, ι = 0.05: the exact grid law (200 × 200 grid) against the final states of 200 MALA "
        "chains. The grid sampler is the paper's algorithm and is exactly ε-DP."
    )
    _run_section(
        "l1_run_sampler",
        "Run the sampler check",
        lambda: P.sampler_blocks(1000, eps, theta, 0.05, 200, seed),
        _render_sampler,
        running="Running the grid sampler and 200 chains",
    )


def _render_sampler(results: dict) -> None:
    if "full" not in results:
        return
    out = results["full"]
    d = out["diagnostics"]
    _sampler_status(d, advice=False)
    for j in range(2):
        fig = lf.sampler_figure(out["points"], out["probs"], out["draws"], coord=j, diagnostics=d)
        st.plotly_chart(fig, width="stretch", key=f"l1_sampler_{j}")


with expert_section("Sampler honesty: the approximate sampler against the exact one", key="l1_x_sampler") as shown:
    if shown:
        _sampler_check(float(eps), float(theta), int(seed))

share.page_share("pages/l1_exponential.py", key="l1_share")
