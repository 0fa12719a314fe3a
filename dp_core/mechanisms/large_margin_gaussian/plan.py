"""The large-margin Gaussian page's plan: its cached computations and its background sweeps (no Streamlit).

Parameters starting with ``_`` are not cache keys; the quick pass is the prefix of the full run.
docs/large_margin_gaussian.md §"reproduce.py, compare.py, plan.py"."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pandas as pd

from ...experiments import summarize
from ...plugin import Block, cached, staged_blocks
from ...plugin import latest as _latest
from ...rng import keyed_seed
from . import experiments as ex
from .bounds import bounds_for_mode, noise_radius, printed_radius
from .mechanism import LargeMarginGaussian, release_many
from .model import predict, preprocess
from .privacy import PrivacyAccounting, sample_radial

#: Trials of the quick pass shown while the full sweeps run.
QUICK_TRIALS = 10


# -- the first screen -------------------------------------------------------------------------------
@cached(max_entries=32)
def task(name: str, fingerprint: str, n_train: int | None, k: int, seed: int, _ds) -> ex.ClassificationTask:
    return ex.make_task(_ds, n_train=n_train, k=k, seed=seed)


@cached(max_entries=64)
def accounting(config: LargeMarginGaussian, n: int, d: int, C: int) -> dict:
    """The :class:`PrivacyAccounting` of ``config`` (finite ε) as a dict."""
    return config.accounting(n=n, d=d, n_classes=C).as_dict()


@cached(max_entries=64)
def nonprivate_accuracy(task_key: tuple, fingerprint: str, base: LargeMarginGaussian, seed: int, _task) -> float:
    """Test accuracy of the classifier trained without privacy (``base`` at ε = ∞, no extra regularisation)."""
    return ex.nonprivate_accuracy(_task, base)


@cached(max_entries=64, spinner="Fitting the classifiers...")
def one_draw(task_key: tuple, fingerprint: str, config: LargeMarginGaussian, draw: int, seed: int, _task) -> dict:
    """One private draw of ``config`` (the ``draw``-th child of ``seed``) beside the non-private fit.

    For the page's comparison only: the dict mixes the release (``phi``, ``unbounded``) with values that are NOT FOR
    PUBLICATION (``phi_star``, ``noise_norm``, ``excess``, ``pathwise_bound``, ``converged``, ...) from
    :class:`~dp_core.mechanisms.large_margin_gaussian.ReleaseDiagnostics`."""
    t = _task
    b, diag = release_many(
        t.X_train, t.y_train, config, n_runs=1, seed=keyed_seed(seed, draw), n_classes=t.n_classes, diagnostics=True
    )
    pred_p = b.predictions(t.X_test)[0]
    pred_np = predict(diag.phi_star, preprocess(t.X_test, scale=diag.data.scale))
    off = bool(b.unbounded[0])
    return {
        "phi_star": diag.phi_star,
        "phi": None if off else b.phi[0],
        "unbounded": off,
        "scale": diag.data.scale,
        "noise_norm": float(diag.noise_norm[0]),
        "excess": float(diag.excess[0]),
        "pathwise_bound": float(diag.pathwise_bound[0]),
        "acc_np": float(np.mean(pred_np == t.y_test)),
        "acc_p": float("nan") if off else float(np.mean(pred_p == t.y_test)),
        "agreement": float("nan") if off else float(np.mean(pred_p == pred_np)),
        "phi_star_norm": float(np.sqrt(np.sum(diag.phi_star**2))),
        "converged": bool(diag.converged[0]),
    }


@cached(max_entries=32, resource=True)
def regions_figure(task_key: tuple, fingerprint: str, config: LargeMarginGaussian, draw: int, seed: int, _draw, _task):
    """The first screen's decision regions of draw ``draw`` beside the noise-free fit, kept as the stored figure
    (``resource``: unpickling a Plotly figure costs about 0.15 s).
    docs/large_margin_gaussian.md §"reproduce.py, compare.py, plan.py"."""
    from .figures import decision_regions_figure

    return decision_regions_figure(
        [("trained without noise", _draw["phi_star"]), ("private release", _draw["phi"])],
        _task.X_train,
        _task.y_train,
        scale=_draw["scale"],
    )


# -- the sweeps (background blocks and cached calls) ---------------------------------------------------
def accuracy(
    task, base, epsilons: tuple, modes: tuple, n_trials: int, seed: int, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-trial table and summary of test accuracy, agreement and excess against ε, per mode."""
    df = ex.accuracy_sweep(
        task, epsilons=list(epsilons), modes=list(modes), base=base, n_trials=n_trials, seed=seed, progress=progress
    )
    s = summarize(
        df, by=["method", "epsilon"], values=["accuracy", "agreement", "excess", "unbounded", "pathwise_bound"]
    )
    return df, s


def excess_n(
    task, base, mode: str, ns: tuple, delta: float, n_trials: int, seed: int, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Summary of the excess risk against n and the bounds at each n."""
    trials, bounds = ex.excess_vs_n(
        task, ns=list(ns), mode=mode, base=base, delta=delta, n_trials=n_trials, seed=seed, progress=progress
    )
    s = summarize(trials, by=["method", "n"], values=["excess", "pathwise_bound", "test_loss_excess"])
    return s, bounds


def regularisation(
    task, base, parameter: str, values: tuple, n_trials: int, seed: int, progress: Callable | None = None
) -> pd.DataFrame:
    """Summary of accuracy and excess against μ or h."""
    df = ex.regularisation_sweep(
        task, parameter=parameter, values=list(values), base=base, n_trials=n_trials, seed=seed, progress=progress
    )
    return summarize(df, by=["method", "value"], values=["accuracy", "excess", "pathwise_bound", "nonprivate_accuracy"])


def n_grid(n: int, n_classes: int) -> tuple[int, ...]:
    """Training-set sizes of the excess-against-n sweep: the usual grid up to ``n`` (at least two rows per class),
    ending at ``n`` itself."""
    ns = tuple(v for v in (100, 200, 500, 1000, 2000, 5000, 10000, 20000) if 2 * n_classes <= v <= n)
    return ns if n in ns else ns + (int(n),)


def sweep_blocks(
    task,
    base,
    *,
    epsilons: tuple,
    modes: tuple,
    exc_mode: str,
    ns: tuple,
    delta: float,
    mu_grid: tuple,
    h_grid: tuple,
    n_trials: int,
    seed: int,
    quick: bool = True,
) -> list[Block]:
    """The page's four sweeps; with ``quick``, first a pass of :data:`QUICK_TRIALS` trials of each.

    Block names are ``"<stage>:<sweep>"`` with stage ``quick`` or ``full`` and sweep ``accuracy``, ``excess_n``, ``mu``
    or ``h``. Weights are the sweeps' trial counts times their grid sizes."""
    sweeps = [
        ("accuracy", accuracy, (task, base, epsilons, modes), len(epsilons) * (len(modes) + 1)),
        ("excess_n", excess_n, (task, base, exc_mode, ns, delta), len(ns)),
        ("mu", regularisation, (task, base, "mu", mu_grid), len(mu_grid)),
        ("h", regularisation, (task, base, "h", h_grid), len(h_grid)),
    ]
    blocks = [
        dataclasses.replace(b, name=f"{b.name}:{sweep}")
        for sweep, fn, args, weight in sweeps
        for b in staged_blocks(
            fn, args, {"seed": seed}, n_trials, quick_trials=QUICK_TRIALS, quick=quick, weight=weight
        )
    ]
    return sorted(blocks, key=lambda b: b.name.startswith("full:"))  # every quick pass first


def latest(results: dict, sweep: str) -> tuple[object, str] | None:
    """The most refined finished result of ``sweep``: ``(value, stage)``, or ``None`` when none has finished."""
    return _latest({k.split(":")[0]: v for k, v in results.items() if k.endswith(f":{sweep}")})


# -- the flaws and the bounds -------------------------------------------------------------------------
@cached(max_entries=64)
def unbounded_share(d: int, n: int, lam: float, epsilons: tuple, n_draws: int, seed: int) -> pd.DataFrame:
    return ex.unbounded_share(d=d, n=n, lam=lam, epsilons=list(epsilons), n_draws=n_draws, seed=seed)


@cached(max_entries=32, spinner="Measuring the shared-noise leak...")
def leak(task_key: tuple, fingerprint: str, eps: float, lam: float, h: float, n_draws: int, seed: int, _task):
    return ex.leak_demo(_task, epsilon=eps, lam=lam, h=h, n_draws=n_draws, seed=seed)


#: The bounds table's rows: key of :func:`bounds_for_mode`'s tiers -> (label, key of the probability it holds with).
_BOUND_ROWS = {
    "thm52": ("Thm 5.2: J(Φᵖ) − J(Φ*)", "probability"),
    "thm53_total": ("Thm 5.3: L̃(Φᵖ) − L̃(Φ*) (total)", "probability"),
    "u52": ("U5.2: J(Φᵖ) − J(Φ*)", "u52_probability"),
    "u53_total": ("U5.3: L̃(Φᵖ) − L̃(Φ*) (total)", "u53_probability"),
    "c52_exact": ("C5.2 (exact Gamma radius): J(Φᵖ) − J(Φ*)", "c52_probability"),
    "c52_union": ("C5.2 (union radius): J(Φᵖ) − J(Φ*)", "c52_probability"),
    "expected_pathwise": ("expected pathwise bound on E[J(Φᵖ) − J(Φ*)]", ""),
    "c53_A": ("C5.3 term A (trace)", ""),
    "c53_B": ("C5.3 term B (Frobenius, uses ‖Φ*‖_F)", ""),
    "c53_E": ("C5.3 term E (2 × C5.2)", ""),
    "c53_S": ("C5.3 term S (sample; heuristic G² scaling)", ""),
    "c53_total": ("C5.3: L̃(Φᵖ) − L̃(Φ*) (total)", "c53_probability"),
}


@cached(max_entries=64)
def bounds_table(acc_dict: dict, delta: float, phi_star_norm: float) -> pd.DataFrame:
    b = bounds_for_mode(PrivacyAccounting(**acc_dict), delta=delta, phi_star_norm=phi_star_norm)
    rows = []
    for block in (b[tier] for tier in ("printed", "tier_u", "tier_c") if tier in b):
        for key, (label, prob) in _BOUND_ROWS.items():
            if key in block:
                p = block.get(prob, None)
                held = "mean" if key == "expected_pathwise" else ("—" if p is None else f"≥ {p:.3g}")
                rows.append(
                    {"tier": block["label"], "bound": label, "value": block[key], "holds with probability": held}
                )
    return pd.DataFrame(rows)


@cached(max_entries=32)
def noise_samples(dim: int, beta: float, n_draws: int, seed: int) -> np.ndarray:
    return np.linalg.norm(sample_radial(dim, beta, rng=seed, size=n_draws), axis=1)


def radii(dim: int, beta: float, delta: float, d: int, eps_noise: float, shared: bool) -> dict:
    out = {"exact": noise_radius(dim, beta, delta, kind="exact"), "union": noise_radius(dim, beta, delta, kind="union")}
    if shared:
        out["printed (Lemma 4)"] = printed_radius(d, eps_noise, delta)
    return out
