"""Exact population risk of the synthetic heavy-tailed protocol (designs X1-X5, noises N1-N4). docs/l1_exponential.md
§"Synthetic protocol" (designs, noises, g formulas, moments). See docs/l1_exponential.md §"population (module)"."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # scipy.stats and scipy.integrate are imported where used (slow to import)

from ..._validation import check_choice, check_int, check_positive
from ...data import HEAVY_DESIGNS, HEAVY_NOISES, sample_heavy_design
from ...rng import RngLike, as_generator

__all__ = [
    "DESIGN_IDS",
    "NOISE_IDS",
    "HeavyTailedModel",
    "noise_g",
    "noise_abs_moment",
    "design_norm_moment",
    "design_coord_moment",
    "sphere_coord_moment",
    "student_t_abs_moment",
    "assumption_tau",
    "EvalSample",
    "make_eval_sample",
    "population_excess_risk",
]

DESIGN_IDS = dict(zip(HEAVY_DESIGNS, ("X1", "X2", "X3", "X4", "X5")))
NOISE_IDS = dict(zip(HEAVY_NOISES, ("N1", "N2", "N3", "N4")))


def student_t_abs_moment(p: float, nu: float) -> float:
    """``E|T|^p`` for ``T ~ t(nu)``: ``nu^(p/2) Gamma((p+1)/2) Gamma((nu-p)/2) / (sqrt(pi) Gamma(nu/2))``. See
    docs/l1_exponential.md §"population.student_t_abs_moment"."""
    if p >= nu:
        return math.inf
    return math.exp(
        0.5 * p * math.log(nu)
        + special.gammaln((p + 1) / 2)
        + special.gammaln((nu - p) / 2)
        - 0.5 * math.log(math.pi)
        - special.gammaln(nu / 2)
    )


def sphere_coord_moment(p: float, d: int) -> float:
    """``E|u_j|^p`` for u uniform on the unit sphere of R^d."""
    return math.exp(
        special.gammaln(d / 2) + special.gammaln((p + 1) / 2) - 0.5 * math.log(math.pi) - special.gammaln((d + p) / 2)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class HeavyTailedModel:
    """Parameters of the synthetic model ``y = <x, w0> + xi`` (docs/l1_exponential.md §"Synthetic protocol").
    See docs/l1_exponential.md §"population.HeavyTailedModel"."""

    d: int = 2
    design: str = "pareto_sphere"
    noise: str = "student_t"
    tail: float = 1.8
    noise_tail: float = 1.8
    scale: float = 1.0
    noise_scale: float = 1.0
    log_sigma: float = 0.75
    w_norm: float = 0.5

    def __post_init__(self) -> None:
        check_int("d", self.d, lo=1, hi=100)
        check_choice("design", self.design, HEAVY_DESIGNS)
        check_choice("noise", self.noise, HEAVY_NOISES)
        for name in ("tail", "noise_tail", "scale", "noise_scale", "log_sigma"):
            check_positive(name, getattr(self, name))
        check_positive("w_norm", self.w_norm, allow_zero=True)
        if self.noise in ("student_t", "pareto_skewed") and self.noise_tail <= 1.0:
            raise ValueError(f"noise_tail must be in (1, inf) so that E|xi| is finite, got {self.noise_tail:g}.")

    @property
    def w0(self) -> NDArray[np.float64]:
        return np.full(self.d, self.w_norm / math.sqrt(self.d))

    @property
    def label(self) -> str:
        return (
            f"{DESIGN_IDS[self.design]} ({self.design}, tail {self.tail:g}) + "
            f"{NOISE_IDS[self.noise]} ({self.noise}, tail {self.noise_tail:g})"
        )

    def generator_kwargs(self) -> dict:
        """Keyword arguments of :func:`dp_core.data.make_heavy_tailed` (every field, under the same name)."""
        return asdict(self)


def noise_g(c: ArrayLike, model: HeavyTailedModel) -> NDArray[np.float64]:
    """``g(c) = E|xi - c|`` in closed form for the noise of ``model`` (docs/l1_exponential.md §"Synthetic protocol")."""
    c = np.asarray(c, dtype=np.float64)
    s = model.noise_scale
    if model.noise == "gaussian":
        z = c / s
        return c * (2.0 * special.ndtr(z) - 1.0) + 2.0 * s * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    if model.noise == "student_t":
        nu = model.noise_tail
        z = c / s
        from scipy import stats

        f = stats.t.pdf(z, nu)
        F = special.stdtr(nu, z)
        return s * (z * (2.0 * F - 1.0) + 2.0 * (nu + z * z) / (nu - 1.0) * f)
    if model.noise == "pareto_skewed":
        al = model.noise_tail
        a = 2.0 ** (1.0 / al) + c / s
        base = al / (al - 1.0) - a
        extra = 2.0 * ((a - 1.0) - (np.power(np.maximum(a, 1.0), 1.0 - al) - 1.0) / (1.0 - al))
        return s * np.where(a <= 1.0, base, base + extra)
    b = s
    ac = np.abs(c)
    return ac + b * np.exp(-ac / b)


def noise_abs_moment(p: float, model: HeavyTailedModel) -> float:
    """``E|xi|^p`` (``inf`` when it does not exist)."""
    s = model.noise_scale
    if model.noise == "gaussian":
        return s**p * 2 ** (p / 2) * math.exp(special.gammaln((p + 1) / 2)) / math.sqrt(math.pi)
    if model.noise == "student_t":
        return s**p * student_t_abs_moment(p, model.noise_tail)
    if model.noise == "laplace":
        return s**p * math.gamma(p + 1)
    al = model.noise_tail
    if p >= al:
        return math.inf
    m = 2.0 ** (1.0 / al)

    def f(x):
        return abs(x - m) ** p * al * x ** (-al - 1.0)

    from scipy import integrate

    left = integrate.quad(f, 1.0, m, limit=200)[0]
    right = integrate.quad(f, m, math.inf, limit=400)[0]
    return s**p * (left + right)


def design_norm_moment(p: float, model: HeavyTailedModel) -> float:
    """``E||x||^p`` (closed form; for X2 the valid upper bound ``sum_j E|x_j|^p`` when p <= 2... see notes).
    See docs/l1_exponential.md §"population.design_norm_moment"."""
    d, s, a = model.d, model.scale, model.tail
    if model.design == "gaussian":
        return s**p * 2 ** (p / 2) * math.exp(special.gammaln((d + p) / 2) - special.gammaln(d / 2))
    if model.design == "student_t":
        if p == 2.0:
            return math.inf if a <= 2 else d * s * s * a / (a - 2)
        return d * s**p * student_t_abs_moment(p, a)
    if model.design in ("pareto_sphere", "pareto_abs"):
        return math.inf if p >= a else a * s**p / (a - p)
    mu, sig = math.log(s), model.log_sigma
    return math.exp(p * mu + 0.5 * p * p * sig * sig)


def design_coord_moment(p: float, model: HeavyTailedModel) -> float:
    """``max_j E|x_j|^p`` (all coordinates have the same law in every design)."""
    d, s, a = model.d, model.scale, model.tail
    if model.design == "gaussian":
        return s**p * 2 ** (p / 2) * math.exp(special.gammaln((p + 1) / 2)) / math.sqrt(math.pi)
    if model.design == "student_t":
        return s**p * student_t_abs_moment(p, a)
    return design_norm_moment(p, model) * sphere_coord_moment(p, d)


def assumption_tau(model: HeavyTailedModel, assumption: str, theta: float) -> float:
    """The smallest tau satisfying the assumption for the model's design (``inf`` if violated). See
    docs/l1_exponential.md §"population.assumption_tau"."""
    check_choice("assumption", assumption, ("A1", "A2", "A3", "A4"))
    p = 2.0 if assumption in ("A1", "A2") else float(theta)
    m = design_norm_moment(p, model) if assumption in ("A1", "A3") else design_coord_moment(p, model)
    return m ** (1.0 / p)


@dataclass(frozen=True, eq=False)
class EvalSample:
    """A fixed, public evaluation sample of feature vectors for the population risk."""

    model: HeavyTailedModel
    X: NDArray[np.float64] = field(repr=False)


def make_eval_sample(model: HeavyTailedModel, size: int = 20_000, *, seed: RngLike = 12345) -> EvalSample:
    """Draw the evaluation sample of x (common to all methods and repetitions).
    See docs/l1_exponential.md §"population.make_eval_sample"."""
    size = check_int("size", size, lo=100, hi=2_000_000)
    g = as_generator(seed)
    X = sample_heavy_design(
        g, size, model.d, model.design, tail=model.tail, scale=model.scale, log_sigma=model.log_sigma
    )
    return EvalSample(model=model, X=X)


def population_excess_risk(w: ArrayLike, sample: EvalSample, *, return_se: bool = False):
    """``L(w) - L(w*) = E_x[g(<x, w - w0>) - g(0)]`` averaged over the evaluation sample.
    docs/l1_exponential.md §"Synthetic protocol". See docs/l1_exponential.md §"population.population_excess_risk"."""
    W = np.asarray(w, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    model = sample.model
    if W.shape[1] != model.d:
        raise ValueError(f"w must have {model.d} columns, got {W.shape[1]}.")
    g0 = float(noise_g(0.0, model))
    D = W - model.w0
    M = sample.X.shape[0]
    vals = np.empty(W.shape[0])
    ses = np.empty(W.shape[0])
    rows = max(1, (1 << 21) // M)
    for s in range(0, W.shape[0], rows):
        C = D[s : s + rows] @ sample.X.T
        G = noise_g(C, model) - g0
        vals[s : s + rows] = G.mean(axis=1)
        ses[s : s + rows] = G.std(axis=1, ddof=1) / math.sqrt(M)
    vals = np.maximum(vals, 0.0)
    if single:
        return (float(vals[0]), float(ses[0])) if return_se else float(vals[0])
    return (vals, ses) if return_se else vals
