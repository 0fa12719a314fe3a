"""The exported notebook of each page, executed with nbclient, prints the numbers of ``python -m dp_core compare``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from dp_core.cli import main
from dp_core.export import load_export_config
from dp_core.export.notebook import notebook_json

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]

#: page -> (dataset, the mechanism names given to ``compare --mechanisms``; None: every applicable one)
PAGES = {
    "pages/compare.py": ("diabetes", None),
    "pages/input_perturbation.py": ("diabetes", ["input-perturbation"]),
    "pages/l1_exponential.py": ("heavy_tailed", ["l1-exponential"]),
    "pages/label_dp_bags.py": ("diabetes", ["label-dp-bags"]),
    "pages/large_margin_gaussian.py": ("gaussian_classes", ["large-margin-gaussian"]),
    "pages/dp_gd.py": ("iris", ["dp-gd"]),
    "pages/adassp.py": ("diabetes", ["adassp"]),
    "pages/dp_naive_bayes.py": ("breast_cancer", ["dp-naive-bayes"]),
    "pages/label_rr.py": ("wine", ["label-rr"]),
}
SETTINGS = {"trials": 3, "seed": 7, "eps": 1.0, "delta": 1e-5}
GRID = {"eps_min": 0.5, "eps_max": 4.0, "n_eps": 2}


def _config(page: str, dataset: str) -> dict:
    return {**SETTINGS, "dataset": dataset, "page": page, "params": dict(GRID)}


def _executed_results(config: dict) -> list[dict]:
    cfg, decisions = load_export_config(config)
    nb = nbformat.reads(notebook_json(cfg, decisions), as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    lines = [
        line
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("name") == "stdout"
        for line in out["text"].splitlines()
    ]
    return [json.loads(line[len("RESULT ") :]) for line in lines if line.startswith("RESULT ")]


def _cli_summary(capsys, dataset: str, mechanisms: list[str] | None) -> list[dict]:
    argv = ["compare", "--dataset", dataset, "--trials", "3", "--seed", "7", "--delta", "1e-05"]
    argv += ["--eps-min", "0.5", "--eps-max", "4.0", "--n-eps", "2", "--preprocess", "normalize"]
    argv += [] if mechanisms is None else ["--mechanisms", *mechanisms]
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["summary"]


def _same(a, b) -> bool:
    if a is None or b is None:  # the CLI writes NaN as null
        return (a is None or (isinstance(a, float) and math.isnan(a))) and (
            b is None or (isinstance(b, float) and math.isnan(b))
        )
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(float(a) - float(b)) <= 1e-12 * max(1.0, abs(float(b)))


@pytest.mark.slow  # nine kernels, about 80 s in all; make test runs it, make test-quick skips it
@pytest.mark.parametrize("page", sorted(PAGES))
def test_notebook_prints_the_cli_numbers(page, capsys):
    dataset, mechanisms = PAGES[page]
    got = _executed_results(_config(page, dataset))
    want = _cli_summary(capsys, dataset, mechanisms)
    assert len(got) == len(want) > 0
    by_key = {(r["method"], r["epsilon"]): r for r in want}
    for row in got:
        ref = by_key[(row["method"], row["epsilon"])]
        for key, value in ref.items():
            assert _same(row[key], value), (page, row["method"], row["epsilon"], key, row[key], value)
