"""Plotly figure builders: pure functions from tidy tables to ``plotly.graph_objects.Figure``.

One colour per method on every page (:data:`METHOD_COLORS`), bounds dashed, trials shown; log axes place
annotations via :func:`to_axis_units`; :func:`figure_problems` checks any figure for the ways a chart goes
blank or wrong. Details: ``docs/engine.md`` §"Figures".
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = [
    "LOG_UNITS_MARK",
    "METHOD_COLORS",
    "METHOD_LABELS",
    "REFUTED_COLOR",
    "REFUTED_GROUP",
    "REFUTED_LEGEND_TITLE",
    "add_bound_trace",
    "annotate",
    "apply_layout",
    "band_trace",
    "bound_traces",
    "color_of",
    "corner_note",
    "empty_figure",
    "figure_problems",
    "group_refuted",
    "hex_to_rgba",
    "hline",
    "hrect",
    "label_of",
    "line_ci_figure",
    "noise_scale_figure",
    "style_refuted",
    "to_axis_units",
    "vline",
    "vrect",
]


class _Collected(Mapping):
    """A read-only dict of the methods' ``COLORS`` or ``LABELS``: the shared entries, then every mechanism
    folder's ``catalog`` (:mod:`dp_core.catalog`), collected when first read (the foundation imports no
    mechanism)."""

    def __init__(self, name: str, shared: dict[str, str]) -> None:
        self._name, self._shared = name, shared

    def _data(self) -> dict[str, str]:
        from . import catalog

        return self._shared | catalog.merged(self._name)

    def __getitem__(self, key: str) -> str:
        return self._data()[key]

    def __iter__(self):
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())


#: One colour per method, shared by every page (Okabe-Ito-like, colour-blind safe where possible).
METHOD_COLORS: Mapping[str, str] = _Collected("COLORS", {"nonprivate": "#000000"})
METHOD_LABELS: Mapping[str, str] = _Collected("LABELS", {"nonprivate": "Non-private"})

_FALLBACK = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"]


def color_of(method: str) -> str:
    """The colour of ``method`` (a stable fallback colour for unknown names)."""
    if method in METHOD_COLORS:
        return METHOD_COLORS[method]
    return _FALLBACK[sum(map(ord, method)) % len(_FALLBACK)]


#: How a refuted method is drawn on every chart: grey and dashed, in its own legend (issue 23).
REFUTED_COLOR = "#8C8C8C"
REFUTED_DASH = "dash"
REFUTED_LEGEND_TITLE = "Refuted: NOT private (claim shown false; drawn only as a warning)"


def style_refuted(fig: go.Figure, methods: Iterable[str]) -> go.Figure:
    """Draw the traces of the refuted ``methods`` (matched by ``legendgroup``) apart, in place.

    Lines and markers turn grey (:data:`REFUTED_COLOR`) and dashed, bands a faint grey, so a refuted
    curve never looks like a private one whatever its height.
    """
    refuted = set(methods)
    for tr in fig.data:
        if tr.legendgroup not in refuted:
            continue
        if getattr(tr, "fill", None) == "toself":
            tr.fillcolor = hex_to_rgba(REFUTED_COLOR, 0.10)
            continue
        tr.line.color = REFUTED_COLOR
        tr.line.dash = REFUTED_DASH
        tr.marker.color = REFUTED_COLOR
    return fig


#: The one legend group of the refuted traces of a chart with a single legend (:func:`group_refuted`).
REFUTED_GROUP = "refuted: not private"


def group_refuted(fig: go.Figure, methods: Iterable[str]) -> go.Figure:
    """:func:`style_refuted`, then the refuted ``methods``' traces into one legend group :data:`REFUTED_GROUP`,
    titled :data:`REFUTED_LEGEND_TITLE` and listed last, in place (charts with a single legend)."""
    refuted = set(methods)
    style_refuted(fig, refuted)
    for tr in fig.data:
        if tr.legendgroup in refuted:
            tr.legendgroup = REFUTED_GROUP
            tr.legendgrouptitle = {"text": f"<b>{REFUTED_LEGEND_TITLE}</b>"}
            tr.legendrank = 10_000
    return fig


def label_of(method: str) -> str:
    return METHOD_LABELS.get(method, method.replace("_", " "))


def hex_to_rgba(color: str, alpha: float) -> str:
    c = color.lstrip("#")
    r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def use_white_template(fig: go.Figure) -> None:
    """Give ``fig`` (in place) Plotly's registered ``plotly_white`` template without re-validating it (much
    faster, same JSON; docs/engine.md §"Figures")."""
    import plotly.io as pio

    layout = fig.layout
    validate = getattr(layout, "_validate", None)
    if validate is None:  # a Plotly without the switch: the validated assignment
        layout.template = "plotly_white"
        return
    layout._validate = False
    try:
        layout.template = pio.templates["plotly_white"]
    finally:
        layout._validate = validate


def apply_layout(
    fig: go.Figure,
    *,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    log_x: bool = False,
    log_y: bool = False,
    height: int = 420,
) -> go.Figure:
    """The common layout: white template, legend below, axis titles, log axes where asked (else the type is
    inferred by Plotly: forcing ``"linear"`` on text categories draws nothing)."""
    use_white_template(fig)
    fig.update_layout(
        title=title,
        height=height,
        margin={"l": 60, "r": 20, "t": 50 if title else 20, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},
        hovermode="x unified",
    )
    fig.update_xaxes(title_text=x_title, **({"type": "log"} if log_x else {}))
    fig.update_yaxes(title_text=y_title, **({"type": "log"} if log_y else {}))
    return fig


def band_trace(x, lo, hi, color: str, *, alpha: float = 0.18, **kw) -> go.Scatter:
    """A shaded band between ``lo`` and ``hi`` over ``x`` (a 95% range), in ``color``; no legend entry, no hover.

    ``kw`` (``legendgroup``, ``name``, ...) go to the trace.
    """
    x = np.asarray(x)
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([np.asarray(hi), np.asarray(lo)[::-1]]),
        mode="lines",
        fill="toself",
        fillcolor=hex_to_rgba(color, alpha),
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        **kw,
    )


def empty_figure(title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, template="plotly_white")
    return fig


_CORNER = {"xref": "paper", "yref": "paper", "x": 0.0, "y": 1.0, "xanchor": "left", "yanchor": "bottom"}


def corner_note(fig: go.Figure, text: str) -> go.Figure:
    """A small grey note above the plot's top-left corner (what is not drawn, and why)."""
    return fig.add_annotation(text=text, **_CORNER, showarrow=False, font={"size": 11, "color": "#7F7F7F"})


def _add_mean_curve(fig: go.Figure, s: pd.DataFrame, m: str, *, x: str, y: str, mean, log_y: bool, band: bool) -> None:
    """One method's mean curve (trials in its legend name and hover) and its 95% band, for :func:`line_ci_figure`."""
    col = color_of(m)
    lo = s[f"{y}_lo"].to_numpy(dtype=float)
    hi = s[f"{y}_hi"].to_numpy(dtype=float)
    if log_y:
        lo = np.where(np.isfinite(lo) & (lo > 0), lo, mean / 10)
    trials = s["n_trials"].to_numpy() if "n_trials" in s else np.full(len(s), np.nan)
    t_text = f"{int(np.min(trials))}" if np.all(trials == trials[0]) else f"{int(np.min(trials))}-{int(np.max(trials))}"
    name = f"{label_of(m)} ({t_text} trials)"
    xs = s[x].to_numpy()
    if band and np.any(np.isfinite(hi)):
        fig.add_trace(band_trace(xs, lo, hi, col, legendgroup=m, name=f"{label_of(m)} 95% interval"))
    fig.add_scatter(
        x=xs,
        y=mean,
        mode="lines+markers",
        name=name,
        legendgroup=m,
        line={"color": col, "width": 2},
        customdata=np.column_stack([lo, hi, trials]),
        hovertemplate=f"{label_of(m)}: %{{y:.4g}} [95%: %{{customdata[0]:.3g}}, %{{customdata[1]:.3g}}], "
        "%{customdata[2]} trials<extra></extra>",
    )


def line_ci_figure(
    summary: pd.DataFrame,
    *,
    x: str,
    y: str,
    method_col: str = "method",
    title: str = "",
    x_title: str | None = None,
    y_title: str | None = None,
    log_x: bool = False,
    log_y: bool = False,
    methods: Sequence[str] | None = None,
    band: bool = True,
    height: int = 420,
) -> go.Figure:
    """Mean curves with 95% bands from a :func:`dp_core.experiments.summarize` table (columns ``x``,
    ``method_col``, ``{y}_mean``, ``{y}_lo``, ``{y}_hi``, ``n_trials``); a method with no drawable mean is named
    in a corner note (docs/engine.md §"Figures")."""
    fig = go.Figure()
    todo = list(dict.fromkeys(summary[method_col])) if methods is None else list(methods)
    missing = []
    for m in todo:
        s = summary[summary[method_col] == m].sort_values(x)
        if s.empty:
            continue
        if "n_trials" in s:
            s = s[s["n_trials"].to_numpy(dtype=float) >= 1]  # no successful trial: no point
        mean_all = s[f"{y}_mean"].to_numpy(dtype=float)
        if not np.any(np.isfinite(mean_all) & ((mean_all > 0) if log_y else True)):
            missing.append(label_of(m))
            continue
        _add_mean_curve(fig, s, m, x=x, y=y, mean=mean_all, log_y=log_y, band=band)
    if missing:
        corner_note(fig, "Not drawn (no finite value): " + ", ".join(missing))
    xt, yt = (x if x_title is None else x_title), (y if y_title is None else y_title)
    return apply_layout(fig, title=title, x_title=xt, y_title=yt, log_x=log_x, log_y=log_y, height=height)


def add_bound_trace(
    fig: go.Figure, x: Iterable[float], y: Iterable[float], *, method: str, name: str, dash: str = "dash"
) -> go.Figure:
    """Add a theoretical bound as a dashed line in the method's colour (non-finite points are skipped)."""
    xs = np.asarray(list(x), dtype=float)
    ys = np.asarray(list(y), dtype=float)
    ok = np.isfinite(ys)
    fig.add_scatter(
        x=xs[ok],
        y=ys[ok],
        mode="lines",
        name=name,
        legendgroup=method,
        line={"color": color_of(method), "dash": dash, "width": 1.5},
        hovertemplate=f"{name}: %{{y:.4g}}<extra></extra>",
    )
    return fig


def bound_traces(
    fig: go.Figure, table: pd.DataFrame, *, x: str, y: str = "bound", method_col: str = "method", label: str = "bound"
) -> go.Figure:
    """Add one dashed bound line per method from a tidy table with columns ``x``, ``y``, ``method_col``."""
    for m, s in table.groupby(method_col, sort=False):
        s = s.sort_values(x)
        add_bound_trace(fig, s[x], s[y], method=str(m), name=f"{label_of(str(m))}: {label}")
    return fig


def noise_scale_figure(
    table: pd.DataFrame,
    *,
    x: str,
    y: str,
    method_col: str = "method",
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    log_x: bool = True,
    log_y: bool = True,
) -> go.Figure:
    """Deterministic curves (noise scales, bounds) per method, no bands."""
    fig = go.Figure()
    for m, s in table.groupby(method_col, sort=False):
        s = s.sort_values(x)
        ys = s[y].to_numpy(dtype=float)
        ys = np.where(np.isfinite(ys), ys, math.nan)
        fig.add_trace(go.Scatter(x=s[x], y=ys, mode="lines", name=label_of(str(m)), line={"color": color_of(str(m))}))
    return apply_layout(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y)


# ---------------------------------------- log axes: annotations in the axis's own (log10) units, shapes in data units


def to_axis_units(value: float, *, log: bool) -> float:
    """Where Plotly must be told to put an *annotation* at data value ``value``: ``log10(value)`` on a log
    axis (shapes stay in data units); the one place of that conversion (docs/engine.md §"Figures").
    """
    v = float(value)
    if not log:
        return v
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"a position on a log axis must be a finite number > 0, got {value!r}.")
    return math.log10(v)


#: The ``name`` given to annotations (and shapes) placed by these helpers, so that
#: :func:`figure_problems` can tell a converted annotation on a log axis from one placed in data
#: units by mistake.
LOG_UNITS_MARK = "placed by dp_core.figures (annotations in log10 units on log axes)"


def _place(fig: go.Figure, method: str, log: bool, coords: dict, kw: dict) -> go.Figure:
    """Call ``fig.<method>`` with data-unit coordinates (right for shapes), then move the labels it
    attached to the axis's units (log10 on a log axis) and mark everything it added."""
    for v in coords.values():
        to_axis_units(v, log=log)  # validates: > 0 on a log axis
    n_s, n_a = len(fig.layout.shapes), len(fig.layout.annotations)
    getattr(fig, method)(**{k: float(v) for k, v in coords.items()}, **kw)
    letter = next(iter(coords))[0]
    for ann in fig.layout.annotations[n_a:]:
        ref = getattr(ann, f"{letter}ref") or letter
        if log and _REF.match(ref) and getattr(ann, letter) is not None:
            setattr(ann, letter, to_axis_units(getattr(ann, letter), log=True))
        ann.name = LOG_UNITS_MARK
    for shape in fig.layout.shapes[n_s:]:
        shape.name = LOG_UNITS_MARK
    return fig


def vline(fig: go.Figure, x: float, *, log_x: bool = False, **kw) -> go.Figure:
    """A vertical line at data value ``x`` with its label placed right on a log axis; ``kw`` as ``add_vline``."""
    return _place(fig, "add_vline", log_x, {"x": x}, kw)


def hline(fig: go.Figure, y: float, *, log_y: bool = False, **kw) -> go.Figure:
    """A horizontal line at data value ``y`` with its label placed right on a log axis; ``kw`` as ``add_hline``."""
    return _place(fig, "add_hline", log_y, {"y": y}, kw)


def vrect(fig: go.Figure, x0: float, x1: float, *, log_x: bool = False, **kw) -> go.Figure:
    """A vertical band between data values ``x0`` and ``x1``; ``kw`` as ``add_vrect``."""
    return _place(fig, "add_vrect", log_x, {"x0": x0, "x1": x1}, kw)


def hrect(fig: go.Figure, y0: float, y1: float, *, log_y: bool = False, **kw) -> go.Figure:
    """A horizontal band between data values ``y0`` and ``y1``; ``kw`` as ``add_hrect``."""
    return _place(fig, "add_hrect", log_y, {"y0": y0, "y1": y1}, kw)


def annotate(fig: go.Figure, x: float, y: float, *, log_x: bool = False, log_y: bool = False, **kw) -> go.Figure:
    """A text annotation at data position ``(x, y)`` (log10 units on log axes); ``kw`` as ``add_annotation``."""
    n_a = len(fig.layout.annotations)
    fig.add_annotation(x=to_axis_units(x, log=log_x), y=to_axis_units(y, log=log_y), **kw)
    for ann in fig.layout.annotations[n_a:]:
        ann.name = LOG_UNITS_MARK
    return fig


# ------------------------------------------------------------------------------------------------ the figure checker

_CARTESIAN = set("scatter scattergl bar histogram box violin heatmap contour histogram2d histogram2dcontour".split())
_CARTESIAN |= {"waterfall", "funnel"}
_AXIS_KEY = re.compile(r"^([xy])axis(\d*)$")
_REF = re.compile(r"^([xy])(\d*)$")
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+−]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+−]?\d+)?")
_SNAKE = re.compile(r"(?<![\w])[a-z][a-z0-9]+(?:_[a-z0-9]{2,})+(?![\w])")
_BAD_TEXT = [
    (re.compile(r"(?<![\w])(nan|NaN|NAN)(?![\w])"), "a 'nan'"),
    (re.compile(r"(?<![\w])[-+]?(inf|Inf|INF)(?![\w])"), "an 'inf'"),
    (re.compile(r"(?<![\w])None(?![\w])"), "a 'None'"),
    (
        re.compile(r"object at 0x|<function |<class |\bnp\.\w+\(|\bnumpy\.\w+|\barray\(|\bdtype\b|\bTimestamp\("),
        "a raw Python repr",
    ),
    (re.compile(r"\d\.\d{9,}"), "an unrounded float"),
    (
        re.compile(r"(?<![\w])(epsilon|eps|delta|sigma|lambda|alpha|theta|iota|kappa|Delta)(?![\w])"),
        "a Greek letter spelled out (write ε, δ, σ, λ, α, θ, ι, κ, Δ)",
    ),
]
_TAGS = re.compile(r"<extra>.*?</extra>|%\{[^}]*\}|<[^>]+>", re.DOTALL)


def _axis_name(ref: str) -> str | None:
    """``"x2"`` -> ``"xaxis2"``; ``None`` for paper/domain references."""
    m = _REF.match(ref or "")
    if not m:
        return None
    return f"{m.group(1)}axis{m.group(2) if m.group(2) not in ('', '1') else ''}"


def _decode(v):
    """Plotly's ``to_dict`` stores NumPy arrays as base64 typed arrays: decode them."""
    if isinstance(v, dict) and "bdata" in v and "dtype" in v:
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        shape = v.get("shape")
        if shape:
            dims = [int(s) for s in str(shape).split(",")] if not isinstance(shape, (list, tuple)) else list(shape)
            arr = arr.reshape(dims)
        return arr
    return v


def _as_list(v) -> list:
    v = _decode(v)
    if v is None:
        return []
    if isinstance(v, (str, bytes)):
        return [v]
    try:
        return list(np.asarray(v, dtype=object).ravel())
    except Exception:  # noqa: BLE001 - anything Plotly accepted is iterable or scalar
        return [v]


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _numeric_string(v) -> bool:
    if not isinstance(v, str):
        return False
    try:
        float(v.replace(",", ""))
        return True
    except ValueError:
        return False


def _finite(v) -> float | None:
    """A finite number given as a number or a numeric text (``"1,000"``), else ``None``."""
    if _is_number(v):
        x = float(v)
    elif _numeric_string(v):
        x = float(v.replace(",", ""))
    else:
        return None
    return x if math.isfinite(x) else None


def _finite_numbers(values: list, kind: str = "linear") -> np.ndarray:
    """The finite numbers of ``values``, in the units of an axis of type ``kind`` (log10 of those > 0 on a log axis)."""
    v = np.asarray([x for v in values if (x := _finite(v)) is not None], dtype=float)
    return np.log10(v[v > 0]) if kind == "log" else v


def _categories(values: list) -> list:
    return [v for v in values if isinstance(v, str) and v.strip() and not _numeric_string(v)]


def _trace_label(i: int, t: dict) -> str:
    name = t.get("name")
    return f"trace {i} ({t.get('type', 'scatter')}{', ' + repr(name) if name else ''})"


def _trace_coords(t: dict) -> dict[str, list]:
    """Per axis letter, the trace's coordinates on that axis (empty for a count axis)."""
    typ = t.get("type", "scatter")
    x, y = _as_list(t.get("x")), _as_list(t.get("y"))
    if typ == "histogram":
        return {"x": x, "y": []} if x or not y else {"x": [], "y": y}
    if typ in ("heatmap", "contour"):
        zz = _decode(t.get("z"))
        z = np.asarray(zz if zz is not None else [], dtype=object)
        ny, nx = (z.shape + (1,))[:2] if z.ndim == 2 else (len(z), 1)
        return {"x": x or list(range(nx)), "y": y or list(range(ny))}
    if typ == "bar" and t.get("orientation") == "h":
        return {"x": x, "y": y or list(range(len(x)))}
    if not x and y:
        x = list(range(len(y)))
    if not y and x and typ in ("box", "violin"):
        return {"x": x, "y": []}
    return {"x": x, "y": y}


def _drawable_points(t: dict, types: dict[str, str]) -> int:
    typ = t.get("type", "scatter")
    coords = _trace_coords(t)

    def ok(letter: str, v) -> bool:
        kind = types[letter]
        if kind == "category":
            return (isinstance(v, str) and v.strip() != "") or (_is_number(v) and math.isfinite(float(v)))
        x = _finite(v)
        return x is not None and (x > 0 if kind == "log" else True)

    if typ in ("heatmap", "contour"):
        z = _finite_numbers(_as_list(t.get("z")))
        return int(z.size)
    if typ in ("histogram", "box", "violin"):
        letter = "x" if coords["x"] else "y"
        return sum(ok(letter, v) for v in coords[letter])
    xs, ys = coords["x"], coords["y"]
    n = min(len(xs), len(ys))
    return sum(ok("x", xs[i]) and ok("y", ys[i]) for i in range(n))


def _text_of(obj) -> str:
    if isinstance(obj, dict):
        return str(obj.get("text") or "")
    return "" if obj is None else str(obj)


def _text_problems(where: str, text: str) -> list[str]:
    plain = _TAGS.sub(" ", text)
    out = []
    for pattern, what in _BAD_TEXT:
        m = pattern.search(plain)
        if m:
            out.append(f"{where} shows {what}: {m.group(0)!r} in {text!r}")
    m = _SNAKE.search(plain)
    if m:
        out.append(f"{where} shows a snake_case name {m.group(0)!r} in {text!r}")
    return out


def _numbers_in(text: str) -> list[float]:
    out = []
    for s in _NUMBER_IN_TEXT.findall(_TAGS.sub(" ", text)):
        try:
            out.append(float(s.replace(",", "").replace("−", "-")))
        except ValueError:
            pass
    return out


class _View:
    """A figure's JSON with what every check needs: axes, the traces on each, axis types, data extents."""

    def __init__(self, d: dict, problems: list[str]) -> None:
        self.layout = d.get("layout", {})
        self.traces = d.get("data", [])
        self.axes: dict[str, dict] = {k: v for k, v in self.layout.items() if _AXIS_KEY.match(k)}
        self.on_axis: dict[str, list[int]] = {}  # which traces sit on which axis
        for i, t in enumerate(self.traces):
            if t.get("type", "scatter") not in _CARTESIAN:
                continue
            for letter in ("x", "y"):
                name = _axis_name(t.get(f"{letter}axis", letter))
                self.on_axis.setdefault(name, []).append(i)
                self.axes.setdefault(name, {})
        self.types = self._types(problems)
        self.extent = {name: self._extent(name) for name in self.axes}

    @staticmethod
    def visible(t: dict) -> bool:
        return t.get("visible", True) not in (False, "legendonly")

    def _types(self, problems: list[str]) -> dict[str, str]:
        """Axis types: explicit, else inferred as Plotly does (text categories -> category); check (b)."""
        types: dict[str, str] = {}
        for name, ax in self.axes.items():
            explicit = ax.get("type")
            on = self.on_axis.get(name, [])
            text = {i: c for i in on if (c := _categories(_trace_coords(self.traces[i])[name[0]]))}
            if explicit in (None, "-"):
                types[name] = "category" if text else "linear"
                continue
            types[name] = explicit
            if explicit in ("linear", "log", "date"):  # (b)
                for i, cats in text.items():
                    problems.append(
                        f"{_trace_label(i, self.traces[i])} has text categories ({cats[0]!r}, ...) on "
                        f"{name}, whose type is forced to {explicit!r}: Plotly draws nothing; leave "
                        "the type unset or make it 'category'"
                    )
        return types

    def _extent(self, name: str) -> tuple[float, float] | None:
        """The data extent of axis ``name``, in the axis's own units (log10 on a log axis)."""
        vals = [
            _finite_numbers(_trace_coords(self.traces[i])[name[0]], self.types[name])
            for i in self.on_axis.get(name, [])
            if self.visible(self.traces[i])
        ]
        v = np.concatenate(vals) if vals else np.empty(0)
        return (float(v.min()), float(v.max())) if v.size and self.types[name] != "category" else None

    def explicit_range(self, name: str) -> tuple[float, float] | None:
        ax = self.axes.get(name, {})
        r = ax.get("range")
        if r is None or ax.get("autorange") is True or len(r) != 2 or not all(_is_number(v) for v in r):
            return None
        return tuple(sorted(float(v) for v in r))

    def window(self, name: str) -> tuple[float, float] | None:
        r = self.explicit_range(name)
        if r is not None:
            return r
        e = self.extent.get(name)
        if e is None:
            return None
        pad = max(0.1 * (e[1] - e[0]), 0.3 if self.types[name] == "log" else 1e-12)
        return e[0] - pad, e[1] + pad


def _point_problems(v: _View) -> list[str]:
    """(c) drawable points, points inside explicit ranges, histograms not dominated by outliers."""
    problems = []
    for i, t in enumerate(v.traces):
        typ = t.get("type", "scatter")
        if not v.visible(t) or typ not in _CARTESIAN:
            continue
        names = {letter: _axis_name(t.get(f"{letter}axis", letter)) for letter in ("x", "y")}
        tt = {letter: v.types[names[letter]] for letter in ("x", "y")}
        if _drawable_points(t, tt) == 0:
            problems.append(
                f"{_trace_label(i, t)} has no point it can draw (no finite values"
                + (", or none > 0 on a log axis)" if "log" in tt.values() else ")")
            )
            continue
        coords = _trace_coords(t)
        for letter in ("x", "y"):
            name = names[letter]
            r = v.explicit_range(name)
            vals = _finite_numbers(coords[letter], tt[letter])
            checkable = r is not None and tt[letter] != "category" and vals.size and typ != "heatmap"
            if checkable and not np.any((vals >= r[0] - 1e-9) & (vals <= r[1] + 1e-9)):
                problems.append(
                    f"{_trace_label(i, t)}: no point inside the visible {name} range "
                    f"[{r[0]:.3g}, {r[1]:.3g}]" + (" (log10 units)" if tt[letter] == "log" else "")
                )
            if typ == "histogram" and vals.size >= 20 and tt[letter] != "category":
                lo, hi = r if r is not None else (float(vals.min()), float(vals.max()))
                q05, q95 = np.quantile(vals, [0.05, 0.95])
                if hi > lo and (q95 - q05) < 0.10 * (hi - lo) and np.unique(vals).size > 2:
                    problems.append(
                        f"{_trace_label(i, t)}: the central 90% of its data fills only "
                        f"{100 * (q95 - q05) / (hi - lo):.1f}% of the {name} range (a few outliers set "
                        "the range); clip the range to central quantiles or use a log axis"
                    )
    return problems


def _axis_title_problems(v: _View) -> list[str]:
    """(d) every axis that carries a visible trace has a title (or matches a titled axis)."""
    problems = []
    for name, idx in sorted(v.on_axis.items()):
        if not any(v.visible(v.traces[i]) for i in idx):
            continue
        ax = v.axes.get(name, {})
        if _text_of(ax.get("title")).strip():
            continue
        match = ax.get("matches")
        if match and _text_of(v.axes.get(_axis_name(match), {}).get("title")).strip():
            continue
        problems.append(f"{name} carries data but has no title")
    return problems


def _log_shape_problem(v: _View, label: str, letter: str, name: str, c: float) -> str | None:
    """(a) a shape on a log axis takes data units."""
    if c <= 0:
        return (
            f"shape {label} sits at {letter} = {c:g} on log axis {name}: shapes on a log axis take data "
            "units, so a value ≤ 0 cannot be drawn (and stretches the autorange to 1e-300); a log10 "
            "value was probably passed"
        )
    w = v.window(name)
    pos = math.log10(c)
    if w is not None and not (w[0] <= pos <= w[1]) and w[0] <= c <= w[1] and c >= 1e-3:
        return (
            f"shape {label} at {letter} = {c:g} lies outside the data's range on log axis {name} while "
            f"it would fit as a log10 value: shapes take data units, pass the value itself"
        )
    return None


def _log_annotation_problem(v: _View, label: str, letter: str, name: str, c: float, text: str, marked: bool):
    """(a) an annotation on a log axis takes log10 units (placed by :func:`to_axis_units`)."""
    if not marked:
        return (
            f"annotation {label} sits on log axis {name} at {letter} = {c:g} but was not placed with "
            "to_axis_units/annotate/vline/hline/vrect/hrect: Plotly reads log10 units there, so it "
            f"lands at {letter} = 10^{c:g} unless the value was converted"
        )
    if c != 0 and abs(c) < 1e-3:
        return (
            f"annotation {label} sits at {letter} = {c:.3g} on log axis {name}: Plotly reads log10 "
            f"units, so it lands at 10^{c:.3g} ≈ 1; pass log10 of the value (to_axis_units)"
        )
    if text and c != 0 and any(math.isclose(n, c, rel_tol=0.02) for n in _numbers_in(text)):
        return (
            f"annotation {label} sits at {letter} = {c:g}, the number in its own text, on log axis "
            f"{name}: Plotly reads log10 units and draws it at {10**c:.3g}; pass log10 of the value"
        )
    w = v.window(name)
    if w is not None and not (w[0] <= c <= w[1]) and c > 0 and w[0] <= math.log10(c) <= w[1]:
        return (
            f"annotation {label} at {letter} = {c:g} is outside the data's log10 range "
            f"[{w[0]:.3g}, {w[1]:.3g}] of {name} but log10 of it is inside: it was given in data units"
        )
    return None


def _coord_problem(v: _View, kind: str, label: str, ref, value, letter: str, text="", band=False, marked=False):
    """(a) one coordinate of an annotation or a shape: units on a log axis, inside an explicit range."""
    name = _axis_name(ref if ref is not None else letter)
    if name is None or name not in v.axes or value is None:
        return None
    if isinstance(value, str) and not _numeric_string(value):
        return None  # a category name
    if not _is_number(value) and not _numeric_string(value):
        return f"{kind} {label} has a non-numeric {letter} = {value!r}"
    c = float(str(value).replace(",", "")) if isinstance(value, str) else float(value)
    if not math.isfinite(c):
        return f"{kind} {label} has {letter} = {c}"
    kind_axis = v.types.get(name, "linear")
    if kind_axis == "category":
        return None
    pos = c  # in the axis's own units (log10 on a log axis)
    if kind_axis == "log" and kind == "shape":
        p = _log_shape_problem(v, label, letter, name, c)
        if p or c <= 0:
            return p
        pos = math.log10(c)
    elif kind_axis == "log":
        p = _log_annotation_problem(v, label, letter, name, c, text, marked)
        if p:
            return p
    explicit = v.explicit_range(name)
    if explicit is not None and not band and not (explicit[0] - 1e-9 <= pos <= explicit[1] + 1e-9):
        return (
            f"{kind} {label} at {letter} = {c:g} lies outside the visible range [{explicit[0]:.3g}, "
            f"{explicit[1]:.3g}] of {name}" + (" (log10 units)" if kind_axis == "log" else "")
        )
    return None


def _annotation_problems(v: _View) -> list[str]:
    """(a) and (e) for the annotations: their texts and where they sit."""
    problems = []
    for j, a in enumerate(v.layout.get("annotations", []) or []):
        text = _text_of(a.get("text"))
        problems += _text_problems(f"annotation {j}", text)
        marked = a.get("name") == LOG_UNITS_MARK
        for letter in ("x", "y"):
            ref, value = a.get(f"{letter}ref"), a.get(letter)
            p = _coord_problem(v, "annotation", f"{j} ({text!r})", ref, value, letter, text, marked=marked)
            if p:
                problems.append(p)
    return problems


def _shape_problems(v: _View) -> list[str]:
    """(a) for the shapes: units on a log axis, and a band entirely outside an explicit range."""
    problems = []
    for j, s in enumerate(v.layout.get("shapes", []) or []):
        if s.get("type") == "path":
            continue
        text = _text_of((s.get("label") or {}).get("text"))
        is_rect = s.get("type") == "rect"
        for letter in ("x", "y"):
            ends = [s.get(f"{letter}0"), s.get(f"{letter}1")]
            label, ref = f"{j} ({s.get('type', 'shape')})", s.get(f"{letter}ref")
            problems += [p for e in ends if (p := _coord_problem(v, "shape", label, ref, e, letter, text, is_rect))]
            name = _axis_name(ref or letter)
            r = v.explicit_range(name) if name in v.axes else None
            if is_rect and r is not None and all(_is_number(e) for e in ends):
                vals = [float(e) for e in ends]
                if v.types.get(name) == "log":
                    if min(vals) <= 0:
                        continue  # reported above
                    vals = [math.log10(e) for e in vals]
                lo, hi = sorted(vals)
                if hi < r[0] or lo > r[1]:
                    problems.append(f"shape {j} (rect) lies entirely outside the visible range of {name}")
    return problems


def _trace_text_problems(i: int, t: dict) -> list[str]:
    label = _trace_label(i, t)
    problems = []
    if t.get("name") is not None:
        problems += _text_problems(f"{label} legend name", str(t["name"]))
    if t.get("hovertemplate"):
        for h in {str(x) for x in _as_list(t["hovertemplate"])}:
            problems += _text_problems(f"{label} hover text", h)
    if t.get("text") is not None and "text" in str(t.get("mode", "")) + t.get("type", ""):
        for s in {str(x) for x in _as_list(t["text"])}:
            problems += _text_problems(f"{label} text", s)
    for cb in (t.get("colorbar"), (t.get("marker") or {}).get("colorbar")):
        if cb:
            problems += _text_problems(f"{label} colour-bar title", _text_of(cb.get("title")))
    cats = [x for letter in ("x", "y") for x in _categories(_trace_coords(t)[letter])]
    for s in dict.fromkeys(cats):
        problems += _text_problems(f"{label} category", s)
    return problems


def _reading_problems(v: _View) -> list[str]:
    """(e) the texts people read: titles, ticks, legend names, hover texts, colour bars, categories."""
    problems = _text_problems("figure title", _text_of(v.layout.get("title")))
    problems += _text_problems("legend title", _text_of((v.layout.get("legend") or {}).get("title")))
    for name, ax in v.axes.items():
        problems += _text_problems(f"{name} title", _text_of(ax.get("title")))
        for k, tick in enumerate(_as_list(ax.get("ticktext"))):
            problems += _text_problems(f"{name} tick {k}", str(tick))
    for i, t in enumerate(v.traces):
        problems += _trace_text_problems(i, t)
    return problems


def figure_problems(fig: go.Figure | dict) -> list[str]:
    """What is wrong with a figure (a plotly ``Figure`` or its JSON dict), in words; an empty list when nothing
    is. Checks (a) log-axis units of annotations and shapes, (b) text categories on a forced numeric axis,
    (c) drawable points, (d) axis titles, (e) readable texts: docs/engine.md §"Figures".
    """
    if isinstance(fig, dict):  # a figure's JSON, e.g. what Streamlit or a browser received
        d = {"data": list(fig.get("data", [])), "layout": dict(fig.get("layout", {}))}
    elif isinstance(fig, go.Figure):
        d = fig.to_dict()
    else:
        return [f"not a plotly Figure: {type(fig).__name__}"]
    problems: list[str] = []
    v = _View(d, problems)  # (b) while inferring the axis types
    problems += _point_problems(v)
    problems += _axis_title_problems(v)
    problems += _annotation_problems(v)
    problems += _shape_problems(v)
    problems += _reading_problems(v)
    return list(dict.fromkeys(problems))
