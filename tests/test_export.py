"""dp_core.export: the decision log's validation, the script's release, the brief's escaping, the CLI's errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dp_core.cli import main
from dp_core.data import load_dataset
from dp_core.export import check_decisions, load_export_config, page_mechanisms
from dp_core.export.script import release_argv, script_text

ROOT = Path(__file__).resolve().parents[1]
BASE = {"dataset": "diabetes", "trials": 3, "seed": 5, "eps": 2.0, "params": {"n_eps": 2, "eps_min": 1, "eps_max": 4}}
HOSTILE = '</td><script>alert("x")</script>&amp;'


def _decision(**changes):
    return {"who": "Ana", "epsilon": 1.5, "chosen": False, "date": "2026-11-28", "note": "", **changes}


@pytest.mark.parametrize(
    "bad, word",
    [
        ([_decision(epsilon=0)], "epsilon"),
        ([_decision(epsilon=float("inf"))], "epsilon"),
        ([_decision(epsilon=True)], "epsilon"),
        ([_decision(date="28/11/2026")], "date"),
        ([_decision(chosen="yes")], "chosen"),
        ([_decision(extra=1)], "unknown"),
        ([_decision(chosen=True), _decision(chosen=True)], "at most one"),
        ("Ana", "list"),
    ],
)
def test_bad_decisions_are_refused_by_name(bad, word):
    with pytest.raises((TypeError, ValueError), match=word):
        check_decisions(bad)


def test_config_with_decisions_round_trips():
    cfg, decisions = load_export_config(json.dumps({**BASE, "decisions": [_decision(chosen=True)]}))
    assert cfg.eps == 2.0 and decisions[0]["chosen"] is True and decisions[0]["epsilon"] == 1.5


def test_page_mechanisms_follow_the_page():
    cfg, _ = load_export_config({**BASE, "page": "pages/label_dp_bags.py"})
    assert page_mechanisms(cfg) == ("label_dp_bags",)
    cfg, _ = load_export_config({**BASE, "page": "pages/compare.py"})
    assert page_mechanisms(cfg) is None


def test_release_argv_carries_the_view_setting():
    cfg, _ = load_export_config({**BASE, "page": "pages/input_perturbation.py", "delta": 1e-6})
    argv = release_argv(cfg)
    assert argv[:2] == ["release", "input-perturbation"]
    assert argv[argv.index("--eps") + 1] == "2.0" and argv[argv.index("--delta") + 1] == "1e-06"
    assert argv[argv.index("--seed") + 1] == "5"


def test_script_releases_on_a_csv_as_the_cli_does(tmp_path, capsys):
    ds = load_dataset("diabetes")
    csv = tmp_path / "mine.csv"
    header = ",".join([*ds.feature_names, "y"])
    np.savetxt(csv, np.column_stack([ds.X, ds.y]), delimiter=",", header=header, comments="")
    cfg, decisions = load_export_config({**BASE, "page": "pages/input_perturbation.py"})
    script = tmp_path / "view.py"
    script.write_text(script_text(cfg, decisions), encoding="utf-8")
    out = tmp_path / "released.json"
    run = subprocess.run(
        [sys.executable, str(script), "--csv", str(csv), "--out", str(out)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "privacy_status: audited: no violation found" in run.stdout
    saved = json.loads(out.read_text())
    assert main([*release_argv(cfg), "--dataset", str(csv)]) == 0
    cli = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(saved["release"]["theta"], cli["release"]["theta"], rtol=1e-12)
    assert saved["release"]["epsilon"] == 2.0


def test_brief_escapes_every_text_of_the_configuration(tmp_path, capsys):
    from dp_core.export.brief import brief_html

    cfg, decisions = load_export_config({**BASE, "decisions": [_decision(who=HOSTILE, note=HOSTILE)]})
    page = brief_html(cfg, decisions)
    assert "<script>" not in page and page.count("&lt;script&gt;") == 2
    assert re.search(r"<h2>Decision log</h2><table>", page)


@pytest.mark.parametrize(
    "argv, word",
    [
        (["notebook", "--config", "/nonexistent/c.json", "--out", "x.ipynb"], "does not exist"),
        (["brief", "--config", "{bad}", "--out", "b.html"], "--config"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv, word, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"decisions": [{"epsilon": -1}]}')
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
    assert main(["notebook", "--config", str(bad), "--out", str(tmp_path / "n.ipynb")]) == 2
    assert "decisions[0].epsilon" in capsys.readouterr().err


def test_cli_writes_notebook_and_script(tmp_path, capsys):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({**BASE, "page": "pages/compare.py"}))
    nb, py = tmp_path / "v.ipynb", tmp_path / "v.py"
    assert main(["notebook", "--config", str(cfg), "--out", str(nb), "--script", str(py)]) == 0
    assert json.loads(nb.read_text())["metadata"]["kernelspec"]["name"] == "python3"
    compile(py.read_text(), str(py), "exec")
    assert main(["notebook", "--config", str(cfg), "--out", str(nb)]) == 2  # refuses to overwrite


def test_brief_says_whether_the_chosen_epsilon_is_its_own():
    from dp_core.export.brief import brief_data, brief_html

    cfg, decisions = load_export_config({**BASE, "decisions": [_decision(epsilon=0.5, chosen=True)]})
    data = brief_data(cfg, decisions)
    assert "not the ε of this brief" in brief_html(cfg, decisions, data=data)
    same = [_decision(epsilon=2.0, chosen=True)]
    data["decisions"] = check_decisions(same)
    page = brief_html(cfg, same, data=data)
    assert "(the ε of this brief)" in page and "not the ε" not in page
    data["decisions"] = []
    assert "no ε chosen in the decision log yet" in brief_html(cfg, [], data=data)
