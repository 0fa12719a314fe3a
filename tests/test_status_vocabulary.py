"""Issue 23: one status vocabulary everywhere, and refuted methods never star.

The five statuses are defined once (:mod:`dp_core.status`, with glossary entries). Every page
source, figure legend, status-bearing CLI JSON, the HTML report and the estimators' ``privacy_``
use only them (never the retired "certified"). A refuted method is drawn apart (grey, dashed, in a
legend that says it is not private), never chosen as the best, and quoted only as a warning.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _helpers import run_main

from dp_core import glossary
from dp_core import status as vocab
from dp_core.audit.table import audit_row, load_audit_table, row_status
from dp_core.compare import make_spec, run_compare
from dp_core.compare.budget import headline, private_summary
from dp_core.compare.figures import LEGEND_TITLES, compare_figure, negotiation_figure, refuted_methods
from dp_core.data import load_dataset
from dp_core.figures import REFUTED_COLOR, REFUTED_GROUP, REFUTED_LEGEND_TITLE, line_ci_figure

ROOT = Path(__file__).resolve().parents[1]
#: The retired vocabulary: "certified" in any form, and the old audit-table and compare words.
RETIRED = re.compile(r"certif|\bnot valid\b|no guarantee claimed|claimed only|as claimed by the paper\)", re.I)
#: A method's status field: a status, or "none" for a reference that claims no privacy.
METHOD_STATUSES = (*vocab.STATUSES, vocab.NO_CLAIM)


def _texts(fig) -> list[str]:
    """Every text a person reads on a figure: trace names, legend and axis titles, annotations, hovers."""
    d = fig.to_plotly_json()
    out = [str(t.get(k, "")) for t in d["data"] for k in ("name", "hovertemplate", "text")]
    lay = d.get("layout", {})
    out += [json.dumps(v, ensure_ascii=False) for k, v in lay.items() if k.startswith(("legend", "title", "xaxis"))]
    out += [str(a.get("text", "")) for a in lay.get("annotations", [])]
    return out


def _status_fields(node, path=()) -> list[tuple[tuple, str]]:
    """Every ``status`` value of a JSON tree (sampler diagnostics hold sampler states, not guarantees)."""
    found = []
    if isinstance(node, dict):
        for k, v in node.items():
            if "sampler" in str(k) or "diagnostics" in str(k):
                continue
            if k == "status" and isinstance(v, str):
                found.append((path, v))
            else:
                found += _status_fields(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += _status_fields(v, (*path, i))
    return found


# ------------------------------------------------------------------ defined once


def test_five_statuses_defined_once_with_a_glossary_entry_each():
    assert len(set(vocab.STATUSES)) == 5
    assert set(vocab.DEFINITIONS) == set(vocab.STATUSES)
    for s in vocab.STATUSES:
        entry = glossary.lookup(s)
        assert entry is not None and entry.plain == vocab.DEFINITIONS[s]
        assert not RETIRED.search(entry.plain + entry.expert)
    assert "evidence" in vocab.DEFINITIONS[vocab.AUDITED] and "not a proof" in vocab.DEFINITIONS[vocab.AUDITED]


def test_weak_reason_follows_one_over_n():
    assert vocab.weak_reason(1e-6, 1000) is None  # δ ≤ 1/n
    assert vocab.weak_reason(1.0 / 1000, 1000) is None  # δ = 1/n is not above it
    why = vocab.weak_reason(0.652, 32)  # issue 23: a 32-row upload
    assert why is not None and "1/n" in why
    assert "protects nobody" in vocab.weak_reason(1.0, 10)
    assert vocab.with_weakness(vocab.PROVED, why) == vocab.PROVED_WEAK
    assert vocab.with_weakness(vocab.REFUTED, why) == vocab.REFUTED  # only a proof can be weak
    with pytest.raises(ValueError, match="n must be"):
        vocab.weak_reason(0.1, 0)


def test_stored_audit_table_uses_the_vocabulary():
    rows = load_audit_table()
    assert rows
    for r in rows:
        assert r["status"] in vocab.STATUSES and r["status"] == row_status(r), r["mode"]
        if r["claim"] == "proof" and r["verdict"] != "violation found":
            assert r["status"] == vocab.PROVED  # the proof makes it proved; the audit only supports it
        if r["claim"] != "proof" and r["verdict"] != "violation found":
            assert r["status"] == vocab.AUDITED  # evidence, never a proof
    assert {r["status"] for r in rows} >= {vocab.PROVED, vocab.AUDITED, vocab.REFUTED}


def test_page_and_ui_sources_use_no_retired_word():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    assert len(files) > 10
    bad = [
        f"{f.name}:{i}"
        for f in files
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if RETIRED.search(line)
    ]
    assert bad == []


# ------------------------------------------------------------------ every output


def test_every_figure_builder_legend_uses_no_retired_word():
    from test_figures_contract import CASES

    seen: set[str] = set()
    for case_id, builder, build in CASES:
        if builder in seen:  # one input per builder
            continue
        seen.add(builder)
        bad = [t for t in _texts(build()) if RETIRED.search(t)]
        assert bad == [], (case_id, bad)
    assert len(seen) >= 40


@pytest.fixture(scope="module")
def refuted_result():
    """breast_cancer with the large-margin modes: 'repaired' (refuted) is the top curve at small ε (issue 23)."""
    spec = make_spec(epsilons=(0.1, 1.0, 10.0), delta=1e-5, n_trials=3, seed=0)
    return run_compare(load_dataset("breast_cancer"), spec, mechanisms=("large_margin_gaussian", "output_perturbation"))


def _cli_json(capsys, *args) -> dict:
    code, cap = run_main(capsys, *args)
    assert code == 0, cap.err
    return json.loads(cap.out)


def test_cli_json_status_fields_use_only_the_vocabulary(capsys):
    outs = {
        "compare": _cli_json(
            capsys,
            *"compare --dataset breast_cancer --trials 2 --n-eps 2 --seed 0 --mechanisms".split(),
            "large-margin-gaussian",
            "output-perturbation",
        ),
        "audit": _cli_json(
            capsys, "audit", "all", "--quick", "--only", "laplace:standard", "--only", "large-margin-gaussian:repaired"
        ),
        "calibrate": _cli_json(capsys, *"calibrate large-margin-gaussian --n 100 --d 2 --eps 1 --mode printed".split()),
        "release": _cli_json(
            capsys, *"release input-perturbation --dataset census --y-range 0 1 --x-bound 3.1 --seed 3".split()
        ),
    }
    release = outs.pop("release")["release"]  # its "status" is the solver's; the guarantee is privacy_status
    # the release's status is the audit row's, as on Compare and on the estimator (one answer everywhere)
    assert release["privacy_status"].startswith(row_status(audit_row("input-perturbation", "COR2")))
    found = {name: _status_fields(out) for name, out in outs.items()}
    assert {s for _, s in found["compare"]} >= {vocab.PROVED, vocab.REFUTED}
    assert [s for _, s in found["audit"]] == [vocab.PROVED, vocab.REFUTED]
    for name, fields in found.items():
        assert all(s in METHOD_STATUSES for _, s in fields), (name, fields)
    outs["release"] = release
    for name, out in outs.items():
        assert not RETIRED.search(json.dumps(out, ensure_ascii=False)), name
    assert outs["calibrate"]["eps_claimed_label"].startswith(vocab.REFUTED)


def test_html_report_uses_only_the_vocabulary():
    from dp_core.compare import ExplorerConfig
    from dp_core.report import build_report

    cfg = ExplorerConfig(
        eps=1.0,
        delta=1e-5,
        seed=0,
        trials=2,
        dataset="breast_cancer",
        page="pages/compare.py",
        params={"eps_min": 0.1, "eps_max": 10.0, "n_eps": 2, "mech": "large_margin_gaussian,output_perturbation"},
    )
    html = build_report(cfg).html
    assert not RETIRED.search(html)
    assert f"<b>{vocab.REFUTED.capitalize()}" in html and f"<b>{vocab.PROVED.capitalize()}" in html


@pytest.mark.filterwarnings("ignore::dp_core.exceptions.InvalidGuaranteeWarning")  # non-private modes on purpose
def test_estimator_privacy_statuses_use_only_the_vocabulary():
    from dp_core.estimators import (
        LabelDPBagRegressor,
        LargeMarginGaussianClassifier,
        OutputPerturbationClassifier,
    )

    g = np.random.default_rng(0)
    X = g.normal(size=(200, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = (X[:, 0] > 0).astype(int)
    yr = X @ np.array([0.5, -0.2, 0.1]) + 0.05 * g.normal(size=200)
    fits = {
        "output": OutputPerturbationClassifier(epsilon=1.0, data_norm=1.0, random_state=0).fit(X, y),
        "lmg corrected": LargeMarginGaussianClassifier(epsilon=1.0, data_norm=1.0, random_state=0).fit(X, y),
        "lmg repaired": LargeMarginGaussianClassifier(mode="repaired", data_norm=1.0, random_state=0).fit(X, y),
        "naive bags": LabelDPBagRegressor("naive-lba", k=10, y_range=(-3, 3), random_state=0).fit(X, yr),
    }
    want = {"output": vocab.PROVED, "lmg corrected": vocab.PROVED, "lmg repaired": vocab.REFUTED}
    for name, est in fits.items():
        p = est.privacy_
        assert p.status in vocab.STATUSES, name
        assert not RETIRED.search(p.reason + p.summary()), name
        if name in want:
            assert p.status == want[name], name
    assert fits["naive bags"].privacy_.status == vocab.REFUTED


@pytest.mark.filterwarnings("ignore::dp_core.exceptions.DegenerateFitWarning")  # 20 bags: the status is the point
def test_label_dp_estimator_is_proved_but_weak_above_one_over_n():
    from dp_core.estimators import LabelDPBagRegressor

    g = np.random.default_rng(1)
    X = g.normal(size=(400, 2))
    y = X @ np.array([0.3, -0.1]) + 0.1 * g.normal(size=400)
    p = LabelDPBagRegressor(k=20, rho=0.5, delta=0.1, y_range=(-3, 3), random_state=0).fit(X, y).privacy_
    assert math.isfinite(p.epsilon)  # a proof at δ = 0.1 > 1/400: weak, and it says why
    assert p.status == vocab.PROVED_WEAK and "above 1/n" in p.reason
    q = LabelDPBagRegressor(k=20, rho=0.5, delta=1e-3, y_range=(-3, 3), random_state=0).fit(X, y).privacy_
    assert q.status in (vocab.PROVED, vocab.REFUTED) and "Weak" not in q.reason  # δ = 1e-3 < 1/400


def _regression_rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, 2))
    return X, X @ np.array([0.3, -0.1]) + 0.1 * g.normal(size=n)


def _estimator_settings():
    """Every estimator setting that a row of the audit table backs: (table mechanism, mode, fitted estimator)."""
    from dp_core.estimators import (
        InputPerturbationClassifier,
        InputPerturbationRegressor,
        L1ExponentialRegressor,
        LabelDPBagRegressor,
        LargeMarginGaussianClassifier,
    )

    X, y = _regression_rows(2000, 2)
    Xc = X / np.linalg.norm(X, axis=1).max()
    yc = (X[:, 0] > 0).astype(int)
    ip = {"data_norm": 1.0, "random_state": 0}  # the estimators run the σ_u mode COR2 (the mechanism's default)
    yield "input-perturbation", "COR2", InputPerturbationRegressor(y_bound=1.0, **ip).fit(Xc, np.clip(y, -1, 1))
    yield "input-perturbation", "COR2", InputPerturbationClassifier(**ip).fit(Xc, yc)
    for mech in ("noisy-wtd-llp", "wtd-lba", "weighted-llp", "naive-lba", "naive-llp"):
        yield "label-dp-bags", mech, LabelDPBagRegressor(mech, y_range=(-3, 3), random_state=0).fit(X, y)
    for mode in ("corrected", "repaired", "printed"):
        est = LargeMarginGaussianClassifier(mode=mode, data_norm=1.0, random_state=0)
        yield "large-margin-gaussian", mode, est.fit(Xc, yc)
    for conv in ("tight", "paper_proof", "paper_box"):
        est = L1ExponentialRegressor(1.0, convention=conv, random_state=0).fit(X[:300, :1], y[:300])
        assert est.sampler_["exact"]  # two fitted dimensions: the exact grid sampler the table row audits
        yield "l1-exponential", conv, est


@pytest.mark.filterwarnings("ignore::dp_core.exceptions.InvalidGuaranteeWarning")  # refuted settings on purpose
@pytest.mark.filterwarnings("ignore::dp_core.exceptions.DegenerateFitWarning")
def test_every_estimator_setting_has_the_audit_tables_status():
    from dp_core.audit.table import audit_row

    table = {(r["mechanism"], r["mode"]): row_status(r) for r in load_audit_table()}
    seen = {}
    for mech, mode, est in _estimator_settings():
        assert audit_row(mech, mode) is not None, (mech, mode)
        assert est.privacy_.status == table[(mech, mode)], (mech, mode, est.privacy_.status)
        seen[(mech, mode)] = est.privacy_.status
    # Every mode the table holds has its setting, but the paper's accounting of noisy-wtd-LLP (the
    # estimator uses the exact profile) and the large-margin ablation without the PSD check.
    skip = {("label-dp-bags", "noisy-wtd-llp-paper"), ("large-margin-gaussian", "repaired-psd-off")}
    skip |= {("input-perturbation", m) for m in ("ALG1", "CORR", "LOCAL")}  # the estimators run COR2 only
    mechs = {t for t, _ in seen}
    assert {k for k in table if k[0] in mechs} - skip == set(seen)
    assert seen[("l1-exponential", "paper_box")] == vocab.REFUTED  # issue 23: was "claimed by the paper"
    assert set(seen.values()) >= {vocab.PROVED, vocab.AUDITED, vocab.REFUTED}


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_objective_perturbation_is_proved_but_weak_above_one_over_n(kind):
    from dp_core.estimators import ObjectivePerturbationClassifier, ObjectivePerturbationRegressor

    X, y = _regression_rows(200, 3)
    if kind == "classifier":
        y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)  # three classes: one-vs-rest at δ/3 each
        make = lambda dl: ObjectivePerturbationClassifier(8.0, dl, data_norm=5.0, random_state=0)  # noqa: E731
    else:
        make = lambda dl: ObjectivePerturbationRegressor(1.0, dl, data_norm=5.0, y_bound=3.0, random_state=0)  # noqa: E731
    weak = make(0.01).fit(X, y).privacy_  # δ = 0.01 > 1/200
    assert weak.status == vocab.PROVED_WEAK and weak.delta == 0.01
    assert weak.reason.endswith(vocab.weak_reason(0.01, 200))
    strong = make(1.0 / 200).fit(X, y).privacy_  # δ = 1/n is not above it
    assert strong.status == vocab.PROVED and "1/n" not in strong.reason


@pytest.mark.filterwarnings("ignore::dp_core.exceptions.DegenerateFitWarning")  # 20 rows: the status is the point
def test_output_perturbation_is_never_weak():
    from dp_core.estimators import OutputPerturbationRegressor

    X, y = _regression_rows(20, 4)  # pure ε-DP: δ = 0 whatever n
    p = OutputPerturbationRegressor(1.0, 0.5, data_norm=5.0, y_bound=3.0, random_state=0).fit(X, y).privacy_
    assert (p.status, p.delta) == (vocab.PROVED, 0.0)


# ------------------------------------------------------------------ refuted methods never star


def test_the_refuted_method_is_the_most_accurate_somewhere(refuted_result):
    """The premise of the tests below (so they can fail): a refuted curve is on top at some ε."""
    refuted = refuted_methods(refuted_result.methods)
    assert refuted == {"lmg_repaired", "lmg_printed"}
    s = refuted_result.summary[refuted_result.summary["n_trials"] >= 1]
    tops = s.loc[s.groupby("epsilon")["utility_mean"].idxmax(), "method"]
    assert set(tops) & refuted


@pytest.mark.parametrize("y", ["utility", "excess_risk"])
def test_compare_figure_draws_refuted_methods_apart(refuted_result, y):
    fig = compare_figure(refuted_result, y=y, eps_marker=1.0)
    refuted = refuted_methods(refuted_result.methods)
    drawn = [t for t in fig.data if t.legendgroup in refuted]
    assert drawn
    for t in drawn:
        assert t.legend == "legend3"
        if getattr(t, "fill", None) != "toself":
            assert t.line.color == REFUTED_COLOR and t.line.dash == "dash"
    others = [t for t in fig.data if t.legendgroup not in refuted and getattr(t, "fill", None) != "toself"]
    assert others and all(t.legend != "legend3" and t.line.color != REFUTED_COLOR for t in others)
    title = fig.layout.legend3.title.text
    assert "NOT private" in title and title.strip("<b>/") == LEGEND_TITLES["legend3"]


def test_headlines_never_pick_a_refuted_method(refuted_result):
    refuted = refuted_methods(refuted_result.methods)
    for eps in refuted_result.spec.epsilons:
        h = headline(refuted_result, eps)
        assert h["best"] is not None and h["best"]["method"] not in refuted
        assert vocab.is_private(h["best"]["status"])
    quoted = private_summary(refuted_result)
    assert len(quoted) and not set(quoted["method"]) & refuted
    assert (quoted["n_trials"] >= 1).all()


def _refuted_negotiation(negotiate, **kw) -> dict:
    """accuracy ≥ 0.85 on breast_cancer among the large-margin modes (two refuted) and output perturbation."""
    return negotiate(
        load_dataset("breast_cancer"),
        ["accuracy=0.85"],
        mechanisms=("large_margin_gaussian", "output_perturbation"),
        n_trials=3,
        seed=0,
        eps_min=0.1,
        eps_max=10.0,
        n_points=3,
        **kw,
    )


def test_negotiation_headline_figure_and_sentences(refuted_result):
    from dp_core.negotiate import answer_sentences, negotiate
    from dp_core.negotiate import headline as negotiation_headline

    ans = _refuted_negotiation(negotiate, result=refuted_result)
    refuted = refuted_methods(ans["methods"])
    labels = [r["label"] for r in ans["methods"] if r["method"] in refuted]
    assert labels
    text = negotiation_headline(ans)
    assert text and not any(lab in text for lab in labels)
    sentences = answer_sentences(ans)
    for lab in labels:  # a refuted method is quoted only as a warning
        about = [x for x in sentences if f"{lab}:" in x]
        assert about and all(x.startswith(f"Warning, not private ({vocab.REFUTED}): {lab}:") for x in about), about
    fig = negotiation_figure(refuted_result, ans)
    marks = [t for t in fig.data if t.mode == "markers"]
    assert all(not any(lab in (t.hovertemplate or "") for lab in labels) for t in marks)


def test_a_point_without_a_successful_trial_is_not_drawn():
    s = pd.DataFrame(
        {
            "method": ["lmg_printed"] * 3,
            "epsilon": [0.1, 1.0, 10.0],
            "utility_mean": [0.5, 0.7, 0.98],
            "utility_lo": [0.4, 0.6, 0.97],
            "utility_hi": [0.6, 0.8, 0.99],
            "n_trials": [2, 1, 0],
        }
    )
    fig = line_ci_figure(s, x="epsilon", y="utility")
    line = next(t for t in fig.data if t.mode == "lines+markers")
    assert list(line.x) == [0.1, 1.0] and "(1-2 trials)" in line.name


def test_learning_curves_and_smallest_n_never_star_a_refuted_method():
    from dp_core.compare.figures import learning_curve_figure
    from dp_core.negotiate import answer_sentences, negotiate
    from dp_core.negotiate import headline as negotiation_headline

    ans = _refuted_negotiation(negotiate, solve_for="n")
    refuted = refuted_methods(ans["methods"])
    labels = [r["label"] for r in ans["methods"] if r["method"] in refuted]
    assert labels
    assert not any(lab in negotiation_headline(ans) for lab in labels)
    for lab in labels:
        about = [x for x in answer_sentences(ans) if f"{lab}:" in x]
        assert all(x.startswith(f"Warning, not private ({vocab.REFUTED})") for x in about), about
    fig = learning_curve_figure(ans)
    curves = [t for t in fig.data if t.legendgroup in refuted]
    assert curves and all(t.line.color == REFUTED_COLOR and t.line.dash == "dash" for t in curves)
    assert all(f"{vocab.REFUTED}: not private" in t.name for t in curves)
    marks = [t for t in fig.data if t.mode == "markers"]
    assert all(not any(lab in (t.hovertemplate or "") for lab in labels) for t in marks)


def test_large_margin_mode_charts_draw_the_refuted_modes_apart():
    from dp_core.mechanisms.large_margin_gaussian import figures as lmf

    rows = [
        {"method": m, "epsilon": e, "accuracy_mean": a, "accuracy_lo": a - 0.02, "accuracy_hi": a + 0.02, "n_trials": 3}
        for m, a in (("corrected", 0.7), ("repaired", 0.95), ("printed", 0.96))
        for e in (0.1, 1.0, 10.0)
    ]
    fig = lmf.accuracy_figure(pd.DataFrame(rows), chance=0.5)
    lines = {t.legendgroup: t for t in fig.data if t.mode == "lines+markers"}
    assert set(lmf.REFUTED_MODES) == {"printed", "repaired"} <= set(lines)
    for m in lmf.REFUTED_MODES:
        assert lines[m].line.color == REFUTED_COLOR and lines[m].line.dash == "dash"
    assert lines["corrected"].line.color != REFUTED_COLOR and lines["corrected"].line.dash is None


def _curves(rows: list[tuple[str, float]], x: str, y: str, xs=(16, 64, 256), col: str = "method") -> pd.DataFrame:
    """A summary as :func:`dp_core.figures.line_ci_figure` reads it: one curve per (key, level)."""
    return pd.DataFrame(
        [
            {col: key, x: v, f"{y}_mean": lvl * v, f"{y}_lo": 0.9 * lvl * v, f"{y}_hi": 1.1 * lvl * v, "n_trials": 3}
            for key, lvl in rows
            for v in xs
        ]
    )


def _assert_apart(fig, refuted_names: set[str]) -> None:
    """The lines named in ``refuted_names`` are grey, dashed, in the not-private group; no other line is."""
    lines = [t for t in fig.data if getattr(t, "fill", None) != "toself" and t.showlegend is not False]
    apart = {t.name for t in lines if t.legendgroup == REFUTED_GROUP}
    assert apart == refuted_names
    for t in lines:
        grey = t.legendgroup == REFUTED_GROUP
        assert (t.marker.color == REFUTED_COLOR) == grey, t.name
        if grey:
            assert t.legendgrouptitle.text.strip("<b>/") == REFUTED_LEGEND_TITLE
            if "lines" in t.mode:
                assert (t.line.color, t.line.dash) == (REFUTED_COLOR, "dash"), t.name


def _named(fig, starts: tuple[str, ...]) -> set[str]:
    """The names of the legend entries (bands excluded) that start with one of ``starts``."""
    return {t.name for t in fig.data if t.showlegend is not False and t.name.startswith(starts)}


def test_label_dp_charts_draw_the_refuted_variants_apart():
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    assert lbf.refuted_methods() == {"naive_lba", "naive_llp", "wtd_llp"}  # the table's no-noise variants
    rows = [("naive_lba", 0.01), ("naive_llp", 0.012), ("wtd_llp", 0.02), ("wtd_lba", 0.05), ("noisy_wtd_llp", 0.08)]
    fig = lbf.utility_figure(_curves([*rows, ("nonprivate", 0.005)], "k", "test_mse"), x="k")
    names = {t.legendgroup: t.name for t in fig.data if t.legendgroup and t.legendgroup != REFUTED_GROUP}
    assert set(names) == {"wtd_lba", "noisy_wtd_llp", "nonprivate"}
    _assert_apart(fig, _named(fig, ("Naive", "Weighted LLP")))
    pred = pd.DataFrame([{"method": m, "m": v, "predicted": 1.0 + 3.0 / v} for m, _ in rows[1:4] for v in (16, 64)])
    ratio = lbf.ratio_figure(_curves(rows, "m", "ratio"), pred)
    greys = _named(ratio, ("Naive", "Weighted LLP"))
    assert len(greys) == 5  # naive LBA, LLP and weighted LLP measured; naive LLP and weighted LLP predicted
    _assert_apart(ratio, greys)


def test_label_dp_first_screen_bar_of_a_refuted_variant_is_apart():
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    util = {"nonprivate": 0.1, "mse": 0.05, "mse_se": 0.01, "gaussian": 0.3, "trivial": 0.4}
    for method, refuted in (("wtd_llp", True), ("noisy_wtd_llp", False), (None, False)):
        bar = lbf.first_screen_figure(util, mechanism_label="With bags", method=method).data[0]
        assert (bar.marker.color[1] == REFUTED_COLOR) == refuted and (bar.marker.pattern.shape[1] == "/") == refuted
        assert (vocab.REFUTED in bar.x[1]) == refuted
        assert REFUTED_COLOR not in (bar.marker.color[0], *bar.marker.color[2:])  # only that bar


def test_l1_charts_draw_the_refuted_convention_apart():
    from dp_core.mechanisms.l1_exponential import figures as lf

    assert lf.refuted_conventions() == {"paper_box"}  # the printed temperature (audit table)
    pts = np.linspace(-1, 1, 21)[:, None]
    law = np.full(21, 1 / 21)
    dens = lf.density_figure(pts, {"tight": law, "paper proof": law, "paper box": law})  # the page's keys
    _assert_apart(dens, {t.name for t in dens.data if t.name.startswith("paper's printed")})
    grid = np.array([[a, b] for a in np.linspace(-0.5, 0.5, 5) for b in np.linspace(-0.5, 0.5, 5)])
    for conv, shown in (("paper_box", True), ("tight", False)):
        heat = lf.density_figure(grid, {conv: np.full(25, 1 / 25)})
        assert (vocab.REFUTED in heat.layout.title.text) == shown
    draws, lad = np.array([[0.1, 0.2], [0.2, 0.1]]), np.array([0.15, 0.15])
    box = lf.releases_figure(draws, lad, ["a", "b"], convention="paper_box")
    assert "Private" not in box.layout.title.text and vocab.REFUTED in box.layout.title.text
    _assert_apart(box, {"releases"})
    _assert_apart(lf.releases_figure(draws, lad, ["a", "b"], convention="tight"), set())


@pytest.mark.parametrize("conv", ["paper_box", "tight", "paper_proof"])
def test_l1_experiment_charts_follow_the_convention(conv):
    from dp_core.mechanisms.l1_exponential import figures as lf

    refuted = conv in lf.refuted_conventions()
    bound = pd.DataFrame({"epsilon": [0.5, 1.0, 2.0], "statistical": 0.1, "privacy": 0.2, "total": 0.3})
    eps_s = _curves([("em_l1", 0.01)], "epsilon", "excess_risk", xs=(0.5, 1.0, 2.0))
    rate_s = _curves([(1.5, 0.01), (2.0, 0.02)], "n", "excess_risk", xs=(100, 1000), col="theta")
    trunc_s = _curves([("Gaussian", 0.01), ("Student t", 0.02)], "c_iota", "excess_risk", xs=(0.5, 1.0), col="case")
    base_s = _curves([("em_l1", 0.01), ("em_clipped", 0.02), ("dp_gd", 0.03)], "tail", "excess_risk", xs=(2.0, 3.0))
    figs = {
        "epsilon": lf.epsilon_figure(eps_s, bound, eps_star=0.27, convention=conv),
        "rates": lf.rate_figure(rate_s, convention=conv),
        "truncation": lf.truncation_figure(trunc_s, convention=conv),
        "baseline": lf.baseline_figure(base_s, convention=conv),
    }
    for name, fig in figs.items():
        curves = {t.name for t in fig.data if t.showlegend is not False and "trials" in (t.name or "")}
        if name == "baseline":  # only the mechanism runs at the convention; its baselines do not
            curves = {c for c in curves if c.startswith("Exponential mechanism")}
        assert curves, name
        _assert_apart(fig, curves if refuted else set())


def test_every_compared_method_agrees_with_the_audit_row_behind_its_badge():
    """A method's status on Compare, in negotiation and in reports is the one its badge's audit row shows,
    except where the method is not the audited mode's exact procedure and its own status is weaker (the ℓ1
    MCMC sampler beside the exact sampler's proved row): there the method says so in its statement."""
    from dp_core.audit.table import audit_row
    from dp_core.compare import ADAPTERS

    strength = {s: i for i, s in enumerate(vocab.STATUSES)}
    checked = 0
    for adapter in ADAPTERS.values():
        for info in getattr(adapter, "methods", ()):
            if not info.audit:
                continue
            row = audit_row(*info.audit.split("/"))
            assert row is not None, info.audit
            checked += 1
            if info.status == row_status(row):
                continue
            # the only allowed difference: a method weaker than its row's proof, saying why
            assert row_status(row) == vocab.PROVED and strength[info.status] > strength[vocab.PROVED], (
                info.key,
                info.status,
                row_status(row),
            )
            assert "sampler" in info.statement or "approximate" in info.statement, info.statement
    assert checked >= 8
