"""The comparison's label-DP bags with k and m from the data size (issue 13 item 5).

k = 0 or m = 0 (the default, "auto") makes the comparison pick the fewest bags for a useful fit,
each as large as the rows allow, so that noisy weighted LLP has a proved ε at the comparison's δ;
an explicit k and m keep the fixed setting.
"""

from __future__ import annotations

import math

import pytest

from dp_core.compare import ExplorerConfig, make_spec, run_compare
from dp_core.compare.budget import noise_table
from dp_core.data import load_dataset
from dp_core.mechanisms.label_dp_bags import auto_bag_setting, utility_min_bags
from dp_core.mechanisms.label_dp_bags.bounds import llp_exact_delta, llp_exact_min_eps

QUICK = dict(epsilons=(0.5, 5.0), delta=1e-5, n_trials=3, seed=0)


def _llp(result):
    return next(m for m in result.methods if m["method"] == "noisy_wtd_llp")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["census", "randhie"])
def test_auto_bags_have_a_guarantee_and_summary_rows(name):
    spec = make_spec(**QUICK)  # k, m default to 0: from the data size
    assert spec.k == 0 and spec.m == 0 and spec.rho == pytest.approx(0.1)
    r = run_compare(load_dataset(name), spec, mechanisms=["label_dp_bags"])
    st = r.states["label_dp_bags"]
    n, d = st.data.n, st.data.d
    assert st.m == utility_min_bags(d) and st.k == n // st.m and st.k * st.m <= n
    llp = _llp(r)
    assert llp["status"] == "proved"
    eps = st.llp_epsilon
    assert eps is not None and math.isfinite(eps)
    # the accounted ε is the exact profile's at δ, and no more private setting with as many bags fits
    assert eps == pytest.approx(llp_exact_min_eps(1e-5, n, st.k, st.m, 0.1, st.data.b1), rel=1e-9)
    assert llp_exact_delta(eps, n, st.k, st.m, 0.1, st.data.b1).delta <= 1e-5 * (1 + 1e-6)
    fewer_rows = llp_exact_min_eps(1e-5, n, st.k // 2, st.m, 0.1, st.data.b1)
    assert fewer_rows is None or fewer_rows > eps
    more_bags = llp_exact_min_eps(1e-5, n, n // (2 * st.m), 2 * st.m, 0.1, st.data.b1)
    assert more_bags is None or more_bags > eps
    # the chosen k and m are reported, labelled, in the label, the statement and the noise table
    tag = f"k = {st.k:,}, m = {st.m:,} from the data size"
    assert tag in llp["label"] and tag in llp["statement"]
    rows = noise_table(r, 1.0)
    assert rows.astype(str).apply(lambda col: col.str.contains(tag, regex=False)).to_numpy().any()
    rows_llp = r.summary[r.summary["method"] == "noisy_wtd_llp"]
    assert len(rows_llp) == 1 and rows_llp["epsilon"].iloc[0] == pytest.approx(eps)


@pytest.mark.slow
def test_explicit_k_m_keep_the_fixed_setting_and_same_seed_same_numbers():
    ds = load_dataset("census")
    spec = make_spec(**QUICK, k=64, m=100)
    r = run_compare(ds, spec, mechanisms=["label_dp_bags"])
    st = r.states["label_dp_bags"]
    assert (st.k, st.m, st.auto) == (64, 100, False)
    llp = _llp(r)
    # today's answer at (64, 100, 0.1): no ε reaches δ = 1e-5, stated as before, and no bags point
    assert llp["status"] == "none" and llp["label"] == "Noisy weighted LLP (k, m, ρ)"
    assert llp["statement"].startswith("No guarantee at these settings: no ε reaches δ = 1e-5 at k = 64, m = 100")
    assert (r.summary["method"] == "noisy_wtd_llp").sum() == 0
    again = run_compare(ds, spec, mechanisms=["label_dp_bags"])
    assert r.summary.equals(again.summary)
    # an explicit setting with a guarantee is measured at its own accounted ε
    spec2 = make_spec(**QUICK, k=150, m=100, rho=0.5)
    r2 = run_compare(ds, spec2, mechanisms=["label_dp_bags"])
    st2 = r2.states["label_dp_bags"]
    assert (st2.k, st2.m, st2.auto) == (150, 100, False) and "from the data size" not in _llp(r2)["label"]
    assert st2.llp_epsilon == pytest.approx(llp_exact_min_eps(1e-5, st2.data.n, 150, 100, 0.5, st2.data.b1))


def test_small_data_gets_a_setting_or_the_plain_statement():
    r = run_compare(load_dataset("diabetes"), make_spec(**QUICK), mechanisms=["label_dp_bags"])
    llp = _llp(r)
    st = r.states["label_dp_bags"]
    assert st.llp_epsilon is None and llp["status"] == "none"
    s = llp["statement"]
    assert s.startswith("No setting from the data size gives a guarantee at δ = 1e-5")
    assert f"{st.data.n:,} training rows" in s and "about" in s and "ρ = 1" in s
    assert (r.summary["method"] == "noisy_wtd_llp").sum() == 0
    assert {"gaussian_label", "laplace_label"} <= set(r.summary["method"])  # the baselines still run


def test_auto_setting_values_and_what_would_change_them():
    a = auto_bag_setting(354, d=11, delta=1e-5, rho=0.1)
    assert a.epsilon is None and a.n_needed is not None and a.n_needed > 354
    # the rows it names do give a guarantee, and about 5 % fewer do not
    assert auto_bag_setting(a.n_needed, d=11, delta=1e-5, rho=0.1).epsilon is not None
    assert auto_bag_setting(int(a.n_needed * 0.9), d=11, delta=1e-5, rho=0.1).epsilon is None
    # ρ = 1 on the same rows does, as the message says
    assert a.epsilon_rho_one == pytest.approx(auto_bag_setting(354, d=11, delta=1e-5, rho=1.0).epsilon)
    tiny = auto_bag_setting(8, d=5, delta=1e-5, rho=0.1)
    assert tiny.k == 0 and tiny.epsilon is None and "cannot hold 11 bags" in tiny.message
    # a larger δ or more rows never make the auto ε larger
    e1 = auto_bag_setting(16_000, d=14, delta=1e-5, rho=0.1).epsilon
    assert auto_bag_setting(16_000, d=14, delta=1e-3, rho=0.1).epsilon < e1
    assert auto_bag_setting(32_000, d=14, delta=1e-5, rho=0.1).epsilon < e1
    with pytest.raises(ValueError, match="delta"):
        auto_bag_setting(100, d=2, delta=0.0, rho=0.1)


def test_auto_round_trips_through_the_url_config_and_cli_help(capsys):
    cfg = ExplorerConfig(dataset="census")
    assert cfg.k == 0 and cfg.m == 0
    q = cfg.to_query()
    assert q["k"] == "0" and q["m"] == "0"
    back = ExplorerConfig.from_query(q)
    assert back.k == 0 and back.m == 0 and back == cfg
    explicit = ExplorerConfig.from_query({**q, "k": "64", "m": "100"})
    assert (explicit.k, explicit.m) == (64, 100)
    from dp_core.cli import main

    try:
        main(["compare", "--help"])
    except SystemExit:  # argparse's exit after --help, when main lets it through
        pass
    out = " ".join(capsys.readouterr().out.split())
    assert "bag size k (default 0 = auto: k and m from the data size)" in out


@pytest.mark.slow
def test_more_rows_than_the_search_takes_are_accounted_on_all_rows():
    from dp_core.compare import ADAPTERS
    from dp_core.mechanisms.label_dp_bags.defaults import N_AUTO_MAX

    st = ADAPTERS["label_dp_bags"].prepare(load_dataset("census", n=70_000), make_spec(**QUICK))
    n = st.data.n
    assert n > N_AUTO_MAX and st.auto and st.m == utility_min_bags(st.data.d) and st.k == N_AUTO_MAX // st.m
    assert st.llp_epsilon == pytest.approx(llp_exact_min_eps(1e-5, n, st.k, st.m, 0.1, st.data.b1), rel=1e-9)
    # the same bags among more rows are more private than among N_AUTO_MAX rows
    assert st.llp_epsilon < auto_bag_setting(N_AUTO_MAX, d=st.data.d, delta=1e-5, rho=0.1).epsilon
