"""The page plan of label-DP by aggregation (``ui.cached.plan("label-dp-bags")``): cached calls and sweep blocks.
Details: docs/label_dp_bags.md §"plan (module)".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ... import __version__ as V
from ...plugin import Block, cached, staged_blocks
from . import bounds as acc
from . import figures as lbf
from .batch import PreparedData, utility_sweep
from .defaults import AutoBags, BagSuggestion, default_bags, suggest_bag_params, utility_min_bags
from .diagnostics import bag_residuals, data_conditions, first_screen_utility, prepare_dataset
from .diagnostics import utility_requirement as _utility_requirement


@cached(max_entries=32, spinner="Preparing the data...")
def prepared(name: str, fingerprint: str, label_range, b1: float, seed: int, _ds, _v: str = V) -> PreparedData:
    return prepare_dataset(_ds, label_range=label_range, b1=b1, seed=seed)


@cached(max_entries=32, spinner=False)
def data_constants(name: str, fingerprint: str, label_range, b1: float, seed: int, _data, _v: str = V) -> dict:
    """The data constants of wtd-LBA (rank, gamma-hat, lambda*; once per dataset), without the (k, m) warnings."""
    return data_conditions(_data.X, _data.y, b1)


@cached(max_entries=64, spinner=False)
def residuals(
    name: str, fingerprint: str, label_range, b1: float, seed: int, k: int, m: int, _data, _v: str = V
) -> np.ndarray:
    return bag_residuals(_data.X, _data.y, m=m, k=k, rng=seed)


@cached(max_entries=256, spinner="Computing the accounting...")
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
    kw = dict(n=n, k=k, m=m, b1=b1, rho=rho, noise_std=noise_std, d=d, b2=b2, gamma=gamma, lam=lam)
    return acc.accounting_summary(variant=variant, epsilon=eps, target_delta=target_delta, **kw)


@cached(max_entries=64, spinner="Computing δ against k...")
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
    kw = dict(m=m, n=n, b1=b1, rho=rho, noise_std=noise_std, d=d, b2=b2, gamma=gamma, lam=lam)
    return lbf.delta_vs_k_table(mechanism=mechanism, epsilons=epsilons, **kw)


@cached(max_entries=64, spinner="Computing the ε–δ profile...")
def eps_profile(n: int, k: int, m: int, rho: float, b1: float, noise_std: float, _v: str = V) -> pd.DataFrame:
    return lbf.eps_profile_table(n=n, k=k, m=m, rho=rho, b1=b1, noise_std=noise_std)


@cached(max_entries=64, spinner=False)
def min_k_table(
    mechanism: str, epsilons: tuple, target_delta: float, n: int, m: int, params: tuple, _v: str = V
) -> pd.DataFrame:
    return lbf.min_k_table(mechanism=mechanism, epsilons=epsilons, target_delta=target_delta, n=n, m=m, **dict(params))


@cached(max_entries=64, spinner=False)
def utility_requirement(
    name: str, fingerprint: str, label_range, b1: float, seed: int, k: int, _data, _v: str = V
) -> dict:
    return _utility_requirement(_data, k=k)


@cached(max_entries=64, spinner="Choosing bag sizes for these data...", upload_independent=True)
def bag_suggestion(n: int, d: int, eps: float, rho: float, _v: str = V) -> BagSuggestion:
    """Feasible, non-vacuous (k, m) for ``n`` training rows (:func:`suggest_bag_params`), with at least
    :func:`utility_min_bags` bags so that the regression on the bags keeps a useful model."""
    return suggest_bag_params(int(n), epsilon=float(eps), d=int(d), rho=float(rho), min_bags=utility_min_bags(d))


@cached(max_entries=64, spinner="Choosing bag sizes for these data...", upload_independent=True)
def auto_bags(n: int, d: int, delta: float, rho: float, _v: str = V) -> AutoBags:
    """The page's default (k, m): the comparison's rule from the data size at the sidebar's δ (:func:`default_bags`)."""
    return default_bags(int(n), d=int(d), delta=float(delta), rho=float(rho))


@cached(max_entries=128, spinner="Accounting at the sidebar's δ...", upload_independent=True)
def min_eps(delta: float, n: int, k: int, m: int, rho: float, b1: float, noise_std: float, _v: str = V) -> float | None:
    """Smallest ε the exact profile of noisy-wtd-LLP proves at ``delta`` (:func:`acc.llp_exact_min_eps`)."""
    e = acc.llp_exact_min_eps(float(delta), int(n), int(k), int(m), float(rho), float(b1), noise_std=float(noise_std))
    return None if e is None else float(e)


#: Trials of the first screen's measured utility (a quick, cached run; the sweeps below use the sidebar's trials).
FIRST_TRIALS = 20


@cached(max_entries=64, spinner="Measuring the utility...")
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
    kw = dict(k=k, m=m, rho=rho, noise_std=noise_std, seed=seed, epsilon=eps, delta=delta)
    return first_screen_utility(_data, variant=variant, n_trials=FIRST_TRIALS, **kw)


# -- figures built from the cached tables (stored, not copied: st.plotly_chart only reads them) --------------
@cached(max_entries=64, spinner=False, upload_independent=True, resource=True)
def eps_profile_fig(
    n: int, k: int, m: int, rho: float, b1: float, noise_std: float, target_delta: float, _table, _v: str = V
) -> go.Figure:
    """The ε–δ figure of ``_table`` = :func:`eps_profile` ``(n, k, m, rho, b1, noise_std)``."""
    return lbf.eps_profile_figure(_table, target_delta=target_delta)


@cached(max_entries=64, spinner=False, upload_independent=True, resource=True)
def delta_k_fig(args: tuple, n: int, m: int, k: int, target_delta: float, _table, _v: str = V) -> go.Figure:
    """The δ-against-k figure of ``_table`` = :func:`delta_k` ``(*args)``."""
    return lbf.delta_vs_k_figure(_table, n=n, m=m, k_current=k, target_delta=target_delta)


@cached(max_entries=8, spinner=False, upload_independent=True, resource=True)
def illustration(seed: int, rho: float, _v: str = V) -> tuple[pd.DataFrame, go.Figure]:
    ill = lbf.bag_illustration(seed=seed, rho=rho)
    return ill, lbf.bag_illustration_figure(ill)


@cached(max_entries=64, spinner=False, upload_independent=True, resource=True)
def terms_fig(summary_args: tuple, _summary: dict, _v: str = V) -> go.Figure:
    """The failure-terms figure of ``_summary`` = :func:`summary` ``(*summary_args)``."""
    return lbf.terms_figure(lbf.terms_table(_summary))


@cached(max_entries=64, spinner=False, resource=True)
def first_fig(
    name: str, fingerprint: str, utility_args: tuple, method: str | None, _util: dict, _v: str = V
) -> go.Figure:
    """The first screen's bar chart of ``_util`` = :func:`first_utility` ``(name, fingerprint, *utility_args, _data)``;
    ``method`` is the bars' method key (a refuted one is drawn apart, :func:`lbf.first_screen_figure`)."""
    return lbf.first_screen_figure(_util, mechanism_label="With bags", method=method)


# -- the utility sweeps against k and m: background blocks, quick pass first ------------------------------
#: Trials of the quick pass shown while the full sweep runs.
QUICK_TRIALS = 5


def sweep(data, points: tuple, n_trials: int, seed: int, eps: float, delta: float, noise_std: float, progress=None):
    """Per-trial utility table over the grid ``points`` (tuples of sorted ``(name, value)`` pairs)."""
    pts = [dict(p) for p in points]
    return utility_sweep(
        data, pts, n_trials=n_trials, seed=seed, epsilon=eps, delta=delta, noise_std=noise_std, progress=progress
    )


def sweep_blocks(
    data, points: tuple, *, n_trials: int, seed: int, eps: float, delta: float, noise_std: float, quick: bool = True
) -> list[Block]:
    """The sweep, with ``quick`` first a pass of :data:`QUICK_TRIALS` trials; blocks ``quick`` and ``full``."""
    args = (data, points)
    kwargs = dict(seed=seed, eps=eps, delta=delta, noise_std=noise_std)
    return staged_blocks(sweep, args, kwargs, n_trials, quick_trials=QUICK_TRIALS, quick=quick, weight=len(points))
