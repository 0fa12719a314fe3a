"""Tests of dp_core.display: the formatting of every number and column name shown to people."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dp_core import display as D

# What must never reach a person.
RAW = re.compile(r"np\.|numpy\.|\bnan\b|\bNaN\b|\binf\b|Infinity|\bNone\b|e[-+]0\d|object at 0x", re.IGNORECASE)
DUST = re.compile(r"\d\.\d{9,}|0\.0{8,}")


def _numpy_scalars():
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    return st.one_of(
        floats.map(np.float64),
        st.floats(width=32).map(np.float32),
        st.floats(width=16).map(np.float16),
        st.integers(-(2**63), 2**63 - 1).map(np.int64),
        st.integers(0, 2**64 - 1).map(np.uint64),
        st.integers(-(2**31), 2**31 - 1).map(np.int32),
        st.booleans().map(np.bool_),
    )


ANY = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**400), 10**400),
    st.booleans(),
    _numpy_scalars(),
    st.just(pd.NA),
    st.just(pd.NaT),
)
FORMATTERS = [
    D.number,
    D.integer,
    D.percent,
    D.epsilon,
    D.delta,
    D.value,
    lambda x: D.pm(x, x),
    lambda x: D.interval(x, x),
    lambda x: D.number(x, sig=1, signed=True),
]


def _parse(text: str) -> float:
    """Read back a number written by display (thousands separators, short scientific notation)."""
    return float(text.replace(",", "").replace("−", "-").replace(" %", ""))


# ------------------------------------------------------------------------------- known values
@pytest.mark.parametrize(
    "x, text",
    [
        (3.730588, "3.73"),
        (12345.678, "12,346"),
        (1149, "1,149"),
        (np.int64(1149), "1,149"),
        (1149.4, "1,149"),
        (0.000012345, "1.23e-5"),
        (2.5e13, "2.5e13"),
        (0.1 + 0.2, "0.3"),
        (np.float64(1.0), "1"),
        (-0.5, "-0.5"),
        (9.996, "10"),
        (999.7, "1,000"),
        (0.99996, "1"),
        (1e-4, "0.0001"),
        (-0.0, "0"),
        (np.int64(1), "1"),
        (np.uint64(2**64 - 1), "1.84e19"),
        (10**400, "1e400"),
        (None, "—"),
        (float("nan"), "—"),
        (pd.NA, "—"),
        (float("inf"), "∞"),
        (float("-inf"), "−∞"),
    ],
)
def test_number_known_values(x, text):
    assert D.number(x) == text


def test_number_zero_threshold_is_relative_to_the_scale():
    assert D.number(5e-152, scale=0.3) == "0"
    assert D.number(np.float64(2e-18), scale=1.0) == "0"
    assert D.number(2e-18) == "2e-18"  # without a scale a tiny number is a real number
    assert D.number(2e-10, scale=1.0) == "2e-10"  # above the threshold: kept
    assert D.number(1e-320) == "0"  # subnormal dust


def test_infinity_words_by_context():
    assert D.number(math.inf, inf=D.NOT_REACHED) == "not reached"
    assert D.number(-math.inf, inf=D.UNBOUNDED) == "unbounded"
    assert D.epsilon(math.inf, inf=D.NO_GUARANTEE) == "no guarantee"
    assert D.interval(2, math.inf) == "[2, ∞]"
    assert D.delta(math.inf) == "∞"
    assert D.percent(math.inf) == "∞"


def test_delta_and_epsilon():
    assert [D.delta(v) for v in (1e-5, 2.5e-7, 1e-12, 0.05, 0.001, 0.0, 1e-200)] == [
        "1e-5",
        "2.5e-7",
        "1e-12",
        "0.05",
        "0.001",
        "0",
        "1e-200",
    ]
    assert D.delta(1.234e-6, sig=3) == "1.23e-6"
    assert [D.epsilon(v) for v in (0.01, 0.012, 1.0, 10.0, 1.23456)] == ["0.01", "0.012", "1", "10", "1.23"]


def test_integer_percent_and_signed():
    assert D.integer(1149.6) == "1,150"
    assert D.integer(np.float64(2.5e20)) == "2.5e20"
    assert D.percent(0.9134) == "91.3 %"
    assert D.percent(np.float64(1.0)) == "100 %"
    assert D.percent(2e-19) == "0 %"
    assert D.number(0.25, signed=True) == "+0.25"
    assert D.number(-0.25, signed=True) == "-0.25"


def test_pm_aligns_the_mean_with_the_error():
    assert D.pm(0.91342, 0.0041) == "0.9134 ± 0.0041"
    assert D.pm(0.3, 5e-152) == "0.3 ± 0"
    assert D.pm(np.float64(0.212167), np.float64(2.78954e-18)) == "0.212 ± 0"
    assert D.pm(1149.4, 12.0) == "1,149 ± 12"
    assert D.pm(0.5, math.nan) == "0.5 ± —"
    assert D.pm(None, 0.1) == "—"


def test_value_and_plain():
    assert D.value(np.bool_(False)) == "no"
    assert D.value(True) == "yes"
    assert D.value(np.str_("census")) == "census"
    assert D.value("text") == "text"
    assert f"{D.plain(np.int64(1))!r}" == "1"
    assert f"{D.plain(np.float64(0.5))!r}" == "0.5"
    assert D.plain([1]) == [1]


# ------------------------------------------------------------------------------- headers and tables
@pytest.mark.parametrize(
    "name, text",
    [
        ("epsilon_measured_lo", "smallest ε (95% band, low)"),
        ("eps_lower", "ε lower bound"),
        ("n_trials", "trials"),
        ("test_mse_se", "test MSE (standard error)"),
        ("excess_risk_mean", "excess risk"),
        ("ratio_mean", "ratio (mean)"),
        ("Income", "Income"),
        ("k_min (as claimed by the paper)", "k min (as claimed by the paper)"),
        (np.int64(3), "3"),
        ("held-out MAE", "held-out MAE"),
    ],
)
def test_header(name, text):
    assert D.header(name) == text


@given(st.from_regex(r"[a-z]{1,8}(_[a-z]{1,8}){1,4}", fullmatch=True))
def test_header_never_leaves_snake_case(name):
    assert not re.search(r"[a-z]+_[a-z_]+", D.header(name))


def test_table_formats_every_cell_and_header():
    df = pd.DataFrame(
        {
            "eps_lower": [np.float64(0.1234), np.nan],
            "n_trials": [np.int64(1149), np.int64(10)],
            "epsilon_measured": [np.inf, 0.5],
            "feasible": [np.bool_(True), np.bool_(False)],
            "delta": [1e-5, 0.0],
            "se": [2.78954e-18, 0.01],
        }
    )
    out = D.table(df, formats={"epsilon_measured": D.NOT_REACHED, "delta": D.delta})
    assert list(out.columns) == ["ε lower bound", "trials", "smallest ε (measured)", "feasible", "δ", "standard error"]
    assert out.iloc[0].tolist() == ["0.123", "1,149", "not reached", "yes", "1e-5", "2.79e-18"]
    assert out.iloc[1].tolist() == ["—", "10", "0.5", "no", "0", "0.01"]
    assert all(isinstance(v, str) for v in out.to_numpy().ravel())


def test_table_keeps_a_meaningful_index_and_accepts_records():
    df = pd.DataFrame({"mae": [0.87, 0.86]}, index=pd.Index(["DP-GD", "LAD"], name="method"))
    out = D.table(df)
    assert list(out.columns) == ["method", "MAE"] and out["method"].tolist() == ["DP-GD", "LAD"]
    rows = D.table([{"eps": 1.0, "epsilon": 2.0}])  # two names for the same header stay two columns
    assert list(rows.columns) == ["ε", "ε (2)"]
    assert D.table(pd.DataFrame({"a_b": []})).columns.tolist() == ["a b"]


def test_download_frame_keeps_numbers():
    df = pd.DataFrame({"epsilon_measured": [np.inf, 0.123456789], "n_trials": [np.int64(3), np.int64(4)]})
    out = D.download_frame(df)
    assert list(out.columns) == ["smallest ε (measured)", "trials"]
    back = pd.read_csv(pd.io.common.StringIO(out.to_csv(index=False)))
    assert back.iloc[1, 0] == pytest.approx(0.123456789, rel=1e-12) and math.isinf(back.iloc[0, 0])


# ------------------------------------------------------------------------------- properties
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(ANY)
def test_never_raises_and_never_shows_raw_values(x):
    for fmt in FORMATTERS:
        text = fmt(x)
        assert isinstance(text, str) and text
        assert not RAW.search(text), (x, text)
        assert not DUST.search(text), (x, text)


@settings(max_examples=300)
@given(
    st.floats(allow_nan=True, allow_infinity=True),
    st.one_of(st.none(), st.floats(), _numpy_scalars()),
    st.integers(1, 8),
)
def test_never_raises_with_any_scale_or_precision(x, scale, sig):
    text = D.number(x, scale=scale, sig=sig)
    assert isinstance(text, str) and not RAW.search(text)


@given(
    st.floats(min_value=1e-300, max_value=1e-12, allow_subnormal=False),
    st.floats(0.5, 1e6),
    st.sampled_from([1.0, -1.0]),
)
def test_values_within_the_zero_threshold_are_zero(x, scale, sign):
    """Never '5e-152' beside a quantity of scale ~1: a value below zero_below·scale is 0."""
    tiny = sign * x * scale * 0.999
    assert D.number(np.float64(tiny), scale=scale) == "0"
    assert D.pm(scale, tiny).endswith("± 0")
    assert not re.search(r"e-[1-3]\d\d", D.pm(scale, tiny))


@given(st.floats(min_value=-1e300, max_value=1e300).filter(lambda v: abs(v) >= 1e-300), st.integers(1, 6))
def test_round_trip_within_the_stated_significant_digits(x, sig):
    text = D.number(x, sig=sig)
    back = _parse(text)
    if 1e3 <= abs(x) < 1e12:  # whole units
        assert abs(back - x) <= 0.5 + 1e-9 * abs(x)
    else:
        assert abs(back - x) <= 0.5 * 10 ** (1 - sig) * abs(x) * (1 + 1e-9)


@given(st.integers(-(10**30), 10**30), st.integers(1, 6))
def test_integers_are_exact_below_1e15_and_rounded_above(n, sig):
    text = D.number(n, sig=sig)
    if abs(n) < 10**15:
        assert int(text.replace(",", "")) == n
    else:
        assert abs(_parse(text) - n) <= 0.5 * 10 ** (1 - sig) * abs(n) * (1 + 1e-9)
    assert D.integer(np.int64(max(min(n, 2**63 - 1), -(2**63)))) == D.number(np.int64(max(min(n, 2**63 - 1), -(2**63))))


@given(st.floats(min_value=1e-4, max_value=999.0), st.floats(min_value=1e-6, max_value=10.0))
def test_pm_reads_back(mean, se):
    text = D.pm(mean, se)
    m_text, s_text = text.split(" ± ")
    assert abs(_parse(m_text) - mean) <= 0.5 * 1e-2 * mean * (1 + 1e-9) + 1e-12
    assert abs(_parse(s_text) - se) <= max(0.05 * se, 1e-12 * mean) * (1 + 1e-9)


@given(st.floats(min_value=1e-320, max_value=0.5))
def test_delta_reads_back(x):
    text = D.delta(x)
    assert re.fullmatch(r"[0-9.]+(e-\d+)?", text), text
    back = _parse(text)
    assert back == 0.0 if x < 1e-320 else abs(back - x) <= 0.05 * x * (1 + 1e-9)


def test_message_removes_numpy_reprs_and_raw_words():
    assert D.message("got np.int64(1) rows") == "got 1 rows"
    assert (
        D.message("epsilon must be in (0, inf], got np.float64(nan).") == "epsilon must be in (0, ∞], got not a number."
    )
    assert D.message("class numpy.str_('a') and None") == "class a and nothing"
    assert D.message("delta = np.float64(1e-05)") == "delta = 1e-5"
    assert D.message("information about infinite sets") == "information about infinite sets"
    assert D.message(ValueError("x")) == "x"


@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(np.float64),
        st.integers(-(2**63), 2**63 - 1).map(np.int64),
        st.none(),
    )
)
def test_message_of_any_repr_is_clean(x):
    assert not RAW.search(D.message(f"value {x!r} is not allowed")), repr(x)
