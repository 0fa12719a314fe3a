"""``python -m dp_core compare``, ``negotiate`` and ``report`` (verbs without a mechanism)."""

from __future__ import annotations

import argparse

from .._validation import check_count, check_seed
from ..compare import compare_param_specs, config_from_json
from ..data import load_dataset
from ._common import add_bounds_argument, add_force_argument, add_preprocess_argument, apply_bounds_arg, reject_unused
from ._registry import Command


def _compare_names() -> list[str]:
    from ..registry import plugins

    return [p.name for p in plugins() if p.has("compare")]


def _adapter_keys(names: list[str]) -> list[str]:
    """``--mechanisms`` values (canonical names; old spellings print one deprecation line) as adapter keys."""
    from .. import registry
    from ..registry import canonical_name, get
    from . import _deprecated

    valid = _compare_names()
    unknown = [n for n in names if registry.folder_of(n) is None or registry.get(n).name not in valid]
    if unknown:
        raise ValueError(f"mechanisms must be among {valid}, got unknown {unknown}.")
    return [get(canonical_name(n, on_alias=_deprecated)).key for n in names]


def _store(args: argparse.Namespace):
    """The context the command runs in: the shipped results switched off by ``--no-precomputed``."""
    import contextlib

    from .. import precomputed

    return precomputed.disabled() if getattr(args, "no_precomputed", False) else contextlib.nullcontext()


def _add_grid_and_data(
    p: argparse.ArgumentParser, *, grid: tuple = (0.05, 10.0, 8), delta_help: str = "of the (epsilon, delta) mechanisms"
) -> None:
    """The options ``compare`` and ``negotiate`` share: dataset, mechanisms, grid, trials, seed, parameters."""
    eps_min, eps_max, n_eps = grid
    p.add_argument("--dataset", required=True, help="a demo dataset name or a path to a CSV file")
    p.add_argument("--target-column", default=None, help="target column of a CSV file (default: the last column)")
    p.add_argument(
        "--mechanisms",
        nargs="+",
        default=None,
        metavar="NAME",
        help=f"mechanisms to use (default: all applicable): {', '.join(_compare_names())}",
    )
    p.add_argument("--delta", type=float, default=1e-5, help=f"delta {delta_help} (default 1e-5)")
    p.add_argument("--trials", type=int, default=50, help="Monte-Carlo trials per grid point (default 50)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--eps-min", type=float, default=eps_min, help=f"smallest epsilon of the grid (default {eps_min:g})")
    p.add_argument("--eps-max", type=float, default=eps_max, help=f"largest epsilon of the grid (default {eps_max:g})")
    p.add_argument("--n-eps", type=int, default=n_eps, help=f"grid points, log-spaced (default {n_eps})")
    add_preprocess_argument(p)
    add_bounds_argument(p)
    # the mechanisms' own comparison parameters (label-DP's k, m, rho), declared by their plug-ins
    for spec in compare_param_specs().values():
        p.add_argument(spec.flag, type=spec.kind, default=spec.default, help=_param_help(spec))
    p.add_argument(
        "--no-precomputed",
        action="store_true",
        help="compute everything, never answering from the shipped demo results (same numbers, slower; "
        "also: DP_CORE_NO_PRECOMPUTED=1)",
    )


def _param_help(spec) -> str:
    """CLI help of a mechanism's comparison parameter; ``0 = auto`` ones (label-DP's k, m) say so."""
    if spec.help.startswith("0 = auto"):
        return f"{spec.label} (default {spec.help})"
    return f"{spec.label} (default {spec.default})"


def _dataset_of(args: argparse.Namespace):
    """The dataset of ``--dataset`` once the seed, trials and grid size are checked (``compare``, ``negotiate``)."""
    check_seed(args.seed)
    check_count("trials", args.trials, lo=1, hi=100_000)
    check_count("n_eps", args.n_eps, lo=2, hi=200)
    if args.dataset.lower().endswith(".csv"):
        return apply_bounds_arg(args, load_dataset(args.dataset, target=args.target_column))
    reject_unused(
        args, {"target_column": "--target-column"}, f"to the demo dataset {args.dataset!r} (only to a CSV --dataset)"
    )
    return apply_bounds_arg(args, load_dataset(args.dataset))


def _mechanisms(args: argparse.Namespace) -> list[str] | None:
    return None if args.mechanisms is None else _adapter_keys(args.mechanisms)


def _params(args: argparse.Namespace) -> dict:
    return {name: getattr(args, name) for name in compare_param_specs()}


def _bounds_info(ds) -> dict:
    """Where the dataset's per-column bounds come from (the JSON's ``bounds`` entry)."""
    from ..data import public_bounds
    from ..preprocessing import format_bounds

    b = public_bounds(ds)
    out = {"source": b.source, "declared": ds.declared_bounds is not None, "text": format_bounds(b)}
    if b.data_derived:
        out["leak"] = b.leak_warning
    return out


def _run_compare(args: argparse.Namespace) -> dict:
    """Every applicable mechanism over one epsilon grid: per method and epsilon, measured utility and excess risk."""
    from ..compare import default_epsilons, make_spec, run_compare

    ds = _dataset_of(args)
    spec = make_spec(
        epsilons=default_epsilons(args.eps_min, args.eps_max, args.n_eps),
        delta=args.delta,
        n_trials=args.trials,
        seed=args.seed,
        preprocess=args.preprocess,
        **_params(args),
    )
    with _store(args):
        res = run_compare(ds, spec, mechanisms=_mechanisms(args))
    drop = ["adapter"] + ([] if res.has_mae else [c for c in res.summary.columns if c.startswith("mae_")])
    summary = res.summary.drop(columns=[c for c in drop if c in res.summary.columns])
    extra = {"nonprivate_mae": res.nonprivate_mae} if res.has_mae else {}  # regression: test MAE, target's units
    head = {k: getattr(res, k) for k in ("dataset", "task", "metric")}
    setting = {"epsilons": list(spec.epsilons), "delta": spec.delta, "trials": spec.n_trials, "seed": spec.seed}
    return {
        **head,
        **setting,
        "preprocess": spec.preprocess,
        "methods": res.methods,
        "nonprivate": res.nonprivate,
        **extra,
        "summary": summary.to_dict(orient="records"),
        "skipped": res.skipped,
        "bounds": _bounds_info(ds),
    }


def _add_negotiate(p: argparse.ArgumentParser) -> None:
    _add_grid_and_data(p, grid=(0.01, 20.0, 10), delta_help="when no delta target is given")
    p.add_argument(
        "--target",
        dest="targets",
        action="append",
        required=True,
        metavar="METRIC=VALUE",
        help="accuracy=0.9, r2=0.3, mae=50 (test mean absolute error in the target's units, at most), "
        "excess_risk=0.01 or delta=1e-6 (repeat for a delta target too); a risk cap beside them: "
        "tpr_at_fpr_0.01<=0.05, tpr_at_fpr_0.001<=0.01 or mia_advantage<=0.1 (the largest epsilon under it)",
    )
    p.add_argument(
        "--eps", dest="epsilon", type=float, default=1.0, help="the chosen epsilon (for the label-DP k answer)"
    )
    p.add_argument(
        "--solve-for",
        choices=("epsilon", "n"),
        default="epsilon",
        help="epsilon (default) or n: the smallest number of rows at --eps, from measured learning curves "
        "(accuracy, r2, mae, excess_risk) and from the bound (excess_risk only: no bound exists on accuracy, R² or "
        "MAE); reports n_min, n_min_lo, n_min_hi, n_min_source per method",
    )
    p.add_argument(
        "--rows-factor",
        type=float,
        default=1.0,
        help="answer the smallest epsilon for a dataset this many times as large (2 = twice the rows; "
        "extrapolated from learning curves; default 1)",
    )


def _run_negotiate(args: argparse.Namespace) -> dict:
    from ..negotiate import negotiate

    ds = _dataset_of(args)
    with _store(args):
        out = negotiate(
            ds,
            args.targets,
            epsilon=args.epsilon,
            delta=args.delta,
            mechanisms=_mechanisms(args),
            n_trials=args.trials,
            seed=args.seed,
            eps_min=args.eps_min,
            eps_max=args.eps_max,
            n_points=args.n_eps,
            preprocess=args.preprocess,
            **_params(args),
            solve_for=args.solve_for,
            rows_factor=args.rows_factor,
        )
    if isinstance(out, dict):
        out["bounds"] = _bounds_info(ds)
    return out


def _add_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="JSON configuration (downloaded from the app or a report)")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.add_argument("--csv", default=None, help="also write the results CSV here")
    p.add_argument("--data", default=None, help="CSV file of an uploaded dataset (its fingerprint must match)")
    p.add_argument("--data-target", default=None, help="target column of --data (default: the last column)")
    add_force_argument(p, "overwrite --out / --csv if they exist (default: refuse)")


def _run_report(args: argparse.Namespace) -> dict:
    from ..report import build_report
    from ._common import config_bytes, output_files

    config = config_bytes(args)
    out, csv = output_files(args, "--csv")
    if args.data is None:
        reject_unused(args, {"data_target": "--data-target"}, "without --data")
    cfg = config_from_json(config)
    ds = load_dataset(args.data, target=args.data_target) if args.data else None
    rep = build_report(cfg, dataset=ds)
    out.write_text(rep.html, encoding="utf-8")
    result = {
        "out": str(out),
        "bytes": len(rep.html.encode()),
        "dataset": rep.result.dataset,
        "fingerprint": rep.config.dataset_fingerprint,
        "seed": cfg.seed,
        "methods": len(rep.result.methods),
        "rows": len(rep.result.summary),
        "skipped": rep.result.skipped,
    }
    if args.csv:
        csv.write_text(rep.csv, encoding="utf-8")
        result["csv"] = args.csv
    return result


# ``verb mechanism`` pairs this module defines, read without importing it (see dp_core.cli._lazy)
CLI_NAMES = (("compare", ""), ("negotiate", ""), ("report", ""))

COMMANDS = [
    Command(
        "compare",
        "",
        "every applicable mechanism over one epsilon grid: measured utility and excess risk per method",
        _add_grid_and_data,
        _run_compare,
    ),
    Command(
        "negotiate", "", "smallest epsilon (or rows) per mechanism meeting a target", _add_negotiate, _run_negotiate
    ),
    Command("report", "", "write the HTML report of a JSON configuration", _add_report, _run_report),
]
