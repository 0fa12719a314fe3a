"""``calibrate large-margin-gaussian`` and ``simulate large-margin-gaussian``.

Modes on the command line: ``printed`` (P), ``repaired`` (P+), ``corrected`` (R, default). Every
P/P+ output carries ``"private": false``, ``"privacy_status": "not differentially private as
printed"`` and a one-sentence ``"privacy_reason"``.
"""

from __future__ import annotations

import math

from ... import status as vocab
from ...cli._common import (
    add_dataset_arguments,
    add_out_dir_arguments,
    add_seed_argument,
    check_reproduce_args,
    dataset_from_args,
)
from ...cli._registry import Command
from ...experiments import mean_se
from . import (
    MODE_LABELS,
    MODES,
    LargeMarginGaussian,
    accuracy_sweep,
    make_task,
    privacy_params,
)
from .bounds import bounds_for_mode

_MODE_HELP = "printed (P, the paper as printed), repaired (P+), corrected (R, default; the private one)"


def _privacy_block(acc) -> dict:
    out = {
        "mode": acc.mode,
        "mode_label": MODE_LABELS[acc.mode],
        "private": acc.private,
        "privacy_status": acc.status,
        "privacy_reason": acc.reason,
        "semantics": acc.semantics,
        "noise_dim": acc.noise_dim,
        "shared_noise": acc.shared_noise,
        "beta": acc.beta,
        "expected_noise_norm": acc.expected_noise_norm,
        "sd_noise_norm": acc.sd_noise_norm,
        "eps_noise": acc.eps_noise,
        "k": acc.k,
        "k_printed": acc.k_printed,
        "k_corrected": acc.k_corrected,
        "Delta": acc.Delta,
        "mu_eff": acc.mu_eff,
        "G": acc.G,
        "kappa": acc.kappa,
        "alpha": acc.alpha,
        "fallback": acc.fallback,
        "eps_claimed": acc.eps_claimed,
        "eps_claimed_label": (
            f"{vocab.REFUTED} (the paper's claim)" if not acc.private else f"{vocab.PROVED} (corrected)"
        ),
    }
    if acc.mode in ("printed", "repaired"):
        out["eps_prime"] = acc.eps_prime
    return out


def _calibrate_args(p):
    p.add_argument("--mode", default="corrected", help=_MODE_HELP)
    p.add_argument("--n", type=int, required=True, help="training-set size n >= 1")
    p.add_argument("--d", type=int, required=True, help="input dimension d >= 1")
    p.add_argument("--classes", type=int, default=3, help="number of classes C >= 2 (default 3)")
    p.add_argument("--eps", type=float, required=True, help="privacy budget epsilon in (0, inf)")
    p.add_argument("--lam", type=float, default=0.01, help="trace regulariser lambda, average form (default 0.01)")
    p.add_argument("--mu", type=float, default=None, help="Frobenius coefficient mu > 0 (default lambda; R only)")
    p.add_argument("--h", type=float, default=0.5, help="Huber width h > 0 (default 0.5)")
    p.add_argument("--delta", type=float, default=0.05, help="bound confidence delta in (0, 1) (NOT a DP delta)")
    p.add_argument("--semantics", default="target", help="target (eps is the total budget) or paper")
    p.add_argument("--jacobian", default="conservative", help="conservative (r_J = 2(C-1)) or tight (C-1)")
    p.add_argument(
        "--phi-star-norm",
        type=float,
        default=None,
        help="||Phi*||_F for term B of the corrected C5.3 bound (omitted when not given)",
    )


def _calibrate_run(a):
    acc = privacy_params(
        epsilon=a.eps,
        n=a.n,
        d=a.d,
        n_classes=a.classes,
        lam=a.lam,
        h=a.h,
        mu=a.mu,
        mode=a.mode,
        semantics=a.semantics,
        jacobian=a.jacobian,
    )
    from ..._validation import check_probability

    delta = check_probability("delta", a.delta, closed="neither")
    out = {
        "mechanism": "large-margin-gaussian",
        "eps": a.eps,
        "n": a.n,
        "d": a.d,
        "classes": a.classes,
        "lam": a.lam,
        "h": a.h,
        "delta": delta,
        "delta_note": "bound confidence (utility failure probability), not a DP delta",
    }
    out.update(_privacy_block(acc))
    out["bounds"] = bounds_for_mode(acc, delta=delta, phi_star_norm=a.phi_star_norm)
    return out


def _simulate_args(p):
    add_dataset_arguments(p, default="gaussian_classes")
    add_seed_argument(p)
    p.add_argument("--n", type=int, default=1000, help="training size (synthetic: rows drawn; real: subsample)")
    p.add_argument("--k", type=int, default=2, help="public projection dimension for d > k (real data; default 2)")
    p.add_argument("--modes", default="printed,repaired,corrected", help="comma-separated modes (" + _MODE_HELP + ")")
    p.add_argument("--eps", type=float, default=1.0, help="privacy budget epsilon in (0, inf)")
    p.add_argument("--lam", type=float, default=0.01, help="trace regulariser lambda (default 0.01)")
    p.add_argument("--mu", type=float, default=None, help="Frobenius coefficient mu (default lambda; R only)")
    p.add_argument("--h", type=float, default=0.5, help="Huber width h (default 0.5)")
    p.add_argument("--psd", default="on", help="PSD constraint: on (default) or off (P always on)")
    p.add_argument("--trials", type=int, default=30, help="noise draws per mode (default 30)")


def _simulate_run(a):
    from ..._validation import check_choice, check_int, check_seed

    modes = [m.strip() for m in str(a.modes).split(",") if m.strip()]
    if not modes:
        raise ValueError(f"modes must name at least one of {', '.join(MODES)}, got {a.modes!r}.")
    for m in modes:
        check_choice("modes", m, MODES)
    psd = check_choice("psd", a.psd, ("on", "off")) == "on"
    trials = check_int("trials", a.trials, lo=1, hi=100_000)
    check_seed(a.seed)
    if a.dataset.lower().endswith(".csv"):
        ds = dataset_from_args(a)
        n_train = a.n
    elif a.dataset == "gaussian_classes":
        ds = dataset_from_args(
            a,
            n=a.n,
            seed=a.seed,
            bounds_unused="to the synthetic dataset 'gaussian_classes': its rows are used as generated",
        )
        n_train = None
    else:
        ds = dataset_from_args(a)
        n_train = a.n
    task = make_task(ds, n_train=n_train if n_train and n_train < ds.n else None, k=a.k, seed=a.seed)
    base = LargeMarginGaussian(epsilon=a.eps, lam=a.lam, mu=a.mu, h=a.h, psd=psd)
    df = accuracy_sweep(task, epsilons=[a.eps], modes=modes, base=base, n_trials=trials, seed=a.seed)
    results = {}
    for method, g in df.groupby("method", sort=False):
        acc_m, acc_se = mean_se(g["accuracy"])
        ex_m, ex_se = mean_se(g["excess"])
        ag_m, ag_se = mean_se(g["agreement"])
        entry = {
            "accuracy_mean": acc_m,
            "accuracy_se": acc_se,
            "excess_risk_mean": ex_m,
            "excess_risk_se": ex_se,
            "agreement_with_nonprivate_mean": ag_m,
            "agreement_with_nonprivate_se": ag_se,
            "unbounded_share": float(g["unbounded"].mean()),
            "nonconverged_share_of_bounded": (
                float(1.0 - g.loc[g["unbounded"] == 0, "converged"].mean()) if (g["unbounded"] == 0).any() else math.nan
            ),
            "trials": len(g),
        }
        if method != "nonprivate":
            cfg = LargeMarginGaussian(
                epsilon=a.eps, mode=method, lam=a.lam, mu=a.mu, h=a.h, psd=True if method == "printed" else psd
            )
            acc = cfg.accounting(n=task.n, d=task.d, n_classes=task.n_classes)
            entry.update(_privacy_block(acc))
        else:
            entry.update(
                {
                    "mode": "nonprivate",
                    "private": False,
                    "privacy_status": "no privacy (reference)",
                    "unbounded_share": 0.0,
                }
            )
        results[method] = entry
    return {
        "mechanism": "large-margin-gaussian",
        "dataset": ds.name,
        "n_train": task.n,
        "n_test": int(task.X_test.shape[0]),
        "d": task.d,
        "classes": task.n_classes,
        "eps": a.eps,
        "lam": a.lam,
        "h": a.h,
        "psd": psd,
        "trials": trials,
        "seed": a.seed,
        "preprocessing": list(task.notes),
        "data_dependent_preprocessing": task.data_dependent,
        "excess_risk_definition": "J(Phi^p) - J(Phi*) for the same smoothed objective (same lam, mu_eff, h)",
        "results": results,
    }


COMMANDS = [
    Command(
        "calibrate",
        "large-margin-gaussian",
        "Large-margin Gaussian classifier: noise rate, budget split, claimed epsilon and bound tiers per mode",
        _calibrate_args,
        _calibrate_run,
    ),
    Command(
        "simulate",
        "large-margin-gaussian",
        "Large-margin Gaussian classifier: accuracy and excess risk per mode (mean, SE) and the unbounded share",
        _simulate_args,
        _simulate_run,
    ),
]


def _reproduce_args(p):
    add_out_dir_arguments(p, "output directory (created if missing)")
    p.add_argument("--quick", action="store_true", help="5 draws per point and a 5,000-point test set (for CI)")
    add_seed_argument(p)
    p.add_argument("--trials", type=int, default=None, help="noise draws per point (default 20 / 15; quick: 5)")


def _reproduce_run(a):
    check_reproduce_args(a, "large_margin_gaussian_")
    from .reproduce import reproduce

    return reproduce(a.out, quick=a.quick, seed=a.seed, n_trials=a.trials)


COMMANDS.append(
    Command(
        "reproduce",
        "large-margin-gaussian",
        "Large-margin Gaussian classifier: re-run the specification's pilot (section 6.2; the paper has no "
        "experiments)",
        _reproduce_args,
        _reproduce_run,
    )
)
