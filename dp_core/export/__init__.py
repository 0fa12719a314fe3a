"""Take a view away: a runnable notebook or script of it, and a one-page brief with the decision log.

Pure functions of the app's JSON configuration (:class:`dp_core.compare.ExplorerConfig`) plus the
``decisions`` list the brief shows. ``docs/export.md``.

* :mod:`.notebook`: :func:`~.notebook.notebook_json`, the view as a Jupyter notebook;
* :mod:`.script`: :func:`~.script.script_text`, the same cells as a Python script that also releases;
* :mod:`.brief`: :func:`~.brief.brief_html`, an A4 privacy label with the decision log.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from ..compare import ExplorerConfig, config_from_mapping
from ..compare.config import decode_config_json

__all__ = ["DECISION_FIELDS", "check_decisions", "load_export_config", "page_mechanisms"]

#: The fields of one entry of the decision log (who proposed which ε, whether it was chosen, when, why).
DECISION_FIELDS = ("who", "epsilon", "chosen", "date", "note")
_MAX_DECISIONS = 50
_MAX_TEXT = 500


def _check_decision(i: int, item: Any) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise TypeError(f"decisions[{i}] must be an object with {list(DECISION_FIELDS)}, got {type(item).__name__}.")
    unknown = sorted(set(item) - set(DECISION_FIELDS))
    if unknown:
        raise ValueError(f"decisions[{i}] has unknown field(s) {unknown}; valid: {list(DECISION_FIELDS)}.")
    eps = item.get("epsilon")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < float(eps) < float("inf"):
        raise ValueError(f"decisions[{i}].epsilon must be a finite number > 0, got {eps!r}.")
    out: dict[str, Any] = {"epsilon": float(eps), "chosen": item.get("chosen", False)}
    if not isinstance(out["chosen"], bool):
        raise TypeError(f"decisions[{i}].chosen must be true or false, got {out['chosen']!r}.")
    for key in ("who", "date", "note"):
        text = item.get(key, "")
        if not isinstance(text, str) or len(text) > _MAX_TEXT:
            raise ValueError(f"decisions[{i}].{key} must be text of at most {_MAX_TEXT} characters.")
        out[key] = text
    if out["date"]:
        try:
            _dt.date.fromisoformat(out["date"])
        except ValueError:
            raise ValueError(f"decisions[{i}].date must be a date YYYY-MM-DD, got {out['date'][:40]!r}.") from None
    return out


def check_decisions(decisions: Any) -> list[dict[str, Any]]:
    """Validate a decision log: a list of at most 50 ``{who, epsilon, chosen, date, note}``, one chosen at most."""
    if decisions is None:
        return []
    if not isinstance(decisions, Sequence) or isinstance(decisions, (str, bytes)):
        raise TypeError(f"decisions must be a list, got {type(decisions).__name__}.")
    if len(decisions) > _MAX_DECISIONS:
        raise ValueError(f"decisions must hold at most {_MAX_DECISIONS} entries, got {len(decisions)}.")
    out = [_check_decision(i, d) for i, d in enumerate(decisions)]
    if sum(d["chosen"] for d in out) > 1:
        raise ValueError("decisions: at most one entry may be chosen.")
    return out


def load_export_config(text: str | bytes | Mapping[str, Any]) -> tuple[ExplorerConfig, list[dict[str, Any]]]:
    """The configuration and its decision log from the JSON the app downloads (``decisions`` optional)."""
    data = dict(text) if isinstance(text, Mapping) else decode_config_json(text)
    if not isinstance(data, dict):
        raise TypeError(f"the configuration must be a JSON object, got {type(data).__name__}.")
    decisions = check_decisions(data.pop("decisions", None))
    return config_from_mapping(data), decisions


def page_mechanisms(config: ExplorerConfig) -> tuple[str, ...] | None:
    """The comparison adapters of the view: a mechanism page's own, else the Compare page's ``mech`` choice."""
    from ..registry import plugins
    from ..report import compare_settings

    for plugin in plugins():
        if plugin.has("compare") and getattr(plugin, "page", "") and plugin.page == config.page:
            return (plugin.key,)
    return compare_settings(config)["mechanisms"]
