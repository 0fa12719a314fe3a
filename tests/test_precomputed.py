"""The shipped demo results (:mod:`dp_core.precomputed`): exact round trips, stale entries ignored, shipped
entries equal to a fresh computation, and the same JSON from the CLI with and without the store."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _helpers import run_main

from dp_core import precomputed as pc
from dp_core import precomputed_runs as runs
from dp_core.compare import ADAPTERS, default_epsilons, make_spec, run_compare
from dp_core.compare.engine import LazyState
from dp_core.data import DATASETS, load_dataset

REGENERATE = "python -m dp_core precompute"
#: a run small enough to compute in a test (not a stored default: 3 trials)
SMALL = {"epsilons": (0.1, 1.0, 10.0), "delta": 1e-5, "n_trials": 3, "seed": 0}


@pytest.fixture
def fresh_cache():
    pc.clear_cache()
    yield
    pc.clear_cache()


def _forbid_sweeps(monkeypatch, keys):
    """Make every sweep of these adapters fail: a result obtained afterwards came from the store."""

    def boom(*args, **kwargs):
        raise AssertionError("the sweep ran although the store holds this run")

    for k in keys:
        monkeypatch.setattr(ADAPTERS[k], "sweep", boom)


def _assert_same_result(a, b):
    pd.testing.assert_frame_equal(a.trials, b.trials, check_exact=True)
    pd.testing.assert_frame_equal(a.summary, b.summary, check_exact=True)
    pd.testing.assert_frame_equal(a.bounds, b.bounds, check_exact=True)
    assert a.methods == b.methods
    assert (a.notes, a.leaks, a.skipped) == (b.notes, b.leaks, b.skipped)
    assert list(a.states) == list(b.states)
    assert json.dumps(a.nonprivate) == json.dumps(b.nonprivate)  # nan-safe exact comparison


def test_values_and_frames_round_trip_bit_for_bit():
    vals = [0.1 + 0.2, -0.0, math.inf, 1e-300, 5e-324, 2**62, True, None, "ε ≥ 1", ("a", 1), {"k": [1.5, (2,)]}]
    back = pc._decode_value(json.loads(json.dumps(pc._encode_value(vals))))
    assert back[:7] == vals[:7] and math.copysign(1, back[1]) == -1.0
    assert back[7:] == vals[7:] and isinstance(back[9], tuple) and isinstance(back[10]["k"][1], tuple)
    nan = pc._decode_value(json.loads(json.dumps(pc._encode_value(math.nan))))
    assert math.isnan(nan)
    df = pd.DataFrame(
        {"method": ["a", "b", "a"], "trial": np.arange(3), "u": [np.nan, 1 / 3, -np.inf], "eps": [0.1, 1.0, 10.0]}
    )
    back = pc._decode_frame(json.loads(json.dumps(pc._encode_frame(df))))
    pd.testing.assert_frame_equal(back, df, check_exact=True)
    assert list(back.dtypes.astype(str)) == list(df.dtypes.astype(str))


def test_store_round_trip_answers_without_running_the_mechanisms(tmp_path, monkeypatch, fresh_cache):
    ds = load_dataset("iris")
    spec = make_spec(**SMALL)
    with pc.disabled(), pc.recording() as rec:
        computed = run_compare(ds, spec)
    assert {meta["adapter"] for _, meta, _ in rec.values()} == set(computed.states) | set(computed.skipped)
    pc.write_store({"iris": {k: (meta, e) for k, (_, meta, e) in rec.items()}}, folder=tmp_path)
    _forbid_sweeps(monkeypatch, computed.states)
    with pc.store_folder(tmp_path):
        stored = run_compare(ds, spec)
    _assert_same_result(stored, computed)
    # the prepared states are recomputed on first use, and pickle (the page caches results); what a sweep adds
    # to a state (large-margin's non-private utility, the l1 sampler's runs) reaches the result via the store
    key = next(iter(stored.states))
    lazy = pickle.loads(pickle.dumps(stored.states[key]))
    assert isinstance(lazy, LazyState)
    real = ADAPTERS[key].prepare(ds, spec)  # what a state is before a sweep fills in its extras
    for f in dataclasses.fields(real):
        got, want = getattr(lazy, f.name), getattr(real, f.name)
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want)
        elif isinstance(want, (int, float, str, tuple)):
            assert got == want or (got != got and want != want), f.name
    # another spec (one more trial) is not in the store: computed, so the forbidden sweep runs
    with pc.store_folder(tmp_path), pytest.raises(AssertionError, match="the sweep ran"):
        run_compare(ds, make_spec(**{**SMALL, "n_trials": 4}))


def test_stale_engine_hash_is_ignored_and_reported(tmp_path, monkeypatch, fresh_cache):
    ds = load_dataset("iris")
    spec = make_spec(**SMALL)
    with pc.disabled(), pc.recording() as rec:
        computed = run_compare(ds, spec)
    pc.write_store({"iris": {k: (meta, e) for k, (_, meta, e) in rec.items()}}, folder=tmp_path)
    assert pc.check(["iris"], folder=tmp_path) == []
    monkeypatch.setattr(pc, "engine_hash", lambda: "0123456789abcdef")  # the engine's code changed
    pc.clear_cache()
    assert pc.lookup(ds, next(iter(computed.states)), spec, folder=tmp_path) is None
    stale = pc.check(["iris"], folder=tmp_path)
    assert len(stale) == 1 and "iris" in stale[0] and "0123456789abcdef" in stale[0]
    with pc.store_folder(tmp_path):
        again = run_compare(ds, spec)  # computed as before: same numbers
    _assert_same_result(again, computed)


def test_a_new_library_release_makes_a_file_stale_and_says_so(tmp_path, monkeypatch, fresh_cache):
    ds = load_dataset("iris")
    spec = make_spec(**SMALL)
    with pc.disabled(), pc.recording() as rec:
        run_compare(ds, spec)
    pc.write_store({"iris": {k: (meta, e) for k, (_, meta, e) in rec.items()}}, folder=tmp_path)
    assert pc.stale_by_libraries_only(["iris"], folder=tmp_path) == {}
    newer = {**pc.library_versions(), "numpy": "99.0"}
    monkeypatch.setattr(pc, "library_versions", lambda: newer)
    pc.clear_cache()
    assert pc.check(["iris"], folder=tmp_path)  # unused: the numbers may differ under another numpy
    assert pc.lookup(ds, next(iter(rec.values()))[1]["adapter"], spec, folder=tmp_path) is None
    diff = pc.stale_by_libraries_only(["iris"], folder=tmp_path)
    assert list(diff) == ["iris"] and diff["iris"]["numpy"][1] == "99.0"
    monkeypatch.setattr(pc, "code_hash", lambda: "fedcba9876543210")  # the code changed too: not libraries only
    assert pc.stale_by_libraries_only(["iris"], folder=tmp_path) == {}


def test_switched_off_by_the_environment(tmp_path, monkeypatch, fresh_cache):
    ds = load_dataset("iris")
    spec = make_spec(**SMALL)
    with pc.disabled(), pc.recording() as rec:
        run_compare(ds, spec)
    pc.write_store({"iris": {k: (meta, e) for k, (_, meta, e) in rec.items()}}, folder=tmp_path)
    key = next(iter(rec.values()))[1]["adapter"]
    assert pc.lookup(ds, key, spec, folder=tmp_path) is not None
    monkeypatch.setenv(pc.ENV_DISABLE, "1")
    assert not pc.enabled() and pc.lookup(ds, key, spec, folder=tmp_path) is None


def test_no_shipped_entry_is_stale():
    stale = pc.check()
    by_libs = pc.stale_by_libraries_only()
    if stale and len(by_libs) == len(stale):  # this code, other installed library versions: not a code defect
        pytest.skip(f"the store was written under other library versions ({by_libs}); regenerate: {REGENERATE}")
    assert not stale, (
        "the shipped demo results are stale (the engine changed since they were written); regenerate them with "
        f"`{REGENERATE} --workers 2` and commit dp_core/precomputed_data/: " + "; ".join(stale)
    )


def _shipped_equals_fresh(name: str) -> None:
    if name in pc.stale_by_libraries_only([name]):
        pytest.skip(f"{name}: stored under other library versions; nothing of it is used until regenerated")
    shipped = pc._file_entries(name)
    assert shipped, f"no current shipped entries for {name}; run `{REGENERATE}`"
    fresh = runs.runs_of(name)
    assert set(fresh) == set(shipped)
    for key, (meta, entry) in fresh.items():
        expect = json.dumps(pc._encode_entry(entry), sort_keys=True)
        got = json.dumps(shipped[key]["entry"], sort_keys=True)
        assert got == expect, (name, meta)


def test_a_shipped_dataset_equals_a_fresh_computation_exactly():
    _shipped_equals_fresh("iris")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in DATASETS if n != "iris"])
def test_every_shipped_dataset_equals_a_fresh_computation(name):
    _shipped_equals_fresh(name)


def test_shipped_store_is_compact():
    files = sorted(pc.STORE_DIR.glob("*.json.xz"))
    assert {f.name.removesuffix(".json.xz") for f in files} == set(DATASETS)
    assert sum(f.stat().st_size for f in files) <= 3_000_000


def test_default_settings_match_the_cli_and_the_app():
    from dp_core.cli import build_parser, discover_commands
    from ui.constants import DELTA_DEFAULT, EPS_DEFAULT, SEED_DEFAULT, TVALUE_DEFAULTS, URL_PARAMS

    parser = build_parser(discover_commands(["compare"]))
    sub = parser._subparsers._group_actions[0].choices
    grids = {label: (lo, hi, n, t) for label, lo, hi, n, t, _ in runs.DEMO_RUNS}
    for verb, label in (("compare", "cli compare"), ("negotiate", "cli negotiate")):
        d = sub[verb].parse_args(["--dataset", "iris"] + (["--target", "accuracy=0.9"] if verb == "negotiate" else []))
        assert (d.eps_min, d.eps_max, d.n_eps, d.trials) == grids[label]
        assert (d.seed, d.delta) == (runs.DEMO_SEED, runs.DEMO_DELTA)
        if verb == "negotiate":
            assert d.epsilon == runs.DEMO_EPSILON
    app = tuple(URL_PARAMS[k].default for k in ("eps_min", "eps_max", "n_eps", "trials"))
    assert app == grids["app"]
    assert (SEED_DEFAULT, DELTA_DEFAULT, EPS_DEFAULT) == (runs.DEMO_SEED, runs.DEMO_DELTA, runs.DEMO_EPSILON)
    assert runs.default_target("regression") == f"r2={TVALUE_DEFAULTS['r2']:g}"
    assert runs.default_target("binary") == f"accuracy={TVALUE_DEFAULTS['accuracy']:g}"


@pytest.mark.parametrize(
    "argv",
    [
        ["negotiate", "--dataset", "iris", "--target", "accuracy=0.9"],
        ["negotiate", "--dataset", "iris", "--target", "accuracy=0.9", "--rows-factor", "2"],
        ["negotiate", "--dataset", "iris", "--target", "accuracy=0.9", "--solve-for", "n"],
        ["compare", "--dataset", "iris"],
    ],
)
def test_cli_gives_the_same_json_with_and_without_the_store(capsys, monkeypatch, argv):
    code1, computed = run_main(capsys, *argv, "--no-precomputed")
    _forbid_sweeps(monkeypatch, ["large_margin_gaussian", "output_perturbation"])  # iris's mechanisms
    code2, stored = run_main(capsys, *argv)
    assert code1 == code2 == 0, (computed.err, stored.err)
    assert stored.out == computed.out
    assert json.loads(stored.out)["dataset"] == "iris"


def test_learning_curve_grid_is_stored_for_the_default_negotiation(monkeypatch):
    """The subsample runs behind "smallest n" and "twice the rows" come from the store too."""
    from dp_core.negotiate import negotiate

    ds = load_dataset("breast_cancer")
    grid = default_epsilons(0.01, 20.0, 10)
    assert run_compare(ds, make_spec(epsilons=grid, delta=1e-5, n_trials=50, seed=0)).summary.shape[0] > 0
    _forbid_sweeps(monkeypatch, [k for k in ADAPTERS if ADAPTERS[k].applies_to(ds.task)])
    kw = {"n_trials": 50, "seed": 0, "eps_min": 0.01, "eps_max": 20.0, "n_points": 10}
    twice = negotiate(ds, ["accuracy=0.9"], rows_factor=2.0, **kw)
    by_n = negotiate(ds, ["accuracy=0.9"], solve_for="n", **kw)
    assert twice["learning_curve"] and by_n["learning_curve"]
    assert len({r["n_rows"] for r in by_n["learning_curve"]}) >= 3


def test_precompute_command_checks_and_refuses_bad_input():
    """``precompute --check`` answers from the hashes alone (writes nothing); a bad dataset name exits 2."""
    import subprocess
    import sys

    folder = Path(pc.__file__).parent / "precomputed_data"
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    ok = subprocess.run(
        [sys.executable, "-m", "dp_core", "precompute", "--check", "--datasets", "iris"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    stale = bool(pc.check(["iris"]))
    assert ok.returncode == (1 if stale else 0), ok.stderr
    if not stale:
        assert json.loads(ok.stdout)["stale"] == []
    bad = subprocess.run(
        [sys.executable, "-m", "dp_core", "precompute", "--check", "--datasets", "nope"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope" in bad.stderr
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
