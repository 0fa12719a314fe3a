"""Status badges backed by the audit table, in the one status vocabulary of :mod:`dp_core.status`
(``docs/audit.md`` §"Status badges (ui/badges.py)").
"""

from __future__ import annotations

import streamlit as st

from dp_core import display
from dp_core import status as vocab
from dp_core.audit.table import row_key
from dp_core.text import escape_markdown

from . import cached_audit

__all__ = ["audit_badge", "audit_caption", "audit_link_params", "large_margin_audit_mode"]

_STYLE = {
    vocab.PROVED: (st.success, "✅"),
    vocab.PROVED_WEAK: (st.info, "⚖️"),
    vocab.CLAIMED: (st.info, "📄"),
    vocab.AUDITED: (st.info, "🔍"),
    vocab.REFUTED: (st.warning, "⛔"),  # a warning box: the pages keep st.error for failures of a run
}


def large_margin_audit_mode(mode: str, psd: bool) -> str:
    """The audit mode of the large-margin page's (mode, PSD) setting."""
    if mode == "repaired" and not psd:
        return "repaired-psd-off"
    return mode


def audit_link_params(row: dict) -> dict[str, str]:
    """URL parameters of the Privacy audit page that reopen ``row`` (its settings are applied there)."""
    return {
        "mechanism": row["mechanism"],
        "audit_mode": row["mode"],
        "audit_pair": row["pair"],
        "audit_runs": str(int(row["runs"])),
        "audit_row": row_key(row["mechanism"], row["mode"]),
    }


def audit_badge(mechanism: str, mode: str, *, container=None) -> str | None:
    """Show the status badge of ``mechanism`` in ``mode`` from its audit-table row; return the status.

    Shows a warning (and returns ``None``) when the table has no row for it, so a missing audit is
    visible instead of a badge without backing.
    """
    box = st if container is None else container
    row = cached_audit.audit_table_row(mechanism, mode)
    if row is None:
        box.warning(f"No stored audit backs a status for {mechanism} in mode {mode}.", icon="⚠️")
        return None
    status = row["status"]
    show, icon = _STYLE.get(status, (st.warning, "⚠️"))
    if container is not None:
        show = getattr(box, show.__name__)
    claim = f"ε = {display.epsilon(row['eps_claimed'])}"
    if float(row["delta"]) > 0:
        claim += f" at δ = {display.delta(row['delta'])}"
    bound = f"ε ≥ {display.number(row['eps_lower'])} ({display.percent(row['confidence'], sig=2)} confidence)"
    if status == vocab.REFUTED:
        verdict = f"the audit measured {bound}, more than the claimed {claim}: the claim is false."
    elif status == vocab.PROVED:
        verdict = f"a proof covers the claimed {claim}; the audit found no violation ({bound}), supporting evidence."
    else:
        verdict = f"the audit measured {bound}, not above the claimed {claim} (evidence, not a proof)."
    show(
        f"**Status: {status}** — {verdict} Mode *{row['mode']}* audited at ε = {display.epsilon(row['epsilon'])} "
        f"(seed {row['seed']}), {display.integer(row['runs'])} runs per dataset; "
        f"event: {escape_markdown(row['event'])}. "
        f"Computed {row['date']} (engine {row['engine_version']}).",
        icon=icon,
    )
    box.page_link(
        "pages/audit.py", label="Reopen the audit behind this badge", icon="🔍", query_params=audit_link_params(row)
    )
    return status


def audit_caption(mechanism: str, mode: str, *, container=None) -> str | None:
    """A one-line version of :func:`audit_badge` (for lists of guarantees); returns the row's status."""
    box = st if container is None else container
    row = cached_audit.audit_table_row(mechanism, mode)
    if row is None:
        box.caption(f"No stored audit for {mechanism} in mode {mode}.")
        return None
    params = "&".join(f"{k}={v}" for k, v in audit_link_params(row).items()).replace(":", "%3A")
    box.caption(
        f"Audit table: **{row['status']}** ({mechanism}, mode {row['mode']}: claimed "
        f"ε = {display.epsilon(row['eps_claimed'])}, measured ε ≥ {display.number(row['eps_lower'])} "
        f"at {display.percent(row['confidence'], sig=2)} confidence, {display.integer(row['runs'])} runs, "
        f"{row['date']}) [reopen ↗](audit?{params})"
    )
    return row["status"]
