"""A self-contained HTML report of a comparison, re-runnable from its JSON configuration
(``python -m dp_core report --config FILE.json --out report.html``; ``docs/compare.md`` §"The HTML report").
"""

from __future__ import annotations

import base64
import html
import importlib.metadata
import platform
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from . import __version__, display
from . import status as vocab
from .compare import ExplorerConfig, default_epsilons, make_spec, run_compare
from .compare.budget import budget_card, noise_table
from .compare.engine import CompareResult
from .compare.figures import METRIC_TITLES, compare_figure, negotiation_figure, results_table
from .compare.registry import STATUS_LABELS
from .data import DATASETS, Dataset, load_dataset

__all__ = [
    "COMPARE_PAGE",
    "Report",
    "compare_settings",
    "compare_spec",
    "targets_from_params",
    "software_versions",
    "dataset_for_config",
    "result_headers",
    "results_csv",
    "build_report",
    "render_html",
    "config_from_report_html",
]

COMPARE_PAGE = "pages/compare.py"
_CONFIG_TAG = "dp-explorer-config"


def software_versions() -> dict[str, str]:
    """Versions of Python, dp_core and the numerical stack (read from package metadata)."""
    out = {"python": platform.python_version(), "dp_core": __version__}
    for pkg in ("numpy", "scipy", "pandas", "plotly", "cvxpy", "streamlit"):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def compare_settings(config: ExplorerConfig) -> dict:
    """The compare page's settings from a configuration, with defaults and validation
    (``docs/compare.md`` §"report.compare_settings").
    """
    p = config.params
    eps_min = float(p.get("eps_min", 0.05))
    eps_max = float(p.get("eps_max", 10.0))
    n_eps = int(float(p.get("n_eps", 8)))
    grid = default_epsilons(eps_min, eps_max, n_eps)
    mech = str(p.get("mech", "all")).strip()
    mechanisms = None if mech in ("", "all") else tuple(x.strip() for x in mech.split(",") if x.strip())
    view = str(p.get("view", "utility"))
    if view not in ("utility", "excess_risk"):
        raise ValueError(f"view must be 'utility' or 'excess_risk', got {view!r}.")
    solve_for = str(p.get("tsolve", "epsilon"))
    if solve_for not in ("epsilon", "n"):
        raise ValueError(f"tsolve must be 'epsilon' or 'n', got {solve_for!r}.")
    targets = targets_from_params(p)
    if solve_for == "n" and not any(not t.startswith("delta=") for t in targets):
        solve_for = "epsilon"
    rows_factor = float(p.get("trows", 1.0))
    if not 1.0 <= rows_factor <= 1000.0:
        raise ValueError(f"trows must be in [1, 1000], got {rows_factor:g}.")
    if solve_for == "n" or not any(not t.startswith("delta=") for t in targets):
        rows_factor = 1.0
    return {
        "rows_factor": rows_factor,
        "grid": grid,
        "mechanisms": mechanisms,
        "targets": targets,
        "view": view,
        "solve_for": solve_for,
        "eps_min": eps_min,
        "eps_max": eps_max,
        "n_eps": n_eps,
    }


def targets_from_params(params) -> list[str]:
    """The negotiation targets of the compare page's settings, as ``METRIC=VALUE`` texts.

    ``tmetric`` (``accuracy``, ``r2``, ``mae``, ``excess_risk`` or ``none``) with ``tvalue``, and ``tdelta``
    (> 0 adds a delta target). Each is validated by :func:`dp_core.negotiate.parse_target`.
    """
    from .negotiate import parse_target

    out = []
    tm = str(params.get("tmetric", "none"))
    if tm not in ("none", ""):
        out.append(f"{tm}={float(params.get('tvalue', 0.0)):g}")
    td = float(params.get("tdelta", 0.0))
    if td > 0:
        out.append(f"delta={td:g}")
    cap = str(params.get("tcap", "none"))
    if cap not in ("none", "") and out:  # a risk cap sits beside a utility or δ target
        out.append(f"{cap}<={float(params.get('tcapv', 0.05)):g}")
    for t in out:
        parse_target(t)
    return out


def compare_spec(config: ExplorerConfig, settings: dict):
    """The :class:`~dp_core.compare.CompareSpec` of a configuration and its :func:`compare_settings`."""
    return make_spec(
        epsilons=settings["grid"],
        delta=config.delta,
        n_trials=config.trials,
        seed=config.seed,
        preprocess=config.preprocess,
        **config.mechanism_params,
    )


def dataset_for_config(config: ExplorerConfig, dataset: Dataset | None = None) -> Dataset:
    """The dataset a configuration names, or the one given (an upload must be given); its declared bounds are
    applied and its fingerprint must match.
    """
    if dataset is None:
        name = config.dataset
        if name in DATASETS or (name.lower().endswith(".csv") and not name.startswith("upload:")):
            dataset = load_dataset(name)
        else:
            raise ValueError(
                f"dataset {name!r} is not a demo dataset; it was uploaded, so pass the same file with "
                f"--data FILE.csv (demo datasets: {sorted(DATASETS)})."
            )
    bounds = getattr(config, "bounds", "")
    if bounds and dataset.declared_bounds is None:
        from .preprocessing import parse_bounds

        dataset = dataset.with_public_bounds(parse_bounds(bounds, dataset.feature_names))
    if config.dataset_fingerprint and config.dataset_fingerprint != dataset.fingerprint:
        raise ValueError(
            f"the data's fingerprint {dataset.fingerprint[:16]}... does not match the configuration's "
            f"{config.dataset_fingerprint[:16]}...: this is not the dataset the report was made from."
        )
    return dataset


def result_headers(metric: str) -> dict[str, str]:
    """Headers for people of the results table's columns (CSV download and HTML report alike)."""
    title = METRIC_TITLES.get(metric, display.header(metric))
    out = {
        "label": "method",
        "adapter": "mechanism key",
        "method": "method key",
        "epsilon": "ε",
        "n_trials": "trials",
        "n_failed": "failed trials",
    }
    for col, name in (("utility", title), ("excess_risk", "excess risk"), ("mae", "test MAE")):
        for suffix, words in (("mean", "mean"), ("se", "standard error"), ("lo", "95% low"), ("hi", "95% high")):
            out[f"{col}_{suffix}"] = f"{name} ({words})"
    return out


def results_csv(result: CompareResult) -> str:
    """The summary table as CSV (one row per mechanism, method and epsilon; full precision, headers
    for people; the mechanism and method keys are kept for machines)."""
    t = display.download_frame(results_table(result), headers=result_headers(result.metric))
    return t.to_csv(index=False, float_format="%.10g")


@dataclass(frozen=True, eq=False)
class Report:
    """A built report: the HTML page, the results CSV and the configuration that re-creates it."""

    html: str = field(repr=False)
    csv: str = field(repr=False)
    config: ExplorerConfig
    result: CompareResult = field(repr=False)
    negotiation: dict | None = field(default=None, repr=False)


def build_report(
    config: ExplorerConfig,
    *,
    dataset: Dataset | None = None,
    result: CompareResult | None = None,
    negotiation: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Run (or reuse) the comparison a configuration describes and render its report.

    ``dataset``: needed for uploads; ``result``/``negotiation``: already computed for exactly this configuration.
    """
    from .negotiate import negotiate

    ds = dataset_for_config(config, dataset)
    cfg = config if config.dataset_fingerprint else config.replace(dataset_fingerprint=ds.fingerprint)
    st = compare_settings(cfg)
    spec = compare_spec(cfg, st)
    if result is None or result.spec != spec:
        result = run_compare(ds, spec, mechanisms=st["mechanisms"], progress=progress)
    if st["targets"] and negotiation is None:
        negotiation = negotiate(
            ds,
            st["targets"],
            epsilon=cfg.eps,
            delta=cfg.delta,
            mechanisms=st["mechanisms"],
            n_trials=cfg.trials,
            seed=cfg.seed,
            eps_min=st["eps_min"],
            eps_max=st["eps_max"],
            n_points=st["n_eps"],
            preprocess=cfg.preprocess,
            **cfg.mechanism_params,
            result=result,
            solve_for=st["solve_for"],
            rows_factor=st["rows_factor"],
        )
    csv = results_csv(result)
    page = render_html(cfg, ds, result, csv=csv, negotiation=negotiation)
    return Report(html=page, csv=csv, config=cfg, result=result, negotiation=negotiation)


def _table(df: pd.DataFrame, **kwargs) -> str:
    """An HTML table for people: headers and cells through :func:`dp_core.display.table`."""
    shown = display.table(df, **kwargs)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in shown.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _kv(d: dict) -> str:
    return _table(pd.DataFrame({"setting": list(d), "value": [display.value(v, sig=4) for v in d.values()]}))


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222}
h1{font-size:1.6em} h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em} th,td{border:1px solid #ddd;padding:.25em .5em;
text-align:left} th{background:#f5f5f5}
.proved{color:#1a7f37}.weak{color:#9a6700}.claimed{color:#9a6700}.audited{color:#0969da}.refuted{color:#cf222e}
.none{color:#57606a}
.card{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.8em 1.2em}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.85em}
.leak{color:#9a6700}
"""


#: The CSS class of each status (:mod:`dp_core.status`) in the report.
_STATUS_CLASS = {
    vocab.PROVED: "proved",
    vocab.PROVED_WEAK: "weak",
    vocab.CLAIMED: "claimed",
    vocab.AUDITED: "audited",
    vocab.REFUTED: "refuted",
    vocab.NO_CLAIM: "none",
}


def render_html(
    config: ExplorerConfig, ds: Dataset, result: CompareResult, *, csv: str, negotiation: dict | None = None
) -> str:
    """The report as one HTML page (plotly.js inlined once; no external request)."""
    st = compare_settings(config)
    card = budget_card(result, epsilon=config.eps, delta=config.delta, n=ds.n)
    title = METRIC_TITLES[result.metric]
    util = card["utility"].rename(
        columns={"utility": title, "utility_lo": f"{title}: 95% low", "utility_hi": f"{title}: 95% high"}
    )
    params, dsinfo = _settings_tables(config, st, ds)
    notes, skipped = _notes_html(result)
    cfg_json = config.to_json()
    csv_b64 = base64.b64encode(csv.encode()).decode()
    cfg_b64 = base64.b64encode(cfg_json.encode()).decode()
    cmd = "python -m dp_core report --config config.json --out report.html"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Privacy-utility report: {html.escape(ds.name)}</title>
<style>{_CSS}</style></head><body>
<h1>Privacy-utility report: {html.escape(ds.name)}</h1>
<p>Privacy-Utility Explorer (dp_core {html.escape(__version__)}). Every number below can be re-created from the
configuration at the end of this page with <code>{cmd}</code>: same configuration, same seed, same numbers.</p>
<h2>Parameters</h2>{_kv(params)}
<h2>Dataset</h2><p>The data themselves are not in this report; the fingerprint identifies them.</p>{_kv(dsinfo)}
<h2>Privacy budget card</h2><div class="card">
{"".join(f"<p>{html.escape(s)}</p>" for s in card["sentences"])}
<h3>Utility each mechanism reaches at ε = {display.epsilon(config.eps)}</h3>{_table(util)}
<h3>Guarantees</h3>{"".join(_guarantee_groups(card))}</div>
<h2>Figures</h2>{"".join(_figures_html(config, result, negotiation))}
<h2>Noise scales at ε = {display.epsilon(config.eps)}</h2>{_table(noise_table(result, config.eps))}
{_negotiation_html(negotiation)}
<h2>Results</h2><p><a download="results.csv" href="data:text/csv;base64,{csv_b64}">Download the results (CSV)</a>
· <a download="config.json" href="data:application/json;base64,{cfg_b64}">Download the configuration (JSON)</a></p>
{
        _table(
            results_table(result)[
                ["label", "epsilon", "utility_mean", "utility_lo", "utility_hi", "excess_risk_mean"]
                + (["mae_mean"] if result.has_mae else [])
                + ["n_trials"]
            ],
            headers=result_headers(result.metric),
        )
    }
<h2>Preprocessing and caveats</h2><ul>{"".join(notes)}</ul>
{f"<p>Not run on this dataset:</p><ul>{skipped}</ul>" if skipped else ""}
<h2>Software</h2>{_kv(software_versions())}
<h2>Configuration (re-run with <code>{cmd}</code>)</h2>
<pre id="config-text">{html.escape(cfg_json)}</pre>
<script type="application/json" id="{_CONFIG_TAG}">{html.escape(cfg_json, quote=False)}</script>
</body></html>
"""


def _figures_html(config: ExplorerConfig, result: CompareResult, negotiation: dict | None) -> list[str]:
    """The report's charts, each under its title (plotly.js inlined in the first only)."""
    from .negotiate import question_title

    figs = [
        ("Utility against ε", compare_figure(result, y="utility", eps_marker=config.eps)),
        (
            "Excess risk against ε, with the theoretical bounds (dashed)",
            compare_figure(result, y="excess_risk", eps_marker=config.eps),
        ),
    ]
    if negotiation is not None and negotiation.get("grid"):
        figs.append((f"Negotiation: {question_title(negotiation)}", negotiation_figure(result, negotiation)))
    fig_html = []
    for i, (title, fig) in enumerate(figs):
        div = fig.to_html(
            full_html=False,
            include_plotlyjs="inline" if i == 0 else False,
            config={"displaylogo": False},
            div_id=f"fig{i}",
        )
        fig_html.append(f"<h3>{html.escape(title)}</h3>{div}")
    return fig_html


def _guarantee_groups(card: dict) -> list[str]:
    """The budget card's guarantees, one list per status."""
    groups = []
    for status, items in card["groups"].items():
        if not items:
            continue
        lis = "".join(
            f"<li><b>{html.escape(i['label'])}</b> ({html.escape(i['mechanism'])}): {html.escape(i['statement'])}</li>"
            for i in items
        )
        head = html.escape(STATUS_LABELS[status].capitalize())
        groups.append(f"<p class='{_STATUS_CLASS[status]}'><b>{head}</b></p><ul>{lis}</ul>")
    return groups


def _settings_tables(config: ExplorerConfig, st: dict, ds: Dataset) -> tuple[dict, dict]:
    """The parameters and the dataset description, as label → text."""
    params = {
        "ε (chosen)": display.epsilon(config.eps),
        "δ": display.delta(config.delta),
        "seed": str(config.seed),
        "Monte-Carlo trials": display.integer(config.trials),
        "k (bag size)": display.integer(config.k),
        "m (bags)": display.integer(config.m),
        "ρ (noisy share)": display.number(config.rho),
        "ε grid": ", ".join(display.epsilon(e) for e in st["grid"]),
        "mechanisms": "all applicable" if st["mechanisms"] is None else ", ".join(st["mechanisms"]),
        "negotiation targets": ", ".join(st["targets"]) or "none",
        "negotiation question": "fewest rows at the chosen ε" if st["solve_for"] == "n" else "smallest ε",
        "rows factor": f"{display.number(st['rows_factor'])}× the rows "
        f"({display.integer(st['rows_factor'] * ds.n)} rows)",
    }
    dsinfo = {
        "name": ds.name,
        "rows (n)": display.integer(ds.n),
        "features (d)": display.integer(ds.d),
        "task": ds.task,
        "classes": display.integer(ds.n_classes) if ds.n_classes else display.MISSING,
        "target column": ds.target_name,
        "SHA-256 fingerprint": ds.fingerprint,
        "source": ds.source or display.MISSING,
    }
    return params, dsinfo


def _notes_html(result: CompareResult) -> tuple[list[str], str]:
    """The comparison's notes and leak warnings (list items), and the skipped mechanisms."""
    notes = []
    for key, ns in result.notes.items():
        notes += [f"<li>{html.escape(key)}: {html.escape(n_)}</li>" for n_ in ns]
        notes += [f"<li class='leak'>⚠ {html.escape(key)}: {html.escape(lk)}</li>" for lk in result.leaks.get(key, ())]
    skipped = "".join(f"<li>{html.escape(k)}: {html.escape(v)}</li>" for k, v in result.skipped.items())
    return notes, skipped


def _negotiation_html(negotiation: dict | None) -> str:
    """The negotiation section (empty without one)."""
    from .negotiate import answer_sentences, answer_table_for_people, question_title

    if negotiation is None:
        return ""
    neg_html = (
        f"<h2>Negotiation: {html.escape(question_title(negotiation))}</h2>"
        f"<p><b>{html.escape(negotiation.get('headline', ''))}</b></p>"
        f"<p>δ used: {display.delta(negotiation['delta_used'])}. "
        + " ".join(html.escape(n) for n in negotiation["notes"])
        + "</p><ul>"
        + "".join(f"<li>{html.escape(s)}</li>" for s in answer_sentences(negotiation))
        + "</ul>"
        + _table(answer_table_for_people(negotiation))
    )
    if negotiation.get("k_answers"):
        neg_html += "<h3>Label-DP: smallest bag size k</h3>" + _table(
            pd.DataFrame(negotiation["k_answers"]),
            formats={"delta": display.delta, "k": lambda v: display.integer(v, inf="never")},
        )
    return neg_html


def config_from_report_html(text: str) -> ExplorerConfig:
    """Read the configuration embedded in a report (to re-run it)."""
    from .compare import config_from_json

    start_tag = f'<script type="application/json" id="{_CONFIG_TAG}">'
    i = text.find(start_tag)
    if i < 0:
        raise ValueError("this HTML file holds no explorer configuration (is it a report of this app?).")
    j = text.find("</script>", i)
    return config_from_json(html.unescape(text[i + len(start_tag) : j]))
