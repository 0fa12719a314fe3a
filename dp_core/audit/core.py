"""Statistical core of the privacy audit: threshold tests with Clopper–Pearson intervals.

ε_lower = ln((TPR_low − δ) / FPR_high) on an evaluation split disjoint from the split that chose the
test [JUO20, Algorithm 2; DR14, Def. 2.4; CP34]. The derivation, why the bound is valid with
probability ``confidence``, and the fields of :class:`AuditResult` and :class:`AuditTarget` are in
``docs/audit.md`` §"The statistical core". An audit can refute a claim, never prove privacy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import betaincinv, ndtri

from .._validation import check_delta, check_epsilon, check_in_interval, check_int
from ..execution import current_executor
from ..rng import RngLike, as_generator, as_seed_sequence

__all__ = [
    "VERDICT_CONSISTENT",
    "VERDICT_VIOLATION",
    "AuditResult",
    "AuditRun",
    "AuditTarget",
    "ThresholdTest",
    "audit_convergence",
    "audit_exact_null",
    "audit_statistics",
    "clopper_pearson",
    "run_audit",
    "runs_grid",
]

VERDICT_CONSISTENT = "consistent with the claim"
VERDICT_VIOLATION = "violation found"

#: Most candidate thresholds tried on the selection split (quantiles of the pooled statistic).
MAX_CANDIDATES = 2048


def clopper_pearson(k, n, confidence: float = 0.95) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided Clopper–Pearson interval ``(lower, upper)`` of ``k`` successes in ``n`` trials (arrays allowed)
    at coverage ``confidence`` in (0, 1): the beta-quantile "central" interval [CP34] (docs/audit.md).
    """
    conf = check_in_interval("confidence", confidence, 0.0, 1.0, closed="neither")
    k_arr = np.asarray(k, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("clopper_pearson needs 0 <= k <= n and n >= 1.")
    alpha = 1.0 - conf
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k_arr > 0, betaincinv(np.maximum(k_arr, 1.0), n_arr - k_arr + 1.0, alpha / 2.0), 0.0)
        upper = np.where(k_arr < n_arr, betaincinv(k_arr + 1.0, np.maximum(n_arr - k_arr, 1.0), 1.0 - alpha / 2.0), 1.0)
    return lower, upper


#: Two-sided confidence of the shrinkage applied to the selection rates before projection.
_SHRINK = 0.99


def _wilson(k, n, confidence: float):
    """Wilson score interval (vectorized, real counts allowed); only to *choose* the test (docs/audit.md)."""
    z = float(ndtri(0.5 + 0.5 * confidence))
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    p = k / n
    z2n = z * z / n
    centre = (p + 0.5 * z2n) / (1.0 + z2n)
    half = z * np.sqrt(np.maximum(p * (1.0 - p) / n + 0.25 * z2n / n, 0.0)) / (1.0 + z2n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def _eps_from_rates(tpr, fpr, delta: float) -> NDArray[np.float64]:
    """``ln((tpr - delta) / fpr)`` clipped below at 0 (epsilon is never negative)."""
    tpr = np.asarray(tpr, dtype=np.float64)
    fpr = np.asarray(fpr, dtype=np.float64)
    num = tpr - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where(num > 0, np.log(np.maximum(num, 1e-300)) - np.log(fpr), 0.0)
    val = np.where((num > 0) & (fpr <= 0), np.inf, val)
    return np.maximum(val, 0.0)


@dataclass(frozen=True, slots=True)
class ThresholdTest:
    """A test "output in S" with ``S = {s > t}`` (``side="above"``) or ``{s <= t}`` (``"below"``).

    ``positive`` is the dataset whose probability of S is the numerator (the TPR): ``"D'"`` or
    ``"D"``; the other dataset gives the FPR.
    """

    threshold: float
    side: str
    positive: str

    def describe(self) -> str:
        rel = ">" if self.side == "above" else "≤"
        neg = "D" if self.positive == "D'" else "D'"
        return f"guess {self.positive} (not {neg}) when the statistic is {rel} {self.threshold:.4g}"


def _counts_above(sorted_x: NDArray[np.float64], thresholds: NDArray[np.float64]) -> NDArray[np.int64]:
    """Number of entries of ``sorted_x`` strictly above each threshold."""
    return sorted_x.size - np.searchsorted(sorted_x, thresholds, side="right")


def _candidate_thresholds(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Midpoints between consecutive distinct pooled values (at most ``MAX_CANDIDATES`` of them)."""
    pooled = np.unique(np.concatenate([a, b]))
    if pooled.size < 2:
        return pooled.copy()
    mids = 0.5 * (pooled[:-1] + pooled[1:])
    if mids.size > MAX_CANDIDATES:
        idx = np.unique(np.round(np.linspace(0, mids.size - 1, MAX_CANDIDATES)).astype(np.int64))
        mids = mids[idx]
    return mids


def _four_tests(n_above_0, n_above_1, n0: int, n1: int):
    """Counts (k_pos, n_pos, k_neg, n_neg) of the four tests per threshold.

    Order: (above, D'), (below, D'), (above, D), (below, D).
    """
    below0 = n0 - n_above_0
    below1 = n1 - n_above_1
    return [
        (n_above_1, n1, n_above_0, n0),
        (below1, n1, below0, n0),
        (n_above_0, n0, n_above_1, n1),
        (below0, n0, below1, n1),
    ]


_TEST_LABELS = [("above", "D'"), ("below", "D'"), ("above", "D"), ("below", "D")]


@dataclass(frozen=True, slots=True)
class AuditResult:
    """Outcome of one audit; the fields are described in ``docs/audit.md`` §"The statistical core"."""

    mechanism: str
    mode: str
    pair: str
    eps_claimed: float
    delta: float
    eps_lower: float
    eps_estimate: float
    eps_upper: float
    runs: int
    n_select: int
    n_eval: int
    threshold: float
    side: str
    positive: str
    tpr: float
    tpr_low: float
    tpr_high: float
    fpr: float
    fpr_low: float
    fpr_high: float
    delta_lower: float
    confidence: float
    verdict: str
    note: str = ""
    event: str = ""
    fpr_source: str = "runs"

    @property
    def test(self) -> ThresholdTest:
        return ThresholdTest(self.threshold, self.side, self.positive)

    @property
    def violation(self) -> bool:
        return self.verdict == VERDICT_VIOLATION

    def to_dict(self) -> dict:
        """A flat dict (the CLI's JSON), with the test described in words."""
        out = {name: getattr(self, name) for name in self.__slots__}
        out["eps_interval"] = [self.eps_lower, self.eps_upper]
        out["test"] = self.test.describe()
        return out


def _select_test(s0_sel, s1_sel, n_eval0: int, n_eval1: int, delta: float, confidence: float) -> ThresholdTest:
    """Pick the test with the best projected bound, looking only at the selection split (docs/audit.md)."""
    a = np.sort(s0_sel)
    b = np.sort(s1_sel)
    cands = _candidate_thresholds(a, b)
    if cands.size == 0:
        return ThresholdTest(float(a[0]) if a.size else 0.0, "above", "D'")
    na0 = _counts_above(a, cands)
    na1 = _counts_above(b, cands)
    best = (-np.inf, 0, 0)
    for j, (kp, npos, kn, nneg) in enumerate(_four_tests(na0, na1, a.size, b.size)):
        n_pos_eval = n_eval1 if _TEST_LABELS[j][1] == "D'" else n_eval0
        n_neg_eval = n_eval0 if _TEST_LABELS[j][1] == "D'" else n_eval1
        # shrink the selection rates (TPR down, FPR up) before projecting them to the evaluation size,
        # so that tail thresholds with few selection counts do not look better than they are
        tpr_guess, _ = _wilson(kp, npos, _SHRINK)
        _, fpr_guess = _wilson(kn, nneg, _SHRINK)
        tpr_lo, _ = _wilson(tpr_guess * n_pos_eval, n_pos_eval, confidence)
        _, fpr_hi = _wilson(fpr_guess * n_neg_eval, n_neg_eval, confidence)
        score = _eps_from_rates(tpr_lo, fpr_hi, delta)
        # ties (typically: no test yet projects a positive bound) go to the test with the largest
        # shrunk rate difference, the one with the most evidence that the two sides differ at all
        key = score + 1e-6 * (tpr_guess - fpr_guess)
        i = int(np.argmax(key))
        if key[i] > best[0]:
            best = (float(key[i]), j, i)
    _, j, i = best
    side, positive = _TEST_LABELS[j]
    return ThresholdTest(float(cands[i]), side, positive)


def _evaluate(test: ThresholdTest, s0, s1, delta: float, confidence: float):
    pos, neg = (s1, s0) if test.positive == "D'" else (s0, s1)
    if test.side == "above":
        kp, kn = int(np.count_nonzero(pos > test.threshold)), int(np.count_nonzero(neg > test.threshold))
    else:
        kp, kn = int(np.count_nonzero(pos <= test.threshold)), int(np.count_nonzero(neg <= test.threshold))
    tpr_lo, tpr_hi = (float(v) for v in clopper_pearson(kp, pos.size, confidence))
    fpr_lo, fpr_hi = (float(v) for v in clopper_pearson(kn, neg.size, confidence))
    return kp / pos.size, tpr_lo, tpr_hi, kn / neg.size, fpr_lo, fpr_hi


def _checked_claim(eps_claimed, delta, confidence, select_fraction) -> tuple[float, float, float, float]:
    """The claimed (ε, δ), the confidence and the selection share, validated."""
    return (
        check_epsilon(eps_claimed, name="eps_claimed"),
        check_delta(delta, allow_zero=True),
        check_in_interval("confidence", confidence, 0.0, 1.0, closed="neither"),
        check_in_interval("select_fraction", select_fraction, 0.0, 1.0, closed="neither"),
    )


def _checked_runs(frac: float, *stats) -> tuple[tuple[NDArray[np.float64], ...], int, int]:
    """The statistic's runs (on ``D`` and ``D'``, or on ``D'`` alone) as flat float arrays, validated; the runs
    per side and how many of them (the first ``ceil(frac * runs)``, at least one, not all) choose the test."""
    out = tuple(np.asarray(v, dtype=np.float64).ravel() for v in stats)
    if len(out) == 2 and out[0].size != out[1].size:
        raise ValueError(
            f"stats_d and stats_dprime must have the same number of runs, got {out[0].size} and {out[1].size}."
        )
    runs = out[0].size
    if runs < 4:
        raise ValueError(f"runs must be at least 4 (some to choose the test, some to evaluate it), got {runs}.")
    if not all(np.all(np.isfinite(v)) for v in out):
        raise ValueError("the audit statistic must be finite; the mechanism returned NaN or infinite values.")
    return out, runs, min(max(1, math.ceil(frac * runs)), runs - 1)


def _exact_null_threshold(sel, n_eval: int, conf: float, d: float, null_log_sf) -> float:
    """The threshold ``t`` of ``{s > t}`` chosen on the sorted selection runs ``sel`` of ``D'``: the largest
    projected ``ln(TPR_low - δ) - ln P_D[s > t]`` [JUO20, Algorithm 2, with the exact tail on ``D``]."""
    cands = _candidate_thresholds(sel, sel)
    if cands.size == 0:
        cands = sel[:1] - 1.0
    cands = np.concatenate([cands, sel[:1] - 1e-9 * (1.0 + np.abs(sel[:1]))])
    k_sel = _counts_above(sel, cands)
    tpr_guess, _ = _wilson(k_sel, sel.size, _SHRINK)
    tpr_lo_proj, _ = _wilson(tpr_guess * n_eval, n_eval, conf)
    log_fpr = np.asarray(null_log_sf(cands), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(tpr_lo_proj > d, np.log(np.maximum(tpr_lo_proj - d, 1e-300)) - log_fpr, -np.inf)
    return float(cands[int(np.argmax(score + 1e-9 * tpr_guess))])


#: The measured fields of an :class:`AuditResult`, in the order :func:`_result` receives them.
_MEASURED = "runs n_select n_eval threshold side positive tpr tpr_low tpr_high fpr fpr_low fpr_high".split()


def _result(claim, eps_bounds, delta_lower: float, labels: dict, split, test, rates, **extra) -> AuditResult:
    """The :class:`AuditResult` of a claim ``(ε, δ, confidence)`` and its ε bounds ``(lower, point, upper)``: a
    violation when the lower bound exceeds the claimed ε [JUO20, Algorithm 2]. ``split`` is ``(runs, n_select)``,
    ``test`` the chosen :class:`ThresholdTest`, ``rates`` ``(tpr, tpr_low, tpr_high, fpr, fpr_low, fpr_high)``."""
    eps, d, conf = claim
    eps_lower, eps_point, eps_upper = eps_bounds
    runs, n_sel = split
    measured = dict(zip(_MEASURED, (runs, n_sel, runs - n_sel, test.threshold, test.side, test.positive, *rates)))
    return AuditResult(
        eps_claimed=eps,
        delta=d,
        eps_lower=eps_lower,
        eps_estimate=eps_point,
        eps_upper=max(eps_upper, eps_point),
        delta_lower=max(delta_lower, 0.0) if math.isfinite(delta_lower) else 0.0,
        confidence=conf,
        verdict=VERDICT_VIOLATION if eps_lower > eps else VERDICT_CONSISTENT,
        **labels,
        **measured,
        **extra,
    )


def audit_statistics(
    stats_d,
    stats_dprime,
    *,
    eps_claimed: float,
    delta: float,
    confidence: float = 0.95,
    select_fraction: float = 0.2,
    mechanism: str = "",
    mode: str = "",
    pair: str = "",
    note: str = "",
    event: str = "",
) -> AuditResult:
    """Audit from R runs of the statistic on ``D`` and on ``D'``: the first ``ceil(select_fraction * R)`` runs
    of each side choose the test, the rest evaluate it [JUO20, Algorithm 2; DR14, Def. 2.4]. ``mechanism``,
    ``mode``, ``pair``, ``note`` and ``event`` are labels copied into the result; inputs in docs/audit.md.
    """
    eps, d, conf, frac = _checked_claim(eps_claimed, delta, confidence, select_fraction)
    (s0, s1), runs, n_sel = _checked_runs(frac, stats_d, stats_dprime)
    test = _select_test(s0[:n_sel], s1[:n_sel], runs - n_sel, runs - n_sel, d, conf)
    tpr, tpr_lo, tpr_hi, fpr, fpr_lo, fpr_hi = _evaluate(test, s0[n_sel:], s1[n_sel:], d, conf)
    eps_lower = float(_eps_from_rates(tpr_lo, fpr_hi, d))
    eps_point = float(_eps_from_rates(tpr, fpr, d))
    eps_upper = float(_eps_from_rates(tpr_hi, fpr_lo, d))
    labels = {"mechanism": mechanism, "mode": mode, "pair": pair, "note": note, "event": event}
    d_lower = tpr_lo - (math.exp(eps) * fpr_hi if math.isfinite(eps) else math.inf)
    rates = (tpr, tpr_lo, tpr_hi, fpr, fpr_lo, fpr_hi)
    return _result((eps, d, conf), (eps_lower, eps_point, eps_upper), d_lower, labels, (runs, n_sel), test, rates)


def audit_exact_null(
    stats_dprime,
    null_log_sf: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    *,
    eps_claimed: float,
    delta: float,
    confidence: float = 0.95,
    select_fraction: float = 0.2,
    mechanism: str = "",
    mode: str = "",
    pair: str = "",
    note: str = "",
    event: str = "",
) -> AuditResult:
    """Audit with the false-positive rate ``exp(null_log_sf(t))`` from the exact law of the statistic on ``D``;
    the true-positive rate is counted on R runs ``stats_dprime`` of ``D'`` [JUO20, Algorithm 2 with one side
    exact]. Other arguments as in :func:`audit_statistics`; validity in docs/audit.md §"The statistical core".
    """
    eps, d, conf, frac = _checked_claim(eps_claimed, delta, confidence, select_fraction)
    (s1,), runs, n_sel = _checked_runs(frac, stats_dprime)
    n_eval = runs - n_sel
    t = _exact_null_threshold(np.sort(s1[:n_sel]), n_eval, conf, d, null_log_sf)
    ev = s1[n_sel:]
    kp = int(np.count_nonzero(ev > t))
    tpr_lo, tpr_hi = (float(v) for v in clopper_pearson(kp, n_eval, conf))
    tpr = kp / n_eval
    lf = float(np.asarray(null_log_sf(np.array([t])), dtype=np.float64)[0])
    fpr = math.exp(lf)

    def _eps(rate: float) -> float:
        return max(math.log(rate - d) - lf, 0.0) if rate > d else 0.0

    eps_lower, eps_point, eps_upper = _eps(tpr_lo), _eps(tpr), _eps(tpr_hi)
    labels = {"mechanism": mechanism, "mode": mode, "pair": pair, "note": note, "event": event}
    d_lower = tpr_lo - (math.exp(min(eps + lf, 700.0)) if math.isfinite(eps) else math.inf)
    test, rates = ThresholdTest(t, "above", "D'"), (tpr, tpr_lo, tpr_hi, fpr, fpr, fpr)
    bounds = (eps_lower, eps_point, eps_upper)
    return _result((eps, d, conf), bounds, d_lower, labels, (runs, n_sel), test, rates, fpr_source="exact law")


@dataclass(frozen=True)
class AuditTarget:
    """A mechanism, a claim and a pair of neighbouring datasets, ready to be audited.

    ``sample(side, runs, rng)`` gives the statistic of ``runs`` runs on ``D`` (side 0) or ``D'`` (side 1);
    ``null_log_sf(t) = ln P_D[s > t]``, when known, makes :func:`run_audit` use :func:`audit_exact_null`.
    The other fields are described in ``docs/audit.md`` §"The statistical core".
    """

    mechanism: str
    mode: str
    pair: str
    eps_claimed: float
    delta: float
    sample: Callable[[int, int, np.random.Generator], NDArray[np.float64]]
    statistic: str = "the mechanism's output"
    note: str = ""
    max_runs: int = 1_000_000
    chunk: int = 100_000
    details: dict = field(default_factory=dict)
    event: str = ""
    null_log_sf: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None


@dataclass(frozen=True)
class AuditRun:
    """An audit result together with the samples it was computed from (for histograms)."""

    result: AuditResult
    stats_d: NDArray[np.float64]
    stats_dprime: NDArray[np.float64]
    target: AuditTarget


def _draw_chunk(target: AuditTarget, side: int, job: tuple[int, np.random.SeedSequence]) -> NDArray[np.float64]:
    size, child = job
    vals = np.asarray(target.sample(side, size, as_generator(child)), dtype=np.float64)
    if vals.shape != (size,):
        raise ValueError(f"the sampler of {target.mechanism} returned shape {vals.shape}, expected {(size,)}.")
    return vals


def _draw(target: AuditTarget, side: int, runs: int, seed: np.random.SeedSequence, chunk: int) -> NDArray[np.float64]:
    """``runs`` statistics in chunks, each from its own child stream; the chunks run on the current
    executor (:mod:`dp_core.execution`) and are joined in order, so the numbers do not depend on it."""
    n_chunks = max(1, math.ceil(runs / chunk))
    jobs = [(min(runs, (c + 1) * chunk) - c * chunk, child) for c, child in enumerate(seed.spawn(n_chunks))]
    parts = list(current_executor().map(partial(_draw_chunk, target, side), jobs))
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def run_audit(
    target: AuditTarget,
    *,
    runs: int,
    seed: RngLike = 0,
    confidence: float = 0.95,
    select_fraction: float = 0.2,
    chunk: int | None = None,
) -> AuditRun:
    """Run ``target``'s mechanism ``runs`` times (per side, in [20, target.max_runs]) on each side and audit the
    results; seeded per side and per chunk of ``chunk`` runs, so the numbers do not depend on the machine."""
    if not isinstance(target, AuditTarget):
        raise TypeError(f"target must be an AuditTarget, got {type(target).__name__}.")
    r = check_int("runs", runs, lo=20, hi=target.max_runs)
    ch = check_int("chunk", target.chunk if chunk is None else chunk, lo=1)
    ss0, ss1 = as_seed_sequence(seed).spawn(2)
    s0 = _draw(target, 0, r, ss0, ch)
    s1 = _draw(target, 1, r, ss1, ch)
    labels = {
        "mechanism": target.mechanism,
        "mode": target.mode,
        "pair": target.pair,
        "note": target.note,
        "event": target.event or target.statistic,
    }
    exact = target.null_log_sf is not None
    audit, args = (audit_exact_null, (s1, target.null_log_sf)) if exact else (audit_statistics, (s0, s1))
    claim = {"eps_claimed": target.eps_claimed, "delta": target.delta}
    res = audit(*args, **claim, confidence=confidence, select_fraction=select_fraction, **labels)
    return AuditRun(result=res, stats_d=s0, stats_dprime=s1, target=target)


def runs_grid(runs: int, *, points: int = 6, smallest: int = 100) -> list[int]:
    """Geometric grid of run counts ending at ``runs`` (for the convergence plot)."""
    r = check_int("runs", runs, lo=1)
    lo = min(smallest, r)
    grid = np.unique(np.round(np.geomspace(lo, r, max(2, points))).astype(np.int64))
    return [int(v) for v in grid]


def audit_convergence(
    stats_d,
    stats_dprime,
    *,
    eps_claimed: float,
    delta: float,
    grid: Sequence[int] | None = None,
    confidence: float = 0.95,
    select_fraction: float = 0.2,
    null_log_sf: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
) -> pd.DataFrame:
    """The audit repeated on the first ``r`` runs of each side, for each ``r`` in ``grid``.

    Returns a tidy table with columns ``runs, eps_lower, eps_estimate, eps_upper, eps_claimed,
    verdict``: how the lower bound tightens as the number of runs grows. With ``null_log_sf`` the
    false-positive rate comes from the exact law on ``D`` (:func:`audit_exact_null`).
    """
    s0 = np.asarray(stats_d, dtype=np.float64).ravel()
    s1 = np.asarray(stats_dprime, dtype=np.float64).ravel()
    grid = runs_grid(min(s0.size, s1.size)) if grid is None else [int(g) for g in grid]
    rows = []
    for r in grid:
        if r < 4 or r > min(s0.size, s1.size):
            raise ValueError(f"grid entries must be in [4, {min(s0.size, s1.size)}], got {r}.")
        args = (s0[:r], s1[:r]) if null_log_sf is None else (s1[:r], null_log_sf)
        res = (audit_statistics if null_log_sf is None else audit_exact_null)(
            *args, eps_claimed=eps_claimed, delta=delta, confidence=confidence, select_fraction=select_fraction
        )
        keys = ("eps_lower", "eps_estimate", "eps_upper", "eps_claimed", "verdict")
        rows.append({"runs": r, **{k: getattr(res, k) for k in keys}})
    return pd.DataFrame(rows)
