"""The synthetic protocol of heavy-tailed l1 regression (figures F1-F6).
docs/l1_exponential.md §"Synthetic protocol". See docs/l1_exponential.md §"reproduce (module)"."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..._validation import check_int
from .figures import experiment_figure, fitted_slope, psi_figure, sampler_figure
from .population import HeavyTailedModel
from .simulation import (
    SimulationConfig,
    baseline_sweep,
    epsilon_sweep,
    rate_sweep,
    sampler_comparison,
    truncation_sweep,
)

__all__ = ["QUICK", "FULL", "reproduce"]

QUICK = dict(
    ns=[500, 2000, 8000],
    thetas=[1.2, 1.5, 2.0],
    epsilons=[0.1, 0.5, 2.0, 10.0],
    c_iotas=[0.1, 1.0, 10.0],
    tails=[1.5, 2.5, 4.0],
    trials=4,
    budget=1_000_000,
    eval_size=5_000,
    mala_n=1000,
    mala_chains=200,
)
FULL = dict(
    ns=[500, 1000, 2000, 5000, 10_000, 20_000],
    thetas=[1.2, 1.5, 1.8, 2.0],
    epsilons=[0.1, 0.2, 0.5, 1.0, 2.0, 5.0],
    c_iotas=[0.05, 0.1, 0.3, 1.0, 3.0, 10.0, 20.0],
    tails=[1.6, 1.8, 2.5, 4.0],
    trials=30,
    budget=20_000_000,
    eval_size=200_000,
    mala_n=2000,
    mala_chains=400,
)

#: The experiments F1-F4: (file name, experiment of :func:`.figures.experiment_figure`, sweep, its grids in P).
_EXPERIMENTS = (
    ("F1_rates", "rates", rate_sweep, ("ns", "thetas")),
    ("F2_epsilon", "epsilon", epsilon_sweep, ("epsilons",)),
    ("F3_truncation", "truncation", truncation_sweep, ("c_iotas",)),
    ("F4_baselines", "baselines", baseline_sweep, ("tails",)),
)


def _sampler_check(P: dict, quick: bool, seed: int):
    """F5: the exact grid law and MALA chains on one heavy-tailed sample in d = 2 (means and SDs)."""
    sc = sampler_comparison(P["mala_n"], chains=P["mala_chains"], seed=seed, preset="quick" if quick else "spec")
    g_mean, draws = sc["grid_mean"], sc["draws"]
    g_sd = np.sqrt(sc["probs"] @ (sc["points"] - g_mean) ** 2)
    f5 = pd.DataFrame(
        {
            "coordinate": [1, 2],
            "grid_mean": g_mean,
            "grid_sd": g_sd,
            "mcmc_mean": draws.mean(axis=0),
            "mcmc_sd": draws.std(axis=0, ddof=1),
            "mcmc_se": draws.std(axis=0, ddof=1) / np.sqrt(draws.shape[0]),
        }
    )
    return sc, f5


def reproduce(out_dir, *, quick: bool = False, seed: int = 0, n_trials: int | None = None, progress=None) -> dict:
    """Run F1-F6 and write CSV tables and self-contained HTML figures into ``out_dir``.
    See docs/l1_exponential.md §"reproduce.reproduce"."""
    P = dict(QUICK if quick else FULL)
    if n_trials is not None:
        P["trials"] = check_int("n_trials", n_trials, lo=2, hi=1000)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    model = HeavyTailedModel(d=1, design="pareto_sphere", noise="student_t", tail=1.8, noise_tail=1.8)
    base = SimulationConfig(
        model=model, n=2000, epsilon=1.0, theta=1.5, grid_budget=P["budget"], eval_size=P["eval_size"]
    )
    files: list[str] = []
    summary: dict = {
        "mechanism": "l1-exponential",
        "quick": quick,
        "seed": seed,
        "trials": P["trials"],
        "model": model.label,
        "note": "the paper has no experiments; our synthetic protocol [ours]",
    }

    def save(df: pd.DataFrame, name: str) -> None:
        path = out / f"l1_exponential_{name}.csv"
        df.to_csv(path, index=False)
        files.append(str(path))

    def save_fig(fig, name: str) -> None:
        path = out / f"l1_exponential_{name}.html"
        fig.write_html(path, include_plotlyjs=True, full_html=True)
        files.append(str(path))

    # F1-F4: each sweep's summary (and bounds) as CSV and its figure
    results = {}
    for name, which, sweep, keys in _EXPERIMENTS:
        value = results[which] = sweep(
            base, **{k: P[k] for k in keys}, n_trials=P["trials"], seed=seed, progress=progress
        )
        for table, file in zip(value if isinstance(value, tuple) else (value,), (name, name[:3] + "bounds")):
            save(table, file)
        save_fig(experiment_figure(which, value), name)
    s1 = results["rates"][0]
    summary["F1_fitted_slopes"] = {
        f"theta={t:g}": fitted_slope(g["n"], g["excess_risk_mean"]) for t, g in s1.groupby("theta")
    }
    summary["F1_reference_slopes"] = {f"theta={t:g}": -(t - 1) / t for t in P["thetas"]}
    # F5 -- sampler honesty in d = 2
    sc, f5 = _sampler_check(P, quick, seed)
    diag = sc["diagnostics"]
    save(f5, "F5_sampler")
    for j in range(2):
        save_fig(
            sampler_figure(sc["points"], sc["probs"], sc["draws"], coord=j, diagnostics=diag), f"F5_sampler_w{j + 1}"
        )
    summary["F5_diagnostics"] = {k: v for k, v in diag.items() if k != "rhat_coords"}
    # F6 -- the truncation function
    save_fig(psi_figure([1.2, 1.5, 2.0], 0.5), "F6_psi")
    summary["files"] = files
    summary["seconds"] = time.perf_counter() - t0
    (out / "l1_exponential_summary.json").write_text(json.dumps(summary, indent=2, default=float))
    files.append(str(out / "l1_exponential_summary.json"))
    return summary
