"""``calibrate``, ``simulate`` and ``reproduce`` for heavy-tailed l1 regression (Wang & Xu).
See docs/l1_exponential.md §"cli (module)"."""

from __future__ import annotations

import math

from ... import display
from ..._validation import check_count, check_epsilon, check_int, check_positive, check_seed
from ...cli._common import (
    add_dataset_arguments,
    add_param_options,
    add_seed_argument,
    dataset_from_args,
    param_values,
    reject_unused,
    reproduce_command,
)
from ...cli._registry import Command
from ...data import train_test_split
from ...experiments import summarize
from ...plugin import config_from_values, config_params
from . import bounds as B
from .grid import grid_size
from .mcmc import APPROXIMATE_LABEL, ESS_MIN, NOT_CONVERGED_ADVICE, NOT_CONVERGED_MESSAGE, RHAT_THRESHOLD, MCMCSchedule
from .mechanism import L1ExponentialRegression
from .population import HeavyTailedModel
from .settings import L1Settings
from .simulation import (
    METHOD_LABELS,
    SimulationConfig,
    clip_levels,
    real_data_experiment,
    run_simulation,
    summarize_simulation,
)
from .truncation import CONVENTION_LABELS, CONVENTIONS, convention_guarantee, kappa

MECH = "l1-exponential"


#: The declared parameters each command takes (``--field-name``, :mod:`.settings`).
_CAL_SPECS = tuple(
    s for s in config_params(L1Settings) if s.name in ("theta", "tau", "sigma", "eta", "assumption", "R", "conv", "ci")
)
_SIM = ("theta", "conv", "assumption", "ci", "R", "mode", "preset", "design", "noise", "tail", "noise_tail")
_SIM_SPECS = tuple(s for s in config_params(L1Settings) if s.name in _SIM)


def _settings(a, specs) -> L1Settings:
    """The validated settings of the command's declared options (the others at their defaults)."""
    return config_from_values(L1Settings, param_values(a, specs))


def _calibrate_args(p):
    p.add_argument("--n", type=int, required=True, help="sample size n (public)")
    p.add_argument("--d", type=int, required=True, help="dimension d")
    p.add_argument("--eps", type=float, required=True, help="pure-DP epsilon in (0, inf)")
    add_param_options(p, _CAL_SPECS)
    p.add_argument("--zeta", type=float, default=None, help="net radius (default 1/n, the paper's choice)")
    p.add_argument(
        "--grid-m",
        type=int,
        default=None,
        help="evaluate the bound for the grid net with m cells per axis (d <= 3) instead of zeta",
    )


def _calibrate_run(a):
    check_int("n", a.n, lo=1)
    check_int("d", a.d, lo=1)
    check_epsilon(a.eps, allow_inf=False)
    if a.zeta is not None:
        check_positive("zeta", a.zeta)
    if a.grid_m is not None:
        check_int("grid_m", a.grid_m, lo=1, hi=10_000)
    return _calibration(a, _settings(a, _CAL_SPECS))


def _net(a, radius: float) -> tuple[float, float]:
    """``(zeta, log N)`` of the net: the grid of ``--grid-m`` cells per axis, else a zeta-net (default 1/n)."""
    if a.grid_m is not None:
        return (2 * radius / a.grid_m) * math.sqrt(a.d) / 2, math.log(grid_size(a.d, a.grid_m, radius))
    zeta = 1.0 / a.n if a.zeta is None else a.zeta
    return zeta, B.log_net_size(a.d, zeta, 2 * radius)


def _calibration(a, s: L1Settings) -> dict:
    tau, eta_total, assumption, radius, convention = s.tau, s.eta, s.assumption, s.R, s.conv
    theta_b = 2.0 if assumption in ("A1", "A2") else s.theta
    c = B.moment_constants(assumption, tau=tau, d=a.d, theta=theta_b, sigma_theta=s.sigma, radius=radius)
    eta = eta_total / 5.0
    zeta, log_N = _net(a, radius)
    ks = {conv: kappa(a.eps, c.theta, conv) for conv in CONVENTIONS}
    k = ks[convention]
    common = B.bound_arguments(c, n=a.n, d=a.d, zeta=zeta, eta=eta, log_N=log_N, radius=radius)
    aa, bb = B.bound_coefficients(kappa_value=k, **common)
    i_star = B.iota_star(kappa_value=k, **common)
    i_paper = B.iota_paper(a.n, a.d, a.eps, eta_total, c.theta, tau, assumption)
    iota = s.ci * i_star
    U = B.explicit_bound(iota, m1=c.m1, kappa_value=k, **common)
    U_paper = B.explicit_bound(i_paper, m1=c.m1, kappa_value=k, **common)
    guar = convention_guarantee(a.eps, c.theta, convention)
    return {
        "mechanism": MECH,
        "n": a.n,
        "d": a.d,
        "eps": a.eps,
        "theta": c.theta,
        "assumption": assumption,
        "tau": tau,
        "sigma_theta": s.sigma,
        "radius": radius,
        "eta_total": eta_total,
        "eta": eta,
        "zeta": zeta,
        "log_N": log_N,
        "log_N_over_eta": log_N + math.log(1 / eta),
        **{k: getattr(c, k) for k in ("m1", "M_theta", "V_theta")},
        "convention": convention,
        "convention_label": CONVENTION_LABELS[convention],
        "guarantee": guar.label,
        "replace_one_epsilon": guar.replace_one_epsilon,
        "add_remove_epsilon": guar.add_remove_epsilon,
        "sensitivity": math.log(c.theta) / (a.n * iota),
        "sensitivity_cost": math.log(c.theta),
        "sensitivity_paper": 2 * math.log(c.theta) / (a.n * iota),
        "sensitivity_paper_note": "the paper's 2 log(theta)/(n iota) is a valid bound, loose by 2x",
        "kappa": k,
        **{f"kappa_{conv}": ks[conv] for conv in CONVENTIONS},
        "beta": k * a.n * iota,
        "a": aa,
        "b": bb,
        "iota": iota,
        "iota_star": i_star,
        "threshold": 1 / iota,
        "iota_paper": i_paper,
        "threshold_paper": 1 / i_paper,
        "bound_explicit": U.total,
        **{f"bound_{k}": getattr(U, k) for k in ("net", "truncation_bias", "discretisation_truncation")},
        **{f"bound_{k}": getattr(U, k) for k in ("statistical", "privacy")},
        "bound_explicit_iota_paper": U_paper.total,
        "bound_label": B.EXPLICIT_LABEL,
        "rate_paper": B.rate_paper(a.n, a.d, a.eps, eta_total, c.theta, tau, assumption),
        "rate_label": B.RATE_LABEL,
        "rate_slope": B.rate_slope(c.theta, assumption),
        "eps_privacy_dominates_below": B.privacy_dominance_epsilon(c.theta, convention),
    }


def _simulate_args(p):
    add_dataset_arguments(p, default="heavy_tailed")
    add_seed_argument(p)
    p.add_argument("--n", type=int, default=2000, help="sample size (synthetic; default 2000)")
    p.add_argument("--d", type=int, default=1, help="dimension (synthetic; default 1)")
    p.add_argument("--eps", type=float, default=1.0, help="epsilon (default 1)")
    add_param_options(p, _SIM_SPECS)
    for flag, what, other in (
        ("--mcmc-warmup", "MCMC warm-up steps", "--mcmc-steps"),
        ("--mcmc-steps", "MCMC sampling steps after warm-up", "--mcmc-warmup"),
    ):
        p.add_argument(flag, type=int, default=None, help=f"{what}, overriding the preset (use with {other})")
    p.add_argument("--trials", type=int, default=10, help="repetitions (default 10)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta of the DP-GD baseline B2 only")


def _schedule(a) -> MCMCSchedule | None:
    if a.mcmc_warmup is None and a.mcmc_steps is None:
        return None
    if a.mcmc_warmup is None or a.mcmc_steps is None:
        raise ValueError("--mcmc-warmup and --mcmc-steps must be given together (or neither, to use --preset).")
    return MCMCSchedule(n_adapt=a.mcmc_warmup, n_sample=a.mcmc_steps)


def _sampler_fields(statuses: list[str], message: str) -> dict:
    """Top-level status of the releases: ``exact``, ``converged`` or ``not_converged`` (any run failing)."""
    if not statuses or all(s == "exact" for s in statuses):
        return {"sampler_status": "exact", "sampler_message": "exact sampler (grid): no MCMC approximation"}
    status = "not_converged" if "not_converged" in statuses else "converged"
    if status == "not_converged":
        message = message or f"{NOT_CONVERGED_MESSAGE}. {NOT_CONVERGED_ADVICE}"
    thresholds = {"rhat_max": RHAT_THRESHOLD, "ess_min": ESS_MIN}
    return {"sampler_status": status, "sampler_message": message, "sampler_thresholds": thresholds}


def _method_rows(summary, columns: tuple) -> dict:
    """``{method: {label, *columns, n_trials}}`` of a summary table (one row per method)."""
    return {
        r["method"]: {"label": METHOD_LABELS[r["method"]], **{c: r[c] for c in columns}, "n_trials": int(r["n_trials"])}
        for _, r in summary.iterrows()
    }


def _simulate_run(a):
    reject_unused(
        a,
        {"bounds": "--bounds"},
        "to simulate l1-exponential: the mechanism never clips the data (its truncated loss bounds each "
        "record's effect, docs/l1_exponential.md), so no per-column public bounds enter it",
    )
    check_seed(a.seed)
    check_count("trials", a.trials, lo=1, hi=10_000)
    sched = _schedule(a)
    st = _settings(a, _SIM_SPECS)
    if a.dataset == "heavy_tailed":
        return _simulate_synthetic(a, st, sched)
    return _simulate_data(a, st, sched)


def _em_diagnostics(em) -> tuple[dict | None, list[str], str]:
    """MCMC diagnostics of the EM runs of a simulation, their statuses and the one-line verdict."""
    diag, worst = None, ""
    statuses = ["exact"] * len(em)
    if "acceptance" in em.columns and em["acceptance"].notna().any():
        statuses = [str(v) for v in em["sampler_status"]]
        n_bad = sum(v == "not_converged" for v in statuses)
        diag = {
            "acceptance_mean": float(em["acceptance"].mean()),
            "rhat_max": float(em["rhat"].max()),
            "ess_min": float(em["ess"].min()),
            "n_runs": len(statuses),
            "n_not_converged": n_bad,
            "rhat_kind": "rank-normalised split-R-hat (max of bulk and folded)",
            "label": APPROXIMATE_LABEL,
        }
        figures = (
            f"largest rank-normalised R-hat {display.number(diag['rhat_max'], sig=4)}, smallest bulk ESS "
            f"{display.integer(diag['ess_min'])}"
        )
        if diag["n_not_converged"]:
            worst = (
                f"{NOT_CONVERGED_MESSAGE} in {diag['n_not_converged']} of {diag['n_runs']} runs ({figures}). "
                f"{NOT_CONVERGED_ADVICE}"
            )
        else:
            worst = (
                f"approximate sampler, converged by its diagnostics in every run ({figures}; thresholds "
                f"{display.number(RHAT_THRESHOLD)} and {display.integer(ESS_MIN)}); the ε-DP guarantee is "
                "conditional on the chains having reached the target distribution"
            )
    return diag, statuses, worst


def _simulate_synthetic(a, st: L1Settings, sched) -> dict:
    reject_unused(a, {"target": "--target"}, "to the synthetic dataset 'heavy_tailed' (only to a CSV --dataset)")
    check_int("n", a.n, lo=2, hi=10_000_000)
    check_int("d", a.d, lo=1, hi=1_000)
    model = HeavyTailedModel(d=a.d, design=st.design, noise=st.noise, tail=st.tail, noise_tail=st.noise_tail)
    cfg = SimulationConfig(
        model=model,
        n=a.n,
        epsilon=a.eps,
        assumption=st.assumption,
        mcmc_schedule=sched,
        delta=a.delta,
        **st.mechanism_kwargs(),
    )
    df = run_simulation(cfg, n_trials=a.trials, seed=a.seed)
    cols = ("excess_risk_mean", "excess_risk_se", "excess_risk_median", "excess_empirical_mean")
    methods = _method_rows(summarize_simulation(df), cols)
    em = df[df.method == "em_l1"]
    diag, statuses, worst = _em_diagnostics(em)
    cal = L1ExponentialRegression(epsilon=a.eps, theta=st.theta, mode=st.mode, radius=st.R).calibrate(a.n, a.d)
    return {
        "mechanism": MECH,
        "dataset": "heavy_tailed",
        "model": model.label,
        "n": a.n,
        "d": a.d,
        "eps": a.eps,
        "theta": st.theta,
        "convention": st.conv,
        "mode": str(em["mode"].iloc[0]),
        "iota": float(em["iota"].iloc[0]),
        "trials": a.trials,
        "seed": a.seed,
        "metric": "excess population risk L(w) - L(w*) (noise integrated exactly)",
        "methods": methods,
        "sampler_diagnostics": diag,
        **_sampler_fields(statuses, worst),
        "privacy_label": cal.privacy_label if str(em["mode"].iloc[0]) == cal.mode else "",
        "assumption_violated": bool(df["assumption_violated"].iloc[0]),
    }


def _simulate_data(a, st: L1Settings, sched) -> dict:
    ds = dataset_from_args(a)
    if ds.task != "regression":
        raise ValueError(f"dataset must be a regression dataset, got {ds.name!r} with task {ds.task!r}.")
    tr, te = train_test_split(ds, seed=a.seed)
    est = L1ExponentialRegression(epsilon=a.eps, mcmc_schedule=sched, **st.mechanism_kwargs())
    cal = est.calibrate(tr.n, tr.d)
    cx, cy = clip_levels(cal)
    kw = dict(estimator=est, n_releases=max(2, a.trials), delta=a.delta, rng=a.seed)
    res = real_data_experiment(tr.X, tr.y, te.X, te.y, clip_x=cx, clip_y=cy, **kw)
    s = summarize(res.table, by=["method"], values=["excess_test_mae", "test_mae"])
    methods = _method_rows(s, ("excess_test_mae_mean", "excess_test_mae_se", "test_mae_mean"))
    return {
        "mechanism": MECH,
        "dataset": ds.name,
        "n_train": tr.n,
        "n_test": te.n,
        "d": tr.d,
        "eps": a.eps,
        "theta": st.theta,
        "mode": cal.mode,
        "iota": cal.iota,
        "trials": max(2, a.trials),
        "seed": a.seed,
        "metric": "held-out mean absolute error minus that of the non-private LAD fit (real data: no w*)",
        "note": "features used as given (raw scale); tau = sigma_theta = 1 assumed public",
        "methods": methods,
        "sampler_diagnostics": res.mcmc,
        **_sampler_fields([res.sampler_status], res.sampler_message),
        "privacy_label": res.privacy_label,
    }


_HELP = {
    "calibrate": "iota*, sensitivity, temperatures and the explicit bound of EM-L1-HT (Wang & Xu)",
    "simulate": "excess risk of EM-L1-HT, baselines B1/B2 and non-private LAD (mean and SE)",
    "reproduce": "our synthetic protocol (the paper has no experiments): tables and figures F1-F6",
}
COMMANDS = [
    Command("calibrate", MECH, _HELP["calibrate"], _calibrate_args, _calibrate_run),
    Command("simulate", MECH, _HELP["simulate"], _simulate_args, _simulate_run),
    reproduce_command(
        MECH,
        _HELP["reproduce"],
        __package__,
        out_help="output directory",
        quick_help="small grids and few trials (about a minute)",
        trials_help="repetitions (default 4 quick, 30 full)",
    ),
]
