"""A complete toy mechanism (page, CLI, release, link keys, comparison, audit, estimator) in one folder.

``tests/toy_mechanism/toy_mean/`` is added to the plug-in search path and nothing else: every shared
part of the product finds it (issue 25: at most 400 lines, no shared edit).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

import dp_core.mechanisms as mechanisms_pkg
import ui.pages
from dp_core import registry
from dp_core.audit import MECHANISMS
from dp_core.cli import main
from dp_core.compare import ADAPTERS

FOLDER = Path(__file__).resolve().parent / "toy_mechanism" / "toy_mean"


@pytest.fixture
def toy(monkeypatch):
    import sys

    from dp_core.cli import release

    monkeypatch.setattr(mechanisms_pkg, "__path__", list(mechanisms_pkg.__path__))
    registry.add_search_path(FOLDER.parent)
    ADAPTERS.reload()
    MECHANISMS.reload()
    monkeypatch.setattr(release, "COMMANDS", release._commands())
    importlib.reload(ui.pages)  # the navigation reads the declared pages when it is imported
    yield registry.get("toy-mean")
    monkeypatch.undo()
    registry._clear()
    importlib.reload(ui.pages)
    ADAPTERS._items.pop("toy_mean", None)
    MECHANISMS._items.pop("toy-mean", None)
    for mod in [m for m in sys.modules if m.startswith("dp_core.mechanisms.toy_mean")]:
        del sys.modules[mod]


def test_the_toy_is_one_folder_of_at_most_400_lines():
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in FOLDER.glob("*.py"))
    assert lines <= 400, lines
    names = {p.name for p in FOLDER.glob("*.py")}
    assert {
        "__init__.py",
        "cli.py",
        "release.py",
        "compare.py",
        "audit.py",
        "estimator.py",
        "plan.py",
        "page.py",
    } <= names


def test_the_toy_passes_the_declaration_conformance(toy):
    import test_config_conformance as conf

    assert toy.params[0].name == "clip" and toy.params[0].url_key == "toy_clip" and toy.params[1].url_key == "span"
    for check in (
        conf.test_config_field_is_param_spec,
        conf.test_param_spec_is_one_cli_option,
        conf.test_param_spec_is_its_link_key,
        conf.test_config_validates_once_naming_the_parameter,
    ):
        check(toy)


def test_the_toy_cli_calibrate_and_release(toy, capsys):
    assert main(["calibrate", "toy-mean", "--eps", "2", "--clip", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == {"mechanism": "toy-mean", "scale": 3.0}
    assert main(["calibrate", "toy-old", "--eps", "2", "--n", "4"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["scale"] == 0.25 and cap.err.count("deprecated") == 1
    assert main(["calibrate", "toy-mean", "--eps", "2", "--clip", "1e5"]) == 2
    err = capsys.readouterr().err
    assert "--clip" in err and "10000" in err and len(err.strip().splitlines()) == 1
    assert main(["release", "toy-mean", "--dataset", "diabetes", "--clip", "400", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mechanism"] == "toy-mean" and "diagnostics_not_private" not in out
    assert main(["release", "toy-mean", "--dataset", "diabetes", "--clip", "400", "--seed", "3", "--diagnostics"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["release"] == out["release"]  # same seed, same release
    diag = again["diagnostics_not_private"]
    assert diag["noise"] == pytest.approx(out["release"]["mean"] - diag["mean_nonprivate"])


def test_the_toy_in_the_comparison_and_the_audit(toy, capsys):
    from dp_core.data import load_dataset
    from dp_core.negotiate import negotiate

    assert "toy_mean" in ADAPTERS and "toy-mean" in MECHANISMS
    kw = {"mechanisms": ["toy_mean"], "n_trials": 2, "n_points": 3, "eps_min": 0.1, "eps_max": 1.0}
    met = negotiate(load_dataset("iris"), ["accuracy=0.5"], span=60, **kw)["methods"][0]
    assert met["epsilon_measured"] == pytest.approx(0.1)
    assert main(["audit", "toy-mean", "--runs", "2000"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["mechanism"] == "toy-mean" and res["eps_lower"] <= res["eps_claimed"]


def test_the_toy_estimator_is_seeded_and_unbiased(toy):
    from dp_core.data import load_dataset

    est_mod = toy.load("estimator")
    ds = load_dataset("diabetes")
    a = est_mod.ToyMeanRegressor(epsilon=1.0, clip=400.0, random_state=1).fit(ds.X, ds.y)
    b = est_mod.ToyMeanRegressor(epsilon=1.0, clip=400.0, random_state=1).fit(ds.X, ds.y)
    assert a.mean_ == b.mean_ and a.predict(ds.X[:3]).tolist() == [a.mean_] * 3
    fits = [est_mod.ToyMeanRegressor(epsilon=1.0, clip=400.0, random_state=s).fit(ds.X, ds.y).mean_ for s in range(400)]
    scale = 2 * 400.0 / ds.n
    se = np.sqrt(2) * scale / np.sqrt(len(fits))  # Laplace sd = √2 · scale
    assert abs(np.mean(fits) - ds.y.mean()) < 4 * se
    with pytest.raises(ValueError, match="clip"):
        est_mod.ToyMeanRegressor(clip=0.0).fit(ds.X, ds.y)


def test_the_toy_page_is_in_the_navigation_and_draws_from_the_plugin(toy):
    from streamlit.testing.v1 import AppTest

    entry = next(d for d in registry.declared_pages() if d["name"] == "toy-mean")
    assert entry["page"] == "tests/toy_mechanism/toy_mean/page.py" == toy.page
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.query_params["toy_clip"] = "2.5"
    at.run()
    at.switch_page(toy.page).run()
    assert not at.exception, at.exception
    assert at.title[0].value.endswith("Toy mean")
    assert [m.label for m in at.metric] == ["Noise scale", "Guarantee", "Mean absolute error"]
    clip = [w for w in (*at.slider, *at.number_input, *at.select_slider) if w.key == "toy_clip"]
    assert [w.value for w in clip] == [2.5]  # the link's value, through the declared ParamSpec
    assert any("releases" in c.value for c in at.caption)
