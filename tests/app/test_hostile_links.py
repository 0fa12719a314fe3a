"""Links are untrusted input: every URL value of every page, with hostile values.

Two levels:

* ``parse_url_value`` (pure) for every declared parameter and every hostile value: the value used is the
  documented default (unusable input: not a number, nan, ±inf, overflow, a 5,000-digit number, a
  non-integer where an integer is needed, an unknown choice) or the clamp of a finite out-of-range number
  to the nearest end of the range (which, for a privacy parameter, is the most private value on offer or
  more private than the link asked); the message names the parameter, quotes the value and states the
  valid values.
* The app (AppTest): every page opened with every hostile value in all its URL keys at once (runs are
  shared by the parametrized keys): no exception, exactly one warning naming each key the page reads, and
  the value the page uses is the parser's.

Non-Home pages keep ``trials=10`` when the hostile value would fall back to the default 100 trials (too slow
for a unit test); ``trials`` gets every hostile value on Home, and the shared parameters are parsed before
any page runs (``app.py``), so the result does not depend on the page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dp_core._validation import HUGE, TINY
from dp_core.data import DATASETS
from dp_core.text import escape_markdown
from ui.constants import HIGHER_IS_PRIVATE, LOWER_IS_PRIVATE, URL_PARAMS, UrlParam, plugin_url_params, url_spec
from ui.pages import DEFAULT_PAGE, PAGES
from ui.state import WEAKER, WEAKER_OK, applies_on, parse_url_value

ROOT = Path(__file__).resolve().parents[2]
APP = "../../app.py"
BIG = "9" * 5000
UNUSABLE = ("inf", "-inf", "nan", "1e309", "abc", BIG)
HOSTILE = UNUSABLE + ("1e-320", "-1", "0", "OUT")  # OUT: an out-of-range value chosen per parameter
AUDIT_OPTION_KEYS = ("audit_gaussian_sensitivity", "audit_gaussian_clip")  # the default mechanism's options


#: Parameters whose largest value makes a page slow (more grid points, runs or rows): their out-of-range
#: value is taken below the range instead of above it.
LOW_SIDE = {
    "n_eps",
    "lm_n",
    "audit_runs",
    "l1_releases",
    "l1_sim_n",
    "l1_sim_trials",
    "ip_n",
    "m",
    "lm_k",
    "audit_gaussian_sensitivity",
    "audit_gaussian_clip",
}


def out_of_range(spec: UrlParam, name: str = "") -> str:
    """A value just outside what ``spec`` accepts (above the range; below it for ``LOW_SIDE``)."""
    if spec.kind is bool:
        return "2"
    if spec.kind is str:
        return "zzz"
    if spec.options is not None:
        nums = [float(o) for o in spec.options]
        if name in LOW_SIDE:
            return str(int(min(nums)) - 1) if spec.kind is int else repr(min(nums) / 10)
        return repr(max(nums) * 10)
    if name in LOW_SIDE and spec.lo is not None:
        return str(int(spec.lo) - 1) if spec.kind is int else repr(spec.lo / 10)
    if spec.hi is not None:
        return str(int(spec.hi) + 1) if spec.kind is int else repr(spec.hi * 10)
    return "1e300"


def raw_value(name: str, value: str) -> str:
    return out_of_range(url_spec(name), name) if value == "OUT" else value


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


# ------------------------------------------------------------------ the parser, for every declared key
#: Every declaration a link is parsed against: ui.constants.URL_PARAMS and the page parameters the mechanism
#: plug-ins declare as ParamSpecs (those without a URL prefix are not read from links by any page).
DECLARED = {**{k: s for k, s in plugin_url_params().items() if s.page is not None}, **URL_PARAMS}
ALL_KEYS = [k for k in DECLARED] + list(AUDIT_OPTION_KEYS)
DATA_DEFAULTS = {
    "tmetric": "r2",
    "tvalue": 0.3,
    "ip_model": "least_squares",
    "ip_pos": 0.0,
    "ip_n": 16_000,
    "lb_lo": 0.0,
    "lb_hi": 1.0,
    "audit_mode": "analytic",
    "audit_pair": "boundary",
    "audit_runs": 100_000,
}
DATA_OPTIONS = {
    "ip_pos": (0.0, 1.0, 2.0),
    "ip_n": (64, 128, 256, 16_000),
    "mechanism": ("laplace", "gaussian"),
    "audit_mode": ("analytic", "classic"),
    "audit_pair": ("boundary", "random"),
    "lm_data": ("gaussian_classes", "iris"),
    "mech": ("output_perturbation", "label_dp_bags"),
}


@pytest.mark.parametrize(
    "value", HOSTILE, ids=["inf", "-inf", "nan", "1e309", "abc", "5000digits", "1e-320", "-1", "0", "out-of-range"]
)
@pytest.mark.parametrize("name", ALL_KEYS)
def test_parser_refuses_or_clamps_with_a_message(name, value):
    spec = url_spec(name)
    raw = raw_value(name, value)
    default = DATA_DEFAULTS.get(name, spec.default)
    options = DATA_OPTIONS.get(name, spec.options)
    used, message = parse_url_value(name, raw, default=default, options=options)
    x = _number(raw)
    numeric = spec.kind in (int, float)
    usable = (
        numeric and x is not None and (spec.kind is float or x.is_integer()) and (x == 0 or TINY <= abs(x) <= HUGE)
    )  # the engine refuses subnormal and overflowing values
    if spec.kind is bool and raw in ("0",):
        assert used is False and message is None
        return
    if not usable:
        if spec.kind is str and options is None and not spec.multi:
            assert used == raw and message is None  # free text (e.g. a dataset name checked by the page)
            return
        assert used == default, (name, raw, used)
        assert message and f"({name})" in message and "default" in message
        # quoted (escaped: Markdown in a link shows as text), even a 5,000-digit value stays short
        assert escape_markdown(raw[:20]) in message and len(message) < 600
        return
    lo = min(float(o) for o in options) if options is not None else spec.lo
    hi = max(float(o) for o in options) if options is not None else spec.hi
    # a finite number: used as is (silently) or clamped / snapped with a message naming the key and the value
    assert (message is None) == (used == x), (name, raw, used, message)
    if message is not None:
        assert f"({name})" in message and escape_markdown(raw[:20]) in message
    if lo is not None and x < lo:
        assert used == pytest.approx(lo)
        if spec.private == LOWER_IS_PRIVATE:
            assert "weaker guarantee than the link asked" in message  # said out loud, never silent
        if spec.private == HIGHER_IS_PRIVATE:
            assert "more private" in message
    elif hi is not None and x > hi:
        assert used == pytest.approx(hi)
        if spec.private == HIGHER_IS_PRIVATE:
            assert "weaker guarantee than the link asked" in message
        if spec.private == LOWER_IS_PRIVATE:
            assert "more private" in message
    if options is not None:
        assert used in options
    if spec.lo is not None and spec.hi is not None:
        assert spec.lo <= used <= spec.hi


@pytest.mark.parametrize(
    "name, raw, used, words",
    [
        ("eps", "1e-9", 0.01, "weaker guarantee"),  # refused to go below the slider: said so, not silent
        ("eps", "50", 10.0, "more private"),
        ("eps", "inf", 1.0, "default"),
        ("lb_noise_std", "1e9", 100.0, "most private value"),  # never the smallest noise
        ("lb_noise_std", "0.001", 0.05, "more private"),
        ("delta", "4e-6", 2e-6, "more private"),  # between two options: the more private one
        ("delta", "0.7", 0.5, "more private"),
        ("ip_alpha", "0.3", 0.25, "more private"),
        ("rho", "2", 1.0, "most private value"),
        ("k", "1e309", 0, "default"),  # 0 = auto: k and m from the data size
        ("k", "5000", 4096, "most private value"),
        ("trials", "inf", 100, "default"),
        ("trials", "30", 20, "nearest"),
        ("seed", "1e999", 0, "default"),
        ("seed", "2.5", 0, "not a whole number"),
        ("lm_n", "160", 200, "nearest"),
        ("l1_theta", "1.53", 1.55, "nearest"),
        ("lb_public", "abc", False, "default"),
        ("view", "zzz", "utility", "default"),
    ],
)
def test_parser_golden_cases(name, raw, used, words):
    value, message = parse_url_value(name, raw)
    assert value == pytest.approx(used) if isinstance(used, float) else value == used
    assert message is not None and words in message and f"({name})" in message


def test_parser_accepts_valid_values_silently():
    assert parse_url_value("eps", "0.5") == (0.5, None)
    assert parse_url_value("trials", "1e3") == (1000, None)
    assert parse_url_value("delta", "1e-06") == (1e-6, None)
    assert parse_url_value("lb_public", "1") == (True, None)
    assert parse_url_value("mech", "output_perturbation,label_dp_bags", options=DATA_OPTIONS["mech"])[1] is None


# ------------------------------------------------------------------ the app: every page, every key
PAGE_PATHS = [p[0] for p in PAGES]
READ_ON_DEFAULT_PATH = {  # page keys that are only read in another setting (another model, dataset, mechanism)
    "ip_pos",
    "lb_lo",
    "lb_hi",
    "lb_gamma",  # read with the secret-weights variant only
}


def page_keys(path: str) -> list[str]:
    keys = [k for k, s in DECLARED.items() if s.page == path and k not in READ_ON_DEFAULT_PATH]
    return keys + (list(AUDIT_OPTION_KEYS) if path == "pages/audit.py" else [])


SHARED = [k for k, s in DECLARED.items() if s.page is None]
DYNAMIC = {"mech", "mechanism", "lm_data", "audit_mode", "audit_pair", "audit_runs", "ip_n", "lb_public"}
_RUNS: dict[tuple[str, str], AppTest] = {}


def run_page(path: str, value: str) -> AppTest:
    """Open ``path`` with ``value`` in every shared and page key at once (cached: keys share the run)."""
    if (path, value) in _RUNS:
        return _RUNS[(path, value)]
    at = AppTest.from_file(APP, default_timeout=240)
    # a value clamped toward a weaker guarantee holds the page until the visitor agrees (tested on its own
    # below); here every key is agreed to in advance so that the whole page runs and shows every message
    at.session_state[WEAKER_OK] = set(SHARED + page_keys(path))
    for key in SHARED + page_keys(path):
        at.query_params[key] = raw_value(key, value)
    if path != DEFAULT_PAGE:
        used, _ = parse_url_value("trials", raw_value("trials", value))
        if used != 10:
            at.query_params["trials"] = "10"
        at.switch_page(path)
    at.run()
    _RUNS[(path, value)] = at
    return at


CASES = [
    (path, key, v)
    for path in PAGE_PATHS
    for key in SHARED + page_keys(path)
    for v in HOSTILE
    if not (path != DEFAULT_PAGE and key == "trials" and parse_url_value("trials", raw_value("trials", v))[0] != 10)
]


@pytest.mark.parametrize(
    "path, key, value", CASES, ids=[f"{Path(p).stem}-{k}-{v if len(v) < 10 else 'big'}" for p, k, v in CASES]
)
def test_hostile_link_value(path, key, value):
    at = run_page(path, value)
    assert not at.exception, [e.value for e in at.exception]
    raw = raw_value(key, value)
    spec = url_spec(key)
    pattern = re.compile(rf"\({re.escape(key)}\) = ")
    named = [w.value for w in [*at.warning, *at.error] if pattern.search(w.value)]
    if spec.page is None and not applies_on(key, path):
        assert not named, named  # label-DP's k, m, ρ neither warn nor hold a page that does not use them
        return
    if spec.default is None or key in DYNAMIC:  # default or options come from the data: the parser tests cover it
        assert len(named) <= 1, named
        return
    options = tuple(DATASETS) if key == "dataset" else None
    used, expected_message = parse_url_value(key, raw, options=options)
    if expected_message is None:
        assert not named, named  # a valid value raises no warning
        return
    assert len(named) == 1, (key, raw[:30], named)  # one visible warning naming the key
    # the page uses the parser's value (shared values: checked on Home, where no widget narrows them further)
    state_key = f"p_{key}" if spec.page is None else f"u_{key}"
    if (spec.page is not None or path == DEFAULT_PAGE) and state_key in at.session_state:
        got = at.session_state[state_key]
        assert got == (pytest.approx(used) if isinstance(used, float) else used), (key, raw[:30], got, used)


# ------------------------------------------------------------------ structure: no raw URL reads
RAW_READ = re.compile(r"query_params\s*(\[|\.get\(|\.to_dict\(|\.get_all\()|in\s+st\.query_params")


def test_no_raw_query_param_reads_outside_ui_state():
    offenders = []
    for path in sorted([*ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py"), ROOT / "app.py"]):
        if path.relative_to(ROOT).as_posix() == "ui/state.py":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if RAW_READ.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "read URL values through ui.state (validated):\n" + "\n".join(offenders)


URL_CALL = re.compile(r"""(?:url_param|seed_widget|link_value|_init)\(\s*["']([A-Za-z0-9_]+)["']""")
SYNC_KEY = re.compile(r"""["']([A-Za-z0-9_]+)["']\s*:""")


def test_every_url_key_a_page_uses_is_declared():
    undeclared = []
    for path in sorted(ROOT.glob("pages/*.py")):
        text = path.read_text(encoding="utf-8")
        names = set(URL_CALL.findall(text))
        for block in re.findall(r"sync_url\((\{.*?\})\)", text, flags=re.DOTALL):
            names |= set(SYNC_KEY.findall(block))
        if path.name == "l1_exponential.py":  # _init(widget key, URL name, ...): the URL name is the second
            names |= set(re.findall(r"""_init\(\s*["'][A-Za-z0-9_]+["'],\s*["']([A-Za-z0-9_]+)["']""", text))
            names -= {"l1_c_iota"}
        for name in sorted(names):
            try:
                url_spec(name)
            except KeyError:
                undeclared.append(f"{path.name}: {name}")
    assert not undeclared, undeclared


# ------------------------------------------------------------------ a weaker guarantee needs consent
@pytest.mark.parametrize(
    "path, query, key",
    [
        ("pages/home.py", {"eps": "1e-9"}, "eps"),
        ("pages/label_dp_bags.py", {"lb_noise_std": "1e9", "trials": "10"}, "lb_noise_std"),
    ],
)
def test_a_link_value_clamped_toward_a_weaker_guarantee_holds_the_page_until_the_visitor_agrees(path, query, key):
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in query.items():
        at.query_params[k] = v
    if path != DEFAULT_PAGE:
        at.switch_page(path)
    at.run()
    assert not at.exception
    held = [e.value for e in at.error if f"({key}) = " in e.value]
    assert len(held) == 1 and WEAKER in held[0] and "until you agree" in held[0], [e.value for e in at.error]
    charts_before = len(at.get("plotly_chart"))
    buttons = [b for b in at.button if b.label == "Continue with the weaker setting"]
    assert len(buttons) == 1
    buttons[0].click().run()
    assert not at.exception
    assert not [e.value for e in at.error if f"({key}) = " in e.value]
    assert [w.value for w in at.warning if f"({key}) = " in w.value and WEAKER in w.value]
    assert len(at.get("plotly_chart")) > charts_before  # the page now runs at the clamped value, said so


# ------------------------------------------------------------------ issue 24: repeated keys, uploads, where keys apply
def _open(query: dict, path: str = DEFAULT_PAGE) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in query.items():
        at.query_params[k] = v
    if path != DEFAULT_PAGE:
        at.switch_page(path)
    return at.run()


def _link_messages(at: AppTest) -> list[str]:
    return [m.value for m in [*at.warning, *at.error, *at.info] if "link" in m.value]


@pytest.mark.parametrize(
    "path, key, values, default",
    [
        (DEFAULT_PAGE, "eps", ["0.1", "10"], 1.0),
        (DEFAULT_PAGE, "seed", ["1", "2", "3"], 0),
        ("pages/input_perturbation.py", "ip_alpha", ["0.5", "1"], url_spec("ip_alpha").default),
    ],
)
def test_a_repeated_key_is_refused_with_a_message_naming_it(path, key, values, default):
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params[key] = values
    at.query_params["trials"] = "10"
    if path != DEFAULT_PAGE:
        at.switch_page(path)
    at.run()
    assert not at.exception
    named = [m for m in _link_messages(at) if f"({key}) " in m]
    assert len(named) == 1, _link_messages(at)
    times = "twice" if len(values) == 2 else "three times"
    assert times in named[0] and all(escape_markdown(v) in named[0] for v in values)
    assert ("neither was applied" if len(values) == 2 else "none was applied") in named[0]
    state_key = f"p_{key}" if url_spec(key).page is None else f"u_{key}"
    assert at.session_state[state_key] == default  # neither value: which one was meant?
    assert len(at.query_params[key]) == 1 if isinstance(at.query_params[key], list) else True


def test_a_repeated_key_is_not_silently_the_last_one():
    at = _open({"eps": ["0.1", "10"]})
    assert at.session_state["p_eps"] not in (0.1, 10.0)


@pytest.mark.parametrize("path", ["pages/input_perturbation.py", "pages/large_margin_gaussian.py", DEFAULT_PAGE])
def test_rho_neither_holds_nor_warns_a_page_that_does_not_use_it(path):
    at = _open({"rho": "2", "trials": "10", "lm_n": "200"}, path)
    assert not at.exception
    assert not [m for m in _link_messages(at) if "(rho)" in m], _link_messages(at)
    assert not [b for b in at.button if b.label == "Continue with the weaker setting"]
    assert at.get("plotly_chart"), "the page was held"


def test_rho_still_holds_the_pages_it_applies_to():
    at = _open({"rho": "2", "trials": "10"}, "pages/input_perturbation.py")
    at.switch_page("pages/label_dp_bags.py").run()
    held = [e.value for e in at.error if "(rho)" in e.value]
    assert len(held) == 1 and WEAKER in held[0]
    assert [b for b in at.button if b.label == "Continue with the weaker setting"]


def test_a_link_made_on_an_upload_says_so_when_opened():
    sender = _open({"trials": "10"})
    sender.radio(key="w_source").set_value("upload").run()
    rows = "".join(f"{i % 7},{i % 5},{(i % 7) * 0.5 + (i % 5)}\n" for i in range(60))
    sender.file_uploader(key="csv").set_value(("mine.csv", f"a,b,y\n{rows}".encode(), "text/csv")).run()
    assert not sender.exception and sender.session_state["p_source"] == "upload"
    link = {k: sender.query_params[k] for k in sender.query_params}
    assert link.get("source") in ("upload", ["upload"])
    assert not any("mine" in str(v) for v in link.values())  # the file's name does not travel either
    receiver = _open(link)
    says = [m for m in _link_messages(receiver) if "made on an uploaded file" in m]
    assert len(says) == 1 and "upload the file on Home" in says[0]
    assert receiver.session_state["p_source"] != "upload"
    receiver.radio(key="w_source").set_value("demo").run()
    assert "source" not in receiver.query_params  # a demo view's link carries no marker


@pytest.mark.parametrize("raw", ["demo", "nosuch"])
def test_the_upload_marker_is_validated(raw):
    at = _open({"source": raw})
    messages = [m for m in _link_messages(at) if "(source)" in m or "uploaded file" in m]
    assert len(messages) == (0 if raw == "demo" else 1), messages
