"""``calibrate``, ``simulate`` and ``reproduce`` for input perturbation (Fukuchi, Tran, Sakuma 2017)."""

from __future__ import annotations

import math

from ..._validation import check_count, check_seed
from ...cli._common import (
    CliError,
    add_dataset_arguments,
    add_param_options,
    add_preprocess_argument,
    add_seed_argument,
    dataset_from_args,
    param_values,
    reproduce_command,
)
from ...cli._registry import Command
from ...plugin import config_from_values
from ...preprocessing import default_eta
from .bounds import (
    corollary3_sigma_u_bounds,
    lemma2_bound,
    objective_gauss_bound,
    output_perturbation_bound,
    table1_rates,
    theorem2_terms,
)
from .mechanism import objective_sigma, output_beta
from .model import model_constants
from .params import conservative_accounting, input_perturbation_params, local_privacy

_CONSERVATIVE = 'docs/input_perturbation.md §"Conservative accounting"'
_MODELS = {"least-squares": "least_squares", "logistic": "logistic_taylor"}


def _specs():
    from . import PLUGIN

    return PLUGIN.params


def _common_privacy_args(p, *, eta_rule: bool = False):
    """The central target (shared options) and the mechanism's parameters, from its declaration."""
    if eta_rule:  # simulate: the app's defaults (epsilon 1, delta 1e-5), so a run needs only the data
        p.add_argument("--eps", type=float, default=1.0, help="central epsilon, in (0, inf) (default 1)")
        p.add_argument("--delta", type=float, default=1e-5, help="delta, in (0, 1) (default 1e-5)")
    else:
        p.add_argument("--eps", type=float, required=True, help="central epsilon, in (0, inf)")
        p.add_argument("--delta", type=float, required=True, help="delta, in (0, 1)")
    # simulate: eta from the dimension and the budget (dp_core.preprocessing.default_eta), n from the data
    defaults = {"eta": None, "n": None, "pos": None} if eta_rule else {"n": None}
    skip = ("model",) if eta_rule else ("model", "sampler", "pos", "wnorm")
    add_param_options(p, _specs(), defaults=defaults, skip=skip)
    p.add_argument(
        "--model",
        choices=sorted(_MODELS),
        default="least-squares",
        help="least-squares, or logistic (the Taylor surrogate of the logistic loss); calibrate derives zeta and "
        "lam from it when they are not given (||x|| <= 1, |y| <= 1)",
    )


def _values(a, *, n_required: bool) -> dict:
    v = param_values(a, [s for s in _specs() if s.name != "model"])
    if n_required and v.get("n") is None:
        raise CliError("--n is required (the number of contributors)")
    v["model"] = _MODELS[a.model]
    return v


def _calibrate_args(p):
    _common_privacy_args(p)
    p.add_argument("--d", type=int, required=True, help="dimension d")
    p.add_argument("--zeta", type=float, default=None, help="Lipschitz constant (default: from --model)")
    p.add_argument("--lam", type=float, default=None, help="smoothness constant (default: from --model)")
    p.add_argument("--Delta", type=float, default=None, help="total regularisation Delta (> 2 lam / (alpha eps))")
    p.add_argument("--sigma-u-margin", type=float, default=0.0, help="sigma_u multiplied by 1 + margin (default 0)")


def _calibrate_run(a):
    v = _values(a, n_required=True)
    c = model_constants(v["model"], eta=v["eta"])
    zeta = c.zeta if a.zeta is None else a.zeta
    lam = c.lam if a.lam is None else a.lam
    p = input_perturbation_params(
        n=v["n"],
        d=a.d,
        epsilon=a.eps,
        delta=a.delta,
        eta=v["eta"],
        zeta=zeta,
        lam=lam,
        alpha=v["alpha"],
        Delta=a.Delta,
        Delta_multiplier=v["dmult"],
        sigma_u_mode=v["mode"],
        sigma_u_margin=a.sigma_u_margin,
    )
    return {**_step0(p), **_guarantees(p, c), **_bounds(p, a.eps, a.delta)}


#: The Step-0 quantities printed by ``calibrate``, in order (``eps`` is ``p.epsilon``).
_STEP0 = (
    "n d eps delta eta zeta lam alpha sigma_u_mode eps_run gamma delta_prime a2 a4 sigma_b sigma_u sigma_u_alg1 "
    "sigma_u_cor2 sigma_u_corr per_record_std_b per_record_std_u ridge_threshold Delta_star Delta Delta_in "
    "kappa_lower kappa_upper"
).split()


def _step0(p) -> dict:
    """The settings and every public quantity of Step 0 ([FTS17] Algorithm 1, Corollaries 2-3)."""
    lo, hi = corollary3_sigma_u_bounds(p)
    out = {"mechanism": "input-perturbation"} | {k: getattr(p, "epsilon" if k == "eps" else k) for k in _STEP0}
    return out | {"cor3_sigma_u_lower": lo, "cor3_sigma_u_upper": hi}


def _guarantees(p, c) -> dict:
    """Central (Theorem 1, as claimed; our conservative accounting) and local (Corollary 1; exact) levels."""
    lp = local_privacy(p)
    lpd = local_privacy(p, sensitivities="domain", q_bound=c.q_bound, p_bound=c.p_bound)
    ca = conservative_accounting(p)
    return {
        "central_guarantee": f"({p.eps_run:g}, {p.delta:g})-DP as claimed by the paper (Theorem 1); see the "
        "privacy-proof diagnostic: the proof's Lemma 7 does not hold for general data",
        "eps_central_conservative": ca.epsilon,
        "delta_central_conservative": ca.delta,
        "conservative_lam_tilde": ca.lam_tilde,
        "conservative_zeta_tilde": ca.zeta_tilde,
        "conservative_note": f"ours ({_CONSERVATIVE}): conditions on U, does not use Lemma 7",
        "labels": {
            "eps_run": (
                "central epsilon as claimed by the paper (Theorem 1); its proof's Lemma 7 fails for general data"
            ),
            "eps_central_conservative": f"corrected: conservative accounting (ours, {_CONSERVATIVE})",
            "eps_local_paper": "as claimed by the paper (Corollary 1), used outside its validity range (needs eps < 1)",
            "eps_local_exact": "corrected: exact level of the same Gaussian release (Gaussian DP)",
            "bound_theorem2": "Theorem 2 upper bound (paper's constants), conditional on the calibration event",
            "rate_*_const1": "Table 1 rates with constant 1: shape only, up to constants",
        },
        **_local_levels(lp),
        "eps_local_q": lp.epsilon_q,
        "eps_local_p": lp.epsilon_p,
        "gdp_mu": lp.mu,
        "eps_local_paper_domain_sensitivities": lpd.epsilon_nominal,
        "eps_local_exact_domain_sensitivities": lpd.epsilon_exact,
        "corollary1_formally_valid": lp.corollary1_valid,
    }


def _local_levels(lp) -> dict:
    """Corollary 1's local level of one contributor's message, its exact (Gaussian DP) level and delta."""
    return {"eps_local_paper": lp.epsilon_nominal, "eps_local_exact": lp.epsilon_exact, "delta_local": lp.delta_local}


def _bounds(p, eps: float, delta: float) -> dict:
    """Theorem 2's bound and terms, the baselines' derived bounds, Table 1's rates and the validity checks."""
    terms = theorem2_terms(p)
    rates = table1_rates(n=p.n, d=p.d, epsilon=eps, delta=delta, eta=p.eta, zeta=p.zeta, alpha=p.alpha)
    out = {"bound_theorem2": terms.total} | {f"theorem2_{k}": getattr(terms, k) for k in ("T1", "T2", "T3", "T4")}
    out |= {"bound_lemma2": lemma2_bound(p), "bound_objective_derived": objective_gauss_bound(p)}
    out |= {"bound_output_derived": output_perturbation_bound(p), "sigma_objective": objective_sigma(p)}
    out |= {"output_beta": output_beta(p)} | {f"rate_{k}_const1": rates[k] for k in ("objective", "dp_gd", "input")}
    checks = ("n_min_cor2", "n_min_alg1", "n_min_theorem2", "valid_cor2", "valid_alg1", "valid_theorem2", "valid")
    return out | {k: getattr(p, k) for k in checks}


def _simulate_args(p):
    add_dataset_arguments(p, default="census")
    add_preprocess_argument(p)
    _common_privacy_args(p, eta_rule=True)
    add_seed_argument(p)
    p.add_argument("--trials", type=int, default=100, help="Monte-Carlo trials (default 100)")
    p.add_argument("--diagnostic-draws", type=int, default=400, help="draws for the privacy-proof diagnostic")


def _simulate_run(a):
    from .diagnostic import privacy_diagnostic
    from .experiment import SimulationConfig, prepare_data, simulate_over_n
    from .model import sufficient_stats

    check_seed(a.seed)
    check_count("trials", a.trials, lo=1, hi=100_000)
    check_count("diagnostic_draws", a.diagnostic_draws, lo=1, hi=1_000_000)
    v = _values(a, n_required=False)
    model = v["model"]
    rows_needed = None if v["n"] is None else math.ceil(v["n"] / 0.8) + 2
    ds = dataset_from_args(a, n=rows_needed if a.dataset == "census" else None, seed=a.seed)
    data = prepare_data(ds, model, positive_class=v["pos"], seed=a.seed, preprocess=a.preprocess)
    n = data.n_train if v["n"] is None else v["n"]
    eta = default_eta(data.d, a.eps, a.preprocess) if v["eta"] is None else v["eta"]
    if n > data.n_train:
        raise ValueError(f"n must be at most {data.n_train} (the training rows of {ds.name!r}), got {n}.")
    cfg = config_from_values(SimulationConfig, v, epsilon=a.eps, delta=a.delta, eta=eta)
    df = simulate_over_n(data, cfg, [n], n_trials=a.trials, seed=a.seed)
    p = cfg.params(n, data.d)
    metric = "rmse" if model == "least_squares" else "accuracy"
    methods = _method_rows(df, metric)
    diag = privacy_diagnostic(
        sufficient_stats(data.X_train[:n], data.y_train[:n], model), p, n_draws=a.diagnostic_draws, seed=a.seed
    )
    return {
        "mechanism": "input-perturbation",
        "dataset": ds.name,
        "model": a.model,
        "n": n,
        "d": data.d,
        "n_test": int(data.X_test.shape[0]),
        "eps": a.eps,
        "delta": a.delta,
        "alpha": cfg.alpha,
        "sampler": cfg.sampler,
        "trials": a.trials,
        "seed": a.seed,
        "metric": metric,
        "methods": methods,
        **_bound(methods, p, v["wnorm"]),
        **{k: getattr(p, k) for k in ("sigma_b", "sigma_u", "Delta", "Delta_in")},
        "central_guarantee": f"({p.eps_run:g}, {p.delta:g})-DP as claimed by the paper",
        **_local_levels(local_privacy(p)),
        "privacy_diagnostic": diag.summary(),
        "preprocessing": list(data.notes),
        "leak_warnings": list(data.leaks),
        "preprocess": a.preprocess,
        "eta": eta,
        "eta_rule": v["eta"] is None,
    }


def _method_rows(df, metric: str) -> dict:
    """Per method: mean and standard error of the excess risk and the test metric, and its bounds."""
    from ...experiments import summarize

    out = {}
    for _, r in summarize(df, by=["method"], values=["excess_risk", "test_metric"]).iterrows():
        sub = df[df["method"] == r["method"]]
        row = {"excess_risk_mean": r["excess_risk_mean"], "excess_risk_se": r["excess_risk_se"]}
        row |= {f"{metric}_mean": r["test_metric_mean"], f"{metric}_se": r["test_metric_se"]}
        row |= {"bound": float(sub["bound"].iloc[0]), "bound_measured_w_norm": float(sub["bound_measured"].iloc[0])}
        out[r["method"]] = row | {"n_trials": int(r["n_trials"])}
    return out


def _bound(methods: dict, p, wnorm: str) -> dict:
    """The Theorem-2 bound of input perturbation with ||w^|| = eta, or the measured norm (``--wnorm measured``)."""
    key, norm = ("bound", "eta") if wnorm == "eta" else ("bound_measured_w_norm", "measured")
    value = methods.get("input", {}).get(key, theorem2_terms(p).total)
    label = f"Theorem 2 upper bound on E[excess risk] (paper's constants, ||w^|| = {norm})"
    return {"bound": value, "bound_label": label}


def _no_tune_arg(p):
    p.add_argument(
        "--no-tune",
        action="store_true",
        help="use Delta = Delta* instead of tuning its multiplier at the largest n (the paper tunes)",
    )


COMMANDS = [
    Command(
        "calibrate",
        "input-perturbation",
        "Input perturbation (Fukuchi et al. 2017): Step-0 noise scales, local/central levels, Theorem-2 bound",
        _calibrate_args,
        _calibrate_run,
    ),
    Command(
        "simulate",
        "input-perturbation",
        "Input perturbation vs objective/output perturbation and non-private on a dataset",
        _simulate_args,
        _simulate_run,
    ),
    reproduce_command(
        "input-perturbation",
        "Recreate Figures 1 and 2 of Fukuchi et al. (test RMSE / accuracy vs n) on census-like data",
        __package__,
        out_help="output directory (created if missing)",
        quick_help="small grid and few trials (for CI)",
        trials_help="trials per point (default 100, quick: 5)",
        extra_args=_no_tune_arg,
        extra_kwargs=lambda a: {"tune": not a.no_tune},
    ),
]
