"""Input perturbation (Algorithms 1 and 2), its two exact samplers, and the baselines.

Algorithm 1 (contributor side): each contributor i draws r_i ~ N(0, sigma_b^2/n I) and
u_i ~ N(0, sigma_u^2/n I) and sends (q_i + u_i, p_i - r_i). Algorithm 2 (server side): with
A = Q~^T Q~ + Delta_in I and h = sum p~_i, release argmin_{||w|| <= eta} 1/2 w^T A w - h^T w.

Two samplers of the server's inputs (Q~^T Q~, p~), same distribution (docs/input_perturbation.md §"Exact samplers"):

* ``"records"``: every contributor's noise is drawn, as the protocol runs (O(n d^2) per trial).
* ``"stats"``: with R^T R = Q^T Q (k = min(n, d) rows), Q~^T Q~ = (R + G)^T (R + G) + W_2 where
  G is k x d with iid N(0, sigma_u^2/n) entries and W_2 ~ Wishart_d((sigma_u^2/n) I, n - k)
  (Bartlett decomposition); p~ = p - b with b ~ N(0, sigma_b^2 I). Per-trial cost O(d^3), not
  growing with n; vectorised over trials. This is exact by rotation invariance of the Gaussian
  matrix U: extend Q = H R to an orthonormal basis [H, H_perp] of R^n; H^T U and H_perp^T U are
  independent iid Gaussian matrices.

References
----------
.. [FTS17] K. Fukuchi, Q. K. Tran, J. Sakuma, *Differentially Private Empirical Risk Minimization
   with Input Perturbation*, 2017: Algorithm 1, Algorithm 2, Theorem 1.
.. [KST12] D. Kifer, A. Smith, A. Thakurta, *Private Convex Empirical Risk Minimization and
   High-dimensional Regression*, COLT 2012, Algorithm 1 / Theorem 2 (Gaussian objective perturbation).
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, *Differentially Private Empirical Risk
   Minimization*, JMLR 2011, Algorithm 1 (output perturbation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
    """Algorithm 1 for every row at once: return (Q~, P~) = (Q + U, P - R_noise).

    Each row gets noise of variance sigma^2 / n per coordinate (docs/input_perturbation.md
    §"Per-record noise variance"), so the sums have
    variance sigma_b^2 and E[U^T U] = sigma_u^2 I.

    References
    ----------
    [FTS17] Algorithm 1.
    """
    g = as_generator(rng)
    Q = np.asarray(Q, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    U = g.standard_normal(Q.shape) * params.per_record_std_u
    Rn = g.standard_normal(P.shape) * params.per_record_std_b
    return Q + U, P - Rn


def server_fit(QtQt: np.ndarray, p_tilde: np.ndarray, params: InputPerturbationParams, *, return_info: bool = False):
    """Algorithm 2: argmin_{||w|| <= eta} 1/2 w^T (Q~^T Q~ + Delta_in I) w - p~^T w (batched).

    References
    ----------
    [FTS17] Algorithm 2 (Delta_in = Delta - 2 lambda / eps).
    """
    A = np.asarray(QtQt, dtype=np.float64) + params.Delta_in * np.eye(params.d)
    return solve_ball(A, p_tilde, params.eta, return_info=return_info)


def _stats_draw(stats: SufficientStats, params: InputPerturbationParams, g: np.random.Generator, T: int):
    d, k, n = stats.d, stats.R.shape[0], stats.n
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
    """Draw the server's inputs (Q~^T Q~, p~) for many independent runs of Algorithm 1.

    Parameters
    ----------
    stats : SufficientStats
        From :func:`~dp_core.mechanisms.input_perturbation.model.sufficient_stats` of the same data.
    params : InputPerturbationParams
        Step-0 parameters (``params.n`` must equal ``stats.n``).
    n_trials : int, optional
        Number of runs when ``rng`` is a single seed/generator.
    rng : int, Generator, or sequence of SeedSequence
        A sequence gives one independent stream per trial (run ``t`` then depends only on its own
        seed, whatever the batch); a single seed or generator draws the whole batch at once.
    sampler : {"stats", "records"}
        ``"stats"``: exact sufficient-statistics sampler (docs/input_perturbation.md §"Exact samplers");
        ``"records"``: every
        contributor's noise drawn (needs ``X`` and ``y``).

    Returns
    -------
    QtQt : ndarray (T, d, d)
    p_tilde : ndarray (T, d)

    References
    ----------
    [FTS17] Algorithm 1; docs/input_perturbation.md §"Exact samplers".
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
    """Fast vectorised entry point for audits: ``n_runs`` independent releases w^in on fixed data.

    Uses the exact ``stats`` sampler (cost O(n_runs d^3), independent of n) with one generator
    for the whole batch, processed in chunks of 20,000 runs to bound memory.

    Parameters
    ----------
    stats : SufficientStats
        Sufficient statistics of the fixed dataset (see ``sufficient_stats``).
    params : InputPerturbationParams
        Step-0 parameters with ``params.n == stats.n``.
    n_runs : int
        Number of releases R. Must be >= 1.
    seed : int, Generator or None
        Same seed, same releases.

    Returns
    -------
    ndarray of shape (n_runs, d)

    References
    ----------
    [FTS17] Algorithms 1-2; docs/input_perturbation.md §"Exact samplers".
    """
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
    """:func:`release_thetas` from raw rows: ``n_runs`` releases of input perturbation on (X, y).

    The public constants (lambda, zeta) follow from ``model`` and the declared bounds, and Delta from
    the public default rule, so two neighbouring datasets of the same size get identical parameters
    (what an audit needs). Rows are clipped to ``||x|| <= x_bound`` and labels to ``|y| <= y_bound``;
    for ``model="logistic_taylor"`` labels must be -1/+1.

    Returns
    -------
    ndarray of shape (n_runs, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.tile([[0.6, 0.8]], (100, 1)); y = np.full(100, 0.5)
    >>> release_thetas_xy(X, y, epsilon=1.0, delta=1e-5, n_runs=3, seed=0).shape
    (3, 2)
    """
    from .model import model_constants
    from .params import input_perturbation_params

    stats = sufficient_stats(X, y, model, x_bound=x_bound, y_bound=y_bound)
    c = model_constants(model, eta=eta, x_bound=x_bound, y_bound=y_bound)
    params = input_perturbation_params(
        n=stats.n,
        d=stats.d,
        epsilon=epsilon,
        delta=delta,
        eta=eta,
        zeta=c.zeta,
        lam=c.lam,
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
    """Gaussian objective perturbation ("Obj-Gauss"): argmin_{||w||<=eta} 1/2 w^T (S + Delta I) w - (p - b)^T w.

    References
    ----------
    [KST12] Algorithm 1 and Theorem 2.
    """
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
    """Output perturbation: w_Lambda + b, ||b|| ~ Gamma(d, 1/beta_out), uniform direction, projected on W.

    Pure eps-DP (delta = 0). Projection onto the ball is post-processing.

    References
    ----------
    [CMS11] Algorithm 1.
    """
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
    """One release of input perturbation: only what may be published.

    Attributes
    ----------
    theta : ndarray (d,)
        The released parameter w^in.
    epsilon, delta, alpha : float
        Central privacy target and local/central trade-off (public settings).
    eps_run : float
        ``alpha * epsilon``, the level the noise is calibrated to.
    privacy_status : str
        What the guarantee rests on (:data:`PRIVACY_STATUS`).
    model : str
    eta : float
        Radius of W.
    sigma_b, sigma_u, Delta_in : float
        Public noise scales and ridge of Step 0 (functions of n, d and the settings only).
    on_boundary : bool
        ``||theta|| = eta`` (a function of the release itself).
    status : str
        Solver status ("optimal": the ball-constrained ridge is solved exactly).

    The non-private fit, the noise drawn and the excess risk are in
    :class:`InputPerturbationDiagnostics`, returned only by ``run(..., diagnostics=True)``.
    """

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
    """NOT FOR PUBLICATION: what one run of input perturbation computed from the private data.

    Publishing any of this voids the guarantee of the release it accompanies (with the noise
    one recovers the exact sufficient statistics; the non-private fit is the unprotected model).

    Attributes
    ----------
    theta_nonprivate : ndarray (d,)
        w^ = argmin_{||w|| <= eta} J^(w), the reference of the excess risk.
    risk_nonprivate : float
        J^(w^), the empirical risk at the non-private optimum.
    excess_risk : float
        J^(w^in) - J^(w^).
    noise_linear : ndarray (d,)
        ``p - p~``, the total noise on the linear term.
    noise_quadratic : ndarray (d, d)
        ``Q~^T Q~ - Q^T Q``, the total perturbation of the quadratic term.
    """

    theta_nonprivate: np.ndarray
    risk_nonprivate: float
    excess_risk: float
    noise_linear: np.ndarray
    noise_quadratic: np.ndarray


@dataclass(frozen=True, slots=True, kw_only=True)
class InputPerturbation:
    """Input perturbation for a quadratic loss (least squares or the logistic Taylor surrogate).

    Parameters
    ----------
    epsilon, delta : float
        Central privacy target (before the alpha rescaling).
    model : {"least_squares", "logistic_taylor"}
    eta : float
        Radius of W.
    alpha : float
        Local/central trade-off in (0, 1].
    Delta_multiplier : float
        Delta = multiplier x Delta_star (docs/input_perturbation.md §"Regularisation Δ").
    sigma_u_mode : {"COR2", "ALG1", "CORR"}
    x_bound, y_bound : float
        Declared public bounds ||x|| <= x_bound, |y| <= y_bound (rows are clipped to them).

    References
    ----------
    [FTS17] Algorithms 1 and 2, Theorem 1 ((alpha eps, delta)-DP as claimed by the paper; see the
    privacy-proof diagnostic for what the proof actually needs).
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
        from .params import input_perturbation_params

        c = self.constants()
        return input_perturbation_params(
            n=n,
            d=d,
            epsilon=self.epsilon,
            delta=self.delta,
            eta=self.eta,
            zeta=c.zeta,
            lam=c.lam,
            alpha=self.alpha,
            Delta_multiplier=self.Delta_multiplier,
            sigma_u_mode=self.sigma_u_mode,
        )

    def run(self, X, y, *, rng, sampler: str = "records", diagnostics: bool = False):
        """Run the protocol once on (X, y).

        Returns an :class:`InputPerturbationRelease`; with ``diagnostics=True`` the pair
        ``(release, InputPerturbationDiagnostics)`` (non-private fit, noise, excess risk: not for
        publication). The random draws are the same either way.
        """
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
            epsilon=params.epsilon,
            delta=params.delta,
            alpha=params.alpha,
            eps_run=params.eps_run,
            privacy_status=PRIVACY_STATUS,
            model=self.model,
            eta=self.eta,
            sigma_b=params.sigma_b,
            sigma_u=params.sigma_u,
            Delta_in=params.Delta_in,
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
