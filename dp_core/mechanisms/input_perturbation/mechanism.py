"""Input perturbation (Algorithms 1 and 2), its two exact samplers, and the baselines.

[FTS17] Fukuchi, Tran & Sakuma 2017 (Algorithms 1-2, Theorem 1); [KST12] Kifer, Smith & Thakurta 2012
(Algorithm 1, Theorem 2); [CMS11] Chaudhuri, Monteleoni & Sarwate 2011 (Algorithm 1). The protocol and the
two samplers: docs/input_perturbation.md §"The protocol" and §"Exact samplers".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._blas import blas_threads_for
from ..._validation import check_choice, check_int
from ...calibration import output_perturbation_sensitivity, sample_laplace_norm
from ...publication import NonPublicDiagnostics
from ...rng import as_generator, as_seed_sequence
from .model import SufficientStats, quadratic_features, sufficient_stats
from .params import InputPerturbationParams
from .solver import solve_ball

__all__ = [
    "SAMPLERS",
    "contributor_randomize",
    "server_fit",
    "sample_server_inputs",
    "input_perturbation_thetas",
    "release_thetas",
    "release_thetas_xy",
    "objective_sigma",
    "objective_perturbation_thetas",
    "output_perturbation_thetas",
    "output_beta",
    "nonprivate_theta",
    "logistic_nonprivate_fit",
    "InputPerturbation",
    "InputPerturbationRelease",
    "InputPerturbationDiagnostics",
    "PRIVACY_STATUS",
]

SAMPLERS = ("stats", "records")
_CHUNK = 1 << 16


def _generators(rng, n_trials: int | None):
    """Either one generator for a batch (fast path) or one generator per trial seed."""
    if isinstance(rng, (list, tuple)):
        return [as_generator(as_seed_sequence(s)) for s in rng]
    return as_generator(rng)


def contributor_randomize(
    Q: np.ndarray, P: np.ndarray, params: InputPerturbationParams, rng
) -> tuple[np.ndarray, np.ndarray]:
    """[FTS17] Algorithm 1 for every row: (Q + U, P - R_noise), per-record variance sigma^2 / n
    (docs/input_perturbation.md §"Per-record noise variance")."""
    g = as_generator(rng)
    Q = np.asarray(Q, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    U = g.standard_normal(Q.shape) * params.per_record_std_u
    Rn = g.standard_normal(P.shape) * params.per_record_std_b
    return Q + U, P - Rn


def server_fit(QtQt: np.ndarray, p_tilde: np.ndarray, params: InputPerturbationParams, *, return_info: bool = False):
    """[FTS17] Algorithm 2: argmin_{||w|| <= eta} 1/2 w^T (Q~^T Q~ + Delta_in I) w - p~^T w (batched)."""
    A = np.asarray(QtQt, dtype=np.float64) + params.Delta_in * np.eye(params.d)
    return solve_ball(A, p_tilde, params.eta, return_info=return_info)


def _stats_draw(stats: SufficientStats, params: InputPerturbationParams, g: np.random.Generator, T: int):
    d, k, n = stats.d, stats.R.shape[0], stats.n
    with blas_threads_for(float(d) * d * max(k, d)):  # T small d x d products: the dp_core/_blas.py rule
        s = params.sigma_u / math.sqrt(n)
        G = g.standard_normal((T, k, d)) * s
        RG = stats.R[None] + G
        QtQt = np.matmul(np.swapaxes(RG, 1, 2), RG)
        m = n - k
        if m >= d:
            chi = g.chisquare(m - np.arange(d), size=(T, d))
            Z = np.tril(g.standard_normal((T, d, d)), -1)
            idx = np.arange(d)
            Z[:, idx, idx] = np.sqrt(chi)
            QtQt += (s * s) * np.matmul(Z, np.swapaxes(Z, 1, 2))
        elif m > 0:
            G2 = g.standard_normal((T, m, d)) * s
            QtQt += np.matmul(np.swapaxes(G2, 1, 2), G2)
        b = g.standard_normal((T, d)) * params.sigma_b
        return QtQt, stats.p[None] - b


def _records_draw(Q: np.ndarray, P: np.ndarray, params: InputPerturbationParams, g: np.random.Generator):
    n, d = Q.shape
    QtQt = np.zeros((d, d))
    pt = np.zeros(d)
    for start in range(0, n, _CHUNK):
        qt, ptc = contributor_randomize(Q[start : start + _CHUNK], P[start : start + _CHUNK], params, g)
        QtQt += qt.T @ qt  # the server only ever sees the noisy records
        pt += ptc.sum(axis=0)
    return QtQt, pt


def sample_server_inputs(
    stats: SufficientStats,
    params: InputPerturbationParams,
    *,
    n_trials: int | None = None,
    rng=None,
    sampler: str = "stats",
    X=None,
    y=None,
    x_bound: float = 1.0,
    y_bound: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The server's inputs (Q~^T Q~ (T, d, d), p~ (T, d)) for T runs of [FTS17] Algorithm 1.

    ``rng``: a sequence of seeds gives one stream per trial (run t depends only on its seed), a single
    seed/generator draws ``n_trials`` at once. ``sampler="records"`` needs ``X`` and ``y``
    (docs/input_perturbation.md §"Exact samplers").
    """
    check_choice("sampler", sampler, SAMPLERS)
    if params.n != stats.n or params.d != stats.d:
        raise ValueError(f"params (n={params.n}, d={params.d}) do not match the data (n={stats.n}, d={stats.d}).")
    gens = _generators(rng, n_trials)
    if sampler == "records":
        if X is None or y is None:
            raise ValueError("sampler='records' needs the data rows X and y, got None.")
        Q, P, _ = quadratic_features(X, y, stats.model, x_bound=x_bound, y_bound=y_bound)
        gl = gens if isinstance(gens, list) else [gens] * check_int("n_trials", n_trials, lo=1)
        draws = [_records_draw(Q, P, params, g) for g in gl]
        return np.stack([a for a, _ in draws]), np.stack([b for _, b in draws])
    if isinstance(gens, list):
        draws = [_stats_draw(stats, params, g, 1) for g in gens]
        return np.concatenate([a for a, _ in draws]), np.concatenate([b for _, b in draws])
    return _stats_draw(stats, params, gens, check_int("n_trials", n_trials, lo=1))


def input_perturbation_thetas(
    stats,
    params,
    *,
    n_trials=None,
    rng=None,
    sampler="stats",
    X=None,
    y=None,
    x_bound: float = 1.0,
    y_bound: float = 1.0,
    return_info: bool = False,
):
    """Released w^in for many runs (Algorithm 1 then Algorithm 2); shape (T, d)."""
    QtQt, pt = sample_server_inputs(
        stats, params, n_trials=n_trials, rng=rng, sampler=sampler, X=X, y=y, x_bound=x_bound, y_bound=y_bound
    )
    return server_fit(QtQt, pt, params, return_info=return_info)


def release_thetas(stats: SufficientStats, params: InputPerturbationParams, n_runs: int, seed=None) -> np.ndarray:
    """Audit entry point: ``n_runs`` releases w^in (n_runs, d) on fixed data, one generator, the exact
    ``stats`` sampler in chunks of 20,000 runs (docs/input_perturbation.md §"Exact samplers")."""
    R = check_int("n_runs", n_runs, lo=1)
    g = as_generator(seed)
    out = []
    for start in range(0, R, 20_000):
        T = min(20_000, R - start)
        out.append(input_perturbation_thetas(stats, params, n_trials=T, rng=g))
    return np.concatenate(out)


def release_thetas_xy(
    X,
    y,
    *,
    epsilon: float,
    delta: float,
    n_runs: int,
    seed=None,
    model: str = "least_squares",
    eta: float = 1.0,
    alpha: float = 1.0,
    Delta: float | None = None,
    Delta_multiplier: float = 1.0,
    sigma_u_mode: str = "COR2",
    x_bound: float = 1.0,
    y_bound: float = 1.0,
) -> np.ndarray:
    """:func:`release_thetas` from raw rows (clipped to the declared bounds); public constants from ``model``
    and the bounds only, so neighbouring datasets of one size get identical parameters.
    """
    from .params import params_for_model

    stats = sufficient_stats(X, y, model, x_bound=x_bound, y_bound=y_bound)
    params = params_for_model(
        model,
        eta=eta,
        x_bound=x_bound,
        y_bound=y_bound,
        n=stats.n,
        d=stats.d,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        Delta=Delta,
        Delta_multiplier=Delta_multiplier,
        sigma_u_mode=sigma_u_mode,
    )
    return release_thetas(stats, params, n_runs, seed=seed)


# ----------------------------------------------------------------------------------------------
# Baselines on the same data, constraint and regularisation Delta
# ----------------------------------------------------------------------------------------------


def objective_sigma(params: InputPerturbationParams) -> float:
    """sigma_obj = zeta sqrt(8 ln(2/delta) + 4 eps) / eps ([KST12] Theorem 2; note delta, not delta/2).

    Uses eps_run = alpha * epsilon so that every method has the same central epsilon.
    """
    e = params.eps_run
    return params.zeta * math.sqrt(8.0 * math.log(2.0 / params.delta) + 4.0 * e) / e


def objective_perturbation_thetas(
    stats: SufficientStats, params: InputPerturbationParams, *, n_trials=None, rng=None, return_info: bool = False
):
    """[KST12] Algorithm 1 ("Obj-Gauss"): argmin_{||w||<=eta} 1/2 w^T (S + Delta I) w - (p - b)^T w."""
    gens = _generators(rng, n_trials)
    sig = objective_sigma(params)
    d = stats.d
    if isinstance(gens, list):
        b = np.concatenate([g.standard_normal((1, d)) for g in gens]) * sig
    else:
        b = gens.standard_normal((check_int("n_trials", n_trials, lo=1), d)) * sig
    A = np.broadcast_to(stats.S + params.Delta * np.eye(d), (b.shape[0], d, d))
    return solve_ball(A, stats.p[None] - b, params.eta, return_info=return_info)


def output_beta(params: InputPerturbationParams) -> float:
    """beta_out = n Lambda eps / (2 zeta) with Lambda = Delta / n ([CMS11] Algorithm 1).

    That is eps / sensitivity with the sensitivity 2 zeta / (n Lambda) of [CMS11] Corollary 8
    (:func:`~dp_core.calibration.output_perturbation_sensitivity`, zeta the Lipschitz constant).
    """
    # the regulariser is Delta = n Lambda: pass n = 1, lam = Delta (the baseline configs hold no n)
    sens = output_perturbation_sensitivity(lipschitz=params.zeta, n=1.0, lam=params.Delta)
    return params.eps_run / sens


def output_perturbation_thetas(stats: SufficientStats, params: InputPerturbationParams, *, n_trials=None, rng=None):
    """[CMS11] Algorithm 1 (pure eps-DP): w_Lambda + b, ||b|| ~ Gamma(d, 1/beta_out), projected on W."""
    d = stats.d
    w_lam = solve_ball(stats.S + params.Delta * np.eye(d), stats.p, params.eta)
    beta = output_beta(params)
    gens = _generators(rng, n_trials)

    def draw(g, T):
        return sample_laplace_norm(g, T, d, scale=1.0 / beta)

    b = (
        np.concatenate([draw(g, 1) for g in gens])
        if isinstance(gens, list)
        else draw(gens, check_int("n_trials", n_trials, lo=1))
    )
    w = w_lam[None] + b
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    return w * np.minimum(1.0, params.eta / np.maximum(norms, 1e-300))


def nonprivate_theta(stats: SufficientStats, eta: float) -> np.ndarray:
    """w^ = argmin_{||w|| <= eta} J^(w) ([FTS17] section 5), the reference of every excess risk."""
    return solve_ball(stats.S, stats.p, eta)


def logistic_nonprivate_fit(X, y_pm, eta: float, *, max_iter: int = 50, tol: float = 1e-10) -> np.ndarray:
    """Non-private logistic regression on the true loss, over the ball ||w|| <= eta.

    Projected Newton: each step minimises the local quadratic model over the ball exactly with
    :func:`solve_ball`, then backtracks along the (feasible) segment. Labels in {-1, +1}.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y_pm, dtype=np.float64)
    n, d = X.shape
    w = np.zeros(d)

    def loss(v):
        return float(np.mean(np.logaddexp(0.0, -y * (X @ v))))

    f = loss(w)
    for _ in range(max_iter):
        m = y * (X @ w)
        sgm = 0.5 * (1.0 - np.tanh(0.5 * m))  # sigmoid(-m), overflow-free
        grad = -(X.T @ (y * sgm)) / n
        wts = sgm * (1.0 - sgm)
        H = (X.T * wts) @ X / n + 1e-12 * np.eye(d)
        v = solve_ball(H, H @ w - grad, eta)
        step = 1.0
        direction = v - w
        dec = float(grad @ direction)
        if dec > -tol:
            break
        while step > 1e-8:
            cand = w + step * direction
            fc = loss(cand)
            if fc <= f + 1e-4 * step * dec:
                break
            step *= 0.5
        w, f_old, f = cand, f, fc
        if f_old - f < tol * max(1.0, abs(f)):
            break
    return w


#: Privacy status of every input-perturbation release (see the privacy-proof diagnostic).
PRIVACY_STATUS = (
    "audited: no violation found (the paper's Theorem 1, not re-derived: its proof relies on a regulariser "
    "that depends on the private data and on an event its Lemma 1 does not secure)"
)


@dataclass(frozen=True)
class InputPerturbationRelease:
    """One release of input perturbation: only what may be published (w^in and public settings/scales);
    the non-private extras are in :class:`InputPerturbationDiagnostics` (``run(..., diagnostics=True)``)."""

    theta: np.ndarray
    epsilon: float
    delta: float
    alpha: float
    eps_run: float
    privacy_status: str
    model: str
    eta: float
    sigma_b: float
    sigma_u: float
    Delta_in: float
    on_boundary: bool
    status: str


@dataclass(frozen=True)
class InputPerturbationDiagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION (with the noise one recovers the exact sufficient statistics): the non-private
    fit w^ and its risk J^(w^), the excess risk, the noise p - p~ and Q~^T Q~ - Q^T Q."""

    theta_nonprivate: np.ndarray
    risk_nonprivate: float
    excess_risk: float
    noise_linear: np.ndarray
    noise_quadratic: np.ndarray


@dataclass(frozen=True, slots=True, kw_only=True)
class InputPerturbation:
    """Input perturbation for a quadratic loss ([FTS17] Algorithms 1-2, Theorem 1 as claimed by the paper).

    ``epsilon``/``delta`` before the alpha rescaling; ``Delta_multiplier`` x Delta_star
    (docs/input_perturbation.md §"Regularisation Δ"); rows clipped to the declared ``x_bound``/``y_bound``.
    """

    epsilon: float
    delta: float
    model: str = "least_squares"
    eta: float = 1.0
    alpha: float = 1.0
    Delta_multiplier: float = 1.0
    sigma_u_mode: str = "COR2"
    x_bound: float = 1.0
    y_bound: float = 1.0

    def constants(self):
        from .model import model_constants

        return model_constants(self.model, eta=self.eta, x_bound=self.x_bound, y_bound=self.y_bound)

    def params(self, n: int, d: int) -> InputPerturbationParams:
        from .params import params_for_model

        names = ("epsilon", "delta", "eta", "alpha", "Delta_multiplier", "sigma_u_mode", "x_bound", "y_bound")
        return params_for_model(self.model, n=n, d=d, **{k: getattr(self, k) for k in names})

    def run(self, X, y, *, rng, sampler: str = "records", diagnostics: bool = False):
        """Run the protocol once: the release, or with ``diagnostics=True`` (release, diagnostics); same draws."""
        from .model import empirical_risk

        stats = sufficient_stats(X, y, self.model, x_bound=self.x_bound, y_bound=self.y_bound)
        params = self.params(stats.n, stats.d)
        QtQt, pt = sample_server_inputs(
            stats, params, n_trials=1, rng=rng, sampler=sampler, X=X, y=y, x_bound=self.x_bound, y_bound=self.y_bound
        )
        sol = server_fit(QtQt, pt, params, return_info=True)
        w = sol.w[0]
        release = InputPerturbationRelease(
            theta=w,
            **{k: getattr(params, k) for k in ("epsilon", "delta", "alpha", "eps_run")},
            privacy_status=PRIVACY_STATUS,
            model=self.model,
            eta=self.eta,
            **{k: getattr(params, k) for k in ("sigma_b", "sigma_u", "Delta_in")},
            on_boundary=bool(sol.on_boundary[0]),
            status="optimal",
        )
        if not diagnostics:
            return release
        w_hat = nonprivate_theta(stats, self.eta)
        risk_hat = float(empirical_risk(stats, w_hat))
        diag = InputPerturbationDiagnostics(
            theta_nonprivate=w_hat,
            risk_nonprivate=risk_hat,
            excess_risk=float(empirical_risk(stats, w)) - risk_hat,
            noise_linear=stats.p - pt[0],
            noise_quadratic=QtQt[0] - stats.S,
        )
        return release, diag
