"""Data preparation and Monte-Carlo helpers of the large-margin Gaussian classifier page."""

import math

import numpy as np
import pytest

from dp_core.data import Dataset, load_dataset, make_gaussian_classes
from dp_core.exceptions import DataValidationError
from dp_core.mechanisms.large_margin_gaussian import (
    LargeMarginGaussian,
    accuracy_sweep,
    decision_grid,
    excess_vs_n,
    fit_nonprivate,
    leak_demo,
    make_task,
    prepare,
    public_projection,
    unbounded_share,
)


@pytest.fixture(scope="module")
def task():
    return make_task(make_gaussian_classes(400, seed=2), seed=0, n_test_synthetic=2000)


def test_public_projection_is_orthonormal_and_data_independent():
    P = public_projection(13, 2)
    np.testing.assert_allclose(P.T @ P, np.eye(2), atol=1e-12)
    np.testing.assert_array_equal(P, public_projection(13, 2))
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 4\], got 5"):
        public_projection(4, 5)


def test_make_task_on_real_data_projects_flags_and_clips():
    t = make_task(load_dataset("wine"), k=2, seed=0)
    assert t.d == 2 and t.n_classes == 3 and not t.data_dependent  # wine ships public ranges and scales
    assert np.all(np.linalg.norm(t.X_train, axis=1) <= 1 + 1e-12)
    assert any("public constants" in n for n in t.notes) and any("public seed" in n for n in t.notes)
    wine = load_dataset("wine")
    upload = Dataset(**{**wine.__dict__, "name": "upload:wine.csv"})  # same data, no declared bounds
    tu = make_task(upload, k=2, seed=0)
    assert tu.data_dependent and any("data-dependent" in n for n in tu.notes)
    t4 = make_task(load_dataset("iris"), k=10, seed=0)
    assert t4.d == 4  # k larger than d: no projection
    g = make_task(make_gaussian_classes(300, seed=1), seed=0)
    assert not g.data_dependent and g.X_test.shape[0] == 5000


def test_make_task_rejects_regression_data():
    with pytest.raises(DataValidationError, match="needs a classification dataset"):
        make_task(load_dataset("diabetes"))


def test_accuracy_sweep_is_tidy_reproducible_and_uses_common_random_numbers(task):
    kw = dict(epsilons=[0.5, 5.0], modes=("repaired", "corrected"), n_trials=4, seed=3)
    a = accuracy_sweep(task, **kw)
    b = accuracy_sweep(task, **kw)
    assert a.equals(b)
    assert set(a["method"]) == {"repaired", "corrected", "nonprivate"}
    assert len(a) == 3 * 2 * 4
    r = a[a.method == "corrected"]
    # trial t has the same standardised noise at every epsilon: its norm scales exactly as 1/beta
    from dp_core.mechanisms.large_margin_gaussian import privacy_params

    betas = {e: privacy_params(epsilon=e, n=task.n, d=2, n_classes=3, lam=0.01, h=0.5).beta for e in (0.5, 5.0)}
    ratio = r[r.epsilon == 0.5].noise_norm.to_numpy() / r[r.epsilon == 5.0].noise_norm.to_numpy()
    np.testing.assert_allclose(ratio, betas[5.0] / betas[0.5], rtol=1e-12)
    # more budget, less excess (mean over the same trials)
    assert r[r.epsilon == 5.0].excess.mean() < r[r.epsilon == 0.5].excess.mean()
    assert (a[a.method == "nonprivate"].excess == 0).all()


def test_excess_vs_n_returns_three_tiers_for_repaired(task):
    trials, bounds = excess_vs_n(task, ns=[100, 400], mode="repaired", n_trials=3, seed=0)
    assert set(trials["n"]) == {100, 400}
    assert set(bounds["tier"]) == {"printed", "tier_u", "tier_c"}
    c = bounds[bounds.bound == "C5.2 exact radius"].sort_values("n")["value"].to_numpy()
    assert c[0] > c[1]  # the bound falls with n
    assert np.all(trials["excess"] <= trials["pathwise_bound"] * (1 + 1e-6) + 1e-9)


def test_unbounded_share_matches_spec_and_tends_to_half():
    df = unbounded_share(d=2, n=1000, lam=0.01, epsilons=[1.0, 1e4], n_draws=20_000, seed=1)
    s1, s_inf = df["share"].to_numpy()
    assert abs(s1 - 0.77) < 4 * df["se"].iloc[0] + 0.005  # docs §"Modes and why P...": bounded with probability ~0.23
    assert abs(s_inf - 0.5) < 4 * math.sqrt(0.25 / 20_000)  # b_pp < 0 alone: at least one half


def test_leak_demo_shows_exact_leak_only_for_shared_noise(task):
    df = leak_demo(task, epsilon=0.5, n_draws=5, seed=0).set_index(["method", "psd"])
    assert df.loc[("repaired", False), "exact_leak_share"] == 1.0
    assert df.loc[("repaired", False), "same_predictions_share"] == 1.0
    assert df.loc[("corrected", False), "exact_leak_share"] == 0.0


def test_decision_grid_labels_inside_the_disk_only(task):
    data = prepare(task.X_train, task.y_train)
    phi = fit_nonprivate(data, lam=0.01, mu=0.01, h=0.5)
    xs, ys, lab = decision_grid(phi, scale=data.scale, resolution=41)
    assert lab.shape == (41, 41) and np.isnan(lab[0, 0]) and set(np.unique(lab[~np.isnan(lab)])) == {0, 1, 2}
    with pytest.raises(ValueError, match="needs d = 2"):
        decision_grid(np.zeros((3, 4, 4)), scale=1.0)


def test_bound_tightness_is_at_least_one(task):
    from dp_core.experiments import summarize
    from dp_core.mechanisms.large_margin_gaussian import bound_tightness

    df = accuracy_sweep(task, epsilons=[1.0, 5.0], modes=("printed", "corrected"), n_trials=4, seed=0)
    s = summarize(df, by=["method", "epsilon"], values=["excess", "pathwise_bound"])
    t = bound_tightness(s)
    assert set(t["method"]) == {"corrected"}  # P has no finite pathwise bound
    assert (t["bound_over_measured"] >= 1).all()


def test_regularisation_sweep_trades_noise_for_bias(task):
    from dp_core.mechanisms.large_margin_gaussian import regularisation_sweep

    df = regularisation_sweep(
        task, parameter="mu", values=[0.003, 0.3], n_trials=4, seed=0, base=LargeMarginGaussian(epsilon=2.0)
    )
    m = df.groupby("value")[["excess", "pathwise_bound"]].mean()
    assert m.loc[0.3, "pathwise_bound"] < m.loc[0.003, "pathwise_bound"]  # bound ∝ 1/mu_eff
    with pytest.raises(ValueError, match="parameter must be one of 'mu', 'h'"):
        regularisation_sweep(task, parameter="lam", values=[0.1], n_trials=1)


def test_excess_vs_n_reports_test_loss_and_c53_terms(task):
    trials, bounds = excess_vs_n(task, ns=[100, 400], mode="corrected", n_trials=3, seed=0)
    assert np.isfinite(trials["test_loss_excess"]).all()
    tr = bounds[bounds.quantity == "true_risk"]
    for n in (100, 400):
        b = tr[tr.n == n].set_index("bound")["value"]
        parts = sum(b[k] for k in b.index if k.startswith("C5.3 term"))
        assert b["C5.3 total"] == pytest.approx(parts, rel=1e-12)
    assert set(bounds[bounds.quantity == "empirical"]["tier"]) == {"printed", "tier_c"}
