"""AppTest: an upload declares its own public per-column bounds on Home, and every page uses them."""

from __future__ import annotations

import numpy as np
import pytest

from dp_core.preprocessing import format_bounds, parse_bounds

NAMES = ("age", "score", "delta_t", "hours")
LEAK = "computed from the uploaded records"


def _csv_bytes(n: int = 100, seed: int = 1) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [10, 2, 1, 5] + [40, 5, 0, 20]
    y = (X[:, 0] + 3 * X[:, 1] + rng.normal(size=n) * 5 > 55).astype(int)
    rows = ["age,score,delta_t,hours,label"] + [
        ",".join(f"{v:.3f}" for v in x) + f",{int(t)}" for x, t in zip(X, y, strict=True)
    ]
    return ("\n".join(rows) + "\n").encode()


CSV = _csv_bytes()


def _upload(at, name="up.csv"):
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((name, CSV, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def _edit(at, edits: dict[int, dict[str, float]]):
    """Type ``edits`` (row -> {column header: value}) into the bounds table and press Declare.

    While nothing is declared the other rows hold the data's own statistics, which Declare does not take
    without an acknowledgement (issue 24): the coarse public grid is pressed first.
    """
    if at.button(key="w_bounds_reset").disabled:
        at.button(key="w_bounds_grid").click().run()
    editor = at.data_editor[0]
    at.session_state[editor.key] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    at.button(key="w_bounds_declare").click().run()
    assert not at.exception, at.exception
    return at


def _leaks(at) -> list[str]:
    return [w.value for w in at.warning if LEAK in w.value or "taken from the training data" in w.value]


def _badge(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Dataset:"))


def _url_bounds(at) -> str | None:
    v = at.query_params.get("bounds")
    return v[0] if isinstance(v, list) else v


def _compare_tables(at) -> list:
    return [d.value.to_csv() for d in at.dataframe]


def test_demo_dataset_bounds_stay_read_only(app):
    at = app.run()
    assert not at.exception
    assert len(at.data_editor) == 0
    assert any(c.value.startswith("Source: public domain of every census column") for c in at.caption)
    assert "w_bounds_declare" not in [b.key for b in at.button]


def test_upload_prefills_data_derived_ranges_marked_not_public(app):
    at = _upload(app.run())
    table = at.data_editor[0].value
    assert list(table["Column"]) == list(NAMES)
    assert any("computed from your data — not public" in m.value for m in at.markdown)
    assert _leaks(at) and at.button(key="w_bounds_reset").disabled
    assert _url_bounds(at) is None


def test_declared_bounds_reach_every_page_and_the_url(app):
    at = _upload(app.run())
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert _leaks(at)  # before: the comparison's preprocessing reads the data
    before = _compare_tables(at)
    at.switch_page("pages/home.py").run()
    _edit(at, {0: {"Lowest": 0.0, "Highest": 100.0, "Centre": 40.0, "Scale": 10.0}})
    assert not [e.value for e in at.error]
    assert not _leaks(at)
    assert any("declared public" in c.value and "outside the declared ranges" in c.value for c in at.caption)
    text = _url_bounds(at)
    assert text is not None and text.startswith("0:100:40:10,")
    assert parse_bounds(text, NAMES).lo[0] == 0.0
    assert at.data_editor[0].value["Lowest"][0] == 0.0
    for page in ("pages/input_perturbation.py", "pages/label_dp_bags.py", "pages/compare.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert not _leaks(at), page
        assert "declared public bounds" in _badge(at), page
        assert _url_bounds(at) == text, page
    after = _compare_tables(at)
    assert after != before  # the comparison ran with the declared constants
    # back on Home the declared bounds are still there (page switches keep them)
    at.switch_page("pages/home.py").run()
    assert at.data_editor[0].value["Highest"][0] == 100.0 and not _leaks(at)


def test_invalid_range_shows_an_error_and_keeps_the_previous_bounds(app):
    at = _edit(_upload(app.run()), {1: {"Lowest": -10.0, "Highest": 20.0, "Centre": 5.0, "Scale": 3.0}})
    good = _url_bounds(at)
    assert good is not None
    _edit(at, {2: {"Lowest": 5.0, "Highest": -5.0}})
    errors = [e.value for e in at.error]
    assert any("Bounds not declared" in e and "column 'delta_t'" in e and "lo must be below hi" in e for e in errors)
    assert any("previous bounds stay in use" in c.value for c in at.caption)
    assert _url_bounds(at) == good and not _leaks(at)
    at.switch_page("pages/input_perturbation.py").run()
    assert "declared public bounds" in _badge(at) and _url_bounds(at) == good


def test_reset_goes_back_to_data_derived_bounds(app):
    at = _edit(_upload(app.run()), {0: {"Lowest": 0.0, "Highest": 100.0}})
    assert _url_bounds(at) is not None
    at.button(key="w_bounds_reset").click().run()
    assert not at.exception
    assert _leaks(at) and _url_bounds(at) is None
    assert any("computed from your data — not public" in m.value for m in at.markdown)


def test_clipped_values_are_counted_for_the_owner(app):
    at = _edit(_upload(app.run()), {0: {"Lowest": 30.0, "Highest": 50.0, "Centre": 40.0, "Scale": 5.0}})
    caption = next(c.value for c in at.caption if "Clipped values per column" in c.value)
    ages = np.array([float(r.split(b",")[0]) for r in CSV.splitlines()[1:]])
    assert f"age {int(((ages < 30) | (ages > 50)).sum())}" in caption
    assert "shown only to you" in caption


def test_a_shared_link_asks_for_the_file_and_then_applies_its_bounds(app):
    declared = parse_bounds("0:100:40:10,-5:15,-5:5,0:50", NAMES)
    app.query_params["dataset"] = "upload:up.csv"
    app.query_params["bounds"] = format_bounds(declared)
    at = app.run()
    assert not at.exception
    assert any("upload the file again" in w.value for w in at.warning)
    _upload(at)
    assert any("The link's declared public bounds apply" in i.value for i in at.info)
    assert not _leaks(at)
    assert list(at.data_editor[0].value["Lowest"]) == [0.0, -5.0, -5.0, 0.0]
    at.switch_page("pages/compare.py").run()
    assert "declared public bounds" in _badge(at) and not _leaks(at)


@pytest.mark.parametrize("bounds", ["0:1,0:1", "0:1,5:1,0:1,0:1", "garbage"])
def test_a_link_whose_bounds_do_not_fit_the_file_falls_back_with_a_message(app, bounds):
    app.query_params["bounds"] = bounds
    at = _upload(app.run())
    assert any("do not fit this file" in w.value for w in at.warning)
    assert _leaks(at) and _url_bounds(at) is None


# ------------------------------------------------------------------ declaring is an act (issue 24, part 3)
def _ack_key(at) -> str | None:
    return next((c.key for c in at.checkbox if str(c.key).startswith("w_bounds_ack_")), None)


def _link_notes(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("🔗 ")]


def test_declare_with_nothing_edited_is_not_accepted_and_the_link_has_no_bounds(app):
    at = _upload(app.run())
    at.button(key="w_bounds_declare").click().run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "Not declared yet" in w.value)
    for name in NAMES:  # every column, every statistic, is named
        assert f"{name}: minimum, maximum, mean, standard deviation" in warning
    assert "would publish them" in warning
    assert _ack_key(at) is not None
    assert _url_bounds(at) is None and _leaks(at)
    assert at.button(key="w_bounds_reset").disabled  # nothing was declared
    assert any("carries no column bounds" in n for n in _link_notes(at))
    at.switch_page("pages/compare.py").run()
    assert _url_bounds(at) is None and _leaks(at)
    assert any("carries no column bounds" in n for n in _link_notes(at))  # beside the share link


def test_acknowledged_data_derived_bounds_are_declared_and_the_link_says_so(app):
    at = _upload(app.run())
    at.button(key="w_bounds_declare").click().run()
    at.checkbox(key=_ack_key(at)).check().run()
    assert not at.exception
    text = _url_bounds(at)
    assert text is not None and len(parse_bounds(text, NAMES).lo) == len(NAMES)
    assert not _leaks(at) and _ack_key(at) is None
    note = next(n for n in _link_notes(at) if "carries the declared bounds" in n)
    assert "your data's own statistics, as you acknowledged" in note and "age: minimum" in note
    assert any("you acknowledged that some are your data's own statistics" in c.value for c in at.caption)
    at.switch_page("pages/compare.py").run()
    assert not at.exception and _url_bounds(at) == text
    assert any("as you acknowledged on Home" in n for n in _link_notes(at))


def test_rounded_to_the_coarse_grid_is_declared_without_acknowledgement(app):
    at = _upload(app.run())
    at.button(key="w_bounds_grid").click().run()
    assert any("rounded outward to a coarse grid" in m.value for m in at.markdown)
    assert _url_bounds(at) is None  # offered, not declared
    at.button(key="w_bounds_declare").click().run()
    assert not at.exception and _ack_key(at) is None
    assert not [w.value for w in at.warning if "Not declared yet" in w.value]
    declared = parse_bounds(_url_bounds(at), NAMES)
    X = np.array([[float(v) for v in r.split(b",")[:4]] for r in CSV.splitlines()[1:]])
    assert np.all(X.min(axis=0) > declared.lo) and np.all(X.max(axis=0) < declared.hi)  # nothing clipped
    assert any("none of them is one of your data's own statistics" in n for n in _link_notes(at))
    assert any("No value of your file lies outside the declared ranges" in c.value for c in at.caption)


def test_editing_one_column_still_asks_about_the_others(app):
    at = _upload(app.run())
    editor = at.data_editor[0]
    at.session_state[editor.key] = {
        "edited_rows": {0: {"Lowest": 0.0, "Highest": 100.0, "Centre": 40.0, "Scale": 10.0}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.button(key="w_bounds_declare").click().run()
    warning = next(w.value for w in at.warning if "Not declared yet" in w.value)
    assert "age:" not in warning and "score: minimum" in warning and "hours: minimum" in warning
    assert _url_bounds(at) is None


def test_a_link_carrying_the_files_own_statistics_is_not_applied(app):
    from dp_core.data import parse_csv, table_to_dataset
    from dp_core.preprocessing import bounds_from_data

    raw = table_to_dataset(parse_csv(CSV, file_name="up.csv"), target="label")
    app.query_params["bounds"] = format_bounds(bounds_from_data(raw.X))  # the bounds=2.06:4:3.117:0.4594
    at = _upload(app.run())
    assert any("were not applied" in w.value and "own statistics" in w.value for w in at.warning)
    assert _url_bounds(at) is None and _leaks(at)
