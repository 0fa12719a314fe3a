"""LargeMarginGaussianClassifier: accuracy of its defaults against the majority-class rate, before and after.

Run (needs scikit-learn and statsmodels, both in requirements-dev.txt)::

    nice -n 10 .venv/bin/python benchmarks/bench_estimator_defaults.py             # 10 seeds
    nice -n 10 .venv/bin/python benchmarks/bench_estimator_defaults.py --seeds 3   # quick look

Prints the Markdown table of docs/estimators.md ("Defaults of the large-margin classifier").

Datasets (binary unless said): breast_cancer (the project's; rule chosen here), digits 0-vs-rest (seen while
diagnosing the old default), and never seen while choosing the rule: wine class 0 vs rest, wine (3 classes),
statsmodels ``fair`` (affairs > 0), statsmodels ``anes96`` (vote). For each seed, a seeded 80/20 split;
columns standardised with the training mean and standard deviation and every row scaled to unit norm
(outside the guarantee, as in bench_vs_library.py); ``data_norm = 1``. "before" is the old default
(``lam = mu = 0.1`` for epsilon >= 0.5, ``n_components = min(d, 5)``); "after" is the estimator's default.
Accuracy is the mean ± standard error over the seeds; "constant" counts fits that predict one class for
every training row.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core.estimators import LargeMarginGaussianClassifier  # noqa: E402
from dp_core.exceptions import DegenerateFitWarning  # noqa: E402

DATASETS = ("breast_cancer", "digits0", "wine0", "wine3", "fair", "anes96")
EPSILONS = (1.0, 5.0)


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and integer labels of one benchmark dataset."""
    if name == "breast_cancer":
        from dp_core.data import load_dataset

        ds = load_dataset("breast_cancer")
        return np.asarray(ds.X, float), np.asarray(ds.y).astype(int)
    if name in ("digits0", "wine0", "wine3"):
        from sklearn.datasets import load_digits, load_wine

        d = load_digits() if name == "digits0" else load_wine()
        y = d.target if name == "wine3" else (d.target == 0).astype(int)
        return d.data.astype(float), y
    import statsmodels.api as sm

    if name == "fair":
        df = sm.datasets.fair.load_pandas().data
        return df.drop(columns="affairs").to_numpy(float), (df["affairs"] > 0).to_numpy().astype(int)
    df = sm.datasets.anes96.load_pandas().data
    return df.drop(columns="vote").to_numpy(float), df["vote"].to_numpy().astype(int)


def split(X: np.ndarray, y: np.ndarray, seed: int):
    """Seeded 80/20 split; standardised columns (training statistics), rows scaled to unit norm."""
    idx = np.random.default_rng([seed, 7]).permutation(y.size)
    cut = int(0.8 * y.size)
    tr, te = idx[:cut], idx[cut:]
    sd = X[tr].std(axis=0)
    Z = (X - X[tr].mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    Z /= np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)
    return Z[tr], y[tr], Z[te], y[te]


def model(which: str, eps: float, d: int, seed: int) -> LargeMarginGaussianClassifier:
    if which == "after":
        return LargeMarginGaussianClassifier(epsilon=eps, data_norm=1.0, random_state=seed)
    lam = 0.3 if eps < 0.5 else 0.1
    k = 5 if d > 5 else None
    return LargeMarginGaussianClassifier(epsilon=eps, lam=lam, n_components=k, data_norm=1.0, random_state=seed)


def measure(name: str, which: str, eps: float, seeds: int) -> dict:
    X, y = load(name)
    acc, maj, const = [], [], 0
    for s in range(seeds):
        Xtr, ytr, Xte, yte = split(X, y, s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateFitWarning)
            m = model(which, eps, X.shape[1], s).fit(Xtr, ytr)
        const += int(np.unique(m.predict(Xtr)).size == 1)
        acc.append(float(np.mean(m.predict(Xte) == yte)))
        maj.append(float(np.bincount(yte).max() / yte.size))
    a, b = np.array(acc), np.array(maj)
    return {
        "acc": a.mean(),
        "se": a.std(ddof=1) / np.sqrt(a.size),
        "maj": b.mean(),
        "gain_se": (a - b).mean() / max((a - b).std(ddof=1) / np.sqrt(a.size), 1e-12),
        "const": const,
        "n": int(0.8 * y.size),
        "d": X.shape[1],
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    args = ap.parse_args(argv)
    print(f"Accuracy (mean ± SE over {args.seeds} seeds) and fits that predicted one class on the training rows.\n")
    cols = ["Dataset (n train, d)", "ε", "majority rate", "before", "after", "after − majority, in SE"]
    print("| " + " | ".join([*cols, "constant, before/after"]) + " |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        for eps in EPSILONS:
            b, a = measure(name, "before", eps, args.seeds), measure(name, "after", eps, args.seeds)
            print(
                f"| {name} ({a['n']:,}, {a['d']}) | {eps:g} | {a['maj']:.3f} | {b['acc']:.3f} ± {b['se']:.3f} "
                f"| {a['acc']:.3f} ± {a['se']:.3f} | {a['gain_se']:+.1f} | {b['const']}/{a['const']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
