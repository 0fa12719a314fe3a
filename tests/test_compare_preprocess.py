"""The shared row preprocessing reaches the comparison and the negotiation (issue 13)."""

import pytest

from dp_core.compare import default_epsilons, make_spec, run_compare
from dp_core.data import load_dataset
from dp_core.negotiate import negotiate

MECH = ["input_perturbation"]  # its adapter preprocesses rows with spec.preprocess


@pytest.fixture(scope="module")
def ds():
    return load_dataset("breast_cancer")


@pytest.fixture(scope="module")
def runs(ds):
    grid = default_epsilons(0.1, 1.0, 3)
    base = make_spec(epsilons=grid, delta=1e-5, n_trials=3, seed=0)
    mm = make_spec(epsilons=grid, delta=1e-5, n_trials=3, seed=0, preprocess="minmax")
    return base, mm, run_compare(ds, base, mechanisms=MECH), run_compare(ds, mm, mechanisms=MECH)


def test_make_spec_takes_and_checks_preprocess():
    assert make_spec(epsilons=[1.0], delta=1e-5, n_trials=1, seed=0).preprocess == "normalize"
    assert make_spec(epsilons=[1.0], delta=1e-5, n_trials=1, seed=0, preprocess="clip").preprocess == "clip"
    with pytest.raises(ValueError, match="preprocess must be one of"):
        make_spec(epsilons=[1.0], delta=1e-5, n_trials=1, seed=0, preprocess="zscore")


def test_run_compare_uses_the_spec_preprocessing(runs):
    base, mm, r_base, r_mm = runs
    assert r_base.spec.preprocess == "normalize" and r_mm.spec.preprocess == "minmax"
    key = "input_perturbation"
    # different row rules give different prepared data: other notes and another non-private reference
    assert r_base.notes[key] != r_mm.notes[key]
    assert r_base.nonprivate[key] != pytest.approx(r_mm.nonprivate[key], abs=1e-9)


def test_run_compare_preprocess_argument_overrides_the_spec(ds, runs):
    base, mm, _r_base, r_mm = runs
    again = run_compare(ds, base, mechanisms=MECH, preprocess="minmax")
    assert again.spec == mm  # the result records the rule used
    assert again.trials["utility"].tolist() == pytest.approx(r_mm.trials["utility"].tolist())  # same numbers
    with pytest.raises(ValueError, match="preprocess"):
        run_compare(ds, base, mechanisms=MECH, preprocess="zscore")


def test_negotiate_passes_preprocess_and_reuses_a_matching_result(ds, runs):
    _base, _mm, _r_base, r_mm = runs
    kw = {"mechanisms": MECH, "n_trials": 3, "n_points": 3, "eps_min": 0.1, "eps_max": 1.0, "seed": 0}
    calls: list[int] = []

    def count(done: int, total: int) -> None:
        calls.append(done)

    same = negotiate(ds, ["accuracy=0.9"], preprocess="minmax", result=r_mm, progress=count, **kw)
    assert calls == []  # the comparison of the same setting (its preprocessing included) is reused
    fresh = negotiate(ds, ["accuracy=0.9"], preprocess="minmax", **kw)
    assert [m["epsilon_measured"] for m in fresh["methods"]] == [m["epsilon_measured"] for m in same["methods"]]
    negotiate(ds, ["accuracy=0.9"], result=r_mm, progress=count, **kw)
    assert calls  # another rule (the default, normalize) does not reuse the minmax comparison
    with pytest.raises(ValueError, match="preprocess"):
        negotiate(ds, ["accuracy=0.9"], preprocess="zscore", **kw)
