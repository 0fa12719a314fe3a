"""A one-page brief of a configuration for a negotiation: an A4 privacy label and the decision log.

Shaped after the pyramid of NIST SP 800-226 as ``docs/export.md`` §"The one-page brief" describes it:
unit of privacy, trust model, accounting, ε, δ, the attacker's view (:func:`dp_core.risk.mechanism_risk`
of the (ε, δ) guarantee), the utility at the chosen ε with its interval (:func:`dp_core.compare.run_compare`),
each guarantee's status, the stored audit (:func:`dp_core.audit.table.load_audit_table`), what was measured
and what was extrapolated, and the decision log. Every number is a ``<span class="n" data-cli=...>`` naming
the CLI value it equals; every text from the configuration is escaped.
"""

from __future__ import annotations

import html
from typing import Any

from ..compare import ExplorerConfig
from ..text import escape_html as _e
from . import page_mechanisms

__all__ = ["brief_data", "brief_html"]

_CSS = """@page { size: A4; margin: 12mm; }
body { font: 9pt/1.3 system-ui, sans-serif; color: #111; max-width: 186mm; margin: 0 auto; }
h1 { font-size: 14pt; margin: 0 0 2mm; } h2 { font-size: 10pt; margin: 3mm 0 1mm; border-bottom: 1px solid #444; }
table { border-collapse: collapse; width: 100%; } td, th { border: 1px solid #999; padding: 1px 3px; text-align: left; }
.tier { display: grid; grid-template-columns: 38mm 1fr; gap: 0 3mm; } .tier b { color: #222; }
.small { font-size: 7.5pt; color: #333; }
@media print { body { max-width: none; } a { color: inherit; text-decoration: none; } }"""


def _n(value: Any, key: str) -> str:
    """A number shown with 4 significant digits, tagged with the CLI value it equals."""
    if value is None:
        return "n/a"
    return f'<span class="n" data-cli="{html.escape(key)}">{float(value):.4g}</span>'


def _audit_rows(methods: list[dict]) -> dict[str, dict]:
    from ..audit.table import load_audit_table

    keys = {m.get("audit") for m in methods if m.get("audit")}
    return {f"{r['mechanism']}/{r['mode']}": r for r in load_audit_table() if f"{r['mechanism']}/{r['mode']}" in keys}


def brief_data(config: ExplorerConfig, decisions: list[dict] | None = None, *, dataset=None) -> dict[str, Any]:
    """Every value the brief shows: the comparison at the grid point nearest ε, the risk, the audit rows."""
    from ..compare import run_compare
    from ..report import compare_settings, compare_spec, dataset_for_config
    from ..risk import mechanism_risk

    ds = dataset_for_config(config, dataset)
    spec = compare_spec(config, compare_settings(config))
    res = run_compare(ds, spec, mechanisms=page_mechanisms(config))
    at = min(spec.epsilons, key=lambda e: abs(e - config.eps))
    rows = res.summary[res.summary["epsilon"] == at].to_dict(orient="records")
    risk = mechanism_risk("approx", eps=config.eps, delta=config.delta)
    return {
        "config": config,
        "dataset": ds,
        "result": res,
        "at": at,
        "rows": {r["method"]: r for r in rows},
        "risk": risk,
        "audits": _audit_rows(res.methods),
        "decisions": list(decisions or []),
    }


def _label_tiers(d: dict) -> str:
    cfg, res, risk = d["config"], d["result"], d["risk"]
    label_dp = {m["label_dp"] for m in res.methods}
    unit = {
        frozenset({True}): "one person's label (label-DP: the features are treated as public)",
        frozenset({False}): "one person's whole row (record-level DP: add, remove or replace one row)",
    }.get(frozenset(label_dp), "a row for record-level methods, a label for the label-DP methods (see the table)")
    tpr = risk["tpr_at_fpr"]
    tiers = [
        ("Unit of privacy", _e(unit)),
        ("Trust model", "central: the data holder runs the mechanism on the raw data and publishes only the model"),
        ("Accounting", "one release per dataset, no composition across releases; each method's own calibration"),
        ("ε, δ", f"ε = {_n(cfg.eps, 'config.eps')}, δ = {_n(cfg.delta, 'config.delta')}{_chosen(d)}"),
        (
            "Attacker's view",
            f"membership-inference advantage at most {_n(risk['mia_advantage'], 'risk.mia_advantage')}; "
            f"true-positive rate at most {_n(tpr['0.01'], 'risk.tpr_at_fpr.0.01')} at 1% false positives, "
            f"{_n(tpr['0.001'], 'risk.tpr_at_fpr.0.001')} at 0.1%; Gaussian-DP μ ≈ "
            f"{_n(risk['mu_fit'], 'risk.mu_fit')} (fitted to the (ε, δ) curve)",
        ),
    ]
    return "".join(f'<div class="tier"><b>{k}</b><span>{v}</span></div>' for k, v in tiers)


def _chosen(d: dict) -> str:
    """The decision log's chosen ε beside the page's, and whether they agree."""
    for i, x in enumerate(d["decisions"]):
        if x["chosen"]:
            same = abs(x["epsilon"] - d["config"].eps) <= 1e-12 * max(1.0, d["config"].eps)
            tail = "the ε of this brief" if same else "not the ε of this brief: recompute the brief at it"
            return f"; chosen in the decision log: ε = {_n(x['epsilon'], f'decisions.{i}.epsilon')} ({tail})"
    return "; no ε chosen in the decision log yet"


def _audit_cell(m: dict, audits: dict) -> str:
    row = audits.get(m.get("audit") or "")
    if row is None:
        return "not audited"
    key = f"audit.{row['mechanism']}/{row['mode']}"
    return (
        f"ε ≥ {_n(row['eps_lower'], key + '.eps_lower')} measured vs ε = {_n(row['eps_claimed'], key + '.eps_claimed')}"
        f" claimed; {_e(row['verdict'])} ({_e(row['date'])})"
    )


def _methods_table(d: dict) -> str:
    res, at = d["result"], d["at"]
    metric = {"accuracy": "test accuracy", "r2": "test R²"}.get(res.metric, res.metric)
    head = f"<tr><th>method</th><th>status</th><th>{_e(metric)} at ε = {_n(at, 'at')} [95% interval]</th>"
    head += "<th>audit (stored)</th></tr>"
    body = []
    for m in res.methods:
        r = d["rows"].get(m["method"])
        key = f"compare.{m['method']}"
        util = (
            "not run"
            if r is None
            else f"{_n(r['utility_mean'], key + '.utility_mean')} [{_n(r['utility_lo'], key + '.utility_lo')}, "
            f"{_n(r['utility_hi'], key + '.utility_hi')}]"
        )
        body.append(
            f"<tr><td>{_e(m['label'])}</td><td>{_e(m['status_label'])}</td><td>{util}</td>"
            f"<td>{_audit_cell(m, d['audits'])}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _decision_log(decisions: list[dict]) -> str:
    if not decisions:
        return "<p>No decision recorded in the configuration.</p>"
    rows = "".join(
        f"<tr><td>{_e(x['date'])}</td><td>{_e(x['who'])}</td><td>{_n(x['epsilon'], f'decisions.{i}.epsilon')}</td>"
        f"<td>{'chosen' if x['chosen'] else 'proposed'}</td><td>{_e(x['note'])}</td></tr>"
        for i, x in enumerate(decisions)
    )
    return f"<table><tr><th>date</th><th>who</th><th>ε</th><th>decision</th><th>note</th></tr>{rows}</table>"


def _measured(d: dict) -> str:
    cfg, ds = d["config"], d["dataset"]
    return (
        f"<p class='small'><b>Measured:</b> the utility, as the mean of {_n(cfg.trials, 'config.trials')} seeded "
        f"trials (seed {_n(cfg.seed, 'config.seed')}) on {_e(ds.name)} ({_n(ds.n, 'dataset.n')} rows), at the "
        f"grid point nearest the chosen ε; the audit's lower bounds, from repeated runs of the stored audit. "
        "<b>Not measured:</b> the guarantee itself (a proof, a paper's claim or an audit, as each status says) and "
        "the attacker's view (computed from ε and δ, for any mechanism with this guarantee). "
        "<b>Extrapolated:</b> the utility at ε between grid points, and on other data than this dataset.</p>"
    )


def brief_html(config: ExplorerConfig, decisions: list[dict] | None = None, *, data: dict | None = None) -> str:
    """The brief as one self-contained HTML page (A4, print styles, no external request)."""
    d = brief_data(config, decisions) if data is None else data
    title = f"Privacy brief: {_e(d['dataset'].name)}, ε = {_n(config.eps, 'config.eps')}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Privacy brief</title>'
        f"<style>{_CSS}</style></head><body><h1>{title}</h1>"
        f"<h2>Privacy label</h2>{_label_tiers(d)}"
        f"<h2>Guarantees, utility and audit</h2>{_methods_table(d)}{_measured(d)}"
        f"<h2>Decision log</h2>{_decision_log(d['decisions'])}"
        f"<p class='small'>From the Privacy-Utility Explorer configuration (page {_e(config.page or 'Home')}); "
        "python -m dp_core brief --config CONFIG.json recreates it.</p></body></html>"
    )
