"""The brief printed by Chromium: exactly one A4 page, and every number on it equals the CLI's."""

from __future__ import annotations

import json
import re

from dp_core.audit.table import load_audit_table
from dp_core.cli import main
from dp_core.data import load_dataset

CONFIG = {
    "dataset": "diabetes",
    "trials": 4,
    "seed": 3,
    "eps": 1.0,
    "delta": 1e-5,
    "page": "pages/compare.py",
    "params": {"n_eps": 3},
    "decisions": [
        {"who": "Data owner", "epsilon": 0.5, "chosen": False, "date": "2026-11-20", "note": "as private as we can"},
        {"who": "Analyst <lead>", "epsilon": 2.0, "chosen": False, "date": "2026-11-21", "note": "R² too low below"},
        {"who": "Both", "epsilon": 1.0, "chosen": True, "date": "2026-11-28", "note": "compromise & sign-off"},
    ],
}
#: Words of the page that hold digits but are fixed text, not numbers of the run.
FIXED = ("95% interval", "1% false positives", "0.1%", "800-226")


def _cli(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _expected(capsys, tmp_path) -> tuple[dict, dict]:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(CONFIG), encoding="utf-8")
    brief = _cli(capsys, ["brief", "--config", str(cfg), "--out", str(tmp_path / "brief_pdf_test.html")])
    at = brief["epsilon_shown"]
    compare = _cli(capsys, ["compare", "--dataset", "diabetes", "--trials", "4", "--seed", "3", "--n-eps", "3"])
    risk = _cli(capsys, ["risk", "approx", "--eps", "1.0", "--delta", "1e-05"])
    values = {"at": at, "dataset.n": load_dataset("diabetes").n, "risk.mu_fit": risk["mu_fit"]}
    values |= {f"config.{k}": v for k, v in CONFIG.items() if isinstance(v, (int, float))}
    values |= {f"decisions.{i}.epsilon": d["epsilon"] for i, d in enumerate(CONFIG["decisions"])}
    values |= {"risk.mia_advantage": risk["mia_advantage"]}
    values |= {f"risk.tpr_at_fpr.{k}": v for k, v in risk["tpr_at_fpr"].items()}
    for row in compare["summary"]:
        if row["epsilon"] == at:
            values |= {f"compare.{row['method']}.{k}": v for k, v in row.items() if isinstance(v, float)}
    for row in load_audit_table():
        key = f"audit.{row['mechanism']}/{row['mode']}"
        values |= {f"{key}.eps_lower": row["eps_lower"], f"{key}.eps_claimed": row["eps_claimed"]}
    return brief, values


def test_brief_prints_on_one_page_with_the_cli_numbers(browser, capsys, tmp_path):
    brief, values = _expected(capsys, tmp_path)
    page = browser.new_page()
    try:
        page.goto((tmp_path / "brief_pdf_test.html").as_uri())
        pdf = page.pdf(format="A4")
        spans = page.eval_on_selector_all("span.n", "els => els.map(e => [e.dataset.cli, e.textContent])")
        # the label and the notes are the brief's own sentences: with the tagged numbers removed, no digit is left
        text = page.evaluate(
            "() => [...document.querySelectorAll('h1, .tier, p.small, th')].map(e => {"
            " const c = e.cloneNode(true); c.querySelectorAll('span.n').forEach(s => s.remove());"
            " return c.textContent; }).join(' ')"
        )
    finally:
        page.close()
    (tmp_path / "brief_pdf_test.pdf").write_bytes(pdf)
    assert len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf)) == 1
    assert len(spans) >= 20
    for key, shown in spans:
        assert shown == f"{float(values[key]):.4g}", (key, shown, values[key])
    for fixed in FIXED:
        text = text.replace(fixed, " ")
    assert "Unit of privacy" in text and "Extrapolated" in text
    assert not re.search(r"\d", text), text  # no number outside the tagged ones
