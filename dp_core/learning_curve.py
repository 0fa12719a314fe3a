"""One model of a method's utility over (n, ε): the measurement, extended by the learning curve
``y(n) = a + b * n**(-p)``, with bootstrap replicates [ours]; pure numpy (docs/compare.md, "One model of
utility over (n, ε)", after Chaudhuri, Monteleoni & Sarwate, Theorems 18 and 26).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_positive

__all__ = ["LC_EXPONENTS", "N_BOOTSTRAP", "UtilityModel", "answer_number", "cell_replicates", "fit_utility_model"]

#: Candidate exponents p of the learning-curve model ``y(n) = a + b * n**(-p)`` [ours].
LC_EXPONENTS = (0.5, 1.0)


#: Bootstrap replicates of :class:`UtilityModel` [ours]: the 2.5% and 97.5% ends are the 5th and 196th of
#: 200 ordered replicates.
N_BOOTSTRAP = 200
#: A cell (one size, one ε) counts only when at least this share of its trials returned a model: a
#: mechanism that fails on most draws does not deliver the utility of its few successes [ours].
MIN_SUCCESS_SHARE = 0.5
#: Extrapolation nodes per decade of n beyond the data (the model is piecewise linear in log n between them).
_NODES_PER_DECADE = 40
#: Goodness of a cell that could not be measured: lower than any target, so it never meets one.
_UNMEASURED = -1e30
#: Stream tags of the bootstrap (entropy ``[seed, tag, method key, ...]``), apart from every other stream.
_TAG_TRIALS, _TAG_SIZES = 0xB0075, 0x5125
_CAPS = {"accuracy": 1.0, "r2": 1.0, "mae": 0.0, "excess_risk": 0.0}  # largest goodness (metric's best)


def cell_replicates(values, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """The mean of one cell's trials (entry 0) and ``n_boot`` bootstrap means (trials drawn with
    replacement); all ``nan`` when fewer than :data:`MIN_SUCCESS_SHARE` of the trials succeeded
    (a failed trial is a ``nan`` value).

    >>> r = cell_replicates([1.0, 2.0, 3.0], 4, np.random.default_rng(0))
    >>> float(r[0]), r.shape
    (2.0, (5,))
    >>> bool(np.isnan(cell_replicates([1.0, np.nan, np.nan], 4, np.random.default_rng(0))).all())
    True
    """
    v = np.asarray(values, dtype=float)
    ok = v[np.isfinite(v)]
    if not len(v) or not len(ok) or len(ok) < MIN_SUCCESS_SHARE * len(v):
        return np.full(n_boot + 1, np.nan)
    idx = rng.integers(0, len(ok), size=(n_boot, len(ok)))
    return np.concatenate([[ok.mean()], ok[idx].mean(axis=1)])


def _fit_slopes(sizes: np.ndarray, weights: np.ndarray, g: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares of ``g = a + b n**(-p)`` per replicate and ε (the better ``p`` of :data:`LC_EXPONENTS`),
    the asymptote ``a`` capped at ``cap``; returns ``b`` and ``p``, each (R, E) (``docs/compare.md`` §"_fit_slopes").
    """
    w = weights[:, :, None] * np.isfinite(g) * (g > _UNMEASURED)
    gz = np.where(w > 0, g, 0.0)
    sw = w.sum(axis=1)
    distinct = ((w > 0).sum(axis=1) >= 2) & (sw > 0)
    best_res = np.full(sw.shape, np.inf)
    best_b, best_p = np.zeros(sw.shape), np.full(sw.shape, LC_EXPONENTS[0])
    for p in LC_EXPONENTS:
        x = (sizes ** (-p))[None, :, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            xm = (w * x).sum(axis=1) / sw
            ym = (w * gz).sum(axis=1) / sw
            dx = x - xm[:, None, :]
            b = (w * dx * (gz - ym[:, None, :])).sum(axis=1) / (w * dx**2).sum(axis=1)
            a = ym - b * xm
            b_capped = (w * x * (gz - cap)).sum(axis=1) / (w * x**2).sum(axis=1)
            over = a > cap
            a, b = np.where(over, cap, a), np.where(over, b_capped, b)
            res = (w * (gz - a[:, None, :] - b[:, None, :] * x) ** 2).sum(axis=1)
        better = distinct & np.isfinite(b) & (res < best_res - 1e-15)
        best_res = np.where(better, res, best_res)
        best_b, best_p = np.where(better, b, best_b), np.where(better, p, best_p)
    return best_b, best_p


def _interp_axis(nodes: np.ndarray, arr: np.ndarray, x: float, axis: int) -> np.ndarray | None:
    """``arr`` linearly interpolated in log ``x`` along ``axis`` (``None`` outside the nodes)."""
    lx, ln = math.log(x), np.log(nodes)
    if not ln[0] - 1e-12 <= lx <= ln[-1] + 1e-12:
        return None
    i = int(np.clip(np.searchsorted(ln, lx), 1, len(ln) - 1)) if len(ln) > 1 else 0
    if len(ln) == 1 or abs(lx - ln[i - 1]) < 1e-12:
        return np.take(arr, i - 1 if len(ln) > 1 else 0, axis=axis)
    a = (lx - ln[i - 1]) / (ln[i] - ln[i - 1])
    return (1 - a) * np.take(arr, i - 1, axis=axis) + a * np.take(arr, i, axis=axis)


def _first_crossing(nodes: np.ndarray, vals: np.ndarray, t: float) -> np.ndarray:
    """Per row of ``vals`` (non-decreasing along the nodes): the smallest node value, interpolated in log,
    where it reaches ``t``; the first node when it starts there, ``inf`` when it never does."""
    met = vals >= t
    j = np.argmax(met, axis=1)
    out = np.full(len(vals), np.inf)
    any_met = met.any(axis=1)
    out[any_met & (j == 0)] = nodes[0]
    k = np.flatnonzero(any_met & (j > 0))
    if len(k):
        jj = j[k]
        v0, v1 = vals[k, jj - 1], vals[k, jj]
        frac = np.clip((t - v0) / (v1 - v0), 0.0, 1.0)
        ln = np.log(nodes)
        out[k] = np.exp(ln[jj - 1] + frac * (ln[jj] - ln[jj - 1]))
    return out


def _interval(reps: np.ndarray) -> tuple[float, float, float]:
    """Point (replicate 0) and the 95% percentile interval of the others, widened to hold the point."""
    point = float(reps[0])
    if len(reps) < 2:
        return point, point, point
    lo, hi = (float(np.quantile(reps[1:], q, method="inverted_cdf")) for q in (0.025, 0.975))
    return point, min(lo, point), max(hi, point)


@dataclass(frozen=True)
class UtilityModel:
    """One model of a method's utility over (n, ε), with bootstrap replicates [ours], monotone in n and ε.

    Built by :func:`fit_utility_model`; every answer inverts the same surface (``docs/compare.md``
    §"UtilityModel").
    """

    ns: np.ndarray
    epsilons: np.ndarray
    goodness: np.ndarray
    sign: float
    n_data: float
    n_trials: int
    cap: float

    def eps_needed(self, n: float, target: float) -> tuple[float, float, float] | None:
        """Smallest ε meeting ``target`` (in the metric's units) with ``n`` rows: point and 95% range
        (``inf``: not on the grid; ``None``: ``n`` outside the model)."""
        row = _interp_axis(self.ns, self.goodness, n, axis=1)
        if row is None:
            return None
        return _interval(_first_crossing(self.epsilons, row, self.sign * target))

    def n_needed(self, epsilon: float, target: float) -> tuple[float, float, float] | None:
        """Fewest rows meeting ``target`` at ``epsilon`` (rounded up to whole rows; ``inf``: not below the
        model's largest n; ``None``: ``epsilon`` outside the grid): where the model at ``epsilon`` reaches the
        target, and its 95% range where the edges of :meth:`curve`'s band reach it (the chart's crossings)."""
        nodes = self._goodness_curve(epsilon)
        if nodes is None:
            return None
        mid, lo, hi = nodes
        cross = _first_crossing(self.ns, np.stack([mid, hi, lo]), self.sign * target)
        return tuple(float(v) for v in np.ceil(cross * (1 - 1e-12)))

    def met(self, n: float, epsilon: float, target: float) -> bool:
        """Whether the model (entry 0) meets ``target`` at ``n`` rows and ``epsilon``."""
        row = _interp_axis(self.ns, self.goodness[:1], n, axis=1)
        v = None if row is None else _interp_axis(self.epsilons, row, epsilon, axis=1)
        return bool(v is not None and v[0] >= self.sign * target)

    def band(self, n: float, epsilon: float) -> tuple[float, float, float]:
        """The modelled metric at (``n``, ``epsilon``) and its 95% range (``nan`` where unmeasured or outside
        the model): :meth:`curve` linear in log n between its nodes, as the chart draws it."""
        curve = self.curve(epsilon)
        n = check_positive("n", n)
        row = None if curve is None else _interp_axis(curve[0], np.stack(curve[1:]), n, axis=1)
        if row is None:
            return math.nan, math.nan, math.nan
        return float(row[0]), float(row[1]), float(row[2])

    def curve(self, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """The model at ``epsilon`` over n: nodes ``ns`` and, per node, the model, the low and the high end of its
        95% range (``None``: ``epsilon`` outside the grid); ``docs/compare.md`` §"UtilityModel.curve".
        """
        nodes = self._goodness_curve(epsilon)
        if nodes is None:
            return None
        mid, lo, hi = nodes
        unmeasured = mid <= _UNMEASURED / 2
        ends = (lo, hi) if self.sign > 0 else (-hi, -lo)
        mid, lo, hi = (np.where(unmeasured, np.nan, v) for v in (self.sign * mid, *ends))
        return self.ns.copy(), mid, lo, hi

    def _goodness_curve(self, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """:meth:`curve` in goodness (larger is better): model, low and high end at every n node."""
        col = _interp_axis(self.epsilons, self.goodness, check_positive("epsilon", epsilon), axis=2)
        if col is None:
            return None
        mid = col[0]
        reps = col[1:] if len(col) > 1 else col
        lo, hi = (np.quantile(reps, q, axis=0, method="inverted_cdf") for q in (0.025, 0.975))
        lo, hi = np.minimum(lo, mid), np.maximum(hi, mid)
        far = self.ns > self.n_data * (1 + 1e-9)
        i0 = int(np.argmin(np.abs(np.log(self.ns / self.n_data))))  # n_data is a node
        lo = np.where(far, np.minimum(lo, mid - (mid[i0] - lo[i0])), lo)
        hi = np.where(far, np.maximum(hi, np.minimum(mid + (hi[i0] - mid[i0]), self.cap)), hi)
        return mid, lo, hi


def fit_utility_model(
    cells: dict,
    *,
    n_data: float,
    metric: str,
    direction: str,
    seed: int,
    key: str,
    n_max_factor: float = 1000.0,
    extra_n: Sequence[float] = (),
    extra_eps: Sequence[float] = (),
    n_boot: int = N_BOOTSTRAP,
) -> UtilityModel | None:
    """Fit :class:`UtilityModel` to the per-trial values of one method [ours]; ``None`` without enough trials.

    ``cells`` maps ``(n_rows, epsilon)`` to per-trial values (``nan``: failed); ``direction`` is ``">="`` or
    ``"<="``; ``extra_n``/``extra_eps`` add exact nodes. The bootstrap and the extrapolation:
    ``docs/compare.md`` §"fit_utility_model".
    """
    metric = check_choice("metric", metric, tuple(_CAPS))
    direction = check_choice("direction", direction, (">=", "<="))
    sign = 1.0 if direction == ">=" else -1.0
    sizes = np.array(sorted({float(n) for n, _ in cells}))
    eps = np.array(sorted({float(e) for _, e in cells}))
    if float(n_data) not in sizes:
        raise ValueError(f"cells must include the full size n_data = {n_data!r}, got sizes {sizes.tolist()}.")
    sizes = sizes[sizes <= n_data]
    base = [int(seed), int(zlib.crc32(key.encode()))]
    means = np.full((n_boot + 1, len(sizes), len(eps)), np.nan)
    counts = []
    for (n, e), vals in cells.items():
        if float(n) not in sizes:
            continue
        i, j = int(np.searchsorted(sizes, float(n))), int(np.searchsorted(eps, float(e)))
        rng = np.random.default_rng([*base, _TAG_TRIALS, int(round(float(n))), j])
        means[:, i, j] = cell_replicates(vals, n_boot, rng)
        if np.isfinite(means[0, i, j]):
            counts.append(int(np.isfinite(np.asarray(vals, dtype=float)).sum()))
    if not counts:
        return None
    g = np.where(np.isfinite(means), sign * means, _UNMEASURED)
    weights = np.ones((n_boot + 1, len(sizes)))
    if len(sizes) > 1:
        draws = np.random.default_rng([*base, _TAG_SIZES]).integers(0, len(sizes) - 1, (n_boot, len(sizes) - 1))
        weights[1:, :-1] = np.stack([np.bincount(d, minlength=len(sizes) - 1) for d in draws])
    b, p = _fit_slopes(sizes, weights, g, _CAPS[metric])
    b = np.minimum(b, 0.0)  # goodness a + b n^-p: b < 0 gains with n; a fitted loss becomes no gain
    extra = [float(x) for x in extra_n if n_data < float(x) <= n_max_factor * n_data]
    far = np.geomspace(n_data, n_max_factor * n_data, int(_NODES_PER_DECADE * math.log10(n_max_factor)) + 1)
    ns_out = np.unique(np.concatenate([far[1:], extra])) if len(sizes) > 1 else np.array([])
    anchor = g[:, -1, :]
    gain = b[:, None, :] * (ns_out[None, :, None] ** (-p[:, None, :]) - n_data ** (-p[:, None, :]))
    ext = np.where(
        anchor[:, None, :] > _UNMEASURED / 2, np.minimum(anchor[:, None, :] + gain, _CAPS[metric]), anchor[:, None, :]
    )
    raw = np.concatenate([g, ext], axis=1)
    ns = np.concatenate([sizes, ns_out])
    raw, eps = _insert_eps(raw, eps, extra_eps)
    env = np.minimum.accumulate(raw[:, ::-1, :], axis=1)[:, ::-1, :]
    env = np.minimum.accumulate(env[:, :, ::-1], axis=2)[:, :, ::-1]
    return UtilityModel(ns, eps, env, sign, float(n_data), min(counts), _CAPS[metric])


def _insert_eps(raw: np.ndarray, eps: np.ndarray, extra: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Add ε nodes inside the grid, their values linear in log ε between the neighbours."""
    for e in sorted({float(x) for x in extra}):
        if not eps[0] < e < eps[-1] or np.any(np.isclose(eps, e, rtol=1e-12, atol=0)):
            continue
        col = _interp_axis(eps, raw, e, axis=2)
        k = int(np.searchsorted(eps, e))
        raw, eps = np.insert(raw, k, col, axis=2), np.insert(eps, k, e)
    return raw, eps


#: the outcome field of each number of an answer (``None`` in the JSON: ``inf`` when "not reached" or an
#: open end of a reached answer's range, ``nan`` otherwise)
_OUTCOME_OF = {
    **{f"epsilon_measured{end}": "measured_outcome" for end in ("", "_lo", "_hi")},
    **{f"n_min{end}": "n_min_outcome" for end in ("", "_lo", "_hi")},
    "epsilon_bound": "bound_outcome",
    "n_bound": "n_bound_outcome",
}


def answer_number(r: dict, key: str) -> float:
    """An answer's number as a float: ``None`` is ``inf`` where its outcome is (not) reached, else ``nan``.

    >>> answer_number({"n_min": None, "n_min_outcome": "not reached"}, "n_min")
    inf
    """
    v = r.get(key)
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    if v is None and r.get(_OUTCOME_OF.get(key, ""), "") in ("reached", "not reached"):
        return math.inf
    return math.nan
