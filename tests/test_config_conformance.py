"""Each parameter is declared once: config field ↔ ParamSpec ↔ CLI option ↔ link key (issue 25).

For every mechanism plug-in that declares its parameters by frozen configs (``Mechanism.configs``):
each ``param()`` field is one ParamSpec of the same name; each ParamSpec is a command-line option
``--field-name`` (dest = the field name) of at least one of the mechanism's commands and of no other
spelling; its link key resolves (``ui.constants.url_spec``) to the same kind, default and choices;
and the config validates once, at construction, naming the parameter.
"""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from dp_core import registry
from dp_core.cli import release as release_cli
from dp_core.plugin import config_params

PAPERS = ("input-perturbation", "large-margin-gaussian", "label-dp-bags", "l1-exponential")
DECLARED = [p for p in registry.plugins() if p.configs]


def _parsers(plugin):
    """``{verb: parser}`` of the plug-in's commands (its cli hook and the generic release)."""
    commands = list(plugin.commands()) + [c for c in release_cli.COMMANDS if c.mechanism == plugin.name]
    out = {}
    for c in commands:
        p = argparse.ArgumentParser(prog=f"{c.command} {c.mechanism}")
        c.add_arguments(p)
        out[c.command] = p
    return out


def _options(parser) -> dict[str, str]:
    """``{option string: dest}`` of every option of ``parser``."""
    return {s: a.dest for a in parser._actions for s in a.option_strings}


def _cli_specs(plugin):
    """The parameters a command must take: those of every config but a page-only one (``PAGE_ONLY = True``)."""
    return [
        s
        for cls, prefix in plugin.configs
        if not getattr(cls, "PAGE_ONLY", False)
        for s in config_params(cls, url_prefix=prefix)
    ]


def test_the_four_papers_declare_their_parameters_by_configs():
    assert {p.name for p in DECLARED} >= set(PAPERS)


@pytest.mark.parametrize("plugin", DECLARED, ids=lambda p: p.name)
def test_config_field_is_param_spec(plugin):
    specs = []
    for cls, prefix in plugin.configs:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls
        specs += config_params(cls, url_prefix=prefix)
        names = {f.name for f in dataclasses.fields(cls)}
        assert {s.name for s in config_params(cls)} <= names
    assert tuple(specs) == plugin.params


@pytest.mark.parametrize("plugin", DECLARED, ids=lambda p: p.name)
def test_param_spec_is_one_cli_option(plugin):
    parsers = _parsers(plugin)
    assert parsers, plugin.name
    for spec in _cli_specs(plugin):
        seen = [verb for verb, p in parsers.items() if _options(p).get(spec.flag) == spec.name]
        assert seen, f"{plugin.name}: no command has {spec.flag} (dest {spec.name})"
        for verb, p in parsers.items():
            negation = "--no-" + spec.flag[2:]  # a bool is --x / --no-x (one name, two switches)
            other = [s for s, dest in _options(p).items() if dest == spec.name and s not in (spec.flag, negation)]
            assert not other, f"{plugin.name} {verb}: {spec.name} is also spelled {other}"


@pytest.mark.parametrize("plugin", DECLARED, ids=lambda p: p.name)
def test_param_spec_is_its_link_key(plugin):
    from ui.constants import url_spec

    for spec in plugin.params:
        url = url_spec(spec.url_key)
        assert url.kind is spec.kind and url.default == spec.default, spec.name
        assert tuple(url.options or ()) == tuple(spec.options), spec.name
        assert (url.lo, url.hi) == (spec.lo, spec.hi) or spec.options, spec.name


@pytest.mark.parametrize("plugin", DECLARED, ids=lambda p: p.name)
def test_config_validates_once_naming_the_parameter(plugin):
    for cls, _ in plugin.configs:
        required = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING and f.init]
        if required:
            continue  # built from data; its own tests construct it
        base = cls()
        for spec in config_params(cls):
            bad = None
            if spec.options and spec.kind is str:
                bad = "not-a-choice"
            elif spec.hi is not None and spec.kind in (int, float):
                bad = spec.kind(spec.hi) + 1
            elif spec.lo is not None and spec.kind in (int, float):
                bad = spec.kind(spec.lo) - 1
            if bad is None:
                continue
            with pytest.raises(ValueError, match=spec.name):
                dataclasses.replace(base, **{spec.name: bad})


def test_ui_has_no_per_mechanism_file():
    """The app keeps one generic cached layer and one generic job layer (issue 25): no file of ui/ is a
    mechanism's, and no file of ui/ imports a mechanism folder (pages reach it through the plug-in)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "ui"
    keys = {p.key for p in registry.plugins()} | {p.name for p in registry.plugins()}
    for path in root.glob("*.py"):
        assert not any(k in path.stem for k in keys), path.name
        text = path.read_text(encoding="utf-8")
        assert "dp_core.mechanisms." not in text.replace("dp_core.mechanisms import", ""), path.name
