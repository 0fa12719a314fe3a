"""Negotiation: target parsing, the crossing rule, per-mechanism answers and the CLI."""

import json
import math
import re

import numpy as np
import pytest

from dp_core.cli import main
from dp_core.compare import ADAPTERS
from dp_core.data import load_dataset
from dp_core.negotiate import Target, answer_number, answer_sentences, crossing, negotiate, parse_target


@pytest.mark.parametrize(
    "text, metric, value, direction",
    [
        ("accuracy=0.9", "accuracy", 0.9, ">="),
        ("accuracy>=0.9", "accuracy", 0.9, ">="),
        ("excess_risk=0.01", "excess_risk", 0.01, "<="),
        ("delta<=1e-6", "delta", 1e-6, "<="),
        (" r2 = 0.3 ", "r2", 0.3, ">="),
    ],
)
def test_parse_target(text, metric, value, direction):
    t = parse_target(text)
    assert (t.metric, t.value, t.direction) == (metric, value, direction)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("accuracy", "target must look like METRIC=VALUE"),
        ("speed=3", "target metric must be one of"),
        ("accuracy<=0.9", "must be stated as accuracy>=VALUE"),
        ("accuracy=1.5", "target accuracy must be in [0, 1], got 1.5"),
        ("delta=0", "target delta must be in"),
        ("delta=2", "target delta must be in"),
        ("excess_risk=-1", "target excess_risk must be in (0, inf), got -1"),
        ("accuracy=abc", "target value must be a number, got 'abc'"),
    ],
)
def test_bad_targets(text, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        parse_target(text)


def test_crossing_rule():
    up = Target("accuracy", 0.9, ">=")
    e, note = crossing([0.1, 1.0, 10.0], [0.5, 0.8, 1.0], up)
    assert note == "interpolated" and e == pytest.approx(math.exp(math.log(1.0) + 0.5 * math.log(10.0)))
    assert crossing([0.1, 1.0], [0.95, 0.99], up) == (0.1, "at or below the smallest epsilon tried")
    assert crossing([0.1, 1.0], [0.5, 0.6], up) == (math.inf, "not reached")
    # a noisy dip: the tail that meets the target starts after the last failure
    e, _ = crossing([0.1, 1.0, 10.0, 100.0], [0.95, 0.5, 0.95, 0.97], up)
    assert 1.0 < e <= 10.0
    down = Target("excess_risk", 0.01, "<=")
    e, _ = crossing([1.0, 10.0], [0.1, 0.001], down)
    assert 1.0 < e < 10.0


def test_negotiate_accuracy_target_brackets():
    ds = load_dataset("breast_cancer")
    ans = negotiate(
        ds,
        ["accuracy=0.9"],
        mechanisms=["output_perturbation"],
        n_trials=20,
        seed=0,
        eps_min=0.1,
        eps_max=50.0,
        n_points=8,
    )
    assert ans["target"]["text"] == "accuracy ≥ 0.9"
    rows = {r["method"]: r for r in ans["methods"]}
    for m in ("output_gaussian", "output_laplace"):
        r = rows[m]
        assert r["epsilon_measured_lo"] <= r["epsilon_measured"] <= r["epsilon_measured_hi"]
        assert 0.1 < r["epsilon_measured"] < 50.0
        assert r["n_trials"] == 20
    # the pure-epsilon method needs at least as much budget as the Gaussian one here
    assert rows["output_laplace"]["delta"] == 0.0


def test_negotiate_excess_risk_from_the_bound():
    ds = load_dataset("diabetes")
    ans = negotiate(ds, ["excess_risk=0.05"], mechanisms=["output_perturbation"], n_trials=10, seed=0)
    from dp_core.compare import make_spec, run_compare
    from dp_core.mechanisms.output_perturbation.baselines import output_expected_excess

    st = run_compare(
        ds, make_spec(epsilons=(1.0,), delta=1e-5, n_trials=1, seed=0), mechanisms=["output_perturbation"]
    ).states["output_perturbation"]
    for r in ans["methods"]:
        fam = "gaussian" if r["method"] == "output_gaussian" else "laplace"
        e = r["epsilon_bound"]
        assert math.isfinite(e)
        assert output_expected_excess(st, epsilon=e, delta=1e-5, family=fam) <= 0.05
        # safe side, but not wasteful: one fine-grid step below misses the target
        step = (1e3 / 1e-3) ** (1 / 240)
        assert output_expected_excess(st, epsilon=e / step * 0.999, delta=1e-5, family=fam) > 0.05


def test_negotiate_delta_target_and_k():
    ds = load_dataset("diabetes")
    ans = negotiate(
        ds,
        ["r2=0.2", "delta=1e-6"],
        mechanisms=["label_dp_bags", "output_perturbation"],
        n_trials=5,
        k=8,
        m=4,
        rho=0.5,
        epsilon=4.0,
    )
    assert ans["delta_used"] == 1e-6
    assert all(r["meets_delta"] for r in ans["methods"])
    assert {r["delta"] for r in ans["methods"] if r["pure"]} == {0.0}
    assert ans["k_answers"] and all("k" in a for a in ans["k_answers"])
    exact = ans["k_answers"][0]
    if exact["k"] is not None:
        from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_delta

        st_n = ans["n"] - round(0.2 * ans["n"])
        assert llp_exact_delta(4.0, st_n, exact["k"], 4, 0.5).delta <= 1e-6


def test_negotiate_rejects_mismatched_metric():
    with pytest.raises(ValueError, match="does not fit the regression task"):
        negotiate(load_dataset("diabetes"), ["accuracy=0.9"])
    with pytest.raises(ValueError, match="at most one utility"):
        negotiate(load_dataset("iris"), ["accuracy=0.9", "excess_risk=0.1"])


def test_cli_negotiate_prints_the_same_answer(capsys):
    args = (
        "negotiate --dataset iris --target accuracy=0.8 --mechanisms output_perturbation --trials 10 --seed 3 --n-eps 6"
    ).split()
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    direct = negotiate(
        load_dataset("iris"), ["accuracy=0.8"], mechanisms=["output_perturbation"], n_trials=10, seed=3, n_points=6
    )
    for a, b in zip(out["methods"], direct["methods"]):
        for key in ("epsilon_measured", "epsilon_measured_lo", "epsilon_measured_hi"):
            va, vb = a[key], b[key]
            assert (va is None and vb is None) or va == pytest.approx(vb, rel=1e-12)


def test_cli_negotiate_bad_input_exits_2(capsys):
    assert main(["negotiate", "--dataset", "iris", "--target", "speed=1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "target metric must be one of" in err
    assert main(["negotiate", "--dataset", "iris", "--target", "accuracy=0.9", "--mechanisms", "nope"]) == 2
    assert "mechanisms must be among" in capsys.readouterr().err


def test_every_adapter_is_a_cli_choice():
    assert {
        "output_perturbation",
        "input_perturbation",
        "large_margin_gaussian",
        "label_dp_bags",
        "l1_exponential",
    } <= set(ADAPTERS)
    assert np.isfinite(1.0)


def test_answer_sentences_and_table():
    from dp_core.negotiate import answer_sentences, answer_table

    ans = negotiate(
        load_dataset("iris"),
        ["accuracy=0.6"],
        mechanisms=["output_perturbation"],
        n_trials=10,
        eps_min=0.1,
        eps_max=20.0,
        n_points=6,
    )
    lines = answer_sentences(ans)
    assert len(lines) == 2 and all(line.startswith("Output perturbation") for line in lines)
    assert all("ε ≈" in line or "not reached" in line for line in lines)
    tab = answer_table(ans)
    assert list(tab.columns[:3]) == ["label", "status", "epsilon_measured"]


def test_smallest_n_from_the_bound():
    from dp_core.compare import make_spec, run_compare
    from dp_core.mechanisms.output_perturbation.baselines import output_expected_excess_at_n

    ds = load_dataset("iris")
    ans = negotiate(ds, ["excess_risk=0.05"], mechanisms=["output_perturbation"], epsilon=1.0, solve_for="n")
    assert ans["solve_for"] == "n" and ans["grid"] == []
    st = run_compare(
        ds, make_spec(epsilons=(1.0,), delta=1e-5, n_trials=1, seed=0), mechanisms=["output_perturbation"]
    ).states["output_perturbation"]
    for r in ans["methods"]:
        fam = "gaussian" if r["method"] == "output_gaussian" else "laplace"
        n = r["n_bound"]
        assert output_expected_excess_at_n(st, epsilon=1.0, delta=1e-5, family=fam, n=n) <= 0.05
        assert output_expected_excess_at_n(st, epsilon=1.0, delta=1e-5, family=fam, n=n - 1) > 0.05
    # more privacy (smaller epsilon) needs more rows
    strict = negotiate(ds, ["excess_risk=0.05"], mechanisms=["output_perturbation"], epsilon=0.5, solve_for="n")
    assert all(a["n_bound"] > b["n_bound"] for a, b in zip(strict["methods"], ans["methods"]))
    with pytest.raises(ValueError, match="solve_for='n' needs an accuracy, r2, mae or excess_risk target"):
        negotiate(ds, ["delta=1e-6"], solve_for="n")


def test_cli_solve_for_n(capsys):
    assert (
        main(
            (
                "negotiate --dataset diabetes --target excess_risk=0.05 --solve-for n --mechanisms input_perturbation"
            ).split()
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["solve_for"] == "n" and all(isinstance(r["n_bound"], float) for r in out["methods"])


# ------------------------------------------------------------------ learning curves and the smallest n


def test_subsample_keeps_the_test_size_and_nests():
    from dp_core.negotiate import subsample

    ds = load_dataset("breast_cancer")
    n_test = round(0.2 * ds.n)
    small, tf_small = subsample(ds, 50, seed=4)
    big, tf_big = subsample(ds, 200, seed=4)
    assert (small.n, big.n) == (50 + n_test, 200 + n_test)
    assert round(tf_small * small.n) == n_test and round(tf_big * big.n) == n_test
    assert small.name == ds.name and small.fingerprint != ds.fingerprint
    rows_big = {tuple(r) for r in np.column_stack([big.X, big.y])}
    assert all(tuple(r) in rows_big for r in np.column_stack([small.X, small.y]))
    again, _ = subsample(ds, 50, seed=4)
    assert again.fingerprint == small.fingerprint
    with pytest.raises(ValueError, match="n_train must be at most"):
        subsample(ds, ds.n, seed=0)


def test_negotiate_smallest_n_for_accuracy():
    ds = load_dataset("breast_cancer")
    kw = {"mechanisms": ["output_perturbation"], "n_trials": 20, "seed": 1, "solve_for": "n"}
    ans = negotiate(ds, ["accuracy=0.9"], epsilon=1.0, **kw)
    assert ans["learning_curve"] and ans["grid"] == []
    sizes = sorted({r["n_rows"] for r in ans["learning_curve"]})
    assert sizes[-1] == ds.n and len(sizes) >= 3
    rows = {r["method"]: r for r in ans["methods"]}
    g = rows["output_gaussian"]
    assert g["n_min_source"] == "measured"
    assert answer_number(g, "n_min_lo") <= g["n_min"] <= answer_number(g, "n_min_hi")
    assert math.isfinite(g["n_min"]) and g["n_min"] == int(g["n_min"])
    # the answer agrees with the smallest ε on the same data: more rows than we have <=> more ε than 1
    eps_ans = negotiate(ds, ["accuracy=0.9"], epsilon=1.0, **{**kw, "solve_for": "epsilon"})
    e = answer_number({r["method"]: r for r in eps_ans["methods"]}["output_gaussian"], "epsilon_measured")
    assert (g["n_min"] > ds.n) == (e > 1.0)
    # more privacy needs at least as many rows; a looser target no more
    strict = negotiate(ds, ["accuracy=0.9"], epsilon=0.5, **kw)
    s0 = strict["methods"][0]
    assert answer_number(s0, "n_min") >= answer_number(rows[s0["method"]], "n_min")
    loose = negotiate(ds, ["accuracy=0.85"], epsilon=1.0, **kw)
    for lo in loose["methods"]:
        if math.isfinite(answer_number(lo, "n_min")):
            assert lo["n_min"] <= answer_number(rows[lo["method"]], "n_min")
    assert "needs about" in ans["headline"] and "rows" in ans["headline"]


def test_twice_the_rows_and_the_headline():
    from dp_core import display
    from dp_core.negotiate import answer_table_for_people

    ds = load_dataset("breast_cancer")
    kw = {"mechanisms": ["output_perturbation"], "n_trials": 20, "seed": 0, "eps_min": 0.1, "eps_max": 20.0}
    same = negotiate(ds, ["accuracy=0.9"], **kw)
    twice = negotiate(ds, ["accuracy=0.9"], rows_factor=2.0, **kw)
    assert twice["n_answer"] == 2 * ds.n and "twice the rows" in twice["headline"]
    for a, b in zip(same["methods"], twice["methods"]):
        assert "extrapolated" in b["measured_note"]
        if math.isfinite(a["epsilon_measured"]):
            assert b["epsilon_measured"] <= a["epsilon_measured"]  # more rows never need more budget here
    # the headline quotes the table's number, rounded the same way
    for ans in (same, twice):
        tab = answer_table_for_people(ans)
        best = min(
            (r for r in ans["methods"] if r["status"] == "proved" and math.isfinite(r["epsilon_measured"])),
            key=lambda r: r["epsilon_measured"],
        )
        shown = tab.loc[tab["method"] == best["label"], "smallest ε (measured)"].iloc[0]
        assert shown == display.epsilon(best["epsilon_measured"]) and f"about {shown} " in ans["headline"]
    with pytest.raises(ValueError, match="rows_factor must be in"):
        negotiate(ds, ["accuracy=0.9"], rows_factor=0.5, **kw)


def test_cli_solve_for_n_with_an_accuracy_target(capsys):
    args = (
        "negotiate --dataset breast_cancer --target accuracy=0.9 --solve-for n --eps 1"
        " --mechanisms output_perturbation --trials 10 --seed 2"
    ).split()
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    direct = negotiate(
        load_dataset("breast_cancer"),
        ["accuracy=0.9"],
        mechanisms=["output_perturbation"],
        n_trials=10,
        seed=2,
        solve_for="n",
    )
    for a, b in zip(out["methods"], direct["methods"]):
        assert a["n_min_source"] in ("measured", "bound")
        for key in ("n_min", "n_min_lo", "n_min_hi"):
            va, vb = a[key], b[key]
            assert (va is None and vb is None) or va == pytest.approx(vb, rel=1e-12)


def test_a_method_keeps_its_colour_across_the_negotiation_charts_and_bound_notes_only_for_excess_risk():
    from dp_core.compare import make_spec, run_compare
    from dp_core.compare.figures import compare_figure, learning_curve_figure, negotiation_figure

    ds = load_dataset("diabetes")
    # objective perturbation and Gaussian label noise share a default colour: one of them gets a spare on a
    # chart that shows both, and must keep it on a chart that shows it alone
    mechs = ["input_perturbation", "label_dp_bags"]
    spec = make_spec(epsilons=(0.3, 2.0, 8.0), delta=1e-5, n_trials=3, seed=2, k=8, m=8, rho=0.5)
    result = run_compare(ds, spec, mechanisms=mechs)
    kw = {"mechanisms": mechs, "n_trials": 3, "seed": 2, "eps_min": 0.3, "eps_max": 8.0, "n_points": 3}
    kw.update(k=8, m=8, rho=0.5)
    ans = negotiate(ds, ["r2=0.2"], epsilon=1.0, result=result, solve_for="n", **kw)

    def line_colours(fig):
        out = {}
        for tr in fig.data:
            c = getattr(tr.line, "color", None) if getattr(tr, "mode", "") and "lines" in tr.mode else None
            if tr.legendgroup and c:
                out.setdefault(tr.legendgroup, c)
        return out

    whole = line_colours(compare_figure(result))
    only_one = line_colours(compare_figure(result, methods=["gaussian_label"]))
    assert only_one
    curves = line_colours(learning_curve_figure(ans))
    neg = line_colours(negotiation_figure(result, negotiate(ds, ["r2=0.2"], epsilon=1.0, result=result, **kw)))
    assert whole and curves
    for chart in (only_one, curves, neg):
        for m, c in chart.items():
            assert whole.get(m, c) == c, m
    # colours stay distinct within a chart
    assert len(set(whole.values())) == len(whole)
    eps_ans = negotiate(ds, ["r2=0.2"], epsilon=1.0, result=result, **kw)
    assert not any("(bound)" in n for n in eps_ans["notes"])
    er = negotiate(ds, ["excess_risk=0.05"], epsilon=1.0, result=result, **kw)
    assert any("Smallest ε (bound)" in n for n in er["notes"])


def test_a_method_that_was_not_run_says_why():
    ds = load_dataset("diabetes")
    kw = {"mechanisms": ["label_dp_bags"], "n_trials": 2, "seed": 0, "eps_min": 0.5, "eps_max": 4.0, "n_points": 3}
    # k, m from the data size (the default): no setting has a guarantee on 354 rows, and the note says what would
    auto = negotiate(ds, ["r2=0.2"], epsilon=1.0, **kw)
    note = {r["method"]: r for r in auto["methods"]}["noisy_wtd_llp"]["measured_note"]
    assert note.startswith("not run: no setting from the data size gives a guarantee at δ = 1e-5")
    assert "training rows" in note and "ρ = 1" in note
    # an explicit setting: the fixed k, m and the same advice as before
    ans = negotiate(ds, ["r2=0.2"], epsilon=1.0, k=64, m=100, **kw)
    rows = {r["method"]: r for r in ans["methods"]}
    assert rows["noisy_wtd_llp"]["measured_note"].startswith("not run: no guarantee at these settings")
    assert "raise k or ρ" in rows["noisy_wtd_llp"]["measured_note"]
    assert rows["wtd_lba"]["measured_note"] == "not run in this comparison (its own page runs it)"
    assert any("Noisy weighted LLP" in s and "not run" in s for s in answer_sentences(ans))


def test_a_method_measured_at_one_epsilon_names_the_target_metric():
    ds = load_dataset("diabetes")
    kw = {"mechanisms": ["label_dp_bags"], "n_trials": 2, "seed": 0, "eps_min": 0.5, "eps_max": 4.0, "n_points": 3}
    ans = negotiate(ds, ["r2=0.2"], epsilon=1.0, rho=1.0, **kw)  # ρ = 1: a setting from the data size exists
    note = {r["method"]: r for r in ans["methods"]}["noisy_wtd_llp"]["measured_note"]
    assert note.startswith("measured at its accounted ε = ") and " only: test R² = " in note, note
    assert note.endswith("(meets the target)") or note.endswith("(misses the target)")
