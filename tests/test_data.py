import numpy as np
import pytest

from dp_core import data
from dp_core.exceptions import DataValidationError, PrivacyLeakWarning

GOOD = b"a,b,c,y\n" + b"".join(f"{i},{i % 3},{i * 0.5},{i % 2}\n".encode() for i in range(40))


@pytest.mark.parametrize("name", data.dataset_names())
def test_every_demo_dataset_loads(name):
    ds = data.load_dataset(name)
    info = data.DATASETS[name]
    assert ds.X.ndim == 2 and ds.X.shape[0] == ds.y.shape[0] >= 100
    assert np.all(np.isfinite(ds.X)) and np.all(np.isfinite(ds.y))
    assert ds.task == info.task
    if ds.is_classification:
        assert set(np.unique(ds.y)) == set(range(ds.n_classes))
    assert len(ds.fingerprint) == 64 and ds.source


def test_real_dataset_shapes():
    assert data.load_dataset("diabetes").X.shape == (442, 10)
    assert data.load_dataset("breast_cancer").X.shape == (569, 30)
    assert data.load_dataset("wine").n_classes == 3
    assert data.load_dataset("iris").X.shape == (150, 4)
    r = data.load_dataset("randhie")
    assert r.X.shape == (20190, 9) and r.target_name == "mdvis"


def test_synthetic_seeded():
    a, b, c = (data.load_dataset("census", n=500, seed=s) for s in (1, 1, 2))
    assert a.fingerprint == b.fingerprint != c.fingerprint
    assert a.X.shape == (500, 13)
    assert a.X.min() >= 0 and a.X.max() <= 1 and a.y.min() >= 0 and a.y.max() <= 1
    # census rows scaled by sqrt(d) are inside the unit ball without looking at the data
    assert np.linalg.norm(a.X / np.sqrt(a.d), axis=1).max() <= 1


def test_gaussian_classes_in_unit_ball():
    ds = data.make_gaussian_classes(2000, d=3, n_classes=4, seed=0)
    assert np.linalg.norm(ds.X, axis=1).max() <= 1 + 1e-12
    assert ds.n_classes == 4


@pytest.mark.parametrize("design", data.HEAVY_DESIGNS)
@pytest.mark.parametrize("noise", data.HEAVY_NOISES)
def test_heavy_tailed_noise_has_median_zero(design, noise):
    ds = data.make_heavy_tailed(20_000, d=2, design=design, noise=noise, seed=3)
    resid = ds.y - ds.X @ np.full(2, 0.5 / np.sqrt(2))
    # the sample median of n draws has sd about 1/(2 f(0) sqrt(n)); a loose 5-sigma bound for every noise law
    assert abs(np.median(resid)) < 0.05


def test_subsample_real_dataset():
    ds = data.load_dataset("randhie", n=1000, seed=4)
    assert ds.n == 1000
    with pytest.raises(ValueError, match="takes no generator options"):
        data.load_dataset("iris", d=3)


def test_unknown_dataset_message():
    with pytest.raises(ValueError, match="dataset must be one of 'census'"):
        data.load_dataset("mnist")


def test_parse_good_csv_and_convert():
    t = data.parse_csv(GOOD, file_name="g.csv")
    assert t.numeric_columns == ("a", "b", "c", "y") and t.delimiter == ","
    ds = data.table_to_dataset(t, target="y")
    assert ds.task == "binary" and ds.d == 3 and ds.n == 40
    ds_r = data.table_to_dataset(t, target="c")
    assert ds_r.task == "regression"


def test_semicolon_and_cp1252():
    raw = GOOD.replace(b",", b";").replace(b"a;b", "é;b".encode("cp1252"))
    t = data.parse_csv(raw)
    assert t.delimiter == ";" and t.encoding == "cp1252" and t.frame.shape == (40, 4)


def test_utf16_with_bom():
    raw = GOOD.decode().encode("utf-16")
    t = data.parse_csv(raw)
    assert t.frame.shape == (40, 4)


@pytest.mark.parametrize(
    "raw, match",
    [
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (b"PK\x03\x04\x00\x00binary", "ZIP archive"),
        (b"a b c\n" + b"1 2 3\n" * 30, "only one column"),
        (b"a,b\n1,2\n", "at least 20"),
        (b"a,a\n" + b"1,2\n" * 30, "duplicate"),
        (b"a,b\n" + b"1,2\n" * 30 + b"1,2,3,4,5\n", "could not be read"),
    ],
)
def test_rejected_files(raw, match):
    with pytest.raises(DataValidationError, match=match):
        data.parse_csv(raw)


def test_size_limits():
    big = b"a,b\n" + b"1,2\n" * 60
    with pytest.raises(DataValidationError, match="limit is 50"):
        data.parse_csv(big, limits={"max_rows": 50})
    wide = (",".join(f"c{i}" for i in range(5)) + "\n" + "1,2,3,4,5\n" * 30).encode()
    with pytest.raises(DataValidationError, match="columns; the limit is 4"):
        data.parse_csv(wide, limits={"max_cols": 4})


def test_non_numeric_onehot_or_drop():
    raw = b"city,x,y\n" + b"".join(f"{['a', 'b', 'c'][i % 3]},{i},{i * 2.5}\n".encode() for i in range(30))
    t = data.parse_csv(raw)
    assert t.non_numeric_columns == ("city",)
    with pytest.raises(DataValidationError, match="one-hot"):
        data.table_to_dataset(t, target="y")
    oh = data.table_to_dataset(t, target="y", non_numeric="onehot")
    assert oh.d == 4 and set(np.unique(oh.X[:, 1:])) == {0.0, 1.0}
    dr = data.table_to_dataset(t, target="y", non_numeric="drop")
    assert dr.d == 1


def test_missing_and_infinite_values():
    raw = b"x,z,y\n" + b"".join(f"{i},{'inf' if i == 3 else ('' if i == 5 else i)},{i}\n".encode() for i in range(30))
    t = data.parse_csv(raw)
    with pytest.raises(DataValidationError, match="2 rows have missing"):
        data.table_to_dataset(t, target="y")
    ds = data.table_to_dataset(t, target="y", missing="drop_rows")
    assert ds.n == 28 and np.all(np.isfinite(ds.X))


def test_single_class_and_constant_target():
    raw = b"x,y\n" + b"".join(f"{i},1\n".encode() for i in range(30))
    t = data.parse_csv(raw)
    with pytest.raises(DataValidationError, match="single class"):
        data.table_to_dataset(t, target="y", task="binary")
    with pytest.raises(DataValidationError, match="same value in every row"):
        data.table_to_dataset(t, target="y", task="regression")


def test_text_target_is_classification():
    raw = b"x,label\n" + b"".join(f"{i},{'yes' if i % 2 else 'no'}\n".encode() for i in range(30))
    ds = data.table_to_dataset(data.parse_csv(raw), target="label")
    assert ds.task == "binary" and ds.n_classes == 2
    with pytest.raises(DataValidationError, match="not numeric"):
        data.table_to_dataset(data.parse_csv(raw), target="label", task="regression")


def test_scale_rows_declared_and_data_dependent():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    Xs, info = data.scale_rows_to_ball(X, bound=5.0)
    assert not info.data_dependent and info.n_clipped == 1
    assert np.linalg.norm(Xs, axis=1).max() == pytest.approx(1.0)
    assert np.allclose(Xs[0], [0.6, 0.8])
    with pytest.warns(PrivacyLeakWarning):
        Xd, info_d = data.scale_rows_to_ball(X)
    assert info_d.data_dependent and "leaks" in info_d.leak_warning
    assert np.linalg.norm(Xd, axis=1).max() == pytest.approx(1.0)


def test_scale_labels_round_trip():
    y = np.array([0.0, 5.0, 10.0, 12.0])
    ys, info = data.scale_labels(y, 0.0, 10.0)
    assert np.allclose(ys, [-1, 0, 1, 1]) and info.n_clipped == 1 and not info.data_dependent
    with pytest.warns(PrivacyLeakWarning):
        _, info2 = data.scale_labels(y)
    assert info2.data_dependent


def test_train_test_split():
    ds = data.load_dataset("iris")
    tr, te = data.train_test_split(ds, test_fraction=0.2, seed=1)
    assert tr.n + te.n == ds.n and te.n == 30
    tr2, _ = data.train_test_split(ds, test_fraction=0.2, seed=1)
    assert tr.fingerprint == tr2.fingerprint
    with pytest.raises(ValueError, match="test_fraction"):
        data.train_test_split(ds, test_fraction=1.0)


def test_csv_path_loader(tmp_path):
    p = tmp_path / "f.csv"
    p.write_bytes(GOOD)
    ds = data.load_dataset(str(p))
    assert ds.name == "csv:f.csv" and ds.target_name == "y"
    with pytest.raises(DataValidationError, match="does not exist"):
        data.load_dataset(str(tmp_path / "missing.csv"))
