"""What the stored full reproductions show, claim by claim: reproduced, not reproduced or not testable.

Verdicts are computed from the stored tables under ``docs/results/`` (never typed); :func:`claims_markdown`
renders the table of ``docs/results/README.md``. Verdict rules and the papers cited:
``docs/engine.md`` §"Reproduction claims (dp_core/reproduction_claims.py)".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import display

__all__ = [
    "CLOSE_ABS",
    "CLOSE_Z",
    "NOT_REPRODUCED",
    "NOT_TESTABLE",
    "REPRODUCED",
    "VERDICTS",
    "all_claims",
    "claims_markdown",
    "figures_note",
    "network_figures",
    "readme_block",
    "write_readme_block",
    "README_END",
    "README_START",
    "input_objective_overlap",
    "input_perturbation_claims",
    "l1_claims",
    "label_dp_claims",
    "large_margin_claims",
]

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_TESTABLE = "not testable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_TESTABLE)
#: Two means are "close" when they differ by at most this much (RMSE or accuracy units) ...
CLOSE_ABS = 0.01
#: ... or by at most this many standard errors of their difference.
CLOSE_Z = 2.0

_IP_FILE = "input_perturbation/input_perturbation_reproduction.csv"
_LD_FILE = "label_dp_bags/label_dp_bags_tables.csv"
_LD_PRIVACY = "label_dp_bags/label_dp_bags_privacy.csv"
_L1_FILE = "l1_exponential/l1_exponential_summary.json"


def _row(paper: str, claim: str, verdict: str, numbers: str, source: str) -> dict:
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}.")
    return {"paper": paper, "claim": claim, "verdict": verdict, "numbers": numbers, "source": source}


def _no_experiments(paper: str, claim: str, source: str) -> dict:
    return _row(paper, claim, NOT_TESTABLE, "no dataset, figure or table", source)


def _n(x: float) -> str:
    return display.number(x, sig=2)


def _range(values, fmt=_n) -> str:
    """``"a to b"`` from the smallest to the largest of ``values``, or one value when they agree when shown."""
    lo, hi = fmt(float(np.min(values))), fmt(float(np.max(values)))
    return lo if lo == hi else f"{lo} to {hi}"


# ------------------------------------------------------------------ input perturbation (Fukuchi et al. 2017)
def _ip_panel(df: pd.DataFrame, model: str, eps: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    g = df[(df["model"] == model) & np.isclose(df["epsilon"], eps)]
    mean = g.pivot(index="n", columns="method", values="test_metric_mean").sort_index()
    se = g.pivot(index="n", columns="method", values="test_metric_se").sort_index()
    return mean, se


def _gap(mean: pd.DataFrame, se: pd.DataFrame) -> pd.DataFrame:
    """Input − Obj-Gauss per n with its standard error and whether the two are close."""
    diff = mean["input"] - mean["objective"]
    s = np.sqrt(se["input"] ** 2 + se["objective"] ** 2)
    close = (diff.abs() <= CLOSE_ABS) | (diff.abs() <= CLOSE_Z * s)
    return pd.DataFrame({"diff": diff, "se": s, "close": close})


def _ip_toward_np(df: pd.DataFrame) -> dict:
    parts, ok = [], True
    for eps in sorted(df["epsilon"].unique()):
        mean, _ = _ip_panel(df, "least_squares", eps)
        gap = mean["input"] - mean["nonprivate"]
        falls = bool((np.diff(mean["input"].to_numpy()) <= 0).all())
        ok &= falls and gap.iloc[-1] < gap.iloc[0]
        parts.append(
            f"ε = {display.epsilon(eps)}: Input − NP RMSE {_n(gap.iloc[0])} at n = {display.integer(gap.index[0])}, "
            f"{_n(gap.iloc[-1])} at n = {display.integer(gap.index[-1])}; "
            + ("falls at every step" if falls else "does not fall at every step")
        )
    claim = "Fig. 1: Input's RMSE decreases toward NP's as n grows."
    return _row("input perturbation", claim, REPRODUCED if ok else NOT_REPRODUCED, "; ".join(parts), _IP_FILE)


def _overlap_parts(df: pd.DataFrame) -> tuple[bool, list[str]]:
    """Per ε of the least-squares panel: whether Input and Obj-Gauss are close at every n, and where not."""
    parts, ok = [], True
    for eps in sorted(df["epsilon"].unique()):
        gap = _gap(*_ip_panel(df, "least_squares", eps))
        far = gap[~gap["close"]]
        ok &= far.empty
        if far.empty:
            parts.append(f"ε = {display.epsilon(eps)}: close at every n (largest |Δ| {_n(gap['diff'].abs().max())})")
            continue
        sign = np.sign(far["diff"]).unique()
        who = "mixed" if len(sign) > 1 else ("Input lower (better)" if sign[0] < 0 else "Input higher (worse)")
        parts.append(
            f"ε = {display.epsilon(eps)}: not close at n = {display.integer(far.index.min())}–"
            f"{display.integer(far.index.max())} ({len(far)} of {len(gap)} sizes), {who} by "
            f"{_range(far['diff'].abs())} in test root-mean-square error"
        )
    return ok, parts


def input_objective_overlap(df: pd.DataFrame) -> str:
    """What a reproduction table (``model``, ``epsilon``, ``n``, ``method``, ``test_metric_mean``/``_se``)
    shows about the paper's "Input and Obj-Gauss RMSE are very close for all n" (least squares)."""
    ok, parts = _overlap_parts(df)
    verdict = "holds" if ok else "does not hold"
    return (
        f'Least squares, Input against Obj-Gauss: {"; ".join(parts)}. The paper\'s "very close for all n" '
        f"{verdict} in this run (close: |Δ| ≤ {display.number(CLOSE_ABS)} or ≤ {display.number(CLOSE_Z)} "
        "standard errors of the difference)."
    )


def _ip_overlap(df: pd.DataFrame) -> dict:
    ok, parts = _overlap_parts(df)
    parts.append("the Δ multipliers of the two methods were tuned separately (reproduce_output.json)")
    claim = "Fig. 1: Input and Obj-Gauss RMSE are very close for all n, including small n."
    return _row("input perturbation", claim, REPRODUCED if ok else NOT_REPRODUCED, "; ".join(parts), _IP_FILE)


def _ip_logistic_large(df: pd.DataFrame, n_large: int) -> dict:
    parts, ok = [], True
    for eps in sorted(df["epsilon"].unique()):
        mean, se = _ip_panel(df, "logistic_taylor", eps)
        gap = _gap(mean, se)
        big = gap[gap.index >= n_large]
        to_np = mean["nonprivate"].iloc[-1] - mean["input"].iloc[-1]
        ok &= bool(big["close"].all()) and abs(to_np) <= CLOSE_ABS
        parts.append(
            f"ε = {display.epsilon(eps)}: largest |Input − Obj| at n ≥ {display.integer(n_large)} "
            f"{_n(big['diff'].abs().max())}; NP − Input at n = {display.integer(mean.index[-1])} {_n(to_np)}"
        )
    claim = "Fig. 2: Input's accuracy ≈ Obj-Gauss's for large n; both approach NP as n grows."
    return _row("input perturbation", claim, REPRODUCED if ok else NOT_REPRODUCED, "; ".join(parts), _IP_FILE)


def _ip_logistic_small(df: pd.DataFrame, n_large: int) -> dict:
    parts, ok, within = [], True, True
    for eps in sorted(df["epsilon"].unique()):
        gap = _gap(*_ip_panel(df, "logistic_taylor", eps))
        small = gap[gap.index < n_large]
        ok &= bool((small["diff"] < 0).all())
        within &= bool((small["diff"].abs() <= CLOSE_Z * small["se"]).all())
        parts.append(
            f"ε = {display.epsilon(eps)}: Input − Obj at n < {display.integer(n_large)} from "
            f"{_n(small['diff'].min())} to {_n(small['diff'].max())}"
        )
    parts.append(
        f"each gap within {display.number(CLOSE_Z)} standard errors"
        if within
        else f"some gaps beyond {display.number(CLOSE_Z)} standard errors"
    )
    claim = "Fig. 2: for small n, Input's accuracy is slightly below Obj-Gauss's."
    return _row("input perturbation", claim, REPRODUCED if ok else NOT_REPRODUCED, "; ".join(parts), _IP_FILE)


def input_perturbation_claims(results: Path | str, n_large: int = 2**15) -> list[dict]:
    """The input-perturbation paper's figure claims against ``results/input_perturbation``."""
    df = pd.read_csv(Path(results) / _IP_FILE)
    return [_ip_toward_np(df), _ip_overlap(df), _ip_logistic_large(df, n_large), _ip_logistic_small(df, n_large)]


# ------------------------------------------------------------------ label DP by aggregation (Brahmbhatt et al.)
def _feasible(df: pd.DataFrame, table: int) -> pd.DataFrame:
    t = df[(df["table"] == table) & df["feasible"].astype(bool)]
    return t[np.isfinite(t["replica_mse"].to_numpy(float))]


def _ld_m_monotone(df: pd.DataFrame, tables: list[int], claim: str) -> dict:
    steps = bad = 0
    for _, g in _feasible_all(df, tables).groupby(["dataset", "table", "rho", "k"], dropna=False):
        col = g.sort_values("m")
        both = np.diff(col["replica_mse"].to_numpy(float))
        steps += both.size
        bad += int((both > 0).sum())
    numbers = f"replica MSE falls at {display.integer(steps - bad)} of {display.integer(steps)} steps of m (fixed k)"
    verdict = REPRODUCED if steps and not bad else NOT_REPRODUCED
    return _row("label DP by aggregation", claim, verdict, numbers, _LD_FILE)


def _feasible_all(df: pd.DataFrame, tables: list[int]) -> pd.DataFrame:
    return pd.concat([_feasible(df, t) for t in tables])


def _k_change(t: pd.DataFrame, column: str) -> list[float]:
    """Per (dataset, m) with two or more feasible k: relative change of ``column`` from the smallest to the
    largest k."""
    out = []
    for _, g in t.groupby(["dataset", "m"]):
        if len(g) < 2:
            continue
        g = g.sort_values("k")
        out.append(float(g[column].iloc[-1] / g[column].iloc[0] - 1.0))
    return out


def _ld_k_effect(df: pd.DataFrame) -> dict:
    t = _feasible(df, 1)
    paper, replica = _k_change(t, "paper_mse"), _k_change(t, "replica_mse")
    stds = (t["replica_std"] / t["replica_mse"]).to_numpy(float)
    helps = all(r < 0 and abs(r) > 2 * float(np.max(stds)) for r in replica)
    numbers = (
        f"from the smallest to the largest feasible k at fixed m ({len(paper)} rows of m): paper MSE changes by "
        f"{_range(paper, display.percent)}, replica by {_range(replica, display.percent)}; replica seed std up to "
        f"{display.percent(float(np.max(stds)))} of the MSE"
    )
    claim = "Table 1 (wtd-LBA): at fixed m, larger k also helps."
    return _row("label DP by aggregation", claim, REPRODUCED if helps else NOT_REPRODUCED, numbers, _LD_FILE)


def _ld_rho(df: pd.DataFrame) -> dict:
    t = _feasible_all(df, [2, 3, 4, 5, 6])
    spread = t.groupby(["dataset", "m", "k"])["replica_mse"].agg(lambda v: float(v.max() / v.min() - 1.0))
    std = float((t["replica_std"] / t["replica_mse"]).median())
    ok = float(spread.max()) <= std
    rhos = ", ".join(display.number(r) for r in sorted(t["rho"].unique()))
    numbers = (
        f"largest relative spread of replica MSE across ρ ∈ {{{rhos}}} over {len(spread)} cells: "
        f"{display.percent(float(spread.max()))} (median seed std: {display.percent(std)} of the MSE)"
    )
    claim = "Tables 2-6 (noisy-wtd-LLP): ρ has essentially no effect."
    return _row("label DP by aggregation", claim, REPRODUCED if ok else NOT_REPRODUCED, numbers, _LD_FILE)


def _ld_privacy(results: Path) -> dict:
    p = pd.read_csv(results / _LD_PRIVACY)
    numbers = (
        f"the paper gives no (ε, δ); with labels rescaled to [−1, 1] the printed accounting gives δ = "
        f"{_range(p['delta_paper'], display.number)} at ε = {_range(p['epsilon'], display.epsilon)} in the "
        f"{len(p)} accounted cells"
        + (" (δ ≥ 1: vacuous)" if (p["delta_paper"] >= 1).all() else "")
        + f"; the exact accounting gives δ = {_range(p['delta_exact'], display.number)}"
    )
    claim = "The mechanisms of Tables 1-6 are label-DP (the paper gives no (ε, δ) for any cell)."
    return _row("label DP by aggregation", claim, NOT_TESTABLE, numbers, _LD_PRIVACY)


def label_dp_claims(results: Path | str) -> list[dict]:
    """The label-DP paper's Table 1-6 claims against ``results/label_dp_bags``."""
    results = Path(results)
    df = pd.read_csv(results / _LD_FILE)
    return [
        _ld_m_monotone(
            df, [1], "Table 1 (wtd-LBA): test MSE falls monotonically toward the instance-level MSE as m grows."
        ),
        _ld_k_effect(df),
        _ld_m_monotone(df, [2, 3, 4, 5, 6], "Tables 2-6 (noisy-wtd-LLP): MSE improves with m."),
        _ld_rho(df),
        _ld_privacy(results),
    ]


# ------------------------------------------------------------------ the two papers without experiments
def l1_claims(results: Path | str) -> list[dict]:
    """The ℓ1 paper has no experiments; its rate theorem is checked against the fitted slopes of F1."""
    s = json.loads((Path(results) / _L1_FILE).read_text(encoding="utf-8"))
    fitted, ref = s["F1_fitted_slopes"], s["F1_reference_slopes"]
    ok = all(fitted[k] <= ref[k] for k in ref)
    pairs = ", ".join(f"{k.replace('theta', 'θ')}: {_n(fitted[k])} (bound {_n(ref[k])})" for k in ref)
    return [
        _no_experiments("ℓ1 regression", "Experiments: the paper has none.", _L1_FILE),
        _row(
            "ℓ1 regression",
            "Excess risk falls at least as fast as n^(−(θ−1)/θ) (rate of the utility theorem).",
            REPRODUCED if ok else NOT_REPRODUCED,
            f"fitted log-log slopes of F1 ({display.integer(s['trials'])} trials): {pairs}",
            _L1_FILE,
        ),
    ]


def large_margin_claims(results: Path | str) -> list[dict]:
    """The large-margin paper has no experiments (its privacy claim is in the audit table, not here)."""
    src = "large_margin_gaussian/reproduce_output.json"
    if not (Path(results) / src).is_file():
        raise ValueError(f"results must hold {src} (the large-margin reproduction), not found under {results}.")
    claim = "Experiments: the paper has none (the pilot in this folder is the project's, not the paper's)."
    return [_no_experiments("large-margin Gaussian", claim, src)]


def all_claims(results: Path | str) -> list[dict]:
    """Every paper's claim rows, in the README's order."""
    return [
        *input_perturbation_claims(results),
        *label_dp_claims(results),
        *l1_claims(results),
        *large_margin_claims(results),
    ]


def claims_markdown(rows: list[dict]) -> str:
    """The README table of ``rows``: paper | claim | verdict | numbers | data."""
    lines = ["| paper | claim | verdict | numbers (from the stored results) | data |", "|---|---|---|---|---|"]
    for r in rows:
        cells = [r["paper"], r["claim"], f"**{r['verdict']}**", r["numbers"], f"`{r['source']}`"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the README block
#: The lines around the generated part of ``docs/results/README.md``.
README_START = "<!-- claims: written by dp_core.reproduction_claims.write_readme_block; edit the code, not this -->"
README_END = "<!-- /claims -->"
_CDN_SCRIPT = re.compile(r"<script[^>]*\bsrc=\"https?://[^\"]*plotly[^\"]*\"", re.IGNORECASE)


def network_figures(results: Path | str) -> list[str]:
    """The stored HTML figures (paths relative to ``results``) that load plotly.js from the network."""
    results = Path(results)
    return [
        p.relative_to(results).as_posix()
        for p in sorted(results.rglob("*.html"))
        if _CDN_SCRIPT.search(p.read_text(encoding="utf-8", errors="replace"))
    ]


def figures_note(results: Path | str) -> str:
    """Whether the stored HTML figures draw offline, computed from the files."""
    results = Path(results)
    total = len(list(results.rglob("*.html")))
    net = network_figures(results)
    if not net:
        return f"All {display.integer(total)} HTML figures embed plotly.js: they draw offline."
    return (
        f"{display.integer(len(net))} of the {display.integer(total)} HTML figures stored here load plotly.js from "
        'its CDN (`<script src="https://cdn.plot.ly/...">`): **they need the network to draw** (offline they '
        "stay blank). They were written before the reproductions embedded plotly.js; every reproduction now "
        "writes figures with plotly.js inside (`include_plotlyjs=True`, about "
        f"{display.number(_plotlyjs_megabytes(), sig=2)} MB per file) that draw offline. Rerunning a folder's command "
        "(below) rewrites its figures that way. Files that need the network: " + ", ".join(f"`{n}`" for n in net) + "."
    )


def _plotlyjs_megabytes() -> float:
    from plotly.offline import get_plotlyjs

    return len(get_plotlyjs().encode("utf-8")) / 1e6


def rules_note() -> str:
    """The verdict rules, with the tolerances this module uses."""
    return (
        f"Two curves are *close* at a point when their means differ by at most {display.number(CLOSE_ABS)} or by "
        f"at most {display.number(CLOSE_Z)} standard errors of the difference; a monotone claim holds when every "
        "step of the stored grid goes the stated way."
    )


def failures_note(rows: list[dict]) -> str:
    """One sentence naming the claims that are not reproduced (counted from ``rows``)."""
    bad = [r for r in rows if r["verdict"] == NOT_REPRODUCED]
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    head = ", ".join(f"{display.integer(n)} {v}" for v, n in counts.items())
    if not bad:
        return f"Of {display.integer(len(rows))} claims: {head}."
    names = "; ".join(f"{r['paper']}: {r['claim']}" for r in bad)
    return f"Of {display.integer(len(rows))} claims: {head}. Not reproduced: {names}"


def readme_block(results: Path | str) -> str:
    """The generated part of the README: the rules, the claim table, the failures and the note on the figures."""
    rows = all_claims(results)
    return "\n".join(
        [
            README_START,
            rules_note(),
            "",
            claims_markdown(rows),
            failures_note(rows),
            "",
            figures_note(results),
            README_END,
        ]
    )


def write_readme_block(readme: Path | str, results: Path | str) -> Path:
    """Replace the generated part of ``readme`` (between :data:`README_START` and :data:`README_END`)."""
    readme = Path(readme)
    text = readme.read_text(encoding="utf-8")
    i, j = text.find(README_START), text.find(README_END)
    if i < 0 or j < i:
        raise ValueError(f"readme must contain the lines {README_START!r} and {README_END!r}: {readme.name}.")
    readme.write_text(text[:i] + readme_block(results) + text[j + len(README_END) :], encoding="utf-8")
    return readme
