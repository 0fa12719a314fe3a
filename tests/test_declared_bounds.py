"""Public bounds an uploader declares: the text form, the Dataset that carries them, clipping, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _helpers import run_main
from hypothesis import given, settings
from hypothesis import strategies as st

from dp_core import data as dpdata
from dp_core.data import public_bounds
from dp_core.mechanisms.input_perturbation.experiment import prepare_data
from dp_core.mechanisms.label_dp_bags import public_label_range
from dp_core.mechanisms.output_perturbation.baselines import prepare_compare_data
from dp_core.preprocessing import (
    DECLARED_SOURCE,
    PublicBounds,
    bounds_from_data,
    bounds_from_records,
    check_declared_bounds,
    clipped_counts,
    format_bounds,
    parse_bounds,
    preprocess_rows,
    rounded_bounds,
)

NAMES = ("age", "score", "delta_t", "hours")


def _csv_bytes(n: int = 100, seed: int = 1) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [10, 2, 1, 5] + [40, 5, 0, 20]
    y = (X[:, 0] + 3 * X[:, 1] + rng.normal(size=n) * 5 > 55).astype(int)
    rows = ["age,score,delta_t,hours,label"] + [
        ",".join(f"{v:.3f}" for v in x) + f",{int(t)}" for x, t in zip(X, y, strict=True)
    ]
    return ("\n".join(rows) + "\n").encode()


@pytest.fixture(scope="module")
def upload():
    return dpdata.table_to_dataset(dpdata.parse_csv(_csv_bytes(), file_name="up.csv"), target="label")


@pytest.fixture
def csv_path(tmp_path):
    p = tmp_path / "up.csv"
    p.write_bytes(_csv_bytes())
    return str(p)


DECLARED = "0:100,-5:15,-5:5,0:50"

# ------------------------------------------------------------------ the text form

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@st.composite
def bounds_st(draw):
    d = draw(st.integers(1, 6))
    lo, hi, centre, scale = [], [], [], []
    for _ in range(d):
        a = draw(finite)
        w = draw(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False))
        b = a + w
        if not b > a:
            b = math.nextafter(a, math.inf)
        lo.append(a)
        hi.append(b)
        if draw(st.booleans()):
            centre.append(min(max(draw(st.floats(min_value=a, max_value=b)), a), b))
            scale.append(draw(st.floats(min_value=1e-9, max_value=1e9)))
        else:
            centre.append((a + b) / 2.0)
            scale.append((b - a) / 2.0)
    return PublicBounds(tuple(lo), tuple(hi), tuple(centre), tuple(scale), source=DECLARED_SOURCE)


@settings(max_examples=200, deadline=None)
@given(bounds_st())
def test_text_form_round_trips_exactly(b):
    text = format_bounds(b)
    back = parse_bounds(text, [f"c{j}" for j in range(b.d)])
    assert (back.lo, back.hi, back.centre, back.scale) == (b.lo, b.hi, b.centre, b.scale)
    assert back.data_derived is False and back.source == DECLARED_SOURCE
    assert format_bounds(back) == text


def test_text_form_is_short_when_centre_and_scale_are_the_midpoint():
    b = parse_bounds(" 0:90 , -1:1:0.5:0.25 ", ["age", "score"])
    assert b.centre == (45.0, 0.5) and b.scale == (45.0, 0.25)
    assert format_bounds(b) == "0:90,-1:1:0.5:0.25"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("0:1,0:1", "4 features (age, score, delta_t, hours), got 2"),
        ("0:1,0:1,0:1,0:1,0:1", "got 5"),
        ("0:1,5:3,0:1,0:1", "column 'score': lo must be below hi, got [5, 3]"),
        ("0:1,0:1,2:2,0:1", "column 'delta_t': lo must be below hi"),
        ("0:1,0:1,0:1,0:x", "column 'hours': hi 'x' is not a number"),
        ("0:1,0:inf,0:1,0:1", "column 'score': hi must be finite"),
        ("0:1,nan:1,0:1,0:1", "column 'score': lo must be finite"),
        ("0:1:2:1,0:1,0:1,0:1", "column 'age': the centre must lie in [lo, hi] = [0, 1], got 2"),
        ("0:1:0.5:0,0:1,0:1,0:1", "column 'age': the scale must be > 0"),
        ("0:1:0.5,0:1,0:1,0:1", "column 'age': expected lo:hi or lo:hi:centre:scale"),
        ("0:1,,0:1,0:1", "separated by commas"),
        ("", "separated by commas"),
    ],
)
def test_text_form_errors_name_the_column(text, needle):
    with pytest.raises(ValueError) as err:
        parse_bounds(text, NAMES)
    assert needle in str(err.value)


def test_text_form_refuses_huge_text_and_non_text():
    with pytest.raises(ValueError, match="at most 20,000 characters"):
        parse_bounds("0:1," * 10_000)
    with pytest.raises(TypeError, match="bounds must be text"):
        parse_bounds(3)


def test_records_match_columns_by_name():
    b = bounds_from_records(
        [
            {"column": "hours", "lo": "0", "hi": "50"},
            {"column": "age", "lo": 0, "hi": 100, "centre": 40, "scale": 10},
            {"column": "score", "lo": -5, "hi": 15, "centre": "", "scale": None},
            {"column": "delta_t", "lo": -5, "hi": 5},
        ],
        NAMES,
    )
    assert b.lo == (0.0, -5.0, -5.0, 0.0) and b.centre == (40.0, 5.0, 0.0, 25.0) and b.scale[0] == 10.0
    with pytest.raises(ValueError, match="unknown column 'weight'"):
        bounds_from_records([{"column": "weight", "lo": 0, "hi": 1}], NAMES)
    with pytest.raises(ValueError, match="missing for column\\(s\\) 'score', 'delta_t', 'hours'"):
        bounds_from_records([{"column": "age", "lo": 0, "hi": 1}], NAMES)
    with pytest.raises(ValueError, match="column 'age': hi is missing"):
        bounds_from_records([{"column": "age", "lo": 0, "hi": float("nan")}], ["age"])
    with pytest.raises(ValueError, match="give column 'age' twice"):
        bounds_from_records([{"column": "age", "lo": 0, "hi": 1}] * 2, ["age"])


def test_declared_bounds_must_not_be_data_derived():
    with pytest.raises(ValueError, match="must not be data_derived"):
        check_declared_bounds(bounds_from_data(np.array([[0.0], [1.0]])))
    with pytest.raises(TypeError, match="PublicBounds"):
        check_declared_bounds("0:1")


def test_rounded_bounds_contain_the_original_range():
    b = bounds_from_data(np.random.default_rng(0).normal(size=(50, 3)) * [1e-5, 1e6, 3])
    r = rounded_bounds(b)
    for a, ra, h, rh, c, rc in zip(b.lo, r.lo, b.hi, r.hi, b.centre, r.centre, strict=True):
        assert ra <= a and rh >= h and ra <= rc <= rh
        assert rc == pytest.approx(c, rel=1e-3)
        assert len(repr(ra).replace("-", "").replace(".", "").rstrip("0").lstrip("0")) <= 8
    assert r.data_derived and r.source == b.source


# ------------------------------------------------------------------ the dataset and its fingerprint


def test_dataset_carries_declared_bounds_and_its_fingerprint_keys_on_them(upload):
    assert public_bounds(upload).data_derived
    b1 = parse_bounds(DECLARED, upload.feature_names)
    b2 = parse_bounds("0:100,-5:15,-5:5,0:60", upload.feature_names)
    d1, d2 = upload.with_public_bounds(b1), upload.with_public_bounds(b2)
    assert public_bounds(d1) is b1 and not public_bounds(d1).data_derived and public_bounds(d1).leak_warning == ""
    assert len({upload.fingerprint, d1.fingerprint, d2.fingerprint}) == 3
    assert upload.with_public_bounds(parse_bounds(DECLARED, NAMES)).fingerprint == d1.fingerprint  # same bounds
    assert d1.with_public_bounds(b2).fingerprint == d2.fingerprint  # replacing, not stacking
    assert (
        d1.with_public_bounds(None).fingerprint == upload.fingerprint
        and d1.with_public_bounds(None).declared_bounds is None
    )
    assert d1.name == upload.name and np.shares_memory(d1.X, upload.X)
    with pytest.raises(ValueError, match="4 features .*got 2"):
        upload.with_public_bounds(PublicBounds((0.0, 0.0), (1.0, 1.0)))
    with pytest.raises(ValueError, match="column 'age': the centre must lie"):
        upload.with_public_bounds(PublicBounds((0.0,) * 4, (1.0,) * 4, (2.0, 0.5, 0.5, 0.5), (1.0,) * 4))


def test_declared_bounds_override_a_demo_datasets_documented_ones():
    ds = dpdata.load_dataset("iris")
    b = parse_bounds("4:8,2:5,1:7,0:3", ds.feature_names)
    assert public_bounds(ds).source.startswith("documented") and public_bounds(ds.with_public_bounds(b)) is b


def test_clipping_to_declared_ranges_is_counted_and_applied(upload):
    X = np.asarray(upload.X)
    b = parse_bounds("30:50,-5:15,-5:5,0:50", NAMES)
    counts = clipped_counts(X, b)
    assert counts == (int(((X[:, 0] < 30) | (X[:, 0] > 50)).sum()), 0, 0, 0) and counts[0] > 0
    # clipping first: values beyond the range map to the same row as the range's end
    row = np.array([[60.0, 5.0, 0.0, 25.0], [50.0, 5.0, 0.0, 25.0]])
    z = preprocess_rows(row, b, "scale")
    assert np.allclose(z[0], z[1])
    with pytest.raises(ValueError, match="shape \\(n, 4\\)"):
        clipped_counts(X[:, :2], b)


def test_declared_bounds_remove_the_leak_notes_of_the_preprocessing(upload):
    d = upload.with_public_bounds(parse_bounds(DECLARED, upload.feature_names))
    leaky = prepare_data(upload, "logistic_taylor", seed=0)
    clean = prepare_data(d, "logistic_taylor", seed=0)
    assert any("computed from the uploaded records" in lk for lk in leaky.leaks)
    assert not any("computed from the uploaded records" in lk for lk in clean.leaks)
    assert not np.allclose(leaky.X_train, clean.X_train)  # the declared constants are used
    # the output-perturbation baseline of the comparison too
    assert prepare_compare_data(upload).leaks and prepare_compare_data(d).leaks == ()
    assert np.all(np.linalg.norm(prepare_compare_data(d).X_train, axis=1) <= 1 + 1e-12)


def test_a_binary_upload_has_the_public_label_range_0_1(upload):
    assert upload.task == "binary" and public_label_range(upload)[:2] == (0.0, 1.0)


# ------------------------------------------------------------------ the CLI


LOGISTIC = ("--model", "logistic")


def _json(out):
    return json.loads(out.out)


def test_cli_bounds_remove_the_leak_note(capsys, csv_path):
    base = ("simulate", "input-perturbation", "--dataset", csv_path, "--eps", "1", "--trials", "3", *LOGISTIC)
    code, out = run_main(capsys, *base)
    assert code == 0 and any("computed from the uploaded records" in lk for lk in _json(out)["leak_warnings"])
    code, out = run_main(capsys, *base, "--bounds", DECLARED)
    assert code == 0 and _json(out)["leak_warnings"] == []


@pytest.mark.parametrize("kind", ["csv", "json-list", "json-object"])
def test_cli_bounds_from_a_file(capsys, csv_path, tmp_path, kind):
    if kind == "csv":
        f = tmp_path / "b.csv"
        f.write_text("column,lo,hi,centre,scale\nhours,0,50,,\nage,0,100,40,10\nscore,-5,15,,\ndelta_t,-5,5,,\n")
    elif kind == "json-list":
        f = tmp_path / "b.json"
        f.write_text(
            json.dumps(
                [{"column": c, "lo": lo, "hi": hi} for c, lo, hi in zip(NAMES, (0, -5, -5, 0), (100, 15, 5, 50))]
            )
        )
    else:
        f = tmp_path / "b.json"
        f.write_text(json.dumps({"age": [0, 100], "score": {"lo": -5, "hi": 15}, "delta_t": [-5, 5], "hours": [0, 50]}))
    code, out = run_main(
        capsys, "simulate", "input-perturbation", "--dataset", csv_path, "--trials", "3", *LOGISTIC, "--bounds", f"@{f}"
    )
    assert code == 0, out.err
    assert _json(out)["leak_warnings"] == []


def test_cli_compare_reports_where_the_bounds_come_from(capsys, csv_path):
    args = ("compare", "--dataset", csv_path, "--trials", "2", "--n-eps", "2", "--mechanisms", "output-perturbation")
    code, out = run_main(capsys, *args)
    assert code == 0, out.err
    plain = _json(out)["bounds"]
    assert plain["declared"] is False and "leak" in plain
    code, out = run_main(capsys, *args, "--bounds", DECLARED)
    assert code == 0, out.err
    declared = _json(out)
    assert declared["bounds"] == {"source": DECLARED_SOURCE, "declared": True, "text": DECLARED}


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("0:100,-5:15", "4 features (age, score, delta_t, hours), got 2"),
        ("0:100,-5:15,5:-5,0:50", "column 'delta_t': lo must be below hi"),
        ("0:100,-5:15,-5:5,0:x", "column 'hours': hi 'x' is not a number"),
        ("@nothere.csv", "cannot be read"),
        ("@bounds.txt", "must end in .csv or .json"),
    ],
)
def test_cli_bounds_errors_exit_2_with_one_line(capsys, csv_path, spec, needle):
    code, out = run_main(capsys, "simulate", "input-perturbation", "--dataset", csv_path, "--bounds", spec)
    assert code == 2 and out.out == ""
    assert needle in out.err and out.err.strip().count("\n") == 0


def test_cli_bounds_file_with_an_unknown_column_exits_2(capsys, csv_path, tmp_path):
    f = tmp_path / "b.csv"
    f.write_text("column,lo,hi\nweight,0,1\n")
    code, out = run_main(capsys, "simulate", "input-perturbation", "--dataset", csv_path, "--bounds", f"@{f}")
    assert code == 2 and "unknown column 'weight'" in out.err and out.err.strip().count("\n") == 0


# ------------------------------------------------------------------ shared configurations and reports


def test_configurations_carry_declared_bounds_and_reports_apply_them(upload):
    from dp_core.compare import ExplorerConfig, config_from_json
    from dp_core.report import dataset_for_config

    declared = upload.with_public_bounds(parse_bounds(DECLARED, upload.feature_names))
    cfg = ExplorerConfig(dataset=upload.name, bounds=DECLARED, dataset_fingerprint=declared.fingerprint)
    assert config_from_json(cfg.to_json()) == cfg and cfg.to_query()["bounds"] == DECLARED
    assert ExplorerConfig.from_query(cfg.to_query()).bounds == DECLARED
    assert "bounds" not in ExplorerConfig(dataset="iris").to_query()  # nothing to carry
    # the report re-run declares the configuration's bounds for the file, so the fingerprint matches
    assert dataset_for_config(cfg, upload).fingerprint == declared.fingerprint
    with pytest.raises(ValueError, match="does not match"):
        dataset_for_config(cfg.replace(bounds="0:1,0:1,0:1,0:1"), upload)
    with pytest.raises(ValueError, match="column 2: lo must be below hi"):
        ExplorerConfig(dataset="iris", bounds="0:1,3:2")
