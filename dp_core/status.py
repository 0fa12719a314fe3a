"""The one status vocabulary of every guarantee the project shows (issue 23).

Every badge, legend, CLI ``status`` field, estimator ``privacy_`` and report takes its status from
:data:`STATUSES`; the glossary builds its status entries from :data:`DEFINITIONS`. ``"none"`` (:data:`NO_CLAIM`)
is not a status: it marks a reference that claims no privacy. Imports nothing of the engine at import time.
The statuses are explained in ``docs/audit.md`` (§"The audit table behind every status badge").
"""

from __future__ import annotations

import math

__all__ = [
    "AUDITED",
    "CLAIMED",
    "DEFINITIONS",
    "NO_CLAIM",
    "PROVED",
    "PROVED_WEAK",
    "REFUTED",
    "STATUSES",
    "is_private",
    "weak_reason",
    "with_weakness",
]

PROVED = "proved"
PROVED_WEAK = "proved but weak"
CLAIMED = "claimed by the paper"
AUDITED = "audited: no violation found"
REFUTED = "refuted"

#: The five statuses, strongest first.
STATUSES = (PROVED, PROVED_WEAK, CLAIMED, AUDITED, REFUTED)

#: Marks a reference that claims no privacy (the non-private fit); not a status.
NO_CLAIM = "none"

#: Plain definition of each status (the glossary's entries).
DEFINITIONS = {
    PROVED: "A proof covers this exact setting, and its δ is at most 1/n (it may fail for nobody in the data).",
    PROVED_WEAK: "A proof covers this setting, but the promise is weak: δ is above 1/n (it may fail for about "
    "one person in the data), or the bound is so loose that it protects nobody. The badge says which.",
    CLAIMED: "The paper states this guarantee; the project has not re-derived it, and no audit shows it false.",
    AUDITED: "An empirical privacy audit looked for a violation of the claim and found none. This is evidence, "
    "not a proof: a stronger attack might still find one.",
    REFUTED: "A proof or an audit shows the claimed guarantee false: the method is not private as stated.",
}

#: The statuses whose guarantee may be counted on (a refuted or absent claim never is).
_PRIVATE = (PROVED, PROVED_WEAK, CLAIMED, AUDITED)


def is_private(status: str) -> bool:
    """True when a method of this status may be shown as private (not refuted, not a non-private reference)."""
    return status in _PRIVATE


def weak_reason(delta: float, n: int) -> str | None:
    """Why an (ε, δ) guarantee over ``n`` people is weak, or ``None`` when it is not.

    δ > 1/n allows the promise to fail for about one person of the data ([DR14, §2.3]; glossary "δ");
    δ ≥ 1 protects nobody.
    """
    from . import display

    d, n = float(delta), int(n)
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}.")
    if not math.isfinite(d) or d >= 1.0:
        return "δ ≥ 1: the bound protects nobody."
    if d > 1.0 / n:
        return (
            f"δ = {display.delta(d)} is above 1/n = {display.delta(1.0 / n)}: "
            "the promise may fail for about one person in the data."
        )
    return None


def with_weakness(status: str, reason: str | None) -> str:
    """:data:`PROVED_WEAK` for a proved status with a weakness ``reason``; otherwise ``status`` unchanged."""
    return PROVED_WEAK if status == PROVED and reason else status
