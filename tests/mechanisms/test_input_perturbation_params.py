"""Reference values of input perturbation (Fukuchi, Tran, Sakuma 2017): Step 0, local privacy, bounds.

Every number below is a reference value (4 significant figures) of the paper's formulas, compared at 1e-3
relative tolerance.
"""

import math

import numpy as np
import pytest

from dp_core.exceptions import InvalidPrivacyParameter
from dp_core.mechanisms.input_perturbation.bounds import (
    corollary3_sigma_u_bounds,
    lemma2_bound,
    objective_gauss_bound,
    output_perturbation_bound,
    table1_rates,
    theorem2_bound,
    theorem2_terms,
)
from dp_core.mechanisms.input_perturbation.mechanism import objective_sigma, output_beta
from dp_core.mechanisms.input_perturbation.params import (
    conservative_accounting,
    input_perturbation_params,
    kappa_lower,
    kappa_lower_one_sided,
    local_privacy,
    min_n,
    sigma_u_value,
)

SETTINGS = {
    "S1": dict(n=10000, d=10, epsilon=1.0, delta=1e-5, eta=1.0, zeta=1.0, lam=1.0, alpha=1.0),
    "S2": dict(n=131072, d=13, epsilon=0.1, delta=0.01, eta=1.0, zeta=2.0, lam=1.0, alpha=1.0),
    "S3": dict(n=128, d=13, epsilon=1.0, delta=0.01, eta=1.0, zeta=0.75, lam=0.25, alpha=1.0),
    "S4": dict(n=10000, d=10, epsilon=1.0, delta=1e-5, eta=1.0, zeta=1.0, lam=1.0, alpha=0.25),
}

# quantity -> (S1, S2, S3, S4), settings S1-S4
TABLE = {
    "eps_run": (1, 0.1, 1, 0.25),
    "gamma": (5e-06, 0.005, 0.005, 5e-06),
    "a2": (0.03592, 0.006761, 0.2164, 0.03592),
    "a4": (0.03687, 0.007141, 0.2285, 0.03687),
    "K": (107.2, 48.33, 51.93, 104.2),
    "sigma_b2": (107.2, 1.933e04, 29.21, 1667),
    "sigma_b": (10.35, 139.0, 5.405, 40.83),
    "per_record_std_b": (0.1035, 0.3841, 0.4777, 0.4083),
    "ridge_threshold": (2, 20, 0.5, 8),
    "sigma_u_alg1": (1.651, 4.538, 1.543, 3.114),
    "sigma_u_cor2": (1.653, 4.540, 1.594, 3.117),
    "sigma_u": (1.653, 4.540, 1.594, 3.117),
    "per_record_std_u": (0.01653, 0.01254, 0.1409, 0.03117),
    "kappa_upper": (3.472, 21.22, 4.845, 11.46),
    "Delta": (131.0, 2005, 77.95, 516.5),
    "Delta_in": (129.0, 1985, 77.45, 508.5),
    "n_min_cor2": (54.37, 26.74, 26.74, 54.37),
    "n_min_alg1": (51.60, 23.97, 23.97, 51.60),
    "n_min_theorem2": (217.5, 107.0, 107.0, 217.5),
    "sigma_u_corr": (11.16, 9.223, 6.517, 11.70),
}
LOCAL = {
    "c": (4.845, 3.108, 3.108, 4.845),
    "epsilon_nominal": (679.8, 528.0, 20.79, 334.6),
    "epsilon_large_n": (778.7, 535.5, 34.62, 366.3),
    "delta_local": (2e-05, 0.02, 0.02, 2e-05),
    "mu": (122.5, 159.8, 4.739, 64.34),
    "epsilon_exact": (8008, 1.310e04, 20.14, 2333),
}
BOUNDS = {
    "T1": (0.006548, 0.007650, 0.3045, 0.02582),
    "T2": (0.006548, 0.007650, 0.3045, 0.02582),
    "T3": (3.662e-05, 2.317e-06, 0.007969, 8.590e-05),
    "T4": (1.974e-05, 1.857e-06, 0.006962, 4.739e-05),
    "total": (0.01315, 0.01530, 0.6239, 0.05178),
}
NAMES = ["S1", "S2", "S3", "S4"]


def rel(a, b):
    return abs(a - b) / abs(b)


def _params(name, **kw):
    return input_perturbation_params(**{**SETTINGS[name], **kw})


@pytest.mark.parametrize("quantity", sorted(TABLE))
@pytest.mark.parametrize("i", range(4))
def test_step0_table(quantity, i):
    p = _params(NAMES[i])
    value = getattr(p, quantity)
    assert rel(value, TABLE[quantity][i]) < 1e-3, (quantity, NAMES[i], value)


@pytest.mark.parametrize("i", range(4))
def test_kappa_values(i):
    s = SETTINGS[NAMES[i]]
    p = _params(NAMES[i])
    at_alg1 = kappa_lower(sigma_u=p.sigma_u_alg1, n=s["n"], d=s["d"], delta=s["delta"], lam=s["lam"])
    assert rel(at_alg1, (1.995, 19.98, 0.4420, 7.982)[i]) < 1e-3
    assert rel(p.kappa_lower, p.ridge_threshold) < 1e-12


@pytest.mark.parametrize("quantity", sorted(LOCAL))
@pytest.mark.parametrize("i", range(4))
def test_local_privacy_table(quantity, i):
    lp = local_privacy(_params(NAMES[i]))
    assert rel(getattr(lp, quantity), LOCAL[quantity][i]) < 1e-3, (quantity, NAMES[i])


@pytest.mark.parametrize("i", range(4))
def test_local_privacy_alg1(i):
    lp = local_privacy(_params(NAMES[i], sigma_u_mode="ALG1"))
    assert rel(lp.epsilon_nominal, (680.4, 528.2, 21.15, 334.9)[i]) < 1e-3


@pytest.mark.parametrize("term", sorted(BOUNDS))
@pytest.mark.parametrize("i", range(4))
def test_theorem2_terms(term, i):
    terms = theorem2_terms(_params(NAMES[i])).as_dict()
    assert rel(terms[term], BOUNDS[term][i]) < 1e-3


@pytest.mark.parametrize("i", range(4))
def test_other_bounds_and_baselines(i):
    name = NAMES[i]
    s = SETTINGS[name]
    p = _params(name)
    assert rel(lemma2_bound(p, beta_fail=0.05, gamma_tail=0.05), (0.01641, 0.01911, 0.7756, 0.06464)[i]) < 1e-3
    assert rel(objective_sigma(p), (10.08, 130.8, 5.108, 39.73)[i]) < 1e-3
    assert rel(objective_gauss_bound(p), (0.01276, 0.01442, 0.5765, 0.05027)[i]) < 1e-3
    lo, hi = corollary3_sigma_u_bounds(p)
    assert rel(lo, (1.575, 4.507, 0.9829, 2.989)[i]) < 1e-3
    assert rel(hi, (2.282, 4.746, 2.519, 3.905)[i]) < 1e-3
    rates = table1_rates(
        n=s["n"], d=s["d"], epsilon=s["epsilon"], delta=s["delta"], eta=s["eta"], zeta=s["zeta"], alpha=s["alpha"]
    )
    assert rel(rates["objective"], (0.001073, 0.001181, 0.04534, 0.001073)[i]) < 1e-3
    assert rel(rates["dp_gd"], (0.006553, 0.009016, 0.1998, 0.006553)[i]) < 1e-3
    assert rel(rates["input"], (0.001073, 0.001181, 0.04534, 0.004292)[i]) < 1e-3
    assert rel(p.Delta / p.n, (0.01310, 0.01530, 0.6090, 0.05165)[i]) < 1e-3
    beta = output_beta(p)
    assert rel(beta, (65.48, 50.13, 51.97, 64.56)[i]) < 1e-3
    assert rel(s["d"] / beta, (0.1527, 0.2593, 0.2502, 0.1549)[i]) < 1e-3
    assert output_perturbation_bound(p) > 0


ALPHA_SWEEP = [  # alpha, sigma_b, sigma_u, eps_L, B_in
    (1, 10.35, 1.653, 679.8, 0.01315),
    (0.5, 20.51, 2.259, 476.2, 0.02603),
    (0.25, 40.83, 3.117, 334.6, 0.05178),
    (0.1, 101.8, 4.823, 210.4, 0.1290),
    (0.01, 1016, 14.87, 66.12, 1.287),
]


@pytest.mark.parametrize("alpha,sb,su,epsl,b", ALPHA_SWEEP)
def test_alpha_sweep(alpha, sb, su, epsl, b):
    p = _params("S1", alpha=alpha)
    assert rel(p.sigma_b, sb) < 1e-3 and rel(p.sigma_u, su) < 1e-3
    assert rel(local_privacy(p).epsilon_nominal, epsl) < 1e-3
    assert rel(theorem2_bound(p), b) < 1e-3


EPS_SWEEP = [  # eps, sigma_b, sigma_u, Delta, B_in
    (0.01, 1016, 14.87, 1.285e04, 1.287),
    (0.1, 101.8, 4.823, 1287, 0.1290),
    (0.5, 20.51, 2.259, 259.5, 0.02603),
    (1, 10.35, 1.653, 131.0, 0.01315),
    (2, 5.272, 1.227, 66.69, 0.006708),
    (5, 2.220, 0.8530, 28.08, 0.002833),
    (10, 1.197, 0.6694, 15.14, 0.001533),
]


@pytest.mark.parametrize("eps,sb,su,Delta,b", EPS_SWEEP)
def test_epsilon_sweep(eps, sb, su, Delta, b):
    p = _params("S1", epsilon=eps)
    for got, want in [(p.sigma_b, sb), (p.sigma_u, su), (p.Delta, Delta), (theorem2_bound(p), b)]:
        assert rel(got, want) < 1e-3


# noise-scale table on the paper's grid (d=13, delta=0.01, lam=1, zeta=2, eta=1)
GRID = {
    0.1: [
        (128, 8.193, 8.432, 9.35, 16.04),
        (8192, 4.746, 4.754, 126.4, 0.2451),
        (2097152, 4.488, 4.489, 2135, 0.0009563),
    ],
    1.0: [
        (128, 4.648, 4.827, 24.32, 1.779),
        (8192, 1.607, 1.610, 427.4, 0.02544),
        (2097152, 1.425, 1.425, 7563, 9.913e-05),
    ],
}


@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_paper_grid_table(eps):
    for n, alg1, cor2, epsl, b in GRID[eps]:
        p = input_perturbation_params(n=n, d=13, epsilon=eps, delta=0.01, eta=1.0, zeta=2.0, lam=1.0)
        assert rel(p.sigma_u_alg1, alg1) < 1e-3 and rel(p.sigma_u, cor2) < 1e-3
        assert rel(local_privacy(p).epsilon_nominal, epsl) < 2e-3  # the table prints 3-4 digits
        assert rel(theorem2_bound(p), b) < 1e-3


def test_hand_computation_s1():
    """sigma_u of setting S1 by hand (Corollary 2)."""
    sigma = (math.sqrt(20) * 0.035916 + math.sqrt(0.025799 + 1.8525)) / (1 - 0.073736)
    assert rel(_params("S1").sigma_u, sigma) < 1e-4


def test_cor2_is_root_of_kappa_random_inputs():
    g = np.random.default_rng(3)
    for _ in range(200):
        d = int(g.integers(1, 40))
        delta = float(10 ** g.uniform(-9, -1))
        n = int(min_n(delta)["cor2"] * 10 ** g.uniform(0.01, 5)) + 1
        eps, lam = float(10 ** g.uniform(-2, 1)), float(10 ** g.uniform(-1, 1))
        s = sigma_u_value(n=n, d=d, eps_run=eps, delta=delta, lam=lam, mode="COR2")
        assert rel(kappa_lower(sigma_u=s, n=n, d=d, delta=delta, lam=lam), 2 * lam / eps) < 1e-11
        s1 = sigma_u_value(n=n, d=d, eps_run=eps, delta=delta, lam=lam, mode="ALG1")
        assert rel(kappa_lower_one_sided(sigma_u=s1, n=n, d=d, delta=delta, lam=lam), 2 * lam / eps) < 1e-11
        assert s1 <= s  # ALG1 slightly smaller (docs/input_perturbation.md §"Lemma 7's one-sided bound")


def test_corollary3_sandwich_and_limit():
    g = np.random.default_rng(4)
    for _ in range(100):
        delta = float(10 ** g.uniform(-8, -1))
        n = int(min_n(delta)["theorem2"] * 10 ** g.uniform(0, 5)) + 1
        p = input_perturbation_params(
            n=n,
            d=int(g.integers(1, 30)),
            epsilon=float(10 ** g.uniform(-2, 1)),
            delta=delta,
            zeta=1.0,
            lam=float(10 ** g.uniform(-1, 0.5)),
        )
        lo, hi = corollary3_sigma_u_bounds(p)
        assert lo <= p.sigma_u <= hi
    p = input_perturbation_params(**{**SETTINGS["S1"], "n": 10**12})
    assert rel(p.sigma_u, math.sqrt(2.0)) < 1e-4


def test_validity_raises():
    base = SETTINGS["S1"]
    with pytest.raises(ValueError, match="4 ln\\(8/delta\\)"):
        input_perturbation_params(**{**base, "n": 54})
    input_perturbation_params(**{**base, "n": 52, "sigma_u_mode": "ALG1"})
    with pytest.raises(ValueError, match="4 ln\\(4/delta\\)"):
        input_perturbation_params(**{**base, "n": 51, "sigma_u_mode": "ALG1"})
    with pytest.raises(InvalidPrivacyParameter, match="Delta must be greater than 2\\*lam/eps_run = 2"):
        input_perturbation_params(**base, Delta=2.0)
    for key, bad in [
        ("delta", 0.0),
        ("delta", 1.0),
        ("epsilon", 0.0),
        ("epsilon", -1.0),
        ("alpha", 0.0),
        ("alpha", 1.5),
    ]:
        with pytest.raises(ValueError, match=key):
            input_perturbation_params(**{**base, key: bad})
    with pytest.raises(TypeError, match="n must be an integer"):
        input_perturbation_params(**{**base, "n": "100"})
    with pytest.raises(ValueError, match="sigma_u_mode must be one of"):
        input_perturbation_params(**base, sigma_u_mode="XYZ")
    p = input_perturbation_params(**{**base, "n": 100})
    assert p.valid_cor2 and not p.valid_theorem2 and not p.valid


def test_local_level_scaling_and_exact_vs_nominal():
    big = dict(SETTINGS["S1"], n=10**9)
    quarter = local_privacy(input_perturbation_params(**{**big, "alpha": 0.25}))
    full = local_privacy(input_perturbation_params(**big))
    r = quarter.epsilon_nominal / full.epsilon_nominal
    # the large-n form: eps_L = O(sqrt(alpha n eps)); the p-part adds a small sqrt(eps) correction
    assert rel(r, quarter.epsilon_large_n / full.epsilon_large_n) < 1e-3
    assert abs(r - 0.5) < 0.05
    lp = local_privacy(_params("S1"))
    assert lp.epsilon_exact > lp.epsilon_nominal and not lp.corollary1_valid
    dom = local_privacy(_params("S1"), sensitivities="domain", q_bound=1.0, p_bound=1.0)
    assert dom.epsilon_nominal < lp.epsilon_nominal + 1e-9


def test_monotonicity():
    ns = [300, 1000, 10**4, 10**5, 10**6]
    b = [theorem2_bound(input_perturbation_params(**{**SETTINGS["S1"], "n": n})) for n in ns]
    assert all(x > y for x, y in zip(b, b[1:]))
    el = [local_privacy(input_perturbation_params(**{**SETTINGS["S1"], "n": n})).epsilon_nominal for n in ns]
    assert all(x < y for x, y in zip(el, el[1:]))
    eps = [0.05, 0.1, 0.5, 1, 2, 8]
    ps = [_params("S1", epsilon=e) for e in eps]
    assert all(x.sigma_b > y.sigma_b for x, y in zip(ps, ps[1:]))
    bb = [theorem2_bound(p) for p in ps]
    assert all(x > y for x, y in zip(bb, bb[1:]))


def test_t1_equals_t2_at_delta_star():
    t = theorem2_terms(_params("S2"))
    assert rel(t.T1, t.T2) < 1e-12


def test_conservative_accounting_spec_p2_example():
    """docs/input_perturbation.md §"Conservative accounting", example S1:
    chi2 quantile 64.52, t = 0.1328, lam~ = 1.283, 2 lam~/eps = 2.566 <= 129."""
    c = conservative_accounting(_params("S1"))
    assert rel(c.chi2_quantile, 64.52) < 1e-3 and rel(c.t, 0.1328) < 1e-3
    assert rel(c.lam_tilde, 1.283) < 1e-3 and rel(c.ridge_needed, 2.566) < 1e-3 and c.ridge_ok
    assert not c.sigma_b_ok and c.epsilon > 1.0  # sigma_b was calibrated with zeta, not zeta~
    assert c.delta == pytest.approx(1e-5)
    # the supported epsilon solves sigma_b^2 = zeta~^2 (8 ln(2/delta') + 4 eps) / eps^2
    p = _params("S1")
    e = c.epsilon_from_sigma_b
    assert rel(c.zeta_tilde**2 * (8 * math.log(2 / p.delta_prime) + 4 * e) / e**2, p.sigma_b2) < 1e-12
    # a tiny ridge breaks it
    tight = conservative_accounting(_params("S1", Delta=2.01))
    assert not tight.ridge_ok and tight.epsilon == math.inf
