"""The HTML report: self-contained, re-runnable from its JSON configuration with the same numbers."""

import json
import re

import pytest

from dp_core.cli import main
from dp_core.compare import ExplorerConfig, config_from_json
from dp_core.data import load_dataset
from dp_core.report import (
    build_report,
    compare_settings,
    config_from_report_html,
    dataset_for_config,
    software_versions,
    targets_from_params,
)

CFG = ExplorerConfig(
    eps=1.0,
    delta=1e-5,
    seed=7,
    trials=8,
    dataset="iris",
    page="pages/compare.py",
    params={
        "eps_min": 0.1,
        "eps_max": 10.0,
        "n_eps": 4,
        "mech": "output_perturbation",
        "tmetric": "accuracy",
        "tvalue": 0.6,
        "tdelta": 0.0,
    },
)


@pytest.fixture(scope="module")
def report():
    return build_report(CFG)


def test_report_is_self_contained(report):
    html = report.html
    assert html.startswith("<!DOCTYPE html>")
    assert html.count("Plotly.newPlot") == 3  # utility, excess risk, negotiation
    # no external script: plotly.js is inline (its bundle only names a topojson URL that maps would use)
    assert not re.search(r"<script[^>]+src=", html) and "cdn.plot.ly/plotly" not in html
    assert html.count("plotly.js v") <= 2  # the library is inlined once
    ds = load_dataset("iris")
    assert ds.fingerprint in html and "150" in html and "multiclass" in html
    # parameters, seed and versions are stated
    for needle in ("Monte-Carlo trials", "seed", "numpy", "dp_core", "python -m dp_core report --config"):
        assert needle in html
    # never the data itself: no row of the data appears
    row = ",".join(f"{v:g}" for v in ds.X[0])
    assert row not in html


def test_report_rerun_from_its_json_gives_the_same_numbers(report):
    cfg = config_from_report_html(report.html)
    assert cfg.dataset_fingerprint == load_dataset("iris").fingerprint
    again = build_report(cfg)
    assert again.csv == report.csv
    assert again.negotiation["methods"] == report.negotiation["methods"]
    other = build_report(cfg.replace(seed=8))
    assert other.csv != report.csv


def test_csv_has_every_method_and_epsilon(report):
    lines = report.csv.strip().splitlines()
    assert lines[0].startswith("method,mechanism key,method key,ε,Test accuracy (mean)")
    assert len(lines) == 1 + 2 * 4


def test_settings_and_targets():
    st = compare_settings(CFG)
    assert st["grid"] == (0.1, 0.464, 2.15, 10.0) and st["mechanisms"] == ("output_perturbation",)
    assert targets_from_params({"tmetric": "none", "tdelta": 0}) == []
    with pytest.raises(ValueError, match="target metric must be one of"):
        targets_from_params({"tmetric": "speed", "tvalue": 1})
    with pytest.raises(ValueError, match="view must be"):
        compare_settings(CFG.replace(params={"view": "pie"}))


def test_dataset_checks():
    with pytest.raises(ValueError, match="fingerprint .* does not match"):
        dataset_for_config(CFG.replace(dataset_fingerprint="0" * 64))
    with pytest.raises(ValueError, match="it was uploaded, so pass the same file with --data"):
        dataset_for_config(CFG.replace(dataset="upload:people.csv"))


def test_versions():
    v = software_versions()
    assert {"python", "dp_core", "numpy", "scipy", "pandas", "plotly"} <= set(v)


def test_cli_report_writes_the_same_report(tmp_path, capsys, report):
    cfg_path = tmp_path / "config.json"
    cfg_path.write_text(report.config.to_json())
    out, csv = tmp_path / "r.html", tmp_path / "r.csv"
    assert main(["report", "--config", str(cfg_path), "--out", str(out), "--csv", str(csv)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["out"] == str(out) and info["rows"] == 8
    assert csv.read_text() == report.csv
    assert config_from_report_html(out.read_text()) == config_from_json(cfg_path.read_text())


def test_cli_report_errors_exit_2(tmp_path, capsys):
    assert main(["report", "--config", str(tmp_path / "missing.json"), "--out", str(tmp_path / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"eps": -3}')
    assert main(["report", "--config", str(bad), "--out", str(tmp_path / "r.html")]) == 2
    assert "eps must be in" in capsys.readouterr().err


def test_report_reproduces_the_smallest_n_and_twice_the_rows():
    from dp_core.negotiate import negotiate

    kw = {"mechanisms": ["output_perturbation"], "n_trials": 8, "seed": 7, "eps_min": 0.1, "eps_max": 10.0}
    ds = load_dataset("iris")
    rep = build_report(CFG.replace(params={**CFG.params, "trows": 2.0}))
    twice = rep.negotiation
    direct = negotiate(ds, ["accuracy=0.6"], n_points=4, rows_factor=2.0, **kw)
    assert twice["rows_factor"] == 2.0 and twice["headline"] == direct["headline"]
    # the report's title and parameters name the rows factor (issue 23: a twice-the-rows answer was titled
    # as if it were about the data we have)
    assert f"<h2>Negotiation: accuracy ≥ 0.6 with 2× the rows ({2 * ds.n:,} rows)</h2>" in rep.html
    assert f"<td>rows factor</td><td>2× the rows ({2 * ds.n:,} rows)</td>" in rep.html
    same = build_report(CFG).html
    assert "<h2>Negotiation: accuracy ≥ 0.6</h2>" in same and "<td>1× the rows (" in same
    n_ans = build_report(CFG.replace(params={**CFG.params, "tsolve": "n"})).negotiation
    assert n_ans["solve_for"] == "n" and all("n_min" in r for r in n_ans["methods"])
    with pytest.raises(ValueError, match="trows must be in"):
        compare_settings(CFG.replace(params={**CFG.params, "trows": 0.5}))
