"""The private large-margin Gaussian classifier: one release, many releases (:func:`release_many`), the non-private fit.

Pathak & Raj, Algorithm (eq. 8) and Theorem 5.1; docs/large_margin_gaussian.md
§"mechanism.py: configuration, releases and diagnostics", §"Modes and why P and P+ are not private"."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from ..._validation import check_choice, check_epsilon, check_in_interval, check_int, check_positive, check_Xy
from ...exceptions import DataValidationError, InvalidPrivacyParameter
from ...publication import NonPublicDiagnostics
from ...rng import RngLike, as_generator, as_seed_sequence
from .model import encode_labels, objective, outer_vectors, predict, preprocess, sym
from .newton import fit_newton
from .privacy import MODES, PrivacyAccounting, privacy_params
from .solvers import fit_apg, literal_objective_bounded, project_psd

__all__ = ["LargeMarginGaussian", "ReleaseBatch", "ReleaseDiagnostics", "PreparedData", "prepare"]
__all__ += ["fit_nonprivate", "release_many", "leak_direction", "direction_statistic"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class LargeMarginGaussian:
    """Configuration of the private large-margin Gaussian classifier (P and P+ are not private).

    docs/large_margin_gaussian.md §"mechanism.py: configuration, releases and diagnostics",
    §"Defaults and reference settings"."""

    epsilon: float = 1.0
    mode: str = "corrected"
    lam: float = 0.01
    mu: float | None = None
    h: float = 0.5
    psd: bool = True
    semantics: str = "target"
    jacobian: str = "conservative"
    tol: float = 1e-9

    def __post_init__(self):
        # below 1e-3 the noise swamps the objective and the solver's absolute tolerance is out of reach
        if check_epsilon(self.epsilon, allow_inf=True) < 1e-3:
            raise InvalidPrivacyParameter(f"epsilon must be in [0.001, inf] for this mechanism, got {self.epsilon:g}.")
        check_choice("mode", self.mode, MODES)
        if check_positive("lam", self.lam) > 1e4:  # above 1e4 the solver cannot reach its tolerance
            raise ValueError(f"lam must be in (0, 10000], got {self.lam:g}.")
        if self.mu is not None:
            check_positive("mu", self.mu)
        check_positive("h", self.h)
        check_choice("semantics", self.semantics, ("target", "paper"))
        check_choice("jacobian", self.jacobian, ("conservative", "tight"))
        check_in_interval("tol", self.tol, 1e-13, 1.0)  # below ~1e-13 float64 rounding never lets the solver stop
        if not isinstance(self.psd, (bool, np.bool_)):
            raise TypeError(f"psd must be a bool, got {self.psd!r}.")
        if self.mode == "printed" and not self.psd:
            raise ValueError(
                "psd must be True for mode='printed', got False: the paper's algorithm constrains every "
                "Phi_c to be PSD, and without the constraint its objective is unbounded below for every draw."
            )

    def as_dict(self) -> dict:
        return asdict(self)

    def accounting(self, *, n: int, d: int, n_classes: int) -> PrivacyAccounting | None:
        """The mode's :class:`PrivacyAccounting` (``None`` when ``epsilon`` is infinite)."""
        if math.isinf(self.epsilon):
            return None
        settings = self.as_dict()
        del settings["tol"]  # the solver's tolerance: every other field is an argument of privacy_params
        return privacy_params(n=n, d=d, n_classes=n_classes, **settings)

    def input_scale(self) -> float:
        """``1`` for P (the paper's ``(x, 1)``), ``1/sqrt(2)`` otherwise."""
        return 1.0 if self.mode == "printed" else 1.0 / math.sqrt(2.0)

    def mu_eff(self, acc: PrivacyAccounting | None) -> float:
        """Frobenius coefficient of the objective actually solved."""
        if acc is not None:
            return acc.mu_eff
        if self.mode == "printed":
            return 0.0
        if self.mode == "repaired":
            return self.lam
        return self.lam if self.mu is None else self.mu

    def run(
        self,
        X,
        y,
        *,
        rng: RngLike,
        n_classes: int | None = None,
        phi_star: FloatArray | None = None,
        diagnostics: bool = False,
        warm_start: bool = True,
        solver: str = "apg",
    ):
        """One private release (see :func:`release_many`): a :class:`ReleaseBatch` with ``R = 1``, or
        ``(ReleaseBatch, ReleaseDiagnostics)`` with ``diagnostics=True`` (not for publication)."""
        return release_many(
            X,
            y,
            self,
            n_runs=1,
            seed=rng,
            n_classes=n_classes,
            phi_star=phi_star,
            diagnostics=diagnostics,
            warm_start=warm_start,
            solver=solver,
        )


@dataclass(frozen=True)
class PreparedData:
    """Preprocessed training data for one input scale (clipped, augmented, scaled)."""

    Z: FloatArray
    y: NDArray[np.int64]
    n_classes: int
    scale: float

    @cached_property
    def V(self) -> FloatArray:
        """The rows' outer products ``vec(z z')`` (``n x p^2``; only the diagnostics' objective needs them)."""
        return outer_vectors(self.Z)

    @property
    def n(self) -> int:
        return int(self.Z.shape[0])

    @property
    def d(self) -> int:
        return int(self.Z.shape[1] - 1)


def prepare(X, y, *, scale: float = 1.0 / math.sqrt(2.0), n_classes: int | None = None) -> PreparedData:
    """Validate ``X, y``; clip rows to the unit ball, append 1, scale (docs/large_margin_gaussian.md
    §"Input scaling")."""
    X, yv = check_Xy(X, y)
    yi, C = encode_labels(yv, n_classes)
    if len(np.unique(yi)) < 2:
        raise DataValidationError("y must contain at least two classes.")
    Z = preprocess(X, scale=scale)
    return PreparedData(Z=Z, y=yi, n_classes=C, scale=scale)


def fit_nonprivate(
    data: PreparedData, *, lam: float, mu: float, h: float, psd: bool = True, tol: float = 1e-10
) -> FloatArray:
    """``Phi* = argmin J`` (no noise) by accelerated projected gradient; shape ``(C, p, p)`` (from ``Phi = 0``)."""
    tol, max_iter = _solver_limits(mu, tol)
    res = fit_apg(data.Z, data.y, data.n_classes, lam, mu, h, psd=psd, tol=tol, max_iter=max_iter)
    return res.phi[0]


#: Iteration cap and tolerance floor for the literal objective (``mu = 0``, mode P only):
#: docs/large_margin_gaussian.md §"mechanism.py: configuration, releases and diagnostics".
LITERAL_MAX_ITER = 1_000
LITERAL_TOL = 1e-6


def _solver_limits(mu: float, tol: float) -> tuple[float, int]:
    if mu > 0:
        return tol, 50_000
    return max(tol, LITERAL_TOL), LITERAL_MAX_ITER


@dataclass(frozen=True)
class ReleaseBatch:
    """``R`` independent releases of one mode on one dataset: only what may be published.

    ``phi`` (R, C, p, p) is NaN where ``unbounded`` (P only). docs/large_margin_gaussian.md
    §"mechanism.py: configuration, releases and diagnostics"."""

    config: LargeMarginGaussian
    accounting: PrivacyAccounting | None
    phi: FloatArray = field(repr=False)
    unbounded: NDArray[np.bool_]

    @property
    def n_runs(self) -> int:
        return int(self.phi.shape[0])

    def predictions(self, X) -> NDArray[np.int64]:
        """Predicted labels ``(R, m)`` on new raw inputs (``-1`` for unbounded draws)."""
        Zt = preprocess(np.asarray(X, dtype=np.float64), scale=self.config.input_scale())
        out = predict(np.nan_to_num(self.phi), Zt)
        out[self.unbounded] = -1
        return out


@dataclass(frozen=True)
class ReleaseDiagnostics(NonPublicDiagnostics):
    """NOT FOR PUBLICATION: what ``R`` releases computed from the private data beyond the releases.

    Publishing any of this voids the guarantee of the releases. Fields: docs/large_margin_gaussian.md
    §"mechanism.py: configuration, releases and diagnostics"."""

    data: PreparedData = field(repr=False)
    phi_star: FloatArray = field(repr=False)
    noise: FloatArray = field(repr=False)
    noise_norm: FloatArray
    rho: FloatArray
    converged: NDArray[np.bool_]
    excess: FloatArray
    pathwise_bound: FloatArray
    direction: FloatArray = field(repr=False)
    direction_stat: FloatArray

    def class_difference_error(self, release: ReleaseBatch) -> FloatArray:
        """:func:`class_difference_error` of ``release`` against this non-private fit."""
        return class_difference_error(release.phi, self.phi_star)


def class_difference_error(phi: FloatArray, phi_star: FloatArray) -> FloatArray:
    """``max_c ||(Phi^p_c - Phi^p_0) - (Phi*_c - Phi*_0)||_F`` per run of ``phi`` (R, C, p, p) (0 = exact leak)."""
    err = (phi[:, 1:] - phi[:, :1]) - (phi_star[1:] - phi_star[:1])[None]
    return np.sqrt(np.sum(err**2, axis=(-2, -1))).max(axis=1)


def _standard_radial(seeds: Sequence[np.random.SeedSequence], dim: int) -> FloatArray:
    """One standardised radial draw per seed (``beta = 1``); scaled by ``1/beta`` afterwards (common random numbers)."""
    out = np.empty((len(seeds), dim))
    for j, s in enumerate(seeds):
        # The law of calibration.sample_laplace_norm(radius_first=True) at scale 1, written out: the 1-D norm
        # here rounds differently from that sampler's row norms, and the stored audit table pins these bits.
        g = as_generator(s)
        r = g.gamma(dim, 1.0)
        u = g.standard_normal(dim)
        out[j] = r * u / np.linalg.norm(u)
    return out


def _as_seeds(seed, n_runs: int) -> list[np.random.SeedSequence]:
    if isinstance(seed, (list, tuple)) and all(isinstance(s, np.random.SeedSequence) for s in seed):
        if len(seed) != n_runs:
            raise ValueError(f"seed must hold n_runs={n_runs} seed sequences, got {len(seed)}.")
        return list(seed)
    if isinstance(seed, np.random.Generator):
        return as_seed_sequence(as_generator(seed)).spawn(n_runs)
    return as_seed_sequence(seed).spawn(n_runs)


def leak_direction(phi_star_a: FloatArray, phi_star_b: FloatArray | None = None) -> FloatArray:
    """Unit direction in class-difference space for :func:`direction_statistic` (of one fit, or of two fits'
    difference: docs/large_margin_gaussian.md §"mechanism.py: configuration, releases and diagnostics")."""
    da = phi_star_a[1:] - phi_star_a[:1]
    v = da if phi_star_b is None else da - (phi_star_b[1:] - phi_star_b[:1])
    nrm = float(np.sqrt(np.sum(v**2)))
    if nrm == 0.0:
        v = np.zeros_like(v)
        v[0, 0, 0] = 1.0
        return v
    return v / nrm


def direction_statistic(phi: FloatArray, direction: FloatArray) -> FloatArray:
    """``<(Phi_c - Phi_0)_{c>=1}, direction>`` for a batch ``phi`` of shape ``(R, C, p, p)``."""
    diffs = phi[:, 1:] - phi[:, :1]
    return np.sum(diffs * direction[None], axis=(1, 2, 3))


def _solve(config, data, acc, mu_eff: float, phi_star, linear, idx, solver: str) -> tuple[FloatArray, np.ndarray]:
    """``(phi, converged)`` of every run: the runs ``idx`` solved together (warm start at the non-private
    fit moved by the noise), NaN for the others; at ``epsilon = inf`` the non-private fit itself. ``solver="newton"``
    solves a single run with ``mu > 0`` by :func:`.newton.fit_newton` (same objective and stopping rule)."""
    n_runs, C, p, _ = linear.shape
    phi = np.full((n_runs, C, p, p), np.nan)
    converged = np.zeros(n_runs, dtype=bool)
    if not idx.size:
        return phi, converged
    if acc is None:
        phi[idx] = phi_star[None]
        converged[idx] = True
        return phi, converged
    lin = linear[idx]
    centre = 0.0 if phi_star is None else phi_star[None]  # no non-private fit: start from the noise alone
    if mu_eff > 0:
        start = centre - lin / mu_eff
        start = project_psd(start) if config.psd else sym(start)
    else:
        start = np.broadcast_to(centre, lin.shape)
    tol, max_iter = _solver_limits(mu_eff, config.tol)
    newton = solver == "newton" and mu_eff > 0 and idx.size == 1
    res = (fit_newton if newton else fit_apg)(
        data.Z,
        data.y,
        C,
        config.lam,
        mu_eff,
        config.h,
        linear=lin,
        psd=config.psd,
        phi0=start,
        tol=tol,
        **({} if newton else {"max_iter": max_iter}),
    )
    phi[idx] = res.phi
    converged[idx] = res.converged
    return phi, converged


def release_many(
    X,
    y,
    config: LargeMarginGaussian,
    *,
    n_runs: int,
    seed: RngLike | Sequence[np.random.SeedSequence],
    n_classes: int | None = None,
    phi_star: FloatArray | None = None,
    direction: FloatArray | None = None,
    data: PreparedData | None = None,
    diagnostics: bool = False,
    warm_start: bool = True,
    solver: str = "apg",
):
    """Run a mode ``n_runs`` times on a fixed dataset, batched (the audit's entry point). Pathak & Raj, eq. 8;
    docs/large_margin_gaussian.md §"mechanism.release_many", §"mechanism.py: configuration, releases and diagnostics",
    §"Budget split and Jacobian term", §"Utility bounds in three tiers"."""
    if not isinstance(config, LargeMarginGaussian):
        raise TypeError(f"config must be a LargeMarginGaussian, got {type(config).__name__}.")
    n_runs = check_int("n_runs", n_runs, lo=1)
    solver = check_choice("solver", solver, ("apg", "newton"))
    if data is None:
        data = prepare(X, y, scale=config.input_scale(), n_classes=n_classes)
    n, p, C = data.n, data.d + 1, data.n_classes
    acc = config.accounting(n=n, d=data.d, n_classes=C)
    mu_eff = config.mu_eff(acc)
    # the non-private fit: the solver's warm start, the diagnostics' reference and the release at epsilon = inf;
    # warm_start=False skips it when nothing else needs it (the estimator: one solve instead of two)
    if phi_star is None and (warm_start or diagnostics or acc is None):
        phi_star = fit_nonprivate(data, lam=config.lam, mu=mu_eff, h=config.h, psd=config.psd)
    seeds = _as_seeds(seed, n_runs)
    shared = config.mode != "corrected"
    shape = (n_runs, p, p) if shared else (n_runs, C, p, p)
    if acc is None:
        noise = np.zeros(shape)
    else:
        noise = (_standard_radial(seeds, int(np.prod(shape[1:]))) / acc.beta).reshape(shape)
    noise_norm = np.sqrt(np.sum(noise.reshape(n_runs, -1) ** 2, axis=1))
    linear = sym(noise) / n
    if shared:
        linear = np.broadcast_to(linear[:, None], (n_runs, C, p, p))
    linear = np.ascontiguousarray(linear)
    if config.mode == "printed" and acc is not None:
        bounded = literal_objective_bounded(noise, n, config.lam, psd=config.psd)
    else:
        bounded = np.ones(n_runs, dtype=bool)
    idx = np.flatnonzero(bounded)
    phi, converged = _solve(config, data, acc, mu_eff, phi_star, linear, idx, solver)
    release = ReleaseBatch(config=config, accounting=acc, phi=phi, unbounded=~bounded)
    if not diagnostics:
        return release
    return release, _diagnostics(config, data, acc, mu_eff, phi_star, phi, idx, noise, noise_norm, converged, direction)


def _diagnostics(config, data, acc, mu_eff, phi_star, phi, idx, noise, noise_norm, converged, direction):
    """The :class:`ReleaseDiagnostics` of :func:`release_many`'s runs (not for publication)."""
    n_runs, n, C = phi.shape[0], data.n, data.n_classes
    shared = config.mode != "corrected"
    rho = math.sqrt(C) * noise_norm if shared else noise_norm
    excess = np.full(n_runs, np.nan)
    stat = np.full(n_runs, np.nan)
    direction = leak_direction(phi_star) if direction is None else direction
    if idx.size:
        J = objective(phi[idx], data.Z, data.y, config.lam, mu_eff, config.h, V=data.V)
        J0 = float(objective(phi_star, data.Z, data.y, config.lam, mu_eff, config.h, V=data.V))
        excess[idx] = J - J0
        stat[idx] = direction_statistic(phi[idx], direction)
    pathwise = 2.0 * rho**2 / (n**2 * mu_eff) if mu_eff > 0 else np.full(n_runs, np.inf)
    return ReleaseDiagnostics(
        data=data,
        phi_star=phi_star,
        noise=noise,
        noise_norm=noise_norm,
        rho=rho,
        converged=converged,
        excess=excess,
        pathwise_bound=pathwise,
        direction=direction,
        direction_stat=stat,
    )
