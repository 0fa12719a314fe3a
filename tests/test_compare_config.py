"""The shareable configuration: JSON and URL round trips, validation, agreement with the app's shared keys."""

import json
import math
import re

import pytest

from dp_core.compare import CONFIG_SCHEMA, SHARED_DEFAULTS, SHARED_KEYS, ExplorerConfig, config_from_json
from ui.constants import SHARED_PARAMS


def test_shared_keys_match_the_app():
    assert list(SHARED_KEYS) == list(SHARED_PARAMS)
    for name, (kind, default) in SHARED_PARAMS.items():
        assert SHARED_KEYS[name] is kind
        assert SHARED_DEFAULTS[name] == default


CFG = ExplorerConfig(
    eps=0.37,
    delta=1e-8,
    seed=12345,
    trials=200,
    k=128,
    m=50,
    rho=0.25,
    dataset="wine",
    page="pages/compare.py",
    params={"eps_min": 0.1, "n_eps": 6, "mech": "all", "flag": True},
    dataset_fingerprint="ab" * 32,
)


def test_json_round_trip_is_exact():
    text = CFG.to_json()
    back = config_from_json(text)
    assert back == CFG
    assert back.to_json() == text
    data = json.loads(text)
    assert data["schema"] == CONFIG_SCHEMA
    assert data["eps"] == 0.37 and data["params"]["n_eps"] == 6


def test_bytes_and_defaults():
    cfg = config_from_json(b'{"dataset": "iris"}')
    assert cfg.dataset == "iris"
    assert cfg.eps == SHARED_DEFAULTS["eps"] and cfg.trials == SHARED_DEFAULTS["trials"]
    assert cfg.params == {} and cfg.page == ""


def test_query_round_trip():
    q = CFG.to_query()
    assert all(isinstance(v, str) for v in q.values())
    back = ExplorerConfig.from_query(q, page=CFG.page)
    assert back.shared == CFG.shared
    # URL values come back as text; the page parses its own settings
    assert float(back.params["eps_min"]) == 0.1 and back.params["mech"] == "all"
    assert back.params["flag"] == "1"


def test_link_reopens_the_page():
    link = CFG.link("http://127.0.0.1:8501/")
    assert link.startswith("http://127.0.0.1:8501/compare?")
    assert "eps=0.37" in link and "delta=1e-08" in link and "dataset=wine" in link and "n_eps=6" in link
    assert ExplorerConfig(page="").link("").startswith("/?")


def test_replace_validates():
    assert CFG.replace(eps=2.0).eps == 2.0
    with pytest.raises(ValueError, match=re.escape("eps must be in (0, inf), got -1")):
        CFG.replace(eps=-1.0)


@pytest.mark.parametrize(
    "text, exc, needle",
    [
        ('{"eps": 0}', ValueError, "eps must be in"),
        ('{"eps": "abc"}', TypeError, "eps must be a number, got 'abc'"),
        ('{"delta": 1.5}', ValueError, "delta must be in"),
        ('{"trials": 2.5}', TypeError, "trials must be an integer, got 2.5"),
        ('{"trials": 0}', ValueError, "trials must be an integer in [1, 100000], got 0"),
        ('{"rho": 2}', ValueError, "rho must be in"),
        ('{"dataset": 3}', TypeError, "dataset must be a string"),
        ('{"colour": "red"}', ValueError, "unknown configuration key(s) ['colour']"),
        ('{"schema": "other/2"}', ValueError, "schema must be 'dp-explorer-config/1', got 'other/2'"),
        ('{"params": {"eps": 1}}', ValueError, "params must not repeat the shared setting 'eps'"),
        ('{"params": {"x": [1, 2]}}', TypeError, "params['x'] must be a string, number or boolean"),
        ('{"params": [1]}', TypeError, "params must be an object"),
        ("[1, 2]", TypeError, "the configuration must be a JSON object"),
        ('{"eps": 1,', ValueError, "the configuration is not valid JSON"),
    ],
)
def test_bad_configurations_are_named(text, exc, needle):
    with pytest.raises(exc, match=re.escape(needle)):
        config_from_json(text)


def test_non_finite_param_rejected():
    with pytest.raises(ValueError, match="must be finite"):
        ExplorerConfig(params={"x": math.inf})
