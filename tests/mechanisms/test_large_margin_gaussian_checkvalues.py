"""Check values of the large-margin classifier (rows 1-49, docs/large_margin_gaussian.md
§"Defaults and reference settings"), at 1e-3 relative."""

import math

import pytest

from dp_core.mechanisms.large_margin_gaussian import privacy_params
from dp_core.mechanisms.large_margin_gaussian.bounds import (
    noise_radius,
    printed_bounds,
    printed_radius,
    tier_c_bounds,
    tier_u_bounds,
)

SETTINGS = {
    "S1": dict(d=2, C=3, n=1000, eps=1.0, lam=0.01, h=0.5, delta=0.05),
    "S2": dict(d=5, C=4, n=10000, eps=0.5, lam=0.001, h=0.1, delta=0.01),
    "S3": dict(d=10, C=10, n=60000, eps=2.0, lam=0.0001, h=0.5, delta=0.05),
}

# row: (S1, S2, S3) from the reference table of check values
TABLE = {
    1: (9, 36, 121),
    2: (0.5, 0.25, 1.0),
    3: (2.0, 4.0, 1.0),
    4: (18.0, 144.0, 121.0),
    5: (6.0, 24.0, 11.0),
    6: (360.0, 2.131e4, 1.476e4),
    7: (1.0, 5.0, 1.0),
    8: (0.1906, 0.8109, 0.3083),
    9: (1.191, 1.311, 2.308),
    10: (0.8094, 0.25, 1.692),
    11: (0.0, 0.002755, 0.0),
    12: (0.4047, 0.125, 0.8458),
    13: (22.24, 288.0, 143.1),
    14: (3.689, 6.215, 5.298),
    15: (66.40, 894.9, 641.1),
    16: (93.47, 1179, 942.8),
    17: (28.87, 205.6, 139.6),
    18: (2.645e6, 6.407e9, 8.220e10),
    19: (5.634e4, 1.601e7, 4.055e8),
    20: (55.99, 58.57, 93.32),
    21: (2.702e6, 6.423e9, 8.261e10),
    22: (2.645, 64.07, 22.83),
    23: (0.5634, 1.601, 0.6758),
    24: (5.291, 128.1, 45.67),
    25: (61.85, 188.3, 139.7),
    26: (5.242, 111.2, 49.38),
    27: (0.5001, 3.383, 1.083),
    28: (0.2160, 1.705, 0.8201),
    29: (350.5, 932.1, 8500),
    30: (2.449, 3.464, 9.487),
    31: (3.0, 20.0, 10.0),
    32: (1.049, 6.592, 17.65),
    33: (0.5, 0.25, 1.0),
    34: (0.01253, 0.04601, 0.002817),
    35: (0.02253, 0.04701, 0.002917),
    36: (27, 144, 1210),
    37: (0.1021, 0.03608, 0.05270),
    38: (264.5, 3991, 2.296e4),
    39: (7.258e4, 1.604e7, 5.275e8),
    40: (1664, 3.821e4, 2.317e5),
    41: (353.5, 4805, 2.405e4),
    42: (245.9, 621.2, 1.023e4),
    43: (11.09, 9.822, 110.2),
    44: (6.442, 6.823, 100.5),
    45: (3.619, 0.7270, 2.648),
    46: (33.29, 76.42, 77.25),
    47: (491.8, 1242, 2.045e4),
    48: (149.1, 14.95, 287.9),
    49: (677.8, 1334, 2.082e4),
}


def _computed(s):
    d, C, n, eps, lam, h, delta = (s[k] for k in ("d", "C", "n", "eps", "lam", "h", "delta"))
    P = privacy_params(epsilon=eps, n=n, d=d, n_classes=C, lam=lam, h=h, mode="printed")
    Pt = privacy_params(epsilon=eps, n=n, d=d, n_classes=C, lam=lam, h=h, mode="repaired", semantics="target")
    Pp = privacy_params(epsilon=eps, n=n, d=d, n_classes=C, lam=lam, h=h, mode="repaired", semantics="paper")
    R = privacy_params(epsilon=eps, n=n, d=d, n_classes=C, lam=lam, h=h, mode="corrected")
    pb = printed_bounds(d=d, n_classes=C, n=n, epsilon=eps, lam=lam, delta=delta)
    tu = tier_u_bounds(d=d, n_classes=C, n=n, epsilon=eps, lam=lam, delta=delta)
    tf = tier_c_bounds(
        d=d,
        n_classes=C,
        n=n,
        beta=Pp.beta,
        lam=lam,
        mu_eff=Pp.mu_eff,
        delta=delta,
        shared_noise=True,
        phi_star_norm=10.0,
    )
    tg = tier_c_bounds(
        d=d,
        n_classes=C,
        n=n,
        beta=R.beta,
        lam=lam,
        mu_eff=R.mu_eff,
        delta=delta,
        shared_noise=False,
        phi_star_norm=10.0,
    )
    D = P.noise_dim
    return {
        1: D,
        2: P.beta,
        3: 1 / P.beta,
        4: P.expected_noise_norm,
        5: P.sd_noise_norm,
        6: P.expected_noise_norm_sq,
        7: P.alpha,
        8: P.k_printed,
        9: P.eps_prime,
        10: Pt.eps_noise,
        11: Pt.Delta,
        12: Pt.beta,
        13: Pt.expected_noise_norm,
        14: pb["log_d_over_delta"],
        15: printed_radius(d, eps, delta),
        16: noise_radius(D, P.beta, delta, kind="union"),
        17: noise_radius(D, P.beta, delta, kind="exact"),
        18: pb["thm52"],
        19: pb["thm53_term1"],
        20: pb["thm53_term3"],
        21: pb["thm53_total"],
        22: tu["u52"],
        23: tu["u53_term1"],
        24: tu["u53_term2"],
        25: tu["u53_total"],
        26: tf["c52_union"],
        27: tf["c52_exact"],
        28: tf["expected_pathwise"],
        29: tf["c53_total"],
        30: R.G,
        31: R.kappa,
        32: R.k_corrected,
        33: R.eps_noise,
        34: R.Delta,
        35: R.mu_eff,
        36: R.noise_dim,
        37: R.beta,
        38: R.expected_noise_norm,
        39: R.expected_noise_norm_sq,
        40: tg["r_union"],
        41: tg["r_exact"],
        42: tg["c52_union"],
        43: tg["c52_exact"],
        44: tg["expected_pathwise"],
        45: tg["c53_A"],
        46: tg["c53_B"],
        47: tg["c53_E"],
        48: tg["c53_S"],
        49: tg["c53_total"],
    }


@pytest.mark.parametrize("setting_idx,setting", list(enumerate(SETTINGS)))
def test_section_7_table(setting_idx, setting):
    got = _computed(SETTINGS[setting])
    bad = []
    for row, values in TABLE.items():
        want = values[setting_idx]
        val = got[row]
        ok = abs(val) < 1e-12 if want == 0 else math.isclose(val, want, rel_tol=1e-3)
        if not ok:
            bad.append((row, want, val))
    assert not bad, f"{setting}: rows differing from the reference (row, expected, got): {bad}"


def test_printed_radius_fails_for_d1_but_exact_quantile_holds():
    # pitfall 15: the printed Lemma 4 radius fails for d = 1, delta = 0.5 (true tail 0.698)
    from scipy import stats

    eps, delta = 1.0, 0.5
    r = printed_radius(1, eps, delta)
    tail = stats.gamma.sf(r, a=4, scale=2 / eps)
    assert tail == pytest.approx(0.698, rel=1e-3) and tail > delta
    r_exact = noise_radius(4, eps / 2, delta)
    assert stats.gamma.sf(r_exact, a=4, scale=2 / eps) == pytest.approx(delta, rel=1e-9)
    assert noise_radius(4, eps / 2, delta, kind="union") >= r_exact


def test_budget_split_fallback_gives_half_budget_exactly():
    # section 7.5 invariant 4: after the fallback, k(mu + Delta) = eps/2 to 1e-12
    from dp_core.mechanisms.large_margin_gaussian import k_corrected, k_printed

    for eps in (0.05, 0.3, 1.0):
        R = privacy_params(epsilon=eps, n=500, d=3, n_classes=4, lam=0.01, h=0.3, mode="corrected")
        assert R.fallback
        assert abs(k_corrected(500, R.mu_eff, 0.3, 4) - eps / 2) < 1e-12
        assert abs(R.k - eps / 2) < 1e-12 and R.eps_noise == eps / 2
        P = privacy_params(epsilon=eps, n=500, d=3, n_classes=4, lam=0.001, h=0.3, mode="repaired")
        assert P.fallback and abs(k_printed(500, P.mu_eff, 0.3) - eps / 2) < 1e-12


def test_bounds_monotone_in_n_and_epsilon():
    vals = []
    for n in (100, 1000, 10000):
        R = privacy_params(epsilon=2.0, n=n, d=2, n_classes=3, lam=0.01, h=0.5)
        vals.append(
            tier_c_bounds(
                d=2, n_classes=3, n=n, beta=R.beta, lam=0.01, mu_eff=R.mu_eff, delta=0.05, shared_noise=False
            )["c52_exact"]
        )
    assert vals[0] > vals[1] > vals[2] > 0
    vals = []
    for eps in (0.5, 2.0, 8.0):
        R = privacy_params(epsilon=eps, n=1000, d=2, n_classes=3, lam=0.01, h=0.5)
        vals.append(
            tier_c_bounds(
                d=2, n_classes=3, n=1000, beta=R.beta, lam=0.01, mu_eff=R.mu_eff, delta=0.05, shared_noise=False
            )["expected_pathwise"]
        )
    assert vals[0] > vals[1] > vals[2] > 0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(epsilon=-1.0), r"epsilon must be in \(0, inf\), got -1"),
        (dict(n_classes=1), r"n_classes must be an integer in \[2, inf\], got 1"),
        (dict(lam=0.0), r"lam must be in \(0, inf\), got 0"),
        (dict(h=-0.5), r"h must be in \(0, inf\), got -0.5"),
        (dict(mode="paper"), r"mode must be one of 'printed', 'repaired', 'corrected', got 'paper'"),
        (dict(semantics="x"), r"semantics must be one of 'target', 'paper', got 'x'"),
    ],
)
def test_privacy_params_validation(kwargs, match):
    base = dict(epsilon=1.0, n=100, d=2, n_classes=3, lam=0.01, h=0.5)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        privacy_params(**base)


def test_privacy_params_type_errors():
    with pytest.raises(TypeError, match="n must be an integer"):
        privacy_params(epsilon=1.0, n="100", d=2, n_classes=3, lam=0.01, h=0.5)
    with pytest.raises(ValueError, match="delta must be in"):
        noise_radius(9, 0.5, 1.5)
