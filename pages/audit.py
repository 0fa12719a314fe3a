"""Privacy audit: run a mechanism many times on two neighbouring datasets and measure a lower bound on ε."""

import math

import streamlit as st

from dp_core import display, registry
from dp_core import display as fmt
from dp_core.audit import MECHANISMS, VERDICT_VIOLATION
from dp_core.audit.report import convergence_figure, histogram_figure
from ui import badges, cached, state, widgets
from ui import cached_audit as ca
from ui.constants import AUDIT_RUN_OPTIONS
from ui.pages import PAGES

st.title("🔍 Privacy audit")
st.markdown(
    "A paper *claims* a guarantee; an audit *tests* it. The mechanism is run many times on two **neighbouring "
    "datasets** (they differ in one person's record), each output is reduced to one number, and the best threshold "
    "test between the two sets of outputs gives a **measured lower bound** on ε: with Clopper–Pearson 95% intervals "
    "on its false- and true-positive rates, ε ≥ ln((TPR_low − δ) / FPR_high). The threshold is chosen on a separate "
    "part of the runs, so the bound stays valid."
)
st.info(
    "An audit can show that a privacy claim is violated, but it can never prove that a mechanism is private: "
    "a statistic or a pair of datasets that was not tried may leak more.",
    icon="🔎",
)


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
            st.warning(f"The link asks for the audit-table row {raw!r}, which the stored table does not have.")
            return None
        m = MECHANISMS[mech_key]
        state.set_value("eps", float(row["epsilon"]))
        if m.uses_delta:
            state.set_value("delta", float(row["run_delta"]))
        state.set_value("seed", int(row["seed"]))
        st.session_state["w_seed"] = int(row["seed"])
        if row.get("dataset"):
            state.set_value("dataset", row["dataset"])
        for opt in m.options:
            value = opt.kind(row["options"].get(opt.name, PAGE_DEFAULTS.get((mech_key, opt.name), opt.default)))
            if (mech_key, opt.name) in SHARED_OPTIONS:
                state.set_value(opt.name, value)
                st.session_state[f"w_{opt.name}"] = value
            else:
                st.session_state[f"audit_{mech_key}_{opt.name}"] = value
                st.session_state[f"audit_{mech_key}_{opt.name}__keep"] = value
        st.session_state["audit_pair_seed"] = int(row["pair_seed"])
        st.session_state["audit_pair_seed__keep"] = int(row["pair_seed"])
    return st.session_state.get("_audit_row")


# the page's own defaults and the options shared with the other pages (label-DP's k, m, ρ), from the plug-ins
PAGE_DEFAULTS = {
    (name, opt): value for name, m in MECHANISMS.items() for opt, value in m.extra.get("page_defaults", {}).items()
}
SHARED_OPTIONS = {(p.name, opt) for p in registry.plugins() for opt in p.compare_params}
stored_row = apply_audit_row()

eps, delta, seed, _trials = widgets.sidebar_controls()

RUN_OPTIONS = AUDIT_RUN_OPTIONS

names = list(MECHANISMS)


def from_link(param: str, key: str, valid, default) -> None:
    """Seed widget ``key`` from the URL parameter ``param`` when a link (e.g. a mechanism page's) set a new value.

    The link's value is validated by ``ui.state`` (a refused value gives a message and ``default``).
    """
    changed, value = state.link_value(param, default, options=tuple(valid))
    if changed:
        st.session_state[key] = value
    elif key not in st.session_state or st.session_state[key] not in valid:
        st.session_state[key] = default


from_link("mechanism", "mechanism", MECHANISMS, "gaussian")
c1, c2, c3 = st.columns([1.2, 1.6, 1.6])
mech_name = c1.selectbox("Mechanism", names, key="mechanism", format_func=lambda n: MECHANISMS[n].title)
mech = MECHANISMS[mech_name]

mode_key, pair_key = f"audit_mode_{mech_name}", f"audit_pair_{mech_name}"
from_link("audit_mode", mode_key, mech.modes, next(iter(mech.modes)))
from_link("audit_pair", pair_key, mech.pairs, next(iter(mech.pairs)))
mode = c2.selectbox("Mode (the claim tested)", list(mech.modes), key=mode_key, format_func=mech.modes.get)
pair = c3.selectbox("Neighbouring datasets", list(mech.pairs), key=pair_key, format_func=mech.pairs.get)

runs_options = [r for r in RUN_OPTIONS if r <= mech.max_runs]
runs_key = f"audit_runs_{mech_name}"
from_link("audit_runs", runs_key, runs_options, min(runs_options, key=lambda r: abs(r - mech.default_runs)))
runs = st.select_slider(
    "Runs of the mechanism on each dataset",
    options=runs_options,
    key=runs_key,
    format_func=fmt.integer,
    help="More runs give a tighter bound (and take longer). The bound can never exceed about "
    "ln(runs) however leaky the mechanism is.",
)

options = {}
option_urls = {}
with st.expander("⚙️ Mechanism options", expanded=False):
    cols = st.columns(max(1, len(mech.options) + 1))
    for col, opt in zip(cols, mech.options):
        if (mech_name, opt.name) in SHARED_OPTIONS:
            if opt.kind is int:
                options[opt.name] = widgets.shared_int(opt.name, opt.help, container=col)
            else:
                options[opt.name] = widgets.shared_float(opt.name, opt.help, container=col)
            continue
        default = PAGE_DEFAULTS.get((mech_name, opt.name), opt.default)
        okey = f"audit_{mech_name}_{opt.name}"
        state.seed_widget(okey, opt.kind(default))
        if not opt.lo <= st.session_state[okey] <= opt.hi:
            st.session_state[okey] = opt.kind(default)
        if opt.kind is int:
            options[opt.name] = int(
                col.number_input(opt.help, min_value=int(opt.lo), max_value=int(opt.hi), step=1, key=okey)
            )
        else:
            options[opt.name] = float(
                col.number_input(opt.help, min_value=float(opt.lo), max_value=float(opt.hi), format="%.4g", key=okey)
            )
        state.keep_widget(okey)
        option_urls[okey] = options[opt.name]
    state.seed_widget("audit_pair_seed", 0)
    pair_seed = int(
        cols[-1].number_input(
            "Seed of the pair",
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key="audit_pair_seed",
            help="Chooses the rows of a random pair and the pilot runs.",
        )
    )
    state.keep_widget("audit_pair_seed")

url_values = {"mechanism": mech_name, "audit_mode": mode, "audit_pair": pair, "audit_runs": int(runs)}
url_values.update(option_urls)
if "audit_pair_seed" in st.session_state:
    url_values["audit_pair_seed"] = int(st.session_state["audit_pair_seed"])
state.sync_url(url_values)
state.mark_seen(url_values)  # what this page wrote is not a new link

# ------------------------------------------------------------------ the data
ds = None
if pair in mech.needs_data:
    ds = widgets.current_dataset()
    if mech_name == "large-margin-gaussian" and not ds.is_classification:
        st.info(
            f"The large-margin classifier needs classification data; **{ds.name}** is a {ds.task} dataset, so "
            f"the demo dataset **{mech.default_dataset}** is used here.",
            icon="ℹ️",
        )
        ds = cached.load_demo(mech.default_dataset)
    widgets.dataset_badge(ds)
else:
    st.caption(f"This pair needs no data ({mech.pairs[pair]}).")

audit_delta = float(delta) if mech.uses_delta else 0.0
try:
    report = ca.audit(
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
        ds,
    )
except ValueError as exc:
    widgets.show_error(exc)
    st.stop()

r = report.result

# ------------------------------------------------------------------ verdict and numbers
claim_text = f"ε = {fmt.number(r.eps_claimed, sig=4)}" + (
    f" at δ = {fmt.delta(r.delta)}" if r.delta > 0 else " (δ = 0)"
)
if r.verdict == VERDICT_VIOLATION:
    widgets.guarantee_badge(
        "broken",
        f"**{r.verdict}** — the runs show ε ≥ {fmt.number(r.eps_lower)} with 95% confidence, more than the claimed "
        f"{claim_text}. The claim is false for this pair of datasets.",
    )
else:
    widgets.guarantee_badge(
        "measured",
        f"**{r.verdict}** — the audited lower bound ε ≥ {fmt.number(r.eps_lower)} stays below the claimed "
        f"{claim_text}. This is not a proof of privacy.",
    )

if stored_row is not None and (stored_row["mechanism"], stored_row["mode"]) == (mech_name, mode):
    same = (
        stored_row["runs"] == r.runs
        and stored_row["verdict"] == r.verdict
        and float(stored_row["eps_lower"]) == r.eps_lower
        and float(stored_row["eps_claimed"]) == r.eps_claimed
    )
    with st.container(border=True):
        st.markdown(
            f"**Stored audit-table row behind the status badge** ({stored_row['mechanism']} · {stored_row['mode']}): "
            f"status **{stored_row['status']}**; claimed ε = {display.epsilon(stored_row['eps_claimed'])}"
            + (f" at δ = {display.delta(stored_row['delta'])}" if float(stored_row["delta"]) > 0 else "")
            + f"; measured ε ≥ {display.number(stored_row['eps_lower'])} "
            f"({display.percent(stored_row['confidence'], sig=2)} confidence); "
            f"{display.integer(stored_row['runs'])} runs per dataset; seed {stored_row['seed']}; computed "
            f"{stored_row['date']} with engine {stored_row['engine_version']}."
        )
        if same:
            st.success("The live audit below reproduces the stored row exactly (same seeds, same numbers).", icon="✅")
        else:
            st.warning(
                "The live audit below differs from the stored row: a setting was changed (budget, seed, "
                "runs, options or data), or the engine changed since the table was computed.",
                icon="⚠️",
            )

m1, m2, m3, m4 = st.columns(4)
m1.metric("Claimed ε", fmt.number(r.eps_claimed, sig=4), help=report.note)
m2.metric(
    "Measured lower bound",
    fmt.number(r.eps_lower),
    help="Holds with 95% confidence: ln((TPR_low − δ)/FPR_high) of the chosen test on the evaluation runs.",
)
m3.metric(
    "Test's ε, 95% interval",
    f"{fmt.number(r.eps_lower)} – {fmt.number(r.eps_upper)}",
    help="Clopper–Pearson ends of the chosen test's ε; the upper end is not an upper bound on the mechanism's ε.",
)
m4.metric(
    "Runs per dataset",
    fmt.integer(r.runs),
    help=f"{fmt.integer(r.n_select)} choose the test, {fmt.integer(r.n_eval)} evaluate it.",
)
st.caption(f"Claim: {report.note.rstrip('.')}. Pair: {report.pair}.")

# ------------------------------------------------------------------ charts
st.plotly_chart(histogram_figure(report), width="stretch", key="audit_hist")
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
st.plotly_chart(convergence_figure(report), width="stretch", key="audit_conv")

with st.expander("How the bound was computed", expanded=False):
    rel = ">" if r.side == "above" else "≤"
    other = "D" if r.positive == "D'" else "D'"
    if r.fpr_source == "exact law":
        log_fpr = (math.log(r.tpr_low - r.delta) - r.eps_lower) if r.tpr_low > r.delta and r.eps_lower > 0 else None
        fpr_lines = (
            f"- **False-positive rate** (on {other}): from the output's exact law on {other}, not counted (counting "
            f"cannot certify losses beyond about ln(runs)): ln FPR = "
            f"{display.number(log_fpr, sig=5) if log_fpr is not None else display.MISSING}.\n"
            f"- **Lower bound:** ln(TPR_low − δ) − ln FPR = {display.number(r.eps_lower, sig=5)}, holding with "
            f"probability at least {display.percent(0.5 + 0.5 * r.confidence, sig=3)} (only the TPR end is random).\n"
        )
    else:
        fpr_lines = (
            f"- **False-positive rate** (on {other}): {fmt.number(r.fpr, sig=4)}, 95% interval "
            f"{fmt.interval(r.fpr_low, r.fpr_high, sig=4)}.\n"
            f"- **Lower bound:** ln(({fmt.number(r.tpr_low, sig=4)} − {fmt.delta(r.delta)}) / "
            f"{fmt.number(r.fpr_high, sig=4)}) = {fmt.number(r.eps_lower, sig=4)}.\n"
        )
    st.markdown(
        f"- **Statistic:** {badges.md_escape(report.statistic)}.\n"
        f"- **Distinguishing event:** {badges.md_escape(r.event)}.\n"
        f"- **Test** (chosen on the first {fmt.integer(r.n_select)} runs of each side): guess **{r.positive}** when "
        "the "
        f"statistic is {rel} {fmt.number(r.threshold, sig=4)}.\n"
        f"- **True-positive rate** (on {r.positive}, {fmt.integer(r.n_eval)} evaluation runs): "
        f"{fmt.number(r.tpr, sig=4)}, 95% interval {fmt.interval(r.tpr_low, r.tpr_high, sig=4)}.\n"
        + fpr_lines
        + f"- **δ needed at the claimed ε** (lower bound, same test): {fmt.delta(r.delta_lower)}."
    )
    widgets.table(report.convergence, formats={"runs": fmt.integer}, key="audit_convergence_table")
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
    st.code(
        f"python -m dp_core audit {mech_name} --eps {eps:g}{dpart} --mode {mode} --pair {pair} --runs {runs} "
        f"--seed {seed} --pair-seed {pair_seed} {opts}{data_part}".strip(),
        language="bash",
    )

page_paths = {p[0] for p in PAGES}
if mech.page and mech.page in page_paths:
    st.page_link(mech.page, label=f"Back to the {mech.title} page", icon="↩️")
