"""The l1 page's quick first answer: analyse_dataset without baselines, headline(), sampler_comparison()."""

import numpy as np
import pytest

from dp_core.data import make_heavy_tailed
from dp_core.mechanisms.l1_exponential import L1ExponentialRegression
from dp_core.mechanisms.l1_exponential import simulation as sim


def _analysis(baselines: bool, **kw):
    ds = make_heavy_tailed(600, d=2, seed=3)
    est = L1ExponentialRegression(epsilon=kw.pop("epsilon", 1.0), theta=1.5, radius=1.0)
    return sim.analyse_dataset(
        ds.X,
        ds.y,
        feature_names=ds.feature_names,
        estimator=est,
        features=(0, 1),
        standardise=False,
        n_releases=12,
        seed=7,
        baselines=baselines,
    )


def test_the_quick_answer_draws_exactly_the_releases_of_the_full_run():
    quick, full = _analysis(False), _analysis(True)
    np.testing.assert_array_equal(quick.result.em_draws, full.result.em_draws)
    assert set(quick.result.table["method"]) == {"em_l1", "nonprivate"}
    assert set(full.result.table["method"]) == {"em_l1", "em_clipped", "dp_gd", "nonprivate"}
    q = quick.result.table.set_index(["method", "trial"])["test_mae"]
    f = full.result.table.set_index(["method", "trial"])["test_mae"]
    np.testing.assert_array_equal(q.loc["em_l1"].to_numpy(), f.loc["em_l1"].to_numpy())


def test_headline_numbers_match_their_definitions():
    an = _analysis(False)
    h = sim.headline(an, 1.0)
    t = an.result.table
    em = t[t.method == "em_l1"]["test_mae"].to_numpy()
    assert h["mae_private"] == pytest.approx(em.mean(), rel=1e-12)
    assert h["mae_private_se"] == pytest.approx(em.std(ddof=1) / np.sqrt(em.size), rel=1e-12)
    assert h["mae_nonprivate"] == pytest.approx(float(t[t.method == "nonprivate"]["test_mae"].iloc[0]))
    d = an.result.em_draws - an.result.lad_w
    assert h["spread"] == pytest.approx(np.sqrt(np.mean(np.sum(d * d, axis=1))), rel=1e-12)
    assert h["lad_norm"] == pytest.approx(np.linalg.norm(an.result.lad_w))
    assert h["lad_on_boundary"] is (h["lad_norm"] >= 0.99)
    with pytest.raises(ValueError, match="radius"):
        sim.headline(an, 0.0)


def test_the_spread_shrinks_as_epsilon_grows():
    spreads = [sim.headline(_analysis(False, epsilon=e), 1.0)["spread"] for e in (0.2, 5.0)]
    assert spreads[0] > 2 * spreads[1]


def test_sampler_comparison_gives_the_exact_law_and_the_chains():
    out = sim.sampler_comparison(200, 1.0, 1.5, 0.05, 8, 0, m=40)
    assert out["probs"].sum() == pytest.approx(1.0, rel=1e-9)
    assert out["points"].shape[1] == 2 and out["draws"].shape == (8, 2)
    assert np.allclose(out["grid_mean"], out["probs"] @ out["points"])
    assert {"rhat_max", "ess_min", "status"} <= set(out["diagnostics"])


def test_releases_figure_draws_every_release_and_refuses_mismatched_shapes():
    from dp_core.mechanisms.l1_exponential.figures import releases_figure

    draws = np.arange(12, dtype=float).reshape(6, 2)
    fig = releases_figure(draws, np.array([0.5, -0.5]), ["a", "b"])
    dots = [t for t in fig.data if t.name == "private releases"]
    assert [list(t.y) for t in dots] == [list(draws[:, 0]), list(draws[:, 1])]
    assert list(fig.data[-1].y) == [0.5, -0.5]
    with pytest.raises(ValueError, match="one column per feature"):
        releases_figure(draws, np.zeros(3), ["a", "b", "c"])
