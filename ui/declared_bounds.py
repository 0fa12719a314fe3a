"""Home, section 2, for an upload: the bounds table, *Declare*, *Round to a coarse public grid*, *Reset*.

Declaring is an act, not a click (issue 24): ``docs/preprocessing.md``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dp_core import preprocessing
from dp_core.data import Dataset
from dp_core.text import escape_markdown

from . import widgets

__all__ = ["upload_bounds_section"]

#: Session key: the fingerprint of the upload whose *Declare* waits for an acknowledgement.
PENDING = "_bounds_pending"
#: Session key: ``{fingerprint: PublicBounds}``, the coarse grid offered in the table (not declared yet).
SUGGESTED = "_bounds_suggested"
_VERSION = "_bounds_editor_version"
_HEADERS = {"Lowest": "lo", "Highest": "hi", "Centre": "centre", "Scale": "scale"}


def _table(raw: Dataset, shown) -> pd.DataFrame:
    return pd.DataFrame(
        {"Column": [str(c) for c in raw.feature_names], **{h: list(getattr(shown, k)) for h, k in _HEADERS.items()}}
    )


def _edited_bounds(raw: Dataset, edited: pd.DataFrame):
    """The table as declared bounds (``ValueError``/``TypeError`` naming the column)."""
    records = [
        {"column": r["Column"], **{k: r[h] for h, k in _HEADERS.items()}} for r in edited.to_dict(orient="records")
    ]
    return preprocessing.bounds_from_records(records, [str(c) for c in raw.feature_names])


def _declared(raw: Dataset) -> None:
    """After a declaration: the table shows the declared bounds again."""
    st.session_state.get(SUGGESTED, {}).pop(raw.fingerprint, None)
    _restart()


def _restart() -> None:
    """A fresh table (new widget key) and no pending acknowledgement, then a rerun."""
    st.session_state.pop(PENDING, None)
    st.session_state[_VERSION] = st.session_state.get(_VERSION, 0) + 1
    st.rerun()


def _heading(declared, suggested) -> str:
    if suggested is not None:
        return (
            "**Prefilled with your data's ranges rounded outward to a coarse grid — not declared yet.** Check them "
            "against what is publicly known, then declare them."
        )
    if declared is not None:
        return f"**Declared public bounds** ({escape_markdown(declared.source)}): every page uses them."
    return (
        "**Prefilled with ranges computed from your data — not public.** Replace them with ranges known without "
        "looking at the records (a questionnaire's scale, physical limits, a published table), then declare them."
    )


def _declare(raw: Dataset, edited: pd.DataFrame, *, acknowledged: bool = False) -> tuple | None:
    """Declare the table; the data-derived matches that stop it, ``()`` when declared, ``None`` on an error."""
    try:
        return widgets.declare_bounds(raw, _edited_bounds(raw, edited), acknowledged=acknowledged)
    except (TypeError, ValueError) as exc:
        widgets.show_error(exc, prefix="Bounds not declared: ")
        st.caption(
            "The previous bounds stay in use."
            if widgets.declared_bounds_for(raw) is not None
            else "The bounds computed from the data stay in use."
        )
        return None


def _acknowledgement(raw: Dataset, edited: pd.DataFrame) -> None:
    """The warning and checkbox of a *Declare* whose values are the data's own statistics."""
    try:
        matches = widgets.data_derived_matches(raw, _edited_bounds(raw, edited))
    except (TypeError, ValueError):
        matches = ()
    if not matches:  # the table changed since: press Declare again
        st.session_state.pop(PENDING, None)
        return
    st.warning(
        "**Not declared yet.** These values are your data's own statistics, not public knowledge: "
        f"{widgets.describe_matches(matches)}. Declaring them would publish them: the link to this view, a shared "
        "configuration and a report would carry them, and the privacy guarantee does not cover them. Replace them "
        "with ranges known without looking at the records, press *Round to a coarse public grid*, or acknowledge.",
        icon="🔓",
    )
    key = f"w_bounds_ack_{st.session_state.get(_VERSION, 0)}"
    if st.checkbox("I acknowledge: publish these values of my data as public bounds", key=key):
        if _declare(raw, edited, acknowledged=True) == ():
            _declared(raw)


def upload_bounds_section(raw: Dataset, container) -> None:
    """The editable bounds of the uploaded ``raw`` data (its table drawn in ``container``)."""
    message = st.session_state.pop(widgets.BOUNDS_MESSAGE, None)
    if message is not None:
        (st.info if message[0] == "info" else st.warning)(message[1], icon="🔗")
    declared = widgets.declared_bounds_for(raw)
    suggested = st.session_state.get(SUGGESTED, {}).get(raw.fingerprint)  # offered after the last declaration
    derived = widgets.derived_bounds(raw)
    shown = next((b for b in (suggested, declared) if b is not None), None) or preprocessing.rounded_bounds(derived)
    with container:
        st.markdown(_heading(declared, suggested))
        edited = st.data_editor(
            _table(raw, shown),
            key=f"w_bounds_editor_{st.session_state.get(_VERSION, 0)}",
            disabled=["Column"],
            hide_index=True,
            num_rows="fixed",
            width="stretch",
            height=210 if raw.d > 5 else "auto",
        )
        b1, b2, b3 = st.columns(3)
        declare = b1.button("Declare these ranges as public", key="w_bounds_declare", type="primary")
        grid = b2.button(
            "Round to a coarse public grid",
            key="w_bounds_grid",
            help="Each range widened outward to a coarse grid (two significant digits of its width), with the "
            "midpoint and half-width as centre and scale: no value is your data's minimum, maximum, mean or "
            "standard deviation, and no value of yours is clipped. Check them, then declare.",
        )
        reset = b3.button("Reset to data-derived", key="w_bounds_reset", disabled=declared is None)
    if grid:
        st.session_state.setdefault(SUGGESTED, {})[raw.fingerprint] = preprocessing.coarse_public_bounds(derived)
        _restart()
    if reset:
        widgets.declare_bounds(raw, None)
        st.session_state.get(SUGGESTED, {}).pop(raw.fingerprint, None)
        _restart()
    if declare:
        outcome = _declare(raw, edited)
        if outcome == ():
            _declared(raw)
        if outcome:
            st.session_state[PENDING] = raw.fingerprint
    if st.session_state.get(PENDING) == raw.fingerprint:
        _acknowledgement(raw, edited)
    st.caption("🔗 " + widgets.bounds_link_note(raw))
