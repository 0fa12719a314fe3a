"""The plain first screen every mechanism page opens with, and the titled expert sections below it
(``docs/foundation.md`` §"The first screen (ui/first_screen.py)").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from dp_core import status as vocab
from dp_core.glossary import tip

from . import cached_audit

__all__ = ["KeyNumber", "first_screen", "expert_section", "status_badge", "tip", "STATUS_WORDS"]

#: What a person reads for each audit-table status, with the badge colour and icon.
STATUS_WORDS: dict[str, tuple[str, str, str]] = {
    vocab.PROVED: (vocab.PROVED.capitalize(), "green", ":material/verified:"),
    vocab.PROVED_WEAK: (vocab.PROVED_WEAK.capitalize(), "orange", ":material/balance:"),
    vocab.CLAIMED: (vocab.CLAIMED.capitalize(), "blue", ":material/description:"),
    vocab.AUDITED: (vocab.AUDITED.capitalize(), "blue", ":material/search:"),
    vocab.REFUTED: (vocab.REFUTED.capitalize(), "red", ":material/block:"),
}


#: Column units (about 100 px: seven characters of a metric's value, 13 of its label) in one row of key numbers
#: of the 704-px main block; the first row gives :data:`STATUS_WIDTH` of them to the guarantee's status
#: ("Audited: no violation found" on one line).
ROW_WIDTH = 7.0
CHARS_PER_UNIT = 7.0
STATUS_WIDTH = 1.9


def _rows(numbers: list, widths: list[float], first: float) -> list[tuple[list, list[float]]]:
    """``numbers`` in order, as many to a row as fit (``first`` units on the first row, :data:`ROW_WIDTH`
    on the others; a number wider than a row has a row of its own)."""
    rows: list[tuple[list, list[float]]] = []
    room = first
    for num, w in zip(numbers, widths, strict=True):
        if rows and sum(rows[-1][1]) + w <= room:
            rows[-1][0].append(num)
            rows[-1][1].append(w)
        else:
            room = first if not rows else ROW_WIDTH
            rows.append(([num], [w]))
    return rows


@dataclass(frozen=True)
class KeyNumber:
    """One of the first screen's key numbers.

    ``value`` and ``delta`` are display strings (from :mod:`dp_core.display`); ``help`` is the
    plain-words explanation shown in the metric's tooltip (use :func:`tip` for glossary symbols).
    """

    label: str
    value: str
    help: str | None = None
    delta: str | None = None
    delta_color: str = "off"
    delta_arrow: str = "auto"  # "off" for a delta that is a comparison, not a change (no up/down arrow)


def status_badge(
    mechanism: str, mode: str, *, container=None, weak: str | None = None, method: tuple[str, str] | None = None
) -> str | None:
    """A compact badge for the guarantee of ``mechanism`` in ``mode``, from its audit-table row; returns the
    status shown or ``None`` (``weak``, ``method``: ``docs/foundation.md`` §"first_screen.status_badge").
    """
    from .badges import audit_link_params

    box = st if container is None else container
    row = cached_audit.audit_table_row(mechanism, mode)
    if row is None:
        box.caption(f"No stored audit backs a status for this setting ({mechanism}, mode {mode}).")
        return None
    own = method is not None and method[0] != row["status"]
    shown = vocab.with_weakness(method[0] if own else row["status"], weak)
    words, color, icon = STATUS_WORDS.get(shown, (str(shown).capitalize(), "gray", None))
    from dp_core import display

    claim = f"ε = {display.epsilon(row['eps_claimed'])}"
    detail = (
        (f"{method[1]} " if own else "")
        + (f"{weak} " if shown == vocab.PROVED_WEAK else "")
        + (
            f"Stored audit of mode {row['mode']}: claimed {claim}; measured ε ≥ {display.number(row['eps_lower'])} "
            f"({display.percent(row['confidence'], sig=2)} confidence, {display.integer(row['runs'])} runs, "
            f"{row['date']})."
        )
    )
    box.badge(words, color=color, icon=icon, help=detail)
    from urllib.parse import urlencode

    box.markdown(f"[🔍 How we checked ↗](audit?{urlencode(audit_link_params(row))})")
    return shown


def first_screen(
    *,
    who: str,
    numbers: Sequence[KeyNumber],
    mechanism: str | None = None,
    mode: str | None = None,
    chart=None,
    chart_caption: str | None = None,
    chart_key: str | None = None,
    note: str | None = None,
    status: tuple[str, str] | None = None,
    weak: str | None = None,
) -> str | None:
    """Draw the plain first screen; return the guarantee's audit status (or ``None``).

    Parameters (``who``, ``numbers``, ``mechanism``/``mode``, ``chart``, ``note``, ``status``, ``weak``):
    ``docs/foundation.md`` §"first_screen parameters".
    """
    st.markdown(f"**Who is protected:** {who}")
    given, status = status, None
    # a long value ("0.01 / 0.045 / 0.045") gets a wider column, so that no number is cut to "0.01 / 0…"; the
    # numbers fill rows in order, the first beside the status column ("Claimed by the paper" on one line)
    widths = [max(1.0, (len(num.value) + 1) / CHARS_PER_UNIT, (len(num.label) + 3) / 13.0) for num in numbers]
    side = [STATUS_WIDTH] if mechanism or given else []
    cols = []
    for row_numbers, row_widths in _rows(numbers, widths, ROW_WIDTH - sum(side)):
        row = st.columns([*row_widths, *([] if cols else side)])
        cols = cols or row  # the status goes beside the first row
        for col, num in zip(row, row_numbers, strict=False):
            col.metric(
                num.label,
                num.value,
                delta=num.delta,
                delta_color=num.delta_color,
                delta_arrow=num.delta_arrow,
                help=num.help,
            )
    if mechanism or given:
        with cols[-1]:
            st.caption("Guarantee status")
            if mechanism:
                status = status_badge(mechanism, mode or "", container=st, weak=weak, method=given)
            else:
                words, color, icon = STATUS_WORDS.get(given[0], (str(given[0]).capitalize(), "gray", None))
                st.badge(words, color=color, icon=icon, help=given[1])
                status = given[0]
    if note:
        st.caption(note)
    if chart is not None:
        st.plotly_chart(chart, key=chart_key)
        if chart_caption:
            st.caption(chart_caption)
    return status


@contextmanager
def expert_section(title: str, *, expanded: bool = False, key: str | None = None) -> Iterator[bool]:
    """A titled, collapsed section below the first screen; with ``key`` it is lazy and yields whether it is open
    (``with expert_section(t, key=k) as shown: if shown: ...``), without it always yields True.
    """
    if key is None:
        with st.expander(title, expanded=expanded):
            yield True
        return
    box = st.expander(title, expanded=expanded, key=key, on_change="rerun")
    with box:
        yield bool(box.open)
