"""``python -m dp_core release``: publishable JSON by default, non-private values only with --diagnostics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dp_core.cli import main
from dp_core.cli.release import DIAGNOSTICS_KEY
from dp_core.data import load_dataset

CASES = {
    "input-perturbation": ["--dataset", "census", "--y-range", "0", "1", "--x-bound", "3.1", "--seed", "3"],
    "large-margin-gaussian": ["--dataset", "gaussian_classes", "--seed", "3"],
    "l1-exponential": ["--dataset", "heavy_tailed", "--seed", "3", "--draws", "2"],
    "label-dp-bags": "--dataset census --y-range 0 1 --mechanism wtd-lba --m 20 --k 64 --seed 3".split(),
}

#: The keys that hold non-private values in the diagnostics, per mechanism.
SECRET_KEYS = {
    "input-perturbation": ("theta_nonprivate", "noise_linear", "noise_quadratic"),
    "large-margin-gaussian": ("phi_nonprivate",),
    "l1-exponential": ("w_nonprivate_lad",),
    "label-dp-bags": ("theta_nonprivate", "secret_weights"),
}


def _run(capsys, mechanism, *extra):
    assert main(["release", mechanism, *CASES[mechanism], *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _numeric_arrays(node):
    """Every list of numbers (any nesting depth flattened per innermost list) in a JSON tree."""
    if isinstance(node, dict):
        for v in node.values():
            yield from _numeric_arrays(v)
    elif isinstance(node, list):
        if node and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in node):
            yield np.asarray(node, dtype=float)
        for v in node:
            yield from _numeric_arrays(v)


def _contains(tree, secret) -> bool:
    flat = np.asarray(secret, dtype=float)
    rows = flat.reshape(-1, flat.shape[-1]) if flat.ndim > 1 else flat[None]
    for arr in _numeric_arrays(tree):
        for row in rows:
            if arr.shape == row.shape and np.allclose(arr, row, rtol=1e-12, atol=0):
                return True
    return False


@pytest.mark.parametrize("mechanism", sorted(CASES))
def test_release_json_is_publishable_and_diagnostics_only_on_request(capsys, mechanism):
    plain = _run(capsys, mechanism)
    assert DIAGNOSTICS_KEY not in plain
    assert set(plain) == {"mechanism", "dataset", "n", "d", "seed", "release", "publishable", "preprocessing"}
    full = _run(capsys, mechanism, "--diagnostics")
    assert full["release"] == plain["release"]  # asking for diagnostics does not change the release
    diag = full[DIAGNOSTICS_KEY]
    assert diag["warning"].startswith("NOT FOR PUBLICATION")
    assert set(full) - set(plain) == {DIAGNOSTICS_KEY}
    for key in SECRET_KEYS[mechanism]:
        secret = np.asarray(diag[key], dtype=float)
        assert np.any(secret != 0), key
        assert _contains(diag, secret)  # positive control of the search
        assert not _contains(plain, secret), f"{key} appears outside {DIAGNOSTICS_KEY}"


def test_release_matches_the_python_api(capsys):
    from dp_core.mechanisms.input_perturbation import InputPerturbation

    out = _run(capsys, "input-perturbation", "--diagnostics")
    ds = load_dataset("census")
    y = np.clip(2.0 * np.asarray(ds.y) - 1.0, -1.0, 1.0)
    rel, diag = InputPerturbation(epsilon=1.0, delta=1e-5, x_bound=3.1).run(ds.X, y, rng=3, diagnostics=True)
    np.testing.assert_allclose(out["release"]["theta"], rel.theta, rtol=1e-12)
    np.testing.assert_allclose(out[DIAGNOSTICS_KEY]["theta_nonprivate"], diag.theta_nonprivate, rtol=1e-12)
    assert out[DIAGNOSTICS_KEY]["excess_risk"] == pytest.approx(diag.excess_risk, rel=1e-12)
    assert out["release"]["epsilon"] == 1.0 and "not re-derived" in out["release"]["privacy_status"]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["release", "large-margin-gaussian", "--dataset", "diabetes"], "must be a classification dataset"),
        (["release", "input-perturbation", "--y-range", "1", "0"], "y-range must be two finite numbers LO < HI"),
        (["release", "input-perturbation", "--dataset", "wine"], "exactly 2 classes"),
        (["release", "l1-exponential", "--draws", "0"], "draws must be"),
        (["release", "label-dp-bags", "--b1", "-1"], "b1 must be"),
    ],
)
def test_release_rejects_bad_input_on_one_line(capsys, args, needle):
    assert main(args) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
