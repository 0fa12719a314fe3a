"""Label-DP by aggregation (Brahmbhatt et al.): random weighted bags of size k, m bags, noisy fraction ρ."""

import streamlit as st

import dp_core
from dp_core import captions, fit_checks
from dp_core import display as fmt
from dp_core.audit.table import STATUS_CLAIMED
from dp_core.experiments import summarize
from dp_core.figures import label_of
from dp_core.mechanisms import label_dp_bags as lb
from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.mechanisms.label_dp_bags import figures as lbf
from dp_core.mechanisms.label_dp_bags import screen as lb_screen
from dp_core.mechanisms.label_dp_bags.settings import K_DEFAULT, K_FALLBACK, K_MAX, M_DEFAULT, M_FALLBACK, M_MAX
from dp_core.plugin import latest
from dp_core.text import escape_markdown
from ui import background, share, state, widgets
from ui import cached_scope as scoped
from ui.cached import plan
from ui.first_screen import expert_section, status_badge, tip
from ui.risk_panel import risk_panel
from ui.shell import draw_screen

P = plan("label-dp-bags")
st.title("🎒 Label-DP by aggregation")

eps, delta, seed, trials = widgets.sidebar_controls()
ds = widgets.current_dataset()
widgets.dataset_badge(ds)

#: The two private variants, in plain words (the paper's names are given in the expert section).
VARIANTS = {"noisy-wtd-llp": "Public weights, some labels made noisy", "wtd-lba": "Secret weights"}
PAPER_NAMES = {"noisy-wtd-llp": "noisy-wtd-LLP", "wtd-lba": "wtd-LBA"}

# Defaults inside the guarantee (issues 13 and 23): unless the link or the visitor chose k and m, start from the
# Compare page's rule ("auto", k = m = 0: the fewest bags for a useful fit, each as large as the rows allow) at
# the sidebar's δ, for this many training rows (same 80 % split as the preparation below).
n_train = ds.n - int(round(0.2 * ds.n))
_rho_now = float(state.peek("rho"))
# the rule's k and m do not depend on δ (its ε does): below the smallest δ its search takes, it runs at that δ
# for k and m only, and the page accounts ε at the sidebar's δ itself
_delta_rule = max(float(delta), lb.defaults.TARGET_DELTA_MIN)
auto = P.auto_bags(n_train, ds.d + 1, _delta_rule, _rho_now) if _rho_now > 0 else None
auto_said = (
    None
    if auto is None
    else auto.message
    if auto.delta == float(delta)
    else f"k = {fmt.integer(auto.k)}, m = {fmt.integer(auto.m)} from the data size (the fewest bags for a useful fit, "
    "each as large as the rows allow)."
)
# the widgets' range: a very large upload's rule may ask for bags larger than the widget allows
auto_km = None if auto is None or auto.k < 2 else (min(auto.k, K_MAX), auto.m)
_auto_key = (ds.fingerprint, float(delta), _rho_now)
_auto = st.session_state.get("lb_auto_km")


def _use_suggestion(kk: int, mm: int) -> None:
    state.set_widget("k", int(kk))
    state.set_widget("m", int(mm))


_km_now = (int(state.peek("k")), int(state.peek("m")))
# k = 0 or m = 0 is "auto" (the Compare page's default, also in links): this page applies the same rule
_is_auto = 0 in _km_now
_untouched = _is_auto or _km_now == (K_DEFAULT, M_DEFAULT) or (_auto is not None and _km_now == _auto[1])
if (
    auto_km is not None
    and _untouched
    and (_is_auto or (not state.url_gave("k", "m") and (_auto is None or _auto[0] != _auto_key)))
):
    _use_suggestion(*auto_km)
    st.session_state["lb_auto_km"] = (_auto_key, auto_km)
elif _is_auto:  # not even bags of 2 fit these rows: the page's fixed setting, whose infeasibility it explains
    _use_suggestion(K_FALLBACK, M_FALLBACK)


# ------------------------------------------------------------------ the first screen's settings
screen = st.container()  # who is protected and the key numbers, filled once every setting is read
c1, c2, c3, c4 = st.columns([1, 1, 1, 2])
k = state.widget("k", control="number", label="Bag size k", lo=2, hi=K_MAX, container=c1, help=tip("k"))
m = state.widget("m", control="number", label="Number of bags m", lo=1, hi=M_MAX, container=c2, help=tip("m"))
rho = state.widget(
    "rho", control="number", label="Noisy fraction ρ", step=0.01, container=c3, help=tip("ρ"), format_func="%.4g"
)
variant = state.widget(
    "lb_variant",
    control="radio",
    label="Variant",
    container=c4,
    format_func=VARIANTS.get,
    help="Public weights: the bag weights are released and a share ρ of the labels gets noise first "
    "(noisy-wtd-LLP). Secret weights: no label noise, the weights stay secret (wtd-LBA).",
)
chart_box = st.container()  # the first screen's chart, under the settings

# a regression on bag sums treats class codes as numbers: refuse several classes, name what a binary target means
codes = fit_checks.classification_target(ds.y, task=ds.task, name=f"“{escape_markdown(ds.target_name)}”")
if codes is not None and ds.n_classes != 2 and len(set(ds.y.tolist())) > 2:
    with screen:
        st.error(
            f"{codes} Label-DP by aggregation fits a linear regression on bag sums of the labels, so it would "
            "treat the codes as amounts (a larger code as a larger amount): it does not fit these data. Pick a "
            "regression dataset on Home, or the large-margin Gaussian classifier for classes.",
            icon="🚫",
        )
    st.stop()

# ------------------------------------------------------------------ expert settings (read before the numbers)
with expert_section("Settings for experts: label noise and label range"):
    e1, e2 = st.columns([1, 2])
    noise_std = state.widget(
        "lb_noise_std",
        control="number",
        container=e1,
        step=0.05,
        help="Noise N(0, s²) on the noisy labels; the guarantee behaves as with a label bound B1/s.",
    )
    known = lb.public_label_range(ds)
    if st.session_state.get("lb_range_fp", ds.fingerprint) != ds.fingerprint:
        # another dataset: its own label range and data promise, never the previous dataset's
        y_lo0, y_hi0 = (known[0], known[1]) if known else (float(ds.y.min()), float(ds.y.max()))
        state.set_widget("lb_public", known is not None)
        state.set_widget("lb_lo", float(y_lo0))
        state.set_widget("lb_hi", float(y_hi0) if y_hi0 > y_lo0 else float(y_lo0) + 1.0)
        state.forget_widget("lb_gamma", url=True)
    st.session_state["lb_range_fp"] = ds.fingerprint
    public = state.widget(
        "lb_public",
        control="toggle",
        label="Declare a public label range (recommended)",
        default=known is not None,
        container=e2,
        help="The labels are clipped to this range and mapped to [−1, 1] (B1 = 1). Reading the range "
        "off the data leaks information about the private labels.",
    )
    label_range = None
    if public:
        y_lo, y_hi = (known[0], known[1]) if known else (float(ds.y.min()), float(ds.y.max()))
        if known:
            st.caption(f"Public label range of {escape_markdown(ds.name)}: {escape_markdown(known[2])}.")
        c6, c7 = st.columns(2)
        lim = 1e12
        y_lo = min(max(y_lo, -lim), lim)
        y_hi = min(max(y_hi if y_hi > y_lo else y_lo + 1.0, -lim), lim)
        lo_v = state.widget("lb_lo", control="number", default=y_lo, container=c6, format_func="%.4g")
        hi_v = state.widget("lb_hi", control="number", default=y_hi, container=c7, format_func="%.4g")
        label_range = (float(lo_v), float(hi_v))
B1 = 1.0
DKEY = (ds.name, ds.fingerprint, label_range, B1, int(seed))  # the cache key of the prepared data

try:
    data = P.prepared(*DKEY, ds)
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

for note in data.notes:  # what was read from the data is named on the first screen, above the chart
    (chart_box.warning if "leaks" in note else chart_box.caption)(escape_markdown(note))

if auto_km is not None:
    _same = (k, m) == auto_km
    chart_box.caption(
        (
            "Default from the data size, by the rule the Compare page uses, at the sidebar's δ: "
            if _same
            else "The Compare page's rule at the sidebar's δ: "
        )
        + (
            f"k = {fmt.integer(k)}, m = {fmt.integer(m)}, which proves no ε at this δ (why, and what would: above)."
            if _same and auto.epsilon is None  # the warning under the numbers already gives the rule's message
            else auto_said
        )
        + (f" (k capped at {fmt.integer(K_MAX)}, the largest this page runs)" if auto_km[0] != auto.k else "")
    )

if m * k > data.n:
    st.error(
        f"Not feasible: m·k = {fmt.integer(m * k)} examples are needed for {fmt.integer(m)} disjoint bags of "
        f"{fmt.integer(k)}, but the training part has only {fmt.integer(data.n)} rows. "
        + (
            f"The rule from the data size gives k = {fmt.integer(auto_km[0])}, m = {fmt.integer(auto_km[1])}."
            if auto_km is not None
            else f"Lower k or m (k ≤ n/m = {fmt.integer(data.n // m)})."
        ),
        icon="⚠️",
    )
    if auto_km is not None:
        st.button(
            f"Use the setting from the data size, k = {fmt.integer(auto_km[0])}, m = {fmt.integer(auto_km[1])}",
            on_click=_use_suggestion,
            args=auto_km,
            key="lb_fix",
        )
    st.stop()


def _conditions() -> dict:
    """The wtd-LBA data constants of these data (rank, γ̂, λ*; cached per dataset), with this (k, m)'s warnings.

    Read only where they are used (the secret-weights variant, its data-conditions section, the sweeps'
    prediction), so the first screen of the public-weights variant never computes them.
    """
    c = P.data_constants(*DKEY, data)
    return {**c, "warnings": c["warnings"] + lb.bag_warnings(c["n"], c["rank"], k=k, m=m)}


cond = _conditions() if variant == "wtd-lba" else None
lba_params = None
if variant == "wtd-lba":
    lba_params = {"d": cond["rank"], "b2": cond["b2"], "lam": cond["lam_star"]}
    with expert_section("wtd-LBA: the data promise behind its accounting", expanded=False):
        lba_params["gamma"] = float(
            state.widget(
                "lb_gamma",
                control="number",
                default=float(min(cond["gamma_default"], 1 / 3)),
                step=0.001,
                format_func="%.4g",
                help="The default is the neighbour-safe value computed from the data: a promise about the "
                "private labels, not a worst-case guarantee.",
            )
        )

try:
    lba = tuple(lba_params[x] for x in ("d", "b2", "gamma", "lam")) if variant == "wtd-lba" else (None,) * 4
    summary_args = (variant, eps, data.n, k, m, B1, rho, noise_std, *lba, delta)
    # the first screen needs only δ at this ε; the smallest k and ε for the sidebar's δ are computed in the
    # accounting section, when it is open
    summ = P.summary(*summary_args[:-1], None)
    no_noise = variant == "noisy-wtd-llp" and rho == 0
    eps_at = None  # the smallest ε proved at the sidebar's δ (noisy-wtd-LLP with ρ > 0 only)
    if variant == "noisy-wtd-llp" and not no_noise:
        # the rule's own accounting at its setting (same rows, noise s = 1, B1 = 1), else the same function here
        _rule = auto is not None and auto.delta == float(delta) and (k, m) == (auto.k, auto.m)
        _rule = _rule and float(noise_std) == 1.0 and B1 == 1.0
        eps_at = auto.epsilon if _rule else P.min_eps(delta, data.n, k, m, rho, B1, noise_std)
    # the baseline "noise on every label" runs at the bags' own proved ε when there is one: like with like
    eps_base = float(eps_at) if eps_at is not None else float(eps)
    utility_args = (label_range, B1, int(seed), variant, int(k), int(m), float(rho), float(noise_std), int(seed))
    utility_args += (eps_base, float(delta))
    util = P.first_utility(ds.name, ds.fingerprint, *utility_args, data)
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

# ------------------------------------------------------------------ the first screen
setting = lb_screen.Setting(
    variant, int(k), int(m), float(rho), float(noise_std), float(eps), float(delta), ds.n, eps_at, summ
)
own_rule = auto is not None and (k, m) == auto_km and auto.delta == float(delta)
with screen:
    draw_screen(
        lb_screen.first_screen(setting, util, data.y, codes=codes, auto_message=auto.message if own_rule else None),
        key="lb_screen",
    )
with chart_box:
    if no_noise:
        st.error("ρ = 0 is weighted LLP without noise: **not label-DP at all** — δ ≥ m·k/n for every ε.", icon="⛔")
    useless = lb_screen.usefulness_warning(setting, util, data.d, data.n)
    if useless:
        st.warning(useless, icon="📉")

with chart_box:
    bars = lb.METHOD_KEYS["weighted-llp" if no_noise else variant]  # ρ = 0: weighted LLP without noise
    st.plotly_chart(P.first_fig(ds.name, ds.fingerprint, utility_args, bars, util), key="lb_first")
    st.caption(
        f"Squared error on held-out rows ({fmt.integer(util['n_trials'])} runs; bar: 95 % interval). "
        f"“With bags”: {VARIANTS[variant].lower()}; “Noise on every label”: Gaussian noise on each training label "
        + (
            f"at the bags' own ε = {fmt.epsilon(eps_base)} and δ = {fmt.delta(delta)}."
            if eps_at is not None
            else f"at the sidebar's ε = {fmt.epsilon(eps_base)} and δ = {fmt.delta(delta)}."
        )
    )

# ------------------------------------------------------------------ expert sections
if variant == "noisy-wtd-llp":  # the variant with an exact accounting
    risk_panel(
        "label-dp-bags",
        n=int(data.n),
        k=int(k),
        m=int(m),
        rho=float(rho),
        noise_std=float(noise_std),
        b1=B1,
        delta=float(delta),
    )
with expert_section("Privacy accounting: as claimed by the paper, corrected, exact", key="lb_x_accounting") as shown:
    if shown:
        try:
            summ = P.summary(*summary_args)  # with the smallest k and ε for the sidebar's δ
        except ValueError as exc:
            widgets.show_error(exc)
            st.stop()
        widgets.audit_link("label-dp-bags", "naive-llp")
        st.subheader(f"{PAPER_NAMES[variant]} at k = {fmt.integer(k)}, m = {fmt.integer(m)}, ε = {fmt.epsilon(eps)}")
        a1, a2, a3, a4 = st.columns(4)
        for col, label, d_ in (
            (a1, "δ as claimed by the paper", summ["delta_paper"]),
            (a2, "δ corrected (explicit)", summ["delta_explicit"]),
        ):
            vacuous = d_ >= 1
            col.metric(
                label,
                "≥ 1" if vacuous else fmt.delta(d_, sig=3),
                delta="vacuous: no guarantee" if vacuous else None,
                delta_color="off",
            )
        if "delta_exact" in summ:
            a3.metric("δ exact (beyond the paper)", fmt.delta(summ["delta_exact"], sig=3))
        a4.metric("Naive LBA/LLP: δ at least", fmt.delta(summ["naive_lower_bound"], sig=3))
        st.markdown(f"**As claimed by the paper:** {summ['statement_paper'].split(': ', 1)[1]}")
        status_badge("label-dp-bags", "noisy-wtd-llp-paper" if variant == "noisy-wtd-llp" else variant)
        st.markdown(f"**Corrected:** {summ['statement_explicit'].split(': ', 1)[1]}")
        if "statement_exact" in summ:
            st.info(
                f"**Exact, beyond the paper:** the true privacy profile of noisy-wtd-LLP, computed by quadrature over "
                f"the public bags and weights: δ({fmt.epsilon(eps)}) = {fmt.delta(summ['delta_exact'], sig=3)}. No ε "
                f"brings it below the floor (m·k/n)·P[no noisy bag-mate] = {fmt.delta(summ['delta_floor'], sig=3)}.",
                icon="🧮",
            )
        st.warning(
            "Naive LBA / naive LLP and weighted LLP without noise are **not label-DP**: a changed label lands in a bag "
            f"with probability m·k/n = {fmt.delta(summ['naive_lower_bound'], sig=3)}, and then its bag's sum moves "
            "deterministically. So δ ≥ m·k/n for every ε.",
            icon="⛔",
        )
        st.markdown(
            f"**Which failure term dominates?** As claimed by the paper: *{summ['paper_dominant']}*; corrected: "
            f"*{summ['explicit_dominant']}*. Any term ≥ 1 makes the bound vacuous."
        )
        st.plotly_chart(P.terms_fig(summary_args, summ), key="lb_terms")

        if not no_noise:
            st.markdown(f"**Smallest bag size k for δ ≤ {fmt.delta(delta)}** (sidebar δ), next to what the data allow:")
            params = (
                (("rho", rho), ("b1", B1), ("noise_std", noise_std))
                if variant == "noisy-wtd-llp"
                else tuple((key, lba_params[key]) for key in ("d", "b2", "gamma", "lam")) + (("b1", B1),)
            )
            _kmin = P.min_k_table(variant, (0.5, 1.0, 2.0, 4.0, float(eps)), delta, data.n, m, params)
            widgets.table(_kmin, key="lb_kmin", headers={c: c.replace("k_min", "smallest k") for c in _kmin.columns})
            e_p, e_c = (summ.get(f"eps_min_{x}") for x in ("paper", "explicit"))
            none = "none (the tail terms alone exceed it)"
            st.caption(
                f"Smallest ε with δ ≤ {fmt.delta(delta)} at k = {fmt.integer(k)}: as claimed by the paper "
                + (none if e_p is None else fmt.epsilon(e_p))
                + "; corrected "
                + (none if e_c is None else fmt.epsilon(e_c))
                + "."
            )
        if summ.get("k_min_explicit") is not None and summ["k_min_explicit"] > data.n // m:
            st.caption(
                f"At ε = {fmt.epsilon(eps)} the corrected bound needs k ≥ {fmt.integer(summ['k_min_explicit'])}, "
                f"about {fmt.number(summ['k_min_explicit'] / max(1, data.n // m), sig=2)} times the largest "
                f"feasible k = {fmt.integer(data.n // m)}. "
                "The paper itself says such bag sizes are unrealistic."
            )
        if variant == "noisy-wtd-llp" and rho > 0:
            st.markdown(
                f"**ε–δ profile at k = {fmt.integer(k)}** (exact curve, and both explicit bounds where they are "
                "below 1):"
            )
            st.plotly_chart(
                P.eps_profile_fig(
                    data.n, k, m, rho, B1, noise_std, delta, P.eps_profile(data.n, k, m, rho, B1, noise_std)
                ),
                key="lb_profile",
            )
            e_min = summ.get("eps_min_exact")
            st.caption(
                f"Smallest ε with exact δ ≤ {fmt.delta(delta)}: "
                + (
                    f"{fmt.epsilon(e_min)}."
                    if e_min is not None
                    else "none — the floor is above the target; larger k or ρ is needed."
                )
            )

with expert_section("δ against the bag size k", key="lb_x_delta_k") as shown:
    if shown:
        st.markdown(
            "δ as a function of the bag size for several ε. Dotted: **as claimed by the paper**; dashed: "
            "**corrected**; solid with markers: **exact** (noisy-wtd-LLP, feasible k only). The red band is "
            "vacuous (δ ≥ 1: no guarantee); the green band is what your data allow (k ≤ n/m)."
        )
        if no_noise:
            st.info("ρ = 0: there is no guarantee to plot (δ ≥ m·k/n). Set ρ > 0.")
        else:
            args = (variant, (0.5, 1.0, 2.0, 4.0), m, data.n, B1, max(rho, 1e-9), noise_std, *lba)
            table = P.delta_k(*args)
            st.plotly_chart(P.delta_k_fig(args, data.n, m, k, delta, table), key="lb_delta_k")
            st.caption(
                captions.delta_k_story(
                    table, n=data.n, m=m, target_delta=delta, labels={"paper": STATUS_CLAIMED, "corrected": "corrected"}
                )
            )

if variant == "wtd-lba":
    with expert_section("wtd-LBA: data conditions (computed from the private labels)", key="lb_x_conditions") as shown:
        if shown:
            st.warning(
                "γ̂, γ and λ* depend on the private labels. The wtd-LBA theorem is a guarantee *conditional* on a "
                "promise about the data, not worst-case label-DP. Treat these numbers as diagnostics.",
                icon="🔓",
            )
            d1, d2, d3, d4 = st.columns(4)
            d1.metric("rank d'", fmt.integer(cond["rank"]))
            d2.metric("γ̂ = opt/n", fmt.number(cond["gamma_hat"], sig=4))
            d3.metric("neighbour-safe γ", fmt.number(cond["gamma"], sig=4, missing="none"))
            d4.metric("λ* (min non-zero eigenvalue)", fmt.number(cond["lam_star"]))
            for w in cond["warnings"]:
                st.warning(w)
            rss = P.residuals(*DKEY, k, m, data)
            st.plotly_chart(lbf.residual_figure(rss, k=k, gamma=lba_params["gamma"]), key="lb_rss")
            ns = lb.conditional_noise_summary(rss, k=k, b1=B1, gamma=lba_params["gamma"], rank=cond["rank"])
            st.caption(
                f"Each bag's released label sum carries conditional noise of std √RSS_bag (median "
                f"{fmt.number(ns['median_noise_std'])}) against a label change of up to 2·B1 = 2. "
                + (
                    f"{fmt.percent(ns['fraction_below_threshold'], sig=2)} of bags fall below γ/4."
                    if "fraction_below_threshold" in ns
                    else ""
                )
            )


def _start_sweeps(restart: bool) -> None:
    """Start (or reuse) the background job of the utility sweeps against k and m at this setting."""
    ks = lbf.k_grid(data.n, m, k)
    ms = lbf.m_grid(data.n, k, m, data.d)
    points = tuple(tuple(sorted({"k": kk, "m": m, "rho": rho, "axis": "k"}.items())) for kk in ks) + tuple(
        tuple(sorted({"k": k, "m": mm, "rho": rho, "axis": "m"}.items())) for mm in ms
    )
    settings = (int(trials), int(seed), float(eps), float(delta), float(noise_std))
    kw = dict(zip(("n_trials", "seed", "eps", "delta", "noise_std"), settings))
    blocks = P.sweep_blocks(data, points, **kw, quick=background.in_server())
    job_key = repr((dp_core.__version__, "lb", ds.fingerprint, label_range, points) + settings)
    background.start("lb_sweeps", job_key, blocks, private=scoped.session_uses_upload(), restart=restart)


def _render_sweeps(job) -> None:
    got = latest(job.finished())
    if got is None:
        return
    per_trial, stage = got
    if stage == "quick":
        st.caption(
            f"Quick first look: {fmt.integer(P.QUICK_TRIALS)} runs per point; refining to {fmt.integer(trials)}."
        )
    by_k, by_m = (
        summarize(per_trial[per_trial["axis"] == x], by=[x, "method"], values=["test_mse", "excess_risk", "ratio"])
        for x in ("k", "m")
    )
    titles = (f"against k (m = {fmt.integer(m)})", f"against m (k = {fmt.integer(k)})")
    for col, table, x, title in zip(st.columns(2), (by_k, by_m), ("k", "m"), titles):
        col.plotly_chart(lbf.utility_figure(table, x=x, y=metric, title=title), key=f"lb_util_{x}")
    st.markdown(
        "**Utility ratio val(D, r̂)/opt(D, F): measured against the random-design prediction** "
        "1 + d/(m − d − 1) (wtd-LBA) and 1 + (1 + ρs²/γ̂)·d/(m − d − 1) (noisy-wtd-LLP):"
    )
    ms = sorted(int(x) for x in by_m["m"].unique())
    pred = lbf.prediction_table(ms, d=data.d, rho=rho, gamma_hat=_conditions()["gamma_hat"], noise_std=noise_std)
    sel = by_m[by_m["method"].isin(["wtd_lba", "noisy_wtd_llp"]) & (by_m["m"] > data.d + 1)]
    st.plotly_chart(lbf.ratio_figure(sel, pred), key="lb_ratio")
    here = by_m[by_m["m"] == m]
    if not here.empty:
        row = here[here["method"] == "wtd_lba"]
        if not row.empty and m > data.d + 1:
            st.caption(
                f"At m = {fmt.integer(m)}: wtd-LBA measured ratio "
                f"{fmt.pm(row['ratio_mean'].iloc[0], 1.96 * row['ratio_se'].iloc[0], sig=4)} "
                f"({fmt.integer(row['n_trials'].iloc[0])} runs) vs predicted "
                f"{fmt.number(acc.predicted_ratio_lba(m, data.d), sig=4)}. "
                + captions.bags_needed_story(P.utility_requirement(*DKEY, k, data)["m_required_paper_c0"], m)
                + " Aggregation keeps labels noise-free but shrinks the sample from n to m."
            )
    _util = (
        here[["method", "test_mse_mean", "test_mse_se", "excess_risk_mean", "ratio_mean", "n_trials"]]
        if not here.empty
        else by_m
    )
    widgets.table(
        _util.assign(method=_util["method"].map(label_of)),
        key="lb_util_table",
        index=False,
        formats={"test_mse_se": lambda v: fmt.number(v, sig=2, scale=1.0), "n_trials": fmt.integer},
    )


with expert_section(
    "Utility against k and m, and the paper's utility statement", key="lb_x_utility", expanded=state.linked("lb_metric")
) as shown:
    if shown:
        st.markdown(
            f"Linear least squares fitted on each release, **{fmt.integer(trials)} runs** per point (fresh bags, "
            "weights and noise each run). The runs are for evaluation only: releasing many times would compose. "
            f"Baselines add Gaussian (analytic σ) or Laplace noise to all {fmt.integer(data.n)} training labels at the "
            "sidebar's (ε, δ)."
        )
        st.caption(
            "For a linear model naive LLP fits the same regression as naive LBA, and weighted LLP without noise the "
            "same as wtd-LBA (the learner can form Σ w·x itself), so those curves coincide."
        )
        metric = state.widget(
            "lb_metric",
            control="radio",
            label="Metric",
            format_func={"test_mse": "test MSE", "excess_risk": "excess risk"}.get,
        )
        pressed = st.button(
            "▶ Run the utility sweeps",
            key="lb_run",
            help="Monte-Carlo runs over a grid of k and of m, in the background.",
        )
        if pressed:
            st.session_state["lb_ran"] = True
        if st.session_state.get("lb_ran"):
            try:
                _start_sweeps(restart=pressed)
            except (ValueError, TypeError) as exc:
                widgets.show_error(exc)
            else:
                background.live_section("lb_sweeps", _render_sweeps, label="Running the utility sweeps")
        else:
            st.info(
                "Press the button to run the sweeps (a few seconds; quick results first, then refined). The first "
                "screen's numbers above are already measured.",
                icon="▶",
            )
        req = P.utility_requirement(*DKEY, k, data)
        st.caption(
            f"The paper's own utility statement for wtd-LBA (within a factor 3 of the best fit with probability 95 %, "
            f"θ = 0.5, B = B1 + B2·‖r*‖ = {fmt.number(req['B'])}) needs m ≥ "
            f"{fmt.integer(req['m_required_paper_c0'])} bags with the paper's constant c0 = 1/2, or m ≥ "
            f"{fmt.integer(req['m_required_valid_c0'])} with a valid c0 = 1/16; this data set allows at most "
            f"{fmt.integer(data.n // k)} bags of size {fmt.integer(k)}."
        )

with expert_section("How bags hide labels (a picture with twelve rows)", key="lb_x_bags") as shown:
    if shown:
        st.markdown(
            "Twelve labelled examples, three bags of four. Each member gets a random weight; in noisy-wtd-LLP some "
            "labels first get N(0, 1) noise. Only the bag totals below are released as label information."
        )
        ill, ill_fig = P.illustration(int(seed), max(rho, 0.25) if rho > 0 else 0.0)
        widgets.table(ill, key="lb_ill_table", index=False)
        st.plotly_chart(ill_fig, key="lb_ill_fig")
        st.caption(
            "Change one label: the plain sum moves by exactly that change (a certain giveaway). The weighted sum "
            "moves by weight × change, and the weight is secret (wtd-LBA) or drowned by the noise of the noisy "
            f"bag-mates (noisy-wtd-LLP). Training rows n = {fmt.integer(data.n)} (80 %), test rows "
            f"{fmt.integer(len(data.y_test))}; d = {fmt.integer(data.d)} features including the constant; labels "
            f"mapped to [−1, 1]; ‖x‖ ≤ B2 = {fmt.number(data.b2)} (features are public, so normalizing them costs no "
            "label privacy)."
        )

share.page_share("pages/label_dp_bags.py", key="lb_share")
