"""Quick reproduction of our reference pilot study (docs/large_margin_gaussian.md §"Pilot study") of the large-margin
classifier."""

import json
import math

import pytest

from dp_core.cli import main


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    from dp_core.mechanisms.large_margin_gaussian.reproduce import reproduce

    return reproduce(tmp_path_factory.mktemp("lmg"), quick=True, seed=0)


def test_analytic_columns_match_the_reference(result):
    assert result["analytic_max_relative_difference_from_spec"] < 1e-3


def test_measured_accuracy_agrees_with_the_pilot_within_monte_carlo_error(result):
    for row in result["pilot"]:
        se = max(row["accuracy_sd"], row["accuracy_sd_spec"]) / math.sqrt(row["n_trials"])
        # different data draw than the reference pilot's: allow 4 SE plus the spread of the non-private fit
        assert abs(row["accuracy_mean"] - row["accuracy_mean_spec"]) < 4 * se + 0.006, row["epsilon"]
        assert row["excess_mean"] <= row["pathwise_mean"]  # the pathwise bound holds draw by draw


def test_shared_noise_contrast_is_too_good_to_be_true(result):
    by_eps = {r["epsilon"]: r for r in result["contrast"]}
    assert by_eps[0.5]["repaired_accuracy"] > 0.99 and by_eps[1.0]["repaired_accuracy"] > 0.99
    assert by_eps[0.1]["repaired_accuracy"] > by_eps[0.1]["corrected_accuracy"]


def test_files_written(result):
    import os

    assert len(result["files"]) == 3 and all(os.path.getsize(f) > 0 for f in result["files"])


def test_cli_reproduce_quick(tmp_path, capsys):
    code = main(["reproduce", "large-margin-gaussian", "--out", str(tmp_path), "--quick", "--trials", "3"])
    d = json.loads(capsys.readouterr().out)
    assert code in (0, None) and d["pilot"][0]["n_trials"] == 3
