"""Cached wrappers of the input-perturbation page (pure dp_core calls; data passed unhashed).

Keys are scalars, the dataset's name and fingerprint, and ``dp_core.__version__``; the dataset
itself is passed as ``_ds`` (not hashed). Cached functions are pure: no Streamlit element is created
inside them and none is passed in (the spinner is the cache's ``show_spinner``).
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

import pandas as pd

import dp_core
from dp_core.mechanisms.input_perturbation import bounds as ipb
from dp_core.mechanisms.input_perturbation import diagnostic as ipd
from dp_core.mechanisms.input_perturbation import experiment as ipe
from dp_core.mechanisms.input_perturbation import model as ipm
from dp_core.mechanisms.input_perturbation import params as ipp

from . import cached_scope as scoped

V = dp_core.__version__


@scoped.cache_data(max_entries=64, show_spinner=False)
def prepared(
    name: str, fingerprint: str, model: str, positive_class, seed: int, _ds, preprocess: str = "normalize", _v: str = V
) -> ipe.PreparedData:
    return ipe.prepare_data(_ds, model, positive_class=positive_class, seed=seed, preprocess=preprocess)


@scoped.cache_data(max_entries=64, show_spinner=False)
def eta_cap(
    name: str, fingerprint: str, model: str, positive_class, seed: int, preprocess: str, eta: float, _data
) -> dict:
    """Whether the bound eta holds the non-private fit back (:func:`ipe.eta_cap`)."""
    return ipe.eta_cap(_data, eta)


@scoped.cache_data(max_entries=256, show_spinner=False)
def readouts(
    n: int, d: int, eps: float, delta: float, model: str, eta: float, alpha: float, mult: float, mode: str, _v: str = V
) -> dict:
    c = ipm.model_constants(model, eta=eta)
    p = ipp.input_perturbation_params(
        n=n,
        d=d,
        epsilon=eps,
        delta=delta,
        eta=eta,
        zeta=c.zeta,
        lam=c.lam,
        alpha=alpha,
        Delta_multiplier=mult,
        sigma_u_mode=mode,
    )
    lp = ipp.local_privacy(p)
    lpd = ipp.local_privacy(p, sensitivities="domain", q_bound=c.q_bound, p_bound=c.p_bound)
    return {
        "params": p.as_dict(),
        "lam": c.lam,
        "zeta": c.zeta,
        "local": lp,
        "local_domain": lpd,
        "terms": ipb.theorem2_terms(p).as_dict(),
        "cor3": ipb.corollary3_sigma_u_bounds(p),
        "conservative": ipp.conservative_accounting(p),
        "lemma2": ipb.lemma2_bound(p),
    }


@scoped.cache_data(max_entries=32, show_spinner="Running the mechanisms...")
def sweep(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    config: ipe.SimulationConfig,
    ns: tuple,
    n_trials: int,
    seed: int,
    _data: ipe.PreparedData,
    _v: str = V,
    _df: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The sweep's per-trial table; ``_df``: the same table computed by the page's background job
    (``ui.jobs_input_perturbation.sweep_table`` with these arguments), stored under this key as is."""
    if _df is not None:
        return _df
    return ipe.simulate_over_n(_data, config, list(ns), n_trials=n_trials, seed=seed)


@scoped.cache_data(max_entries=64, show_spinner=False)
def bound_curve(
    ns: tuple,
    d: int,
    eps: float,
    delta: float,
    model: str,
    eta: float,
    alpha: float,
    mult: float,
    mode: str,
    w_norm: float | None,
    _v: str = V,
) -> pd.DataFrame:
    c = ipm.model_constants(model, eta=eta)
    rows = ipb.theorem2_curve(
        list(ns),
        d=d,
        epsilon=eps,
        delta=delta,
        eta=eta,
        zeta=c.zeta,
        lam=c.lam,
        alpha=alpha,
        Delta_multiplier=mult,
        sigma_u_mode=mode,
        w_norm=w_norm,
    )
    return pd.DataFrame(rows)


@scoped.cache_data(max_entries=64, show_spinner=False)
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


@scoped.cache_data(max_entries=32, show_spinner="Drawing the contributors' noise...")
def diagnostic(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    n: int,
    eps: float,
    delta: float,
    eta: float,
    alpha: float,
    mult: float,
    mode: str,
    n_draws: int,
    seed: int,
    _data: ipe.PreparedData,
    _v: str = V,
) -> dict:
    c = ipm.model_constants(model, eta=eta)
    p = ipp.input_perturbation_params(
        n=n,
        d=_data.d,
        epsilon=eps,
        delta=delta,
        eta=eta,
        zeta=c.zeta,
        lam=c.lam,
        alpha=alpha,
        Delta_multiplier=mult,
        sigma_u_mode=mode,
    )
    stats = ipm.sufficient_stats(_data.X_train[:n], _data.y_train[:n], model)
    res = ipd.privacy_diagnostic(stats, p, n_draws=n_draws, seed=seed)
    return {
        "summary": res.summary(),
        "lmin_plus_ridge": res.lmin_plus_ridge,
        "quad_form": res.quad_form,
        "threshold": res.threshold,
    }


@scoped.cache_data(max_entries=4, show_spinner="Reproducing Figures 1 and 2 (quick mode)...")
def reproduction(seed: int, n_trials: int, _v: str = V, _summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """The quick reproduction's summary; ``_summary``: the same table computed by the page's background job
    (``ui.jobs_input_perturbation.reproduction_summary(seed, n_trials)``), stored under this key as is."""
    if _summary is not None:
        return _summary
    from .jobs_input_perturbation import reproduction_summary

    return reproduction_summary(seed, n_trials)


# ------------------------------------------------------------------------------------------------
# Figures: built once per setting and kept as shared, never-mutated objects (building a Plotly figure
# costs tens of milliseconds; re-renders that need no new computation stay fast).
# ------------------------------------------------------------------------------------------------


@scoped.cache_resource(max_entries=64, show_spinner=False)
def readout_figures(
    n: int, d: int, eps: float, delta: float, model: str, eta: float, alpha: float, mult: float, mode: str, _v: str = V
) -> dict:
    """Figures that depend on n: the Theorem-2 terms, noise against epsilon, the alpha trade-off."""
    from dp_core.mechanisms.input_perturbation import figures as ipf

    r = readouts(n, d, eps, delta, model, eta, alpha, mult, mode)
    by_eps, trade = noise_tables(n, d, eps, delta, model, eta, alpha, mode)
    return {
        "terms": ipf.theorem2_stack_figure(r["terms"]),
        "noise_eps": ipf.noise_vs_epsilon_figure(by_eps, n=n),
        "trade": ipf.tradeoff_figure(trade),
    }


@scoped.cache_resource(max_entries=64, show_spinner=False)
def n_scaling_figures(
    d: int, eps: float, delta: float, model: str, eta: float, alpha: float, mode: str, _v: str = V
) -> dict:
    """Figures over a grid of n (independent of the n slider): sigma_u and the local epsilon against n."""
    import numpy as np

    from dp_core.mechanisms.input_perturbation import figures as ipf

    n_min = ipp.min_n(delta)["alg1" if mode == "ALG1" else "cor2"]
    ns = np.unique(np.concatenate([n_min * (1 + np.logspace(-3, 0, 12)), np.logspace(np.log10(2 * n_min), 7, 40)]))
    by_n = ipe.noise_vs_n_table(
        ns=ns, d=d, epsilon=eps, delta=delta, model=model, eta=eta, alpha=alpha, sigma_u_mode=mode
    )
    local_n = ipe.local_vs_n_table(
        ns=np.unique(np.logspace(np.log10(n_min + 1), 8, 25).astype(int)),
        d=d,
        epsilon=eps,
        delta=delta,
        model=model,
        eta=eta,
        alpha=alpha,
        sigma_u_mode=mode,
    )
    return {"noise_n": ipf.sigma_u_vs_n_figure(by_n, n_min=n_min), "local_n": ipf.local_vs_n_figure(local_n)}


@scoped.cache_resource(max_entries=32, show_spinner=False)
def sweep_figures(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    config: ipe.SimulationConfig,
    ns: tuple,
    n_trials: int,
    seed: int,
    w_norm_mode: str,
    _data: ipe.PreparedData,
    _v: str = V,
) -> dict:
    from dp_core.experiments import summarize
    from dp_core.mechanisms.input_perturbation import figures as ipf

    df = sweep(name, fingerprint, model, positive_class, split_seed, config, ns, n_trials, seed, _data=_data)
    w_meas = min(float(df["w_norm_hat"].iloc[-1]), config.eta) if w_norm_mode == "measured" else None
    bounds = bound_curve(
        ns,
        _data.d,
        config.epsilon,
        config.delta,
        model,
        config.eta,
        config.alpha,
        config.dmult,
        config.mode,
        w_meas,
    )
    s = summarize(df, by=["n", "method"], values=["excess_risk", "test_metric"])
    metric_name = "test RMSE" if model == "least_squares" else "test accuracy"
    return {
        "excess": ipf.excess_vs_n_figure(df, bounds),
        "gap": ipf.gap_figure(df),
        "metric": ipf.metric_figure(s, metric_name=metric_name),
        "summary": s,
        "w_measured": float(df["w_norm_hat"].iloc[-1]),
    }


@scoped.cache_resource(max_entries=32, show_spinner=False)
def diagnostic_figure(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    n: int,
    eps: float,
    delta: float,
    eta: float,
    alpha: float,
    mult: float,
    mode: str,
    n_draws: int,
    seed: int,
    _data: ipe.PreparedData,
    _v: str = V,
):
    from dp_core.mechanisms.input_perturbation import figures as ipf

    dg = diagnostic(
        name,
        fingerprint,
        model,
        positive_class,
        split_seed,
        n,
        eps,
        delta,
        eta,
        alpha,
        mult,
        mode,
        n_draws,
        seed,
        _data=_data,
    )
    return ipf.diagnostic_figure(dg["lmin_plus_ridge"], dg["quad_form"], dg["threshold"])


# ------------------------------------------------------------------------------------------------
# The first screen: the measured utility beside non-private, and its one chart.
# ------------------------------------------------------------------------------------------------


@scoped.cache_data(max_entries=64, show_spinner=False)
def feasibility(n: int, delta: float, mode: str, _v: str = V) -> ipp.Feasibility:
    return ipp.feasibility(n, delta, mode)


@scoped.cache_data(max_entries=64, show_spinner=False)
def headline(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    config: ipe.SimulationConfig,
    ns: tuple,
    n_trials: int,
    seed: int,
    _data: ipe.PreparedData,
    _v: str = V,
) -> dict:
    """Mean test utility (accuracy, or R² for regression) of input perturbation and non-private at the largest n."""
    df = sweep(name, fingerprint, model, positive_class, split_seed, config, ns, n_trials, seed, _data=_data)
    return ipe.utility_at(df, _data.y_test)


@scoped.cache_resource(max_entries=32, show_spinner=False)
def utility_figure(
    name: str,
    fingerprint: str,
    model: str,
    positive_class,
    split_seed: int,
    config: ipe.SimulationConfig,
    ns: tuple,
    n_trials: int,
    seed: int,
    _data: ipe.PreparedData,
    _v: str = V,
):
    """Test utility (accuracy, or R²) against n for every method: the first screen's chart."""
    from dp_core.experiments import summarize
    from dp_core.mechanisms.input_perturbation import figures as ipf

    df = sweep(name, fingerprint, model, positive_class, split_seed, config, ns, n_trials, seed, _data=_data)
    u, metric = ipe.utility_frame(df, _data.y_test)
    s = summarize(u.assign(test_metric=u["utility"]), by=["n", "method"], values=["test_metric"])
    return ipf.metric_figure(s, metric_name=metric)


@scoped.cache_data(max_entries=64, show_spinner=False)
def class_values(name: str, fingerprint: str, _ds, _v: str = V) -> tuple[float, ...]:
    """The distinct labels of a multiclass dataset, sorted (the one-vs-rest choices)."""
    import numpy as np

    return tuple(float(v) for v in np.unique(np.asarray(_ds.y, dtype=float)))


@scoped.cache_resource(max_entries=4, show_spinner=False)
def reproduction_figures(seed: int, n_trials: int, _v: str = V) -> dict:
    """The quick reproduction of the paper's Figures 1 (least squares) and 2 (logistic)."""
    from dp_core.mechanisms.input_perturbation import figures as ipf

    rep = reproduction(seed, n_trials)
    return {m: ipf.reproduction_figure(rep[rep["model"] == m], model=m) for m in ("least_squares", "logistic_taylor")}
