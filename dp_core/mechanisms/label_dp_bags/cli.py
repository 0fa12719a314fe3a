"""``calibrate``, ``simulate`` and ``reproduce`` for label-DP by aggregation (Brahmbhatt et al.).
Details: docs/label_dp_bags.md §"cli (module)".
"""

from __future__ import annotations

from dataclasses import replace

from ...cli._common import (
    add_bounds_argument,
    add_dataset_arguments,
    add_param_options,
    dataset_from_args,
    param_values,
    reject_unused,
    reproduce_command,
)
from ...cli._registry import CliError, Command
from ...plugin import config_params
from . import bounds as acc
from .settings import BagSettings

MECH = "label-dp-bags"

#: The declared parameters; k, m, s and gamma without the page's caps (the engine checks them, for any n and B1).
SPECS = tuple(
    replace(s, lo=None, hi=None) if s.name in ("k", "m", "noise_std", "gamma") else s
    for s in config_params(BagSettings)
)


def _add_params(p, *, defaults: dict, skip: tuple) -> None:
    """The declared options (``--public`` as a plain switch: the conformance test allows no ``--no-public``)."""
    add_param_options(p, SPECS, defaults=defaults, skip=(*skip, "public"))
    p.add_argument("--public", dest="public", action="store_true", help="the label range --lo/--hi is public")


def _read_params(a) -> None:
    """Replace the text of the declared options by their checked values (``None`` where not given)."""
    vars(a).update(param_values(a, SPECS))


# --- calibrate ----------------------------------------------------------------------------------


def _calibrate_args(p):
    _add_params(p, defaults=dict(k=None, m=None, rho=None, gamma=None, lo=None, hi=None), skip=("metric",))
    p.add_argument("--n", type=int, default=None, help="number of examples n (default: the dataset's, else required)")
    p.add_argument("--eps", type=float, required=True, help="epsilon at which delta(epsilon) is evaluated, > 0")
    p.add_argument("--b1", type=float, default=1.0, help="label bound B1, labels in [-B1, B1] (default 1)")
    p.add_argument("--target-delta", type=float, default=None, help="also report k_min and eps_min for this delta")
    p.add_argument("--d", type=int, default=None, help="wtd-lba: rank of the features (incl. constant)")
    p.add_argument("--b2", type=float, default=None, help="wtd-lba: feature-norm bound B2")
    p.add_argument("--lam", type=float, default=None, help="wtd-lba: lambda*, smallest non-zero eigenvalue of X^T X/n")
    p.add_argument(
        "--dataset",
        default=None,
        help="wtd-lba: compute d, B2, gamma, lambda* from a demo dataset or CSV (they depend on private labels)",
    )
    p.add_argument("--target", default=None, help="target column of a CSV file")
    add_bounds_argument(p)
    p.add_argument("--no-exact", action="store_true", help="skip the exact LLP accounting")


def _label_range(a):
    """The public label range ``(--lo, --hi)``, or ``None``: the data's range is used and flagged."""
    if (a.lo is None) != (a.hi is None):
        raise ValueError("give both --lo and --hi, or neither (then the data's range is used and flagged).")
    if a.lo is None and a.public:
        raise ValueError("--public needs the public label range: give --lo and --hi.")
    return None if a.lo is None else (a.lo, a.hi)


def _calibrate_run(a):
    from . import data_conditions, prepare_dataset

    _read_params(a)
    missing = [flag for flag, v in (("--k", a.k), ("--m", a.m)) if v is None]
    if missing:
        raise CliError(f"the following arguments are required: {', '.join(missing)}")
    if a.dataset is None:
        reject_unused(a, {"target": "--target", "lo": "--lo", "hi": "--hi", "bounds": "--bounds"}, "without --dataset")
    if a.variant == "wtd-lba":
        reject_unused(a, {"rho": "--rho"}, "to --variant wtd-lba (it adds no label noise)")
    else:
        reject_unused(
            a,
            {"d": "--d", "b2": "--b2", "gamma": "--gamma", "lam": "--lam"},
            f"to --variant {a.variant} (they are wtd-lba data constants)",
        )
    a.rho = 0.1 if a.rho is None else a.rho
    extra = {}
    n = a.n
    d, b2, gamma, lam = a.d, a.b2, a.gamma, a.lam
    if a.dataset is not None:
        ds = dataset_from_args(
            a, bounds_unused="to calibrate label-dp-bags: its data constants use the features as given"
        )
        prep = prepare_dataset(ds, label_range=_label_range(a), b1=a.b1, test_fraction=0.0)
        cond = data_conditions(prep.X, prep.y, a.b1, k=a.k, m=a.m)
        n = prep.n if n is None else n
        # the constants not declared are computed from the data
        d, b2, lam = (cond[c] if v is None else v for v, c in ((d, "rank"), (b2, "b2"), (lam, "lam_star")))
        if gamma is None:
            if cond["gamma"] is None:
                raise ValueError(
                    "the data admit no neighbour-safe gamma > 0 (sqrt(opt) <= 2 B1); declare --gamma explicitly."
                )
            gamma = cond["gamma"]
        extra = {
            "dataset": ds.name,
            "gamma_hat": cond["gamma_hat"],
            "data_opt": cond["opt"],
            "data_conditions_warning": (
                "gamma_hat, gamma and lambda* were computed from the private labels: the guarantee is "
                "conditional on them and not worst-case label-DP."
            ),
            "data_warnings": cond["warnings"],
            "preprocessing_notes": list(prep.notes),
        }
    if n is None:
        raise ValueError("--n is required (or give --dataset).")
    kw = dict(n=n, k=a.k, m=a.m, b1=a.b1, rho=a.rho, noise_std=a.noise_std, d=d, b2=b2, gamma=gamma, lam=lam)
    out = acc.accounting_summary(
        variant=a.variant, epsilon=a.eps, target_delta=a.target_delta, exact=not a.no_exact, **kw
    )
    out.update(extra)
    out["accounting_labels"] = {
        "delta_paper": "as claimed by the paper (paper-literal constants, fixed split; some steps unproven)",
        "delta_explicit": "corrected explicit bound (recommended)",
        "delta_exact": "exact privacy profile by full-pmf quadrature (beyond the paper; noisy-wtd-llp only)",
    }
    return out  # NaN/inf are written as null (dp_core.cli.to_jsonable)


# --- simulate -----------------------------------------------------------------------------------


def _simulate_args(p):
    add_dataset_arguments(p, default="census")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--n", type=int, default=None, help="rows of a synthetic dataset (default: the generator's)")
    _add_params(p, defaults=dict(k=64, m=100, lo=None, hi=None, metric=None), skip=("variant", "gamma"))
    p.add_argument("--eps", type=float, default=1.0, help="epsilon of the label-noise baselines (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta of the Gaussian baseline (default 1e-5)")
    p.add_argument("--b1", type=float, default=1.0, help="label bound B1 (default 1)")
    p.add_argument("--trials", type=int, default=100, help="Monte-Carlo trials (default 100)")


def _add_predictions(out: dict, a, prep, opt: dict) -> None:
    """The predicted utility ratios and the accounting of noisy-wtd-LLP at this setting, added to ``out``."""
    out["predicted_ratio_wtd_lba"] = acc.predicted_ratio_lba(a.m, prep.d)
    g = opt["gamma_hat"]
    if g > 0:
        out["predicted_ratio_noisy_wtd_llp"] = acc.predicted_ratio_llp(a.m, prep.d, a.rho, g, a.noise_std)
        cal = acc.baseline_calibration(a.eps, a.delta, a.b1)
        for noise in ("gaussian", "laplace"):
            var = cal[f"{noise}_added_variance"]
            out[f"predicted_ratio_{noise}_label"] = acc.predicted_ratio_label_noise(prep.n, prep.d, var, g)
        out["gaussian_sigma"] = cal["gaussian_sigma"]
        out["laplace_scale"] = cal["laplace_scale"]
    if a.m * a.k <= prep.n and a.k >= 2:
        kw = dict(n=prep.n, k=a.k, m=a.m, b1=a.b1, rho=a.rho, noise_std=a.noise_std)
        summ = acc.accounting_summary(variant="noisy-wtd-llp", epsilon=a.eps, **kw)
        for x in ("paper", "explicit", "exact"):
            out[f"noisy_wtd_llp_delta_{x}"] = summ[f"delta_{x}"]
        out["naive_delta_lower_bound"] = summ["naive_lower_bound"]


def _simulate_run(a):
    from ..._validation import check_int, check_seed
    from ...experiments import summarize
    from ...rng import spawn_seeds
    from . import prepare_dataset, utility_trials

    _read_params(a)
    trials = check_int("trials", a.trials, lo=2, hi=100000)
    check_seed(a.seed)
    ds = dataset_from_args(
        a,
        n=a.n,
        seed=a.seed,
        bounds_unused="to simulate label-dp-bags: the features are public in label-DP and used as given",
    )
    prep = prepare_dataset(ds, label_range=_label_range(a), b1=a.b1, seed=a.seed)
    seeds = spawn_seeds(a.seed, trials)
    df = utility_trials(prep, m=a.m, k=a.k, rho=a.rho, seeds=seeds, epsilon=a.eps, delta=a.delta, noise_std=a.noise_std)
    s = summarize(df, by=["method"], values=["test_mse", "excess_risk", "ratio"])
    opt = prep.optimum()
    out = {
        "mechanism": MECH,
        "dataset": ds.name,
        "n_train": prep.n,
        "n_test": len(prep.y_test),
        "d": prep.d,
        "k": a.k,
        "m": a.m,
        "rho": a.rho,
        "eps": a.eps,
        "delta": a.delta,
        "b1": a.b1,
        "trials": trials,
        "label_range": [prep.label_lo, prep.label_hi],
        "label_range_from_data": prep.label_range_from_data,
        "mse_scale_to_original_units": prep.mse_unit,
        "gamma_hat": opt["gamma_hat"],
        "notes": list(prep.notes)
        + [
            "test_mse is on labels mapped to [-B1, B1]; multiply by mse_scale_to_original_units for original units.",
            (
                "For a linear model naive LLP fits the same regression as naive LBA, and weighted LLP without noise "
                "the same as wtd-LBA (same bags and weights), so their rows are equal."
            ),
        ],
    }
    for _, row in s.iterrows():
        mth = row["method"]
        for v in ("test_mse", "excess_risk", "ratio") if a.metric is None else (a.metric, "ratio"):
            out[f"{mth}_{v}_mean"] = row[f"{v}_mean"]
            out[f"{mth}_{v}_se"] = row[f"{v}_se"]
    _add_predictions(out, a, prep, opt)
    return out  # NaN/inf are written as null (dp_core.cli.to_jsonable)


# --- reproduce ----------------------------------------------------------------------------------


COMMANDS = [
    Command(
        "calibrate",
        MECH,
        "label-DP delta of wtd-LBA / noisy-wtd-LLP: paper-literal, corrected, exact; k_min, eps_min",
        _calibrate_args,
        _calibrate_run,
    ),
    Command(
        "simulate",
        MECH,
        "test MSE and excess risk of every aggregation mechanism and label-noise baseline",
        _simulate_args,
        _simulate_run,
    ),
    reproduce_command(
        MECH,
        "the paper's Tables 1-6 (as printed) beside a synthetic replica with OLS",
        __package__,
        out_help="output directory (CSV tables and HTML figures)",
        quick_help="small grid and few seeds (about a minute)",
    ),
]
