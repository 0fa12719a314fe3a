"""AppTest: odd and hostile uploads on the Home page give a message (never a traceback), say what was
repaired, and a rejected file leaves the previous dataset and settings active."""

from __future__ import annotations

import gzip

import pytest
from _helpers import metrics

ROWS = 40


def _upload(at, content, name="data.csv"):
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="csv").set_value((name, content, "text/csv")).run()
    return at


def _start_on_iris(app):
    at = app.run()
    at.selectbox(key="w_dataset").set_value("iris").run()
    at.sidebar.select_slider(key="w_eps_slider").set_value(0.5).run()
    return at


def _all_text(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info", "success", "warning", "error"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return " ".join(parts)


def _assert_iris_still_active(at):
    m = metrics(at)
    assert m["Rows"] == "150" and m["Features"] == "4"
    assert m["ε (set in the sidebar)"] == "0.5"


GOOD = ("a,b,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(ROWS))).encode()


@pytest.mark.parametrize(
    "content, needle",
    [
        (gzip.compress(GOOD), "gzip-compressed"),
        (b"PK\x03\x04" + b"\x00" * 40, "ZIP archive"),
        ((",".join(f"c{i}" for i in range(150_000)) + "\n").encode(), "150,000 fields"),
    ],
)
@pytest.mark.timeout(60)
def test_rejected_file_keeps_previous_dataset(app, content, needle):
    at = _upload(_start_on_iris(app), content)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert needle in errors and "Excel" not in errors
    _assert_iris_still_active(at)


def test_huge_values_are_refused_and_the_preprocessing_choice_still_works(app):
    content = ("a,huge,y\n" + "".join(f"{i},{1e308 if i == 5 else i},{i % 2}\n" for i in range(ROWS))).encode()
    at = _upload(_start_on_iris(app), content)
    assert not at.exception
    assert any("Column 'huge' holds values as large as" in e.value for e in at.error)
    _assert_iris_still_active(at)
    at.radio(key="w_preprocess").set_value("clip").run()
    assert not at.exception


def test_repairs_are_said_on_the_page(app):
    rows = "".join(f'{i},"{1000 + 37 * i:,}",{1 + i % 2}\n' for i in range(ROWS))
    content = ("# exported by a tool\n,income,y\n" + rows).replace("\n", "\r").encode()
    at = _upload(app.run(), content)
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    assert "CR only" in info and "comment line" in info and "thousands separator" in info and "pandas index" in info
    m = metrics(at)
    assert m["Rows"] == "40" and m["Features"] == "1" and m["Task"] == "binary"
    text = _all_text(at)
    assert "np." not in text and "int64" not in text


def test_headerless_upload_keeps_every_row(app):
    content = "".join(f"{i},{i * 0.5},{i % 2}\n" for i in range(ROWS)).encode()
    at = _upload(app.run(), content)
    assert not at.exception
    assert any("not as a header" in i.value for i in at.info)
    assert metrics(at)["Rows"] == "40"
    assert at.selectbox(key="w_up_target").value == "column 3"


@pytest.mark.timeout(300)
def test_large_but_accepted_values_work_with_the_preprocessing_choice_and_compare(app):
    # values just under the accepted magnitude: squares and row norms stay finite, so no page breaks
    content = ("a,big,y\n" + "".join(f"{i},{3e99 * (1 + i % 3)},{i % 2}\n" for i in range(ROWS))).encode()
    for k, v in {"trials": "10"}.items():
        app.query_params[k] = v
    at = _upload(app.run(), content)
    assert not at.exception and any("Using **data.csv**" in s.value for s in at.success)
    at.radio(key="w_preprocess").set_value("clip").run()
    assert not at.exception
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("size", [200_000, 10_000_000], ids=["200KB", "10MB"])
@pytest.mark.timeout(120)
def test_a_huge_cell_is_read_and_a_huge_category_refused_in_plain_words(app, size):
    """Issue 24 part 4: a cell over 128 KB raised ``_csv.Error`` on Home."""
    rows = ["a,b,note"] + [f"{i},{2 * i + i % 3},x{i % 3}" for i in range(ROWS)]
    rows[5] = f"4,9,{'y' * size}"
    at = _upload(_start_on_iris(app), ("\n".join(rows) + "\n").encode(), name="big.csv")
    assert not at.exception  # the last column, 'note', is the target: its huge value cannot be a class label
    assert "a class label longer than 200 characters" in " ".join(e.value for e in at.error)
    at.selectbox(key="w_up_target").set_value("b").run()
    at.radio(key="w_up_nonnum").set_value("onehot").run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert f"Column 'note' holds a value of {size:,} characters on data row 5" in errors
    assert "_csv" not in _all_text(at) and "Traceback" not in _all_text(at)
    _assert_iris_still_active(at)
    at.radio(key="w_up_nonnum").set_value("drop").run()
    assert not at.exception and not at.error
    assert metrics(at)["Rows"] == str(ROWS) and metrics(at)["Features"] == "1"


def test_a_rerun_keeps_the_same_uploaded_dataset_object(app):
    """Home parses the file on every run; the session keeps one Dataset, not one per run (issue 24 memory)."""
    at = _upload(_start_on_iris(app), GOOD)
    held = at.session_state["upload_dataset"]
    at.run()
    assert at.session_state["upload_dataset"] is held
    at.selectbox(key="w_up_target").set_value("a").run()  # another target: another dataset
    assert at.session_state["upload_dataset"] is not held
    assert at.session_state["upload_dataset"].target_name == "a"
