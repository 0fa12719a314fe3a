"""The large-margin classifier's suggested defaults give a sound non-private reference (not a lucky split).

Over several seeds (each a different train/test split) the mean non-private test accuracy with
:func:`suggest_settings` must not fall below a simple baseline on the same preprocessed data, the
nearest class mean, by more than two standard errors of the paired difference. The old page defaults
(k = 2, λ = 0.01) give a reference below 0.7 on wine, 0.15 below the suggested settings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp_core.data import load_dataset, parse_csv, table_to_dataset
from dp_core.mechanisms.large_margin_gaussian import (
    LargeMarginGaussian,
    make_task,
    nonprivate_accuracy,
    suggest_settings,
)

SEEDS = range(8)


def nearest_class_mean(task) -> float:
    means = np.array([task.X_train[task.y_train == c].mean(axis=0) for c in range(task.n_classes)])
    pred = np.argmin(((task.X_test[:, None, :] - means[None]) ** 2).sum(axis=-1), axis=1)
    return float(np.mean(pred == task.y_test))


def paired(ds, k: int, lam: float) -> tuple[float, float, float]:
    """Mean non-private accuracy, mean baseline accuracy and the standard error of their difference."""
    base = LargeMarginGaussian(epsilon=1.0, lam=lam, h=0.5)
    acc, ref = [], []
    for seed in SEEDS:
        task = make_task(ds, k=k, seed=seed)
        acc.append(nonprivate_accuracy(task, base))
        ref.append(nearest_class_mean(task))
    diff = np.asarray(acc) - np.asarray(ref)
    return float(np.mean(acc)), float(np.mean(ref)), float(np.std(diff, ddof=1) / math.sqrt(len(diff)))


def separable_upload():
    rows = "".join(
        f"{(i % 3) * 0.5 + 0.01 * (i % 7)},{0.3 * ((i // 3) % 2) - 0.02 * (i % 5)},{i % 3}\n" for i in range(150)
    )
    return table_to_dataset(parse_csv(("a,b,label\n" + rows).encode(), file_name="classes.csv"), target="label")


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "upload"])
def test_suggested_defaults_match_or_beat_nearest_class_mean(name):
    ds = separable_upload() if name == "upload" else load_dataset(name)
    sugg = suggest_settings(ds.name, ds.d, ds.n, int(ds.n_classes))
    assert sugg.k == min(ds.d, 5) and sugg.lam == 0.001
    acc, ref, se = paired(ds, sugg.k, sugg.lam)
    assert acc >= ref - 2 * se - 1e-9, (acc, ref, se)
    assert acc > 1.5 / ds.n_classes  # well above chance


def test_the_old_defaults_fail_the_same_check_on_wine():
    acc, ref, se = paired(load_dataset("wine"), 2, 0.01)
    assert acc < 0.7  # a 2-D random projection and a dominant trace penalty
    acc5, _ref5, _se5 = paired(load_dataset("wine"), 5, 0.001)
    assert acc5 - acc > 0.15


def test_gaussian_classes_keep_the_reference_setting():
    s = suggest_settings("gaussian_classes", 2, 1000, 3)
    assert (s.k, s.lam) == (2, 0.01)
    with pytest.raises(ValueError, match="n_classes"):
        suggest_settings("wine", 13, 178, 11)


def test_utility_note_speaks_only_when_the_release_is_near_guessing():
    from dp_core.mechanisms.large_margin_gaussian import utility_note

    note = utility_note(0.36, 0.95, 3, k=4)
    assert note is not None and "guessing" in note and "larger ε" in note and "k = 4 now" in note
    assert "k =" not in utility_note(0.36, 0.95, 3, k=2)  # two dimensions: projecting further is no advice
    assert utility_note(float("nan"), 0.95, 3) is not None  # no release at all
    assert "barely better than guessing" in note  # 0.36 > 1/3
    assert "no better than guessing" in utility_note(0.30, 0.74, 3)  # below chance: not "better"
    assert utility_note(0.9, 0.95, 3) is None
    assert utility_note(0.5, 0.52, 2) is None  # the non-private fit itself is no better than chance
    with pytest.raises(ValueError, match="n_classes"):
        utility_note(0.5, 0.9, 1)
