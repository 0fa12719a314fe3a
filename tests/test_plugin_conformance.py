"""Every mechanism plug-in honours the contract of dp_core.plugin, and a new one needs no shared edit.

Parametrised over :func:`dp_core.registry.plugins`: the declaration (read without importing) agrees
with the object, every ParamSpec round-trips through the URL and refuses out-of-range values by
name, every command-line command runs in-process and prints JSON under the canonical name (old
spellings still work, with one deprecation line), every audit hook builds a target that a tiny
audit runs, every comparison adapter is registered under the plug-in's key. The last test builds a
toy fifth mechanism in a temporary folder and finds it in the CLI, the comparison and the audit.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from _hostile import QUICK

import dp_core.mechanisms as mechanisms_pkg
from dp_core import registry
from dp_core.audit import MECHANISMS, run_audit
from dp_core.cli import main
from dp_core.compare import ADAPTERS
from dp_core.learning_curve import answer_number
from dp_core.plugin import HOOKS, STATUSES, Mechanism, ParamSpec

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = registry.plugins()
IDS = [p.name for p in PLUGINS]
PAPERS = ("input-perturbation", "large-margin-gaussian", "label-dp-bags", "l1-exponential")


def _quick_args(verb: str, name: str, tmp_path: Path) -> list[str]:
    args = []
    for flag, value in QUICK.get(f"{verb} {name}", {}).items():
        args.append(flag)
        if value is not None:
            args.append(value.replace("{tmp}", str(tmp_path)))
    return args


def test_the_four_papers_and_the_textbook_mechanisms_are_registered():
    names = [p.name for p in PLUGINS]
    for n in (*PAPERS, "laplace", "gaussian", "output-perturbation"):
        assert n in names
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("plugin", PLUGINS, ids=IDS)
def test_declaration_matches_the_object(plugin: Mechanism):
    folder = registry.folder_of(plugin.name)
    assert folder is not None
    assert (plugin.name, plugin.aliases) in registry.declared()[folder]
    for spelling in plugin.spellings:
        assert registry.folder_of(spelling) == folder
        assert registry.get(spelling) is plugin
    assert plugin.key == plugin.name.replace("-", "_")
    if plugin.page:
        assert (ROOT / plugin.page).is_file()
    assert set(plugin.hooks) <= set(HOOKS)
    for hook in plugin.hooks:
        if plugin.has(hook):
            assert plugin.load(hook) is not None
    if plugin.name in PAPERS:
        assert set(plugin.hooks) >= {"cli", "compare", "audit", "reproduce", "bounds"}  # all of HOOKS after issue 25
        assert plugin.params


@pytest.mark.parametrize("plugin", PLUGINS, ids=IDS)
def test_param_specs_round_trip_and_refuse_by_name(plugin: Mechanism):
    for spec in plugin.params:
        assert spec.flag == "--" + spec.name.replace("_", "-")
        assert spec.url_key.endswith(spec.name)
        value = spec.default
        assert spec.parse(spec.to_url(value)) == value
        if spec.options:
            bad = "no-such-option" if spec.kind is str else max(spec.options) * 10 + 1
        elif spec.kind is bool:
            bad = "yes"  # a switch takes True or False, not text
        elif spec.hi is not None:
            bad = spec.hi * 2 + 1
        else:
            bad = spec.lo - 1
        with pytest.raises(TypeError if spec.kind is bool else ValueError, match=spec.name):
            spec.validate(bad)
        with pytest.raises((ValueError, TypeError), match=spec.name):
            spec.parse("not a number" if spec.kind in (int, float) else "")
            if spec.kind is str and spec.options:
                raise ValueError(spec.name)  # an empty string is not an option either


@pytest.mark.parametrize("plugin", [p for p in PLUGINS if p.has("cli")], ids=lambda p: p.name)
def test_cli_calibrate_round_trip_with_canonical_name_and_aliases(plugin: Mechanism, capsys, tmp_path):
    verbs = {c.command for c in plugin.commands()}
    assert "calibrate" in verbs
    args = _quick_args("calibrate", plugin.name, tmp_path)
    assert main(["calibrate", plugin.name, *args]) == 0
    out, err = capsys.readouterr()
    first = json.loads(out)
    assert err == ""
    for alias in plugin.aliases:
        assert main(["calibrate", alias, *args]) == 0
        out2, err2 = capsys.readouterr()
        assert json.loads(out2) == first  # same numbers under the old spelling
        assert len(err2.strip().splitlines()) == 1 and "deprecated" in err2 and plugin.name in err2


@pytest.mark.parametrize("name", [n for n in PAPERS], ids=str)
def test_cli_simulate_tiny(name, capsys, tmp_path):
    assert main(["simulate", name, *_quick_args("simulate", name, tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert isinstance(json.loads(out), dict)


@pytest.mark.parametrize("plugin", [p for p in PLUGINS if p.has("audit")], ids=lambda p: p.name)
def test_audit_hook_builds_a_target_a_tiny_audit_runs(plugin: Mechanism):
    entry = plugin.load("audit")
    assert MECHANISMS[entry.name] is entry
    assert entry.name == plugin.name
    from dp_core.data import load_dataset

    ds = load_dataset(entry.default_dataset)
    options = {"n": 60} if plugin.name in ("large-margin-gaussian",) else {}
    if plugin.name in ("input-perturbation", "label-dp-bags"):
        options = {"n": 200} if plugin.name == "input-perturbation" else {"n": 400, "k": 8, "m": 10}
    target = __import__("dp_core.audit", fromlist=["make_target"]).make_target(
        entry.name, epsilon=1.0, delta=1e-5, dataset=ds, **options
    )
    result = run_audit(target, runs=40, seed=0)
    assert result.result.eps_lower >= 0.0 and math.isfinite(result.result.eps_lower)


@pytest.mark.parametrize("plugin", [p for p in PLUGINS if p.has("compare")], ids=lambda p: p.name)
def test_compare_adapter_registered_under_the_plugin_key(plugin: Mechanism):
    adapter = plugin.load("compare")
    assert ADAPTERS[plugin.key] is adapter
    assert adapter.methods and all(m.status in STATUSES for m in adapter.methods)
    assert adapter.page == plugin.page


def test_negotiate_mechanisms_take_canonical_names_and_old_spellings(capsys):
    base = ["negotiate", "--dataset", "iris", "--target", "accuracy=0.5", "--trials", "2", "--n-eps", "3"]
    assert main([*base, "--mechanisms", "output-perturbation", "--eps", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert main([*base, "--mechanisms", "output_perturbation", "--epsilon", "1"]) == 0
    out2, err2 = capsys.readouterr()
    assert json.loads(out2) == json.loads(out)
    assert len(err2.strip().splitlines()) == 2 and err2.count("deprecated") == 2


# ------------------------------------------------------------------ a fifth mechanism, no shared edit
TOY_INIT = '''
"""A toy mechanism: the Laplace mechanism on the mean of clipped labels."""
from ...plugin import LOWER_IS_PRIVATE, Mechanism, ParamSpec

PLUGIN = Mechanism(
    name="toy-mean",
    title="Toy mean",
    aliases=("toy-old",),
    page="pages/toy_mean.py",
    icon="🧸",
    params=(
        ParamSpec("clip", float, 1.0, 0.01, 100.0, private=LOWER_IS_PRIVATE, label="clip"),
        ParamSpec("span", int, 3, 1, 100, label="toy span"),  # a shared comparison parameter (like label-DP's k)
    ),
    compare_params=("span",),
    hooks={"cli": f"{__name__}.cli", "compare": f"{__name__}.compare:ADAPTER", "audit": f"{__name__}.audit:AUDIT"},
)
'''
TOY_CLI = """
from ...cli._registry import Command

def _args(p):
    p.add_argument("--eps", type=float, required=True)
    p.add_argument("--clip", type=float, default=1.0)

def _run(a):
    from . import PLUGIN
    clip = PLUGIN.param("clip").validate(a.clip)
    return {"mechanism": "toy-mean", "scale": 2 * clip / a.eps}

COMMANDS = [Command("calibrate", "toy-mean", "toy: Laplace scale of a clipped mean", _args, _run)]
"""
TOY_COMPARE = """
import pandas as pd
from ...compare.registry import BlockAdapter, MethodInfo, register

class ToyAdapter(BlockAdapter):
    key = "toy_mean"
    title = "Toy mean"
    tasks = ("regression", "binary", "multiclass")
    methods = (MethodInfo("toy_mean", "toy", "proved", "Laplace on a clipped mean", pure=True),)

    def prepare(self, ds, spec):
        return ds

    def block(self, state, point, seeds, spec):
        # the utility shows which shared parameter and preprocessing reached the adapter
        util = spec.span / 100 + (0.3 if spec.preprocess == "minmax" else 0.0)
        return pd.DataFrame({"method": "toy_mean", "trial": range(len(seeds)), "utility": util, "excess_risk": 0.0})

ADAPTER = register(ToyAdapter())
"""
TOY_AUDIT = """
import numpy as np
from ...audit.core import AuditTarget
from ...audit.registry import AuditableMechanism

def _build(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0):
    def sample(side, runs, rng):
        return side + rng.laplace(0.0, 1.0 / epsilon, size=runs)
    return AuditTarget(mechanism="toy-mean", mode=mode, pair=pair, eps_claimed=epsilon, delta=0.0, sample=sample)

AUDIT = AuditableMechanism(
    name="toy-mean", title="Toy mean", modes={"standard": "Laplace"}, pairs={"boundary": "worst case"},
    build=_build, uses_delta=False,
)
"""


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch):
    folder = tmp_path / "plugins" / "toy_mean"
    folder.mkdir(parents=True)
    for name, text in {"__init__": TOY_INIT, "cli": TOY_CLI, "compare": TOY_COMPARE, "audit": TOY_AUDIT}.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(mechanisms_pkg, "__path__", list(mechanisms_pkg.__path__))
    registry.add_search_path(folder.parent)
    ADAPTERS.reload()
    MECHANISMS.reload()
    yield folder
    monkeypatch.undo()
    registry._clear()
    ADAPTERS._items.pop("toy_mean", None)
    MECHANISMS._items.pop("toy-mean", None)
    import sys

    for mod in [m for m in sys.modules if m.startswith("dp_core.mechanisms.toy_mean")]:
        del sys.modules[mod]


def test_a_toy_fifth_mechanism_appears_everywhere_without_a_shared_edit(toy_plugin, capsys):
    assert "toy-mean" in [p.name for p in registry.plugins()]
    # command line: canonical name, and the alias with one deprecation line
    assert main(["calibrate", "toy-mean", "--eps", "2", "--clip", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == {"mechanism": "toy-mean", "scale": 3.0}
    assert main(["calibrate", "toy-old", "--eps", "2"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["scale"] == 1.0 and cap.err.count("deprecated") == 1
    assert main(["calibrate", "toy-mean", "--eps", "2", "--clip", "1000"]) == 2
    assert "clip" in capsys.readouterr().err
    # comparison and audit lists
    assert "toy_mean" in ADAPTERS
    assert "toy-mean" in MECHANISMS
    assert main(["audit", "toy-mean", "--runs", "200"]) == 0
    assert json.loads(capsys.readouterr().out)["mechanism"] == "toy-mean"
    # its page is in the navigation, before the comparison (no edit of ui/pages.py) ...
    entry = next(d for d in registry.declared_pages() if d["name"] == "toy-mean")
    assert entry == {"name": "toy-mean", "title": "Toy mean", "page": "pages/toy_mean.py", "icon": "🧸"}
    # ... and reads its link parameters from the plug-in (no edit of ui/constants.py)
    from ui.constants import url_spec

    assert url_spec("clip").default == 1.0 and url_spec("clip").hi == 100.0


def test_a_toy_shared_parameter_flows_through_the_config_and_negotiate(toy_plugin, capsys):
    from dp_core.compare import SHARED_DEFAULTS, SHARED_KEYS, ExplorerConfig, config_from_json, make_spec
    from dp_core.data import load_dataset
    from dp_core.negotiate import negotiate

    # the configuration knows the toy's shared parameter: default, attribute, JSON, link, validation
    assert SHARED_KEYS["span"] is int and SHARED_DEFAULTS["span"] == 3
    assert list(SHARED_KEYS)[-3:] == ["dataset", "preprocess", "bounds"]  # plug-in keys sit before them, as k, m, rho
    cfg = ExplorerConfig(span=7, k=8, dataset="iris")
    assert cfg.span == 7 and cfg.k == 8 and cfg.mechanism_params["span"] == 7
    assert json.loads(cfg.to_json())["span"] == 7
    assert config_from_json(cfg.to_json()) == cfg
    assert ExplorerConfig.from_query(cfg.to_query()).span == 7
    assert ExplorerConfig().span == 3
    assert cfg.replace(span=9).span == 9
    with pytest.raises(ValueError, match="span"):
        ExplorerConfig(span=0)
    with pytest.raises(TypeError, match="spam"):
        ExplorerConfig(spam=1)
    # the comparison spec and negotiate() take it (and the shared preprocessing) as keywords
    assert make_spec(epsilons=[1.0], delta=1e-5, n_trials=1, seed=0, span=5).span == 5
    ds = load_dataset("iris")
    kw = {"mechanisms": ["toy_mean"], "n_trials": 2, "n_points": 3, "eps_min": 0.1, "eps_max": 1.0}
    met = negotiate(ds, ["accuracy=0.5"], span=60, **kw)["methods"][0]
    missed = negotiate(ds, ["accuracy=0.5"], span=40, **kw)["methods"][0]
    rescued = negotiate(ds, ["accuracy=0.5"], span=40, preprocess="minmax", **kw)["methods"][0]
    assert met["epsilon_measured"] == pytest.approx(0.1)
    assert missed["epsilon_measured"] is None and missed["measured_outcome"] == "not reached"  # null in the JSON
    assert answer_number(missed, "epsilon_measured") == math.inf
    assert rescued["epsilon_measured"] == pytest.approx(0.1)
    # and the command line has one option per shared parameter, plus --preprocess
    base = ["negotiate", "--dataset", "iris", "--target", "accuracy=0.5", "--mechanisms", "toy-mean"]
    base += ["--trials", "2", "--n-eps", "3", "--eps-min", "0.1", "--eps-max", "1"]
    assert main([*base, "--span", "40"]) == 0
    assert json.loads(capsys.readouterr().out)["methods"][0]["epsilon_measured"] is None  # not met: null
    assert main([*base, "--span", "40", "--preprocess", "minmax"]) == 0
    assert json.loads(capsys.readouterr().out)["methods"][0]["epsilon_measured"] == pytest.approx(0.1)
    assert main([*base, "--span", "0"]) == 2
    assert "span" in capsys.readouterr().err


def _shared_span_page():
    import streamlit as st

    from ui import share, state

    st.text(f"span={state.get('span')}")
    state.sync_url()
    st.text(f"config span={share.current_config('pages/home.py').span}")


def test_a_toy_shared_parameter_is_a_shared_app_setting(toy_plugin):
    """The app reads a plug-in's shared parameter from the link (validated) and keeps it in the URL."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_shared_span_page, default_timeout=60)
    at.query_params["span"] = "7"
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.text] == ["span=7", "config span=7"]
    assert at.query_params["span"] in (["7"], "7")
    fresh = AppTest.from_function(_shared_span_page, default_timeout=60)
    fresh.query_params["span"] = "1000"  # out of the declared range [1, 100]: clamped, with a message
    fresh.run()
    assert [t.value for t in fresh.text] == ["span=100", "config span=100"]
    default = AppTest.from_function(_shared_span_page, default_timeout=60).run()
    assert [t.value for t in default.text] == ["span=3", "config span=3"]


def test_every_mechanism_page_is_in_the_navigation_once():
    from ui.pages import PAGES

    files = [p[0] for p in PAGES]
    assert len(files) == len(set(files))
    for plugin in PLUGINS:
        if plugin.page:
            entry = PAGES[files.index(plugin.page)]
            assert entry[2] == plugin.icon, plugin.name
            assert files.index(plugin.page) < files.index("pages/compare.py")


@pytest.mark.parametrize("plugin", PLUGINS, ids=IDS)
def test_param_specs_agree_with_the_app_url_declarations(plugin: Mechanism):
    """Until the pages are generated from the plug-ins, a key in ui.constants.URL_PARAMS is the same parameter."""
    from ui.constants import URL_PARAMS, url_spec

    for spec in plugin.params:
        url = url_spec(spec.url_key)  # declared in URL_PARAMS or derived from the plug-in
        assert url.kind is spec.kind and url.default == spec.default, spec.name
        assert (url.private or "") == spec.private, spec.name
        if spec.url_prefix:
            assert url.page == plugin.page, spec.name
        if spec.options or url.options:
            assert tuple(url.options or ()) == tuple(spec.options), spec.name
        for bound in (url.lo, url.hi):
            if bound is not None:
                spec.validate(spec.kind(bound))  # the page's range lies inside the declared one
        if spec.url_key not in URL_PARAMS:
            assert url.label == (spec.label or spec.name)


def test_param_spec_validation_messages():
    spec = ParamSpec("noise_std", float, 1.0, 0.05, 100.0, url_prefix="lb_")
    assert spec.flag == "--noise-std" and spec.url_key == "lb_noise_std"
    assert spec.parse(spec.to_url(0.1 + 0.2)) == 0.1 + 0.2
    with pytest.raises(ValueError, match=r"noise_std must be in \[0.05, 100\]"):
        spec.validate(0.01)
    with pytest.raises(ValueError, match="noise_std"):
        spec.parse("inf")
    with pytest.raises(ValueError, match="k must be an integer"):
        ParamSpec("k", int, 0, 1, 10)


def test_navigation_lists_pages_in_the_plugins_order_papers_first():
    """The pages read without importing (navigation) come in the order of the imported plug-ins: one
    declaration (``order``); the four papers' pages before the state of the art beside them."""
    from dp_core import registry
    from ui.pages import PAGES

    pages = [d["name"] for d in registry.declared_pages()]
    assert pages == [p.name for p in registry.plugins() if p.page]
    assert pages[:4] == ["input-perturbation", "large-margin-gaussian", "label-dp-bags", "l1-exponential"]
    nav = [p[0] for p in PAGES]
    assert [nav.index(registry.get(n).page) for n in pages] == sorted(nav.index(registry.get(n).page) for n in pages)
    icons = [p[2] for p in PAGES]
    assert len(set(icons)) == len(icons), "two pages share an icon"
