"""Privacy audit: run a mechanism many times on two neighbouring datasets and measure a lower bound on ε."""

import functools
import math

import streamlit as st

from dp_core import display as fmt
from dp_core import registry
from dp_core import status as vocab
from dp_core.audit import MECHANISMS, VERDICT_VIOLATION
from dp_core.text import escape_markdown
from ui import cached, state, widgets
from ui import cached_audit as ca
from ui.constants import AUDIT_RUN_OPTIONS
from ui.first_screen import KeyNumber, expert_section, first_screen, tip
from ui.pages import PAGES

st.title("🔍 Privacy audit")
st.markdown(
    "**Does a mechanism keep the privacy it promises?** The page runs it many times on two datasets that differ "
    "in one person's record and measures how well the outputs give that person away."
)

# the page's own defaults and the options shared with the other pages (label-DP's k, m, ρ), from the plug-ins
PAGE_DEFAULTS = {
    (name, opt): value for name, m in MECHANISMS.items() for opt, value in m.extra.get("page_defaults", {}).items()
}
SHARED_OPTIONS = {(p.name, opt) for p in registry.plugins() for opt in p.compare_params}
#: The widgets whose choices depend on the mechanism: they start from its defaults when it changes.
PER_MECHANISM = ("audit_mode", "audit_pair", "audit_runs")


def runs_options(mech) -> tuple[int, ...]:
    return tuple(r for r in AUDIT_RUN_OPTIONS if r <= mech.max_runs)


def default_runs(mech) -> int:
    return min(runs_options(mech), key=lambda r: abs(r - mech.default_runs))


def apply_audit_row() -> dict | None:
    """Open a stored audit-table row (URL ``audit_row=mechanism:mode``, as linked from a status badge).

    On a new value, the row's budget, seeds, pair and options are applied to the widgets, so the audit
    below re-runs exactly that row live; the stored row is returned while it stays selected.
    """
    state.init_state()  # URL values first (a no-op after a session's first run), then the row's
    followed, raw = state.link_value("audit_row", "")
    if followed and raw:
        mech_key, _, mode_key_ = raw.partition(":")
        row = ca.audit_table_row(mech_key, mode_key_) if mech_key in MECHANISMS else None
        st.session_state["_audit_row"] = row
        if row is None:
            shown = escape_markdown(raw if len(raw) <= 60 else f"{raw[:40]}…")
            st.warning(f"The link asks for the audit-table row “{shown}”, which the stored table does not have.")
            return None
        m = MECHANISMS[mech_key]
        state.set_value("eps", float(row["epsilon"]))
        if m.uses_delta:
            state.set_value("delta", float(row["run_delta"]))
        state.set_value("seed", int(row["seed"]))
        st.session_state["w_seed"] = int(row["seed"])  # the sidebar's shared widget
        if row.get("dataset"):
            state.set_value("dataset", row["dataset"])
        state.set_widget("mechanism", mech_key)
        state.set_widget("audit_mode", mode_key_)
        if row.get("pair") in m.pairs:
            state.set_widget("audit_pair", row["pair"])
        if int(row["runs"]) in runs_options(m):
            state.set_widget("audit_runs", int(row["runs"]))
        for opt in m.options:
            value = opt.kind(row["options"].get(opt.name, PAGE_DEFAULTS.get((mech_key, opt.name), opt.default)))
            if (mech_key, opt.name) in SHARED_OPTIONS:
                state.set_value(opt.name, value)
                st.session_state[f"w_{opt.name}"] = value  # the shared widget of k, m, ρ
            else:
                state.set_widget(f"audit_{mech_key}_{opt.name}", value)
        state.set_widget("audit_pair_seed", int(row["pair_seed"]))
    return st.session_state.get("_audit_row")


stored_row = apply_audit_row()
eps, delta, seed, _trials = widgets.sidebar_controls()

# ------------------------------------------------------------------ what is audited
# a link from a mechanism page (mechanism, mode) is followed even later in the session
if state.follow_link("mechanism", "gaussian", options=tuple(MECHANISMS)):
    state.forget_widget(*PER_MECHANISM)
current = st.session_state.get("mechanism")
current = MECHANISMS[current] if current in MECHANISMS else MECHANISMS["gaussian"]
state.follow_link("audit_mode", next(iter(current.modes)), options=tuple(current.modes))
state.follow_link("audit_pair", next(iter(current.pairs)), options=tuple(current.pairs))
state.follow_link("audit_runs", default_runs(current), options=runs_options(current))

c1, c2, c3 = st.columns([1.2, 1.6, 1.6])
mech_name = state.widget(
    "mechanism",
    control="select",
    label="Mechanism",
    options=tuple(MECHANISMS),
    format_func=lambda n: MECHANISMS[n].title,
    container=c1,
    on_change=functools.partial(state.forget_widget, *PER_MECHANISM, url=True),
)
mech = MECHANISMS[mech_name]
mode = state.widget(
    "audit_mode",
    control="select",
    label="Claim tested",
    options=tuple(mech.modes),
    default=next(iter(mech.modes)),
    format_func=mech.modes.get,
    container=c2,
)
pair = state.widget(
    "audit_pair",
    control="select",
    label="Neighbouring datasets",
    options=tuple(mech.pairs),
    default=next(iter(mech.pairs)),
    format_func=mech.pairs.get,
    container=c3,
    help=tip("D", "The two datasets differ in one person's record."),
)
runs = state.widget(
    "audit_runs",
    control="select_slider",
    label="Runs of the mechanism on each dataset",
    options=runs_options(mech),
    default=default_runs(mech),
    format_func=fmt.integer,
    help="More runs give a tighter bound (and take longer). The bound can never exceed about "
    "ln(runs) however leaky the mechanism is.",
)

options = {}
with st.expander("⚙️ Mechanism options", expanded=False):
    cols = st.columns(max(1, len(mech.options) + 1))
    for col, opt in zip(cols, mech.options):
        if (mech_name, opt.name) in SHARED_OPTIONS:
            shared = widgets.shared_int if opt.kind is int else widgets.shared_float
            options[opt.name] = shared(opt.name, opt.help, container=col)
            continue
        options[opt.name] = opt.kind(
            state.widget(
                f"audit_{mech_name}_{opt.name}",
                control="number",
                label=opt.help,
                default=opt.kind(PAGE_DEFAULTS.get((mech_name, opt.name), opt.default)),
                step=1 if opt.kind is int else None,
                format_func=None if opt.kind is int else "%.4g",
                container=col,
            )
        )
    _auto = [name for name in ("k", "m") if mech_name == "label-dp-bags" and int(options.get(name, 1)) == 0]
    if _auto:  # 0 = "from the data size" (the comparison's auto setting): the audit runs its own setting
        _own = {o.name: o.kind(PAGE_DEFAULTS.get((mech_name, o.name), o.default)) for o in mech.options}
        options.update({name: _own[name] for name in _auto})
        st.caption(
            'k or m = 0 means "from the data size" in the comparison; this audit runs its own setting: '
            + ", ".join(f"{name} = {fmt.integer(options[name])}" for name in ("k", "m"))
            + "."
        )
    pair_seed = int(
        state.widget(
            "audit_pair_seed",
            control="number",
            label="Seed of the pair",
            container=cols[-1],
            help="Chooses the rows of a random pair and the pilot runs.",
        )
    )

state.sync_url()
state.mark_seen(  # what this page wrote is not a new link
    {"mechanism": mech_name, "audit_mode": mode, "audit_pair": pair, "audit_runs": int(runs)}
)

# ------------------------------------------------------------------ the data
ds = None
if pair in mech.needs_data:
    ds = widgets.current_dataset()
    if mech_name == "large-margin-gaussian" and not ds.is_classification:
        st.info(
            f"The large-margin classifier needs classification data; **{escape_markdown(ds.name)}** is a {ds.task} "
            f"dataset, so the demo dataset **{mech.default_dataset}** is used here.",
            icon="ℹ️",
        )
        ds = cached.load_demo(mech.default_dataset)
    widgets.dataset_badge(ds)
else:
    st.caption(f"This pair needs no data ({mech.pairs[pair]}).")


def _use_bags(k: int, m: int) -> None:
    """The one-click fix: the suggested label-DP bag setting (shared with the label-DP page)."""
    for name, value in (("k", k), ("m", m)):
        state.set_value(name, int(value))
        st.session_state[f"w_{name}"] = int(value)  # the shared widget


if mech_name == "label-dp-bags" and ds is not None and {"k", "m"} <= set(options):
    # bags of the user's data must fit its training rows (the engine's 80 % split): say so, offer a setting
    n_train = ds.n - int(round(0.2 * ds.n))
    if int(options["k"]) * int(options["m"]) > n_train:
        from ui.cached import plan

        hint = plan("label-dp-bags").bag_suggestion(
            n_train, ds.d + 1, float(eps), float(options.get("rho", 0.1)) or 0.1
        )
        st.warning(
            f"The bags do not fit these data: m = {fmt.integer(options['m'])} bags of k = "
            f"{fmt.integer(options['k'])} rows need {fmt.integer(int(options['k']) * int(options['m']))} rows, "
            f"and **{escape_markdown(ds.name)}** has {fmt.integer(n_train)} training rows. {hint.message}",
            icon="🧺",
        )
        if hint.k > 0:
            st.button(
                f"Use k = {fmt.integer(hint.k)}, m = {fmt.integer(hint.m)}",
                key="audit_use_bags",
                on_click=_use_bags,
                args=(hint.k, hint.m),
                type="primary",
            )
        st.stop()

audit_delta = float(delta) if mech.uses_delta else 0.0
# what the audit and its figures are keyed on (the dataset itself is passed unhashed, by its fingerprint)
audit_key = (
    mech_name,
    mode,
    pair,
    float(eps),
    audit_delta,
    int(runs),
    int(seed),
    pair_seed,
    tuple(sorted(options.items())),
    "" if ds is None else ds.name,
    "" if ds is None else ds.fingerprint,
)
try:
    report = ca.audit(*audit_key, ds)
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

r = report.result
hist_fig, conv_fig = ca.audit_figures(*audit_key, report)

# ------------------------------------------------------------------ the first screen
claim_text = f"ε = {fmt.number(r.eps_claimed, sig=4)}" + (
    f" at δ = {fmt.delta(r.delta)}" if r.delta > 0 else " (δ = 0)"
)
first_screen(
    who=(
        "one person, the only difference between the two datasets, from anyone who sees the mechanism's "
        "outputs and tries to tell whether that person's record was used."
    ),
    numbers=[
        KeyNumber("Claimed ε", fmt.number(r.eps_claimed, sig=4), help=f"{tip('ε', '')} {report.note}".strip()),
        KeyNumber(
            "Measured lower bound",
            fmt.number(r.eps_lower),
            help="The ε the runs prove, with 95% confidence: no mechanism with a smaller ε could produce outputs "
            "this easy to tell apart. Above the claimed ε, the claim is false.",
        ),
        KeyNumber(
            "Runs per dataset",
            fmt.integer(r.runs),
            help=f"{fmt.integer(r.n_select)} choose the test, {fmt.integer(r.n_eval)} evaluate it.",
        ),
    ],
    mechanism=mech_name,
    mode=mode,
)
if r.verdict == VERDICT_VIOLATION:
    st.error(
        f"**{vocab.REFUTED.capitalize()}, not a valid guarantee: {r.verdict}.** The runs show "
        f"ε ≥ {fmt.number(r.eps_lower)} with 95% "
        f"confidence, more than the claimed {claim_text}. The claim is false for this pair of datasets.",
        icon="⛔",
    )
else:
    st.info(
        f"**Measured: {r.verdict}.** The lower bound ε ≥ {fmt.number(r.eps_lower)} stays below the claimed "
        f"{claim_text}. An audit can show that a claim is violated, but it can never prove that a mechanism is "
        "private: a statistic or a pair of datasets that was not tried may leak more.",
        icon="📏",
    )
st.plotly_chart(hist_fig, width="stretch", key="audit_hist")
if len(report.extremes):
    lines = [
        f"{row.side}: {fmt.integer(row.count)} runs ({fmt.percent(row.share)}) at "
        f"{fmt.number(row.value, sig=1, signed=True)}"
        for row in report.extremes.itertuples()
    ]
    st.caption(
        "Hatched bars beyond the axis: outcomes coded by a constant (no release, or an aggregate that reveals "
        "the label exactly): " + "; ".join(lines) + "."
    )

# ------------------------------------------------------------------ for experts
if stored_row is not None and (stored_row["mechanism"], stored_row["mode"]) == (mech_name, mode):
    same = stored_row["runs"] == r.runs and stored_row["verdict"] == r.verdict
    same = same and all(float(stored_row[k]) == getattr(r, k) for k in ("eps_lower", "eps_claimed"))
    with expert_section("The stored audit-table row behind the status badge", expanded=True):
        st.markdown(
            f"**Stored audit-table row** ({stored_row['mechanism']} · {stored_row['mode']}): "
            f"status **{stored_row['status']}**; claimed ε = {fmt.epsilon(stored_row['eps_claimed'])}"
            + (f" at δ = {fmt.delta(stored_row['delta'])}" if float(stored_row["delta"]) > 0 else "")
            + f"; measured ε ≥ {fmt.number(stored_row['eps_lower'])} "
            f"({fmt.percent(stored_row['confidence'], sig=2)} confidence); "
            f"{fmt.integer(stored_row['runs'])} runs per dataset; seed {stored_row['seed']}; computed "
            f"{stored_row['date']} with engine {stored_row['engine_version']}."
        )
        if same:
            st.success("The live audit reproduces the stored row exactly (same seeds, same numbers).", icon="✅")
        else:
            st.warning(
                "The live audit differs from the stored row: a setting was changed (budget, seed, "
                "runs, options or data), or the engine changed since the table was computed.",
                icon="⚠️",
            )

with expert_section("How an audit works"):
    st.markdown(
        "A paper *claims* a guarantee; an audit *tests* it. The mechanism is run many times on two **neighbouring "
        "datasets** D and D′ (they differ in one person's record), each output is reduced to one number, and the "
        "best threshold test between the two sets of outputs gives a **measured lower bound** on ε: with "
        "Clopper–Pearson 95% intervals on its false- and true-positive rates, ε ≥ ln((TPR_low − δ) / FPR_high). "
        "The threshold is chosen on a separate part of the runs, so the bound stays valid."
    )
    st.caption(f"Claim: {report.note.rstrip('.')}. Pair: {report.pair}.")

with expert_section("How the bound grows with the number of runs"):
    st.plotly_chart(conv_fig, width="stretch", key="audit_conv")
    widgets.table(report.convergence, formats={"runs": fmt.integer}, key="audit_convergence_table")

with expert_section("How the bound was computed"):
    st.metric(
        "Test's ε, 95% interval",
        f"{fmt.number(r.eps_lower)} – {fmt.number(r.eps_upper)}",
        help="Clopper–Pearson ends of the chosen test's ε; the upper end is not an upper bound on the mechanism's ε.",
    )
    rel = ">" if r.side == "above" else "≤"
    other = "D" if r.positive == "D'" else "D'"
    if r.fpr_source == "exact law":
        log_fpr = (math.log(r.tpr_low - r.delta) - r.eps_lower) if r.tpr_low > r.delta and r.eps_lower > 0 else None
        fpr_lines = (
            f"- **False-positive rate** (on {other}): from the output's exact law on {other}, not counted (counting "
            f"cannot show losses beyond about ln(runs)): ln FPR = "
            f"{fmt.number(log_fpr, sig=5) if log_fpr is not None else fmt.MISSING}.\n"
            f"- **Lower bound:** ln(TPR_low − δ) − ln FPR = {fmt.number(r.eps_lower, sig=5)}, holding with "
            f"probability at least {fmt.percent(0.5 + 0.5 * r.confidence, sig=3)} (only the TPR end is random).\n"
        )
    else:
        fpr_lines = (
            f"- **False-positive rate** (on {other}): {fmt.number(r.fpr, sig=4)}, 95% interval "
            f"{fmt.interval(r.fpr_low, r.fpr_high, sig=4)}.\n"
            f"- **Lower bound:** ln(({fmt.number(r.tpr_low, sig=4)} − {fmt.delta(r.delta)}) / "
            f"{fmt.number(r.fpr_high, sig=4)}) = {fmt.number(r.eps_lower, sig=4)}.\n"
        )
    st.markdown(
        f"- **Statistic:** {escape_markdown(report.statistic)}.\n"
        f"- **Distinguishing event:** {escape_markdown(r.event)}.\n"
        f"- **Test** (chosen on the first {fmt.integer(r.n_select)} runs of each side): guess **{r.positive}** when "
        "the "
        f"statistic is {rel} {fmt.number(r.threshold, sig=4)}.\n"
        f"- **True-positive rate** (on {r.positive}, {fmt.integer(r.n_eval)} evaluation runs): "
        f"{fmt.number(r.tpr, sig=4)}, 95% interval {fmt.interval(r.tpr_low, r.tpr_high, sig=4)}.\n"
        + fpr_lines
        + f"- **δ needed at the claimed ε** (lower bound, same test): {fmt.delta(r.delta_lower)}."
    )
    if report.details:
        st.json(
            {
                fmt.header(k): fmt.value(v, sig=4) if not isinstance(v, dict | list | tuple) else v
                for k, v in report.details.items()
            },
            expanded=False,
        )
    opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sorted(options.items()))
    dpart = f" --delta {audit_delta:g}" if mech.uses_delta else ""
    data_part = f" --dataset {ds.name}" if ds is not None else ""
    st.markdown("The same audit from the shell:")
    st.code(
        f"python -m dp_core audit {mech_name} --eps {eps:g}{dpart} --mode {mode} --pair {pair} --runs {runs} "
        f"--seed {seed} --pair-seed {pair_seed} {opts}{data_part}".strip(),
        language="bash",
    )

if mech.page in {p[0] for p in PAGES}:
    st.page_link(mech.page, label=f"Back to the {mech.title} page", icon="↩️")
