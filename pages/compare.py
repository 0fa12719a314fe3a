"""Compare and negotiate: every mechanism on the current dataset, the privacy budget card, the
smallest ε meeting a target, and share / export (link, JSON configuration, HTML report, CSV)."""

import math

import streamlit as st

import dp_core
from dp_core import display, registry
from dp_core import status as vocab
from dp_core.compare import ADAPTERS, applicable_adapters, compare_param_specs, default_epsilons, make_spec
from dp_core.compare.budget import budget_card, headline, noise_table
from dp_core.compare.figures import METRIC_TITLES, compare_figure
from dp_core.compare.registry import STATUS_LABELS, adapter_key
from dp_core.negotiate import answer_sentences, answer_table_for_people, default_target_value, rows_factor_words
from dp_core.report import COMPARE_PAGE, targets_from_params
from dp_core.text import escape_markdown
from ui import background, badges, share, state, widgets
from ui import cached_compare as cc
from ui import cached_scope as scoped
from ui.constants import COMPARE_TABS, TVALUE_DEFAULTS
from ui.first_screen import KeyNumber, expert_section, first_screen, tip
from ui.share import SHARED_VIEW, shared_view

eps, delta, seed, trials = widgets.sidebar_controls()
share.follow_pending_page(COMPARE_PAGE)

st.title("⚖️ Compare and negotiate")
st.markdown(
    "**Which mechanism keeps the most utility for a given privacy budget on this dataset, and what budget does "
    "a target need?** Every mechanism that applies is run on the same data."
)
ds = widgets.current_dataset()
widgets.dataset_badge(ds)

VIEWS = {"utility": "Utility", "excess_risk": "Excess risk (with bounds)"}
metric = "r2" if ds.task == "regression" else "accuracy"
TARGET_METRICS = {
    metric: METRIC_TITLES[metric] + " at least",
    **({"mae": f"Test MAE at most (in units of {display.header(ds.target_name)})"} if ds.task == "regression" else {}),
    "excess_risk": "Excess risk at most",
    "none": "No utility target (δ only)",
}


applicable = [a.key for a in applicable_adapters(ds.task)]
# the open tab is not a widget of the idiom (st.tabs): restored from the link once, then kept by its callback
if "cview" not in st.session_state:
    state.set_widget("cview", state.url_param("cview", "compare", options=COMPARE_TABS))
# the link's values of the widgets further down are read (and a refused value reported) here, at the top,
# so that the message shows even when the page stops before those widgets (no mechanism could run)
for _name in ("view", "tdelta", "tsolve", "trows"):
    state.url_param(_name)


def _reset_target_value():
    """A new target metric starts from its own sensible value (0.9 accuracy is no excess risk); the value
    is set further down, before the value widget is drawn, where the measured curves are known (MAE)."""
    st.session_state["_tvalue_reset"] = True


def _ask_rows(factor: float):
    """The one-click question "what if we had N times the rows?" (smallest ε at that size)."""
    state.set_widget("trows", factor)
    state.set_widget("tsolve", "epsilon")


def _negotiation(neg_key: tuple, rows_factor: float) -> tuple[dict | None, bool]:
    """``(answer, stale)``: the negotiation runs off the page thread (progress, Cancel); while it runs, the previous
    answer on this dataset is shown greyed out (``stale``), and none if there is none."""
    try:
        job_key, blocks = cc.negotiation_blocks(*neg_key, ds, result, rows_factor)
        job = background.start("negotiate", job_key, blocks, private=scoped.session_uses_upload())
    except (TypeError, ValueError) as exc:
        widgets.show_error(exc)
        return None, False
    last = st.session_state.get("_neg_last")
    last = last[1] if last is not None and last[0] == ds.fingerprint else None
    background.live_section("negotiate", lambda j: _stale_note(j, last), label="Negotiating")
    if not job.done():
        if last is not None:
            st.html("<style>.st-key-neg_answer { opacity: 0.45; }</style>")  # a fixed rule: no visitor text
        return last, last is not None
    if job.error() is not None or job.cancelled:
        return None, False
    answer = job.finished()["answer"]
    st.session_state["_neg_last"] = (ds.fingerprint, answer)
    return answer, False


def _stale_note(job, last: dict | None) -> None:
    if not job.done() and last is not None:
        st.caption("Greyed out: the answer for the previous settings; the new one replaces it when the run ends.")


with st.expander("⚙️ Comparison settings", expanded=False):
    c1, c2, c3 = st.columns(3)
    eps_min = state.widget("eps_min", label="Smallest ε of the grid", format_func=display.epsilon, container=c1)
    eps_max = state.widget("eps_max", label="Largest ε of the grid", format_func=display.epsilon, container=c2)
    n_eps = state.widget("n_eps", label="Grid points", container=c3, help="How many values of ε are run.")
    if "mech" not in st.session_state:
        # canonical names (``label-dp-bags``); links written with the adapter keys (``label_dp_bags``) still open
        _mech_names = tuple(p.name for p in registry.plugins() if p.has("compare"))
        state.set_widget("mech", state.url_param("mech", "all", options=_mech_names + tuple(ADAPTERS)))
    chosen = st.session_state["mech"]
    # recomputed when the choice changed (a link, a restored configuration) or the dataset's task did: a
    # selection kept from another task would turn "all" into the mechanisms the two tasks share
    if (
        st.session_state.get("_mech_last") != chosen
        or "mech_select" not in st.session_state
        or st.session_state.get("_mech_for") != applicable
    ):
        default_sel = (
            applicable
            if chosen in ("", "all")
            else [adapter_key(k) for k in chosen.split(",") if adapter_key(k) in applicable]
        )
        state.set_widget("mech_select", default_sel or applicable)
    sel = st.multiselect(
        "Mechanisms",
        applicable,
        format_func=lambda k: ADAPTERS[k].title,
        key="mech_select",
        help="Every mechanism that applies to this dataset's task.",
    )
    state.set_widget(
        "mech", "all" if set(sel) == set(applicable) or not sel else ",".join(registry.get(k).name for k in sel)
    )
    st.session_state["_mech_last"] = st.session_state["mech"]
    st.session_state["_mech_for"] = list(applicable)
    # the chosen mechanisms' own comparison parameters (label-DP's k, m, ρ), declared by their plug-ins
    mech_params = [
        plugin.param(name)
        for plugin in registry.plugins()
        if plugin.key in (sel or applicable)
        for name in plugin.compare_params
    ]
    for spec_p, col in zip(mech_params, st.columns(len(mech_params)) if mech_params else []):
        shared = widgets.shared_int if spec_p.kind is int else widgets.shared_float
        auto = spec_p.help.startswith("0 = auto")  # k, m: 0 means "from the data size"
        shared(
            spec_p.name,
            spec_p.label[:1].upper() + spec_p.label[1:] + (" (0 = auto)" if auto else ""),
            help=spec_p.help or None,
            container=col,
        )

page_params = {
    "eps_min": float(eps_min),
    "eps_max": float(eps_max),
    "n_eps": int(n_eps),
    "mech": st.session_state["mech"],
    "cview": shared_view(st.session_state["cview"]),
}

mechanisms = None if st.session_state["mech"] == "all" else tuple(st.session_state["mech"].split(","))
try:
    grid = default_epsilons(float(eps_min), float(eps_max), int(n_eps))
    spec = make_spec(
        epsilons=grid,
        delta=delta,
        n_trials=trials,
        seed=seed,
        preprocess=state.get("preprocess"),
        **{name: s.kind(state.get(name)) for name, s in compare_param_specs().items()},
    )
except (TypeError, ValueError) as exc:
    widgets.show_error(exc)
    st.stop()

# the sweep runs in the background, one block per mechanism (quick ones appear first); tests and scripts
# run it inline
try:
    sweep_keys, blocks = cc.sweep_blocks(ds, spec, mechanisms)
except (TypeError, ValueError) as exc:
    widgets.show_error(exc)
    st.stop()
background.start(
    "compare_sweep",
    repr((dp_core.__version__, ds.name, ds.fingerprint, spec, tuple(sweep_keys))),
    blocks,
    private=scoped.session_uses_upload(),
    # a demo dataset at default settings is answered by the shipped results in milliseconds: no background job
    background=False if cc.all_stored(ds, spec, sweep_keys) else None,
)


def _first_results(job) -> None:
    """While the sweep runs: the chart of the mechanisms that have finished."""
    if job.done():
        return
    part = cc.combined(job.finished(), sweep_keys)
    if part is None or part.summary.empty:
        name = escape_markdown(ds.name)
        st.caption(f"Running {len(sweep_keys)} mechanisms on {name}; the first results appear here.")
        return
    names = ", ".join(ADAPTERS[k].title for k in sweep_keys if k in part.states)
    st.caption(f"First results ({len(part.states)} of {len(sweep_keys)} mechanisms: {names}); the rest follow.")
    st.plotly_chart(compare_figure(part, y="utility", eps_marker=eps), width="stretch", key="compare_first_chart")


background.live_section("compare_sweep", _first_results, label="Running every mechanism")
job = background.get_job("compare_sweep")
if job is None or not job.done() or job.cancelled or job.error() is not None:
    st.stop()
result = cc.combined(job.result(), sweep_keys)

if result.summary.empty or "method" not in result.summary.columns:
    # every mechanism was skipped or failed on this data (e.g. values near the float limit): say so, never a KeyError
    st.error(
        "No mechanism could be run on this dataset, so there is nothing to compare. The reasons are below; "
        "pick another dataset on Home or check the uploaded values.",
        icon="⚠️",
    )
    for key, why in result.skipped.items():
        st.warning(f"{ADAPTERS[key].title} could not be run: {escape_markdown(why)}")
    st.stop()

# ------------------------------------------------------------------ the first screen
top = headline(result, eps)
_metric_title = METRIC_TITLES[result.metric]
_short = "R²" if result.metric == "r2" else _metric_title.removeprefix("Test ").lower()
best, best_lo = top["best"], top["best_labels_only"]
audit_mech, _, audit_mode = (best["audit"] if best else "").partition("/")
first_screen(
    who=(
        "each person in the dataset, from anyone who sees a model trained on it (methods marked *labels only* "
        "protect only each person's label: their other columns are treated as public)."
    ),
    numbers=[
        KeyNumber(
            f"Best private {_short}",
            display.number(best["utility"]) if best else display.MISSING,
            help=(
                f"{tip('ε', '')} The best measured {_metric_title.lower()} of a method that protects whole "
                "records, at the ε chosen in the sidebar (mean over trials; its 95% interval is "
                + (display.interval(best["utility_lo"], best["utility_hi"]) if best else display.MISSING)
                + ")."
            ),
        ),
        KeyNumber(
            f"Non-private {_short}",
            display.number(top["reference"]),
            help="The same model fitted without any privacy: the most any mechanism could reach.",
        ),
        KeyNumber(
            "Lost to privacy",
            display.number(max(top["gap"], 0.0) if top["gap"] == top["gap"] else top["gap"]),
            help=f"Non-private minus best private {_metric_title.lower()}: the price of the privacy budget"
            + (
                " (the best private run scored above the non-private fit here: the test set is small and the "
                "difference is sampling noise)."
                if top["gap"] < 0
                else "."
            ),
        ),
    ],
    mechanism=audit_mech or None,
    mode=audit_mode or None,
    status=(best["status"], best["statement"]) if best else None,
    weak=best["statement"] if best and best["status"] == vocab.PROVED_WEAK else None,
    note=(
        (
            f"At ε = {display.epsilon(eps)} (the sidebar's budget), the best method whose guarantee is not "
            f"refuted: **{best['label']}** (status: {best['status']}; the badge on the right links to the evidence)."
            if best
            else f"No method whose guarantee is not refuted was measured at ε = {display.epsilon(eps)}: widen the grid "
            "in the comparison settings."
        )
        + (
            f" Best of the weaker, labels-only methods: {best_lo['label']} ({display.number(best_lo['utility'])})."
            if best_lo
            else ""
        )
    ).strip()
    or None,
)
view = state.widget(
    "view", control="radio", label="Show", options=tuple(VIEWS), format_func=VIEWS.get, default="utility"
)
page_params["view"] = view
st.plotly_chart(
    cc.compare_chart(ds.name, ds.fingerprint, spec, mechanisms, view, float(eps), result),
    width="stretch",
    key="compare_chart",
)
st.caption(
    f"Means over Monte-Carlo trials with 95% intervals (trials per mechanism in the legend; each "
    f"mechanism caps the sidebar's {display.integer(trials)} trials at its own limit). "
    + (
        "Dashed: each method's theoretical bound on its excess risk."
        if view == "excess_risk"
        else "Dotted: the best non-private fit. Switch to 'Excess risk' to see the theoretical bounds."
    )
)

# ------------------------------------------------------------------ for experts
TAB_LABELS = dict(
    zip(COMPARE_TABS, ["📈 Noise and caveats", "🪪 Privacy budget card", "🤝 Negotiate", "🔗 Share and export"])
)
_tab_key = {v: k for k, v in TAB_LABELS.items()}


def _on_tab():
    previous = st.session_state.get("cview", "compare")
    state.set_widget("cview", _tab_key.get(st.session_state.get("cview_tab"), "compare"))
    if previous != "share":  # the tab the person was on before opening Share: the one their link reopens
        st.session_state[SHARED_VIEW] = previous


tab_cmp, tab_card, tab_neg, tab_share = st.tabs(
    list(TAB_LABELS.values()), key="cview_tab", default=TAB_LABELS[st.session_state["cview"]], on_change=_on_tab
)

with tab_cmp:
    st.header(f"Noise scales at ε = {display.epsilon(eps)}, δ = {display.delta(delta)}")
    widgets.table(noise_table(result, eps), key="compare_noise_table")
    for key, why in result.skipped.items():
        st.warning(f"{ADAPTERS[key].title} was not run on this dataset: {escape_markdown(why)}")
    with expert_section("Preprocessing and caveats"):
        for key, notes in result.notes.items():
            for n in notes:
                st.markdown(f"- **{ADAPTERS[key].title}**: {escape_markdown(n)}")
            for leak in result.leaks.get(key, ()):
                st.warning(f"{ADAPTERS[key].title}: {escape_markdown(leak)}", icon="⚠️")
    missing = [a.title for a in ADAPTERS.values() if not a.applies_to(ds.task)]
    if missing:
        st.caption(f"Not applicable to a {ds.task} task: {', '.join(missing)}.")

with tab_card:
    card = budget_card(result, epsilon=eps, delta=delta, n=ds.n)
    st.header(f"Privacy budget: ε = {display.epsilon(eps)}, δ = {display.delta(delta)}")
    for s in card["sentences"]:
        st.markdown(f"- {s}")
    st.markdown(
        f"**What each mechanism reaches at ε = {display.epsilon(eps)}** "
        f"({METRIC_TITLES[result.metric].lower()}, measured, 95% interval):"
    )
    widgets.table(
        card["utility"],
        key="compare_card_utility",
        headers={
            "utility": _metric_title,
            "utility_lo": f"{_metric_title}: 95% low",
            "utility_hi": f"{_metric_title}: 95% high",
        },
        formats={"n_trials": display.integer},
    )
    st.markdown("**Which guarantees hold**")
    for status, items in card["groups"].items():
        for item in items:
            text = f"{item['label']} — {item['statement']}"
            if item.get("audit"):
                mech_name, mode = item["audit"].split("/")
                text += f" [Audit it ↗](audit?mechanism={mech_name}&audit_mode={mode})"
            if status == vocab.PROVED:
                st.success(f"**{vocab.PROVED.capitalize()}:** {text}", icon="✅")
            elif status in (vocab.PROVED_WEAK, vocab.CLAIMED, vocab.AUDITED):
                st.info(f"**{status.capitalize()}:** {text}", icon="📄")
            elif status == vocab.REFUTED:
                widgets.guarantee_badge("broken", text)
            else:
                st.caption(f"{STATUS_LABELS['none'].capitalize()}: {text}")
            if item.get("audit"):
                badges.audit_caption(*item["audit"].split("/"))

with tab_neg:
    st.markdown(
        "State a target; for each mechanism the app finds the smallest ε that meets it, or the smallest number of "
        "rows at the ε chosen in the sidebar: from the measured curves (with the range where the 95% band crosses "
        "it) and, for excess-risk targets, from the theoretical bound."
        + (
            " On regression data the target can also be a test MAE (mean absolute error, in the target's own "
            "units; lower is better), answered from the measured curves (no bound exists on it)."
            if ds.task == "regression"
            else ""
        )
    )
    n1, n2, n3 = st.columns(3)
    if st.session_state.get("tmetric") not in (None, *TARGET_METRICS):
        # the metric kept from another dataset does not apply here (MAE on classification): its value neither
        st.session_state["_tvalue_reset"] = True
    tmetric = state.widget(
        "tmetric",
        control="select",
        label="Target",
        options=tuple(TARGET_METRICS),
        default=metric,
        format_func=TARGET_METRICS.get,
        container=n1,
        on_change=_reset_target_value,
    )
    # MAE is in the target's units: its starting value comes from the measured curves
    tvalue_default = default_target_value(result, tmetric)
    if tvalue_default != tvalue_default:  # nan: a fixed default (or no MAE measured)
        tvalue_default = TVALUE_DEFAULTS[tmetric]
    if st.session_state.pop("_tvalue_reset", False):
        state.set_widget("tvalue", tvalue_default)
    tvalue = state.widget(
        "tvalue",
        control="number",
        label="Value" if tmetric != "mae" else f"Value ({escape_markdown(display.header(ds.target_name))} units)",
        default=tvalue_default,
        step=0.01 if tmetric != "mae" else max(0.01, 10.0 ** (math.floor(math.log10(max(tvalue_default, 1e-9))) - 1)),
        format_func="%.4g",
        container=n2,
        disabled=tmetric == "none",
    )
    tdelta = state.widget(
        "tdelta",
        control="number",
        label="δ at most (0 = no δ target)",
        step=1e-6,
        format_func="%g",  # 0 and 1e-06, never "0.0e+0"
        container=n3,
        help=tip("δ"),
    )
    r1, r2 = st.columns(2)
    tcap = state.widget(
        "tcap",
        control="select",
        label="Risk cap (beside the target)",
        container=r1,
        format_func={
            "none": "No risk cap",
            "tpr_at_fpr_0.01": "Attacker's true-positive rate at 1 % false positives at most",
            "tpr_at_fpr_0.001": "Attacker's true-positive rate at 0.1 % false positives at most",
            "mia_advantage": "Membership-inference advantage at most",
        }.get,
        help="The largest ε whose guarantee keeps this attack figure under the cap (docs/risk.md).",
    )
    tcapv = state.widget(
        "tcapv", control="number", label="Cap", step=0.01, format_func="%.4g", container=r2, disabled=tcap == "none"
    )
    s1, s2 = st.columns([3, 2])
    solve = state.widget(
        "tsolve",
        control="radio",
        label="Solve for",
        container=s1,
        disabled=tmetric == "none",
        format_func={
            "epsilon": "the smallest ε",
            "n": f"the smallest number of rows at ε = {display.epsilon(eps)}",
        }.get,
    )
    rows_factor = 1.0
    if solve == "epsilon" and tmetric != "none":
        rows_factor = state.widget(
            "trows",
            control="select_slider",
            label="With how many times the rows",
            container=s2,
            format_func=lambda f: "the data as it is" if f == 1 else f"{display.number(f)}×",
            help="Above 1× the measured curves are extrapolated from learning curves (each mechanism run on "
            "subsamples of the data) and the bounds are evaluated at that many rows.",
        )
        if rows_factor == 1.0:
            st.button("What if we had twice the rows?", key="ask_twice", on_click=_ask_rows, args=(2.0,), icon="➕")
        else:
            st.button("Back to the data as it is", key="ask_same", on_click=_ask_rows, args=(1.0,))
    page_params.update(tmetric=tmetric, tvalue=float(tvalue), tdelta=float(tdelta), tsolve=solve, tcap=tcap)
    page_params.update(tcapv=float(tcapv), trows=float(st.session_state.get("trows", 1.0)))
    try:
        targets = targets_from_params(page_params)
    except (TypeError, ValueError) as exc:
        widgets.show_error(exc)
        targets = []
    if tmetric == "none":
        solve, rows_factor = "epsilon", 1.0
    # The arguments the negotiation and its charts are keyed on (same order in both).
    neg_key = (ds.name, ds.fingerprint, spec, mechanisms, tuple(targets), float(eps), solve)
    answer, stale = _negotiation(neg_key, float(rows_factor)) if targets else (None, False)
    with st.container(key="neg_answer"):  # one key: its charts keep their identity; greyed by the rule above
        if answer is not None:
            if answer.get("headline"):
                st.success(f"**{escape_markdown(answer['headline'])}**", icon="🎯")
                if answer["rows_factor"] != 1.0:
                    st.caption(
                        f"{rows_factor_words(answer['rows_factor']).capitalize()}: an extrapolation of one model of "
                        "the utility measured on subsamples of this dataset, not a measurement; its 95% ranges are "
                        "never narrower than the ones at the data's own size."
                    )
            for line in answer_sentences(answer):  # a method that could not be run says why, with no number
                st.markdown(f"- {escape_markdown(line)}")
            widgets.table(answer_table_for_people(answer), key="compare_answer_table")
            show_grid = bool(answer.get("grid")) and answer["rows_factor"] == 1.0 and not stale
            at_delta = result if show_grid else None
            if show_grid and answer["delta_used"] != delta:  # the curves at the negotiation's δ
                settings = {"n_trials": trials, "seed": seed, "preprocess": spec.preprocess, **dict(spec.params)}
                spec_at = make_spec(epsilons=grid, delta=answer["delta_used"], **settings)
                at_delta = cc.compare(ds.name, ds.fingerprint, spec_at, mechanisms, ds)
            # a stale answer belongs to other settings: its charts are not drawn (nor cached under this key)
            figs = {} if stale else cc.negotiation_charts(*neg_key, float(rows_factor), answer, at_delta)
            for chart in ("learning_curve", "negotiation"):
                if figs.get(chart) is not None:
                    st.plotly_chart(figs[chart], width="stretch", key=f"{chart}_chart")
            if answer["k_answers"]:
                st.markdown("**Label-DP by aggregation: smallest bag size k**")
                widgets.table(
                    answer["k_answers"],
                    key="compare_k_answers",
                    formats={
                        "delta": display.delta,
                        "m": display.integer,
                        "k": lambda v: display.integer(v, inf="never"),
                    },
                )
            for n in answer["notes"]:
                st.caption(escape_markdown(n))
            cli_extra = f" --solve-for n --eps {eps:g}" if solve == "n" else ""
            if rows_factor != 1.0:
                cli_extra += f" --rows-factor {rows_factor:g}"
            st.caption(
                "The same answer from the shell: `python -m dp_core negotiate --dataset "
                f"{ds.name if not ds.name.startswith('upload:') else 'FILE.csv'} "
                + " ".join(f"--target {t}" for t in targets)
                + f"{cli_extra} --delta {delta:g} --seed {seed} --trials {trials} --eps-min {eps_min:g} "
                f"--eps-max {eps_max:g} --n-eps {n_eps}`"
            )

state.sync_url(page_params)
config = share.current_config(COMPARE_PAGE, page_params, fingerprint=ds.fingerprint)

with tab_share:
    st.markdown(
        "A link reopens this exact view; the JSON configuration restores it (here or on another machine) "
        "and re-creates the report from the shell: "
        "`python -m dp_core report --config dp_explorer_config.json --out report.html`."
    )
    share.share_panel(
        config, key="cmp_share", report=lambda: cc.report(config.to_json(), ds.fingerprint, ds, result, answer)
    )
