"""The examples that were doctests of dp_core.display (same inputs, same shown outputs as doctest compared them)."""

import numpy as np
import pandas as pd
import pytest

from dp_core import display

EXAMPLES = [
    ('is_missing(None), is_missing(float("nan")), is_missing(pd.NA), is_missing(0.0)', "(True, True, True, False)"),
    ("number(3.730588)", "'3.73'"),
    ("number(12345.678)", "'12,346'"),
    ("number(0.000012345)", "'1.23e-5'"),
    ("number(5e-152, scale=0.3)", "'0'"),
    ('number(float("inf"), inf=NOT_REACHED)', "'not reached'"),
    ("number(np.int64(1))", "'1'"),
    ("number(0.1 + 0.2)", "'0.3'"),
    ("integer(np.int64(1149))", "'1,149'"),
    ("integer(1149.6)", "'1,150'"),
    ("integer(2.5e20)", "'2.5e20'"),
    ("percent(0.9134)", "'91.3 %'"),
    ("percent(1.0)", "'100 %'"),
    ("percent(np.float64(2e-19))", "'0 %'"),
    ("epsilon(0.5)", "'0.5'"),
    ("epsilon(1.23456)", "'1.23'"),
    ('epsilon(float("inf"), inf=NO_GUARANTEE)', "'no guarantee'"),
    ("delta(1e-5)", "'1e-5'"),
    ("delta(2.5e-7)", "'2.5e-7'"),
    ("delta(0.05)", "'0.05'"),
    ("delta(0.0)", "'0'"),
    ("pm(0.91342, 0.0041)", "'0.9134 ± 0.0041'"),
    ("pm(0.3, 5e-152)", "'0.3 ± 0'"),
    ("pm(1149.4, 12.0)", "'1,149 ± 12'"),
    ('pm(float("nan"), 0.1)', "'—'"),
    ("interval(0.1234, 0.5678)", "'[0.123, 0.568]'"),
    ('interval(2, float("inf"))', "'[2, ∞]'"),
    ("value(np.float64(0.1) + np.float64(0.2))", "'0.3'"),
    ("value(np.bool_(True))", "'yes'"),
    ("value(None)", "'—'"),
    ('value(np.str_("census"))', "'census'"),
    ('plain(np.int64(3)), plain(np.float64(0.5)), plain("a")', "(3, 0.5, 'a')"),
    ('f"{plain(np.int64(1))!r}"', "'1'"),
    ('header("epsilon_measured_lo")', "'smallest ε (95% band, low)'"),
    ('header("noise_std_label")', "'noise standard deviation label'"),
    ('header("test_mse_se")', "'test MSE (standard error)'"),
    ('header("Income")', "'Income'"),
    (
        'table(pd.DataFrame({"eps_lower": [np.float64(0.1234)], "n_trials": [np.int64(1149)]}))',
        "  ε lower bound trials\n0         0.123  1,149",
    ),
    (
        'download_frame(pd.DataFrame({"epsilon_measured": [np.inf, 0.5]})).to_csv(index=False).split()',
        "['smallest', 'ε', '(measured)', 'inf', '0.5']",
    ),
    ('message("epsilon must be in (0, inf], got np.float64(-1.0).")', "'epsilon must be in (0, ∞], got -1.'"),
    ('message("k = np.int64(3) but got nan")', "'k = 3 but got not a number'"),
]


@pytest.mark.parametrize(("source", "shown"), EXAMPLES)
def test_display_example(source, shown):
    namespace = {"np": np, "pd": pd, **vars(display)}
    result = eval(source, namespace)
    assert (str(result) if source.startswith("table(") else repr(result)) == shown
