"""Compare engine: output-perturbation baselines (sensitivity, exact expected excess, limits),
the adapters of every mechanism, the sweep's reproducibility and the budget card."""

import math
import re

import numpy as np
import pytest

from dp_core.compare import ADAPTERS, applicable_adapters, default_epsilons, make_spec, run_compare, utility_at
from dp_core.compare.budget import budget_card, noise_table, plain_language
from dp_core.compare.figures import compare_figure
from dp_core.data import DATASETS, load_dataset
from dp_core.mechanisms.output_perturbation.baselines import (
    CompareData,
    fit_output_model,
    output_expected_excess,
    output_noise_scale,
    output_perturbation_trials,
    prepare_compare_data,
)
from dp_core.rng import spawn_seeds
from dp_core.status import STATUSES


def _ridge_data(n=300, d=4, seed=0, task="regression"):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    w = g.standard_normal(d) / 2
    if task == "regression":
        y = np.clip(X @ w + 0.1 * g.standard_normal(n), -1, 1)
        C = 0
    else:
        y = (X @ w > 0).astype(float)
        C = 2
    return CompareData("t", task, C, X, y, X[:50], y[:50])


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_sensitivity_covers_neighbouring_datasets(task):
    data = _ridge_data(task=task)
    model = fit_output_model(data, lam=0.05)
    g = np.random.default_rng(1)
    worst = 0.0
    for _ in range(20):
        i = g.integers(data.n)
        X2, y2 = data.X_train.copy(), data.y_train.copy()
        x = g.standard_normal(data.d)
        X2[i] = x / np.linalg.norm(x)  # a boundary row (||x|| = 1)
        y2[i] = (-1.0 if data.y_train[i] > 0 else 1.0) if task == "regression" else 1.0 - data.y_train[i]
        other = fit_output_model(CompareData("t", task, data.n_classes, X2, y2, data.X_test, data.y_test), lam=0.05)
        worst = max(worst, float(np.linalg.norm(other.theta - model.theta)))
    assert 0 < worst <= model.sensitivity * (1 + 1e-6)
    assert model.sensitivity == pytest.approx(2 * model.lipschitz / (data.n * 0.05))


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_ridge_expected_excess_is_exact(family):
    model = fit_output_model(_ridge_data(), lam=0.05)
    seeds = spawn_seeds(3, 4000)
    out = output_perturbation_trials(model, epsilons=[0.5], delta=1e-5, family=family, seeds=seeds)
    ex = out["excess_risk"][0]
    mean, se = ex.mean(), ex.std(ddof=1) / math.sqrt(ex.size)
    expected = output_expected_excess(model, epsilon=0.5, delta=1e-5, family=family)
    assert abs(mean - expected) < 4 * se


def test_logistic_excess_below_smoothness_bound():
    model = fit_output_model(_ridge_data(task="binary"), lam=0.05)
    out = output_perturbation_trials(
        model, epsilons=[0.3, 3.0], delta=1e-5, family="gaussian", seeds=spawn_seeds(0, 500)
    )
    for i, e in enumerate((0.3, 3.0)):
        ex = out["excess_risk"][i]
        assert ex.mean() - 4 * ex.std(ddof=1) / math.sqrt(ex.size) <= output_expected_excess(
            model, epsilon=e, delta=1e-5, family="gaussian"
        )


def test_noise_scales_decrease_and_vanish():
    model = fit_output_model(_ridge_data(), lam=0.05)
    for fam in ("gaussian", "laplace"):
        s = [output_noise_scale(model, epsilon=e, delta=1e-5, family=fam) for e in (0.1, 1.0, 10.0)]
        assert s[0] > s[1] > s[2] > 0
        assert output_noise_scale(model, epsilon=math.inf, delta=1e-5, family=fam) == 0.0
    assert output_noise_scale(model, epsilon=2.0, delta=1e-5, family="laplace") == pytest.approx(
        model.sensitivity / 2.0
    )


def test_large_epsilon_recovers_the_nonprivate_fit():
    data = prepare_compare_data(load_dataset("breast_cancer"), seed=0)
    model = fit_output_model(data)
    out = output_perturbation_trials(model, epsilons=[1e9], delta=1e-5, family="gaussian", seeds=spawn_seeds(0, 5))
    np_util = float(model.utility(model.theta[None])[0])
    assert np.allclose(out["utility"][0], np_util)
    assert np.all(out["excess_risk"][0] < 1e-9)


def test_prepare_validates():
    with pytest.raises(TypeError, match="ds must be a dp_core Dataset"):
        prepare_compare_data("iris")
    with pytest.raises(ValueError, match=re.escape("test_fraction must be in (0, 1)")):
        prepare_compare_data(load_dataset("iris"), test_fraction=1.0)


def test_grid_and_spec_validation():
    assert default_epsilons(0.1, 10.0, 3) == (0.1, 1.0, 10.0)
    with pytest.raises(ValueError, match="eps_max must be greater than eps_min"):
        default_epsilons(1.0, 0.5)
    with pytest.raises(ValueError, match="epsilon must be in"):
        make_spec(epsilons=[0.0, 1.0], delta=1e-5, n_trials=5, seed=0)
    with pytest.raises(ValueError, match="mechanisms must be among"):
        applicable_adapters("regression", ["nope"])
    spec = make_spec(epsilons=[2.0, 0.5, 2.0], delta=1e-5, n_trials=5, seed=0)
    assert spec.epsilons == (0.5, 2.0)


QUICK = dict(delta=1e-5, n_trials=6, seed=0)


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_baseline_runs_on_every_demo_dataset(name):
    ds = load_dataset(name)
    r = run_compare(ds, make_spec(epsilons=(0.5, 5.0), **QUICK), mechanisms=["output_perturbation"])
    assert set(r.summary["method"]) == {"output_gaussian", "output_laplace"}
    assert (r.summary["n_trials"] == 6).all()
    assert r.metric == ("r2" if ds.task == "regression" else "accuracy")
    # more budget, less excess risk (common random numbers make this hold trial by trial)
    for _, g in r.trials.groupby(["method", "trial"]):
        g = g.sort_values("epsilon")
        assert g["excess_risk"].iloc[0] >= g["excess_risk"].iloc[1]
    assert math.isfinite(r.reference_utility)


def test_same_seed_same_numbers_and_different_seed_differs():
    ds = load_dataset("iris")
    spec = make_spec(epsilons=(0.5, 2.0), **QUICK)
    a = run_compare(ds, spec, mechanisms=["output_perturbation"]).trials
    b = run_compare(ds, spec, mechanisms=["output_perturbation"]).trials
    c = run_compare(
        ds, make_spec(epsilons=(0.5, 2.0), delta=1e-5, n_trials=6, seed=1), mechanisms=["output_perturbation"]
    ).trials
    assert a.equals(b)
    assert not np.allclose(a["excess_risk"], c["excess_risk"])


ADAPTER_CASES = [
    ("input_perturbation", "diabetes", {"input", "objective"}),
    ("input_perturbation", "breast_cancer", {"input", "objective"}),
    ("large_margin_gaussian", "iris", {"lmg_corrected", "lmg_repaired", "lmg_printed"}),
    ("label_dp_bags", "diabetes", {"gaussian_label", "laplace_label"}),
    ("l1_exponential", "heavy_tailed", {"em_l1"}),
]


@pytest.mark.parametrize("key, name, methods", ADAPTER_CASES)
def test_each_mechanism_adapter(key, name, methods):
    ds = load_dataset(name, n=400) if name == "heavy_tailed" else load_dataset(name)
    spec = make_spec(epsilons=(0.3, 3.0), delta=1e-5, n_trials=3, seed=0, k=8, m=4, rho=0.5)
    r = run_compare(ds, spec, mechanisms=[key])
    assert not r.skipped
    assert methods <= set(r.summary["method"])
    statuses = {m["method"]: m["status"] for m in r.methods}
    assert methods <= set(statuses)
    # a theoretical bound, where there is one, falls as epsilon grows
    for (_meth, _lab), g in r.bounds.groupby(["method", "label"]):
        g = g.sort_values("epsilon")
        assert (g["bound"] > 0).all()
        assert g["bound"].iloc[0] > g["bound"].iloc[-1]
    nt = noise_table(r, 1.0)
    assert len(nt) and np.isfinite(nt["value"].replace(math.inf, 1.0)).all()
    assert math.isfinite(r.nonprivate[key])


def test_refuted_modes_are_never_proved():
    r = run_compare(
        load_dataset("iris"),
        make_spec(epsilons=(1.0, 2.0), delta=1e-5, n_trials=2, seed=0),
        mechanisms=["large_margin_gaussian"],
    )
    st = {m["method"]: m["status"] for m in r.methods}
    assert st["lmg_printed"] == "refuted" and st["lmg_repaired"] == "refuted" and st["lmg_corrected"] == "proved"
    card = budget_card(r, epsilon=1.0, delta=1e-5, n=150)
    refuted = [i["label"] for i in card["groups"]["refuted"]]
    assert any("as printed" in x for x in refuted)
    assert not any("P" in i["label"] and "corrected" not in i["label"] for i in card["groups"]["proved"])


def test_label_dp_point_at_its_accounted_epsilon():
    ds = load_dataset("census", n=20000)
    spec = make_spec(epsilons=(0.5, 5.0), delta=1e-5, n_trials=3, seed=0, k=150, m=100, rho=0.5)
    r = run_compare(ds, spec, mechanisms=["label_dp_bags"])
    llp = r.summary[r.summary["method"] == "noisy_wtd_llp"]
    assert len(llp) == 1 and 0.5 < llp["epsilon"].iloc[0] < 10
    from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_delta

    st = r.states["label_dp_bags"]
    eps_llp = float(llp["epsilon"].iloc[0])
    assert llp_exact_delta(eps_llp, st.data.n, 150, 100, 0.5, st.data.b1).delta <= 1e-5 * (1 + 1e-6)


def test_utility_at_interpolates_in_log_epsilon():
    r = run_compare(load_dataset("iris"), make_spec(epsilons=(0.1, 10.0), **QUICK), mechanisms=["output_perturbation"])
    at = utility_at(r, 1.0)
    s = r.summary[r.summary["method"] == "output_gaussian"].sort_values("epsilon")
    mid = at[at["method"] == "output_gaussian"]["utility"].iloc[0]
    assert mid == pytest.approx(0.5 * (s["utility_mean"].iloc[0] + s["utility_mean"].iloc[1]))
    assert math.isnan(utility_at(r, 50.0)["utility"].iloc[0])


def test_budget_card_and_plain_language():
    s = plain_language(epsilon=math.log(3), delta=1e-5, n=1_000_000)
    assert "≈ 3" in s[0] and "75 %" in s[1] and "25 %" in s[1]
    assert "too large" in s[2]
    assert "pure ε-differential privacy" in plain_language(epsilon=1.0, delta=0.0)[2]
    r = run_compare(load_dataset("wine"), make_spec(epsilons=(0.5, 2.0), **QUICK), mechanisms=["output_perturbation"])
    card = budget_card(r, epsilon=1.0, delta=1e-5, n=178)
    assert len(card["utility"]) == 2 and card["utility"]["utility"].between(0, 1).all()
    assert {i["label"] for i in card["groups"]["proved"]} >= {"Output perturbation (Gaussian)"}


def test_compare_figure_has_bands_reference_and_bounds():
    r = run_compare(load_dataset("iris"), make_spec(epsilons=(0.5, 2.0), **QUICK), mechanisms=["output_perturbation"])
    fig = compare_figure(r, y="utility", eps_marker=1.0)
    names = [t.name for t in fig.data]
    assert any("Non-private" in (n or "") for n in names)
    assert any("(6 trials)" in (n or "") for n in names)
    fig2 = compare_figure(r, y="excess_risk")
    assert any(t.line.dash == "dash" for t in fig2.data)
    assert fig2.layout.yaxis.type == "log" and fig2.layout.xaxis.type == "log"


def test_every_adapter_declares_tasks_and_statuses():
    for a in ADAPTERS.values():
        assert a.tasks and a.title and a.methods
        for m in a.methods:
            assert m.status in (*STATUSES, "none")


def test_methods_on_one_chart_get_distinct_colours():
    ds = load_dataset("diabetes")
    r = run_compare(
        ds,
        make_spec(epsilons=(0.5, 5.0), delta=1e-5, n_trials=2, seed=0, k=8, m=4, rho=0.5),
        mechanisms=["input_perturbation", "label_dp_bags", "output_perturbation"],
    )
    fig = compare_figure(r, y="excess_risk")
    by_method = {}
    for t in fig.data:
        if t.mode == "lines+markers":
            by_method[t.legendgroup] = t.line.color
    assert len(by_method) >= 6
    assert len(set(by_method.values())) == len(by_method)
    # the bounds keep their method's colour
    for t in fig.data:
        if t.mode == "lines" and t.legendgroup in by_method and t.line.dash == "dash":
            assert t.line.color == by_method[t.legendgroup]


def test_audit_links_name_registered_audits():
    from dp_core.audit import MECHANISMS

    for a in ADAPTERS.values():
        for m in a.methods:
            if m.audit:
                mech, mode = m.audit.split("/")
                assert mech in MECHANISMS and mode in MECHANISMS[mech].modes


def test_a_failing_mechanism_is_skipped_not_fatal(monkeypatch):
    from dp_core.exceptions import SolverFailed

    a = ADAPTERS["output_perturbation"]

    def boom(*args, **kwargs):
        raise SolverFailed("solver failed for the test")

    monkeypatch.setattr(type(a), "sweep", boom)
    r = run_compare(
        load_dataset("iris"),
        make_spec(epsilons=(1.0, 2.0), **QUICK),
        mechanisms=["output_perturbation", "large_margin_gaussian"],
    )
    assert "solver failed for the test" in r.skipped["output_perturbation"]
    assert "output_perturbation" not in r.states and set(r.summary["adapter"]) == {"large_margin_gaussian"}
