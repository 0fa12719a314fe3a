"""dp_core.compare.budget.headline: the compare page's key numbers at the sidebar's ε."""

from __future__ import annotations

import math

import pytest

from dp_core.compare import default_epsilons, make_spec, run_compare
from dp_core.compare.budget import VALID_STATUSES, headline
from dp_core.compare.engine import utility_at
from dp_core.data import load_dataset


@pytest.fixture(scope="module")
def result():
    spec = make_spec(epsilons=default_epsilons(0.1, 10.0, 4), delta=1e-5, n_trials=6, seed=0)
    return run_compare(load_dataset("diabetes"), spec, mechanisms=("output_perturbation", "label_dp_bags"))


def test_best_is_the_largest_utility_among_whole_record_methods(result):
    h = headline(result, 1.0)
    at = utility_at(result, 1.0)
    labels_only = {m["method"] for m in result.methods if m["label_dp"]}
    valid = {m["method"] for m in result.methods if m["status"] in VALID_STATUSES}
    at = at[at["method"].isin(valid)]
    full = at[~at["method"].isin(labels_only)].dropna(subset=["utility"])
    assert h["best"]["utility"] == pytest.approx(full["utility"].max(), rel=1e-9)
    assert h["best"]["method"] not in labels_only
    lo = at[at["method"].isin(labels_only)].dropna(subset=["utility"])
    assert h["best_labels_only"]["utility"] == pytest.approx(lo["utility"].max(), rel=1e-9)
    assert h["best"]["utility_lo"] <= h["best"]["utility"] <= h["best"]["utility_hi"]
    assert h["best"]["status"] in VALID_STATUSES


def test_a_refuted_method_is_never_the_best_however_accurate():
    """breast_cancer: the large-margin 'repaired' variant is the most accurate curve, but its claim is false."""
    ds = load_dataset("breast_cancer")
    spec = make_spec(epsilons=(1.0, 10.0), delta=1e-5, n_trials=4, seed=0)
    r = run_compare(ds, spec, mechanisms=("large_margin_gaussian", "output_perturbation"))
    refuted = {m["method"] for m in r.methods if m["status"] == "refuted"}
    assert refuted  # the test needs one
    at = utility_at(r, 10.0)
    top = at.dropna(subset=["utility"]).sort_values("utility").iloc[-1]["method"]
    h = headline(r, 10.0)
    assert h["best"]["method"] not in refuted
    if top in refuted:  # the most accurate method overall is excluded, not shown as the best private one
        assert h["best"]["utility"] <= at.set_index("method").loc[top, "utility"]


def test_gap_is_reference_minus_best_and_shrinks_with_more_budget(result):
    small, large = headline(result, 0.1), headline(result, 10.0)
    for h in (small, large):
        assert h["reference"] == pytest.approx(result.reference_utility)
        assert h["gap"] == pytest.approx(h["reference"] - h["best"]["utility"])
    assert large["best"]["utility"] > small["best"]["utility"]  # more budget, less noise
    assert large["gap"] < small["gap"]


def test_outside_the_grid_there_is_no_best(result):
    h = headline(result, 100.0)  # the grid ends at 10: nothing measured there
    assert h["best"] is None and math.isnan(h["gap"])


def test_invalid_epsilon_is_refused(result):
    with pytest.raises(ValueError, match="epsilon"):
        headline(result, -1.0)


# ------------------------------------------------------------------ combine_results
def test_mechanisms_run_one_at_a_time_combine_to_the_joint_run():
    from dp_core.compare import combine_results

    ds = load_dataset("breast_cancer")
    spec = make_spec(epsilons=default_epsilons(0.1, 10.0, 3), delta=1e-5, n_trials=4, seed=3)
    keys = ("output_perturbation", "input_perturbation")
    joint = run_compare(ds, spec, mechanisms=keys)
    parts = combine_results([run_compare(ds, spec, mechanisms=(k,)) for k in keys])
    cols = ["adapter", "method", "epsilon", "trial"]
    a = joint.trials.sort_values(cols).reset_index(drop=True)
    b = parts.trials.sort_values(cols).reset_index(drop=True)
    assert a.equals(b)  # the same numbers: each adapter draws from spec.seed alone
    assert (
        joint.summary.sort_values(cols[:3])
        .reset_index(drop=True)
        .equals(parts.summary.sort_values(cols[:3]).reset_index(drop=True))
    )
    assert parts.nonprivate == joint.nonprivate and parts.reference_utility == joint.reference_utility
    assert [m["method"] for m in parts.methods] == [m["method"] for m in joint.methods]
    assert headline(parts, 1.0) == headline(joint, 1.0)


def test_combine_refuses_parts_that_do_not_fit():
    from dp_core.compare import combine_results

    ds = load_dataset("breast_cancer")
    spec = make_spec(epsilons=(1.0,), delta=1e-5, n_trials=2, seed=0)
    one = run_compare(ds, spec, mechanisms=("output_perturbation",))
    with pytest.raises(ValueError, match="parts"):
        combine_results([])
    with pytest.raises(ValueError, match="disjoint"):
        combine_results([one, one])
    other = run_compare(
        ds, make_spec(epsilons=(1.0,), delta=1e-5, n_trials=2, seed=1), mechanisms=("input_perturbation",)
    )
    with pytest.raises(ValueError, match="same dataset and spec"):
        combine_results([one, other])
    with pytest.raises(TypeError, match="CompareResult"):
        combine_results([one, "not a result"])
