"""Label-DP by aggregation (Brahmbhatt et al.): random weighted bags of size k, m bags, noisy fraction ρ."""

import streamlit as st

from dp_core import display as fmt
from dp_core.experiments import summarize
from dp_core.figures import label_of
from dp_core.mechanisms import label_dp_bags as lb
from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.mechanisms.label_dp_bags import figures as lbf
from ui import badges, state, widgets
from ui import cached_label_dp_bags as cl
from ui.constants import K_DEFAULT, LB_NOISE_MAX, LB_NOISE_MIN, LB_RANGE_LIMIT, M_DEFAULT

st.title("🎒 Label-DP by aggregation")
widgets.audit_link("label-dp-bags", "naive-llp")
st.markdown(
    "Features are public, labels are private. Instead of adding noise to every label, the data are split into "
    "**m random bags of k examples** and only a **weighted sum of the labels of each bag** is released, with random "
    "N(0, 1) weights. *wtd-LBA* keeps the weights secret and also releases the weighted feature sums; "
    "*noisy-wtd-LLP* publishes the weights and adds N(0, 1) noise to a fraction **ρ** of the labels first. "
    "Source: Brahmbhatt, Saket, Havaldar, Nasery & Raghuveer, *Label Differential Privacy via Aggregation*."
)

eps, delta, seed, trials = widgets.sidebar_controls()
ds = widgets.current_dataset()
widgets.dataset_badge(ds)

VARIANTS = {
    "noisy-wtd-llp": "noisy-wtd-LLP (public weights, ρ-fraction of noisy labels)",
    "wtd-lba": "wtd-LBA (secret weights, needs a linear residual in the data)",
}
if "lb_variant" not in st.session_state:
    st.session_state["lb_variant"] = state.url_param("lb_variant", options=tuple(VARIANTS))
if "lb_range_public" not in st.session_state:
    st.session_state["lb_range_public"] = bool(state.url_param("lb_public"))


def _set_km(kk: int, mm: int) -> None:
    state.set_value("k", int(kk))
    state.set_value("m", int(mm))
    st.session_state["w_k"] = int(kk)
    st.session_state["w_m"] = int(mm)


# Defaults that fit the data (issue 13): unless the link or the visitor chose k and m, start from the
# suggested setting for this many training rows (same 80 % split as the preparation below).
n_train = ds.n - int(round(0.2 * ds.n))
_rho_now = float(state.get("rho"))
suggestion = cl.bag_suggestion(n_train, ds.d + 1, float(eps), _rho_now) if _rho_now > 0 else None
_auto_key = (ds.fingerprint, float(eps), float(state.get("rho")))
_auto = st.session_state.get("lb_auto_km")
_km_now = (int(state.get("k")), int(state.get("m")))
_untouched = _km_now == (K_DEFAULT, M_DEFAULT) or (_auto is not None and _km_now == _auto[1])
if (
    suggestion is not None
    and suggestion.k > 0
    and _untouched
    and not state.url_gave("k", "m")
    and (_auto is None or _auto[0] != _auto_key)
):
    _set_km(suggestion.k, suggestion.m)
    st.session_state["lb_auto_km"] = (_auto_key, (suggestion.k, suggestion.m))

with st.expander("⚙️ Mechanism settings", expanded=True):
    c1, c2, c3 = st.columns(3)
    k = widgets.shared_int(
        "k",
        "Bag size k",
        lo=2,
        container=c1,
        help="Number of examples per bag. Larger bags hide each label better but leave fewer bags.",
    )
    m = widgets.shared_int(
        "m",
        "Number of bags m",
        lo=1,
        container=c2,
        help="Bags are disjoint, so m·k must not exceed the number of training rows.",
    )
    rho = widgets.shared_float(
        "rho",
        "Noisy fraction ρ",
        container=c3,
        help="noisy-wtd-LLP adds N(0, 1) noise to this fraction of the labels before aggregating.",
    )
    if suggestion is not None:
        st.caption(
            ("Default from the data size. " if (k, m) == (suggestion.k, suggestion.m) else "Suggested for these data: ")
            + suggestion.message
        )
    c4, c5 = st.columns([2, 1])
    variant = c4.radio(
        "Mechanism for the privacy accounting",
        list(VARIANTS),
        format_func=VARIANTS.get,
        key="lb_variant",
        horizontal=False,
    )
    state.seed_widget("lb_noise_std", 1.0)
    noise_std = c5.number_input(
        "Label-noise std s",
        min_value=LB_NOISE_MIN,
        max_value=LB_NOISE_MAX,
        step=0.05,
        key="lb_noise_std",
        help="Noise N(0, s²); the guarantee behaves as with a label bound B1/s.",
    )
    public = st.checkbox(
        "Declare a public label range (recommended)",
        key="lb_range_public",
        help="The labels are clipped to this range and mapped to [−1, 1] (B1 = 1). Reading the range "
        "off the data leaks information about the private labels.",
    )
    label_range = None
    if public:
        y_lo, y_hi = float(ds.y.min()), float(ds.y.max())
        c6, c7 = st.columns(2)
        y_lo = min(max(y_lo, -LB_RANGE_LIMIT), LB_RANGE_LIMIT)
        y_hi = min(max(y_hi if y_hi > y_lo else y_lo + 1.0, -LB_RANGE_LIMIT), LB_RANGE_LIMIT)
        state.seed_widget("lb_lo", y_lo)
        state.seed_widget("lb_hi", y_hi)
        lo_v = c6.number_input(
            "Label range: lowest value", key="lb_lo", format="%.4g", min_value=-LB_RANGE_LIMIT, max_value=LB_RANGE_LIMIT
        )
        hi_v = c7.number_input(
            "Label range: highest value",
            key="lb_hi",
            format="%.4g",
            min_value=-LB_RANGE_LIMIT,
            max_value=LB_RANGE_LIMIT,
        )
        label_range = (float(state.keep_widget("lb_lo")), float(state.keep_widget("lb_hi")))

state.keep_widget("lb_noise_std")
state.sync_url(
    {
        "lb_variant": variant,
        "lb_public": int(public),
        "lb_noise_std": float(noise_std),
        **({"lb_lo": label_range[0], "lb_hi": label_range[1]} if label_range else {}),
    }
)
B1 = 1.0

try:
    data = cl.prepared(ds.name, ds.fingerprint, label_range, B1, int(seed), ds)
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

for note in data.notes:
    (st.warning if "leaks" in note else st.caption)(note)
st.caption(
    f"Training rows n = {fmt.integer(data.n)} (80 %), test rows {fmt.integer(len(data.y_test))}; "
    f"d = {fmt.integer(data.d)} features including the "
    f"constant; labels mapped to [−1, 1]; ‖x‖ ≤ B2 = {fmt.number(data.b2)} (features are public, so normalizing them "
    "costs no label privacy)."
)


if m * k > data.n:
    st.error(
        f"Not feasible: m·k = {fmt.integer(m * k)} examples are needed for {fmt.integer(m)} disjoint bags of "
        f"{fmt.integer(k)}, but the training part has only {fmt.integer(data.n)} rows. "
        + (suggestion.message if suggestion is not None else f"Lower k or m (k ≤ n/m = {fmt.integer(data.n // m)})."),
        icon="⚠️",
    )
    if suggestion is not None and suggestion.k > 0:
        st.button(
            f"Use the suggested setting k = {fmt.integer(suggestion.k)}, m = {fmt.integer(suggestion.m)}",
            on_click=_set_km,
            args=(suggestion.k, suggestion.m),
            key="lb_fix",
        )
    st.stop()

cond = cl.conditions(ds.name, ds.fingerprint, label_range, B1, int(seed), k, m, data)
lba_params = None
if variant == "wtd-lba":
    if "lb_gamma" not in st.session_state or st.session_state.get("lb_gamma_fp") != (ds.fingerprint, label_range):
        st.session_state["lb_gamma"] = float(min(cond["gamma_default"], 1 / 3))
        st.session_state["lb_gamma_fp"] = (ds.fingerprint, label_range)
    lba_params = {"d": cond["rank"], "b2": cond["b2"], "lam": cond["lam_star"]}

try:
    if variant == "wtd-lba":
        gamma = st.number_input(
            "γ used for the accounting (declared lower bound on the per-example linear residual)",
            min_value=1e-6,
            max_value=1 / 3,
            step=0.001,
            format="%.4g",
            key="lb_gamma",
            help="The default is the neighbour-safe value computed from the data: a promise about the "
            "private labels, not a worst-case guarantee.",
        )
        lba_params["gamma"] = float(gamma)
        summ = cl.summary(
            variant,
            eps,
            data.n,
            k,
            m,
            B1,
            rho,
            noise_std,
            lba_params["d"],
            lba_params["b2"],
            lba_params["gamma"],
            lba_params["lam"],
            delta,
        )
    else:
        summ = cl.summary(variant, eps, data.n, k, m, B1, rho, noise_std, None, None, None, None, delta)
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

tab_priv, tab_k, tab_util, tab_teach = st.tabs(
    ["Privacy at this setting", "δ against k", "Utility", "How bags hide labels"]
)

# ------------------------------------------------------------------ privacy at the current setting
with tab_priv:
    st.subheader(
        f"{VARIANTS[variant].split(' (')[0]} at k = {fmt.integer(k)}, m = {fmt.integer(m)}, ε = {fmt.epsilon(eps)}"
    )
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(
        "δ as claimed by the paper",
        fmt.delta(summ["delta_paper"], sig=3) if summ["delta_paper"] < 1 else "≥ 1",
        delta="vacuous: no guarantee" if summ["delta_paper"] >= 1 else None,
        delta_color="off",
    )
    c2.metric(
        "δ corrected (explicit)",
        fmt.delta(summ["delta_explicit"], sig=3) if summ["delta_explicit"] < 1 else "≥ 1",
        delta="vacuous: no guarantee" if summ["delta_explicit"] >= 1 else None,
        delta_color="off",
    )
    if "delta_exact" in summ:
        c3.metric("δ exact (beyond the paper)", fmt.delta(summ["delta_exact"], sig=3))
    c4.metric("Naive LBA/LLP: δ at least", fmt.delta(summ["naive_lower_bound"], sig=3))
    widgets.guarantee_badge("claimed", summ["statement_paper"].split(": ", 1)[1])
    badges.audit_badge("label-dp-bags", "noisy-wtd-llp-paper" if variant == "noisy-wtd-llp" else variant)
    widgets.guarantee_badge("corrected", summ["statement_explicit"].split(": ", 1)[1])
    if "statement_exact" in summ:
        st.info(
            f"**Exact, beyond the paper:** the true privacy profile of noisy-wtd-LLP, computed by quadrature over "
            f"the public bags and weights: δ({fmt.epsilon(eps)}) = {fmt.delta(summ['delta_exact'], sig=3)}. No ε "
            f"brings it below the floor (m·k/n)·P[no noisy bag-mate] = {fmt.delta(summ['delta_floor'], sig=3)}.",
            icon="🧮",
        )
    if variant == "noisy-wtd-llp" and rho == 0:
        st.error("ρ = 0 is weighted LLP without noise: **not label-DP at all** — δ ≥ m·k/n for every ε.", icon="⛔")
    st.warning(
        "Naive LBA / naive LLP and weighted LLP without noise are **not label-DP**: a changed label lands in a bag "
        "with "
        f"probability m·k/n = {fmt.delta(summ['naive_lower_bound'], sig=3)}, and then its bag's sum moves "
        "deterministically. "
        "So δ ≥ m·k/n for every ε.",
        icon="⛔",
    )

    terms = lbf.terms_table(summ)
    st.markdown(
        f"**Which failure term dominates?** As claimed by the paper: *{summ['paper_dominant']}*; corrected: "
        f"*{summ['explicit_dominant']}*. Any term ≥ 1 makes the bound vacuous."
    )
    st.plotly_chart(lbf.terms_figure(terms), key="lb_terms")

    if not (variant == "noisy-wtd-llp" and rho == 0):
        st.markdown(f"**Smallest bag size k for δ ≤ {fmt.delta(delta)}** (sidebar δ), next to what the data allow:")
        params = (
            (("rho", rho), ("b1", B1), ("noise_std", noise_std))
            if variant == "noisy-wtd-llp"
            else tuple((key, lba_params[key]) for key in ("d", "b2", "gamma", "lam")) + (("b1", B1),)
        )
        _kmin = cl.min_k_table(variant, (0.5, 1.0, 2.0, 4.0, float(eps)), delta, data.n, m, params)
        widgets.table(_kmin, key="lb_kmin", headers={c: c.replace("k_min", "smallest k") for c in _kmin.columns})
    if not (variant == "noisy-wtd-llp" and rho == 0):
        e_p, e_c = summ.get("eps_min_paper"), summ.get("eps_min_explicit")
        st.caption(
            f"Smallest ε with δ ≤ {fmt.delta(delta)} at k = {fmt.integer(k)}: as claimed by the paper "
            + ("none (the tail terms alone exceed it)" if e_p is None else fmt.epsilon(e_p))
            + "; corrected "
            + ("none (the tail terms alone exceed it)" if e_c is None else fmt.epsilon(e_c))
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
            f"**ε–δ profile at k = {fmt.integer(k)}** (exact curve, and both explicit bounds where they are below 1):"
        )
        prof = cl.eps_profile(data.n, k, m, rho, B1, noise_std)
        st.plotly_chart(lbf.eps_profile_figure(prof, target_delta=delta), key="lb_profile")
        e_min = summ.get("eps_min_exact")
        st.caption(
            f"Smallest ε with exact δ ≤ {fmt.delta(delta)}: "
            + (
                f"{fmt.epsilon(e_min)}."
                if e_min is not None
                else "none — the floor is above the target; larger k or ρ is needed."
            )
        )
    if variant == "wtd-lba":
        st.markdown("**Data conditions of wtd-LBA** (computed from the private labels):")
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
        rss = cl.residuals(ds.name, ds.fingerprint, label_range, B1, int(seed), k, m, data)
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

# ------------------------------------------------------------------ delta against k
with tab_k:
    st.markdown(
        "δ as a function of the bag size for several ε. Dotted: **as claimed by the paper**; dashed: "
        "**corrected**; solid with markers: **exact** (noisy-wtd-LLP, feasible k only). The red band is "
        "vacuous (δ ≥ 1: no guarantee); the green band is what your data allow (k ≤ n/m)."
    )
    if variant == "noisy-wtd-llp" and rho == 0:
        st.info("ρ = 0: there is no guarantee to plot (δ ≥ m·k/n). Set ρ > 0.")
    else:
        kw = dict(d=None, b2=None, gamma=None, lam=None) if variant == "noisy-wtd-llp" else lba_params
        tab = cl.delta_k(
            variant,
            (0.5, 1.0, 2.0, 4.0),
            m,
            data.n,
            B1,
            max(rho, 1e-9),
            noise_std,
            kw["d"],
            kw["b2"],
            kw["gamma"],
            kw["lam"],
        )
        st.plotly_chart(lbf.delta_vs_k_figure(tab, n=data.n, m=m, k_current=k, target_delta=delta), key="lb_delta_k")
        st.caption(
            "The explicit bounds need k in the billions or more; the exact accounting of noisy-wtd-LLP is "
            "informative at feasible k, but never drops below its floor."
        )

# ------------------------------------------------------------------ utility
with tab_util:
    st.markdown(
        f"Linear least squares fitted on each release, **{fmt.integer(trials)} runs** per point (fresh bags, weights "
        "and "
        "noise each run). The runs are for evaluation only: releasing many times would compose. Baselines add "
        f"Gaussian (analytic σ) or Laplace noise to all {fmt.integer(data.n)} training labels at the sidebar's (ε, δ)."
    )
    st.caption(
        "For a linear model naive LLP fits the same regression as naive LBA, and weighted LLP without noise the "
        "same as wtd-LBA (the learner can form Σ w·x itself), so those curves coincide."
    )
    ks = lbf.k_grid(data.n, m, k)
    ms = lbf.m_grid(data.n, k, m, data.d)
    points = tuple(tuple(sorted({"k": kk, "m": m, "rho": rho, "axis": "k"}.items())) for kk in ks) + tuple(
        tuple(sorted({"k": k, "m": mm, "rho": rho, "axis": "m"}.items())) for mm in ms
    )
    try:
        per_trial = cl.utility(
            ds.name,
            ds.fingerprint,
            label_range,
            B1,
            int(seed),
            points,
            int(trials),
            int(seed),
            float(eps),
            float(delta),
            float(noise_std),
            data,
        )
    except ValueError as exc:
        widgets.show_error(exc)
        st.stop()
    by_k = summarize(
        per_trial[per_trial["axis"] == "k"], by=["k", "method"], values=["test_mse", "excess_risk", "ratio"]
    )
    by_m = summarize(
        per_trial[per_trial["axis"] == "m"], by=["m", "method"], values=["test_mse", "excess_risk", "ratio"]
    )
    state.seed_widget("lb_metric", "test_mse", options=("test_mse", "excess_risk"))
    metric = st.radio(
        "Metric",
        ["test_mse", "excess_risk"],
        horizontal=True,
        key="lb_metric",
        format_func={"test_mse": "test MSE", "excess_risk": "excess risk"}.get,
    )
    state.keep_widget("lb_metric")
    state.sync_url({"lb_metric": metric})
    u1, u2 = st.columns(2)
    with u1:
        st.plotly_chart(
            lbf.utility_figure(by_k, x="k", y=metric, title=f"against k (m = {fmt.integer(m)})"), key="lb_util_k"
        )
    with u2:
        st.plotly_chart(
            lbf.utility_figure(by_m, x="m", y=metric, title=f"against m (k = {fmt.integer(k)})"), key="lb_util_m"
        )
    st.markdown(
        "**Utility ratio val(D, r̂)/opt(D, F): measured against the random-design prediction** "
        "1 + d/(m − d − 1) (wtd-LBA) and 1 + (1 + ρs²/γ̂)·d/(m − d − 1) (noisy-wtd-LLP):"
    )
    pred = lbf.prediction_table(ms, d=data.d, rho=rho, gamma_hat=cond["gamma_hat"], noise_std=noise_std)
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
                f"{fmt.number(acc.predicted_ratio_lba(m, data.d), sig=4)}. The paper's own utility bound (Theorem 1.2) "
                "needs "
                "m in the billions to say anything: aggregation keeps labels noise-free but shrinks the sample "
                "from n to m."
            )
    req = cl.utility_requirement(ds.name, ds.fingerprint, label_range, B1, int(seed), k, data)
    st.caption(
        f"The paper's own utility statement for wtd-LBA (within a factor 3 of the best fit with probability 95 %, "
        f"θ = 0.5, B = B1 + B2·‖r*‖ = {fmt.number(req['B'])}) needs m ≥ "
        f"{fmt.integer(req['m_required_paper_c0'])} bags with the paper's constant c0 = 1/2, or m ≥ "
        f"{fmt.integer(req['m_required_valid_c0'])} with a valid c0 = 1/16; this data set allows at most "
        f"{fmt.integer(data.n // k)} bags of size {fmt.integer(k)}."
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

# ------------------------------------------------------------------ teaching picture
with tab_teach:
    st.markdown(
        "Twelve labelled examples, three bags of four. Each member gets a random weight; in noisy-wtd-LLP some "
        "labels first get N(0, 1) noise. Only the bag totals below are released as label information."
    )
    ill = lbf.bag_illustration(seed=int(seed), rho=max(rho, 0.25) if rho > 0 else 0.0)
    widgets.table(ill, key="lb_ill_table", index=False)
    st.plotly_chart(lbf.bag_illustration_figure(ill), key="lb_ill_fig")
    st.caption(
        "Change one label: the plain sum moves by exactly that change (a certain giveaway). The weighted sum "
        "moves by weight × change, and the weight is secret (wtd-LBA) or drowned by the noise of the noisy "
        "bag-mates (noisy-wtd-LLP)."
    )
