"""Structural rule: no Streamlit element crosses a cache boundary.

On a cache hit Streamlit replays the elements a cached function created; an element created outside
the function (a progress bar handed in as a callback) cannot be rebuilt and the page crashes for
every visitor after the first (``CacheReplayClosureError``). So, for every ``st.cache_data`` /
``st.cache_resource`` function in ``ui/`` and ``pages/`` (and ``app.py``):

* its body never refers to ``st``/``streamlit`` or to the widget helpers (``widgets``, ``state``), directly
  or through a helper function of the same module;
* it has no parameter that looks like a callback or a Streamlit object (progress, callback, bar,
  container, placeholder, ...);
* no call site passes it a progress/callback keyword or an argument built from ``st``/``widgets``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(
    [*ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py"), *ROOT.glob("dp_core/mechanisms/*/plan.py"), ROOT / "app.py"]
)
CACHE_DECORATORS = {"cache_data", "cache_resource", "cached"}  # cached: dp_core.plugin.cached (page plans)
UI_NAMES = {"st", "streamlit", "widgets", "state"}
SUSPECT = re.compile(
    r"progress|callback|^_?cb$|^_?on_|bar$|container|placeholder|spinner|status|^_?st$|widget", re.IGNORECASE
)


def _decorator_name(dec: ast.expr) -> str | None:
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Name):
        return target.id
    return None


def _is_cached(fn: ast.AST) -> bool:
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        _decorator_name(d) in CACHE_DECORATORS for d in fn.decorator_list
    )


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _touches_ui(fn: ast.FunctionDef, functions: dict, seen: set[str]) -> set[str]:
    """UI names a function's body reaches, directly or through non-cached functions of its module."""
    body = ast.Module(body=fn.body, type_ignores=[])
    used = _names_used(body)
    hits = used & UI_NAMES
    for name in used & set(functions):
        other = functions[name]
        if name in seen or _is_cached(other):
            continue
        seen.add(name)
        hits |= _touches_ui(other, functions, seen)
    return hits


def _cached_functions() -> dict[Path, list[ast.FunctionDef]]:
    out = {}
    for path in FILES:
        tree = ast.parse(path.read_text(), filename=str(path))
        out[path] = [n for n in ast.walk(tree) if _is_cached(n)]
    return out


CACHED = _cached_functions()


def test_the_scan_finds_the_cached_wrappers():
    # guards the scan itself: if the decorator detection broke, every other test here would pass vacuously
    names = {fn.name for fns in CACHED.values() for fn in fns}
    assert {"first_utility", "compare", "sweep", "one_draw", "load_demo"} <= names
    # (a floor well below the current count: pages move long runs from cached wrappers to ui.background jobs)
    assert sum(len(f) for f in CACHED.values()) >= 30


@pytest.mark.parametrize("path", [p for p in FILES if CACHED[p]], ids=lambda p: str(p.relative_to(ROOT)))
def test_cached_bodies_create_no_streamlit_element(path):
    tree = ast.parse(path.read_text())
    functions = _module_functions(tree)
    bad = {}
    for fn in CACHED[path]:
        hits = _touches_ui(fn, functions, {fn.name})
        if hits:
            bad[fn.name] = sorted(hits)
    assert not bad, f"cached functions in {path.name} use Streamlit/UI helpers inside their body: {bad}"


@pytest.mark.parametrize("path", [p for p in FILES if CACHED[p]], ids=lambda p: str(p.relative_to(ROOT)))
def test_cached_functions_take_no_callback_or_streamlit_object(path):
    bad = {}
    for fn in CACHED[path]:
        a = fn.args
        params = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
        params += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
        suspect = [p for p in params if SUSPECT.search(p)]
        if suspect:
            bad[fn.name] = suspect
    assert not bad, f"cached functions in {path.name} take callback-like parameters: {bad}"


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _streamlit_objects(arg: ast.AST) -> list[str]:
    """Streamlit objects an argument expression builds: any ``st.``/``streamlit.`` reference other than plain
    values read from ``st.session_state``/``st.query_params``, and any callback-like ``widgets`` helper."""
    hits = []
    for node in ast.walk(arg):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "value", None), ast.Attribute):
            path = _dotted(node)
            if path is None:
                continue
            root, rest = path.split(".", 1)
            streamlit_object = root in ("st", "streamlit") and not rest.startswith(("session_state", "query_params"))
            if streamlit_object or (root == "widgets" and SUSPECT.search(rest)):
                hits.append(path)
        elif (
            isinstance(node, ast.Name)
            and node.id in ("st", "streamlit")
            and not any(isinstance(p, ast.Attribute) and p.value is node for p in ast.walk(arg))
        ):
            hits.append(node.id)
    return sorted(set(hits))


def _cached_index() -> dict[str, set[str]]:
    """module name (``ui.cached_x``) -> names of its cached functions."""
    return {f"{p.parent.name}.{p.stem}": {fn.name for fn in fns} for p, fns in CACHED.items() if fns}


def _call_sites(tree: ast.Module, index: dict[str, set[str]]):
    """Calls of cached functions in a module.

    ``alias.func(...)`` or ``func(...)`` of an imported/own cached function.
    """
    aliases: dict[str, str] = {}  # local name -> module
    direct: set[str] = set()  # local names bound to cached functions
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                local = a.asname or a.name
                if full in index:
                    aliases[local] = full
                elif node.module in index and a.name in index[node.module]:
                    direct.add(local)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in index:
                    aliases[a.asname or a.name] = a.name
    direct |= {fn.name for fn in ast.walk(tree) if _is_cached(fn)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in aliases:
            if f.attr in index[aliases[f.value.id]]:
                yield f"{f.value.id}.{f.attr}", node
        elif isinstance(f, ast.Name) and f.id in direct:
            yield f.id, node


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_streamlit_object_passed_into_a_cached_function(path):
    tree = ast.parse(path.read_text())
    bad = []
    for name, call in _call_sites(tree, _cached_index()):
        for kw in call.keywords:
            if kw.arg and SUSPECT.search(kw.arg):
                bad.append(f"{name}(..., {kw.arg}=...) line {call.lineno}")
        for arg in [*call.args, *(kw.value for kw in call.keywords)]:
            hits = _streamlit_objects(arg)
            if hits:
                bad.append(f"{name}(...) line {call.lineno} passes an argument built from {hits}")
    assert not bad, f"{path.name}: " + "; ".join(bad)


def test_the_rule_catches_the_label_dp_crash_pattern():
    # the pattern that crashed the Label-DP page for every second visitor must be flagged by the checks above
    src = (
        "import streamlit as st\n"
        "from ui import widgets\n"
        "@st.cache_data(show_spinner=False)\n"
        "def utility(n, _data, _progress=None):\n"
        "    return run(_data, progress=_progress)\n"
        "@st.cache_data\n"
        "def inner(n):\n"
        "    bar = helper()\n"
        "    return n\n"
        "def helper():\n"
        "    return st.progress(0.0)\n"
        "x = utility(3, None, _progress=widgets.progress_reporter('x'))\n"
    )
    tree = ast.parse(src)
    cached = [n for n in ast.walk(tree) if _is_cached(n)]
    assert [c.name for c in cached] == ["utility", "inner"]
    assert any(SUSPECT.search(p.arg) for p in cached[0].args.args)
    assert _touches_ui(cached[1], _module_functions(tree), {"inner"}) == {"st"}
    sites = list(_call_sites(tree, {}))
    assert [s[0] for s in sites] == ["utility"]
    assert _streamlit_objects(sites[0][1].keywords[0].value) == ["widgets.progress_reporter"]
    assert _streamlit_objects(ast.parse("f(st.progress(0.0), st.session_state['k'], st.query_params.get('a'))")) == [
        "st.progress"
    ]
