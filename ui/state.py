"""Shared parameters and URL values: one canonical value per name in ``st.session_state``, mirrored in the URL.

Canonical values live under ``p_<name>``, widgets under ``w_<name>``; every link value is untrusted and parsed only here
(:func:`parse_url_value`). Rules: ``docs/foundation.md`` §"Shared parameters and link values (ui/state.py)".
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import streamlit as st

from dp_core._validation import HUGE, TINY
from dp_core.data import DATASETS
from dp_core.text import escape_markdown

from .constants import HIGHER_IS_PRIVATE, LOWER_IS_PRIVATE, SHARED_PARAMS, UrlParam, url_spec

_LOADED = "_qp_loaded"
_PROBLEMS = "_url_problems"
_BOX = "_url_box"
_URL_KEYS = "_url_first_keys"
_EXTRA_SHARED = "_plugin_shared_names"  # plug-ins' shared parameters read so far (kept in the URL too)
_MAX_RAW = 60  # characters of a hostile value quoted in a message
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


# ------------------------------------------------------------------ pure parsing
def _quote(raw: str) -> str:
    """A link's value for a message: shortened, and escaped so that Markdown in it shows as text."""
    text = raw if len(raw) <= _MAX_RAW else f"{raw[:20]}…{raw[-8:]} ({len(raw):,} characters)"
    return f"“{escape_markdown(text)}”"


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    return f"“{escape_markdown(v)}”"  # options may come from the data (an upload's classes)


def valid_text(spec: UrlParam, options: tuple | None = None, lo: float | None = None, hi: float | None = None) -> str:
    """The accepted values of ``spec`` in words (for messages)."""
    options, lo, hi = _limits(spec, options, lo, hi)
    if spec.kind is bool:
        return "0 or 1"
    if options is not None:
        shown = list(options)
        if len(shown) > 8:
            return f"one of {len(shown)} values from {_show(shown[0])} to {_show(shown[-1])}"
        return "one of " + ", ".join(_show(o) for o in shown)
    what = "an integer" if spec.kind is int else "a number"
    if lo is not None and hi is not None:
        return f"{what} from {_show(lo)} to {_show(hi)}" + (f" in steps of {_show(spec.step)}" if spec.step else "")
    if spec.kind is str:
        return "a known name"
    return what


def _limits(spec: UrlParam, options: Any = None, lo: float | None = None, hi: float | None = None) -> tuple:
    """``(options, lo, hi)`` of ``spec``, each replaced where given (they may depend on the data)."""
    opts = (tuple(spec.options) if spec.options else None) if options is None else tuple(options)
    return opts, (spec.lo if lo is None else lo), (spec.hi if hi is None else hi)


def _number(raw: str, kind: type) -> float | int | None:
    """``raw`` as a finite number (an int for ``kind`` int), or ``None`` when it is not one."""
    text = raw.strip()
    if not text or len(text) > 400:  # a 5,000-digit number is not a setting
        return None
    try:
        v = float(text)
    except (OverflowError, ValueError):
        return None
    if not math.isfinite(v):  # nan, inf, and overflow such as 1e309
        return None
    if kind is int:
        if not v.is_integer():
            return None
        return int(v)
    return v


def _snap(options: tuple, v: float, private: str | None) -> Any:
    """The option nearest to ``v`` (log scale for positive options); between two, the more private one."""
    nums = [float(o) for o in options]
    if v <= min(nums):
        return options[nums.index(min(nums))]
    if v >= max(nums):
        return options[nums.index(max(nums))]
    below = max(o for o in nums if o <= v)
    above = min(o for o in nums if o >= v)
    if private == LOWER_IS_PRIVATE:
        pick = below
    elif private == HIGHER_IS_PRIVATE:
        pick = above
    elif below > 0:
        pick = below if math.log(v / below) <= math.log(above / v) else above
    else:
        pick = below if v - below <= above - v else above
    return options[nums.index(pick)]


def parse_url_value(
    name: str,
    raw: Any,
    *,
    default: Any = None,
    options: tuple | None = None,
    lo: float | None = None,
    hi: float | None = None,
) -> tuple[Any, str | None]:
    """Parse the link's value ``raw`` of parameter ``name``: ``(value to use, message or None)``.

    ``default``, ``options``, ``lo`` and ``hi`` override the declaration in ``URL_PARAMS`` when they
    depend on the data (for example the classes of the current dataset). The message names the
    parameter, quotes the value received, states the valid values and the value used instead.
    """
    spec = url_spec(name)
    default = spec.default if default is None else default
    options, lo, hi = _limits(spec, options, lo, hi)
    raw = "" if raw is None else str(raw)
    valid = valid_text(spec, options, lo, hi)
    label = f"{spec.label} ({name})" if spec.label else name

    def refused(why: str) -> tuple[Any, str]:
        return default, (
            f"The link's {label} = {_quote(raw)} {why}; it must be {valid}. Using the default {_show(default)}."
        )

    if spec.kind is bool or spec.kind is str:
        return _parse_choice(name, raw, spec, options, default, refused)
    return _parse_number(raw, spec, options, lo, hi, refused, f"The link's {label} = {_quote(raw)}", valid)


def _parse_choice(name: str, raw: str, spec, options, default, refused) -> tuple[Any, str | None]:
    """A yes/no or text value of a link (one choice, or several separated by commas)."""
    if spec.kind is bool:
        low = raw.strip().lower()
        if low in _TRUE:
            return True, None
        if low in _FALSE:
            return False, None
        return refused("is not a yes/no value")
    if spec.multi:  # the only other kind parsed here: str
        items = [s for s in raw.split(",") if s]
        if raw == "all" or (items and (options is None or all(s in options for s in items))):
            return raw, None
        return refused("names an unknown choice")
    if options is None or raw in options:
        return raw, None
    if name == "dataset" and raw.startswith("upload:"):
        # an uploaded file never travels with a link (it stays in the session that uploaded it)
        return default, (
            "This link was made while an uploaded file was in use. Uploaded files stay in the "
            "session that uploaded them and are never shared by a link: upload the file again "
            f"on Home to see this view with it. Showing the demo dataset {_show(default)} meanwhile."
        )
    return refused("is not one of the choices")


def _parse_number(raw: str, spec, options, lo, hi, refused, said: str, valid: str) -> tuple[Any, str | None]:
    """A number of a link, clamped to [lo, hi], on the step and snapped to the options, saying how."""
    v = _number(raw, spec.kind)
    if v is None:
        if spec.kind is int and _number(raw, float) is not None:
            return refused("is not a whole number")
        return refused("is not a finite number")
    if v != 0 and not (TINY <= abs(v) <= HUGE):  # the engine refuses such values (subnormal or overflowing)
        return refused(f"cannot be computed with (non-zero values must lie between {TINY:g} and {HUGE:g} in size)")
    used: Any = v
    if lo is not None and v < lo:
        used = spec.kind(lo)
    elif hi is not None and v > hi:
        used = spec.kind(hi)
    if spec.step and lo is not None:
        stepped = lo + round((used - lo) / spec.step) * spec.step
        used = spec.kind(round(min(max(stepped, lo), hi if hi is not None else stepped), 10))
    if options is not None and used not in options:
        used = _snap(options, float(used), spec.private)
    if used == v:
        return v, None
    if spec.private and ((spec.private == LOWER_IS_PRIVATE) == (used > v)):
        how = (
            ", the most private value this page offers. That is a weaker guarantee than the link asked for: "
            "the app cannot run the link's value."
        )
    elif spec.private:
        how = ", which is more private than the link's value."
    else:
        how = ", the nearest accepted value."
    return used, f"{said} is not accepted here ({valid}). Using {_show(used)}{how}"


# ------------------------------------------------------------------ repeated keys, the upload marker
#: The URL key that says a link was made while an uploaded file was in use (``source=upload``): links never
#: carry the file, so the page opened from such a link says so instead of silently showing a demo dataset.
SOURCE_KEY = "source"
_TIMES = {2: "twice", 3: "three times"}


def repeated_message(name: str, values: list[str] | tuple[str, ...], default: Any) -> str:
    """The message about a link that gives ``name`` more than once (``?eps=0.1&eps=10``): none is applied."""
    try:
        label = url_spec(name).label
    except KeyError:
        label = ""
    what = f"{label} ({name})" if label else name
    times = _TIMES.get(len(values), f"{len(values)} times")
    none = "neither was" if len(values) == 2 else "none was"
    shown = ", ".join(_quote(v) for v in values[:6]) + (", …" if len(values) > 6 else "")
    return f"The link gives {what} {times} ({shown}); {none} applied. Using the default {_show(default)}."


def link_raw(name: str) -> tuple[str | None, list[str] | None]:
    """The link's one value of ``name`` (``None`` when absent or given more than once) and, when the key is
    repeated, every value it was given (to report; a repeated key is never applied: which one was meant?)."""
    values = st.query_params.get_all(name)
    if len(values) > 1:
        return None, list(values)
    return (values[0] if values else None), None


def page_link_values(page: str) -> dict[str, str]:
    """The settings declared for ``page`` that its URL carries now, each read and checked as a link's value (one
    refused, repeated or undeclared is left out), in their link form: what a configuration of the view holds."""
    out = {}
    for name in list(st.query_params):
        try:
            spec = url_spec(name)
        except KeyError:  # not a declared setting: never carried into a download
            continue
        raw, _repeated = link_raw(name)
        if spec.page == page and raw is not None:
            value, problem = parse_url_value(name, raw)
            if problem is None:
                out[name] = url_text(value)
    return out


UPLOAD_LINK_MESSAGE = (
    "This link was made on an uploaded file, which links never carry (an upload stays in the browser session "
    "that uploaded it): upload the file on Home to see the same view. Showing the demo dataset {dataset} meanwhile."
)


def _check_source_marker() -> None:
    """On a session's first run: report a link made during an upload (``source=upload``) or a bad marker."""
    raw, repeated = link_raw(SOURCE_KEY)
    if repeated is not None:
        _record(SOURCE_KEY, repeated_message(SOURCE_KEY, repeated, "demo"))
    elif raw == "upload":
        _record(SOURCE_KEY, UPLOAD_LINK_MESSAGE.format(dataset=_show(st.session_state.get("p_dataset"))))
    elif raw is not None and raw != "demo":
        message = f"The link's data source ({SOURCE_KEY}) = {_quote(raw)} is not “demo” or “upload”; ignored."
        _record(SOURCE_KEY, message)


# ------------------------------------------------------------------ where a shared parameter applies
_COMPARE_PAGE = "pages/compare.py"


def pages_of(name: str) -> frozenset[str] | None:
    """The pages that use the shared parameter ``name`` (a plug-in's parameter: its page and, for a comparison
    parameter, Compare), or ``None`` when every page does; only there can its link value give a message.
    """
    from dp_core.registry import plugins

    owners: set[str] = set()
    for plugin in plugins():
        if plugin.page and any(p.name == name and not p.url_prefix for p in plugin.params):
            owners.add(plugin.page)
            if name in plugin.compare_params:
                owners.add(_COMPARE_PAGE)
    return frozenset(owners) or None


def applies_on(name: str, page: str) -> bool:
    """Whether a shared parameter's link message belongs on ``page`` (a page file; ``""``: unknown, yes)."""
    owners = pages_of(name) if name != SOURCE_KEY else None
    return not page or owners is None or page in owners


# ------------------------------------------------------------------ messages
def _page_hash() -> str:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return "" if ctx is None else str(ctx.page_script_hash)
    except Exception:  # noqa: BLE001 - outside a script run
        return ""


def _record(name: str, message: str, page_hash: str | None = None) -> None:
    """Keep ``message`` for the session; show it now if the page's message area already exists.

    ``page_hash`` names the page a page parameter's message belongs to (default: the running page).
    """
    problems = st.session_state.setdefault(_PROBLEMS, {})
    shared = name == SOURCE_KEY or url_spec(name).page is None
    entry = (None if shared else (page_hash or _page_hash()), message)
    if problems.get(name) == entry:
        return  # already recorded (and shown) for this page, e.g. by check_page_links
    problems[name] = entry
    box = st.session_state.get(_BOX)
    if box is not None and box[0] == _page_hash() and (not shared or applies_on(name, box[2])):
        _show_message(box[1], name, message)


#: Words every message about a link value that could only be honoured with a weaker guarantee contains.
WEAKER = "weaker guarantee than the link asked for"
WEAKER_OK = "_url_weaker_ok"


def _show_message(container: Any, name: str, message: str) -> None:
    """One link message. A value clamped toward a weaker guarantee holds the page until the visitor agrees."""
    if WEAKER not in message or name in st.session_state.get(WEAKER_OK, ()):
        container.warning(message, icon="🔗")
        return
    container.error(
        f"{message} Nothing is computed at the weaker setting until you agree, or change the setting yourself.",
        icon="⛔",
    )
    if container.button("Continue with the weaker setting", key=f"_url_weaker_{name}"):
        st.session_state.setdefault(WEAKER_OK, set()).add(name)
        st.rerun()
    st.stop()


def show_url_problems(page: str = "") -> None:
    """Show, on ``page`` (``pages/home.py``), the messages about this session's link values (call it near the
    top): shared parameters' on every page that uses them (:func:`applies_on`), page parameters' where read.
    """
    box = st.container()
    here = _page_hash()
    st.session_state[_BOX] = (here, box, page)
    for name, (owner, message) in list(st.session_state.get(_PROBLEMS, {}).items()):
        if (owner is None and applies_on(name, page)) or owner == here:
            _show_message(box, name, message)


# ------------------------------------------------------------------ shared parameters
def init_state() -> None:
    """Fill the canonical keys from the URL (first run only) or the defaults."""
    first = not st.session_state.get(_LOADED, False)
    st.session_state.pop(_BOX, None)
    if first:
        st.session_state[_URL_KEYS] = tuple(st.query_params)
    for name, (_kind, default) in SHARED_PARAMS.items():
        key = f"p_{name}"
        if first and name in st.query_params:
            st.session_state[key] = _shared_from_link(name, default)
        elif key not in st.session_state:
            st.session_state[key] = default
    if first:
        _check_source_marker()
    st.session_state[_LOADED] = True


def _shared_from_link(name: str, default: Any) -> Any:
    """The value of shared parameter ``name`` the link gives (validated; a repeated key gives the default)."""
    raw, _repeated = link_raw(name)
    # one message for one upload link: the marker's (the file's name in the link says the same)
    quiet = name == "dataset" and st.query_params.get(SOURCE_KEY) == "upload" and str(raw).startswith("upload:")
    return _from_link(name, default, quiet=quiet, options=tuple(DATASETS) if name == "dataset" else None)


def url_gave(*names: str) -> bool:
    """True when the link that opened this session carried any of ``names`` (a choice to keep)."""
    if not st.session_state.get(_LOADED, False):
        init_state()
    return any(n in st.session_state.get(_URL_KEYS, ()) for n in names)


def get(name: str) -> Any:
    """The canonical value of a shared parameter (a plug-in's shared ``ParamSpec`` is read on first use from the
    validated link, else its default).
    """
    key = f"p_{name}"
    if key not in st.session_state:
        init_state()
    if key not in st.session_state:
        spec = url_spec(name)  # KeyError for an undeclared name
        if spec.page is not None:
            raise KeyError(f"{name!r} is a parameter of {spec.page}, not a shared one: use ui.state.widget.")
        value = spec.default
        if name in st.session_state.get(_URL_KEYS, ()) and name in st.query_params:
            value = _shared_from_link(name, value)
        st.session_state[key] = value
        st.session_state.setdefault(_EXTRA_SHARED, set()).add(name)
    return st.session_state[key]


def set_value(name: str, value: Any) -> None:
    st.session_state[f"p_{name}"] = value


#: Shared text parameters that leave the URL when empty (declared bounds exist only for uploads).
CLEARED_WHEN_EMPTY = frozenset({"bounds"})


def sync_url(extra: dict[str, Any] | None = None) -> None:
    """Write every shared parameter (and ``extra`` page parameters) into the URL query string."""
    names = [*SHARED_PARAMS, *sorted(st.session_state.get(_EXTRA_SHARED, ()))]
    values = {name: st.session_state.get(f"p_{name}") for name in names}
    values.update(extra or {})
    for name, value in values.items():
        if value is not None:
            _write_url(name, None if value == "" and name in CLEARED_WHEN_EMPTY else url_text(value))
    sync_source_marker()


def _write_url(name: str, text: str | None) -> None:
    """Put ``text`` under ``name`` in the URL (``None``: remove it), writing only a change."""
    if text is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get_all(name) != [text]:
        st.query_params[name] = text


def active_upload() -> Any:
    """The visitor's accepted upload while it is this session's dataset (Home's data source), else ``None``."""
    return st.session_state.get("upload_dataset") if st.session_state.get("p_source") == "upload" else None


def sync_source_marker() -> None:
    """``source=upload`` in the URL while an uploaded file is in use (a link copied then says so when opened).

    Called by :func:`sync_url` and again where a page takes its dataset (an upload is accepted further down
    the Home page than the sidebar that syncs the URL).
    """
    _write_url(SOURCE_KEY, "upload" if active_upload() is not None else None)


# ------------------------------------------------------------------ page parameters
def url_param(name: str, default: Any = None, **limits) -> Any:
    """A page parameter restored from the URL once per session (kept under ``u_<name>``), parsed by
    :func:`parse_url_value` with the ``limits`` ``options``, ``lo``, ``hi``."""
    key = f"u_{name}"
    if key not in st.session_state:
        fallback = url_spec(name).default if default is None else default
        st.session_state[key] = _from_link(name, fallback, **limits)
    return st.session_state[key]


def _from_link(name: str, fallback: Any, *, quiet: bool = False, **limits) -> Any:
    """The link's validated value of ``name`` (``fallback`` when absent or repeated); its problem is recorded
    unless ``quiet``."""
    raw, repeated = link_raw(name)
    if repeated is not None:
        _record(name, repeated_message(name, repeated, fallback))
        return fallback
    if raw is None:
        return fallback
    value, problem = parse_url_value(name, raw, default=fallback, **limits)
    if problem and not quiet:
        _record(name, problem)
    return value


def link_value(name: str, default: Any = None, **limits) -> tuple[bool, Any]:
    """``(True, value)`` when the URL's ``name`` changed since this page last saw it (a link was followed).

    For pages whose settings other pages link to (the audit's mechanism and mode): the value is parsed
    like :func:`url_param`; ``(False, None)`` when the URL has no new value.
    """
    spec = url_spec(name)
    raw, repeated = link_raw(name)
    seen = f"_seen_{name}"
    if repeated is not None:
        if st.session_state.get(seen) != repeated:
            st.session_state[seen] = repeated
            _record(name, repeated_message(name, repeated, spec.default if default is None else default))
        return False, None
    if raw is None or raw == st.session_state.get(seen):
        return False, None
    st.session_state[seen] = raw
    return True, _from_link(name, default, **limits)


def mark_seen(values: dict[str, Any]) -> None:
    """Record what this page wrote into the URL, so that :func:`link_value` does not take it for a new link."""
    for name, value in values.items():
        st.session_state[f"_seen_{name}"] = url_text(value)


def seed_widget(key: str, default: Any, **limits) -> None:
    """Before creating a page widget with ``key`` (and no ``value=``): give it its last value in this
    session, else the URL's (validated with the ``limits`` ``options``, ``lo``, ``hi``), else ``default``."""
    if key in st.session_state:
        return
    kept = f"{key}__keep"
    if kept in st.session_state:
        value = st.session_state[kept]
        if limits.get("options") is not None and value not in limits["options"]:
            value = default
    else:
        value = url_param(key, default, **limits)
    st.session_state[key] = value


def linked(*names: str) -> bool:
    """``True`` when the page's URL carries one of the parameters ``names`` (for example to open the section
    of a page that holds their widgets when a link names them)."""
    return any(name in st.query_params for name in names)


# ------------------------------------------------------------------ the one widget idiom
def url_text(value: Any) -> str:
    """A value as the link writes it (``1``/``0`` for yes/no, six significant digits for a number)."""
    if isinstance(value, bool):
        return str(int(value))
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _clamped(value: Any, lo: float | None, hi: float | None) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if lo is not None and value < lo:
        return type(value)(lo)
    if hi is not None and value > hi:
        return type(value)(hi)
    return value


def widget(
    name: str,
    *,
    control: str | None = None,
    label: str | None = None,
    default: Any = None,
    options: Any = None,
    lo: float | None = None,
    hi: float | None = None,
    step: float | None = None,
    help: str | None = None,
    format_func: Any = None,
    container: Any = None,
    disabled: bool = False,
    url: bool = True,
    on_change: Any = None,
    args: tuple | None = None,
) -> Any:
    """Create the widget of the declared parameter ``name`` and return its value: THE page-widget idiom.

    ``default``/``options``/``lo``/``hi`` override the declaration when they depend on the data; ``control``
    picks the widget; ``url=False`` keeps the value out of the link. Where the value starts and how it is
    kept: ``docs/foundation.md`` §"state.widget".
    """
    spec = url_spec(name)
    opts, lo, hi = _limits(spec, options, lo, hi)
    fallback = spec.default if default is None else default
    shared = name in SHARED_PARAMS
    _prepare_state(name, fallback, opts, lo, hi, shared)
    box = st if container is None else container
    text = label if label is not None else (spec.label[:1].upper() + spec.label[1:] if spec.label else name)
    common: dict[str, Any] = {"key": name, "help": help, "disabled": disabled}
    if on_change is not None:
        common.update(on_change=on_change, args=args)
    numeric = (spec.kind, lo, hi, step if step is not None else spec.step)
    _draw(box, control or _default_control(spec, opts, lo, hi), text, name, opts, numeric, format_func, common)
    value = st.session_state.get(name)
    st.session_state[f"{name}__keep"] = value  # remembered across page switches
    if shared:
        set_value(name, value)
    if url and value is not None:
        _write_url(name, url_text(value))
    return value


def _prepare_state(name: str, fallback: Any, opts: tuple | None, lo, hi, shared: bool) -> None:
    """Seed the widget's session value, then reset it to the options or clamp it to [lo, hi] if they changed."""
    if shared and name not in st.session_state:
        # a shared parameter (``k`` of label-DP, also set on Compare) starts from its canonical value
        st.session_state[f"{name}__keep"] = get(name)
    seed_widget(name, fallback, options=opts, lo=lo, hi=hi)
    if opts is not None and st.session_state.get(name) not in opts:
        # the data-dependent options changed (another dataset, another mechanism): the default again
        st.session_state[name] = fallback if fallback in opts else opts[0]
    if opts is None:
        clamped = _clamped(st.session_state.get(name), lo, hi)
        if clamped != st.session_state.get(name):
            st.session_state[name] = clamped


def _default_control(spec, opts: tuple | None, lo, hi) -> str:
    """A bool: a toggle; options: a select slider for numbers, a select box for text; bounded: a slider."""
    if spec.kind is bool:
        return "toggle"
    if opts is not None:
        return "select_slider" if spec.kind in (int, float) and len(opts) > 3 else "select"
    return "slider" if lo is not None and hi is not None else "number"


def _draw(box, control: str, text: str, name: str, opts, numeric: tuple, format_func, common: dict) -> None:
    """Draw the widget ``control`` (its value lands in the session state under ``common["key"]``)."""
    choice = {"select": box.selectbox, "select_slider": box.select_slider, "radio": partial(box.radio, horizontal=True)}
    if control == "toggle":
        box.toggle(text, **common)
    elif control in choice:
        if opts is None:
            raise ValueError(f"widget {name!r}: control {control!r} needs options.")
        if format_func is not None:
            common["format_func"] = format_func
        choice[control](text, opts, **common)
    elif control in ("slider", "number"):
        spec_kind, lo, hi, the_step = numeric
        kind = int if spec_kind is int else float
        given = {"min_value": lo, "max_value": hi, "step": the_step}
        bounds = {k: kind(v) for k, v in given.items() if v is not None}
        if format_func is not None:
            bounds["format"] = format_func
        (box.slider if control == "slider" else box.number_input)(text, **bounds, **common)
    else:
        raise ValueError(f"widget {name!r}: control must be select, select_slider, radio, slider, number or toggle.")


def peek(name: str) -> Any:
    """The value the widget of ``name`` will show in this run, before it is drawn: its session value, else its
    kept value, else the shared canonical value, else the link's or the declared default.
    """
    if name in st.session_state:
        return st.session_state[name]
    if f"{name}__keep" in st.session_state:
        return st.session_state[f"{name}__keep"]
    if name in SHARED_PARAMS:
        return get(name)
    return url_param(name)


def reset_on_change(name: str, value: Any, defaults: dict[str, Any]) -> None:
    """Give the widgets in ``defaults`` their (data-dependent) default when widget ``name`` changed value.

    Call it before those widgets are created. After, say, a new dataset, its suggested settings apply
    instead of values chosen for the previous one; a link's values apply to the run that opened it.
    """
    seen = f"_last_{name}"
    last = st.session_state.get(seen)
    if last is not None and last != value:
        for dep, default in defaults.items():
            st.session_state.pop(f"{dep}__keep", None)
            st.session_state.pop(f"u_{dep}", None)
            st.session_state[dep] = default
    st.session_state[seen] = value


def set_widget(name: str, value: Any) -> None:
    """Give the page widget ``name`` the value ``value`` (before it is created in this run, or in a callback).

    For values that arrive from elsewhere than the widget itself: a followed link, a stored row, a
    one-click question. The value survives page switches like one set by the widget.
    """
    st.session_state[name] = value
    st.session_state[f"{name}__keep"] = value


def forget_widget(*names: str, url: bool = False) -> None:
    """Drop this session's values of the page widgets ``names`` (and the link's, read once per session),
    so that each starts again from its default: for widgets whose meaning depends on another one
    (the audit's mode when the mechanism changes). ``url=True`` also drops their values from the URL
    (when the visitor changed the widget they depend on, the URL's values are stale)."""
    for name in names:
        for key in (name, f"{name}__keep", f"u_{name}"):
            st.session_state.pop(key, None)
        if url:
            _write_url(name, None)


def follow_link(name: str, default: Any = None, **limits) -> bool:
    """If the URL's ``name`` changed since this page last wrote it (a link was followed), set the page widget to
    the link's validated value; return whether it did. Call before the widget; then :func:`mark_seen`.
    """
    changed, value = link_value(name, default, **limits)
    if changed:
        set_widget(name, value)
    return changed


#: Page parameters whose valid values depend on the data or on another setting (the page parses them
#: itself, with that range, when it creates their widget; a second, data-blind message would contradict it).
DATA_DEPENDENT_LINKS = frozenset(
    {"ip_n", "ip_pos", "lm_data", "mech", "mechanism", "audit_mode", "audit_pair", "audit_runs"}
    | {"lb_lo", "lb_hi", "lb_public"}
)


def check_page_links(page: str, page_hash: str | None = None) -> None:
    """Parse every link value for a parameter of ``page`` now (once per session) and report the refused ones,
    so that a widget in a closed expert section does not ignore a bad value in silence.
    """
    seen = st.session_state.setdefault("_links_checked", set())
    for name in list(st.query_params):
        try:
            spec = url_spec(name)
        except KeyError:
            continue
        if spec.page != page or spec.default is None or name in DATA_DEPENDENT_LINKS:
            continue  # another page's, or data-dependent (the page parses it with the data's range)
        raw, repeated = link_raw(name)
        mark = (name, raw if repeated is None else tuple(repeated))
        if mark in seen or f"u_{name}" in st.session_state or (repeated is None and name in st.session_state):
            continue  # done, or read by its widget already
        seen.add(mark)
        problem = parse_url_value(name, raw)[1] if repeated is None else repeated_message(name, repeated, spec.default)
        if problem:
            _record(name, problem, page_hash)
