"""A field of any size up to the upload limit is read, or refused with a message naming the column and row
(issue 24, part 4: a 200 KB cell raised ``_csv.Error: field larger than field limit`` from the field-count
check, crashed Home and made the CLI exit 1 with "internal error")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dp_core import data
from dp_core.exceptions import DataValidationError

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"200KB": 200_000, "10MB": 10_000_000}
ROWS = 200


def big_cell_csv(size: int, where: str = "text") -> bytes:
    """200 rows of ``a,b,note``; data row 5 holds one huge field (text, digits, or the header's third name).

    ``note`` is a text column, except for ``digits`` where it is numeric (so the huge number is a number)."""
    note = "{}.5" if where == "digits" else "x{}"
    rows = ["a,b,note"] + [f"{i},{2 * i + i % 3},{note.format(i % 3)}" for i in range(ROWS)]
    if where == "text":
        rows[5] = f"4,9,{'y' * size}"
    elif where == "digits":
        rows[5] = f"4,9,{'9' * size}"
    else:
        rows[0] = "a,b," + "n" * size
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_huge_text_cell_is_read_and_can_be_dropped(size):
    table = data.parse_csv(big_cell_csv(size), file_name="big.csv")
    assert table.non_numeric_columns == ("note",)
    assert table.frame["note"].str.len().max() == size  # read whole, not cut
    ds = data.table_to_dataset(table, target="b", non_numeric="drop")
    assert ds.n == ROWS and ds.feature_names == ("a",)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_huge_category_is_refused_naming_column_and_row(size):
    table = data.parse_csv(big_cell_csv(size), file_name="big.csv")
    with pytest.raises(DataValidationError, match=rf"Column 'note' holds a value of {size:,} characters on data row 5"):
        data.table_to_dataset(table, target="b", non_numeric="onehot")
    with pytest.raises(DataValidationError, match="a class label longer than 200"):
        data.table_to_dataset(table, target="note", non_numeric="drop")


def test_a_category_at_the_label_limit_is_kept():
    rows = ["a,b,note"] + [f"{i},{i % 7},{('z' * data.MAX_LABEL_CHARS) if i % 2 else 'short'}" for i in range(ROWS)]
    table = data.parse_csv(("\n".join(rows) + "\n").encode())
    ds = data.table_to_dataset(table, target="b", non_numeric="onehot", task="regression")
    assert f"note_{'z' * data.MAX_LABEL_CHARS}" in ds.feature_names


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_huge_number_is_an_infinite_value_that_can_be_dropped(size):
    table = data.parse_csv(big_cell_csv(size, "digits"), file_name="big.csv")
    with pytest.raises(DataValidationError, match="infinite values"):
        data.table_to_dataset(table, target="b")
    assert data.table_to_dataset(table, target="b", missing="drop_rows").n == ROWS - 1


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_huge_header_name_is_refused_naming_the_column(size):
    with pytest.raises(DataValidationError, match=rf"name of column 3 on the header row is {size:,} characters"):
        data.parse_csv(big_cell_csv(size, "header"), file_name="big.csv")


def test_a_field_as_large_as_the_upload_limit_is_read():
    size = data.LIMITS["max_bytes"] - 5_000  # the other 199 rows take under 5 KB
    raw = big_cell_csv(size)
    assert len(raw) <= data.LIMITS["max_bytes"]
    assert data.parse_csv(raw).frame["note"].str.len().max() == size


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "dp_core", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_cli_refuses_a_huge_category_in_one_line(tmp_path, size):
    path = tmp_path / "big.csv"
    path.write_bytes(big_cell_csv(size))
    base = ["simulate", "input-perturbation", "--dataset", str(path), "--target", "b", "--trials", "2"]
    out = _cli(*base, "--onehot")
    assert out.returncode == 2, out.stderr[-500:]
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "Column 'note' holds a value of" in out.stderr and "data row 5" in out.stderr
    assert len(out.stderr) < 1000


def test_cli_reads_a_huge_number_and_drops_its_row(tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(big_cell_csv(SIZES["10MB"], "digits"))
    out = _cli(
        "simulate", "input-perturbation", "--dataset", str(path), "--target", "b", "--trials", "2", "--drop-missing"
    )
    assert out.returncode == 0, out.stderr[-500:]
    result = json.loads(out.stdout)
    assert result["dataset"] == "csv:big.csv" and result["n"] + result["n_test"] == ROWS - 1, result


def test_a_dataset_holds_no_view_of_the_parsed_file():
    """A session keeps the Dataset: its target must not be a view that keeps every parsed column alive."""
    rows = ["a,b,c,y"] + [f"{i},{i % 7},{i % 5},{i % 3}.5" for i in range(ROWS)]
    table = data.parse_csv(("\n".join(rows) + "\n").encode())
    ds = data.table_to_dataset(table, target="y")
    for arr in (ds.X, ds.y):
        assert arr.base is None and arr.flags.c_contiguous and arr.dtype == float
    assert ds.y.nbytes == 8 * ROWS
