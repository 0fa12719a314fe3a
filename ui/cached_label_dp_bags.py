"""Cached wrappers of the label-DP-by-aggregation page (pure dp_core calls).

Keys are scalars, tuples, the dataset's name and fingerprint and ``dp_core.__version__``; data
objects are passed with a leading underscore (not hashed). No Streamlit object (progress bar, callback,
container) is ever passed in: a cached function is pure and its spinner is the cache's own ``show_spinner``.
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import dp_core
from dp_core.mechanisms import label_dp_bags as lb
from dp_core.mechanisms.label_dp_bags import bounds as acc
from dp_core.mechanisms.label_dp_bags import figures as lbf
from dp_core.mechanisms.label_dp_bags.defaults import AutoBags, default_bags

from . import cached_scope as scoped

V = dp_core.__version__


@scoped.cache_data(max_entries=32, show_spinner="Preparing the data...")
def prepared(name: str, fingerprint: str, label_range, b1: float, seed: int, _ds, _v: str = V) -> lb.PreparedData:
    return lb.prepare_dataset(_ds, label_range=label_range, b1=b1, seed=seed)


@scoped.cache_data(max_entries=32, show_spinner=False)
def _conditions(name: str, fingerprint: str, label_range, b1: float, seed: int, _data, _v: str = V) -> dict:
    return lb.data_conditions(_data.X, _data.y, b1)


def conditions(name: str, fingerprint: str, label_range, b1: float, seed: int, k: int, m: int, _data) -> dict:
    """The data constants of wtd-LBA (computed once per dataset) with the warnings of this (k, m)."""
    c = _conditions(name, fingerprint, label_range, b1, seed, _data)
    return {**c, "warnings": c["warnings"] + lb.bag_warnings(c["n"], c["rank"], k=k, m=m)}


@scoped.cache_data(max_entries=64, show_spinner=False)
def residuals(
    name: str, fingerprint: str, label_range, b1: float, seed: int, k: int, m: int, _data, _v: str = V
) -> np.ndarray:
    return lb.bag_residuals(_data.X, _data.y, m=m, k=k, rng=seed)


@scoped.cache_data(max_entries=256, show_spinner="Computing the accounting...")
def summary(
    variant: str,
    eps: float,
    n: int,
    k: int,
    m: int,
    b1: float,
    rho: float,
    noise_std: float,
    d,
    b2,
    gamma,
    lam,
    target_delta: float,
    _v: str = V,
) -> dict:
    return acc.accounting_summary(
        variant=variant,
        epsilon=eps,
        n=n,
        k=k,
        m=m,
        b1=b1,
        rho=rho,
        noise_std=noise_std,
        d=d,
        b2=b2,
        gamma=gamma,
        lam=lam,
        target_delta=target_delta,
    )


@scoped.cache_data(max_entries=64, show_spinner="Computing δ against k...")
def delta_k(
    mechanism: str,
    epsilons: tuple,
    m: int,
    n: int,
    b1: float,
    rho: float,
    noise_std: float,
    d,
    b2,
    gamma,
    lam,
    _v: str = V,
) -> pd.DataFrame:
    return lbf.delta_vs_k_table(
        mechanism=mechanism,
        epsilons=epsilons,
        m=m,
        n=n,
        b1=b1,
        rho=rho,
        noise_std=noise_std,
        d=d,
        b2=b2,
        gamma=gamma,
        lam=lam,
    )


@scoped.cache_data(max_entries=64, show_spinner="Computing the ε–δ profile...")
def eps_profile(n: int, k: int, m: int, rho: float, b1: float, noise_std: float, _v: str = V) -> pd.DataFrame:
    return lbf.eps_profile_table(n=n, k=k, m=m, rho=rho, b1=b1, noise_std=noise_std)


@scoped.cache_data(max_entries=64, show_spinner=False)
def min_k_table(
    mechanism: str, epsilons: tuple, target_delta: float, n: int, m: int, params: tuple, _v: str = V
) -> pd.DataFrame:
    return lbf.min_k_table(mechanism=mechanism, epsilons=epsilons, target_delta=target_delta, n=n, m=m, **dict(params))


@scoped.cache_data(max_entries=32, show_spinner="Running the mechanisms...")
def utility(
    name: str,
    fingerprint: str,
    label_range,
    b1: float,
    split_seed: int,
    points: tuple,
    trials: int,
    seed: int,
    eps: float,
    delta: float,
    noise_std: float,
    _data,
    _v: str = V,
) -> pd.DataFrame:
    pts = [dict(p) for p in points]
    return lb.utility_sweep(_data, pts, n_trials=trials, seed=seed, epsilon=eps, delta=delta, noise_std=noise_std)


@scoped.cache_data(max_entries=64, show_spinner=False)
def utility_requirement(
    name: str, fingerprint: str, label_range, b1: float, seed: int, k: int, _data, _v: str = V
) -> dict:
    return lb.utility_requirement(_data, k=k)


@scoped.cache_data(upload_independent=True, max_entries=64, show_spinner="Choosing bag sizes for these data...")
def bag_suggestion(n: int, d: int, eps: float, rho: float, _v: str = V) -> lb.BagSuggestion:
    """Feasible, non-vacuous (k, m) for ``n`` training rows (:func:`lb.suggest_bag_params`), with at least
    :func:`lb.utility_min_bags` bags so that the regression on the bags keeps a useful model."""
    return lb.suggest_bag_params(int(n), epsilon=float(eps), d=int(d), rho=float(rho), min_bags=lb.utility_min_bags(d))


@scoped.cache_data(upload_independent=True, max_entries=64, show_spinner="Choosing bag sizes for these data...")
def auto_bags(n: int, d: int, delta: float, rho: float, _v: str = V) -> AutoBags:
    """The page's default (k, m): the comparison's rule from the data size at the sidebar's δ (:func:`default_bags`)."""
    return default_bags(int(n), d=int(d), delta=float(delta), rho=float(rho))


@scoped.cache_data(upload_independent=True, max_entries=128, show_spinner="Accounting at the sidebar's δ...")
def min_eps(delta: float, n: int, k: int, m: int, rho: float, b1: float, noise_std: float, _v: str = V) -> float | None:
    """Smallest ε the exact profile of noisy-wtd-LLP proves at ``delta`` (:func:`acc.llp_exact_min_eps`)."""
    e = acc.llp_exact_min_eps(float(delta), int(n), int(k), int(m), float(rho), float(b1), noise_std=float(noise_std))
    return None if e is None else float(e)


#: Trials of the first screen's measured utility (a quick, cached run; the sweeps below use the sidebar's trials).
FIRST_TRIALS = 20


@scoped.cache_data(max_entries=64, show_spinner="Measuring the utility...")
def first_utility(
    name: str,
    fingerprint: str,
    label_range,
    b1: float,
    split_seed: int,
    variant: str,
    k: int,
    m: int,
    rho: float,
    noise_std: float,
    seed: int,
    eps: float,
    delta: float,
    _data,
    _v: str = V,
) -> dict:
    """Measured test MSE of ``variant`` at (k, m, rho) beside non-private, noisy labels and the trivial model."""
    return lb.first_screen_utility(
        _data,
        variant=variant,
        k=k,
        m=m,
        rho=rho,
        noise_std=noise_std,
        n_trials=FIRST_TRIALS,
        seed=seed,
        epsilon=eps,
        delta=delta,
    )


# -- figures built from the cached tables (stored, not copied: st.plotly_chart only reads them) --------------
@scoped.cache_resource(upload_independent=True, max_entries=64, show_spinner=False)
def eps_profile_fig(
    n: int, k: int, m: int, rho: float, b1: float, noise_std: float, target_delta: float, _v: str = V
) -> go.Figure:
    return lbf.eps_profile_figure(eps_profile(n, k, m, rho, b1, noise_std), target_delta=target_delta)


@scoped.cache_resource(upload_independent=True, max_entries=64, show_spinner=False)
def delta_k_fig(args: tuple, n: int, m: int, k: int, target_delta: float, _v: str = V) -> go.Figure:
    """The δ-against-k figure; ``args`` are those of :func:`delta_k`."""
    return lbf.delta_vs_k_figure(delta_k(*args), n=n, m=m, k_current=k, target_delta=target_delta)


@scoped.cache_resource(upload_independent=True, max_entries=8, show_spinner=False)
def illustration(seed: int, rho: float, _v: str = V) -> tuple[pd.DataFrame, go.Figure]:
    ill = lbf.bag_illustration(seed=seed, rho=rho)
    return ill, lbf.bag_illustration_figure(ill)


@scoped.cache_resource(upload_independent=True, max_entries=64, show_spinner=False)
def terms_fig(summary_args: tuple, _v: str = V) -> go.Figure:
    """The failure-terms figure of the accounting :func:`summary` ``(*summary_args)``."""
    return lbf.terms_figure(lbf.terms_table(summary(*summary_args)))


@scoped.cache_resource(max_entries=64, show_spinner=False)
def first_fig(
    name: str, fingerprint: str, utility_args: tuple, _data, method: str | None = None, _v: str = V
) -> go.Figure:
    """The first screen's bar chart of :func:`first_utility` ``(name, fingerprint, *utility_args, _data)``;
    ``method`` is the bars' method key (a refuted one is drawn apart, :func:`lbf.first_screen_figure`)."""
    util = first_utility(name, fingerprint, *utility_args, _data)
    return lbf.first_screen_figure(util, mechanism_label="With bags", method=method)
