"""Bag sizes that fit the data: feasible, non-vacuous ``k`` and ``m`` chosen from the number of rows.
Details: docs/label_dp_bags.md §"defaults (module)" (Theorems 1.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

from ... import display as fmt
from ..._validation import check_in_interval, check_int, check_positive

__all__ = ["AutoBags", "BagSuggestion", "auto_bag_setting", "default_bags", "suggest_bag_params", "utility_min_bags"]

_N_MAX_SEARCH = 100_000_000
#: Most rows :func:`auto_bag_setting` searches (its exact accounting takes about a second here).
N_AUTO_MAX = 50_000
#: Smallest target delta accepted by :func:`suggest_bag_params`.
TARGET_DELTA_MIN = 1e-9


@dataclass(frozen=True)
class BagSuggestion:
    """The suggested bag setting and what it achieves.
    Details: docs/label_dp_bags.md §"defaults.BagSuggestion".
    """

    k: int
    m: int
    delta: float
    epsilon: float
    target_delta: float
    rho: float
    n: int
    min_bags: int
    informative: bool
    vacuous: bool
    n_needed: int | None
    message: str


def utility_min_bags(d: int) -> int:
    """Fewest bags for which the regression on the bags is expected to keep a useful model: ``2 d + 1``.
    Details: docs/label_dp_bags.md §"defaults.utility_min_bags".
    """
    return 2 * check_int("d", d, lo=1) + 1


def _k_grid(k_max: int) -> list[int]:
    ks, k = [], 2.0
    while int(k) <= k_max:
        if not ks or int(k) != ks[-1]:
            ks.append(int(k))
        k *= math.sqrt(2.0)
    if k_max >= 2 and ks[-1] != k_max:
        ks.append(k_max)
    return ks


def _delta_1(epsilon: float, n: int, k: int, rho: float, b1: float) -> float:
    from .bounds import llp_exact_delta

    return float(llp_exact_delta(epsilon, n, k, 1, rho, b1).delta)


def _best(n: int, epsilon: float, rho: float, b1: float, target: float, min_bags: int) -> tuple[int, int, float]:
    """(k, m, delta): the most bags with delta <= target, else the least delta at min_bags; (0, 0, 1) if none fits."""
    k_max = n // min_bags
    if k_max < 2:
        return 0, 0, 1.0
    best_ok: tuple[int, int, float] | None = None
    best_any: tuple[int, int, float] | None = None
    for k in _k_grid(k_max):
        if best_ok is not None and n // k < best_ok[1]:
            break  # m <= n // k falls with k: no larger k gives more bags (and best_any is not needed any more)
        d1 = _delta_1(epsilon, n, k, rho, b1)
        m_ok = min(n // k, math.floor(target / d1)) if d1 > 0 else n // k
        if m_ok >= min_bags:
            cand = (k, m_ok, min(1.0, m_ok * d1))
            if best_ok is None or cand[1] > best_ok[1] or (cand[1] == best_ok[1] and cand[2] < best_ok[2]):
                best_ok = cand
        cand = (k, min_bags, min(1.0, min_bags * d1))
        if best_any is None or cand[2] < best_any[2]:
            best_any = cand
    assert best_any is not None
    return best_ok if best_ok is not None else best_any


def _reaches(n: int, epsilon: float, rho: float, b1: float, target: float, min_bags: int) -> bool:
    """Whether some bag size reaches ``target`` with ``min_bags`` bags of ``n`` rows.
    Details: docs/label_dp_bags.md §"defaults._reaches".
    """
    k_max = n // min_bags
    return k_max >= 2 and min_bags * _delta_1(epsilon, n, k_max, rho, b1) <= target


def _rows_needed(ok, n: int, min_bags: int, n_max: int) -> int | None:
    """About the smallest number of rows ``>= n`` with ``ok(rows)`` (doubling, then bisection to 5 %: an "about"
    figure for a message), or ``None`` beyond ``n_max``."""
    lo, hi = n, max(n, 2 * min_bags)
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > n_max:
            return None
    while hi - lo > max(1, lo // 20):
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def suggest_bag_params(
    n: int,
    *,
    epsilon: float,
    d: int | None = None,
    rho: float = 0.1,
    b1: float = 1.0,
    target_delta: float = 0.1,
    min_bags: int | None = None,
    explain: bool = True,
) -> BagSuggestion:
    """Feasible, non-vacuous bag size ``k`` and number of bags ``m`` for ``n`` rows.
    Details: docs/label_dp_bags.md §"defaults.suggest_bag_params".
    """
    n = check_int("n", n, lo=1)
    eps = check_positive("epsilon", epsilon)
    r = check_in_interval("rho", rho, 0.0, 1.0, closed="right")
    b = check_positive("b1", b1)
    target = check_in_interval("target_delta", target_delta, TARGET_DELTA_MIN, 1.0, closed="left")
    if min_bags is None:
        min_bags = 10 if d is None else check_int("d", d, lo=1) + 2
    mb = check_int("min_bags", min_bags, lo=1)
    k, m, delta = _best(n, eps, r, b, target, mb)
    informative = k > 0 and delta <= target
    vacuous = delta >= 1.0
    reaches = partial(_reaches, epsilon=eps, rho=r, b1=b, target=target, min_bags=mb)
    need = n if informative else (_rows_needed(reaches, n, mb, _N_MAX_SEARCH) if explain else None)
    at = f"at ε = {fmt.epsilon(eps)}"
    if informative:
        msg = (
            f"Suggested k = {fmt.integer(k)}, m = {fmt.integer(m)}: {fmt.integer(m * k)} of {fmt.integer(n)} rows "
            f"in bags, exact δ = {fmt.delta(delta)} {at} (target {fmt.delta(target)})."
        )
    else:
        more = (
            f"About {fmt.integer(need)} rows to bag (now {fmt.integer(n)}) would reach δ ≤ {fmt.delta(target)} "
            f"with at least {fmt.integer(mb)} bags."
            if need is not None
            else f"Even {fmt.integer(_N_MAX_SEARCH)} rows would not reach δ ≤ {fmt.delta(target)}: raise ε or ρ."
            if explain
            else ""
        )
        if k == 0:
            msg = f"No feasible setting: {fmt.integer(n)} rows cannot hold {fmt.integer(mb)} bags of 2. " + more
        elif vacuous:
            msg = f"No non-vacuous setting {at} for {fmt.integer(n)} rows: every feasible k and m give δ ≥ 1. " + more
        else:
            msg = (
                f"Best available: k = {fmt.integer(k)}, m = {fmt.integer(m)} with exact δ = {fmt.delta(delta)} {at}, "
                f"weaker than the target {fmt.delta(target)}. " + more
            )
    return BagSuggestion(
        k=k,
        m=m,
        delta=float(delta),
        epsilon=eps,
        target_delta=target,
        rho=r,
        n=n,
        min_bags=mb,
        informative=bool(informative),
        vacuous=bool(vacuous),
        n_needed=need,
        message=msg,
    )


@dataclass(frozen=True)
class AutoBags:
    """The bag setting the comparison picks from the data size (:func:`auto_bag_setting`).
    Details: docs/label_dp_bags.md §"defaults.AutoBags".
    """

    k: int
    m: int
    epsilon: float | None
    delta: float
    rho: float
    n: int
    min_bags: int
    n_needed: int | None
    epsilon_rho_one: float | None
    message: str


def _auto_eps(n: int, min_bags: int, delta: float, rho: float, b1: float) -> float | None:
    from .bounds import llp_exact_min_eps

    k = n // min_bags
    if k < 2:
        return None
    return llp_exact_min_eps(delta, n, k, min_bags, rho, b1)


def _auto_has_guarantee(n: int, min_bags: int, delta: float, rho: float, b1: float) -> bool:
    """Whether ``_auto_eps`` is finite, from its first test only (the floor of the exact profile; no search)."""
    from .bounds import llp_exact_delta

    k = n // min_bags
    if k < 2:
        return False
    first = llp_exact_delta(0.0, n, k, min_bags, rho, b1)
    return bool(first.delta <= delta or first.floor + first.truncated_mass < delta)


def auto_bag_setting(n: int, *, d: int, delta: float, rho: float, b1: float = 1.0) -> AutoBags:
    """The (k, m) of noisy-wtd-LLP with the smallest proved epsilon at ``delta`` and a useful fit.
    Details: docs/label_dp_bags.md §"defaults.auto_bag_setting" (Fig. 2).
    """
    n = check_int("n", n, lo=1, hi=N_AUTO_MAX)
    d = check_int("d", d, lo=1, hi=10_000)
    dl = check_in_interval("delta", delta, TARGET_DELTA_MIN, 1.0, closed="left")
    r = check_in_interval("rho", rho, 0.0, 1.0, closed="right")
    b = check_positive("b1", b1)
    mb = utility_min_bags(d)
    k = n // mb
    eps = _auto_eps(n, mb, dl, r, b)
    at = f"δ = {fmt.delta(dl)}"
    if eps is not None:
        msg = (
            f"k = {fmt.integer(k)}, m = {fmt.integer(mb)} from the data size: the fewest bags for a useful fit "
            f"(2d + 1 = {fmt.integer(mb)}), each as large as the {fmt.integer(n)} training rows allow, give the "
            f"smallest accounted ε, {fmt.epsilon(eps)} at {at}."
        )
        return AutoBags(k, mb, float(eps), dl, r, n, mb, n, None, msg)
    need = _rows_needed(partial(_auto_has_guarantee, min_bags=mb, delta=dl, rho=r, b1=b), n, mb, N_AUTO_MAX)
    eps1 = _auto_eps(n, mb, dl, 1.0, b) if r < 1.0 else None
    fits = (
        f"{fmt.integer(n)} training rows hold at most {fmt.integer(mb)} bags (the fewest for a useful fit, 2d + 1) "
        f"of {fmt.integer(k)}, too few to hide a label"
        if k >= 2
        else f"{fmt.integer(n)} training rows cannot hold {fmt.integer(mb)} bags (the fewest for a useful fit, "
        "2d + 1) of 2"
    )
    fixes = []
    if need is not None:
        fixes.append(f"about {fmt.integer(need)} training rows at ρ = {fmt.number(r)}")
    if eps1 is not None:
        fixes.append(f"ρ = 1 on these rows (ε = {fmt.epsilon(eps1)} then)")
    fix = (" What would give one: " + " or ".join(fixes) + ".") if fixes else " Raise ρ or use more rows."
    msg = f"No setting from the data size gives a guarantee at {at}: {fits}.{fix}"
    return AutoBags(k if k >= 2 else 0, mb, None, dl, r, n, mb, need, None if eps1 is None else float(eps1), msg)


def default_bags(n: int, *, d: int, delta: float, rho: float, b1: float = 1.0) -> AutoBags:
    """The (k, m) the Label-DP page and the comparison start from ("auto", ``k = m = 0``), for any ``n``.
    Details: docs/label_dp_bags.md §"defaults.default_bags".
    """
    import dataclasses

    n = check_int("n", n, lo=1)
    auto = auto_bag_setting(min(n, N_AUTO_MAX), d=d, delta=delta, rho=rho, b1=b1)
    if n <= N_AUTO_MAX:
        return auto
    from .bounds import llp_exact_min_eps

    k = N_AUTO_MAX // auto.m
    eps = llp_exact_min_eps(auto.delta, n, k, auto.m, auto.rho, b1)
    msg = (
        f"k = {fmt.integer(k)}, m = {fmt.integer(auto.m)} from the data size (the setting found for "
        f"{fmt.integer(N_AUTO_MAX)} rows): "
        + (
            f"smallest accounted ε {fmt.epsilon(eps)} at δ = {fmt.delta(auto.delta)}."
            if eps is not None
            else f"no ε reaches δ = {fmt.delta(auto.delta)}; raise ρ."
        )
    )
    return dataclasses.replace(auto, k=k, epsilon=None if eps is None else float(eps), n=n, message=msg)
