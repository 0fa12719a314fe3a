"""Options shared by several commands."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_count, check_output_dir, check_output_file, check_seed
from ._registry import CliError, Command

if TYPE_CHECKING:  # dp_core.data (pandas) loads only for commands that read a dataset (issue 29: start-up)
    from ..data import Dataset


def add_dataset_arguments(parser: argparse.ArgumentParser, *, default: str | None = None) -> None:
    """``--dataset NAME|PATH.csv``, ``--target COLUMN`` (CSV only), ``--n`` and ``--seed``."""
    from ..data import DATASETS

    names = ", ".join(DATASETS)
    parser.add_argument(
        "--dataset", default=default, required=default is None, help=f"a demo dataset ({names}) or a path to a CSV file"
    )
    parser.add_argument("--target", default=None, help="target column of a CSV file (default: the last column)")
    parser.add_argument("--onehot", action="store_true", help="one-hot encode non-numeric CSV columns (default: error)")
    parser.add_argument(
        "--drop-missing", action="store_true", help="drop CSV rows with missing values (default: error)"
    )
    add_bounds_argument(parser)


BOUNDS_HELP = (
    "declared public per-column bounds of the features: 'lo:hi,lo:hi,...' (one lo:hi or lo:hi:centre:scale per "
    "feature, in column order), or @FILE.csv / @FILE.json with column,lo,hi[,centre,scale] per feature. "
    "Without it a CSV's bounds are computed from its columns and reported as a leak; a demo dataset uses "
    "its documented ranges"
)


def add_bounds_argument(parser: argparse.ArgumentParser) -> None:
    """``--bounds SPEC``: public per-column bounds declared for the dataset (:func:`bounds_from_spec`)."""
    parser.add_argument("--bounds", default=None, metavar="SPEC", help=BOUNDS_HELP)


def bounds_from_spec(spec: str, feature_names) -> object:
    """Declared :class:`~dp_core.preprocessing.PublicBounds` from ``--bounds``'s value.

    ``lo:hi,...`` is the text form of :func:`dp_core.preprocessing.parse_bounds`; ``@FILE.csv`` is a
    CSV with a header ``column,lo,hi`` (optionally ``centre,scale``), one row per feature;
    ``@FILE.json`` is a list of such objects or an object ``{column: [lo, hi]}`` /
    ``{column: {"lo": .., "hi": ..}}``. Errors (``ValueError``, one line) name the column.
    """
    import csv
    import json
    from pathlib import Path

    from ..preprocessing import bounds_from_records, parse_bounds

    if not isinstance(spec, str) or not spec.strip():
        raise CliError("--bounds must be 'lo:hi,lo:hi,...' or @FILE.csv / @FILE.json, got an empty value.")
    spec = spec.strip()
    if not spec.startswith("@"):
        return parse_bounds(spec, feature_names)
    path = Path(spec[1:])
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise CliError(f"--bounds file must end in .csv or .json, got {path.name!r}.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"--bounds file {str(path)!r} cannot be read: {exc.__class__.__name__}.") from None
    if suffix == ".csv":
        reader = csv.DictReader(text.splitlines())
        fields = [f.strip().lower() for f in (reader.fieldnames or [])]
        if not {"column", "lo", "hi"} <= set(fields):
            raise CliError(f"--bounds file {path.name!r} needs a header with column, lo, hi, got {fields}.")
        records = [{(k or "").strip().lower(): v for k, v in row.items()} for row in reader]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CliError(f"--bounds file {path.name!r} is not valid JSON: {exc.msg} (line {exc.lineno}).") from None
        if isinstance(data, dict):
            records = []
            for col, v in data.items():
                if isinstance(v, dict):
                    records.append({"column": col, **v})
                elif isinstance(v, (list, tuple)) and len(v) in (2, 4):
                    records.append(dict(zip(("column", "lo", "hi", "centre", "scale"), (col, *v))))
                else:
                    raise CliError(f"--bounds file {path.name!r}: column {col!r} needs [lo, hi] or an object.")
        elif isinstance(data, list):
            records = data
        else:
            raise CliError(f"--bounds file {path.name!r} must hold a list or an object, got {type(data).__name__}.")
    return bounds_from_records(records, feature_names)


def apply_bounds_arg(args: argparse.Namespace, ds: Dataset) -> Dataset:
    """``ds`` with the bounds of ``--bounds`` declared (unchanged when the option is absent)."""
    spec = getattr(args, "bounds", None)
    if spec is None:
        return ds
    return ds.with_public_bounds(bounds_from_spec(spec, ds.feature_names))


def add_preprocess_argument(parser: argparse.ArgumentParser) -> None:
    """``--preprocess RULE``: how rows reach the unit ball (:mod:`dp_core.preprocessing`)."""
    from ..preprocessing import DEFAULT_PREPROCESS, PREPROCESS_HELP, PREPROCESS_METHODS

    rules = "; ".join(f"{k}: {v}" for k, v in PREPROCESS_HELP.items())
    parser.add_argument(
        "--preprocess",
        choices=PREPROCESS_METHODS,
        default=DEFAULT_PREPROCESS,
        help=f"row preprocessing from the dataset's public per-column bounds (default {DEFAULT_PREPROCESS}). {rules}. "
        "A CSV file has no public bounds unless --bounds declares them: they are computed from its columns "
        "and reported as a leak.",
    )


def eps_help(extra: str = "in (0, inf)") -> str:
    """Help text of an ``--eps`` option, from the glossary (one source for the app's and the CLI's wording)."""
    from ..glossary import lookup_shared as lookup

    return f"ε, the privacy budget ({extra}): {lookup('ε').plain}"


def delta_help(extra: str = "in (0, 1)") -> str:
    from ..glossary import lookup_shared as lookup

    return f"δ ({extra}): {lookup('δ').plain}"


def add_seed_argument(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument("--seed", type=int, default=default, help=f"random seed (default {default})")


def dataset_from_args(
    args: argparse.Namespace, *, n: int | None = None, seed: int = 0, bounds_unused: str | None = None, **options
) -> Dataset:
    """Load the dataset named by ``--dataset`` (demo name or CSV path), with ``--bounds`` declared if given.

    ``bounds_unused``: the reason this command never reads per-column bounds (``"to release
    label-dp-bags: ..."``); ``--bounds`` is then refused with it instead of being silently ignored.
    """
    from ..data import load_dataset

    if bounds_unused is not None:
        reject_unused(args, {"bounds": "--bounds"}, bounds_unused)
    name = args.dataset
    if not isinstance(name, str) or not name.strip():
        raise CliError(f"--dataset must be a demo dataset name or a path to a .csv file, got {name!r}.")
    if name.lower().endswith(".csv"):
        ds = load_dataset(
            name,
            target=args.target,
            non_numeric="onehot" if getattr(args, "onehot", False) else "error",
            missing="drop_rows" if getattr(args, "drop_missing", False) else "error",
        )
    else:
        reject_unused(args, {"target": "--target"}, f"to the demo dataset {name!r} (only to a CSV --dataset)")
        if getattr(args, "onehot", False) or getattr(args, "drop_missing", False):
            raise CliError(
                f"--onehot and --drop-missing do not apply to the demo dataset {name!r} (only to a CSV --dataset)."
            )
        ds = load_dataset(name, n=n, seed=seed, **options)
    return apply_bounds_arg(args, ds)


def add_out_dir_arguments(parser: argparse.ArgumentParser, help: str = "output folder (created if missing)") -> None:
    """``--out FOLDER`` and ``--force`` (overwrite the files of an earlier run in that folder)."""
    parser.add_argument("--out", required=True, help=help + "; its parent folder must exist")
    add_force_argument(parser, "overwrite files of an earlier run in --out (default: refuse)")


def add_force_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``--force`` (also spelled ``--overwrite``): overwrite existing output files."""
    parser.add_argument("--force", "--overwrite", dest="force", action="store_true", help=help)


def config_bytes(args: argparse.Namespace) -> bytes:
    from pathlib import Path

    path = Path(args.config)
    if not path.is_file():
        raise FileNotFoundError(f"--config file {args.config!r} does not exist.")
    return path.read_bytes()


def output_files(args: argparse.Namespace, other: str):
    """``--out`` and the optional second output file ``other`` (``--csv``, ``--script``), checked and different."""
    out = check_output_file("--out", args.out, overwrite=args.force)
    value = getattr(args, other[2:])
    second = None if value is None else check_output_file(other, value, overwrite=args.force)
    if second is not None and second.absolute() == out.absolute():
        raise CliError(f"{other} and --out must be different files.")
    return out, second


def check_reproduce_args(args: argparse.Namespace, prefix: str, *, max_trials: int = 10_000):
    """Validate ``--seed``, ``--trials`` and ``--out`` of a ``reproduce`` command before it computes."""
    check_seed(args.seed)
    if getattr(args, "trials", None) is not None:
        check_count("trials", args.trials, lo=1, hi=max_trials)
    return check_output_dir("--out", args.out, prefix=prefix, overwrite=args.force)


def reproduce_command(
    mechanism: str,
    help: str,
    package: str,
    *,
    out_help: str,
    quick_help: str,
    trials_help: str | None = None,
    extra_args: Callable[[argparse.ArgumentParser], None] | None = None,
    extra_kwargs: Callable[[argparse.Namespace], dict] | None = None,
) -> Command:
    """The ``reproduce`` command of a mechanism: ``--out``/``--force``, ``--quick``, ``--seed``, ``--trials`` (when
    ``trials_help`` is given) and ``extra_args(parser)``; it checks them (``check_reproduce_args``), then calls
    ``PACKAGE.reproduce.reproduce(out, quick=, seed=[, n_trials=], **extra_kwargs(args))``.
    """

    def add_arguments(p: argparse.ArgumentParser) -> None:
        add_out_dir_arguments(p, out_help)
        p.add_argument("--quick", action="store_true", help=quick_help)
        add_seed_argument(p)
        if trials_help is not None:
            p.add_argument("--trials", type=int, default=None, help=trials_help)
        if extra_args is not None:
            extra_args(p)

    def run(a: argparse.Namespace) -> dict:
        check_reproduce_args(a, mechanism.replace("-", "_") + "_")
        kwargs = {} if trials_help is None else {"n_trials": a.trials}
        kwargs.update(extra_kwargs(a) if extra_kwargs is not None else {})
        reproduce = importlib.import_module(package + ".reproduce").reproduce
        return reproduce(a.out, quick=a.quick, seed=a.seed, **kwargs)

    return Command("reproduce", mechanism, help, add_arguments, run)


def reject_unused(args: argparse.Namespace, names: dict[str, str], reason: str) -> None:
    """Refuse options the user gave that this command (with these settings) does not use.

    ``names`` maps an attribute of ``args`` to its option name; an option counts as given when its
    value is not ``None`` (declare such options with ``default=None``).
    """
    given = [flag for attr, flag in names.items() if getattr(args, attr, None) is not None]
    if given:
        raise CliError(f"{', '.join(given)} does not apply {reason}.")


#: Verbs whose Monte-Carlo work can run on a Dask cluster (``--workers`` / ``--scheduler``).
EXECUTION_VERBS = ("simulate", "audit", "reproduce", "negotiate", "compare", "report", "precompute")


def add_execution_options(parser: argparse.ArgumentParser) -> None:
    """``--workers N`` (a local Dask cluster of N processes) and ``--scheduler ADDRESS`` (exclusive).

    Without either, ``DP_CORE_SCHEDULER`` / ``DP_CORE_WORKERS`` decide (unset: in-process). The
    numbers are identical whichever runs the blocks (see :mod:`dp_core.execution`).
    """
    group = parser.add_argument_group("where the Monte-Carlo blocks run (same numbers either way)")
    ex = group.add_mutually_exclusive_group()
    ex.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="start a local Dask cluster of N worker processes (0: in this process; default: $DP_CORE_WORKERS)",
    )
    ex.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run on an existing Dask scheduler, e.g. tcp://127.0.0.1:8786 (default: $DP_CORE_SCHEDULER)",
    )


def executor_from_args(args: argparse.Namespace):
    """The :class:`dp_core.execution.Executor` chosen by ``--workers`` / ``--scheduler`` or the environment."""
    from .. import execution

    workers = getattr(args, "workers", None)
    scheduler = getattr(args, "scheduler", None)
    if workers is None and scheduler is None:
        return execution.current_executor()
    if scheduler is not None:
        execution.check_scheduler_address(scheduler, "--scheduler")
    if workers is not None and not 0 <= workers <= execution.MAX_LOCAL_WORKERS:
        raise CliError(f"--workers must be an integer in [0, {execution.MAX_LOCAL_WORKERS}], got {workers}.")
    return execution.get_executor(workers=workers, scheduler=scheduler, lazy=True)


def add_param_options(parser: argparse.ArgumentParser, specs, *, defaults: dict | None = None, skip=()) -> None:
    """One option per :class:`~dp_core.plugin.ParamSpec` (``--field-name``), generated from the config's fields.

    ``defaults`` overrides a declared default for this command; a ``bool`` is ``--x/--no-x``. Values are
    read as text and checked by :func:`param_values`, so an error names the parameter and its range.
    """
    defaults = defaults or {}
    for spec in specs:
        if spec.name in skip:
            continue
        default = defaults.get(spec.name, spec.default)
        text = spec.help or spec.label
        if spec.kind is bool:
            parser.add_argument(
                spec.flag, dest=spec.name, action=argparse.BooleanOptionalAction, default=default, help=text
            )
            continue
        shown = "data-dependent" if default is None else default
        parser.add_argument(
            spec.flag,
            dest=spec.name,
            default=None if default is None else str(default),
            metavar=(spec.symbol or spec.name).upper() if spec.kind is not str else None,
            choices=[str(o) for o in spec.options] if spec.kind is str and spec.options else None,
            help=f"{text}; {spec.range_text()} (default {shown})".lstrip("; "),
        )


def param_values(args: argparse.Namespace, specs) -> dict:
    """``{name: value}`` of the options :func:`add_param_options` added (``None`` where none was given)."""
    out = {}
    for spec in specs:
        if not hasattr(args, spec.name):
            continue
        raw = getattr(args, spec.name)
        try:
            out[spec.name] = raw if raw is None or spec.kind is bool else spec.parse(str(raw))
        except (TypeError, ValueError) as exc:
            raise CliError(f"{spec.flag}: {exc}") from None
    return out


# -- the label rules of a release (public range or bound; two classes coded -1/+1) --------------------
def add_y_range(p) -> None:
    p.add_argument(
        "--y-range",
        type=float,
        nargs=2,
        default=None,
        metavar=("LO", "HI"),
        help="public range of the target, mapped linearly onto the label bound (default: used as given)",
    )


def labels_in_range(ds, y_range, bound: float) -> tuple[np.ndarray, str]:
    """Regression target, mapped from a declared public range onto [-bound, bound] and clipped."""
    y = np.asarray(ds.y, dtype=float)
    if y_range is None:
        return np.clip(y, -bound, bound), f"labels clipped to [-{bound:g}, {bound:g}] (public bound)"
    lo, hi = (float(v) for v in y_range)
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise ValueError(f"y-range must be two finite numbers LO < HI, got {lo!r} and {hi!r}.")
    mapped = np.clip((2.0 * (y - lo) / (hi - lo) - 1.0) * bound, -bound, bound)
    return mapped, f"labels mapped from the declared range [{lo:g}, {hi:g}] onto [-{bound:g}, {bound:g}] and clipped"


def two_classes(ds) -> np.ndarray:
    classes = np.unique(ds.y)
    if classes.size != 2:
        raise ValueError(
            f"dataset must have a regression target or exactly 2 classes for input perturbation, got "
            f"{ds.name!r} with {classes.size} classes."
        )
    return np.where(ds.y == classes[1], 1.0, -1.0)
