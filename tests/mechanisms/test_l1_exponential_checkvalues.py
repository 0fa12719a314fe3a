"""The check values of l1_heavy_tailed.md section 7 (and those of sections 2.7, 2.8, 5.2), at 1e-3 relative."""

import math

import numpy as np
import pytest

from dp_core.mechanisms.l1_exponential import (
    baseline_dp_gd,
    dp_gd_calibration,
    em_grid,
    grid_net,
    kappa,
    psi,
    psi_prime,
    score_sensitivity,
    surrogate_cost,
    surrogate_cost_and_grad,
    surrogate_risk,
)
from dp_core.mechanisms.l1_exponential.baselines import clipped_em_kappa
from dp_core.mechanisms.l1_exponential.bounds import (
    bound_coefficients,
    explicit_bound,
    iota_paper,
    iota_star,
    log_net_size,
    moment_constants,
    optimal_bound,
    privacy_dominance_epsilon,
    rate_paper,
)
from dp_core.mechanisms.l1_exponential.population import (
    HeavyTailedModel,
    assumption_tau,
    design_norm_moment,
    noise_abs_moment,
    student_t_abs_moment,
)

REL = 1e-3
approx = lambda v: pytest.approx(v, rel=REL)  # noqa: E731

PSI = {
    2.0: [0.04998, 0.2469, 0.4700, 0.6325, 0.6931, 0.6931],
    1.5: [0.04348, 0.1823, 0.3069, 0.3812, 0.4055, 0.4055],
    1.2: [0.02749, 0.09664, 0.1477, 0.1743, 0.1823, 0.1823],
}
PSI_PRIME = {
    2.0: [0.9987, 0.9600, 0.8000, 0.4706],
    1.5: [0.8109, 0.6000, 0.3981, 0.1962],
    1.2: [0.4633, 0.2667, 0.1500, 0.06656],
}


@pytest.mark.parametrize("theta", [2.0, 1.5, 1.2])
def test_psi_table(theta):
    assert psi([0.05, 0.25, 0.5, 0.75, 1.0, 3.0], theta).tolist() == [approx(v) for v in PSI[theta]]


@pytest.mark.parametrize("theta", [2.0, 1.5, 1.2])
def test_psi_prime_table(theta):
    assert psi_prime([0.05, 0.25, 0.5, 0.75], theta).tolist() == [approx(v) for v in PSI_PRIME[theta]]


def test_psi_small_argument_examples():
    assert float(psi(0.1, 1.5)) == approx(0.08221)
    assert float(psi(0.1, 1.2)) == approx(0.04858)


TINY_X = [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]
TINY_Y = [0.5, -1.0, 3.0]
TINY = {  # theta: S, L_iota, grad S, kappa_tight, -kappa S
    2.0: (1.041, 0.6940, (-0.4935, 0.9756), 0.7213, -0.7509),
    1.5: (0.6747, 0.4498, (-0.3447, 0.6431), 1.233, -0.8320),
    1.2: (0.3315, 0.2210, (-0.1688, 0.2989), 2.742, -0.9090),
}


@pytest.mark.parametrize("theta", [2.0, 1.5, 1.2])
def test_tiny_dataset(theta):
    S_exp, L_exp, g_exp, k_exp, ks_exp = TINY[theta]
    w = [0.2, -0.3]
    S, grad = surrogate_cost_and_grad(w, TINY_X, TINY_Y, iota=0.5, theta=theta)
    assert S == approx(S_exp)
    assert surrogate_cost(w, TINY_X, TINY_Y, iota=0.5, theta=theta) == approx(S_exp)
    assert surrogate_risk(w, TINY_X, TINY_Y, iota=0.5, theta=theta) == approx(L_exp)
    assert grad.tolist() == [approx(v) for v in g_exp]
    k = kappa(1.0, theta, "tight")
    assert k == approx(k_exp)
    assert -k * S == approx(ks_exp)


GRID_P = {
    "tight": (1.233, [0.1528, 0.1535, 0.1725, 0.3114, 0.2097]),
    "paper_proof": (0.6166, [0.1765, 0.1770, 0.1876, 0.2520, 0.2068]),
    "paper_box": (2.466, [0.1073, 0.1083, 0.1368, 0.4456, 0.2021]),
}


@pytest.mark.parametrize("convention", list(GRID_P))
def test_exact_grid_probabilities(convention):
    k_exp, p_exp = GRID_P[convention]
    r = em_grid(
        [[1.0], [2.0], [-1.0]], [0.5, 1.0, 2.0], epsilon=1.0, theta=1.5, iota=1.0, m=5, convention=convention, rng=0
    )
    assert np.allclose(r.net.points.ravel(), [-0.8, -0.4, 0.0, 0.4, 0.8], atol=1e-12)
    assert r.costs.tolist() == [approx(v) for v in (1.216, 1.213, 1.118, 0.6389, 0.9595)]
    assert r.kappa == approx(k_exp)
    assert r.probabilities.tolist() == [approx(v) for v in p_exp]


def test_grid_net_check_values():
    g1 = grid_net(1, 1.0, 5)
    assert g1.zeta == approx(0.2)
    g2 = grid_net(2, 1.0, 4)
    assert g2.size == 16
    assert g2.zeta == approx(0.3536)
    diagonal = np.abs(np.abs(g2.points[:, 0]) - np.abs(g2.points[:, 1])) < 1e-12
    corners = g2.points[diagonal & (np.linalg.norm(g2.points, axis=1) > 0.5)]
    assert len(corners) == 4 and np.allclose(np.abs(corners), 1 / math.sqrt(2))
    assert np.all(np.linalg.norm(g2.points, axis=1) <= 1.0 + 1e-12)


# --- the three full settings of section 7.2 -------------------------------------------------
SETTINGS = {
    #        n,       d,  eps, theta, assumption, eta_total
    "E1": (10_000, 5, 1.0, 1.5, "A3", 0.05),
    "E2": (1_000, 2, 0.5, 2.0, "A1", 0.05),
    "E3": (100_000, 10, 2.0, 1.2, "A4", 0.1),
}
TABLE = {
    "E1": dict(
        eta=0.01,
        zeta=1e-4,
        logN=55.01,
        logNeta=59.62,
        m1=1.0,
        M=1.0,
        V=5.414,
        logtheta=0.4055,
        kappas=(1.233, 0.6166, 2.466),
        a=15.93,
        b=0.02318,
        iota_star=0.02038,
        thr=49.07,
        du=1.989e-3,
        du_paper=3.979e-3,
        beta=251.3,
        U=3.412,
        net=3.000e-4,
        bias=2.275,
        zt=1.346e-7,
        stat=0.9001,
        priv=0.2372,
        U_pp=3.649,
        iota_paper=0.05752,
        thr_paper=17.38,
        U_paper=4.225,
        rate=0.2398,
    ),
    "E2": dict(
        eta=0.01,
        zeta=1e-3,
        logN=17.40,
        logNeta=22.00,
        m1=1.0,
        M=1.0,
        V=10.00,
        logtheta=0.6931,
        kappas=(0.3607, 0.1803, 0.7213),
        a=25.00,
        b=0.1316,
        iota_star=0.07256,
        thr=13.78,
        du=9.553e-3,
        du_paper=1.911e-2,
        beta=26.17,
        U=3.631,
        net=3.000e-3,
        bias=1.814,
        zt=7.256e-8,
        stat=0.9732,
        priv=0.8408,
        U_pp=4.472,
        iota_paper=0.2877,
        thr_paper=3.476,
        U_paper=7.653,
        rate=0.2877,
    ),
    "E3": dict(
        eta=0.02,
        zeta=1e-5,
        logN=133.0,
        logNeta=137.0,
        m1=6.813,
        M=10.0,
        V=27.54,
        logtheta=0.1823,
        kappas=(5.485, 2.742, 10.97),
        a=95.21,
        b=0.004398,
        iota_star=9.324e-4,
        thr=1073,
        du=1.955e-3,
        du_paper=3.911e-3,
        beta=511.4,
        U=28.30,
        net=2.044e-4,
        bias=23.58,
        zt=2.371e-6,
        stat=4.449,
        priv=0.2678,
        U_pp=28.57,
        iota_paper=5.870e-4,
        thr_paper=1704,
        U_paper=28.99,
        rate=2.258,
    ),
}


@pytest.mark.parametrize("name", list(SETTINGS))
def test_full_setting(name):
    n, d, eps, theta, ass, eta_total = SETTINGS[name]
    t = TABLE[name]
    eta = eta_total / 5
    zeta = 1 / n
    assert eta == approx(t["eta"]) and zeta == approx(t["zeta"])
    logN = log_net_size(d, zeta, 2.0)
    assert logN == approx(t["logN"])
    assert logN + math.log(1 / eta) == approx(t["logNeta"])
    c = moment_constants(ass, tau=1.0, d=d, theta=theta, sigma_theta=1.0, radius=1.0)
    assert (c.m1, c.M_theta, c.V_theta) == (approx(t["m1"]), approx(t["M"]), approx(t["V"]))
    assert math.log(c.theta) == approx(t["logtheta"])
    ks = tuple(kappa(eps, c.theta, conv) for conv in ("tight", "paper_proof", "paper_box"))
    assert ks == tuple(approx(v) for v in t["kappas"])
    common = dict(zeta=zeta, n=n, eta=eta, theta=c.theta, M_theta=c.M_theta, V_theta=c.V_theta, diam_W=2.0, d=d)
    a, b = bound_coefficients(kappa_value=ks[0], **common)
    assert (a, b) == (approx(t["a"]), approx(t["b"]))
    i_star = iota_star(kappa_value=ks[0], **common)
    assert i_star == approx(t["iota_star"])
    assert 1 / i_star == approx(t["thr"])
    assert score_sensitivity(n, i_star, c.theta) == approx(t["du"])
    assert score_sensitivity(n, i_star, c.theta, kind="paper") == approx(t["du_paper"])
    assert ks[0] * n * i_star == approx(t["beta"])
    U = explicit_bound(i_star, m1=c.m1, kappa_value=ks[0], **common)
    assert U.total == approx(t["U"])
    assert (U.net, U.truncation_bias, U.discretisation_truncation, U.statistical, U.privacy) == (
        approx(t["net"]),
        approx(t["bias"]),
        approx(t["zt"]),
        approx(t["stat"]),
        approx(t["priv"]),
    )
    assert optimal_bound(m1=c.m1, kappa_value=ks[0], **common) == pytest.approx(U.total, rel=1e-10)
    # U(iota*) with the paper_proof temperature (iota* of the tight convention, as in the table)
    assert explicit_bound(i_star, m1=c.m1, kappa_value=ks[1], **common).total == approx(t["U_pp"])
    ip = iota_paper(n, d, eps, eta_total, theta, 1.0, ass)
    assert ip == approx(t["iota_paper"])
    assert 1 / ip == approx(t["thr_paper"])
    assert explicit_bound(ip, m1=c.m1, kappa_value=ks[0], **common).total == approx(t["U_paper"])
    assert rate_paper(n, d, eps, eta_total, theta, 1.0, ass) == approx(t["rate"])


def test_privacy_dominance_threshold():
    # the spec rounds to 3 decimals: 0.462 and 0.270 (= (2/3) log theta)
    assert privacy_dominance_epsilon(2.0) == pytest.approx(0.462, abs=5e-4)
    assert privacy_dominance_epsilon(1.5) == pytest.approx(0.270, abs=5e-4)
    assert privacy_dominance_epsilon(1.5) == pytest.approx(2 / 3 * math.log(1.5), rel=1e-12)


def test_baseline_check_values():
    assert clipped_em_kappa(1.0, 3.0, 5.0, 1.0) == approx(0.0625)
    c = dp_gd_calibration(n=10_000, d=5, epsilon=1.0, delta=1e-5, n_steps=200, clip=2.0, radius=1.0)
    assert (c.rho, c.sigma_g, c.G, c.step) == (approx(0.02082), approx(0.02772), approx(2.001), approx(0.07068))
    w = baseline_dp_gd(np.ones((20, 5)), np.ones(20), epsilon=1, delta=1e-5, clip=2, n_draws=3, rng=0)
    assert w.shape == (3, 5) and np.all(np.linalg.norm(w, axis=1) <= 1 + 1e-12)


def test_generator_constants():
    assert student_t_abs_moment(1.0, 3.0) == approx(1.103)
    assert student_t_abs_moment(1.5, 3.0) == approx(1.612)
    assert student_t_abs_moment(1.2, 3.0) == approx(1.251)
    assert student_t_abs_moment(2.0, 3.0) == approx(3.0)
    assert student_t_abs_moment(1.0, 1.8) == approx(1.571)
    assert student_t_abs_moment(1.5, 1.8) == approx(4.626)
    p18 = HeavyTailedModel(design="pareto_sphere", tail=1.8)
    assert design_norm_moment(1.0, p18) == approx(2.25)
    assert design_norm_moment(1.5, p18) == approx(6.000)
    assert assumption_tau(p18, "A3", 1.5) == approx(3.302)
    assert assumption_tau(HeavyTailedModel(design="pareto_sphere", tail=2.5), "A1", 2.0) == approx(2.236)
    n18 = HeavyTailedModel(noise="pareto_skewed", noise_tail=1.8)
    n25 = HeavyTailedModel(noise="pareto_skewed", noise_tail=2.5)
    assert noise_abs_moment(1.0, n18) == approx(1.057)
    assert noise_abs_moment(1.5, n18) == approx(3.883)
    assert noise_abs_moment(1.0, n25) == approx(0.5325)
    assert noise_abs_moment(1.5, n25) == approx(0.8016)
    assert noise_abs_moment(1.5, HeavyTailedModel(noise="gaussian")) == approx(0.8600)
    assert math.isinf(noise_abs_moment(2.0, n18))
