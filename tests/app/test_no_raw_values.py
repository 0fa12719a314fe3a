"""No raw value reaches a person: every page, at default and at edge settings, is scanned for
NumPy reprs, nan/inf/None strings, floating-point dust, denormal exponents, Python object reprs
and snake_case table headers.

The scan covers all rendered text (markdown, captions, titles, metric labels/values/deltas,
info/warning/error/success bodies, button, link and widget labels, options and help texts,
expanders and tabs, code, JSON) and every dataframe/table: headers, string cells, and numeric
cells (which must be finite and either short or formatted by a column configuration). LaTeX is
not scanned (``\\inf`` is mathematics there); plotly charts are covered by the figure tests.
"""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

APP = "../../app.py"

FORBIDDEN = {
    "NumPy repr": re.compile(r"\bnp\.|\bnumpy\."),
    "raw nan/inf/None": re.compile(r"(?<![\w\\.])(?:nan|NaN|inf|-inf|Infinity|None)(?![\w(])"),
    "denormal exponent": re.compile(r"\de-[123]\d\d\b"),
    "float dust": re.compile(r"\d\.\d{9,}|0\.0{8,}"),
    "Python object repr": re.compile(r"<[^<>]* object at 0x|<class '"),
}
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
#: Proto fields holding text that people read.
TEXT_FIELDS = {
    "body",
    "label",
    "help",
    "options",
    "value",
    "rawValue",
    "placeholder",
    "delta",
    "text",
    "caption",
    "message",
}
SKIP_ELEMENTS = {"Latex", "PlotlyChart", "UnknownElement"}

PAGES = [
    "start_here",
    "home",
    "input_perturbation",
    "large_margin_gaussian",
    "label_dp_bags",
    "l1_exponential",
    "compare",
    "audit",
]

SMALL_CSV = (
    b"age,score,group,target\n"
    + b"".join(f"{20 + i},{(i * 37) % 11 / 10:.1f},{'ab'[i % 2]},{(i * 7) % 5}\n".encode() for i in range(40))
    + b"61,,a,3\n"
)


def _strings(obj, key=None):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in TEXT_FIELDS or isinstance(v, dict | list):
                yield from _strings(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, key)
    elif isinstance(obj, str) and key in TEXT_FIELDS:
        yield obj


def _walk(node):
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        yield node
        for c in children.values():
            yield from _walk(c)
    else:
        yield node


def _column_formats(el) -> dict:
    try:
        cfg = json.loads(el.proto.columns or "{}")
    except (AttributeError, ValueError):
        return {}
    return {k: (v or {}).get("type_config", {}).get("format") for k, v in cfg.items()}


def _scan_frame(where: str, df: pd.DataFrame, formats: dict, problems: list, own_names=()) -> None:
    for col in df.columns:
        name = str(col)
        for what, rx in FORBIDDEN.items():
            if rx.search(name):
                problems.append(f"{where}: header {name!r}: {what}")
        if SNAKE.search(name) and name not in own_names:
            problems.append(f"{where}: snake_case header {name!r}")
        found: dict[str, str] = {}  # one example per kind of problem and column
        for v in df[col].tolist():
            if isinstance(v, str):
                for what, rx in FORBIDDEN.items():
                    if rx.search(v):
                        found.setdefault(what, f"cell {v!r}")
            elif v is None or (isinstance(v, float) and not math.isfinite(v)):
                found.setdefault("missing or infinite number shown raw", f"cell {v!r}")
            elif (
                isinstance(v, float)
                and formats.get(name) is None
                and len(f"{abs(v):.15g}".replace(".", "").lstrip("0")) > 6
            ):
                found.setdefault("unformatted float", f"cell {v!r}")
        problems += [f"{where}: {example} in {name!r}: {what}" for what, example in found.items()]


def scan(at: AppTest, label: str, own_names=()) -> list[str]:
    """Every problem found in the rendered page, as readable lines. ``own_names``: an uploaded file's
    own column names, which a preview shows as they are."""
    problems: list[str] = []
    for node in _walk(at._tree):
        kind = type(node).__name__
        proto = getattr(node, "proto", None)
        if proto is None or kind in SKIP_ELEMENTS:
            continue
        where = f"{label} {kind}"
        if kind == "Dataframe" or kind == "Table":
            _scan_frame(where, node.value, _column_formats(node), problems, own_names)
            continue
        try:
            fields = MessageToDict(proto)
        except Exception:  # noqa: BLE001, S112  (an element without a message: nothing to read)
            continue
        if kind == "Json":
            fields = {"body": fields.get("body", "")}
        for text in _strings(fields):
            for what, rx in FORBIDDEN.items():
                m = rx.search(text)
                if m:
                    s = max(0, m.start() - 50)
                    problems.append(f"{where}: {what}: …{text[s : m.end() + 30]}…")
    if at.exception:
        problems.append(f"{label}: exception {at.exception[0].message}")
    return problems


#: Lazy expert sections opened before every scan (their content is drawn only while open).
OPEN_SECTIONS = ("lb_x_accounting", "lb_x_delta_k", "lb_x_conditions", "lb_x_utility", "lb_x_bags")


def open_page(page: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key in OPEN_SECTIONS:
        at.session_state[key] = True
    for k, v in (query or {}).items():
        at.query_params[k] = str(v)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py").run()
    return at


def check(at: AppTest, label: str) -> None:
    problems = scan(at, label)
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))


# ------------------------------------------------------------------------------------ the scanner itself
def test_the_scanner_finds_the_known_raw_values():
    """Each forbidden pattern is caught (what main showed before the formatting module was applied)."""
    bad = [
        "np.int64(1) rows",
        "ε = nan",
        "upper end inf",
        "n = None",
        "se 5e-152",
        "0.30000000000000004",
        "0.000000000000000002",
        "<dp_core.x.Y object at 0x7f>",
        "Infinity",
    ]
    for text in bad:
        assert any(rx.search(text) for rx in FORBIDDEN.values()), text
    good = [
        "ε = 0.3",
        "δ = 1e-5",
        "≥ 0.999995",
        "∞",
        "not reached",
        "n = 1,149",
        "infinite",
        "information",
        "1.2e-12",
        r"\inf",
        "Nanny",
        "nanoseconds",
        "3.14159",
    ]
    assert not [t for t in good if any(rx.search(t) for rx in FORBIDDEN.values())]
    problems: list[str] = []
    _scan_frame(
        "t", pd.DataFrame({"epsilon_measured_lo": [float("inf")], "se": [0.1234567891], "ok": ["1e-5"]}), {}, problems
    )
    assert len(problems) == 3, problems


# ------------------------------------------------------------------------------------ every page
@pytest.mark.parametrize("page", PAGES)
def test_default_settings(page):
    at = open_page(page, {"trials": 10})
    check(at, f"{page} (default)")


@pytest.mark.parametrize(
    "query",
    [{"eps": 0.01, "delta": 1e-12, "trials": 10}, {"eps": 10, "delta": 0.5, "trials": 10, "rho": 0, "k": 2, "m": 1}],
    ids=["eps0.01-delta1e-12", "eps10-delta0.5-rho0"],
)
def test_edge_settings_every_page(query):
    problems = []
    for page in PAGES:
        problems += scan(open_page(page, query), f"{page} {query}")
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))


def test_upload_then_pages():
    at = open_page("home", {"trials": 10})
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value(("tiny.csv", SMALL_CSV, "text/csv")).run()
    problems = scan(at, "home (upload, missing value)")
    at.checkbox(key="w_up_dropna").check().run()
    assert any("Using **tiny.csv**" in m.value for m in at.success), "the upload was not accepted"
    own = set(at.session_state["upload_dataset"].feature_names)  # includes one-hot names such as group_a
    problems += scan(at, "home (upload)", own)
    for page in ("compare", "l1_exponential", "label_dp_bags", "input_perturbation"):
        at.switch_page(f"pages/{page}.py").run()
        problems += scan(at, f"{page} (upload)")
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))


def test_compare_metric_switch_and_negotiation():
    at = open_page("compare", {"trials": 10, "n_eps": 4, "dataset": "iris"})
    at.radio(key="view").set_value("excess_risk").run()
    problems = scan(at, "compare (excess risk view)")
    at.selectbox(key="tmetric").set_value("excess_risk").run()
    problems += scan(at, "compare (excess-risk target)")
    at.radio(key="tsolve").set_value("n").run()
    at.number_input(key="tdelta").set_value(1e-6).run()
    problems += scan(at, "compare (solve for n, δ target)")
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))


def test_audit_every_mechanism():
    from dp_core.audit import MECHANISMS

    problems = []
    for name in MECHANISMS:
        at = open_page("audit", {"mechanism": name, "audit_runs": 200})
        problems += scan(at, f"audit {name}")
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))


# ------------------------------------------------------------------------------------ downloads
def test_report_and_csv_download_show_no_raw_values():
    """The HTML report's text and tables and the results CSV's header are written for people."""
    import html as html_lib

    from dp_core.compare import ExplorerConfig
    from dp_core.report import build_report

    cfg = ExplorerConfig(
        eps=0.5,
        delta=1e-12,
        seed=3,
        trials=4,
        dataset="diabetes",
        page="pages/compare.py",
        params={
            "eps_min": 0.1,
            "eps_max": 10.0,
            "n_eps": 4,
            "mech": "output_perturbation,label_dp_bags",
            "tmetric": "r2",
            "tvalue": 0.99,
            "tdelta": 1e-6,
        },
    )
    rep = build_report(cfg)
    body = rep.html.split("<h1>", 1)[1].split('<pre id="config-text">', 1)[0]
    body = re.sub(r"<script.*?</script>", " ", body, flags=re.DOTALL)  # the figures' JSON and plotly.js
    text = html_lib.unescape(re.sub(r"<[^>]+>", "\n", body))
    problems = [
        f"report: {what}: {line.strip()[:120]}"
        for line in text.splitlines()
        for what, rx in FORBIDDEN.items()
        if rx.search(line)
    ]
    headers = [html_lib.unescape(h) for h in re.findall(r"<th>(.*?)</th>", rep.html)]
    problems += [f"report header {h!r}" for h in headers if SNAKE.search(h)]
    csv_header = rep.csv.splitlines()[0].split(",")
    problems += [f"CSV header {h!r}" for h in csv_header if SNAKE.search(h)]
    assert "smallest bag size k" in rep.html and len(headers) > 20  # the tables were really rendered
    assert not problems, "\n".join(problems)


def test_experiment_buttons():
    """Tables that appear only after a button: the large-margin sweeps and the l1 rate experiment."""
    at = open_page("large_margin_gaussian", {"trials": 10, "lm_n": 200})
    for key in ("lm_sec_accounting", "lm_sec_draw", "lm_sec_flaws", "lm_sec_sweeps", "lm_sec_bounds"):
        at.session_state[key] = True  # the page's expert sections are lazy: open them all
    at.run()
    at.button(key="lm_run").click().run()
    problems = scan(at, "large_margin_gaussian (sweeps)")
    headers = [set(map(str, d.value.columns)) for d in at.dataframe]
    assert any("measured mean excess" in h for h in headers), "the sweeps' table was not shown"
    at.switch_page("pages/l1_exponential.py").run()
    at.session_state["l1_x_exp"] = True  # the experiments' section is lazy: open it
    at.run()
    at.select_slider(key="l1_sim_trials").set_value(4).run()
    at.radio(key="l1_exp").set_value("rates").run()
    at.button(key="l1_run_exp_btn").click().run()
    problems += scan(at, "l1_exponential (rate experiment)")
    headers = [set(map(str, d.value.columns)) for d in at.dataframe]
    assert any("explicit bound U(ι)" in h for h in headers), "the rate experiment's table was not shown"
    assert not problems, "raw values shown to people:\n" + "\n".join(dict.fromkeys(problems))
