"""One implementation of each search, formula, split and seed derivation (issue "one mechanism, one folder").

Every root search goes through ``calibration.solve_monotone``; each test below checks that the
search it replaced still returns the safe side of the root (the bracket end on which the
guarantee or the budget holds) and that the neighbour on the other side fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp_core.calibration import (
    gaussian_delta_analytic,
    gaussian_privacy_profile,
    laplace_scale,
    output_perturbation_sensitivity,
    sample_laplace_norm,
    solve_monotone,
)
from dp_core.data import _make_dataset, split_indices, train_test_split
from dp_core.exceptions import InvalidPrivacyParameter
from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.rng import as_generator, as_seed_sequence, child_seed, keyed_seed, spawn_seeds

# --------------------------------------------------------------------------------------------
# solve_monotone: integer mode and the safe side
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [2, 50, 99, 100, 101, 10_007])
def test_solve_monotone_integer_is_exact(target):
    up = solve_monotone(lambda k: k * k, target, lo=0, hi=1, increasing=True, safe="upper", integer=True)
    low = solve_monotone(lambda k: k * k, target, lo=0, hi=1, increasing=True, safe="lower", integer=True)
    assert isinstance(up, int) and isinstance(low, int)
    assert up * up >= target and (up - 1) ** 2 < target  # smallest integer with k^2 >= target
    assert low == up - 1


def test_solve_monotone_decreasing_indicator():
    # a 0/1 indicator of a monotone condition: where it starts to hold
    n0 = 12_345
    got = solve_monotone(lambda n: float(n >= n0), 1.0, lo=10, hi=20, increasing=True, safe="upper", integer=True)
    assert got == n0


def test_solve_monotone_real_brackets_the_root():
    f = math.exp
    up = solve_monotone(f, 7.0, lo=1e-9, hi=1.0, increasing=True, safe="upper", rtol=1e-12)
    low = solve_monotone(f, 7.0, lo=1e-9, hi=1.0, increasing=True, safe="lower", rtol=1e-12)
    assert f(up) >= 7.0 > f(low)
    assert up == pytest.approx(math.log(7.0), rel=1e-11)


def test_solve_monotone_rejects_bad_input():
    with pytest.raises(ValueError, match="safe must be"):
        solve_monotone(math.exp, 1.0, lo=0.0, hi=1.0, increasing=True, safe="middle")
    with pytest.raises(InvalidPrivacyParameter, match="already exceeded"):
        solve_monotone(math.exp, 0.5, lo=1.0, hi=2.0, increasing=True, safe="upper")


# --------------------------------------------------------------------------------------------
# The replaced searches keep their safe side
# --------------------------------------------------------------------------------------------

LLP = {"m": 1000, "rho": 0.1, "b1": 1.0}


@pytest.mark.parametrize(("target", "eps"), [(1e-3, 1.0), (1e-6, 0.5), (1e-4, 2.0)])
def test_min_k_is_the_smallest_safe_integer(target, eps):
    k = acc.min_k(target, eps, "noisy-wtd-llp", **LLP)
    f = acc._log_delta_fn("noisy-wtd-llp", LLP)
    assert isinstance(k, int) and 16 < k < 2**53
    assert f(eps, float(k)) <= math.log(target)
    assert f(eps, float(k - 1)) > math.log(target)


@pytest.mark.parametrize(("target", "k"), [(1e-6, 1e13), (1e-5, 1e9), (1e-3, 1e8)])
def test_min_eps_is_rounded_up(target, k):
    e = acc.min_eps(target, k, "noisy-wtd-llp", **LLP)
    f = acc._log_delta_fn("noisy-wtd-llp", LLP)
    assert 1e-3 < e < 100.0
    assert f(e, k) <= math.log(target)  # safe: the guarantee holds at the returned epsilon
    assert f(e * (1 - 1e-9), k) > math.log(target)  # and it is tight


@pytest.mark.parametrize("target", [0.05, 0.01, 1e-4])
def test_lba_required_m_is_rounded_up(target):
    args = (64, 10, 0.5, 0.25, 5.0, 0.5)
    m = acc.lba_utility_required_m(target, *args)
    assert 1.0 < m < 1e40
    assert acc.lba_utility_failure_log_prob(m, *args) <= math.log(target)
    assert acc.lba_utility_failure_log_prob(m * (1 - 1e-9), *args) > math.log(target)


def test_fit_linear_constrained_stays_inside_the_ball():
    from dp_core.mechanisms.label_dp_bags.core import fit_linear

    g = as_generator(3)
    A = g.standard_normal((60, 4))
    v = A @ np.array([3.0, -2.0, 1.0, 0.5]) + 0.1 * g.standard_normal(60)
    free = np.linalg.lstsq(A, v, rcond=None)[0]
    for b3 in (0.1, 1.0, 3.0):
        assert np.linalg.norm(free) > b3
        r = fit_linear(A, v, b3=b3)
        nr = float(np.linalg.norm(r))
        assert nr <= b3 * (1 + 1e-12)  # safe side: inside F0
        assert nr == pytest.approx(b3, rel=1e-9)  # and on its boundary
    assert np.allclose(fit_linear(A, v, b3=100.0), free)  # inside the ball: the free fit


@pytest.mark.parametrize(("n", "d", "budget"), [(1000, 2, 10**7), (100_000, 2, 10**8), (1000, 3, 10**7), (7, 3, 10**5)])
def test_grid_resolution_is_the_largest_within_budget(n, d, budget):
    from dp_core.mechanisms.l1_exponential.grid import GRID_CAPS, default_grid_resolution, grid_size

    m = default_grid_resolution(n, d, budget=budget)
    assert 2 <= m <= GRID_CAPS[d]
    if m > 2:
        assert grid_size(d, m) * n <= budget
    if m < GRID_CAPS[d]:
        assert grid_size(d, m + 1) * n > budget


def test_smallest_n_is_the_first_n_meeting_the_target():
    from dp_core.negotiate import Target, smallest_n

    class Adapter:  # a bound C / sqrt(n): the target 0.01 is met from n = ceil((C / 0.01)^2)
        def bound_at(self, state, method, *, epsilon, n, spec):
            return 3.0 / math.sqrt(n) / epsilon

    n, how = smallest_n(Adapter(), None, "m", epsilon=1.0, spec=None, target=Target("excess_risk", 0.01, "<="))
    assert n == 90_000 and "bisection" in how
    n2, _ = smallest_n(Adapter(), None, "m", epsilon=0.7, spec=None, target=Target("excess_risk", 0.01, "<="))
    assert 3.0 / math.sqrt(n2) / 0.7 <= 0.01 < 3.0 / math.sqrt(n2 - 1) / 0.7


# --------------------------------------------------------------------------------------------
# One Gaussian privacy profile
# --------------------------------------------------------------------------------------------

EPS = [0.0, 1e-3, 0.1, 1.0, 5.0, 30.0]
MU = [1e-4, 0.01, 0.5, 1.0, 3.0, 20.0]


def test_the_two_old_profile_call_paths_agree():
    for e in EPS:
        for m in MU:
            a = gaussian_delta_analytic(sigma=2.0 / m, epsilon=e, sensitivity=2.0)
            b = float(acc.gaussian_delta_profile(e, m))
            assert a == pytest.approx(b, rel=1e-12, abs=1e-300)
    grid = acc._dg(np.array(EPS)[:, None, None], np.array([MU]))
    want = np.array([[[gaussian_delta_analytic(sigma=1.0 / m, epsilon=e, sensitivity=1.0) for m in MU]] for e in EPS])
    np.testing.assert_allclose(grid, want, rtol=1e-12, atol=1e-300)


def test_profile_scalar_and_array_paths_agree_with_check_values():
    arr = gaussian_privacy_profile(np.array(EPS)[:, None], np.array(MU)[None, :])
    for i, e in enumerate(EPS):
        for j, m in enumerate(MU):
            assert arr[i, j] == pytest.approx(gaussian_privacy_profile(e, m), rel=1e-13, abs=1e-300)
    # [BW18] check values (Thm 8): delta at sigma = 3.7306, eps = 1 is 1e-5; mu = 2, eps = 1 gives 0.5099
    assert gaussian_privacy_profile(1.0, 1.0 / 3.7306) == pytest.approx(1e-5, rel=1e-3)
    assert gaussian_privacy_profile(1.0, 2.0) == pytest.approx(0.5099, abs=1e-4)
    # limits: mu = 0 and eps = inf give 0, mu = inf gives 1; never -0.0 or nan
    assert gaussian_privacy_profile(1.0, 0.0) == 0.0 and gaussian_privacy_profile(math.inf, 1.0) == 0.0
    assert gaussian_privacy_profile(1.0, math.inf) == 1.0
    v = gaussian_privacy_profile(np.array([0.0, 1.0, math.inf, 800.0]), np.array([0.0, math.inf, 1.0, 1e-3]))
    assert v.tolist() == [0.0, 1.0, 0.0, 0.0] and not np.signbit(v).any()
    # decreasing in epsilon, increasing in mu
    assert np.all(np.diff(arr, axis=0) <= 0) and np.all(np.diff(arr, axis=1) >= 0)


# --------------------------------------------------------------------------------------------
# One output perturbation
# --------------------------------------------------------------------------------------------


def test_output_perturbation_noise_is_one_sampler():
    from dp_core.mechanisms.input_perturbation.mechanism import output_beta, output_perturbation_thetas
    from dp_core.mechanisms.input_perturbation.model import sufficient_stats
    from dp_core.mechanisms.input_perturbation.params import input_perturbation_params
    from dp_core.mechanisms.output_perturbation.baselines import _standard_noise

    seeds = spawn_seeds(4, 3)
    Z = _standard_noise(seeds, 5, "laplace")
    for t, ss in enumerate(seeds):
        np.testing.assert_array_equal(Z[t], sample_laplace_norm(as_generator(child_seed(ss, 11)), 1, 5)[0])

    # the input-perturbation page's baseline: w_Lambda + b, b drawn by the same sampler
    from dp_core.mechanisms.input_perturbation.solver import solve_ball

    g = as_generator(0)
    X = g.uniform(-1, 1, (400, 3)) / math.sqrt(3)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]), -1, 1)
    stats = sufficient_stats(X, y)
    # eta large: the projection on the ball does nothing, so the raw noise is compared
    p = input_perturbation_params(n=400, d=3, epsilon=1.0, delta=1e-5, eta=1e6, zeta=2.0, lam=1.0)
    beta = output_beta(p)
    assert beta == pytest.approx(p.Delta * p.eps_run / (2.0 * p.zeta), rel=1e-12)
    W = output_perturbation_thetas(stats, p, rng=spawn_seeds(9, 4))
    w_lam = solve_ball(stats.S + p.Delta * np.eye(3), stats.p, p.eta)
    b = np.concatenate([sample_laplace_norm(as_generator(s), 1, 3, scale=1 / beta) for s in spawn_seeds(9, 4)])
    np.testing.assert_allclose(W, w_lam[None] + b, rtol=1e-12, atol=1e-15)


def test_laplace_norm_sampler_moments():
    # ||b|| ~ Gamma(d, scale): mean d*scale, sd sqrt(d)*scale; direction uniform (mean ~ 0)
    d, scale, T = 4, 0.3, 20_000
    b = sample_laplace_norm(as_generator(11), T, d, scale=scale)
    r = np.linalg.norm(b, axis=1)
    se = math.sqrt(d) * scale / math.sqrt(T)
    assert abs(r.mean() - d * scale) < 4 * se
    assert np.all(np.abs((b / r[:, None]).mean(axis=0)) < 4 / math.sqrt(T))


def test_output_sensitivity_and_scale_formulas():
    from dp_core.mechanisms.output_perturbation.baselines import OutputModel, output_noise_scale

    assert output_perturbation_sensitivity(lipschitz=math.sqrt(2), n=50, lam=0.2) == pytest.approx(
        2 * math.sqrt(2) / 10, rel=1e-15
    )
    fake = OutputModel.__new__(OutputModel)
    object.__setattr__(fake, "sensitivity", 0.4)
    assert output_noise_scale(fake, epsilon=2.0, delta=1e-5, family="laplace") == laplace_scale(
        epsilon=2.0, sensitivity=0.4
    )
    assert output_noise_scale(fake, epsilon=math.inf, delta=1e-5, family="laplace") == 0.0


# --------------------------------------------------------------------------------------------
# One train/test split
# --------------------------------------------------------------------------------------------


def _indexed(n: int, task: str = "regression"):
    g = as_generator(1)
    X = np.column_stack([g.standard_normal(n), g.standard_normal(n)])
    return _make_dataset("indexed", X, np.arange(n, dtype=float), ["a", "b"], "row", task)


@pytest.mark.parametrize("seed", [0, 7, 2026])
def test_one_seed_gives_one_split_everywhere(seed):
    from dp_core.mechanisms.input_perturbation.experiment import prepare_data
    from dp_core.mechanisms.label_dp_bags.diagnostics import prepare
    from dp_core.mechanisms.output_perturbation.baselines import prepare_compare_data

    n = 101
    tr, te = split_indices(n, test_fraction=0.2, seed=seed)
    assert len(te) == 20 and sorted(np.concatenate([tr, te]).tolist()) == list(range(n))

    a_tr, a_te = train_test_split(_indexed(n), seed=seed)  # the data module
    assert a_tr.y.tolist() == tr.tolist() and a_te.y.tolist() == te.tolist()

    cmp = prepare_compare_data(_indexed(n, "multiclass"), seed=seed)  # comparison baselines: classes = rows
    assert cmp.y_train.astype(int).tolist() == tr.tolist() and cmp.y_test.astype(int).tolist() == te.tolist()

    lab = prepare(_indexed(n).X, np.arange(n, dtype=float), label_range=(0, n - 1), seed=seed)  # label-DP page
    back = np.rint((lab.y + 1.0) * (n - 1) / 2.0).astype(int)
    back_te = np.rint((lab.y_test + 1.0) * (n - 1) / 2.0).astype(int)
    assert back.tolist() == tr.tolist() and back_te.tolist() == te.tolist()

    inp = prepare_data(_indexed(n), seed=seed)  # input-perturbation page (training rows kept shuffled)
    back = np.rint((inp.y_train + 1.0) * (n - 1) / 2.0).astype(int)
    back_te = np.rint((inp.y_test + 1.0) * (n - 1) / 2.0).astype(int)
    assert sorted(back.tolist()) == tr.tolist() and sorted(back_te.tolist()) == te.tolist()


def test_split_indices_validation_and_generator_seed():
    from dp_core.exceptions import DataValidationError

    with pytest.raises(ValueError, match="test_fraction"):
        split_indices(10, test_fraction=1.0)
    with pytest.raises(DataValidationError, match="training rows"):
        split_indices(5, test_fraction=0.6, min_train=3)
    tr, te = split_indices(10, test_fraction=0.0, min_test=0)
    assert te.size == 0 and tr.tolist() == list(range(10))
    # a Generator seed: the same split as its integer seed, and it is advanced by one permutation
    g = as_generator(5)
    assert [x.tolist() for x in split_indices(30, seed=g)] == [x.tolist() for x in split_indices(30, seed=5)]
    h = as_generator(5)
    h.permutation(30)
    assert g.random() == h.random()
    tr_s, te_s = split_indices(30, seed=5, shuffle_train=True)
    assert (
        sorted(tr_s.tolist()) == split_indices(30, seed=5)[0].tolist()
        and te_s.tolist() == split_indices(30, seed=5)[1].tolist()
    )


# --------------------------------------------------------------------------------------------
# One seed derivation
# --------------------------------------------------------------------------------------------


def test_child_seed_matches_the_old_inline_derivations():
    root = as_seed_sequence(12)
    for keys in [(0,), (3,), (1, 4), (100 + 2,)]:
        old = np.random.SeedSequence(entropy=root.entropy, spawn_key=keys)
        assert child_seed(root, *keys).generate_state(4).tolist() == old.generate_state(4).tolist()
    ss = spawn_seeds(12, 3)[2]
    old = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (11,))
    assert child_seed(ss, 11).generate_state(4).tolist() == old.generate_state(4).tolist()
    # child_seed(s, i) is the i-th spawned child, and it does not advance s
    fresh = np.random.SeedSequence(12)
    assert (
        child_seed(fresh, 1).generate_state(2).tolist()
        == np.random.SeedSequence(12).spawn(2)[1].generate_state(2).tolist()
    )
    assert fresh.n_children_spawned == 0
    with pytest.raises(ValueError, match="non-negative"):
        child_seed(root, -1)


def test_keyed_seed_and_default_rng_equivalences():
    assert (
        keyed_seed(7, 0xA0D17).generate_state(4).tolist()
        == np.random.SeedSequence([7, 0xA0D17]).generate_state(4).tolist()
    )
    with pytest.raises(ValueError):
        keyed_seed()
    # default_rng(seed) and as_generator(seed) are the same stream (routed label-DP illustration)
    assert np.random.default_rng(3).random(3).tolist() == as_generator(3).random(3).tolist()
    # spawn_seeds(g, k) == SeedSequence(g.integers(0, 2**63 - 1, size=4)).spawn(k) (routed l1 analysis)
    a = [s.generate_state(2).tolist() for s in spawn_seeds(as_generator(8), 3)]
    b = [
        s.generate_state(2).tolist()
        for s in np.random.SeedSequence(as_generator(8).integers(0, 2**63 - 1, size=4).tolist()).spawn(3)
    ]
    assert a == b


def test_large_margin_radial_noise_is_the_same_sampler():
    from dp_core.mechanisms.large_margin_gaussian.mechanism import _standard_radial
    from dp_core.mechanisms.large_margin_gaussian.privacy import sample_radial

    v = sample_radial(6, 0.5, rng=3, size=4)
    np.testing.assert_allclose(v, sample_laplace_norm(as_generator(3), 4, 6, scale=2.0, radius_first=True), rtol=1e-15)
    seeds = spawn_seeds(5, 3)
    std = _standard_radial(seeds, 6)
    # common random numbers: the draw at rate beta is the standard draw divided by beta
    for j, s in enumerate(seeds):
        np.testing.assert_allclose(sample_radial(6, 4.0, rng=s), std[j] / 4.0, rtol=1e-12)
