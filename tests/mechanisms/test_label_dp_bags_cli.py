"""CLI commands and the quick reproduction of label-DP by aggregation."""

import json
import math

import pandas as pd
import pytest
from _helpers import run_main

from dp_core.mechanisms.label_dp_bags import reproduce as rep


def run(capsys, argv):
    return run_main(capsys, *argv)


def test_calibrate_noisy_llp_prints_three_accountings(capsys):
    code, out = run(
        capsys,
        (
            "calibrate label-dp-bags --variant noisy-wtd-llp --n 100000 --k 64 --m 1000 --rho 0.1 --eps "
            "1 --target-delta 1e-6"
        ).split(),
    )
    assert code == 0
    d = json.loads(out.out)
    assert d["delta_paper"] == 1.0 and d["delta_explicit"] == 1.0
    assert d["delta_exact"] == pytest.approx(0.07891, rel=1e-3)
    assert d["paper_weights"] == pytest.approx(1172, rel=1e-3)
    assert d["k_min_explicit"] == 8493046966724 and d["k_min_paper"] == 415010204615147
    assert d["k_max_feasible"] == 100 and d["eps_min_exact"] is None
    assert "no privacy guarantee" in d["statement_paper"]


def test_calibrate_wtd_lba_from_randhie(capsys):
    code, out = run(
        capsys,
        ("calibrate label-dp-bags --variant wtd-lba --dataset randhie --lo 0 --hi 20 --k 64 --m 100 --eps 1").split(),
    )
    assert code == 0
    d = json.loads(out.out)
    assert d["gamma"] == pytest.approx(0.1152, rel=1e-3) and d["lam"] == pytest.approx(0.002947, rel=1e-3)
    assert d["explicit_net"] == pytest.approx(1.189e58, rel=1e-3)
    assert "private labels" in d["data_conditions_warning"]


def test_calibrate_explicit_constants_example_c(capsys):
    code, out = run(
        capsys,
        (
            "calibrate label-dp-bags --variant wtd-lba --n 10000000000000000 --k 100000000000 --m 100 "
            "--eps 1 --d 10 --b2 2 --gamma 0.25 --lam 0.1"
        ).split(),
    )
    assert code == 0
    d = json.loads(out.out)
    assert d["delta_paper"] == pytest.approx(0.5850, rel=1e-3) and d["delta_explicit"] == pytest.approx(
        0.05656, rel=1e-3
    )


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--n", "100", "--k", "64", "--m", "10", "--eps", "1"], "m*k must be <= n"),
        (["--n", "1000", "--k", "4", "--m", "10", "--eps", "-1"], "epsilon"),
        (["--n", "1000", "--k", "4", "--m", "10", "--eps", "1", "--rho", "3"], "rho"),
        (["--variant", "wtd-lba", "--n", "1000", "--k", "4", "--m", "10", "--eps", "1"], "needs d, b2, gamma and lam"),
    ],
)
def test_calibrate_bad_input_exits_2(capsys, argv, needle):
    code, out = run(capsys, ["calibrate", "label-dp-bags", *argv])
    assert code == 2
    assert needle in out.err and out.err.count("\n") == 1


def test_simulate_prints_every_method(capsys):
    code, out = run(
        capsys, ["simulate", "label-dp-bags", "--dataset", "diabetes", "--k", "8", "--m", "30", "--trials", "20"]
    )
    assert code == 0
    d = json.loads(out.out)
    for meth in ("naive_lba", "naive_llp", "wtd_lba", "wtd_llp", "noisy_wtd_llp", "gaussian_label", "laplace_label"):
        assert math.isfinite(d[f"{meth}_test_mse_mean"]) and d[f"{meth}_excess_risk_se"] >= 0
    assert d["naive_lba_test_mse_mean"] == d["naive_llp_test_mse_mean"]
    assert d["label_range_from_data"] is True
    assert 0 < d["noisy_wtd_llp_delta_exact"] < 1 and d["noisy_wtd_llp_delta_paper"] == 1.0


def test_paper_tables_as_printed():
    t = rep.paper_tables()
    assert len(t) == 6 * 2 * 16
    c = t[(t.dataset == "census") & (t.table == 1) & (t.m == 1024) & (t.k == 64)].iloc[0]
    assert c.paper_mse == 471.83 and c.paper_std == 59.19 and c.paper_instance_mse == 142.53
    c = t[(t.dataset == "criteo") & (t.table == 6) & (t.m == 4096) & (t.k == 256)].iloc[0]
    assert c.paper_mse == 193.41 and c.rho == 1.0


@pytest.mark.slow
def test_reproduce_quick(tmp_path, capsys):
    code, out = run(capsys, ["reproduce", "label-dp-bags", "--out", str(tmp_path), "--quick"])
    assert code == 0
    s = json.loads(out.out)
    for f in s["files"]:
        assert (tmp_path / f).exists()
    tab = pd.read_csv(tmp_path / "label_dp_bags_tables.csv")
    t1 = tab[(tab["table"] == 1) & tab["replica_mse"].notna()]
    assert len(t1) >= 5
    # wtd-LBA on synthetic data follows the random-design prediction 1 + d/(m - d - 1) (few seeds: 6 % slack)
    assert (abs(t1["replica_ratio"] - t1["predicted_ratio"]) < 0.06 * t1["predicted_ratio"]).all()
    assert s["all_paper_deltas_vacuous"] is True
    assert abs(s["datasets"]["criteo"]["instance_mse"] - 196.35) < 10
