"""Monte-Carlo experiments for input perturbation and its baselines on a dataset ([FTS17] Fukuchi, Tran &
Sakuma 2017, section 5, Theorem 2; docs/input_perturbation.md §"Experiments")."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..._lazy import pandas as pd
from ..._validation import check_choice, check_int, check_positive
from ...data import Dataset, public_bounds, split_indices
from ...exceptions import DataValidationError
from ...experiments import run_sweep
from ...plugin import LOWER_IS_PRIVATE, param, validate_config
from ...preprocessing import INTERCEPT_CONSTANT, PREPROCESS_HELP, PREPROCESS_METHODS, append_intercept, preprocess_rows
from ...rng import child_seed
from .bounds import objective_gauss_bound, output_perturbation_bound, theorem2_terms
from .mechanism import (
    SAMPLERS,
    InputPerturbation,
    input_perturbation_thetas,
    logistic_nonprivate_fit,
    nonprivate_theta,
    objective_perturbation_thetas,
    output_perturbation_thetas,
)
from .model import MODELS, empirical_risk, model_constants, prefix_stats
from .params import InputPerturbationParams, local_privacy, params_for_model, sigma_u_value

__all__ = [
    "METHODS",
    "PreparedData",
    "prepare_data",
    "SimulationConfig",
    "simulate_over_n",
    "default_n_grid",
    "noise_scale_table",
    "noise_vs_n_table",
    "alpha_tradeoff_table",
    "local_vs_n_table",
    "utility_frame",
    "n_choices",
    "sweep_sizes",
    "utility_at",
    "child_seed",
    "eta_cap",
]

METHODS = ("input", "objective", "output", "nonprivate")


@dataclass(frozen=True, eq=False)
class PreparedData:
    """Training and test rows ready for a quadratic model (||x|| <= 1, |y| <= 1 or y in {-1, +1});
    ``label_scale`` converts a prepared label difference to the target's units (1 when used as given)."""

    name: str
    model: str
    X_train: np.ndarray = field(repr=False)
    y_train: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    feature_names: tuple[str, ...]
    notes: tuple[str, ...]
    leaks: tuple[str, ...]
    fingerprint: str
    label_scale: float = 1.0

    @property
    def n_train(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        return int(self.X_train.shape[1])


def _features(ds: Dataset, X: np.ndarray, preprocess: str, intercept: bool, notes: list, leaks: list):
    """Rows mapped into the unit ball (``docs/preprocessing.md``) and the feature names; notes and leaks appended."""
    public_domain = ds.name == "census"  # every census column lies in [0, 1] by its public definition
    names = list(ds.feature_names)
    if preprocess != "minmax":
        bounds = public_bounds(ds)
        Xs = preprocess_rows(X, bounds, preprocess)
        notes.append(
            f"Features centred and scaled by public constants ({bounds.source}); {PREPROCESS_HELP[preprocess]}."
        )
        if bounds.data_derived:
            leaks.append(bounds.leak_warning)
        if intercept:
            c = INTERCEPT_CONSTANT
            Xs = append_intercept(Xs, c)
            names.append("intercept")
            notes.append(
                f"Intercept: the constant {c:g} appended and the row divided by sqrt(1 + {c:g}²), so ||x|| <= 1."
            )
    elif public_domain:
        Xs = np.clip(X, 0.0, 1.0)
        notes.append("Features already in [0, 1] by their public domain (census-like data).")
    else:
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        Xs = np.where(hi > lo, (X - lo) / span, 0.0)
        leaks.append(
            "Each feature column was scaled to [0, 1] with its minimum and maximum taken from the data; "
            "public domain bounds should be declared instead (the guarantee does not cover this step)."
        )
    if preprocess == "minmax":
        if intercept:
            Xs = np.column_stack([Xs, np.ones(Xs.shape[0])])
            names.append("intercept")
        Xs = Xs / math.sqrt(Xs.shape[1])
        notes.append(f"Rows divided by sqrt({Xs.shape[1]}) so that every ||x|| <= 1 (no data needed for this step).")
    return Xs, names


def _labels(ds: Dataset, y: np.ndarray, model: str, threshold, positive_class, notes: list, leaks: list):
    """Labels in [-1, 1] (least squares) or -1/+1 (logistic), and the label scale; notes and leaks appended."""
    public_domain = ds.name == "census"
    label_scale = 1.0
    if model == "least_squares":
        if ds.task != "regression":
            raise DataValidationError(
                f"dataset {ds.name!r} has a {ds.task} target; least squares needs a regression target. "
                "Choose the logistic (Taylor) model for classification data."
            )
        if public_domain:
            ys = np.clip(y, -1.0, 1.0)
            notes.append("Income target already in [0, 1] (public cap).")
        else:
            ylo, yhi = float(y.min()), float(y.max())
            if not yhi > ylo:
                raise DataValidationError(f"the target of {ds.name!r} is constant; nothing to regress.")
            ys = 2.0 * (y - ylo) / (yhi - ylo) - 1.0
            label_scale = (yhi - ylo) / 2.0
            leaks.append(
                f"Target mapped from [{ylo:.4g}, {yhi:.4g}] (the data's range) to [-1, 1]; "
                "declare a public range instead."
            )
    else:
        if ds.task == "binary":
            classes = np.unique(y)
            ys = np.where(y == classes.max(), 1.0, -1.0)
            notes.append(f"Labels mapped to -1/+1 (+1 = {classes.max():g}).")
        elif ds.task == "multiclass":
            classes = np.unique(y)
            pc = float(classes[0]) if positive_class is None else float(positive_class)
            if pc not in classes:
                raise DataValidationError(f"positive_class must be one of {classes.tolist()}, got {pc:g}.")
            ys = np.where(y == pc, 1.0, -1.0)
            notes.append(f"Multiclass labels turned into one-vs-rest: +1 = class {pc:g}, -1 = the others.")
        else:
            if threshold is None:
                thr = float(np.median(y))
                leaks.append(f"Label threshold = the data's median ({thr:.4g}); declare a public threshold instead.")
            else:
                thr = float(threshold)
            ys = np.where(y > thr, 1.0, -1.0)
            notes.append(f"Target binarised: +1 if {ds.target_name} > {thr:.4g}, else -1.")
        if np.unique(ys).size < 2:
            raise DataValidationError(f"after mapping to -1/+1 dataset {ds.name!r} has a single class.")
    return ys, label_scale


def prepare_data(
    ds: Dataset,
    model: str = "least_squares",
    *,
    intercept: bool = True,
    threshold: float | None = None,
    positive_class: float | None = None,
    test_fraction: float = 0.2,
    seed=0,
    preprocess: str = "normalize",
) -> PreparedData:
    """Turn a :class:`~dp_core.data.Dataset` into bounded rows (docs/input_perturbation.md §"Experiments":
    the labels per model, ``threshold``/``positive_class``, ``preprocess``); ``DataValidationError`` for least
    squares on class labels or too few rows."""
    check_choice("model", model, MODELS)
    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a dp_core Dataset, got {type(ds).__name__}.")
    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}.")
    X = np.asarray(ds.X, dtype=float)
    y = np.asarray(ds.y, dtype=float)
    notes: list[str] = []
    leaks: list[str] = []
    check_choice("preprocess", preprocess, PREPROCESS_METHODS)
    Xs, names = _features(ds, X, preprocess, intercept, notes, leaks)
    ys, label_scale = _labels(ds, y, model, threshold, positive_class, notes, leaks)
    n = X.shape[0]
    n_test = max(1, int(round(test_fraction * n)))
    if n - n_test < 4:
        raise DataValidationError(f"dataset {ds.name!r} has only {n} rows; at least 5 are needed.")
    # training rows in random order: the sweeps use nested prefixes X_train[:n] as subsamples
    tr, te = split_indices(n, test_fraction=test_fraction, seed=seed, shuffle_train=True)
    return PreparedData(
        name=ds.name,
        model=model,
        X_train=Xs[tr],
        y_train=ys[tr],
        X_test=Xs[te],
        y_test=ys[te],
        feature_names=tuple(names),
        notes=tuple(notes),
        leaks=tuple(leaks),
        fingerprint=ds.fingerprint,
        label_scale=float(label_scale),
    )


def eta_cap(data: PreparedData, eta: float) -> dict:
    """Does ``||w|| <= eta`` hold the non-private model back? NOT FOR PUBLICATION (a statistic of the private
    data): ``{eta, eta_reference, w_norm, binding, note}`` (docs/input_perturbation.md §"Experiments")."""
    from ...preprocessing import eta_cap_note, reference_eta
    from .mechanism import logistic_nonprivate_fit, nonprivate_theta
    from .model import sufficient_stats

    eta = check_positive("eta", eta)
    eta_ref = max(reference_eta(int(data.d)), eta)
    if data.model == "least_squares":
        w = nonprivate_theta(sufficient_stats(data.X_train, data.y_train, data.model), eta_ref)
    else:
        w = logistic_nonprivate_fit(data.X_train, data.y_train, eta_ref)
    w_norm = float(np.linalg.norm(w))
    note = eta_cap_note(w_norm, eta) if w_norm > eta else ""
    return {"eta": eta, "eta_reference": eta_ref, "w_norm": w_norm, "binding": bool(note), "note": note}


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationConfig:
    """The mechanism's one entry: its user parameters (``param`` fields, link keys ``ip_<name>``) and the
    central target; everything a simulation depends on besides the data, n-grid, trials and seed (hashable).
    Validated once, when built."""

    epsilon: float
    delta: float
    alpha: float = param(
        1.0,
        options=(0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0),
        private=LOWER_IS_PRIVATE,
        label="local / central trade-off α",
        symbol="α",
        help="the claim is (αε, δ)-DP",
    )
    eta: float = param(1.0, lo=0.05, hi=100.0, label="parameter-ball radius η", symbol="η")
    mode: str = param(
        "COR2",
        options=("COR2", "ALG1", "CORR"),
        label="σ_u formula",
        help="COR2 (Corollary 2), ALG1 (Algorithm 1 as printed), CORR (diagnostic only, no privacy claim)",
    )
    sampler: str = param(
        "stats",
        options=SAMPLERS,
        label="Monte-Carlo sampler",
        help="records: every contributor's noise drawn; stats: exact O(d^3) sampler",
    )
    model: str = param(
        "least_squares",
        options=MODELS,
        label="model",
        help="least squares for numeric targets, the Taylor surrogate of the logistic loss for class labels",
    )
    dmult: float = param(
        1.0,
        options=(0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0),
        label="Δ multiplier",
        symbol="Δ",
        help="the regularisation Δ as a multiple of Δ*, the value minimising the Theorem-2 bound",
    )
    methods: tuple[str, ...] = METHODS

    def __post_init__(self):
        validate_config(self)
        for m in self.methods:
            check_choice("method", m, METHODS)

    def mechanism(self, *, x_bound: float = 1.0, y_bound: float = 1.0) -> InputPerturbation:
        """The release object of this configuration (rows declared within ``x_bound``, labels ``y_bound``)."""
        return InputPerturbation(
            epsilon=self.epsilon,
            delta=self.delta,
            model=self.model,
            eta=self.eta,
            alpha=self.alpha,
            Delta_multiplier=self.dmult,
            sigma_u_mode=self.mode,
            x_bound=x_bound,
            y_bound=y_bound,
        )

    def params(self, n: int, d: int) -> InputPerturbationParams:
        return self.mechanism().params(n, d)


@dataclass(frozen=True, slots=True)
class PageSettings:
    """Page-only settings (link keys ``ip_<name>``); the page takes the defaults of ``pos`` and ``n`` from the data."""

    pos: float = param(0.0, lo=-1e12, hi=1e12, label="positive class")
    n: int = param(1000, lo=2, hi=10**9, label="number of contributors n", symbol="n")
    wnorm: str = param("eta", options=("eta", "measured"), label="‖ŵ‖ in the bound curves")

    def __post_init__(self):
        validate_config(self)


def default_n_grid(n_max: int, *, n_min: int, factor: int = 4) -> list[int]:
    """Grid n_min, n_min*factor, ... capped at n_max, always including n_max."""
    n_max = check_int("n_max", n_max, lo=1)
    grid = []
    n = max(int(n_min), 1)
    while n < n_max:
        grid.append(n)
        n *= factor
    grid.append(n_max)
    return sorted(set(grid))


class _TestSet:
    def __init__(self, X: np.ndarray, y: np.ndarray, model: str):
        self.model = model
        self.m = X.shape[0]
        if model == "least_squares":
            self.S = X.T @ X
            self.b = X.T @ y
            self.yy = float(y @ y)
        else:
            self.X, self.y = X, y

    def metric(self, W: np.ndarray) -> np.ndarray:
        W = np.atleast_2d(W)
        if self.model == "least_squares":
            mse = (np.einsum("ti,ij,tj->t", W, self.S, W) - 2.0 * W @ self.b + self.yy) / self.m
            return np.sqrt(np.maximum(mse, 0.0))
        out = np.empty(W.shape[0])
        step = max(1, int(4e6 // max(self.m, 1)))
        for s in range(0, W.shape[0], step):
            pred = self.X @ W[s : s + step].T
            out[s : s + step] = np.mean(np.where(pred > 0, 1.0, -1.0) == self.y[:, None], axis=0)
        return out


def _fixed_at(n: int, data: PreparedData, config: SimulationConfig, shared: dict, fit_logistic: bool) -> dict:
    """What does not change across trials at size n: the public parameters, the non-private fit, the bounds."""
    st, test = shared["stats"][n], shared["test"]
    p = config.params(n, st.d)
    w_hat = nonprivate_theta(st, config.eta)
    w_norm = min(float(np.linalg.norm(w_hat)), config.eta)
    np_metric = float(test.metric(w_hat)[0])
    if data.model == "logistic_taylor" and fit_logistic:
        key = (n, config.eta)
        if key not in shared["np_metric"]:
            w_log = logistic_nonprivate_fit(data.X_train[:n], data.y_train[:n], config.eta)
            shared["np_metric"][key] = float(test.metric(w_log)[0])
        np_metric = shared["np_metric"][key]
    return dict(
        stats=st,
        params=p,
        w_hat=w_hat,
        J_hat=float(empirical_risk(st, w_hat)),
        np_metric=np_metric,
        w_norm=w_norm,
        bounds={
            "input": (theorem2_terms(p).total, theorem2_terms(p, w_norm).total),
            "objective": (objective_gauss_bound(p), objective_gauss_bound(p, w_norm)),
            "output": (output_perturbation_bound(p), output_perturbation_bound(p, w_norm)),
            "nonprivate": (0.0, 0.0),
        },
    )


def _thetas(method: str, f: dict, seeds, config: SimulationConfig, data: PreparedData, n: int):
    """The released w of ``method`` for each trial's seed, and whether it lies on the ball's boundary."""
    st, p, k = f["stats"], f["params"], len(seeds)
    if method == "input":
        kw = dict(X=data.X_train[:n], y=data.y_train[:n]) if config.sampler == "records" else {}
        rng = [child_seed(s, 0) for s in seeds]
        sol = input_perturbation_thetas(st, p, rng=rng, sampler=config.sampler, return_info=True, **kw)
        return sol.w, sol.on_boundary
    if method == "objective":
        sol = objective_perturbation_thetas(st, p, rng=[child_seed(s, 1) for s in seeds], return_info=True)
        return sol.w, sol.on_boundary
    if method == "output":
        W = output_perturbation_thetas(st, p, rng=[child_seed(s, 2) for s in seeds])
        return W, np.isclose(np.linalg.norm(W, axis=1), config.eta)
    W = np.repeat(f["w_hat"][None], k, axis=0)
    return W, np.full(k, np.linalg.norm(f["w_hat"]) >= config.eta * (1 - 1e-9))


def _shared_data(data: PreparedData, ns: Sequence[int], shared: dict) -> dict:
    """``shared`` filled with the data-only work: sufficient statistics at every n, the test set's statistics."""
    if "stats" not in shared:
        shared["stats"] = {}
        shared["test"] = _TestSet(data.X_test, data.y_test, data.model)
        shared["np_metric"] = {}
    missing = [n for n in ns if n not in shared["stats"]]
    if missing:
        shared["stats"].update(zip(missing, prefix_stats(data.X_train, data.y_train, missing, data.model)))
    return shared


def simulate_over_n(
    data: PreparedData,
    config: SimulationConfig,
    ns: Sequence[int],
    *,
    n_trials: int,
    seed=0,
    progress: Callable[[int, int], None] | None = None,
    fit_logistic_nonprivate: bool = True,
    shared: dict | None = None,
) -> pd.DataFrame:
    """Excess empirical risk and test metric of every method for each training size n ([FTS17] section 5): one
    row per (n, trial, method); ``shared`` keeps the data-only work between calls on the same ``data``
    (docs/input_perturbation.md §"Experiments")."""
    T = check_int("n_trials", n_trials, lo=1, hi=100_000)
    ns = sorted({check_int("n", v, lo=2, hi=data.n_train) for v in ns})
    if data.model != config.model:
        raise ValueError(f"config.model must match the prepared data's model {data.model!r}, got {config.model!r}.")
    shared = _shared_data(data, ns, {} if shared is None else shared)
    test = shared["test"]
    cache: dict[int, dict] = {}

    def fixed(n: int) -> dict:
        if n not in cache:
            cache[n] = _fixed_at(n, data, config, shared, fit_logistic_nonprivate)
        return cache[n]

    def block(point, seeds):
        n = int(point["n"])
        f = fixed(n)
        frames = []
        for method in config.methods:
            k = len(seeds)
            W, onb = _thetas(method, f, seeds, config, data, n)
            excess = empirical_risk(f["stats"], W) - f["J_hat"]
            metric = test.metric(W) if method != "nonprivate" else np.full(k, f["np_metric"])
            b, bm = f["bounds"][method]
            cols = {"method": method, "trial": np.arange(k), "excess_risk": np.maximum(excess, 0.0)}
            cols.update(test_metric=metric, bound=b, bound_measured=bm, on_boundary=onb.astype(bool))
            frames.append(pd.DataFrame({**cols, "w_norm_hat": f["w_norm"]}))
        return pd.concat(frames, ignore_index=True)

    block_size = max(1, min(T, 200))
    df = run_sweep(block, [{"n": n} for n in ns], n_trials=T, seed=seed, block_size=block_size, progress=progress)
    df["metric_name"] = "rmse" if data.model == "least_squares" else "accuracy"
    return df


def noise_scale_table(
    *,
    n: int,
    d: int,
    epsilons: Sequence[float],
    delta: float,
    model: str = "least_squares",
    eta: float = 1.0,
    alpha: float = 1.0,
    sigma_u_mode: str = "COR2",
) -> pd.DataFrame:
    """sigma_b, sigma_u and the asymptote sqrt(2 lambda/eps) against epsilon (tidy: quantity, epsilon, value)."""
    rows = []
    for e in epsilons:
        p = params_for_model(
            model, eta=eta, n=n, d=d, epsilon=float(e), delta=delta, alpha=alpha, sigma_u_mode=sigma_u_mode
        )
        rows += [
            {"epsilon": float(e), "quantity": "sigma_b", "value": p.sigma_b},
            {"epsilon": float(e), "quantity": "sigma_u", "value": p.sigma_u},
            {"epsilon": float(e), "quantity": "sigma_u_limit", "value": math.sqrt(p.ridge_threshold)},
        ]
    return pd.DataFrame(rows)


def noise_vs_n_table(
    *,
    ns: Sequence[float],
    d: int,
    epsilon: float,
    delta: float,
    model: str = "least_squares",
    eta: float = 1.0,
    alpha: float = 1.0,
    sigma_u_mode: str = "COR2",
) -> pd.DataFrame:
    """sigma_u against n with the Corollary-3 envelope and the limit sqrt(2 lambda/eps_run)."""
    c = model_constants(model, eta=eta)
    er = alpha * epsilon
    root = math.sqrt(2.0 * c.lam / er)
    rows = []
    for n in ns:
        n = float(n)
        s = sigma_u_value(n=n, d=d, eps_run=er, delta=delta, lam=c.lam, mode=sigma_u_mode)
        a2 = math.sqrt(math.log(4.0 / delta) / n)
        a4 = math.sqrt(math.log(8.0 / delta) / n)
        lo = math.sqrt(2.0 * d) * c.lam * a2 + root
        hi = (4.0 * math.sqrt(2.0 * d) * c.lam + 4.0 * root) * a4 + root
        hi = hi if n >= 16 * math.log(8.0 / delta) else math.nan
        rows.append({"n": n, "sigma_u": s, "cor3_lower": lo, "cor3_upper": hi, "limit": root})
    return pd.DataFrame(rows)


def alpha_tradeoff_table(
    *,
    n: int,
    d: int,
    epsilon: float,
    delta: float,
    alphas: Sequence[float],
    model: str = "least_squares",
    eta: float = 1.0,
    sigma_u_mode: str = "COR2",
) -> pd.DataFrame:
    """Central epsilon (alpha eps), local epsilon (nominal and exact) and Theorem-2 bound over alpha."""
    rows = []
    for a in alphas:
        p = params_for_model(
            model, eta=eta, n=n, d=d, epsilon=epsilon, delta=delta, alpha=float(a), sigma_u_mode=sigma_u_mode
        )
        lp = local_privacy(p)
        row = {"alpha": float(a), "central_epsilon": p.eps_run, "local_epsilon_nominal": lp.epsilon_nominal}
        row.update(local_epsilon_exact=lp.epsilon_exact, bound_theorem2=theorem2_terms(p).total)
        rows.append({**row, "sigma_b": p.sigma_b, "sigma_u": p.sigma_u})
    return pd.DataFrame(rows)


def local_vs_n_table(
    *,
    ns: Sequence[float],
    d: int,
    epsilon: float,
    delta: float,
    model: str = "least_squares",
    eta: float = 1.0,
    alpha: float = 1.0,
    sigma_u_mode: str = "COR2",
) -> pd.DataFrame:
    """Local epsilon of one contributor's release (nominal Corollary 1 and exact GDP) against n; sizes at or
    below the mode's minimum are left out (grows like sqrt(n): [FTS17] Corollary 1, Table 1)."""
    rows = []
    for n in ns:
        try:
            p = params_for_model(
                model, eta=eta, n=int(n), d=d, epsilon=epsilon, delta=delta, alpha=alpha, sigma_u_mode=sigma_u_mode
            )
        except ValueError:
            continue
        lp = local_privacy(p)
        row = {"n": int(n), "local_epsilon_nominal": lp.epsilon_nominal, "local_epsilon_exact": lp.epsilon_exact}
        rows.append({**row, "central_epsilon": p.eps_run})
    return pd.DataFrame(rows)


def utility_frame(df: pd.DataFrame, y_test: np.ndarray) -> tuple[pd.DataFrame, str]:
    """The per-trial test utility (higher is better): accuracy, or R^2 = 1 - RMSE^2 / Var(y_test); the frame with
    a ``utility`` column and the metric's name (docs/input_perturbation.md §"Experiments")."""
    y = np.asarray(y_test, dtype=float)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y_test must be a 1-D array with at least 2 values, got shape {y.shape}.")
    out = df.copy()
    if str(df["metric_name"].iloc[0]) == "accuracy":
        out["utility"] = out["test_metric"]
        return out, "test accuracy"
    var = float(np.var(y))
    if not var > 0:
        raise ValueError("y_test is constant: R² is undefined (its variance is 0).")
    out["utility"] = 1.0 - out["test_metric"] ** 2 / var
    return out, "test R²"


def utility_at(df: pd.DataFrame, y_test: np.ndarray, n: int | None = None) -> dict[str, float | str]:
    """Mean test utility of ``input`` (+- 1.96 SE) and ``nonprivate`` at size ``n`` (the largest by default), and
    ``trivial``, what ignoring the features scores (docs/input_perturbation.md §"Experiments")."""
    u, name = utility_frame(df, y_test)
    n = int(u["n"].max()) if n is None else int(n)
    at = u[u["n"] == n]
    if at.empty:
        raise ValueError(f"n must be one of the simulated sizes {sorted(set(u['n']))}, got {n}.")
    inp = at.loc[at["method"] == "input", "utility"].to_numpy()
    npv = at.loc[at["method"] == "nonprivate", "utility"].to_numpy()
    if inp.size == 0 or npv.size == 0:
        raise ValueError("the simulation must include the methods 'input' and 'nonprivate'.")
    mean = float(inp.mean())
    half = 1.96 * float(inp.std(ddof=1)) / math.sqrt(inp.size) if inp.size > 1 else 0.0
    yt = np.asarray(y_test)
    trivial = 0.0 if name == "test R²" else float(max(np.mean(yt > 0), np.mean(yt <= 0)))
    out = {"metric": name, "n": n, "trials": int(inp.size), "private": mean, "private_lo": mean - half}
    return {**out, "private_hi": mean + half, "nonprivate": float(npv.mean()), "trivial": trivial}


def n_choices(n_max: int, n_min: float) -> tuple[int, ...]:
    """Sizes a reader can pick for the formulas: powers of two above ``n_min`` up to 2^24, and ``n_max``."""
    n_max = check_int("n_max", n_max, lo=1)
    return tuple(sorted({n_max} | {2**k for k in range(5, 25) if 2**k > n_min}))


def sweep_sizes(n_max: int, d: int, n_min: float, *, factor: int = 4) -> tuple[int, ...]:
    """Training sizes of the measured curves: from the first power of two >= max(2d, floor(n_min) + 1) up to
    ``n_max`` by ``factor``; ``()`` when ``n_max`` is not above that start.
    """
    n_max = check_int("n_max", n_max, lo=1)
    d = check_int("d", d, lo=1)
    start = max(2 * d, int(math.floor(n_min)) + 1)
    if start >= n_max:
        return ()
    first = int(2 ** math.ceil(math.log2(start)))
    return tuple(v for v in default_n_grid(n_max, n_min=first, factor=factor) if v >= start)
