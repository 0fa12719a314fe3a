"""``python -m dp_core compare``: every applicable mechanism over one ε grid, one JSON object."""

from __future__ import annotations

import json

from _helpers import run_main


def run_cli(capsys, *args):
    code, cap = run_main(capsys, *args)
    return code, cap.out, cap.err


BASE = "compare --dataset breast_cancer --trials 4 --n-eps 3 --seed 2".split()


def test_compare_prints_one_row_per_method_and_epsilon(capsys):
    code, out, err = run_cli(capsys, *BASE, "--mechanisms", "input-perturbation", "output-perturbation")
    assert code == 0, err
    d = json.loads(out)
    assert d["dataset"] == "breast_cancer" and d["metric"] == "accuracy" and d["trials"] == 4
    assert len(d["epsilons"]) == 3 and d["epsilons"] == sorted(d["epsilons"])
    methods = {m["method"] for m in d["methods"]}
    assert methods and {r["method"] for r in d["summary"]} == methods
    assert len(d["summary"]) == 3 * len(methods)
    for r in d["summary"]:
        assert 0.0 <= r["utility_mean"] <= 1.0
    # ε → large recovers (about) the non-private accuracy: the largest ε beats the smallest
    for m in methods:
        rows = sorted((r for r in d["summary"] if r["method"] == m), key=lambda r: r["epsilon"])
        assert rows[-1]["utility_mean"] >= rows[0]["utility_mean"] - 0.05


def test_same_seed_same_json_and_old_names_still_work(capsys):
    diabetes = "compare --dataset diabetes --trials 3 --n-eps 2 --seed 2 --mechanisms".split()
    code1, out1, _ = run_cli(capsys, *diabetes, "label-dp-bags")
    code2, out2, err2 = run_cli(capsys, *diabetes, "label_dp_bags")
    assert code1 == code2 == 0
    assert out1 == out2
    assert err2.count("\n") == 1 and "label_dp_bags" in err2 and "label-dp-bags" in err2


def test_unknown_mechanism_or_dataset_exits_2_with_one_line(capsys):
    for argv in (
        [*BASE, "--mechanisms", "nosuch"],
        ["compare", "--dataset", "nosuch"],
        [*BASE, "--trials", "0"],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
