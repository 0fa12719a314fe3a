"""Options shared by several commands."""

from __future__ import annotations

import argparse

from ..data import DATASETS, Dataset, load_dataset


def add_dataset_arguments(parser: argparse.ArgumentParser, *, default: str | None = None) -> None:
    """``--dataset NAME|PATH.csv``, ``--target COLUMN`` (CSV only), ``--n`` and ``--seed``."""
    names = ", ".join(DATASETS)
    parser.add_argument("--dataset", default=default, required=default is None,
                        help=f"a demo dataset ({names}) or a path to a CSV file")
    parser.add_argument("--target", default=None, help="target column of a CSV file (default: the last column)")
    parser.add_argument("--onehot", action="store_true", help="one-hot encode non-numeric CSV columns (default: error)")
    parser.add_argument("--drop-missing", action="store_true", help="drop CSV rows with missing values (default: error)")


def add_seed_argument(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument("--seed", type=int, default=default, help=f"random seed (default {default})")


def dataset_from_args(args: argparse.Namespace, *, n: int | None = None, seed: int = 0, **options) -> Dataset:
    """Load the dataset named by ``--dataset`` (demo name or CSV path)."""
    name = args.dataset
    if name.lower().endswith(".csv"):
        return load_dataset(name, target=args.target, non_numeric="onehot" if getattr(args, "onehot", False) else "error",
                            missing="drop_rows" if getattr(args, "drop_missing", False) else "error")
    return load_dataset(name, n=n, seed=seed, **options)
