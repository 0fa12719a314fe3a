"""dp_core.estimators against diffprivlib (the best-known DP library): accuracy, MAE and time per fit.

Run (diffprivlib 0.6.6 needs scikit-learn < 1.6, so it gets its own environment; see requirements-bench.txt)::

    python -m venv .venv-bench
    .venv-bench/bin/pip install -r requirements.txt -r requirements-bench.txt
    nice -n 10 .venv-bench/bin/python benchmarks/bench_vs_library.py            # 30 seeds
    nice -n 10 .venv-bench/bin/python benchmarks/bench_vs_library.py --seeds 3  # quick look

Prints Markdown tables (the ones in docs/estimators.md).

breast_cancer (569 rows, 30 features, binary): for each seed, a seeded 80/20 split; columns
standardised with the training mean and standard deviation and every row scaled to unit norm (the
same data for both libraries; the standardisation looks at the training data, which neither
library's guarantee covers, identically for both). Both libraries are told ``data_norm = 1``.
Accuracy is the mean ± standard error over the seeds; time is the median process-CPU time of one
``fit``, and the ratio divides it by diffprivlib's ``LogisticRegression`` fit at the same epsilon.

randhie (20,190 rows, 9 features, heavy-tailed count target): seeded 80/20 split, columns
standardised and divided by sqrt(d). Mean absolute error on the test rows of the l1
exponential-mechanism regressor, of the label-DP bag regressor, of diffprivlib's
``LinearRegression`` (bounds: the training ranges of the features, labels in [0, 30]), of our
output-perturbation ridge regressor, and of the non-private LAD fit.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_core import display
from dp_core.data import load_dataset
from dp_core.estimators import (
    InputPerturbationClassifier,
    L1ExponentialRegressor,
    LabelDPBagRegressor,
    LargeMarginGaussianClassifier,
    ObjectivePerturbationClassifier,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
)

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
DELTA = 1e-5


def _import_library():
    try:
        import diffprivlib
        from diffprivlib.models import LinearRegression, LogisticRegression
    except (ImportError, TypeError, AttributeError) as exc:  # also diffprivlib failing against a newer scikit-learn
        sys.exit(
            f"diffprivlib could not be imported ({type(exc).__name__}: {exc}). Install requirements-bench.txt "
            "in its own environment (diffprivlib 0.6.6 needs scikit-learn < 1.6)."
        )
    return diffprivlib.__version__, LogisticRegression, LinearRegression


def _timed_fit(model, X, y):
    t0 = time.process_time()
    model.fit(X, y)
    return model, time.process_time() - t0


def _breast_split(X, y, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    n_te = round(0.2 * len(y))
    te, tr = perm[:n_te], perm[n_te:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1.0)
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    return Z[tr], y[tr], Z[te], y[te]


def _mean_se(v):
    v = np.asarray(v, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")


def bench_breast(seeds: int, LogisticRegression) -> None:
    ds = load_dataset("breast_cancer")
    X, y = ds.X, ds.y.astype(int)
    ours = {
        "Input perturbation": lambda e, s: InputPerturbationClassifier(
            epsilon=e, delta=DELTA, data_norm=1.0, random_state=s
        ),
        "Objective perturbation": lambda e, s: ObjectivePerturbationClassifier(
            epsilon=e, delta=DELTA, data_norm=1.0, random_state=s
        ),
        "Output perturbation": lambda e, s: OutputPerturbationClassifier(epsilon=e, data_norm=1.0, random_state=s),
        "Large-margin Gaussian": lambda e, s: LargeMarginGaussianClassifier(epsilon=e, data_norm=1.0, random_state=s),
    }
    acc = {name: {e: [] for e in EPSILONS} for name in ["diffprivlib LogisticRegression", *ours]}
    cpu = {name: {e: [] for e in EPSILONS} for name in acc}
    majority = []
    for s in range(seeds):
        Xtr, ytr, Xte, yte = _breast_split(X, y, s)
        majority.append(float(np.mean(yte == np.bincount(ytr).argmax())))
        for e in EPSILONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m, t = _timed_fit(LogisticRegression(epsilon=e, data_norm=1.0, random_state=s), Xtr, ytr)
            acc["diffprivlib LogisticRegression"][e].append(m.score(Xte, yte))
            cpu["diffprivlib LogisticRegression"][e].append(t)
            for name, make in ours.items():
                m, t = _timed_fit(make(e, s), Xtr, ytr)
                acc[name][e].append(m.score(Xte, yte))
                cpu[name][e].append(t)
    ref = "diffprivlib LogisticRegression"
    print(f"\n### breast_cancer: test accuracy, mean ± SE over {seeds} seeds (δ = {display.delta(DELTA)} where used)\n")
    print(
        "| Estimator | " + " | ".join(f"ε = {display.epsilon(e)}" for e in EPSILONS) + " | ≥ diffprivlib at every ε |"
    )
    print("|---|" + "---|" * (len(EPSILONS) + 1))
    for name in acc:
        cells = [display.pm(*_mean_se(acc[name][e])) for e in EPSILONS]
        ok = (
            ""
            if name == ref
            else (
                "yes"
                if all(np.mean(acc[name][e]) >= np.mean(acc[ref][e]) for e in EPSILONS)
                else "no: "
                + ", ".join(
                    f"ε = {display.epsilon(e)}" for e in EPSILONS if np.mean(acc[name][e]) < np.mean(acc[ref][e])
                )
            )
        )
        print(f"| {name} | " + " | ".join(cells) + f" | {ok} |")
    print(f"| Majority class | {display.number(np.mean(majority))} (every ε) |" + " |" * len(EPSILONS))
    print("\n### breast_cancer: CPU time per fit (median over seeds and ε), ratio to diffprivlib\n")
    print("| Estimator | median CPU per fit | ratio |")
    print("|---|---|---|")
    base = float(np.median([t for e in EPSILONS for t in cpu[ref][e]]))
    for name in cpu:
        med = float(np.median([t for e in EPSILONS for t in cpu[name][e]]))
        print(f"| {name} | {display.number(med * 1e3)} ms | {display.number(med / base)} |")
    # The unprojected large-margin classifier, a few fits only (about a second or more each).
    Xtr, ytr, Xte, yte = _breast_split(X, y, 0)
    times, scores = [], []
    for s in range(3):
        m, t = _timed_fit(
            LargeMarginGaussianClassifier(epsilon=1.0, n_components=None, data_norm=1.0, random_state=s), Xtr, ytr
        )
        times.append(t)
        scores.append(m.score(Xte, yte))
    print(
        f"| Large-margin Gaussian without projection (ε = 1, 3 fits) | {display.number(np.median(times) * 1e3)} ms"
        f" | {display.number(np.median(times) / base)} |"
    )
    print(f"\nWithout projection (30 dimensions, ε = 1): accuracy {display.number(np.mean(scores))} over 3 fits.")


def _randhie_split(X, y, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    n_te = round(0.2 * len(y))
    te, tr = perm[:n_te], perm[n_te:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1.0) / math.sqrt(X.shape[1])
    return Z[tr], y[tr], Z[te], y[te]


def bench_randhie(seeds: int, LinearRegression) -> None:
    from dp_core.mechanisms.l1_exponential.lad import lad_fit

    ds = load_dataset("randhie")
    X, y = ds.X, ds.y
    names = [
        "l1 exponential mechanism (ours)",
        "Label-DP bags, noisy-wtd-LLP (ours)",
        "Output perturbation ridge (ours)",
        "diffprivlib LinearRegression",
    ]
    mae = {nm: {e: [] for e in EPSILONS} for nm in names}
    cpu = {nm: [] for nm in names}
    lad_mae, med_mae, label_eps, unconverged = [], [], [], 0
    for s in range(seeds):
        Xtr, ytr, Xte, yte = _randhie_split(X, y, s)
        A = np.column_stack([Xtr, np.ones(len(ytr))])
        w = lad_fit(A, ytr, 100.0).w
        lad_mae.append(float(np.mean(np.abs(np.column_stack([Xte, np.ones(len(yte))]) @ w - yte))))
        med_mae.append(float(np.mean(np.abs(np.median(ytr) - yte))))
        # The label-DP bags have no epsilon knob: (epsilon, delta) come out of the accounting.
        m, t = _timed_fit(LabelDPBagRegressor(y_range=(0.0, 30.0), delta=DELTA, random_state=s), Xtr, ytr)
        label_eps.append(m.privacy_.epsilon)
        for e in EPSILONS:
            mae[names[1]][e].append(float(np.mean(np.abs(m.predict(Xte) - yte))))
        cpu[names[1]].append(t)
        for e in EPSILONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m, t = _timed_fit(L1ExponentialRegressor(epsilon=e, y_scale=2.0, random_state=s), Xtr, ytr)
                unconverged += int(not m.sampler_["converged"])
                mae[names[0]][e].append(float(np.mean(np.abs(m.predict(Xte) - yte))))
                cpu[names[0]].append(t)
                m, t = _timed_fit(
                    OutputPerturbationRegressor(epsilon=e, data_norm=1.0, y_bound=30.0, random_state=s), Xtr, ytr
                )
                mae[names[2]][e].append(float(np.mean(np.abs(m.predict(Xte) - yte))))
                cpu[names[2]].append(t)
                m, t = _timed_fit(
                    LinearRegression(
                        epsilon=e, bounds_X=(Xtr.min(axis=0), Xtr.max(axis=0)), bounds_y=(0.0, 30.0), random_state=s
                    ),
                    Xtr,
                    ytr,
                )
                mae[names[3]][e].append(float(np.mean(np.abs(m.predict(Xte) - yte))))
                cpu[names[3]].append(t)
    print(f"\n### randhie: test mean absolute error, mean ± SE over {seeds} seeds (lower is better)\n")
    print("| Estimator | " + " | ".join(f"ε = {display.epsilon(e)}" for e in EPSILONS) + " | CPU per fit | ratio |")
    print("|---|" + "---|" * (len(EPSILONS) + 2))
    base = float(np.median(cpu[names[3]]))
    for nm in names:
        med = float(np.median(cpu[nm]))
        cells = [display.pm(*_mean_se(mae[nm][e])) for e in EPSILONS]
        if nm == names[1]:
            cells = [display.pm(*_mean_se(mae[nm][EPSILONS[0]]))] + ["same fit"] * (len(EPSILONS) - 1)
        print(f"| {nm} | " + " | ".join(cells) + f" | {display.number(med * 1e3)} ms | {display.number(med / base)} |")
    print(f"| Non-private LAD | {display.pm(*_mean_se(lad_mae))} (every ε) |" + " |" * (len(EPSILONS) + 1))
    print(
        f"| Median of the training labels | {display.pm(*_mean_se(med_mae))} (every ε) |" + " |" * (len(EPSILONS) + 1)
    )
    print(
        f"\nLabel-DP bags (k = 100, ρ = 0.5): label-DP at ε = {display.epsilon(np.mean(label_eps))}, "
        f"δ = {display.delta(DELTA)} (exact privacy profile); one fit, shown in the first column."
    )
    print(f"l1 MCMC fits whose chains failed the convergence check: {unconverged} of {seeds * len(EPSILONS)}.")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--skip-randhie", action="store_true")
    args = ap.parse_args(argv)
    version, LogisticRegression, LinearRegression = _import_library()
    import sklearn

    print(
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node() or 'this machine'} "
        f"({platform.processor() or platform.machine()}, Python {platform.python_version()}, diffprivlib {version}, "
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}); process CPU time."
    )
    bench_breast(args.seeds, LogisticRegression)
    if not args.skip_randhie:
        bench_randhie(args.seeds, LinearRegression)


if __name__ == "__main__":
    main()
