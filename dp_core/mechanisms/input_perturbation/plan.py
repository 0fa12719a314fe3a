"""The input-perturbation page's plan (no Streamlit): its cached computations and background blocks.

``ui.cached.plan("input-perturbation")`` wraps the :func:`~dp_core.plugin.cached` functions once for the app
(``_``-parameters are not cache keys); the keys and the quick/full blocks: docs/input_perturbation.md §"Page plan".
"""

from __future__ import annotations

import pandas as pd

import dp_core

from ...plugin import Block, cached, staged_blocks
from . import bounds as ipb
from . import diagnostic as ipd
from . import experiment as ipe
from . import model as ipm
from . import params as ipp

#: Trials of the quick pass shown while the full sweep runs.
QUICK_TRIALS = 10

V = dp_core.__version__


@cached(max_entries=64, spinner=False)
def prepared(
    name: str, fingerprint: str, model: str, positive_class, seed: int, _ds, preprocess: str = "normalize", _v: str = V
) -> ipe.PreparedData:
    return ipe.prepare_data(_ds, model, positive_class=positive_class, seed=seed, preprocess=preprocess)


@cached(max_entries=64, spinner=False)
def eta_cap(
    name: str, fingerprint: str, model: str, positive_class, seed: int, preprocess: str, eta: float, _data
) -> dict:
    """Whether the bound eta holds the non-private fit back (:func:`ipe.eta_cap`)."""
    return ipe.eta_cap(_data, eta)


@cached(max_entries=256, spinner=False)
def readouts(config: ipe.SimulationConfig, n: int, d: int, _v: str = V) -> dict:
    """The paper's steps at one n, in order: the loss constants (Fukuchi, Tran, Sakuma 2017, section 4), the
    noise scales of Step 0 (Algorithm 1), the local levels (Corollary 1), the Theorem-2 terms, Corollary 3's
    range of sigma_u, our conservative accounting and the Lemma-2 bound."""
    c = config.mechanism().constants()
    p = config.params(n, d)
    lp = ipp.local_privacy(p)
    lpd = ipp.local_privacy(p, sensitivities="domain", q_bound=c.q_bound, p_bound=c.p_bound)
    out = {"params": p.as_dict(), "lam": c.lam, "zeta": c.zeta, "local": lp, "local_domain": lpd}
    out.update(terms=ipb.theorem2_terms(p).as_dict(), cor3=ipb.corollary3_sigma_u_bounds(p))
    return out | {"conservative": ipp.conservative_accounting(p), "lemma2": ipb.lemma2_bound(p)}


@cached(max_entries=32, spinner="Running the mechanisms...")
def sweep(key: tuple, _data: ipe.PreparedData, _v: str = V, _df: pd.DataFrame | None = None) -> pd.DataFrame:
    """The sweep's per-trial table at ``key`` = (name, fingerprint, model, positive_class, split_seed, config, ns,
    n_trials, seed); ``_df``: the same table computed by the page's background job (:func:`sweep_table`), stored
    under this key as is."""
    if _df is not None:
        return _df
    *_, config, ns, n_trials, seed = key
    return ipe.simulate_over_n(_data, config, list(ns), n_trials=n_trials, seed=seed)


@cached(max_entries=64, spinner=False)
def bound_curve(ns: tuple, d: int, config: ipe.SimulationConfig, w_norm: float | None, _v: str = V) -> pd.DataFrame:
    """Theorem 2's bound over ``ns`` with sigma_u recomputed at every n (``w_norm`` None: the radius eta)."""
    c, cf = config.mechanism().constants(), config
    kw = dict(d=d, epsilon=cf.epsilon, delta=cf.delta, eta=cf.eta, zeta=c.zeta, lam=c.lam, alpha=cf.alpha)
    return pd.DataFrame(
        ipb.theorem2_curve(list(ns), **kw, Delta_multiplier=cf.dmult, sigma_u_mode=cf.mode, w_norm=w_norm)
    )


@cached(max_entries=64, spinner=False)
def noise_tables(
    n: int, d: int, eps: float, delta: float, model: str, eta: float, alpha: float, mode: str, _v: str = V
) -> tuple[pd.DataFrame, pd.DataFrame]:
    import numpy as np

    by_eps = ipe.noise_scale_table(
        n=n, d=d, epsilons=np.logspace(-2, 1, 31), delta=delta, model=model, eta=eta, alpha=alpha, sigma_u_mode=mode
    )
    trade = ipe.alpha_tradeoff_table(
        n=n, d=d, epsilon=eps, delta=delta, alphas=np.logspace(-2, 0, 21), model=model, eta=eta, sigma_u_mode=mode
    )
    return by_eps, trade


@cached(max_entries=32, spinner="Drawing the contributors' noise...")
def diagnostic(key: tuple, _data: ipe.PreparedData, _v: str = V) -> dict:
    """The privacy-proof diagnostic at ``key`` = (name, fingerprint, positive_class, split_seed, config, n, n_draws,
    seed) (:func:`.diagnostic.privacy_diagnostic`)."""
    *_, config, n, n_draws, seed = key
    p = config.params(n, _data.d)
    stats = ipm.sufficient_stats(_data.X_train[:n], _data.y_train[:n], config.model)
    res = ipd.privacy_diagnostic(stats, p, n_draws=n_draws, seed=seed)
    out = {"summary": res.summary(), "lmin_plus_ridge": res.lmin_plus_ridge}
    return out | {"quad_form": res.quad_form, "threshold": res.threshold}


@cached(max_entries=4, spinner="Reproducing Figures 1 and 2 (quick mode)...")
def reproduction(seed: int, n_trials: int, _v: str = V, _summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """The quick reproduction's summary; ``_summary``: the same table computed by the page's background job
    (:func:`reproduction_summary` with these arguments), stored under this key as is."""
    return reproduction_summary(seed, n_trials) if _summary is None else _summary


# ------------------------------------------------------------------------------------------------
# Figures: built once per setting and kept as shared, never-mutated objects (building a Plotly figure
# costs tens of milliseconds; re-renders that need no new computation stay fast).
# ------------------------------------------------------------------------------------------------


@cached(max_entries=64, spinner=False, resource=True)
def readout_figures(config: ipe.SimulationConfig, n: int, d: int, _r: dict, _v: str = V) -> dict:
    """Figures that depend on n: the Theorem-2 terms (``_r``: :func:`readouts`), noise against epsilon, the
    alpha trade-off."""
    from . import figures as ipf

    c = config
    by_eps, trade = noise_tables(n, d, c.epsilon, c.delta, c.model, c.eta, c.alpha, c.mode)
    out = {"terms": ipf.theorem2_stack_figure(_r["terms"]), "noise_eps": ipf.noise_vs_epsilon_figure(by_eps, n=n)}
    return out | {"trade": ipf.tradeoff_figure(trade)}


@cached(max_entries=64, spinner=False, resource=True)
def n_scaling_figures(
    d: int, eps: float, delta: float, model: str, eta: float, alpha: float, mode: str, _v: str = V
) -> dict:
    """Figures over a grid of n (independent of the n slider): sigma_u and the local epsilon against n."""
    import numpy as np

    from . import figures as ipf

    n_min = ipp.min_n(delta)["alg1" if mode == "ALG1" else "cor2"]
    ns = np.unique(np.concatenate([n_min * (1 + np.logspace(-3, 0, 12)), np.logspace(np.log10(2 * n_min), 7, 40)]))
    kw = dict(d=d, epsilon=eps, delta=delta, model=model, eta=eta, alpha=alpha, sigma_u_mode=mode)
    by_n = ipe.noise_vs_n_table(ns=ns, **kw)
    local_n = ipe.local_vs_n_table(ns=np.unique(np.logspace(np.log10(n_min + 1), 8, 25).astype(int)), **kw)
    return {"noise_n": ipf.sigma_u_vs_n_figure(by_n, n_min=n_min), "local_n": ipf.local_vs_n_figure(local_n)}


@cached(max_entries=32, spinner=False, resource=True)
def sweep_figures(key: tuple, w_norm_mode: str, _data: ipe.PreparedData, _df: pd.DataFrame, _v: str = V) -> dict:
    """The measured curves of the sweep at ``key`` (:func:`sweep`; ``_df`` its table)."""
    from ...experiments import summarize
    from . import figures as ipf

    df, model, config, ns = _df, key[2], key[5], key[6]
    w_meas = min(float(df["w_norm_hat"].iloc[-1]), config.eta) if w_norm_mode == "measured" else None
    bounds = bound_curve(ns, _data.d, config, w_meas)
    s = summarize(df, by=["n", "method"], values=["excess_risk", "test_metric"])
    metric_name = "test RMSE" if model == "least_squares" else "test accuracy"
    out = {"excess": ipf.excess_vs_n_figure(df, bounds), "gap": ipf.gap_figure(df)}
    out.update(metric=ipf.metric_figure(s, metric_name=metric_name), summary=s)
    return out | {"w_measured": float(df["w_norm_hat"].iloc[-1])}


@cached(max_entries=32, spinner=False, resource=True)
def diagnostic_figure(key: tuple, _data: ipe.PreparedData, _dg: dict, _v: str = V):
    """The diagnostic's histogram (``_dg``: :func:`diagnostic` at the same ``key``)."""
    from . import figures as ipf

    return ipf.diagnostic_figure(_dg["lmin_plus_ridge"], _dg["quad_form"], _dg["threshold"])


# ------------------------------------------------------------------------------------------------
# The first screen: the measured utility beside non-private, and its one chart.
# ------------------------------------------------------------------------------------------------


@cached(max_entries=64, spinner=False)
def feasibility(n: int, delta: float, mode: str, _v: str = V) -> ipp.Feasibility:
    return ipp.feasibility(n, delta, mode)


@cached(max_entries=64, spinner=False)
def headline(key: tuple, _data: ipe.PreparedData, _df: pd.DataFrame, _v: str = V) -> dict:
    """Mean test utility (accuracy, or R² for regression) of input perturbation and non-private at the largest n
    of the sweep at ``key`` (:func:`sweep`; ``_df`` its table)."""
    return ipe.utility_at(_df, _data.y_test)


@cached(max_entries=32, spinner=False, resource=True)
def utility_figure(key: tuple, _data: ipe.PreparedData, _df: pd.DataFrame, _v: str = V):
    """Test utility (accuracy, or R²) against n for every method of the sweep at ``key``: the first screen's chart."""
    from ...experiments import summarize
    from . import figures as ipf

    u, metric = ipe.utility_frame(_df, _data.y_test)
    s = summarize(u.assign(test_metric=u["utility"]), by=["n", "method"], values=["test_metric"])
    return ipf.metric_figure(s, metric_name=metric)


@cached(max_entries=64, spinner=False)
def class_values(name: str, fingerprint: str, _ds, _v: str = V) -> tuple[float, ...]:
    """The distinct labels of a multiclass dataset, sorted (the one-vs-rest choices)."""
    import numpy as np

    return tuple(float(v) for v in np.unique(np.asarray(_ds.y, dtype=float)))


@cached(max_entries=4, spinner=False, resource=True)
def reproduction_figures(seed: int, n_trials: int, _summary: pd.DataFrame, _v: str = V) -> dict:
    """The quick reproduction of the paper's Figures 1 (least squares) and 2 (logistic)."""
    from . import figures as ipf

    rep = _summary
    return {m: ipf.reproduction_figure(rep[rep["model"] == m], model=m) for m in ("least_squares", "logistic_taylor")}


# ------------------------------------------------------------------------------------------------
# Background blocks (picklable module-level functions of plain arguments, run by ui.background).
# ------------------------------------------------------------------------------------------------
def sweep_table(
    data: ipe.PreparedData, config: ipe.SimulationConfig, ns: tuple, n_trials: int, seed: int, progress=None
) -> pd.DataFrame:
    """Every method at every size in ``ns``: :func:`.experiment.simulate_over_n`."""
    return ipe.simulate_over_n(data, config, list(ns), n_trials=n_trials, seed=seed, progress=progress)


def sweep_blocks(
    data: ipe.PreparedData, config: ipe.SimulationConfig, ns: tuple, n_trials: int, seed: int, *, quick: bool
) -> list[Block]:
    """The page's sweep, blocks ``"quick"`` (:data:`QUICK_TRIALS`, with ``quick``) and ``"full"``; weights are
    the trial counts times the number of sizes."""
    args = (data, config, tuple(ns))
    return staged_blocks(
        sweep_table, args, {"seed": int(seed)}, int(n_trials), quick_trials=QUICK_TRIALS, quick=quick, weight=len(ns)
    )


def reproduction_summary(seed: int, n_trials: int, progress=None) -> pd.DataFrame:
    """The quick reproduction of the paper's Figures 1-2, summarised per model, epsilon, n and method."""
    from ...experiments import summarize
    from .reproduce import reproduction_table

    df = reproduction_table(quick=True, seed=seed, n_trials=n_trials, progress=progress)
    return summarize(df, by=["model", "epsilon", "n", "method"], values=["test_metric", "excess_risk"])


def reproduction_blocks(seed: int, n_trials: int) -> list[Block]:
    """One block: :func:`reproduction_summary` (named ``"reproduction"``)."""
    return [Block("reproduction", reproduction_summary, (int(seed), int(n_trials)), weight=float(n_trials))]
