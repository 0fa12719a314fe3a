"""Share and export: a link that reopens the view, the JSON configuration, the HTML report / CSV downloads
(``docs/compare.md`` §"Share and export (ui/share.py)").
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

from dp_core.compare import ExplorerConfig, config_from_json, shared_keys
from dp_core.data import DATASETS
from dp_core.text import escape_markdown

from . import state
from .constants import DEFAULT_DATASET

_PENDING_PAGE = "_share_goto"
_PENDING_PARAMS = "_share_goto_params"
_MESSAGE = "_share_message"
_DECISIONS = "_share_decisions"  # the decision log restored from an uploaded configuration
#: The Compare tab the person was on before opening "Share and export" (session key).
SHARED_VIEW = "_cview_before_share"
_BASE_WIDGETS = ("w_eps_slider", "w_eps_num", "w_delta", "w_seed", "w_trials")


def _shared_widgets() -> tuple[str, ...]:
    """The sidebar widgets of the shared settings, the plug-ins' shared parameters (``w_<name>``) included."""
    from dp_core.compare import mechanism_param_specs

    return _BASE_WIDGETS + tuple(f"w_{name}" for name in mechanism_param_specs())


def current_config(page: str, params: Mapping[str, Any] | None = None, *, fingerprint: str = "") -> ExplorerConfig:
    """The configuration of the current view: shared values from ``ui.state`` plus ``params``."""
    shared = {k: state.get(k) for k in shared_keys()}
    shared["bounds"] = ""  # declared bounds belong to an upload (never the raw text of a link)
    upload = state.active_upload()
    if upload is not None:
        from dp_core.preprocessing import format_bounds

        from .widgets import declared_bounds_for

        shared["dataset"] = upload.name
        declared = declared_bounds_for(upload)
        shared["bounds"] = "" if declared is None else format_bounds(declared)
    return ExplorerConfig(**shared, page=page, params=dict(params or {}), dataset_fingerprint=fingerprint)


def shared_view(tab: str) -> str:
    """The Compare tab a link of this view reopens: the open tab, or the one open before "Share and export"
    (a link copied from the Share tab reopens the answer the person was looking at, not the Share tab)."""
    if tab != "share":
        return tab
    return str(st.session_state.get(SHARED_VIEW, "compare"))


def base_url() -> str:
    """The app's address as the browser sees it ('' when unknown, e.g. under AppTest)."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - no request context (tests)
        url = ""
    if not url:
        return ""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def share_link(config: ExplorerConfig) -> str:
    """A link that reopens ``config``'s view (absolute when the app's address is known).

    A view of an uploaded file gives a link with the demo dataset and ``source=upload`` (never the file or
    its name): the page opened from it says that the link was made on an upload (``ui.state``).
    """
    if not str(config.dataset).startswith("upload:"):
        return config.link(base_url())
    link = config.replace(dataset=DEFAULT_DATASET).link(base_url())
    return f"{link}&{urlencode({state.SOURCE_KEY: 'upload'})}"


def apply_config(config: ExplorerConfig) -> list[str]:
    """Restore a configuration into the session (call it from a callback, before widgets exist).

    Returns the messages to show (for example when the dataset was an upload that must be
    uploaded again).
    """
    messages: list[str] = []
    for key in shared_keys():
        value = getattr(config, key)
        if key == "dataset":
            if value in DATASETS:
                st.session_state["p_source"] = "demo"
                state.set_value("dataset", value)
            else:
                messages.append(
                    f"The configuration's dataset “{escape_markdown(value)}” was an upload: upload the same file "
                    "on Home (its fingerprint identifies it); the other settings were restored."
                )
        elif key == "bounds":  # declared for an upload: they apply when that file is uploaded again
            from .widgets import LINK_BOUNDS

            st.session_state[LINK_BOUNDS] = str(_page_value(key, value, messages) or "")
        else:  # the same validation as a link's values (ranges and options of the widgets)
            state.set_value(key, _page_value(key, value, messages))
    for key in _shared_widgets():
        st.session_state.pop(key, None)
    for key, value in config.params.items():
        value = _page_value(key, value, messages)
        st.session_state[key] = value
        st.session_state[f"u_{key}"] = value
    # the page's settings go into the link at once, also those whose widgets are drawn later (an expert
    # section, a fragment) or on another page: a link copied right after the restore reopens the same view
    st.session_state[_PENDING_PARAMS] = {k: state.url_text(st.session_state[k]) for k in config.params}
    if config.page:
        st.session_state[_PENDING_PAGE] = config.page
    messages.insert(
        0,
        f"Configuration restored (ε = {config.eps:g}, δ = {config.delta:g}, seed {config.seed}, "
        f"dataset {escape_markdown(config.dataset)}).",
    )
    return messages


def _page_value(key: str, value: Any, messages: list[str]) -> Any:
    """A page setting of a configuration, read like a link's (its type, range and options; "0.9" is 0.9)."""
    from .constants import url_spec

    try:
        url_spec(key)
    except KeyError:  # not a declared setting (an older page's): kept as written, no widget reads it
        return value
    text = str(value).lower() if isinstance(value, bool) else str(value)
    parsed, problem = state.parse_url_value(key, text)
    if problem:
        messages.append(problem.replace("The link's", "The configuration's"))
    return parsed


def _on_upload(uploader_key: str) -> None:
    file = st.session_state.get(uploader_key)
    if file is None:
        return
    try:
        cfg = config_from_json(file.getvalue())
    except (TypeError, ValueError) as exc:
        st.session_state[_MESSAGE] = ("error", f"This configuration cannot be used: {escape_markdown(exc)}")
        return
    messages = apply_config(cfg)
    from dp_core.export import load_export_config

    try:  # the negotiation's decision log travels in the same file (issue 28)
        st.session_state[_DECISIONS] = load_export_config(file.getvalue())[1]
        st.session_state.pop(uploader_key.removesuffix("_upload") + "_decisions", None)
    except (TypeError, ValueError) as exc:
        messages.append(f"Its decision log was not restored: {escape_markdown(exc)}")
    st.session_state[_MESSAGE] = ("success" if len(messages) == 1 else "warning", " ".join(messages))


def follow_pending_page(current: str) -> None:
    """After an upload restored another page's configuration, switch to that page (call early)."""
    target = st.session_state.pop(_PENDING_PAGE, None)
    params = st.session_state.pop(_PENDING_PARAMS, None) or {}
    if target and target != current:
        st.switch_page(target, query_params=params)  # the shared settings are written by the target page
    if params:
        state.sync_url(params)


def show_messages() -> None:
    msg = st.session_state.pop(_MESSAGE, None)
    if msg:
        kind, text = msg
        {"error": st.error, "warning": st.warning}.get(kind, st.success)(text)


def page_share(page: str, *, key: str, dataset=None) -> None:
    """The "Share and export" section at the foot of a mechanism page, collapsed and drawn when opened: the link,
    the configuration (with the page's settings from its link), the notebook, the script and the brief of this
    view (issue 28); a configuration restored here for another page opens that page. ``dataset``: the page's own
    dataset when it is not the shared one (the large-margin page classifies a demo while Home has census)."""
    from .first_screen import expert_section
    from .widgets import current_dataset

    follow_pending_page(page)
    with expert_section("🔗 Share and export", key=f"{key}_section") as shown:
        if shown:
            params = state.page_link_values(page)
            config = current_config(page, params, fingerprint=current_dataset().fingerprint)
            if dataset is not None and dataset.name != config.dataset:
                config = config.replace(dataset=dataset.name, dataset_fingerprint=dataset.fingerprint)
            share_panel(config, key=key)


def share_panel(
    config: ExplorerConfig,
    *,
    key: str = "share",
    report: Callable[[], tuple[str, str]] | None = None,
    report_name: str = "privacy_utility_report",
) -> None:
    """Copy link, JSON download / upload of ``config``; with ``report`` (returns ``(html, csv)``) their downloads."""
    show_messages()
    st.markdown("**Link to this view** (the copy icon puts it on the clipboard):")
    st.code(share_link(config), language=None, wrap_lines=True)
    from .widgets import bounds_link_note  # what the link carries of an upload's bounds (issue 24)

    if note := bounds_link_note(state.active_upload()):
        st.caption("🔗 " + note)
    decisions = export_panel(config, key)
    c1, c2 = st.columns(2)
    c1.download_button(
        "⬇️ Configuration (JSON)",
        json.dumps({**config.to_dict(), "decisions": decisions}, indent=2) if decisions else config.to_json(),
        file_name="dp_explorer_config.json",
        mime="application/json",
        key=f"{key}_json",
        width="stretch",
        help="Everything needed to reopen this view or re-run its numbers: "
        "python -m dp_core report --config dp_explorer_config.json --out report.html",
    )
    if report is not None:
        html, csv = report()
        c2.download_button(
            "⬇️ Results (CSV)", csv, file_name="results.csv", mime="text/csv", key=f"{key}_csv", width="stretch"
        )
        st.download_button(
            "📄 Download the HTML report",
            html,
            file_name=f"{report_name}.html",
            mime="text/html",
            key=f"{key}_report",
            type="primary",
            width="stretch",
            help="Interactive figures, parameters, dataset fingerprint, software versions and the "
            "configuration; opens offline.",
        )
    st.file_uploader(
        "Restore a configuration (JSON)",
        type=["json"],
        key=f"{key}_upload",
        on_change=_on_upload,
        args=(f"{key}_upload",),
        help="Upload a configuration downloaded from this app or taken from a report.",
    )


def _decision_log(key: str) -> list[dict]:
    """The decision log's editor (rows restored from an uploaded configuration); the valid log, or []."""
    import pandas as pd

    from dp_core.export import DECISION_FIELDS, check_decisions

    st.markdown("**Decision log** of the negotiation (who proposed which ε, the one chosen); shown on the brief:")
    start = pd.DataFrame(st.session_state.get(_DECISIONS, []), columns=list(DECISION_FIELDS))
    start["date"] = pd.to_datetime(start["date"], errors="coerce").dt.date
    edited = st.data_editor(
        start.astype({"chosen": bool}),
        num_rows="dynamic",
        hide_index=True,
        key=f"{key}_decisions",
        width="stretch",
        column_config={
            "epsilon": st.column_config.NumberColumn("ε proposed", min_value=1e-6, format="%g"),
            "chosen": st.column_config.CheckboxColumn("chosen"),
            "date": st.column_config.DateColumn("date", format="YYYY-MM-DD"),
            "note": st.column_config.TextColumn("note", max_chars=500),
            "who": st.column_config.TextColumn("who", max_chars=500),
        },
    )

    def text(v) -> str:
        return str(v) if pd.notna(v) and v else ""

    rows = [
        {
            "who": text(r["who"]),
            "epsilon": None if pd.isna(r["epsilon"]) else float(r["epsilon"]),
            "chosen": bool(r["chosen"]) if pd.notna(r["chosen"]) else False,
            "date": r["date"].isoformat() if pd.notna(r["date"]) else "",
            "note": text(r["note"]),
        }
        for r in edited.to_dict(orient="records")
        if pd.notna(r["epsilon"]) or text(r["who"])
    ]
    try:
        return check_decisions(rows)
    except (TypeError, ValueError) as exc:
        st.warning(f"The decision log is not saved until it is valid: {escape_markdown(exc)}")
        return []


def export_panel(config: ExplorerConfig, key: str) -> list[dict]:
    """The decision log's editor and the notebook / script / brief downloads of ``config`` (issue 28,
    ``docs/export.md``); returns the valid decision log (kept in the JSON configuration)."""
    from dp_core.export.brief import brief_html
    from dp_core.export.notebook import notebook_json
    from dp_core.export.script import script_text

    decisions = _decision_log(key)
    upload = str(config.dataset).startswith("upload:")
    downloads = (
        ("Notebook (.ipynb)", notebook_json, "dp_explorer_view.ipynb", "application/x-ipynb+json", "nb", False),
        ("Script (.py)", script_text, "dp_explorer_view.py", "text/x-python", "py", False),
        ("One-page brief (HTML)", brief_html, "privacy_brief.html", "text/html", "brief", upload),
    )
    helps = (
        "Recomputes this view with dp_core (same seeds, same numbers); run it with Jupyter.",
        "The same as a script; python dp_explorer_view.py --csv YOUR.csv also releases the private model.",
        "An A4 privacy label with the decision log, for a negotiation (print it to PDF)."
        + (" Not for an upload: the brief recomputes from a demo dataset." if upload else ""),
    )
    for col, (label, make, file_name, mime, suffix, disabled), help_text in zip(st.columns(3), downloads, helps):
        col.download_button(
            f"⬇️ {label}",
            functools.partial(make, config, decisions),
            file_name=file_name,
            mime=mime,
            key=f"{key}_{suffix}",
            width="stretch",
            disabled=disabled,
            help=help_text,
        )
    return decisions
