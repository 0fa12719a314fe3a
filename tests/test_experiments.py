import math

import numpy as np
import pandas as pd
import pytest

from dp_core.experiments import make_blocks, mean_se, run_sweep, summarize


def _gauss_block(point, seeds):
    rows = []
    for t, s in enumerate(seeds):
        g = np.random.default_rng(s)
        rows.append({"trial": t, "method": "a", "value": point["mu"] + g.standard_normal()})
    return pd.DataFrame(rows)


def test_same_seed_same_table_and_block_size_irrelevant():
    pts = [{"mu": 0.0}, {"mu": 1.0}]
    a = run_sweep(_gauss_block, pts, n_trials=20, seed=3)
    b = run_sweep(_gauss_block, pts, n_trials=20, seed=3, block_size=7)
    pd.testing.assert_frame_equal(
        a.sort_values(["mu", "trial"]).reset_index(drop=True), b.sort_values(["mu", "trial"]).reset_index(drop=True)
    )
    c = run_sweep(_gauss_block, pts, n_trials=20, seed=4)
    assert not np.allclose(a["value"], c["value"])


def test_common_random_numbers_across_points():
    t = run_sweep(_gauss_block, [{"mu": 0.0}, {"mu": 5.0}], n_trials=10, seed=1)
    x0 = t[t.mu == 0.0].sort_values("trial")["value"].to_numpy()
    x5 = t[t.mu == 5.0].sort_values("trial")["value"].to_numpy()
    assert np.allclose(x5 - x0, 5.0)


def test_progress_reports_every_trial():
    seen = []
    run_sweep(
        _gauss_block,
        [{"mu": 0.0}, {"mu": 1.0}],
        n_trials=10,
        seed=0,
        block_size=4,
        progress=lambda d, tot: seen.append((d, tot)),
    )
    assert seen[-1] == (20, 20)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == 6


def test_map_fn_is_used():
    calls = []

    def my_map(f, items):
        items = list(items)
        calls.append(len(items))
        return [f(i) for i in items]

    run_sweep(_gauss_block, [{"mu": 0.0}], n_trials=5, seed=0, block_size=2, map_fn=my_map)
    assert calls == [3]


def test_summary_mean_se_and_coverage():
    # seeded statistical check: the mean of N(mu, 1) over 400 trials is within 4 SE of mu
    t = run_sweep(_gauss_block, [{"mu": 2.0}], n_trials=400, seed=9)
    s = summarize(t, by=["method", "mu"], values=["value"])
    row = s.iloc[0]
    assert row["n_trials"] == 400
    assert abs(row["value_mean"] - 2.0) < 4 * row["value_se"]
    assert row["value_se"] == pytest.approx(1 / math.sqrt(400), rel=0.15)
    assert row["value_lo"] < row["value_mean"] < row["value_hi"]


def test_summary_counts_failures():
    df = pd.DataFrame({"m": ["a"] * 4, "v": [1.0, np.nan, 3.0, np.inf]})
    s = summarize(df, by=["m"], values=["v"])
    assert s.loc[0, "n_trials"] == 2 and s.loc[0, "n_failed"] == 2 and s.loc[0, "v_mean"] == 2.0


def test_mean_se_edge_cases():
    assert all(math.isnan(x) for x in mean_se([]))
    m, se = mean_se([4.0])
    assert m == 4.0 and math.isnan(se)


def test_validation():
    with pytest.raises(ValueError, match="n_trials"):
        make_blocks([{"a": 1}], n_trials=0, seed=0)
    with pytest.raises(ValueError, match="at least one parameter point"):
        make_blocks([], n_trials=3, seed=0)
    with pytest.raises(ValueError, match="not in the table"):
        summarize(pd.DataFrame({"a": [1]}), by=["b"], values=["a"])
    with pytest.raises(TypeError, match="DataFrame"):
        run_sweep(lambda p, s: [1, 2], [{"a": 1}], n_trials=2, seed=0)
