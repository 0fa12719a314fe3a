"""Test mean absolute error in the comparison and in the negotiation: the measured MAE of every regression
adapter (in the target's own units), its limits, ``mae<=V`` targets (smallest ε, smallest n, twice the rows)
and the CLI."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from _helpers import run_main

from dp_core.compare import ADAPTERS, default_epsilons, make_spec, run_compare
from dp_core.data import load_dataset, split_indices
from dp_core.exceptions import PrivacyLeakWarning
from dp_core.negotiate import (
    crossing,
    default_target_value,
    negotiate,
    parse_target,
)

FAST = ("output_perturbation", "label_dp_bags")


@pytest.fixture(scope="module")
def diabetes():
    return load_dataset("diabetes")


@pytest.fixture(scope="module")
def result(diabetes):
    spec = make_spec(epsilons=default_epsilons(0.05, 20.0, 6), delta=1e-5, n_trials=20, seed=0)
    return run_compare(diabetes, spec, mechanisms=FAST)


def _hand_mae(y_true, y_pred) -> float:
    """The mean absolute error written out row by row (independent of the vectorised code)."""
    total = 0.0
    for a, b in zip(y_true, y_pred):
        total += abs(float(a) - float(b))
    return total / len(y_true)


def _prepared(key, ds, spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return ADAPTERS[key].prepare(ds, spec)


def test_nonprivate_mae_of_every_adapter_equals_a_hand_computation_in_the_targets_units(diabetes):
    spec = make_spec(epsilons=(1.0,), delta=1e-5, n_trials=2, seed=3)
    y = np.asarray(diabetes.y, dtype=float)
    # output perturbation: ridge on labels mapped from the training range to [-1, 1]
    st = _prepared("output_perturbation", diabetes, spec)
    tr, te = split_indices(diabetes.n, test_fraction=spec.test_fraction, seed=spec.seed)
    lo, hi = y[tr].min(), y[tr].max()
    pred = lo + (st.data.X_test @ st.theta + 1.0) * (hi - lo) / 2.0
    got = ADAPTERS["output_perturbation"].nonprivate_mae(st)
    assert got == pytest.approx(_hand_mae(y[te], pred), rel=1e-9)
    # input perturbation: least squares on labels mapped from the data's range to [-1, 1]
    st = _prepared("input_perturbation", diabetes, spec)
    from dp_core.mechanisms.input_perturbation.mechanism import nonprivate_theta

    w = nonprivate_theta(st.stats, st.eta_ref)
    tr, te = split_indices(diabetes.n, test_fraction=spec.test_fraction, seed=spec.seed, shuffle_train=True)
    pred = y.min() + (st.data.X_test @ w + 1.0) * (y.max() - y.min()) / 2.0
    assert ADAPTERS["input_perturbation"].nonprivate_mae(st) == pytest.approx(_hand_mae(y[te], pred), rel=1e-9)
    # label-DP: OLS on labels mapped to [-B1, B1]
    st = _prepared("label_dp_bags", diabetes, spec)
    d = st.data
    pred_s = d.X_test @ st.opt["r_star"]
    pred = d.label_lo + (pred_s / d.b1 + 1.0) * (d.label_hi - d.label_lo) / 2.0
    y_te = d.label_lo + (d.y_test / d.b1 + 1.0) * (d.label_hi - d.label_lo) / 2.0
    assert ADAPTERS["label_dp_bags"].nonprivate_mae(st) == pytest.approx(_hand_mae(y_te, pred), rel=1e-9)
    assert y_te.min() >= y.min() - 1e-9 and y_te.max() <= y.max() + 1e-9  # back on the original scale
    # heavy-tailed l1: labels centred by the median and divided by the MAD
    st = _prepared("l1_exponential", diabetes, spec)
    tr, te = split_indices(diabetes.n, test_fraction=spec.test_fraction, seed=spec.seed)
    med = np.median(y[tr])
    mad = np.median(np.abs(y[tr] - med))
    pred = med + mad * (st.X_test @ st.lad_w)
    assert ADAPTERS["l1_exponential"].nonprivate_mae(st) == pytest.approx(_hand_mae(y[te], pred), rel=1e-9)


def test_label_dp_batch_mae_matches_its_predictions(diabetes):
    from dp_core.mechanisms.label_dp_bags import prepare_dataset
    from dp_core.mechanisms.label_dp_bags.batch import _metrics

    data = prepare_dataset(diabetes, test_fraction=0.2, seed=0)
    opt = data.optimum()
    coefs = opt["r_star"][None, :] + np.random.default_rng(0).normal(0.0, 0.1, size=(3, data.d))
    got = _metrics(coefs, opt)["test_mae"]
    for r in range(3):
        assert got[r] == pytest.approx(_hand_mae(data.y_test, data.X_test @ coefs[r]), rel=1e-9)


def test_every_regression_trial_has_a_finite_nonnegative_mae(result):
    t = result.trials
    assert (t["mae"] >= 0).all() and np.isfinite(t["mae"]).all()
    s = result.summary
    assert {"mae_mean", "mae_se", "mae_lo", "mae_hi"} <= set(s.columns)
    assert (s["mae_lo"] <= s["mae_mean"]).all() and (s["mae_mean"] <= s["mae_hi"]).all()
    assert result.has_mae and set(result.nonprivate_mae) == set(FAST)
    # the best non-private fit of these two is label-DP's OLS or the ridge baseline
    assert result.reference_mae == min(result.nonprivate_mae.values())
    # more budget, less error: the mean MAE at the largest ε is below the smallest ε's
    for _, g in s.groupby("method"):
        g = g.sort_values("epsilon")
        assert g["mae_mean"].iloc[-1] < g["mae_mean"].iloc[0]


def test_classification_has_no_mae():
    spec = make_spec(epsilons=(0.5, 2.0), delta=1e-5, n_trials=3, seed=0)
    res = run_compare(load_dataset("breast_cancer"), spec, mechanisms=("output_perturbation",))
    assert res.trials["mae"].isna().all() and not res.has_mae
    assert math.isnan(res.reference_mae) and math.isnan(default_target_value(res, "mae"))


def test_large_epsilon_recovers_the_nonprivate_mae(diabetes):
    """ε → ∞: the noise of the output and label baselines vanishes, the private MAE tends to the non-private one."""
    spec = make_spec(epsilons=(1e5,), delta=1e-5, n_trials=30, seed=1)
    res = run_compare(diabetes, spec, mechanisms=FAST)
    checked = 0
    for (ad, meth), g in res.summary.groupby(["adapter", "method"]):
        if meth not in ("output_gaussian", "output_laplace", "gaussian_label", "laplace_label"):
            continue
        r = g.iloc[0]
        ref = res.nonprivate_mae[ad]
        assert abs(r["mae_mean"] - ref) <= 4 * r["mae_se"] + 1e-9 * ref, (meth, r["mae_mean"], ref)
        checked += 1
    assert checked == 4


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("mae=0", r"target mae must be in \(0, inf\)"),
        ("mae=-3", r"target mae must be in \(0, inf\)"),
        ("mae>=50", r"must be stated as mae<=VALUE"),
        ("mae=abc", r"target value must be a number"),
    ],
)
def test_parse_target_rejects_bad_mae_targets(text, match):
    with pytest.raises(ValueError, match=match):
        parse_target(text)


def test_parse_target_reads_mae():
    t = parse_target("mae<=42.5")
    assert (t.metric, t.value, t.direction, t.text) == ("mae", 42.5, "<=", "mae ≤ 42.5")
    assert t.met(42.5) and not t.met(42.6)


def test_mae_target_on_classification_is_refused():
    with pytest.raises(ValueError, match="target 'mae' needs a regression dataset.*breast_cancer"):
        negotiate(load_dataset("breast_cancer"), ["mae=10"], n_trials=2, n_points=3)


def test_default_target_is_between_the_nonprivate_and_the_worst_private_mae(result):
    v = default_target_value(result, "mae")
    s = result.summary
    worst = s[s["epsilon"] == s["epsilon"].min()]["mae_mean"].min()
    mid = (result.reference_mae + worst) / 2
    assert result.reference_mae < v < worst
    assert v == pytest.approx(mid, rel=0.05)  # rounded to 2 significant digits
    assert float(f"{v:.2g}") == v
    assert math.isnan(default_target_value(result, "r2"))


def test_smallest_epsilon_for_an_mae_target_is_where_the_curve_crosses_it(diabetes, result):
    v = default_target_value(result, "mae")
    ans = negotiate(diabetes, [f"mae={v}"], mechanisms=FAST, n_trials=20, eps_min=0.05, eps_max=20.0, n_points=6,
                    result=result)  # fmt: skip
    assert ans["target"]["metric"] == "mae" and ans["target"]["direction"] == "<="
    assert ans["headline"].startswith(f"The smallest ε for test MAE ≤ {v:g} on diabetes is about")
    answered = 0
    for r in ans["methods"]:
        assert "no bound" in r["bound_note"] and math.isnan(r["epsilon_bound"])
        e = r.get("epsilon_measured", math.nan)
        if not (isinstance(e, float) and math.isfinite(e)) or r["measured_note"] != "interpolated":
            continue
        g = result.summary[result.summary["method"] == r["method"]].sort_values("epsilon")
        at = np.interp(math.log(e), np.log(g["epsilon"]), g["mae_mean"])
        assert at == pytest.approx(v, rel=1e-3)  # the mean curve meets the target exactly there
        assert r["epsilon_measured_lo"] <= e <= r["epsilon_measured_hi"]
        answered += 1
    assert answered >= 2


def test_a_looser_mae_target_never_needs_more_budget_or_rows(diabetes, result):
    v = default_target_value(result, "mae")
    common = {"mechanisms": FAST, "n_trials": 20, "eps_min": 0.05, "eps_max": 20.0, "n_points": 6}
    answers = [negotiate(diabetes, [f"mae={x}"], result=result, **common) for x in (0.9 * v, v, 1.2 * v)]
    for strict, loose in zip(answers, answers[1:]):
        for a, b in zip(strict["methods"], loose["methods"]):
            ea, eb = a.get("epsilon_measured", math.nan), b.get("epsilon_measured", math.nan)
            if math.isfinite(eb) or math.isinf(ea):
                assert not eb > ea, (a["method"], ea, eb)
    # smallest n at ε = 2: the same order, and each range holds its answer
    ns = [
        negotiate(diabetes, [f"mae={x}"], solve_for="n", epsilon=2.0, mechanisms=FAST, n_trials=20)
        for x in (0.95 * v, 1.2 * v)
    ]
    found = 0
    for a, b in zip(ns[0]["methods"], ns[1]["methods"]):
        if a["status"] == "none":
            continue
        assert a["n_min_source"] == b["n_min_source"] == "measured" and "no bound" in a["n_note"]
        if math.isnan(a["n_min"]):
            continue
        assert a["n_min_lo"] <= a["n_min"] <= a["n_min_hi"]
        assert not b["n_min"] > a["n_min"], (a["method"], a["n_min"], b["n_min"])
        found += math.isfinite(a["n_min"])
    assert found >= 1
    lc = ns[0]["learning_curve"]
    assert lc and all("mae_mean" in r for r in lc)


def test_twice_the_rows_for_an_mae_target(diabetes, result):
    v = default_target_value(result, "mae")
    ans = negotiate(diabetes, [f"mae={v}"], mechanisms=FAST, n_trials=20, eps_min=0.05, eps_max=20.0, n_points=6,
                    result=result, rows_factor=2.0)  # fmt: skip
    assert f"with twice the rows ({2 * diabetes.n:,} rows, extrapolated)" in ans["headline"]
    assert ans["n_answer"] == 2 * diabetes.n
    assert any(math.isfinite(r.get("epsilon_measured", math.nan)) for r in ans["methods"])


def test_crossing_with_a_lower_is_better_curve():
    t = parse_target("mae=50")
    e, note = crossing([0.1, 1.0, 10.0], [80.0, 60.0, 40.0], t)
    assert note == "interpolated" and e == pytest.approx(math.exp(0.5 * math.log(10.0)), rel=1e-9)


def test_cli_negotiate_solve_for_n_with_an_mae_target_round_trips(capsys, diabetes):
    args = ["negotiate", "--dataset", "diabetes", "--target", "mae=55", "--solve-for", "n", "--eps", "2"]
    args += ["--trials", "10", "--mechanisms", "output-perturbation", "label-dp-bags"]
    code, cap = run_main(capsys, *args)
    assert code == 0, cap.err
    out = json.loads(cap.out)
    assert out["target"] == {"metric": "mae", "value": 55.0, "direction": "<=", "text": "mae ≤ 55"}
    direct = negotiate(diabetes, ["mae=55"], solve_for="n", epsilon=2.0, mechanisms=FAST, n_trials=10)
    assert len(out["methods"]) == len(direct["methods"])

    for got, want in zip(out["methods"], direct["methods"]):
        for key in ("n_min", "n_min_lo", "n_min_hi", "n_min_source"):
            assert key in got
            if isinstance(want[key], float) and not math.isfinite(want[key]):
                assert got[key] is None  # the CLI writes NaN and infinities as null
            else:
                assert got[key] == want[key]
    assert any(isinstance(m["n_min"], float) and math.isfinite(m["n_min"]) for m in out["methods"])
    assert out["headline"] == direct["headline"]


def test_cli_mae_target_on_classification_exits_2_with_one_line(capsys):
    code, cap = run_main(capsys, "negotiate", "--dataset", "breast_cancer", "--target", "mae=5", "--trials", "2")
    assert code == 2
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and "regression" in lines[0] and "mae" in lines[0]


def test_report_with_an_mae_target_shows_the_answer_and_the_mae_column():
    from dp_core.compare import ExplorerConfig
    from dp_core.report import build_report

    params = {"eps_min": 0.1, "eps_max": 10.0, "n_eps": 4, "mech": "output_perturbation,label_dp_bags"}
    cfg = ExplorerConfig(
        eps=1.0,
        delta=1e-5,
        seed=7,
        trials=8,
        dataset="diabetes",
        page="pages/compare.py",
        params={**params, "tmetric": "mae", "tvalue": 60.0, "tdelta": 0.0},
    )
    rep = build_report(cfg)
    assert rep.negotiation["target"]["metric"] == "mae"
    assert "test MAE ≤ 60 on diabetes" in rep.negotiation["headline"]
    assert "Test MAE (lower is better)" in rep.html and "nan" not in rep.csv.lower()
    header = rep.csv.splitlines()[0]
    assert "test MAE (mean)" in header
    cls = ExplorerConfig(
        eps=1.0, delta=1e-5, seed=7, trials=4, dataset="iris", page="pages/compare.py",
        params={**params, "mech": "output_perturbation", "tmetric": "accuracy", "tvalue": 0.6},
    )  # fmt: skip
    assert "MAE" not in build_report(cls).csv.splitlines()[0]  # classification: no empty MAE columns
