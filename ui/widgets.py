"""Shared widgets: the privacy budget, bag parameters, seed and trials, the current dataset."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import streamlit as st

from dp_core import display
from dp_core import status as vocab
from dp_core.data import DATASETS, Dataset
from dp_core.text import escape_markdown

from . import cached, state
from .constants import EPS_LARGE, EPS_NOTE_HIGH, EPS_NOTE_LOW, EPS_OPTIONS, EPS_SLIDER_ENDS, EPS_SMALL, url_spec

LABEL_CLAIMED = vocab.CLAIMED
LABEL_CORRECTED = "corrected"
LABEL_MEASURED = "measured"


_ROOT = Path(__file__).resolve().parents[1]


def _nearest(options, value: float) -> float:
    arr = np.asarray(options, dtype=float)
    return float(arr[np.argmin(np.abs(np.log(arr) - math.log(max(value, 1e-300))))])


def _on_eps_slider() -> None:
    v = float(st.session_state["w_eps_slider"])
    state.set_value("eps", v)
    st.session_state["w_eps_num"] = v


def _on_eps_num() -> None:
    v = float(st.session_state["w_eps_num"])
    state.set_value("eps", v)
    st.session_state["w_eps_slider"] = _nearest(EPS_OPTIONS, v)


def _on_delta() -> None:
    state.set_value("delta", float(st.session_state["w_delta"]))


def epsilon_delta_controls(*, container=None, show_delta: bool = True) -> tuple[float, float]:
    """The privacy budget: epsilon on a log slider (0.01 to 10) with direct entry, and delta.

    Returns the canonical ``(epsilon, delta)``. Widgets are seeded from the canonical values, which
    come from the URL on a session's first run.
    """
    box = st.sidebar if container is None else container
    spec = url_spec("eps")  # the declared range (URL_PARAMS); the slider shows readable values inside it
    eps = float(min(max(state.get("eps"), spec.lo), spec.hi))
    state.set_value("eps", eps)
    # Re-seed the widgets from the canonical values on every run: after a page switch Streamlit treats
    # the sidebar widgets as new ones and would otherwise show their first option (eps 0.01, delta 1e-12).
    st.session_state["w_eps_slider"] = _nearest(EPS_OPTIONS, eps)
    st.session_state["w_eps_num"] = eps
    box.select_slider(
        "Privacy budget ε (log scale)",
        options=EPS_OPTIONS,
        key="w_eps_slider",
        format_func=display.epsilon,
        on_change=_on_eps_slider,
        help="Smaller ε = stronger privacy = more noise. Any conclusion about one person can change "
        "by a factor of at most e^ε.",
    )
    ends = box.columns(2)
    ends[0].caption(EPS_SLIDER_ENDS[0])
    ends[1].caption(EPS_SLIDER_ENDS[1], text_alignment="right")
    box.number_input(
        "ε (exact value)",
        min_value=float(spec.lo),
        max_value=float(spec.hi),
        step=0.01,
        format="%.4g",
        key="w_eps_num",
        on_change=_on_eps_num,
    )
    if note := eps_note(float(state.get("eps"))):
        box.info(note, icon="🔒" if state.get("eps") <= EPS_SMALL else "⚠️")
    delta = float(state.get("delta"))
    if show_delta:
        delta_options = url_spec("delta").options
        st.session_state["w_delta"] = _nearest(delta_options, delta)
        box.select_slider(
            "Failure probability δ",
            options=delta_options,
            key="w_delta",
            format_func=display.delta,
            on_change=_on_delta,
            help="The probability that the ε guarantee may fail. Keep it well below 1/n.",
        )
        delta = float(st.session_state["w_delta"])
        state.set_value("delta", delta)
    return float(state.get("eps")), delta


def eps_note(eps: float) -> str:
    """The plain note beside the ε slider at very large (≥ EPS_LARGE) or very small (≤ EPS_SMALL) ε, else ''."""
    if eps >= EPS_LARGE:
        text, limit = EPS_NOTE_HIGH, EPS_LARGE
    elif eps <= EPS_SMALL:
        text, limit = EPS_NOTE_LOW, EPS_SMALL
    else:
        return ""
    return text.format(eps=display.epsilon(eps), limit=display.epsilon(limit), factor=display.number(math.exp(eps)))


def _shared_number(name: str, kind: type, label: str, lo, hi, step, help: str | None, container):
    """The number input of the shared parameter ``name``, its value clamped to ``[lo, hi]`` (said so)."""
    box = st if container is None else container
    lo, hi = kind(lo), kind(hi)
    asked = state.get(name)
    value = kind(min(max(asked, lo), hi))
    state.set_value(name, value)
    if value != asked:  # e.g. a link's k = 1 on a page whose smallest bag is 2: say so, never silently
        box.warning(f"{label}: {asked:g} is outside this page's range [{lo:g}, {hi:g}]; using {value:g}.", icon="↔️")
    fmt_kw = {"format": "%.4g"} if kind is float else {}
    _shared_widget(box.number_input, name, label, kind, min_value=lo, max_value=hi, step=step, help=help, **fmt_kw)
    return kind(state.get(name))


def _shared_widget(draw, name: str, label: str, convert=str, **kwargs) -> None:
    """``draw`` (a Streamlit widget) for the shared parameter ``name`` under the key ``w_<name>``, seeded from the
    canonical value; a change is copied back to it (through ``convert``)."""
    wkey = f"w_{name}"
    if wkey not in st.session_state:
        st.session_state[wkey] = state.get(name)

    def _copy() -> None:
        state.set_value(name, convert(st.session_state[wkey]))

    draw(label, key=wkey, on_change=_copy, **kwargs)


def _declared_range(name: str, lo, hi, fallback: tuple) -> tuple:
    """``(lo, hi)`` of a shared number: the caller's, else its declaration (``URL_PARAMS`` or a plug-in's
    ``ParamSpec``, e.g. label-DP's ``k``), else ``fallback``."""
    try:
        spec = url_spec(name)
    except KeyError:
        spec = None
    dlo = spec.lo if spec is not None and spec.lo is not None else fallback[0]
    dhi = spec.hi if spec is not None and spec.hi is not None else fallback[1]
    return (dlo if lo is None else lo), (dhi if hi is None else hi)


def shared_int(
    name: str,
    label: str,
    *,
    lo: int | None = None,
    hi: int | None = None,
    step: int = 1,
    help: str | None = None,
    container=None,
) -> int:
    """A shared integer parameter (``k``, ``m``, ``seed``, ...) that survives page switches and is in the URL.

    Its range is the declared one (:func:`ui.constants.url_spec`) unless ``lo``/``hi`` narrow it.
    """
    return _shared_number(name, int, label, *_declared_range(name, lo, hi, (0, 10**9)), step, help, container)


def shared_float(
    name: str,
    label: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    step: float = 0.01,
    help: str | None = None,
    container=None,
) -> float:
    """A shared float parameter (``rho``, ...) that survives page switches and is in the URL.

    Its range is the declared one (:func:`ui.constants.url_spec`) unless ``lo``/``hi`` narrow it.
    """
    return _shared_number(name, float, label, *_declared_range(name, lo, hi, (0.0, 1e9)), step, help, container)


def seed_trials_controls(*, container=None) -> tuple[int, int]:
    """The Monte-Carlo seed and number of trials (sidebar)."""
    box = st.sidebar if container is None else container
    seed_range = _declared_range("seed", None, None, (0, 2**31 - 1))
    seed = _shared_number("seed", int, "Random seed", *seed_range, 1, "Same seed, same numbers.", box)
    trial_options = url_spec("trials").options
    trials = int(state.get("trials"))
    if trials not in trial_options:
        trials = min(trial_options, key=lambda t: abs(t - trials))
        state.set_value("trials", trials)
    _shared_widget(
        box.select_slider,
        "trials",
        "Monte-Carlo trials",
        int,
        options=trial_options,
        help="How many times each mechanism is run to measure its utility.",
    )
    return seed, int(state.get("trials"))


#: Session key: public bounds declared for uploads, ``{fingerprint of the uploaded data: PublicBounds}``.
DECLARED_BOUNDS = "upload_declared_bounds"
#: Session key: ``{fingerprint: matches}`` of declared bounds whose data-derived values were acknowledged.
ACKNOWLEDGED = "upload_bounds_acknowledged"
#: Session key: the declared bounds of the link that opened the session, until a file takes them.
LINK_BOUNDS = "_link_bounds"
#: Session key: one message about the link's bounds for Home (``(kind, text)``).
BOUNDS_MESSAGE = "_bounds_message"
_DECLARED_DS = "_declared_dataset"


def _link_bounds() -> str:
    """The link's declared bounds, read once per session (they wait for the upload they belong to)."""
    if LINK_BOUNDS not in st.session_state:
        st.session_state[LINK_BOUNDS] = str(state.get("bounds") or "") if state.url_gave("bounds") else ""
    return st.session_state[LINK_BOUNDS]


def _same_upload(a: Dataset, b: Dataset) -> bool:
    keys = ("fingerprint", "name", "task", "feature_names", "target_name", "notes")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def keep_upload(ds: Dataset) -> None:
    """Keep ``ds`` as this session's uploaded dataset, unless the session already holds the same one.

    Home parses the file on every run; storing each run's new (equal) object would leave the previous run's
    copy in Streamlit's old session state as well, two copies of the arrays per session (issue 24).
    """
    held = st.session_state.get("upload_dataset")
    if held is None or not _same_upload(held, ds):
        st.session_state["upload_dataset"] = ds


def declared_bounds_for(raw: Dataset):
    """The public bounds declared in this session for the uploaded ``raw`` data, or ``None``."""
    return st.session_state.get(DECLARED_BOUNDS, {}).get(raw.fingerprint)


def derived_bounds(raw: Dataset):
    """``bounds_from_data(raw.X)``, computed once per uploaded dataset and kept in this session only."""
    from dp_core.preprocessing import bounds_from_data

    return _session_memo("_derived_bounds", raw, lambda r: bounds_from_data(r.X))


def _session_memo(key: str, ds: Dataset, compute):
    """``compute(ds)``, kept under ``key`` in this session only, for one dataset at a time."""
    memo = st.session_state.setdefault(key, {})
    if ds.fingerprint not in memo:
        memo.clear()
        memo[ds.fingerprint] = compute(ds)
    return memo[ds.fingerprint]


def data_derived_matches(raw: Dataset, bounds) -> tuple:
    """The values of ``bounds`` that are ``raw``'s own statistics (``dp_core.preprocessing.data_derived_matches``)."""
    from dp_core.preprocessing import data_derived_matches as matches

    return matches(bounds, derived_bounds(raw), raw.feature_names)


def declare_bounds(raw: Dataset, bounds, *, acknowledged: bool = False) -> tuple:
    """Declare ``bounds`` public for the uploaded ``raw`` data (``None``: back to data-derived bounds).

    Checked first; values equal to the data's own statistics are returned instead unless ``acknowledged``
    (empty: declared). Kept for the session and put in the URL by :func:`current_dataset`.
    """
    from dp_core.preprocessing import format_bounds

    store = st.session_state.setdefault(DECLARED_BOUNDS, {})
    acks = st.session_state.setdefault(ACKNOWLEDGED, {})
    if bounds is not None:
        raw.with_public_bounds(bounds)  # validates against the file's features
        matches = data_derived_matches(raw, bounds)
        if matches and not acknowledged:
            return matches
        store[raw.fingerprint] = bounds
        acks[raw.fingerprint] = matches
    else:
        store.pop(raw.fingerprint, None)
        acks.pop(raw.fingerprint, None)
    st.session_state.pop(_DECLARED_DS, None)
    state.set_value("bounds", "" if bounds is None else format_bounds(bounds))
    return ()


def acknowledged_matches(raw: Dataset) -> tuple:
    """The data-derived values in the bounds declared for ``raw``, published by acknowledgement (or ``()``)."""
    if declared_bounds_for(raw) is None:
        return ()
    return st.session_state.get(ACKNOWLEDGED, {}).get(raw.fingerprint, ())


def _take_link_bounds(raw: Dataset) -> None:
    """Apply a link's declared bounds to the first upload (the same file uploaded again)."""
    from dp_core.preprocessing import parse_bounds

    pending = _link_bounds()
    if not pending or declared_bounds_for(raw) is not None:
        return
    st.session_state[LINK_BOUNDS] = ""  # used once
    try:
        matches = declare_bounds(raw, parse_bounds(pending, raw.feature_names))
    except (TypeError, ValueError) as exc:
        st.session_state[BOUNDS_MESSAGE] = (
            "warning",
            f"The link's declared public bounds do not fit this file ({escape_markdown(exc)}). Bounds computed "
            "from the data are used until you declare public ones.",
        )
    else:
        if matches:
            st.session_state[BOUNDS_MESSAGE] = (
                "warning",
                "The link's bounds were not applied: some are this file's own statistics "
                f"({describe_matches(matches)}). Declare public ones in the table below.",
            )
            return
        st.session_state[BOUNDS_MESSAGE] = ("info", "The link's declared public bounds apply to this file.")


def describe_matches(matches) -> str:
    """``age: minimum, mean; hours: maximum`` (columns shortened to 40 characters, at most 8 listed), as Markdown:
    the file's column names are escaped."""
    parts = [f"{escape_markdown(str(col)[:40])}: {', '.join(stats)}" for col, stats in matches[:8]]
    more = len(matches) - 8
    return "; ".join(parts) + (f"; and {more} more column{'s' if more > 1 else ''}" if more > 0 else "")


def bounds_link_note(raw: Dataset | None) -> str:
    """The sentence beside a share link on what it carries of an upload's bounds ('' for a demo dataset)."""
    if raw is None:
        return ""
    if declared_bounds_for(raw) is None:
        return (
            "This link carries no column bounds: bounds computed from your data are never put in a link "
            "(declare public ones on Home)."
        )
    matches = acknowledged_matches(raw)
    if matches:
        return (
            "This link carries the declared bounds, including values that are your data's own statistics, as you "
            f"acknowledged on Home ({describe_matches(matches)})."
        )
    return "This link carries the bounds you declared public; none of them is one of your data's own statistics."


def _set_url_bounds(text: str) -> None:
    """Keep the shared ``bounds`` (and the URL, if this run already wrote it) equal to ``text``."""
    if state.get("bounds") != text:
        state.set_value("bounds", text)
        state.sync_url()


def uses_upload() -> bool:
    """True when the Home page dataset of this session is the visitor's accepted upload."""
    return state.active_upload() is not None


def prefer_upload(choice: str, value: str, ds: Dataset, *, fits: bool) -> None:
    """Point the page's own dataset box ``choice`` at ``value`` (the Home page dataset) once per upload.

    A page that offers its own datasets (the large-margin page's demo data) opens on the visitor's
    upload when it fits, instead of a synthetic default; the visitor may still pick another dataset, and
    a later upload is offered again. Call it before the box is drawn; ``fits`` is the page's own test.
    """
    if not (fits and uses_upload()):
        return
    seen = f"_upload_offered_{choice}"
    if st.session_state.get(seen) != ds.fingerprint:
        st.session_state[seen] = ds.fingerprint
        state.set_widget(choice, value)


def upload_not_used(ds: Dataset, why: str) -> str:
    """The plain sentence a page shows when the visitor's upload does not fit it ('' without an upload)."""
    if not uses_upload():
        return ""
    return f"Your upload “{escape_markdown(ds.name.removeprefix('upload:'))}” is not used on this page: {why}"


def current_dataset() -> Dataset:
    """The dataset the user picked on Home: a demo dataset or the accepted upload of this session.

    An upload carries the public bounds declared for it on Home (or by the link that opened the
    session), and the URL's ``bounds`` follows them.
    """
    from dp_core.preprocessing import format_bounds

    _link_bounds()
    state.sync_source_marker()  # a link copied from now on says it was made on an upload
    raw = state.active_upload()
    if raw is not None:
        _take_link_bounds(raw)
        bounds = declared_bounds_for(raw)
        _set_url_bounds("" if bounds is None else format_bounds(bounds))
        if bounds is None:
            return raw
        key = (raw.fingerprint, state.get("bounds"))
        kept = st.session_state.get(_DECLARED_DS)
        if kept is None or kept[0] != key:
            kept = (key, raw.with_public_bounds(bounds))
            st.session_state[_DECLARED_DS] = kept
        return kept[1]
    _set_url_bounds("")
    name = state.get("dataset")
    if name not in DATASETS:
        name = "census"
        state.set_value("dataset", name)
    return cached.load_demo(name)


def show_error(exc: BaseException, *, prefix: str = "") -> None:
    """Show a dp_core error as a message (never a traceback)."""
    st.error(escape_markdown(display.message(f"{prefix}{exc}")), icon="⚠️")  # it may quote a file's contents


def table(
    data, *, key: str | None = None, formats=None, headers=None, sig: int = 3, index: bool | None = None, height=None
) -> None:
    """Show a table to people: every header and cell formatted by ``dp_core.display.table``
    (human headers, no nan/inf/None, no float dust)."""
    kwargs = {"hide_index": True, "width": "stretch", "key": key}
    if height is not None:
        kwargs["height"] = height
    st.dataframe(display.table(data, formats=formats, headers=headers, sig=sig, index=index), **kwargs)


def guarantee_badge(kind: str, text: str) -> None:
    """A labelled statement: kind is 'claimed' (claimed by the paper), 'corrected' (proved), 'measured' or
    'broken' (refuted); the status words are :mod:`dp_core.status`'s."""
    if kind not in _BADGES:
        raise ValueError(f"kind must be one of 'claimed', 'corrected', 'measured', 'broken', got {kind!r}.")
    show, head, icon = _BADGES[kind]
    show(f"**{head}:** {text}", icon=icon)


_BADGES = {
    "claimed": (st.info, LABEL_CLAIMED.capitalize(), "📄"),
    "corrected": (st.success, f"{vocab.PROVED.capitalize()} ({LABEL_CORRECTED})", "✅"),
    "measured": (st.info, LABEL_MEASURED.capitalize(), "📏"),
    "broken": (st.error, f"{vocab.REFUTED.capitalize()}, not a valid guarantee", "⛔"),
}


def public_bounds(ds: Dataset):
    """The dataset's per-column bounds (:func:`dp_core.data.public_bounds`), kept in this session only.

    Not a shared cache: for an upload they are computed from its records, which must never reach another
    session; for a demo dataset they are constants.
    """
    from dp_core.data import public_bounds as _public_bounds

    return _session_memo("_public_bounds", ds, _public_bounds)


def dataset_badge(ds: Dataset) -> None:
    """One line under a page's title: the dataset, and where its per-column bounds come from."""
    b = public_bounds(ds)
    if b.data_derived:
        origin = "bounds computed from the data (see Home)"
    elif ds.declared_bounds is not None:
        origin = "declared public bounds"
    else:
        origin = "documented public bounds"
    st.caption(
        f"Dataset: **{escape_markdown(ds.name)}** · {display.integer(ds.n)} rows × {display.integer(ds.d)} features · "
        f"{ds.task} · {origin} · rows: {state.get('preprocess')}"
    )


def preprocess_control(*, container=None) -> str:
    """The shared row-preprocessing rule (``preprocess``): kept across pages and in the URL."""
    from dp_core.preprocessing import PREPROCESS_HELP

    box = st if container is None else container
    _shared_widget(
        box.radio,
        "preprocess",
        "How rows reach the unit ball",
        options=url_spec("preprocess").options,
        format_func=lambda k: f"{k}: {PREPROCESS_HELP[k]}",
        help="Every mechanism assumes ‖x‖ ≤ 1. Each rule uses only the public bounds below and one record at a "
        "time, so it costs no privacy; 'normalize' keeps the most accuracy.",
    )
    return str(state.get("preprocess"))


#: An accessibility rule the theme cannot express: the collapsed sidebar (a phone) is hidden from the keyboard
#: too (visibility: hidden takes its widgets out of the Tab order; they were focused and moved while off screen).
A11Y_CSS = """<style>
section[data-testid="stSidebar"][data-collapsed="true"],
section[data-testid="stSidebar"][data-collapsed="true"] * { visibility: hidden !important; }
</style>"""


def sidebar_controls(page: str | None = None) -> tuple[float, float, int, int]:
    """The shared sidebar of every page (call it first; not in ``app.py``: AppTest drops elements around
    ``pg.run()``): returns ``(epsilon, delta, seed, trials)``.
    """
    from .errors import install
    from .pages import PAGES

    install()  # the page's error boundary (ui.errors), also when Streamlit runs this page without app.py
    st.html(A11Y_CSS)
    with st.sidebar:
        for path, title, icon, _desc in PAGES:
            st.page_link(path, label=title, icon=icon)
        st.divider()
        st.markdown("### 🔐 Privacy budget")
        eps, delta = epsilon_delta_controls(container=st.sidebar)
        with st.expander("Monte-Carlo settings", expanded=False):
            seed, trials = seed_trials_controls(container=st)
    # the link's values for this page, also those of widgets in sections that are still closed
    if page is None:  # the calling page file (the generic shell passes the plug-in's page)
        caller = Path(sys._getframe(1).f_globals.get("__file__") or "").resolve()
        page = caller.relative_to(_ROOT).as_posix() if caller.is_relative_to(_ROOT) else caller.as_posix()
    state.check_page_links(page)
    state.show_url_problems(page)
    state.sync_url()
    return eps, delta, seed, trials


def audit_link(mechanism: str, mode: str | None = None, *, label: str = "Audit this mechanism") -> None:
    """A link to the Privacy audit page with this mechanism (and mode) preselected."""
    params = {"mechanism": mechanism}
    if mode:
        params["audit_mode"] = mode
    st.page_link(
        "pages/audit.py", label=f"{label}: measure how much privacy it really gives", icon="🔍", query_params=params
    )
