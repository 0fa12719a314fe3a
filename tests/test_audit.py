"""Privacy audit engine: Clopper–Pearson, the threshold test, Laplace/Gaussian targets, the CLI."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy.stats import beta

from dp_core.audit import (
    MECHANISMS,
    VERDICT_CONSISTENT,
    VERDICT_VIOLATION,
    AuditTarget,
    audit_convergence,
    audit_statistics,
    clopper_pearson,
    gaussian_target,
    laplace_target,
    make_target,
    run_audit,
    runs_grid,
)
from dp_core.cli import main as cli_main
from dp_core.data import load_dataset


# ------------------------------------------------------------------ Clopper–Pearson
@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (0, 1000), (37, 1000), (999, 1000), (50, 100)])
def test_clopper_pearson_matches_beta_quantiles(k, n):
    lo, hi = clopper_pearson(k, n, 0.95)
    exp_lo = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    exp_hi = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    assert float(lo) == pytest.approx(exp_lo, rel=1e-9, abs=1e-15)
    assert float(hi) == pytest.approx(exp_hi, rel=1e-9, abs=1e-15)


def test_clopper_pearson_closed_forms_and_symmetry():
    n = 100
    _, hi = clopper_pearson(0, n)
    assert float(hi) == pytest.approx(1.0 - 0.025 ** (1.0 / n), rel=1e-12)
    lo, _ = clopper_pearson(n, n)
    assert float(lo) == pytest.approx(0.025 ** (1.0 / n), rel=1e-12)
    ks = np.arange(0, n + 1)
    lo, hi = clopper_pearson(ks, n)
    lo_m, hi_m = clopper_pearson(n - ks, n)
    np.testing.assert_allclose(lo, 1.0 - hi_m, atol=1e-12)
    assert np.all(lo <= ks / n) and np.all(ks / n <= hi)


def test_clopper_pearson_coverage_is_at_least_nominal():
    # exact coverage of the two-sided interval for a few true p (sum of binomial pmf over covered k)
    from scipy.stats import binom

    n = 60
    ks = np.arange(n + 1)
    lo, hi = clopper_pearson(ks, n)
    for p in (0.01, 0.1, 0.37, 0.5, 0.9):
        covered = (lo <= p) & (p <= hi)
        assert binom.pmf(ks[covered], n, p).sum() >= 0.95 - 1e-12


@pytest.mark.parametrize("args,msg", [((-1, 10), "0 <= k <= n"), ((11, 10), "0 <= k <= n"), ((0, 0), "n >= 1")])
def test_clopper_pearson_rejects_bad_counts(args, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        clopper_pearson(*args)


def test_clopper_pearson_rejects_bad_confidence():
    with pytest.raises(ValueError, match=re.escape("confidence must be in (0, 1), got 1.")):
        clopper_pearson(1, 10, 1.0)


# ------------------------------------------------------------------ the threshold test
def test_perfect_separation_gives_the_closed_form_bound():
    runs = 1000
    s0, s1 = np.zeros(runs), np.ones(runs)
    r = audit_statistics(s0, s1, eps_claimed=1.0, delta=0.0)
    n_eval = runs - math.ceil(0.2 * runs)
    assert (r.n_select, r.n_eval) == (200, n_eval)
    p = 0.025 ** (1.0 / n_eval)  # CP lower end of TPR = 1 and 1 - CP upper end of FPR = 0
    assert r.eps_lower == pytest.approx(math.log(p / (1.0 - p)), rel=1e-9)
    assert r.eps_estimate == math.inf and r.verdict == VERDICT_VIOLATION
    assert r.tpr == 1.0 and r.fpr == 0.0


def test_delta_is_subtracted_and_can_hide_a_deterministic_leak():
    # D' differs from D with probability q only (like naive LLP with q = m k / n)
    rng = np.random.default_rng(3)
    runs, q = 20_000, 0.3
    s0 = np.zeros(runs)
    s1 = (rng.random(runs) < q).astype(float)
    below = audit_statistics(s0, s1, eps_claimed=5.0, delta=0.1 * q)
    above = audit_statistics(s0, s1, eps_claimed=5.0, delta=1.2 * q)
    assert below.verdict == VERDICT_VIOLATION and below.eps_lower > 5.0
    assert above.verdict == VERDICT_CONSISTENT and above.eps_lower == 0.0
    # delta_lower = TPR_low - e^eps FPR_high bounds the delta needed at eps_claimed from below (true value q)
    assert below.delta_lower == pytest.approx(below.tpr_low - math.exp(5.0) * below.fpr_high, rel=1e-12)
    assert below.delta < below.delta_lower < q


def test_identical_distributions_give_a_small_bound():
    rng = np.random.default_rng(1)
    r = audit_statistics(rng.normal(size=50_000), rng.normal(size=50_000), eps_claimed=0.1, delta=0.0)
    assert r.verdict == VERDICT_CONSISTENT
    assert r.eps_lower < 0.1


def test_bound_is_reported_with_its_interval_and_rates():
    rng = np.random.default_rng(2)
    r = audit_statistics(rng.laplace(0, 1, 40_000), rng.laplace(1, 1, 40_000), eps_claimed=1.0, delta=0.0)
    assert r.eps_lower <= r.eps_estimate <= r.eps_upper
    assert r.tpr_low <= r.tpr <= r.tpr_high and r.fpr_low <= r.fpr <= r.fpr_high
    assert r.eps_lower == pytest.approx(math.log(r.tpr_low / r.fpr_high), rel=1e-12)
    d = r.to_dict()
    for key in ("eps_claimed", "eps_lower", "eps_interval", "runs", "verdict", "test", "threshold"):
        assert key in d
    assert d["eps_interval"] == [r.eps_lower, r.eps_upper]


def test_only_the_evaluation_split_is_counted():
    # a selection split that would fool the test cannot produce a violation: the counts come from the rest
    runs = 2_000
    n_sel = math.ceil(0.2 * runs)
    s0 = np.r_[np.zeros(n_sel), np.random.default_rng(0).normal(size=runs - n_sel)]
    s1 = np.r_[np.ones(n_sel), np.random.default_rng(1).normal(size=runs - n_sel)]
    r = audit_statistics(s0, s1, eps_claimed=0.5, delta=0.0)
    assert r.verdict == VERDICT_CONSISTENT
    assert r.eps_lower < 0.5


@pytest.mark.parametrize(
    "kwargs,exc,msg",
    [
        (dict(eps_claimed=-1.0, delta=0.0), ValueError, "eps_claimed must be in (0, inf], got -1."),
        (dict(eps_claimed=1.0, delta=1.0), ValueError, "delta must be in [0, 1), got 1."),
        (
            dict(eps_claimed=1.0, delta=0.0, select_fraction=1.0),
            ValueError,
            "select_fraction must be in (0, 1), got 1.",
        ),
        (dict(eps_claimed="1", delta=0.0), TypeError, "eps_claimed must be a real number"),
    ],
)
def test_audit_statistics_validation(kwargs, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        audit_statistics(np.zeros(10), np.ones(10), **kwargs)


def test_audit_statistics_rejects_bad_samples():
    with pytest.raises(ValueError, match="same number of runs, got 10 and 9"):
        audit_statistics(np.zeros(10), np.ones(9), eps_claimed=1.0, delta=0.0)
    with pytest.raises(ValueError, match="runs must be at least 4"):
        audit_statistics(np.zeros(3), np.ones(3), eps_claimed=1.0, delta=0.0)
    with pytest.raises(ValueError, match="must be finite"):
        audit_statistics(np.r_[np.zeros(9), np.nan], np.ones(10), eps_claimed=1.0, delta=0.0)


# ------------------------------------------------------------------ Laplace and Gaussian
@pytest.mark.parametrize(
    "target",
    [
        laplace_target(epsilon=1.0),
        laplace_target(epsilon=0.2, sensitivity=3.0),
        gaussian_target(epsilon=1.0, delta=1e-5),
        gaussian_target(epsilon=0.5, delta=1e-6, calibration="classic"),
        gaussian_target(epsilon=4.0, delta=1e-3),
    ],
    ids=["laplace-1", "laplace-0.2", "gauss-analytic-1", "gauss-classic-0.5", "gauss-analytic-4"],
)
def test_correct_mechanisms_never_report_a_violation(target):
    results = [run_audit(target, runs=5_000, seed=s).result for s in range(60)]
    assert not any(r.violation for r in results)
    assert all(r.eps_lower <= target.eps_claimed for r in results)


@pytest.mark.parametrize(
    "target",
    [
        laplace_target(epsilon=0.5),
        laplace_target(epsilon=1.0),
        laplace_target(epsilon=4.0),
        gaussian_target(epsilon=1.0, delta=1e-3),
        gaussian_target(epsilon=4.0, delta=1e-5),
    ],
    ids=["laplace-0.5", "laplace-1", "laplace-4", "gauss-1-1e-3", "gauss-4-1e-5"],
)
def test_bound_reaches_half_the_claim_at_1e5_runs(target):
    for seed in range(3):
        r = run_audit(target, runs=100_000, seed=seed).result
        assert r.verdict == VERDICT_CONSISTENT
        assert r.eps_lower >= 0.5 * target.eps_claimed


def test_a_miscalibrated_mechanism_is_caught():
    # Laplace noise for epsilon = 2 while claiming 0.5
    honest = laplace_target(epsilon=2.0)
    lying = AuditTarget(
        mechanism="laplace", mode="miscalibrated", pair=honest.pair, eps_claimed=0.5, delta=0.0, sample=honest.sample
    )
    r = run_audit(lying, runs=20_000, seed=0).result
    assert r.verdict == VERDICT_VIOLATION and r.eps_lower > 1.0
    assert r.delta_lower > 0.0


def test_random_pair_from_data_is_weaker_than_the_boundary_pair():
    ds = load_dataset("diabetes")
    y = (ds.y - ds.y.mean()) / ds.y.std()
    rnd = run_audit(laplace_target(epsilon=1.0, pair="random", y=y, clip=1.0, pair_seed=4), runs=50_000, seed=0)
    bnd = run_audit(laplace_target(epsilon=1.0), runs=50_000, seed=0)
    assert rnd.target.details["sensitivity"] == pytest.approx(2.0 / ds.n)
    assert rnd.result.verdict == VERDICT_CONSISTENT
    assert rnd.result.eps_lower < bnd.result.eps_lower


def test_runs_are_seeded_and_reproducible():
    t = gaussian_target(epsilon=1.0, delta=1e-5)
    a, b, c = (run_audit(t, runs=3_000, seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(a.stats_d, b.stats_d)
    np.testing.assert_array_equal(a.stats_dprime, b.stats_dprime)
    assert a.result == b.result
    assert not np.array_equal(a.stats_d, c.stats_d)
    # the chunking does not depend on the machine: same seed and chunk size, same numbers
    d = run_audit(t, runs=3_000, seed=7, chunk=1_000)
    e = run_audit(t, runs=3_000, seed=7, chunk=1_000)
    np.testing.assert_array_equal(d.stats_d, e.stats_d)


def test_run_audit_validation():
    t = laplace_target(epsilon=1.0)
    with pytest.raises(ValueError, match=re.escape("runs must be an integer in [20, 1000000], got 10.")):
        run_audit(t, runs=10)
    with pytest.raises(TypeError, match="target must be an AuditTarget"):
        run_audit("laplace", runs=100)


def test_convergence_table_tightens_with_runs():
    run = run_audit(laplace_target(epsilon=1.0), runs=100_000, seed=0)
    grid = runs_grid(100_000, points=4)
    assert grid == [100, 1000, 10000, 100000]
    tab = audit_convergence(run.stats_d, run.stats_dprime, eps_claimed=1.0, delta=0.0, grid=grid)
    assert list(tab["runs"]) == grid
    assert tab["eps_lower"].iloc[-1] > tab["eps_lower"].iloc[0]
    assert tab["eps_lower"].iloc[-1] == pytest.approx(run.result.eps_lower)
    assert (tab["eps_lower"] <= 1.0).all()


# ------------------------------------------------------------------ registry and CLI
def test_registry_lists_every_mechanism_and_validates():
    assert {"laplace", "gaussian"} <= set(MECHANISMS)
    with pytest.raises(ValueError, match="mechanism must be one of"):
        make_target("nope", epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="mode must be one of"):
        make_target("gaussian", mode="weird", epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="unknown option"):
        make_target("gaussian", epsilon=1.0, delta=1e-5, colour=3)
    with pytest.raises(ValueError, match="built from data"):
        make_target("laplace", pair="random", epsilon=1.0, delta=0.0)


def test_cli_audit_gaussian_prints_the_required_keys(capsys):
    assert cli_main(["audit", "gaussian", "--eps", "2", "--delta", "1e-5", "--runs", "20000", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("eps_claimed", "eps_lower", "runs", "verdict", "eps_interval", "test"):
        assert key in out
    assert out["eps_claimed"] == 2.0 and out["runs"] == 20_000 and out["verdict"] == VERDICT_CONSISTENT
    assert 0.0 < out["eps_lower"] < 2.0


def test_cli_audit_laplace_random_pair_and_errors(capsys):
    assert cli_main(["audit", "laplace", "--pair", "random", "--dataset", "diabetes", "--runs", "2000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dataset"] == "diabetes" and out["delta"] == 0.0
    assert cli_main(["audit", "laplace", "--eps", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "epsilon must be in (0, inf)" in err
    assert cli_main(["audit", "gaussian", "--runs", "5"]) == 2
    assert "runs must be an integer" in capsys.readouterr().err
