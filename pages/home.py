"""Home: a plain first screen (what ε and δ mean, the current dataset, noise against ε), then the dataset,
its public bounds and preprocessing, the details of the budget, and the pages."""

import pandas as pd
import streamlit as st

from dp_core import data as dpdata
from dp_core import display, explain, preprocessing
from dp_core.exceptions import DataValidationError
from dp_core.text import escape_markdown
from ui import cached, declared_bounds, state, widgets
from ui.first_screen import KeyNumber, expert_section, first_screen, tip
from ui.pages import PAGES
from ui.risk_panel import risk_panel

st.title("🔐 Privacy-Utility Explorer")
st.caption(
    "See what differential privacy costs: each mechanism page shows the noise it adds, its guarantee and the "
    "accuracy measured by really running it many times."
)

eps, delta, _seed, _trials = widgets.sidebar_controls()
st.page_link("pages/start_here.py", label="**New here? Start here:** a guided tour in six steps", icon="🧭")
# The first screen is drawn into this container at the end of the script, once the dataset section below
# has taken this run's choice (an upload is read in the page body, not in a callback).
first = st.container()

# ------------------------------------------------------------------ dataset
st.header("1 · Dataset")
source_labels = {"demo": "A demo dataset", "upload": "Upload a CSV file"}
if "w_source" not in st.session_state:
    st.session_state["w_source"] = st.session_state.get("p_source", "demo")
source = st.radio("Data source", list(source_labels), format_func=source_labels.get, key="w_source", horizontal=True)

if source == "demo":
    st.session_state["p_source"] = "demo"
    names = list(dpdata.DATASETS)
    if "w_dataset" not in st.session_state:
        st.session_state["w_dataset"] = state.get("dataset") if state.get("dataset") in names else names[0]

    def _pick() -> None:
        state.set_value("dataset", st.session_state["w_dataset"])

    st.selectbox(
        "Demo dataset",
        names,
        key="w_dataset",
        on_change=_pick,
        format_func=lambda n: f"{dpdata.DATASETS[n].title} — {dpdata.DATASETS[n].task}",
    )
    state.set_value("dataset", st.session_state["w_dataset"])
else:
    lim = dpdata.LIMITS
    st.caption(
        f"Limits: {display.integer(lim['max_bytes'] // 2**20)} MB, {display.integer(lim['min_rows'])} to "
        f"{display.integer(lim['max_rows'])} rows, at most {display.integer(lim['max_cols'])} columns. The file "
        "and everything computed from it stay in this browser session's memory: never written to disk, "
        "logged, put in the server's shared cache or shown to another session, and freed with the session "
        "(the server keeps a closed tab's session about 2 minutes so that it can reconnect)."
    )
    upload = st.file_uploader(
        "CSV file (comma, semicolon or tab separated, with a header row)", type=["csv", "txt"], key="csv"
    )
    if upload is not None:
        raw = upload.getvalue()
        try:
            table = dpdata.parse_csv(raw, file_name=upload.name)
        except DataValidationError as exc:
            widgets.show_error(exc, prefix="File rejected: ")
            st.caption("Your previous dataset and settings are still active.")
            table = None
        if table is not None:
            for note in table.notes:
                st.info(escape_markdown(note), icon="🛠️")
            cols = list(table.frame.columns)
            if st.session_state.get("upload_fp") != table.fingerprint:
                st.session_state["upload_fp"] = table.fingerprint
                st.session_state["w_up_target"] = cols[-1]
            c1, c2 = st.columns(2)
            target = c1.selectbox("Target column (what to predict)", cols, key="w_up_target")
            task = c2.selectbox(
                "Task",
                ["auto", "regression", "binary", "multiclass"],
                key="w_up_task",
                help="'auto': a target with at most 10 integer values is a class label.",
            )
            non_numeric = "error"
            feats_text = [c for c in table.non_numeric_columns if c != target]
            if feats_text:
                non_numeric = st.radio(
                    f"Non-numeric columns {escape_markdown(', '.join(map(str, feats_text)))}: what should be done with "
                    "them?",
                    ["onehot", "drop"],
                    key="w_up_nonnum",
                    horizontal=True,
                    format_func={"onehot": "one-hot encode", "drop": "drop them"}.get,
                )
            has_missing = bool(table.frame.replace([float("inf"), float("-inf")], float("nan")).isna().any().any())
            drop = has_missing and st.checkbox(
                "Drop rows with missing, not-a-number or infinite values", key="w_up_dropna"
            )
            missing = "drop_rows" if drop else "error"
            try:
                ds_up = dpdata.table_to_dataset(
                    table, target=target, task=task, non_numeric=non_numeric, missing=missing
                )
            except (DataValidationError, ValueError) as exc:
                widgets.show_error(exc, prefix="Not usable yet: ")
                st.caption("Your previous dataset and settings are still active.")
            else:
                widgets.keep_upload(ds_up)
                st.session_state["p_source"] = "upload"
                st.success(
                    f"Using **{escape_markdown(upload.name)}**: {display.integer(ds_up.n)} rows, "
                    f"{display.integer(ds_up.d)} features, {ds_up.task}."
                )
    elif st.session_state.get("upload_dataset") is not None:
        st.session_state["p_source"] = "upload"
        _earlier = escape_markdown(st.session_state["upload_dataset"].name)
        st.info(f"Using the file uploaded earlier in this session ({_earlier}).")
    else:
        st.caption("No file yet: the demo dataset stays active.")

ds = widgets.current_dataset()
info = dpdata.DATASETS.get(ds.name)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Rows", display.integer(ds.n))
m2.metric("Features", display.integer(ds.d))
m3.metric("Task", ds.task)
m4.metric(
    "Classes" if ds.is_classification else "Target",
    display.integer(ds.n_classes) if ds.is_classification else display.value(ds.target_name),
)
st.caption(
    f"**Source:** {escape_markdown(ds.source)}. {escape_markdown(ds.description.rstrip('.'))}."
    + "".join(f" {escape_markdown(n)}" for n in ds.notes)
)
with st.expander("Preview (first 20 rows)", expanded=False):
    _preview = ds.to_frame().head(20)
    # an upload keeps its own column names; a demo dataset's names get headers for people
    _own = {c: str(c) for c in _preview.columns} if ds.name.startswith("upload:") else None
    st.dataframe(display.table(_preview, headers=_own, sig=4), width="stretch", hide_index=True)

# ------------------------------------------------------------------ preprocessing
st.header("2 · Public bounds, declared once")
st.markdown(
    "Every mechanism assumes each feature vector has norm ‖x‖ ≤ 1. The explorer gets there from **public "
    "per-column bounds** (a range, a typical value and a spread for each column, known without looking at the "
    "records) and a **per-record rule**; both are used by every page, the comparison and the command line, and "
    "kept in the link."
)
pbounds = widgets.public_bounds(ds)
_BOUND_HEADERS = {"column": "Column", "lo": "Lowest", "hi": "Highest", "centre": "Centre", "scale": "Scale"}
c1, c2 = st.columns([1, 2])
with c1:
    widgets.preprocess_control()
_raw = st.session_state.get("upload_dataset") if ds.name.startswith("upload:") else None
if _raw is None:
    with c2:
        _bt = pd.DataFrame(
            {"column": list(ds.feature_names), **{k: getattr(pbounds, k) for k in list(_BOUND_HEADERS)[1:]}}
        )
        st.dataframe(
            display.table(_bt, headers=_BOUND_HEADERS, sig=4),
            width="stretch",
            hide_index=True,
            height=210 if len(_bt) > 5 else "auto",
        )
        st.caption(f"Source: {escape_markdown(pbounds.source)}.")
    st.caption("These bounds are public: preprocessing with them leaks nothing, so no page shows a leak warning.")
else:
    # an upload: an editable table, prefilled with the data-derived ranges until public ones are declared;
    # values that are the data's own statistics need an acknowledgement (ui/declared_bounds.py)
    declared_bounds.upload_bounds_section(_raw, c2)
    if pbounds.data_derived:
        st.warning(escape_markdown(pbounds.leak_warning), icon="🔓")
    else:
        _counts = preprocessing.clipped_counts(_raw.X, pbounds)
        _out = [f"{escape_markdown(name)} {display.integer(c)}" for name, c in zip(_raw.feature_names, _counts) if c]
        _acked = widgets.acknowledged_matches(_raw)
        st.caption(
            (
                "These bounds are declared public, and you acknowledged that some are your data's own statistics "
                f"({widgets.describe_matches(_acked)}): whatever is published with them reveals those values. "
                if _acked
                else "These bounds are declared public: preprocessing with them leaks nothing, so no page shows a "
                "leak warning. "
            )
            + "Values outside a declared range are clipped to it. "
            + (
                f"Clipped values per column: {', '.join(_out)}."
                if _out
                else "No value of your file lies outside the declared ranges."
            )
            + " (This count reads your records: it is shown only to you and is part of no released output.)"
        )

# ------------------------------------------------------------------ the budget in detail
meaning = explain.budget_meaning(epsilon=eps, delta=delta, n=ds.n)
sig = cached.gaussian_sigmas(eps, delta)
with expert_section("What ε and δ mean, in detail"):
    lo, hi = meaning["posterior_from_half"]
    st.metric("A 50 % guess becomes at most", display.percent(hi), help=tip("ε"))
    st.markdown(
        f"With ε = **{display.epsilon(eps)}**, whatever anyone learns from the output, the odds of any statement "
        "about **one** person change by a factor of at most e^ε = "
        f"**{display.number(meaning['odds_factor'])}**, whether or not that person's record was used. Someone 50 % "
        f"sure of a fact about you could end up between **{display.percent(lo)}** and **{display.percent(hi)}** "
        f"sure. δ = **{display.delta(delta)}** is the probability that this promise may fail; it should be far "
        f"below 1/n (here 1/n = {display.delta(1 / ds.n)})."
    )
    st.plotly_chart(explain.posterior_figure(epsilon=eps), width="stretch", key="posterior_chart")
    st.markdown(
        f"**Noise for one count (sensitivity 1):** Laplace scale b = {display.number(sig['laplace'])}; Gaussian σ "
        f"{display.number(sig['analytic'])} (analytic, Balle–Wang)"
        + (
            f", {display.number(sig['classic'])} with the classic formula."
            if sig["classic"] == sig["classic"]
            else "; the classic formula does not apply above ε = 1."
        )
    )

risk_panel("gaussian", eps=eps, delta=delta)

# ------------------------------------------------------------------ the first screen (drawn at the top)
with first:
    st.markdown(
        f"**What ε and δ mean.** With a privacy budget ε = **{display.epsilon(eps)}**, anything published is about "
        "as likely with or without any one person's record: the odds of any conclusion about that person change by "
        f"at most × {display.number(meaning['odds_factor'])}. δ = **{display.delta(delta)}** is the small chance "
        "that this promise fails; keep it far below one in the number of rows."
    )
    _bounds = widgets.public_bounds(ds)
    if _bounds.data_derived:
        _origin = "so they are not public (see the warning below)"
    elif ds.declared_bounds is not None:
        _origin = "public, so preprocessing with them leaks nothing"
    else:
        _origin = "declared public, so preprocessing with them leaks nothing"
    _title = info.title if info is not None else escape_markdown(ds.name.removeprefix("upload:"))
    first_screen(
        who="each person whose record is in the dataset, from anyone who sees what a mechanism publishes.",
        numbers=[
            KeyNumber("ε (set in the sidebar)", display.epsilon(eps), help=tip("ε")),
            KeyNumber(
                "Odds can change by at most",
                f"× {display.number(meaning['odds_factor'])}",
                help="The factor e^ε: how much any conclusion about one person can move because of their record.",
            ),
            KeyNumber("Noise on one count (Laplace scale)", display.number(sig["laplace"]), help=tip("b")),
        ],
        note=(
            f"Dataset: **{_title}**, {display.integer(ds.n)} rows, {display.integer(ds.d)} features, {ds.task}. "
            f"Column bounds: {escape_markdown(_bounds.source)}, {_origin}. Change the dataset below."
        ),
        chart=cached.noise_figure(eps, delta),
        chart_key="noise_chart",
    )
    if meaning["delta_warning"]:
        st.warning(
            f"δ·n = {display.number(delta * ds.n)} ≥ 1: a mechanism could publish one whole record and still meet "
            f"δ. Choose δ below {display.delta(1 / ds.n)} (one over the number of rows) in the sidebar.",
            icon="⚠️",
        )

# ------------------------------------------------------------------ pages
st.header("3 · Explore")
for path, title, icon, desc in [p for p in PAGES if p[0] != "pages/home.py"]:
    st.page_link(path, label=f"**{title}** — {desc}", icon=icon)
