"""The stored audit table: it covers every mode, agrees with the documented claims, and is reproduced exactly."""

from __future__ import annotations

import json
import math

import pytest

from dp_core.audit import MECHANISMS, VERDICT_CONSISTENT, VERDICT_VIOLATION
from dp_core.audit.table import (
    AUDIT_TABLE_PATH,
    ROW_SPECS,
    STATUS_AUDITED,
    STATUS_PROVED,
    STATUS_REFUTED,
    audit_row,
    compute_audit_table,
    load_audit_table,
    row_key,
    row_status,
    run_row,
    write_audit_table,
)
from dp_core.cli import main as cli_main

COLUMNS = (
    "mechanism",
    "mode",
    "eps_claimed",
    "delta",
    "eps_lower",
    "confidence",
    "runs",
    "verdict",
    "event",
    "seed",
    "date",
    "engine_version",
    "status",
    "claim",
    "pair",
    "statistic",
    "fpr_source",
)

#: Numbers that must be reproduced exactly by a re-run with the same seeds.
REPRODUCED = (
    "eps_claimed",
    "delta",
    "eps_lower",
    "eps_estimate",
    "tpr",
    "fpr",
    "threshold",
    "runs",
    "verdict",
    "event",
    "status",
)

#: Cheap rows re-run by the quick reproducibility test (one per mechanism family, violations and passes).
QUICK_KEYS = (
    "l1-exponential:paper_box",
    "l1-exponential:tight",
    "label-dp-bags:naive-llp",
    "input-perturbation:LOCAL",
    "laplace:standard",
    "large-margin-gaussian:printed",
)


@pytest.fixture(scope="module")
def stored():
    return load_audit_table()


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        return a == b or (math.isfinite(a) and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300))
    return a == b


def test_stored_table_covers_every_mode_of_every_mechanism(stored):
    every = {row_key(name, mode) for name, m in MECHANISMS.items() for mode in m.modes}
    assert {s.key for s in ROW_SPECS} == every
    keys = [row_key(r["mechanism"], r["mode"]) for r in stored]
    assert len(keys) == len(set(keys))
    assert set(keys) == every


def test_stored_rows_have_every_column_and_sane_values(stored):
    for r in stored:
        missing = [c for c in COLUMNS if c not in r]
        assert not missing, (r["mechanism"], r["mode"], missing)
        assert 0.0 <= r["eps_lower"] and 0.0 < r["confidence"] < 1.0 and r["runs"] <= 100_000
        assert r["verdict"] in (VERDICT_CONSISTENT, VERDICT_VIOLATION)
        assert (r["verdict"] == VERDICT_VIOLATION) == (r["eps_lower"] > r["eps_claimed"])
        assert r["status"] == row_status(r)
        assert r["event"]


def test_stored_table_finds_every_proved_violation_and_passes_every_proved_mode(stored):
    by_key = {row_key(r["mechanism"], r["mode"]): r for r in stored}
    for spec in ROW_SPECS:
        r = by_key[spec.key]
        if spec.expected == "violation":
            assert r["verdict"] == VERDICT_VIOLATION and r["status"] == STATUS_REFUTED, spec.key
        elif spec.expected == "consistent":
            assert r["verdict"] == VERDICT_CONSISTENT and r["status"] == STATUS_PROVED, spec.key
    # the headline: the printed large-margin mode, at the claim the paper makes (eps' = eps + k)
    p = by_key["large-margin-gaussian:printed"]
    assert p["eps_lower"] > p["eps_claimed"] > 1.0


def test_row_status_labels():
    assert row_status({"verdict": VERDICT_VIOLATION, "claim": "proof"}) == STATUS_REFUTED
    assert row_status({"verdict": VERDICT_CONSISTENT, "claim": "paper"}) == STATUS_AUDITED
    assert row_status({"verdict": VERDICT_CONSISTENT, "claim": "none"}) == STATUS_AUDITED
    assert row_status({"verdict": VERDICT_CONSISTENT, "claim": "proof"}) == STATUS_PROVED


def test_audit_row_lookup(stored):
    r = audit_row("large-margin-gaussian", "printed")
    assert r is not None and r["mode"] == "printed"
    assert audit_row("large-margin-gaussian", "no-such-mode") is None


@pytest.mark.parametrize("key", QUICK_KEYS)
def test_quick_rerun_reproduces_the_stored_row(stored, key):
    old = next(r for r in stored if row_key(r["mechanism"], r["mode"]) == key)
    spec = next(s for s in ROW_SPECS if s.key == key)
    new = run_row(spec)
    bad = [c for c in REPRODUCED if not _same(old[c], new[c])]
    assert not bad, {c: (old[c], new[c]) for c in bad}


def test_write_merges_rows_and_keeps_order(tmp_path, stored):
    path = tmp_path / "t.json"
    write_audit_table(stored[2:], path)
    write_audit_table(stored[:2], path)
    assert [row_key(r["mechanism"], r["mode"]) for r in load_audit_table(path)] == [
        row_key(r["mechanism"], r["mode"]) for r in stored
    ]
    assert json.loads(path.read_text())["refresh"].startswith("python -m dp_core audit all")


def test_cli_audit_all_only_one_row(capsys, stored):
    assert cli_main(["audit", "all", "--quick", "--only", "l1-exponential:paper_box"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] == "" and len(out["rows"]) == 1
    old = next(r for r in stored if r["mode"] == "paper_box")
    assert _same(out["rows"][0]["eps_lower"], old["eps_lower"])
    assert cli_main(["audit", "all", "--only", "nope:nope"]) == 2


@pytest.mark.slow
def test_full_rerun_reproduces_the_whole_stored_table(stored):
    new = compute_audit_table()
    assert len(new) == len(stored)
    for old, fresh in zip(stored, new):
        bad = [c for c in REPRODUCED if not _same(old[c], fresh[c])]
        assert not bad, (old["mechanism"], old["mode"], {c: (old[c], fresh[c]) for c in bad})
    assert AUDIT_TABLE_PATH.exists()


def test_full_size_runs_are_ten_times_the_quick_ones_capped():
    from dp_core.audit.table import row_runs

    for spec in ROW_SPECS:
        full = row_runs(spec, quick=False)
        assert row_runs(spec, quick=True) == spec.runs <= full <= max(spec.runs, 100_000)
        assert full == max(spec.runs, min(10 * spec.runs, 100_000, MECHANISMS[spec.mechanism].max_runs))


def test_cli_refuses_to_store_a_non_quick_table(capsys):
    assert cli_main(["audit", "all", "--write", "--only", "laplace:standard"]) == 2
    assert "--quick" in capsys.readouterr().err
