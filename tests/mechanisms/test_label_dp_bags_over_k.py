"""The delta-against-k curves computed over arrays of k give the numbers of the per-k scalar accounting.

``terms_noisy_wtd_llp_over_k`` / ``terms_wtd_lba_over_k`` check their arguments once and evaluate the terms
with NumPy over the whole k grid; ``delta_vs_k_table`` uses them. Here they are compared, on grids of
(k, m, rho, epsilon, target delta) and of the wtd-LBA data constants, with the scalar functions
``terms_noisy_wtd_llp`` / ``terms_wtd_lba`` term by term (1e-12 relative: NumPy's exp and log may differ from
``math``'s in the last bit), and the table with the table the per-k loop built before.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.mechanisms.label_dp_bags import figures as lbf

RTOL = 1e-12
#: k from the smallest bag to far beyond any data set, through every regime of the terms (the grid of the page
#: and off-grid values, integers and reals).
KS = np.unique(np.concatenate([lbf._k_grid(16.0, 1e16), [2.0, 3.0, 5.0, 7.5, 10.0, 64.0, 1000.0, 123456.7, 1e20]]))
LLP_TERMS = ("gaussian", "weights", "count", "chi")
LBA_TERMS = ("gaussian", "chi2", "eigen", "net")


def _same(a, b) -> bool:
    """Equal to 1e-12 relative (both -inf, or both 0, count as equal)."""
    a, b = float(a), float(b)
    if a == b:
        return True
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= RTOL * max(abs(a), abs(b))


def _assert_same(arr: dict, scalar_of_k, names) -> None:
    for i, k in enumerate(arr["k"]):
        t = scalar_of_k(float(k))
        for name in names:
            assert _same(arr[f"log_{name}"][i], t[f"log_{name}"]), (name, k, arr[f"log_{name}"][i], t[f"log_{name}"])
        assert _same(arr["log_delta"][i], t["log_delta"]), (k, arr["log_delta"][i], t["log_delta"])
        assert _same(arr["delta"][i], t["delta"]), (k, arr["delta"][i], t["delta"])
        raw = acc._logsumexp([t[f"log_{x}"] for x in names])
        assert _same(arr["log_total"][i], raw), (k, arr["log_total"][i], raw)


@pytest.mark.parametrize("variant, mode", [("corrected", "optimized"), ("paper", "fixed"), ("corrected", "fixed")])
@pytest.mark.parametrize("m", [1, 50, 1000, 10**6])
@pytest.mark.parametrize("rho", [1e-9, 0.01, 0.1, 0.5, 1.0])
def test_llp_terms_over_k_equal_the_scalar_terms(variant, mode, m, rho):
    for eps, noise_std in itertools.product((0.05, 0.5, 1.0, 4.0, 20.0), (0.5, 1.0, 3.0)):
        arr = acc.terms_noisy_wtd_llp_over_k(eps, KS, m, rho, 1.0, variant=variant, mode=mode, noise_std=noise_std)
        _assert_same(
            arr,
            lambda k, eps=eps, s=noise_std: acc.terms_noisy_wtd_llp(
                eps, k, m, rho, 1.0, variant=variant, mode=mode, noise_std=s
            ),
            LLP_TERMS,
        )


@pytest.mark.parametrize("variant, mode, form", [("corrected", "optimized", "eq22"), ("paper", "fixed", "eq24")])
@pytest.mark.parametrize("d, b2, gamma, lam", [(1, 1.0, 1 / 3, 1.0), (3, 2.0, 0.25, 0.1), (11, 4.0, 0.01, 1e-3)])
def test_lba_terms_over_k_equal_the_scalar_terms(variant, mode, form, d, b2, gamma, lam):
    for eps, m in itertools.product((0.05, 1.0, 4.0), (1, 100, 10**5)):
        arr = acc.terms_wtd_lba_over_k(eps, KS, m, d, 1.0, b2, gamma, lam, variant=variant, mode=mode, form=form)
        _assert_same(
            arr,
            lambda k, eps=eps, m=m: acc.terms_wtd_lba(
                eps, k, m, d, 1.0, b2, gamma, lam, variant=variant, mode=mode, form=form
            ),
            LBA_TERMS,
        )


def test_the_grid_covers_every_regime():
    """The comparison above is not vacuous: the grid has vacuous, informative and underflowing deltas."""
    arr = acc.terms_noisy_wtd_llp_over_k(1.0, KS, 1000, 0.1, 1.0)
    assert np.any(arr["delta"] == 1.0) and np.any((arr["delta"] > 0) & (arr["delta"] < 1e-3))
    assert np.any(arr["log_gaussian"] == 0.0) and np.any(arr["log_gaussian"] < -745)  # no guarantee / underflow
    assert np.any(arr["log_total"] > 0)  # uncapped sums above 1 (the vacuous band)


def _old_table(*, mechanism, epsilons, m, n, b1=1.0, rho=0.1, noise_std=1.0, d=None, b2=None, gamma=None, lam=None):
    """``delta_vs_k_table`` as it was built before: one scalar accounting per (epsilon, accounting, k)."""
    rows = []
    for eps in epsilons:
        for name, (var, mode, form) in acc.ACCOUNTINGS.items():
            for k in lbf._k_grid(16.0, 1e16):
                if mechanism == "noisy-wtd-llp":
                    t = acc.terms_noisy_wtd_llp(eps, k, m, rho, b1, variant=var, mode=mode, noise_std=noise_std)
                else:
                    t = acc.terms_wtd_lba(eps, k, m, d, b1, b2, gamma, lam, variant=var, mode=mode, form=form)
                raw = acc._logsumexp(
                    [
                        t[f"log_{x}"]
                        for x in ("gaussian", "weights", "count", "chi", "chi2", "eigen", "net")
                        if f"log_{x}" in t
                    ]
                )
                rows.append(
                    {
                        "epsilon": eps,
                        "k": float(k),
                        "accounting": name,
                        "delta": t["delta"],
                        "delta_uncapped": math.exp(min(raw, math.log(lbf._DISPLAY_CAP))),
                    }
                )
    if mechanism == "noisy-wtd-llp" and rho > 0 and n // m >= 2:
        kx = np.unique(np.round(np.logspace(math.log10(2), math.log10(n // m), 14)).astype(int))
        for k in kx:
            for ex in acc.llp_exact_delta_curve(list(epsilons), n, int(k), m, rho, b1, noise_std=noise_std):
                rows.append(
                    {"epsilon": ex.epsilon, "k": float(k), "accounting": "exact", "delta": ex.delta,
                     "delta_uncapped": ex.delta}
                )  # fmt: skip
    return pd.DataFrame(rows)


def _assert_tables_equal(new: pd.DataFrame, old: pd.DataFrame) -> None:
    assert list(new.columns) == list(old.columns)
    assert len(new) == len(old) > 0
    assert new["accounting"].tolist() == old["accounting"].tolist()
    for col in ("epsilon", "k"):
        np.testing.assert_array_equal(new[col].to_numpy(float), old[col].to_numpy(float))
    for col in ("delta", "delta_uncapped"):
        np.testing.assert_allclose(new[col].to_numpy(float), old[col].to_numpy(float), rtol=RTOL, atol=0)


@pytest.mark.parametrize(
    "n, m, rho, noise_std",
    [(12800, 853, 0.1, 1.0), (16000, 100, 0.1, 1.0), (353, 10, 0.5, 2.0), (10**6, 1000, 0.01, 1.0)],
)
def test_llp_table_equals_the_per_k_table(n, m, rho, noise_std):
    kw = dict(mechanism="noisy-wtd-llp", epsilons=(0.5, 1.0, 2.0, 4.0), m=m, n=n, rho=rho, noise_std=noise_std)
    new, old = lbf.delta_vs_k_table(**kw), _old_table(**kw)
    _assert_tables_equal(new, old)
    # where each curve first reaches a target delta is the same k on both paths
    for target in (1e-8, 1e-5, 1e-3, 0.1):
        for (e, a), s in new.groupby(["epsilon", "accounting"]):
            o = old[(old["epsilon"] == e) & (old["accounting"] == a)]
            first_new = s["k"][s["delta"] <= target].min()
            first_old = o["k"][o["delta"] <= target].min()
            assert (math.isnan(first_new) and math.isnan(first_old)) or first_new == first_old


@pytest.mark.parametrize("d, b2, gamma, lam", [(3, 2.0, 0.25, 0.1), (11, 1.7, 0.02, 0.004)])
def test_lba_table_equals_the_per_k_table(d, b2, gamma, lam):
    kw = dict(mechanism="wtd-lba", epsilons=(0.5, 1.0, 2.0, 4.0), m=200, n=4000, d=d, b2=b2, gamma=gamma, lam=lam)
    _assert_tables_equal(lbf.delta_vs_k_table(**kw), _old_table(**kw))


def test_arguments_are_checked_once_with_their_name():
    with pytest.raises(ValueError, match="every k must be in"):
        acc.terms_noisy_wtd_llp_over_k(1.0, [16.0, 1.5], 10, 0.1, 1.0)
    with pytest.raises(ValueError, match="every k must be in"):
        acc.terms_noisy_wtd_llp_over_k(1.0, [16.0, math.nan], 10, 0.1, 1.0)
    with pytest.raises(ValueError, match="ks must be a non-empty"):
        acc.terms_noisy_wtd_llp_over_k(1.0, [], 10, 0.1, 1.0)
    with pytest.raises(TypeError, match="ks must be an array of real numbers"):
        acc.terms_noisy_wtd_llp_over_k(1.0, ["a"], 10, 0.1, 1.0)
    with pytest.raises(ValueError, match="rho must be in"):
        acc.terms_noisy_wtd_llp_over_k(1.0, [16.0], 10, 1.5, 1.0)
    with pytest.raises(ValueError, match="m must be in"):
        acc.terms_noisy_wtd_llp_over_k(1.0, [16.0], 0.5, 0.1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        acc.terms_wtd_lba_over_k(0.0, [16.0], 10, 3, 1.0, 2.0, 0.25, 0.1)
    with pytest.raises(ValueError, match="gamma must be in"):
        acc.terms_wtd_lba_over_k(1.0, [16.0], 10, 3, 1.0, 2.0, 0.5, 0.1)
    with pytest.raises(ValueError, match="form"):
        acc.terms_wtd_lba_over_k(1.0, [16.0], 10, 3, 1.0, 2.0, 0.25, 0.1, form="eq23")


def test_validation_runs_once_per_curve_not_per_term(monkeypatch):
    """The reason for the array path: a curve of 121 k values checks its arguments a handful of times."""
    import dp_core.mechanisms.label_dp_bags.bounds as b

    calls = {"n": 0}
    real = b.check_positive

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(b, "check_positive", counting)
    b.terms_noisy_wtd_llp_over_k(1.0, lbf._k_grid(16.0, 1e16), 100, 0.1, 1.0)
    assert calls["n"] <= 3
    calls["n"] = 0
    for k in lbf._k_grid(16.0, 1e16):
        b.terms_noisy_wtd_llp(1.0, k, 100, 0.1, 1.0)
    assert calls["n"] >= 121 * 3
