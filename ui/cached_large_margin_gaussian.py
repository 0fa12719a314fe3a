"""Cached wrappers of the large-margin Gaussian classifier page (pure dp_core calls).

Keys are scalars, frozen configs, the dataset's name and fingerprint and ``dp_core.__version__``;
the data itself is passed unhashed (leading underscore). Cached functions are pure: no Streamlit element
is created inside them and none is passed in (the spinner is the cache's ``show_spinner``).
Demo data go to the server's shared cache, an upload only to this session's memo (``ui.cached_scope``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import dp_core
from dp_core.mechanisms import large_margin_gaussian as lmg
from dp_core.mechanisms.large_margin_gaussian.bounds import bounds_for_mode, noise_radius, printed_radius
from dp_core.rng import keyed_seed

from . import cached_scope as scoped
from . import jobs_large_margin_gaussian as jobs

V = dp_core.__version__


@scoped.cache_data(max_entries=32, show_spinner=False)
def task(
    name: str, fingerprint: str, n_train: int | None, k: int, seed: int, _ds, _v: str = V
) -> lmg.ClassificationTask:
    return lmg.make_task(_ds, n_train=n_train, k=k, seed=seed)


def suggestion(name: str, d: int, n: int, n_classes: int) -> lmg.SuggestedSettings:
    """The dataset's suggested projection dimension and regulariser (cheap; not cached)."""
    return lmg.suggest_settings(name, d, n, n_classes)


def _task_key(t: lmg.ClassificationTask) -> tuple:
    return (t.name, t.n, t.d, t.n_classes)


@scoped.cache_data(max_entries=64, show_spinner=False)
def accounting(
    eps: float,
    n: int,
    d: int,
    C: int,
    lam: float,
    h: float,
    mu,
    mode: str,
    semantics: str,
    jacobian: str,
    psd: bool,
    _v: str = V,
) -> dict:
    acc = lmg.privacy_params(
        epsilon=eps,
        n=n,
        d=d,
        n_classes=C,
        lam=lam,
        h=h,
        mu=mu,
        mode=mode,
        semantics=semantics,
        jacobian=jacobian,
        psd=psd,
    )
    return acc.as_dict()


@scoped.cache_data(max_entries=64, show_spinner=False)
def nonprivate_accuracy(
    task_key: tuple, fingerprint: str, base: lmg.LargeMarginGaussian, seed: int, _task, _v: str = V
) -> float:
    """Test accuracy of the classifier trained without privacy (``base`` at ε = ∞, no extra regularisation)."""
    return lmg.nonprivate_accuracy(_task, base)


@scoped.cache_data(max_entries=64, show_spinner="Fitting the classifiers...")
def one_draw(
    task_key: tuple, fingerprint: str, config: lmg.LargeMarginGaussian, draw: int, seed: int, _task, _v: str = V
) -> dict:
    """One private draw of ``config`` (the ``draw``-th child of ``seed``) beside the non-private fit.

    For the page's comparison only: the dict mixes the release (``phi``, ``unbounded``) with values that are
    NOT FOR PUBLICATION (``phi_star``, ``noise_norm``, ``excess``, ``pathwise_bound``, ``converged``, ...) from
    :class:`~dp_core.mechanisms.large_margin_gaussian.ReleaseDiagnostics`.
    """
    t = _task
    ss = keyed_seed(seed, draw)
    b, diag = lmg.release_many(t.X_train, t.y_train, config, n_runs=1, seed=ss, n_classes=t.n_classes, diagnostics=True)
    pred_p = b.predictions(t.X_test)[0]
    Zt = lmg.preprocess(t.X_test, scale=diag.data.scale)
    pred_np = lmg.predict(diag.phi_star, Zt)
    return {
        "phi_star": diag.phi_star,
        "phi": None if b.unbounded[0] else b.phi[0],
        "unbounded": bool(b.unbounded[0]),
        "scale": diag.data.scale,
        "noise_norm": float(diag.noise_norm[0]),
        "excess": float(diag.excess[0]),
        "pathwise_bound": float(diag.pathwise_bound[0]),
        "acc_np": float(np.mean(pred_np == t.y_test)),
        "acc_p": float("nan") if b.unbounded[0] else float(np.mean(pred_p == t.y_test)),
        "agreement": float("nan") if b.unbounded[0] else float(np.mean(pred_p == pred_np)),
        "phi_star_norm": float(np.sqrt(np.sum(diag.phi_star**2))),
        "converged": bool(diag.converged[0]),
    }


@scoped.cache_resource(max_entries=32, show_spinner=False)
def regions_figure(
    task_key: tuple, fingerprint: str, config: lmg.LargeMarginGaussian, draw: int, seed: int, _draw, _task, _v: str = V
):
    """The first screen's decision regions of draw ``draw`` (the :func:`one_draw` with the same key) beside the
    noise-free fit; cached because drawing the two class maps costs more than the rest of a rerun.

    Kept as the stored, never-modified figure (``cache_resource``): ``cache_data`` would unpickle a copy on every
    hit, and unpickling a Plotly figure re-validates it and its template (about 0.15 s, most of a new session's
    first run of this page)."""
    from dp_core.mechanisms.large_margin_gaussian import figures as lmf

    return lmf.decision_regions_figure(
        [("trained without noise", _draw["phi_star"]), ("private release", _draw["phi"])],
        _task.X_train,
        _task.y_train,
        scale=_draw["scale"],
    )


@scoped.cache_data(max_entries=16, show_spinner="Measuring accuracy against ε...")
def accuracy_sweep(
    task_key: tuple,
    fingerprint: str,
    base: lmg.LargeMarginGaussian,
    epsilons: tuple,
    modes: tuple,
    n_trials: int,
    seed: int,
    _task,
    _v: str = V,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    return jobs.accuracy(_task, base, epsilons, modes, n_trials, seed)


@scoped.cache_data(max_entries=16, show_spinner="Measuring excess risk against n...")
def excess_vs_n(
    task_key: tuple,
    fingerprint: str,
    base: lmg.LargeMarginGaussian,
    mode: str,
    ns: tuple,
    delta: float,
    n_trials: int,
    seed: int,
    _task,
    _v: str = V,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    return jobs.excess_n(_task, base, mode, ns, delta, n_trials, seed)


@scoped.cache_data(max_entries=16, show_spinner="Measuring the regularisation trade-off...")
def regularisation(
    task_key: tuple,
    fingerprint: str,
    base: lmg.LargeMarginGaussian,
    parameter: str,
    values: tuple,
    n_trials: int,
    seed: int,
    _task,
    _v: str = V,
) -> pd.DataFrame:
    return jobs.regularisation(_task, base, parameter, values, n_trials, seed)


@scoped.cache_data(max_entries=64, show_spinner=False)
def unbounded_share(d: int, n: int, lam: float, epsilons: tuple, n_draws: int, seed: int, _v: str = V) -> pd.DataFrame:
    return lmg.unbounded_share(d=d, n=n, lam=lam, epsilons=list(epsilons), n_draws=n_draws, seed=seed)


@scoped.cache_data(max_entries=32, show_spinner="Measuring the shared-noise leak...")
def leak(
    task_key: tuple, fingerprint: str, eps: float, lam: float, h: float, n_draws: int, seed: int, _task, _v: str = V
) -> pd.DataFrame:
    return lmg.leak_demo(_task, epsilon=eps, lam=lam, h=h, n_draws=n_draws, seed=seed)


@scoped.cache_data(max_entries=64, show_spinner=False)
def bounds_table(acc_dict: dict, delta: float, phi_star_norm: float, _v: str = V) -> pd.DataFrame:
    acc = lmg.PrivacyAccounting(**acc_dict)
    b = bounds_for_mode(acc, delta=delta, phi_star_norm=phi_star_norm)
    rows = []
    names = {
        "thm52": "Thm 5.2: J(Φᵖ) − J(Φ*)",
        "thm53_total": "Thm 5.3: L̃(Φᵖ) − L̃(Φ*) (total)",
        "u52": "U5.2: J(Φᵖ) − J(Φ*)",
        "u53_total": "U5.3: L̃(Φᵖ) − L̃(Φ*) (total)",
        "c52_exact": "C5.2 (exact Gamma radius): J(Φᵖ) − J(Φ*)",
        "c52_union": "C5.2 (union radius): J(Φᵖ) − J(Φ*)",
        "expected_pathwise": "expected pathwise bound on E[J(Φᵖ) − J(Φ*)]",
        "c53_A": "C5.3 term A (trace)",
        "c53_B": "C5.3 term B (Frobenius, uses ‖Φ*‖_F)",
        "c53_E": "C5.3 term E (2 × C5.2)",
        "c53_S": "C5.3 term S (sample; heuristic G² scaling)",
        "c53_total": "C5.3: L̃(Φᵖ) − L̃(Φ*) (total)",
    }
    probs = {
        "thm52": "probability",
        "thm53_total": "probability",
        "u52": "u52_probability",
        "u53_total": "u53_probability",
        "c52_exact": "c52_probability",
        "c52_union": "c52_probability",
        "c53_total": "c53_probability",
    }
    for tier in ("printed", "tier_u", "tier_c"):
        if tier not in b:
            continue
        block = b[tier]
        for key, label in names.items():
            if key in block:
                p = block.get(probs.get(key, ""), None)
                rows.append(
                    {
                        "tier": block["label"],
                        "bound": label,
                        "value": block[key],
                        "holds with probability": "mean"
                        if key == "expected_pathwise"
                        else ("—" if p is None else f"≥ {p:.3g}"),
                    }
                )
    return pd.DataFrame(rows)


@scoped.cache_data(max_entries=32, show_spinner=False)
def noise_samples(dim: int, beta: float, n_draws: int, seed: int, _v: str = V) -> np.ndarray:
    return np.linalg.norm(lmg.sample_radial(dim, beta, rng=seed, size=n_draws), axis=1)


def radii(dim: int, beta: float, delta: float, d: int, eps_noise: float, shared: bool) -> dict:
    out = {"exact": noise_radius(dim, beta, delta, kind="exact"), "union": noise_radius(dim, beta, delta, kind="union")}
    if shared:
        out["printed (Lemma 4)"] = printed_radius(d, eps_noise, delta)
    return out
