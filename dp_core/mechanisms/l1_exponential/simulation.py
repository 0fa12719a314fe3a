"""Monte-Carlo experiments for EM-L1-HT and its baselines (synthetic protocol and real data). docs/l1_exponential.md
§"Synthetic protocol" (ours: the paper has no experiments). See docs/l1_exponential.md §"simulation (module)"."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..._lazy import pandas as pd
from ..._validation import check_choice, check_epsilon, check_int, check_positive, check_probability, check_Xy
from ...data import make_heavy_tailed, split_indices
from ...experiments import run_sweep, summarize
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator, spawn_seeds
from .baselines import baseline_clipped_em, baseline_dp_gd, markov_clip_level
from .lad import l1_risk, lad_fit
from .mcmc import MCMCSchedule
from .mechanism import L1ExponentialRegression
from .population import HeavyTailedModel, assumption_tau, make_eval_sample, noise_abs_moment, population_excess_risk
from .scaling import PublicScaling
from .truncation import check_theta

__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "SimulationConfig",
    "public_constants",
    "simulate_trials",
    "simulation_points",
    "run_simulation",
    "summarize_simulation",
    "RealDataResult",
    "clip_levels",
    "real_data_experiment",
    "DatasetAnalysis",
    "analyse_dataset",
    "summarize_releases",
    "headline",
    "sampler_comparison",
    "rate_sweep",
    "epsilon_sweep",
    "truncation_sweep",
    "baseline_sweep",
    "TRUNCATION_CASES",
]

METHODS = ("em_l1", "em_clipped", "dp_gd", "nonprivate")
METHOD_LABELS = {
    "em_l1": "EM-L1-HT (paper)",
    "em_clipped": "B1 clipped EM (not from the paper)",
    "dp_gd": "B2 DP-GD, (ε,δ) (not from the paper)",
    "nonprivate": "B0 non-private LAD",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationConfig:
    """One point of the synthetic protocol (docs/l1_exponential.md §"Synthetic protocol").
    See docs/l1_exponential.md §"simulation.SimulationConfig"."""

    model: HeavyTailedModel = field(default_factory=HeavyTailedModel)
    n: int = 2000
    epsilon: float = 1.0
    theta: float = 1.5
    convention: str = "tight"
    c_iota: float = 1.0
    radius: float = 1.0
    eta_total: float = 0.05
    assumption: str = "A3"
    mode: str = "auto"
    grid_budget: int = 4_000_000
    mcmc_preset: str = "quick"
    mcmc_schedule: MCMCSchedule | None = None
    methods: tuple = METHODS
    clip_q: float = 0.05
    clip_scale: float = 1.0
    delta: float = 1e-5
    gd_steps: int = 200
    eval_size: int = 20_000

    def __post_init__(self) -> None:
        check_int("n", self.n, lo=10, hi=2_000_000)
        check_epsilon(self.epsilon, allow_inf=False)
        check_theta(self.theta)
        check_positive("clip_scale", self.clip_scale)
        check_probability("clip_q", self.clip_q, closed="neither")
        for m in self.methods:
            check_choice("method", m, METHODS)
        _estimator(self)


def public_constants(model: HeavyTailedModel, theta: float, assumption: str) -> dict:
    """tau, sigma_theta, M_theta-based clip levels and a violation flag for a model."""
    th = 2.0 if (assumption in ("A1", "A2") and theta == 2.0) else theta
    ass = assumption if not (theta < 2.0 and assumption in ("A1", "A2")) else {"A1": "A3", "A2": "A4"}[assumption]
    tau = assumption_tau(model, ass, th)
    sigma = noise_abs_moment(th, model)
    violated = not (math.isfinite(tau) and math.isfinite(sigma))
    finite = {"tau": tau if math.isfinite(tau) else 1.0, "sigma_theta": sigma if math.isfinite(sigma) else 1.0}
    return finite | {"assumption_violated": violated, "bound_assumption": ass}


#: The estimator's settings that a :class:`SimulationConfig` carries under the same names.
_EST_FIELDS = ("epsilon", "theta", "convention", "c_iota", "radius", "eta_total", "assumption", "mode", "grid_budget")


def _estimator(cfg: SimulationConfig, consts: dict | None = None) -> L1ExponentialRegression:
    """The mechanism of ``cfg``, with the model's public moment bounds ``consts`` (else the defaults)."""
    kw = {k: getattr(cfg, k) for k in _EST_FIELDS}
    if consts is not None:
        kw.update(tau=consts["tau"], sigma_theta=consts["sigma_theta"])
    return L1ExponentialRegression(**kw, mcmc_preset=cfg.mcmc_preset, mcmc_schedule=cfg.mcmc_schedule)


def _clipped_em(X, y, est: L1ExponentialRegression, cal, clip_x: float, clip_y: float, rng, n_draws: int = 1):
    """Baseline B1 (clipped EM, not from the paper) with the sampler ``est`` uses."""
    mode = "grid" if cal.mode == "grid" else "mcmc"
    sampler = dict(n_draws=n_draws, mode=mode, m=cal.grid_m, schedule=est.schedule(), rng=rng)
    return baseline_clipped_em(X, y, epsilon=est.epsilon, clip_x=clip_x, clip_y=clip_y, radius=est.radius, **sampler)


def clip_levels(cal, q: float = 0.05, scale: float = 1.0) -> tuple[float, float]:
    """The baselines' public clip levels ``(C_x, C_y)``: ``scale`` times the Markov quantiles (level ``q``) of the
    calibration's moment bounds M_theta and V_theta."""
    mom = cal.moments
    return tuple(scale * markov_clip_level(mom[k], mom["theta"], q) for k in ("M_theta", "V_theta"))


#: The MCMC diagnostics of a trial's EM-L1-HT row: column -> field of :class:`~.mcmc.MCMCDiagnostics`.
_TRIAL_DIAGNOSTICS = {"acceptance": "acceptance", "rhat": "rhat_max", "ess": "ess_min", "sampler_status": "status"}


def simulate_trials(
    cfg: SimulationConfig, seeds: Sequence[np.random.SeedSequence], *, eval_sample=None
) -> pd.DataFrame:
    """Run ``len(seeds)`` independent trials at one configuration; one row per trial and method."""
    model = cfg.model
    consts = public_constants(model, cfg.theta, cfg.assumption)
    est = _estimator(cfg, consts)
    cal = est.calibrate(cfg.n, model.d)
    ev = make_eval_sample(model, cfg.eval_size) if eval_sample is None else eval_sample
    cx, cy = clip_levels(cal, cfg.clip_q, cfg.clip_scale)
    rows = []
    for t, seed in enumerate(seeds):
        s_data, s_em, s_b1, s_b2 = seed.spawn(4)
        ds = make_heavy_tailed(cfg.n, seed=s_data, **model.generator_kwargs())
        X, y = ds.X, ds.y
        lad = lad_fit(X, y, cfg.radius)
        ws = {"nonprivate": lad.w}
        extra = {}
        if "em_l1" in cfg.methods:
            fit, diag = est.run(X, y, rng=s_em, n_draws=1, diagnostics=True)
            ws["em_l1"] = fit.w
            if diag.mcmc is not None:
                extra["em_l1"] = {k: getattr(diag.mcmc, a) for k, a in _TRIAL_DIAGNOSTICS.items()}
        if "em_clipped" in cfg.methods:
            ws["em_clipped"] = _clipped_em(X, y, est, cal, cx, cy, s_b1).draws[0]
        if "dp_gd" in cfg.methods:
            ws["dp_gd"] = baseline_dp_gd(
                X, y, epsilon=cfg.epsilon, delta=cfg.delta, clip=cx, n_steps=cfg.gd_steps, radius=cfg.radius, rng=s_b2
            )[0]
        for method in cfg.methods:
            w = ws[method]
            exc, se = population_excess_risk(w, ev, return_se=True)
            row = {
                "trial": t,
                "method": method,
                "excess_risk": exc,
                "excess_risk_se_x": se,
                "excess_empirical": l1_risk(w, X, y) - lad.objective,
                "dist_w0": float(np.linalg.norm(w - model.w0)),
                "iota": cal.iota,
                "mode": cal.mode,
                "assumption_violated": consts["assumption_violated"],
                "clip_x": cx,
                "clip_y": cy,
            }
            row.update(extra.get(method, {}))
            rows.append(row)
    return pd.DataFrame(rows)


def simulation_points(base: SimulationConfig, **sweeps) -> list[dict]:
    """Cartesian grid of configurations: ``simulation_points(cfg, n=[...], theta=[...])``.
    See docs/l1_exponential.md §"simulation.simulation_points"."""
    model_keys = set(HeavyTailedModel.__dataclass_fields__)
    points = [{}]
    for key, values in sweeps.items():
        points = [dict(p, **{key: v}) for p in points for v in values]
    out = []
    for p in points:
        mk = {k: v for k, v in p.items() if k in model_keys}
        ck = {k: v for k, v in p.items() if k not in model_keys}
        cfg = replace(base, model=replace(base.model, **mk), **ck)
        out.append(dict(p, _config=cfg))
    return out


def run_simulation(
    base: SimulationConfig, *, n_trials: int, seed: RngLike, progress: Callable | None = None, **sweeps
) -> pd.DataFrame:
    """Per-trial table over a grid of configurations (common random numbers across the grid)."""
    points = simulation_points(base, **sweeps) if sweeps else [{"_config": base}]
    evals: dict = {}

    def block(point, seeds):
        cfg = point["_config"]
        key = cfg.model
        if key not in evals:
            evals[key] = make_eval_sample(cfg.model, cfg.eval_size)
        return simulate_trials(cfg, seeds, eval_sample=evals[key])

    df = run_sweep(block, points, n_trials=n_trials, seed=seed, progress=progress)
    return df.drop(columns=["_config"])


def summarize_simulation(df: pd.DataFrame, by: Sequence[str] = ("method",)) -> pd.DataFrame:
    """Mean, standard error, 95% interval, median and quartiles of the excess risk per group."""
    s = summarize(df, by=list(by), values=["excess_risk", "excess_empirical"])
    q = df.groupby(list(by))["excess_risk"].quantile([0.25, 0.5, 0.75]).unstack()
    q.columns = ["excess_risk_q25", "excess_risk_median", "excess_risk_q75"]
    return s.merge(q.reset_index(), on=list(by))


@dataclass(frozen=True, eq=False)
class RealDataResult(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: held-out evaluation of EM-L1-HT and its baselines on a real dataset.
    See docs/l1_exponential.md §"simulation.RealDataResult"."""

    table: pd.DataFrame
    lad_w: np.ndarray
    em_draws: np.ndarray
    calibration: dict
    privacy_label: str
    mcmc: dict | None
    grid_points: np.ndarray | None = None
    grid_costs: np.ndarray | None = None
    sampler_status: str = "exact"
    sampler_message: str = ""


def real_data_experiment(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    estimator: L1ExponentialRegression,
    n_releases: int = 50,
    clip_x: float,
    clip_y: float,
    delta: float = 1e-5,
    gd_steps: int = 200,
    rng: RngLike = None,
    baselines: bool = True,
) -> RealDataResult:
    """Held-out mean absolute error of ``n_releases`` releases of each method (real data: no w*).
    See docs/l1_exponential.md §"simulation.real_data_experiment"."""
    Xtr, ytr = check_Xy(X_train, y_train)
    Xte, yte = check_Xy(X_test, y_test, min_rows=1)
    K = check_int("n_releases", n_releases, lo=2, hi=10_000)
    g = as_generator(rng)
    s_em, s_b1, s_b2 = spawn_seeds(g, 3)  # a child sequence drawn from g (as_seed_sequence), then 3 children
    lad = lad_fit(Xtr, ytr, estimator.radius)
    fit, diag = estimator.run(Xtr, ytr, rng=s_em, n_draws=K, diagnostics=True)
    cal = fit.calibration
    runs = [("em_l1", fit.draws)]
    if baselines:  # B1 clipped EM and B2 DP-GD (not from the paper)
        b1 = _clipped_em(Xtr, ytr, estimator, cal, clip_x, clip_y, s_b1, n_draws=K)
        gd = dict(epsilon=estimator.epsilon, delta=delta, clip=clip_x, n_steps=gd_steps, radius=estimator.radius)
        runs += [("em_clipped", b1.draws), ("dp_gd", baseline_dp_gd(Xtr, ytr, n_draws=K, rng=s_b2, **gd))]
    lad_test = l1_risk(lad.w, Xte, yte)
    rows, obj = [], lad.objective
    for method, W in (*runs, ("nonprivate", lad.w[None, :])):
        test = np.atleast_1d(l1_risk(W, Xte, yte))
        train = np.atleast_1d(l1_risk(W, Xtr, ytr))
        rows += [
            {"trial": i, "method": method, "test_mae": t, "excess_test_mae": t - lad_test, "excess_empirical": r - obj}
            for i, (t, r) in enumerate(zip(test, train))
        ]
    return RealDataResult(
        table=pd.DataFrame(rows),
        lad_w=lad.w,
        em_draws=fit.draws,
        calibration=cal.as_dict(),
        privacy_label=fit.privacy_label,
        mcmc=None if diag.mcmc is None else diag.mcmc.as_dict(),
        grid_points=None if diag.grid is None else diag.grid.net.points,
        grid_costs=None if diag.grid is None else diag.grid.costs,
        sampler_status=fit.sampler_status,
        sampler_message=fit.sampler_message,
    )


# -- Sweeps used by the page and the reproduction (docs/l1_exponential.md §"Synthetic protocol", F1-F4) --
def _bound_row(cfg: SimulationConfig) -> dict:
    consts = public_constants(cfg.model, cfg.theta, cfg.assumption)
    cal = _estimator(cfg, consts).calibrate(cfg.n, cfg.model.d)
    b = cal.bound
    return {
        "n": cfg.n,
        "theta": cfg.theta,
        "epsilon": cfg.epsilon,
        "c_iota": cfg.c_iota,
        "tail": cfg.model.tail,
        **{k: b[k] for k in ("total", "statistical", "privacy", "truncation_bias")},
        "rate_paper": cal.rate_paper,
        "iota": cal.iota,
        "assumption_violated": consts["assumption_violated"],
    }


def rate_sweep(
    base: SimulationConfig,
    *,
    ns: Sequence[int],
    thetas: Sequence[float],
    n_trials: int,
    seed: RngLike,
    progress: Callable | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """F1: EM-L1-HT excess risk against n for several theta; returns (summary, bounds)."""
    cfg = replace(base, methods=("em_l1",))
    df = run_simulation(cfg, n_trials=n_trials, seed=seed, progress=progress, n=list(ns), theta=list(thetas))
    summ = summarize_simulation(df, by=("n", "theta"))
    rows = [_bound_row(replace(cfg, n=int(n), theta=float(t))) for n in ns for t in thetas]
    return summ, pd.DataFrame(rows)


def epsilon_sweep(
    base: SimulationConfig, *, epsilons: Sequence[float], n_trials: int, seed: RngLike, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """F2: excess risk against epsilon (EM-L1-HT and the non-private fit) and the split bound."""
    cfg = replace(base, methods=("em_l1", "nonprivate"))
    df = run_simulation(cfg, n_trials=n_trials, seed=seed, progress=progress, epsilon=list(epsilons))
    summ = summarize_simulation(df, by=("epsilon", "method"))
    rows = [_bound_row(replace(cfg, epsilon=float(e))) for e in epsilons]
    return summ, pd.DataFrame(rows)


TRUNCATION_CASES = {
    "symmetric noise (X3 + N2)": {"design": "pareto_sphere", "noise": "student_t"},
    "skewed noise, positive features (X4 + N3)": {"design": "pareto_abs", "noise": "pareto_skewed"},
}


def truncation_sweep(
    base: SimulationConfig, *, c_iotas: Sequence[float], n_trials: int, seed: RngLike, progress: Callable | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """F3: excess risk against c_iota under symmetric and skewed noise; the bound U(c_iota iota*)."""
    frames = []
    for case, kw in TRUNCATION_CASES.items():
        cfg = replace(base, model=replace(base.model, **kw), methods=("em_l1",))
        df = run_simulation(cfg, n_trials=n_trials, seed=seed, progress=progress, c_iota=list(c_iotas))
        df["case"] = case
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    summ = summarize_simulation(df, by=("c_iota", "case"))
    first = replace(base, model=replace(base.model, **next(iter(TRUNCATION_CASES.values()))))
    rows = [_bound_row(replace(first, c_iota=float(c))) for c in c_iotas]
    return summ, pd.DataFrame(rows)


def baseline_sweep(
    base: SimulationConfig,
    *,
    tails: Sequence[float],
    n_trials: int,
    seed: RngLike,
    progress: Callable | None = None,
    noise_follows: bool = True,
) -> pd.DataFrame:
    """F4: EM-L1-HT, B1 and B2 as the tail index of the features (and of the noise) decreases."""
    cfg = replace(base, methods=("em_l1", "em_clipped", "dp_gd"))
    points = {"tail": list(tails)}
    if noise_follows:
        frames = []
        for t in tails:
            c = replace(cfg, model=replace(cfg.model, tail=float(t), noise_tail=float(max(t, 1.05))))
            df = run_simulation(c, n_trials=n_trials, seed=seed, progress=progress)
            df["tail"] = float(t)
            frames.append(df)
        df = pd.concat(frames, ignore_index=True)
    else:
        df = run_simulation(cfg, n_trials=n_trials, seed=seed, progress=progress, **points)
    return summarize_simulation(df, by=("tail", "method"))


# -- One dataset (the page's "your data" view) ---------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DatasetAnalysis:
    """Everything the page shows about EM-L1-HT on one (real or uploaded) dataset."""

    result: RealDataResult
    feature_names: tuple
    n_train: int
    n_test: int
    standardised: bool
    residuals: np.ndarray
    density_points: np.ndarray | None
    density: dict | None
    notes: tuple
    #: held-out MAE of predicting the training median for every row (the reference a fit must beat)
    mae_median: float = math.nan
    #: the training target as the mechanism saw it (after scaling; private, for the page's fit checks)
    y_train: np.ndarray | None = None


def _median_mad(y: np.ndarray) -> tuple[float, float]:
    """The median of ``y`` and the mean absolute deviation from it (1 when it is 0): the target's data scales."""
    my = float(np.median(y))
    return my, float(np.mean(np.abs(y - my))) or 1.0


def _apply_public(Xs, y, scaling: PublicScaling, tr, notes: list) -> tuple[np.ndarray, np.ndarray]:
    """Features (and the target where public) centred and scaled by ``scaling``; the rest named in ``notes``."""
    if len(scaling.centre) != Xs.shape[1]:
        raise ValueError(f"scaling must have {Xs.shape[1]} feature centres, got {len(scaling.centre)}.")
    Xs = (Xs - np.asarray(scaling.centre)) / np.asarray(scaling.scale)
    notes.append(
        f"Features centred and scaled by public constants ({scaling.source})."
        if not scaling.features_data_derived
        else "Features centred and scaled by ranges computed from the data (not public: the guarantee does not "
        "cover this step; declare public ranges on Home)."
    )
    if scaling.target_data_derived:
        my, sy = _median_mad(y[tr])
        notes.append(
            "Target centred at its training median and scaled by its mean absolute deviation: computed from the "
            "private rows, so the guarantee does not cover this step (no public scale of this target is known)."
        )
    else:
        my, sy = float(scaling.y_centre), float(scaling.y_scale)
        notes.append(f"Target centred and scaled by public constants ({scaling.y_source}).")
    return Xs, (y - my) / sy


def _apply_sample(Xs, y, tr, notes: list) -> tuple[np.ndarray, np.ndarray]:
    """Standardise with the training sample's own statistics (data-dependent: the note says so)."""
    mu, sd = Xs[tr].mean(axis=0), Xs[tr].std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    my, sy = _median_mad(y[tr])
    notes.append(
        "Features were centred and scaled, and the target centred at its median and scaled by its mean "
        "absolute deviation, using the training sample's own statistics: this depends on the private "
        "data and leaks information (a real release would use public scales). The guarantee shown "
        "covers the mechanism given these scales, not the choice of scales."
    )
    return (Xs - mu) / sd, (y - my) / sy


def _output_laws(res, estimator: L1ExponentialRegression, d: int):
    """``(grid points, {convention: exact output law})`` of a grid run in d <= 2, else ``(None, None)``."""
    if res.grid_points is None or d > 2:
        return None, None
    from .grid import grid_probabilities
    from .truncation import CONVENTIONS, kappa

    laws = {c: grid_probabilities(res.grid_costs, kappa(estimator.epsilon, estimator.theta, c)) for c in CONVENTIONS}
    return res.grid_points, laws


def analyse_dataset(
    X,
    y,
    *,
    feature_names: Sequence[str],
    estimator: L1ExponentialRegression,
    features: Sequence[int],
    standardise: bool,
    n_releases: int = 50,
    seed: int = 0,
    test_fraction: float = 0.2,
    clip_q: float = 0.05,
    delta: float = 1e-5,
    baselines: bool = True,
    scaling: PublicScaling | None = None,
) -> DatasetAnalysis:
    """Split, (optionally) standardise, release ``n_releases`` outputs of each method, and the exact law.
    See docs/l1_exponential.md §"simulation.analyse_dataset"."""
    X, y = check_Xy(X, y, min_rows=10)
    idx = [check_int("feature index", int(j), lo=0, hi=X.shape[1] - 1) for j in features]
    if not idx:
        raise ValueError("features must select at least one column, got none.")
    g = as_generator(seed)
    f = check_probability("test_fraction", test_fraction, closed="neither")
    tr, te = split_indices(X.shape[0], test_fraction=f, seed=g)  # advances g by the split's permutation
    Xs = X[:, idx]
    notes = []
    if scaling is not None:
        Xs, y = _apply_public(Xs, y, scaling, tr, notes)
    elif standardise:
        Xs, y = _apply_sample(Xs, y, tr, notes)
    else:
        notes.append("Features and target used on their raw scale (no data-dependent preprocessing).")
    Xtr, ytr, Xte, yte = Xs[tr], y[tr], Xs[te], y[te]
    cx, cy = clip_levels(estimator.calibrate(Xtr.shape[0], Xtr.shape[1]), clip_q)
    notes.append(
        f"Baselines (not from the paper) clip ‖x‖ at C_x = {cx:.3g} and |y| at C_y = {cy:.3g} "
        f"(Markov quantiles of the public moment bounds, q = {clip_q:g})."
    )
    kw = dict(estimator=estimator, n_releases=n_releases, delta=delta, baselines=baselines)
    res = real_data_experiment(Xtr, ytr, Xte, yte, clip_x=cx, clip_y=cy, rng=g, **kw)
    residuals = ytr - Xtr @ res.lad_w
    points, density = _output_laws(res, estimator, Xtr.shape[1])
    names = tuple(str(feature_names[j]) for j in idx)
    return DatasetAnalysis(
        result=res,
        feature_names=names,
        n_train=len(tr),
        n_test=len(te),
        standardised=bool(standardise) or scaling is not None,
        mae_median=float(np.mean(np.abs(yte - np.median(ytr)))),
        y_train=ytr,
        residuals=residuals,
        density_points=points,
        density=density,
        notes=tuple(notes),
    )


def summarize_releases(table: pd.DataFrame) -> pd.DataFrame:
    """Per-method held-out MAE, its excess over the LAD fit, standard error and release count (labelled rows)."""
    g = table.groupby("method")
    count = g["trial"].count()
    mae = {"held-out MAE": g["test_mae"].mean(), "minus LAD's MAE": g["excess_test_mae"].mean()}
    out = pd.DataFrame(mae | {"SE": g["excess_test_mae"].std(ddof=1) / np.sqrt(count), "releases": count})
    out.index = [METHOD_LABELS[m] for m in out.index]
    return out


def headline(analysis: DatasetAnalysis, radius: float) -> dict:
    """The first screen's numbers of an analysis (NOT FOR PUBLICATION: they use the private data). See
    docs/l1_exponential.md §"simulation.headline"."""
    t = analysis.result.table
    em = t.loc[t["method"] == "em_l1", "test_mae"].to_numpy(dtype=float)
    lad = float(t.loc[t["method"] == "nonprivate", "test_mae"].iloc[0])
    draws = np.atleast_2d(np.asarray(analysis.result.em_draws, dtype=float))
    w = np.ravel(np.asarray(analysis.result.lad_w, dtype=float))
    spread = float(np.sqrt(np.mean(np.sum((draws - w) ** 2, axis=1))))
    radius = check_positive("radius", radius)
    return {
        "mae_private": float(np.mean(em)),
        "mae_private_se": float(np.std(em, ddof=1) / math.sqrt(em.size)) if em.size > 1 else math.nan,
        "mae_nonprivate": lad,
        "mae_median": float(analysis.mae_median),
        "spread": spread,
        "lad_norm": float(np.linalg.norm(w)),
        "lad_on_boundary": bool(np.linalg.norm(w) >= 0.99 * radius),
    }


def sampler_comparison(
    n: int = 1000,
    epsilon: float = 1.0,
    theta: float = 1.5,
    iota: float = 0.05,
    chains: int = 200,
    seed: int = 0,
    *,
    m: int = 200,
    preset: str = "quick",
) -> dict:
    """Sampler honesty (F5 of docs/l1_exponential.md §"Synthetic protocol"): the exact grid law against MALA chains.
    See docs/l1_exponential.md §"simulation.sampler_comparison"."""
    from .grid import em_grid
    from .mcmc import em_mcmc

    data = make_heavy_tailed(check_int("n", n, lo=10), d=2, seed=seed)
    law = dict(epsilon=epsilon, theta=theta, iota=iota)
    grid = em_grid(data.X, data.y, m=m, **law)
    n_draws, schedule = check_int("chains", chains, lo=2), MCMCSchedule.preset(preset)
    mc = em_mcmc(data.X, data.y, n_draws=n_draws, schedule=schedule, rng=seed, **law)
    return {
        "points": grid.net.points,
        "probs": grid.probabilities,
        "draws": mc.draws,
        "diagnostics": mc.diagnostics.as_dict(),
        "grid_mean": grid.mean,
    }
