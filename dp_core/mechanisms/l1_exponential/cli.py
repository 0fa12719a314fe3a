"""``calibrate``, ``simulate`` and ``reproduce`` for heavy-tailed l1 regression (Wang & Xu).

``python -m dp_core calibrate l1-exponential --n 10000 --d 5 --eps 1 --theta 1.5 --assumption A3``
"""

from __future__ import annotations

import math

from ... import display
from ..._validation import check_count, check_epsilon, check_in_interval, check_int, check_positive, check_seed
from ...cli._common import (
    add_dataset_arguments,
    add_out_dir_arguments,
    add_seed_argument,
    check_reproduce_args,
    dataset_from_args,
    reject_unused,
)
from ...cli._registry import Command
from ...data import HEAVY_DESIGNS, HEAVY_NOISES, train_test_split
from ...experiments import summarize
from . import bounds as B
from .baselines import markov_clip_level
from .grid import grid_size
from .mcmc import (
    APPROXIMATE_LABEL,
    ESS_MIN,
    MCMC_PRESETS,
    NOT_CONVERGED_ADVICE,
    NOT_CONVERGED_MESSAGE,
    RHAT_THRESHOLD,
    MCMCSchedule,
)
from .mechanism import L1ExponentialRegression
from .population import HeavyTailedModel
from .simulation import (
    METHOD_LABELS,
    SimulationConfig,
    real_data_experiment,
    run_simulation,
    summarize_simulation,
)
from .truncation import CONVENTION_LABELS, CONVENTIONS, convention_guarantee, kappa

MECH = "l1-exponential"


def _calibrate_args(p):
    p.add_argument("--n", type=int, required=True, help="sample size n (public)")
    p.add_argument("--d", type=int, required=True, help="dimension d")
    p.add_argument("--eps", type=float, required=True, help="pure-DP epsilon in (0, inf)")
    p.add_argument("--theta", type=float, default=1.5, help="moment order theta in [1.05, 2] (default 1.5)")
    p.add_argument("--tau", type=float, default=1.0, help="moment bound tau of the assumption (default 1)")
    p.add_argument(
        "--moment",
        "--sigma-theta",
        dest="moment",
        type=float,
        default=1.0,
        help="noise moment sigma_theta = E|y - <x, w*>|^theta (default 1)",
    )
    p.add_argument("--eta-total", type=float, default=0.05, help="overall failure probability, eta = eta_total/5")
    p.add_argument(
        "--assumption",
        choices=B.ASSUMPTIONS,
        default="A3",
        help="A1/A2: second moment (theta = 2); A3/A4: theta-th moment; A2/A4 coordinate-wise",
    )
    p.add_argument("--radius", type=float, default=1.0, help="radius R of W (default 1)")
    p.add_argument("--convention", choices=CONVENTIONS, default="tight", help="temperature convention (default tight)")
    p.add_argument("--c-iota", type=float, default=1.0, help="multiplier on iota* / iota_paper (default 1)")
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
    check_in_interval("eta_total", a.eta_total, 0.0, 1.0, closed="neither")
    if a.zeta is not None:
        check_positive("zeta", a.zeta)
    if a.grid_m is not None:
        check_int("grid_m", a.grid_m, lo=1, hi=10_000)
    check_in_interval("c_iota", a.c_iota, 0.05, 20.0)
    theta_b = 2.0 if a.assumption in ("A1", "A2") else a.theta
    c = B.moment_constants(a.assumption, tau=a.tau, d=a.d, theta=theta_b, sigma_theta=a.moment, radius=a.radius)
    eta = a.eta_total / 5.0
    if a.grid_m is not None:
        N = grid_size(a.d, a.grid_m, a.radius)
        zeta = (2 * a.radius / a.grid_m) * math.sqrt(a.d) / 2
        log_N = math.log(N)
    else:
        zeta = 1.0 / a.n if a.zeta is None else a.zeta
        log_N = B.log_net_size(a.d, zeta, 2 * a.radius)
    ks = {conv: kappa(a.eps, c.theta, conv) for conv in CONVENTIONS}
    k = ks[a.convention]
    common = {
        "zeta": zeta,
        "n": a.n,
        "eta": eta,
        "theta": c.theta,
        "M_theta": c.M_theta,
        "V_theta": c.V_theta,
        "diam_W": 2 * a.radius,
        "d": a.d,
        "log_N": log_N,
    }
    aa, bb = B.bound_coefficients(kappa_value=k, **common)
    i_star = B.iota_star(kappa_value=k, **common)
    i_paper = B.iota_paper(a.n, a.d, a.eps, a.eta_total, c.theta, a.tau, a.assumption)
    iota = a.c_iota * i_star
    U = B.explicit_bound(iota, m1=c.m1, kappa_value=k, **common)
    U_paper = B.explicit_bound(i_paper, m1=c.m1, kappa_value=k, **common)
    guar = convention_guarantee(a.eps, c.theta, a.convention)
    return {
        "mechanism": MECH,
        "n": a.n,
        "d": a.d,
        "eps": a.eps,
        "theta": c.theta,
        "assumption": a.assumption,
        "tau": a.tau,
        "sigma_theta": a.moment,
        "radius": a.radius,
        "eta_total": a.eta_total,
        "eta": eta,
        "zeta": zeta,
        "log_N": log_N,
        "log_N_over_eta": log_N + math.log(1 / eta),
        "m1": c.m1,
        "M_theta": c.M_theta,
        "V_theta": c.V_theta,
        "convention": a.convention,
        "convention_label": CONVENTION_LABELS[a.convention],
        "guarantee": guar.label,
        "replace_one_epsilon": guar.replace_one_epsilon,
        "add_remove_epsilon": guar.add_remove_epsilon,
        "sensitivity": math.log(c.theta) / (a.n * iota),
        "sensitivity_cost": math.log(c.theta),
        "sensitivity_paper": 2 * math.log(c.theta) / (a.n * iota),
        "sensitivity_paper_note": "the paper's 2 log(theta)/(n iota) is a valid bound, loose by 2x",
        "kappa": k,
        "kappa_tight": ks["tight"],
        "kappa_paper_proof": ks["paper_proof"],
        "kappa_paper_box": ks["paper_box"],
        "beta": k * a.n * iota,
        "a": aa,
        "b": bb,
        "iota": iota,
        "iota_star": i_star,
        "threshold": 1 / iota,
        "iota_paper": i_paper,
        "threshold_paper": 1 / i_paper,
        "bound_explicit": U.total,
        "bound_net": U.net,
        "bound_truncation_bias": U.truncation_bias,
        "bound_discretisation_truncation": U.discretisation_truncation,
        "bound_statistical": U.statistical,
        "bound_privacy": U.privacy,
        "bound_explicit_iota_paper": U_paper.total,
        "bound_label": B.EXPLICIT_LABEL,
        "rate_paper": B.rate_paper(a.n, a.d, a.eps, a.eta_total, c.theta, a.tau, a.assumption),
        "rate_label": B.RATE_LABEL,
        "rate_slope": B.rate_slope(c.theta, a.assumption),
        "eps_privacy_dominates_below": B.privacy_dominance_epsilon(c.theta, a.convention),
    }


def _simulate_args(p):
    add_dataset_arguments(p, default="heavy_tailed")
    add_seed_argument(p)
    p.add_argument("--n", type=int, default=2000, help="sample size (synthetic; default 2000)")
    p.add_argument("--d", type=int, default=1, help="dimension (synthetic; default 1)")
    p.add_argument("--eps", type=float, default=1.0, help="epsilon (default 1)")
    p.add_argument("--theta", type=float, default=1.5, help="theta in [1.05, 2] (default 1.5)")
    p.add_argument("--design", choices=HEAVY_DESIGNS, default="pareto_sphere", help="feature design X1-X5")
    p.add_argument("--noise", choices=HEAVY_NOISES, default="student_t", help="noise law N1-N4")
    p.add_argument("--tail", type=float, default=1.8, help="tail index of the design (alpha or nu)")
    p.add_argument("--noise-tail", type=float, default=1.8, help="tail index of the noise")
    p.add_argument("--convention", choices=CONVENTIONS, default="tight")
    p.add_argument("--assumption", choices=B.ASSUMPTIONS, default="A3")
    p.add_argument("--c-iota", type=float, default=1.0, help="iota = c_iota * iota*")
    p.add_argument("--radius", type=float, default=1.0)
    p.add_argument("--mode", choices=["auto", "grid", "mcmc"], default="auto")
    p.add_argument("--preset", choices=sorted(MCMC_PRESETS), default="quick", help="MCMC schedule (default quick)")
    p.add_argument(
        "--mcmc-warmup",
        type=int,
        default=None,
        help="MCMC warm-up steps, overriding the preset (use with --mcmc-steps)",
    )
    p.add_argument(
        "--mcmc-steps",
        type=int,
        default=None,
        help="MCMC sampling steps after warm-up, overriding the preset (use with --mcmc-warmup)",
    )
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
    if any(s == "not_converged" for s in statuses):
        return {
            "sampler_status": "not_converged",
            "sampler_message": message or f"{NOT_CONVERGED_MESSAGE}. {NOT_CONVERGED_ADVICE}",
            "sampler_thresholds": {"rhat_max": RHAT_THRESHOLD, "ess_min": ESS_MIN},
        }
    return {
        "sampler_status": "converged",
        "sampler_message": message,
        "sampler_thresholds": {"rhat_max": RHAT_THRESHOLD, "ess_min": ESS_MIN},
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
    if a.dataset == "heavy_tailed":
        reject_unused(a, {"target": "--target"}, "to the synthetic dataset 'heavy_tailed' (only to a CSV --dataset)")
        check_int("n", a.n, lo=2, hi=10_000_000)
        check_int("d", a.d, lo=1, hi=1_000)
        model = HeavyTailedModel(d=a.d, design=a.design, noise=a.noise, tail=a.tail, noise_tail=a.noise_tail)
        cfg = SimulationConfig(
            model=model,
            n=a.n,
            epsilon=a.eps,
            theta=a.theta,
            convention=a.convention,
            assumption=a.assumption,
            c_iota=a.c_iota,
            radius=a.radius,
            mode=a.mode,
            mcmc_preset=a.preset,
            mcmc_schedule=sched,
            delta=a.delta,
        )
        df = run_simulation(cfg, n_trials=a.trials, seed=a.seed)
        s = summarize_simulation(df)
        methods = {}
        for _, row in s.iterrows():
            methods[row["method"]] = {
                "label": METHOD_LABELS[row["method"]],
                "excess_risk_mean": row["excess_risk_mean"],
                "excess_risk_se": row["excess_risk_se"],
                "excess_risk_median": row["excess_risk_median"],
                "excess_empirical_mean": row["excess_empirical_mean"],
                "n_trials": int(row["n_trials"]),
            }
        em = df[df.method == "em_l1"]
        diag = None
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
        worst = ""
        if diag:
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
        cal = L1ExponentialRegression(epsilon=a.eps, theta=a.theta, mode=a.mode, radius=a.radius).calibrate(a.n, a.d)
        return {
            "mechanism": MECH,
            "dataset": "heavy_tailed",
            "model": model.label,
            "n": a.n,
            "d": a.d,
            "eps": a.eps,
            "theta": a.theta,
            "convention": a.convention,
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
    ds = dataset_from_args(a)
    if ds.task != "regression":
        raise ValueError(f"dataset must be a regression dataset, got {ds.name!r} with task {ds.task!r}.")
    tr, te = train_test_split(ds, seed=a.seed)
    est = L1ExponentialRegression(
        epsilon=a.eps,
        theta=a.theta,
        convention=a.convention,
        c_iota=a.c_iota,
        radius=a.radius,
        mode=a.mode,
        mcmc_preset=a.preset,
        mcmc_schedule=sched,
    )
    cal = est.calibrate(tr.n, tr.d)
    cx = markov_clip_level(cal.moments["M_theta"], cal.moments["theta"])
    cy = markov_clip_level(cal.moments["V_theta"], cal.moments["theta"])
    res = real_data_experiment(
        tr.X,
        tr.y,
        te.X,
        te.y,
        estimator=est,
        n_releases=max(2, a.trials),
        clip_x=cx,
        clip_y=cy,
        delta=a.delta,
        rng=a.seed,
    )
    s = summarize(res.table, by=["method"], values=["excess_test_mae", "test_mae"])
    methods = {
        r["method"]: {
            "label": METHOD_LABELS[r["method"]],
            "excess_test_mae_mean": r["excess_test_mae_mean"],
            "excess_test_mae_se": r["excess_test_mae_se"],
            "test_mae_mean": r["test_mae_mean"],
            "n_trials": int(r["n_trials"]),
        }
        for _, r in s.iterrows()
    }
    return {
        "mechanism": MECH,
        "dataset": ds.name,
        "n_train": tr.n,
        "n_test": te.n,
        "d": tr.d,
        "eps": a.eps,
        "theta": a.theta,
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


def _reproduce_args(p):
    add_out_dir_arguments(p, "output directory")
    p.add_argument("--quick", action="store_true", help="small grids and few trials (about a minute)")
    add_seed_argument(p)
    p.add_argument("--trials", type=int, default=None, help="repetitions (default 4 quick, 30 full)")


def _reproduce_run(a):
    check_reproduce_args(a, "l1_exponential_")
    from .reproduce import reproduce

    return reproduce(a.out, quick=a.quick, seed=a.seed, n_trials=a.trials)


COMMANDS = [
    Command(
        "calibrate",
        MECH,
        "iota*, sensitivity, temperatures and the explicit bound of EM-L1-HT (Wang & Xu)",
        _calibrate_args,
        _calibrate_run,
    ),
    Command(
        "simulate",
        MECH,
        "excess risk of EM-L1-HT, baselines B1/B2 and non-private LAD (mean and SE)",
        _simulate_args,
        _simulate_run,
    ),
    Command(
        "reproduce",
        MECH,
        "synthetic protocol of the specification (sections 5.2-5.3): tables and figures F1-F6",
        _reproduce_args,
        _reproduce_run,
    ),
]
