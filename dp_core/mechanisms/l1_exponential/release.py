"""``python -m dp_core release l1-exponential``: draws of EM-L1-HT as publishable JSON.
See docs/l1_exponential.md §"release (module)"."""

from __future__ import annotations

import numpy as np

from ..._validation import check_int
from ...cli._common import add_param_options, dataset_from_args, param_values
from ...plugin import config_from_values, config_params
from .settings import L1Settings

DEFAULT_DATASET = "heavy_tailed"
_SPECS = tuple(s for s in config_params(L1Settings) if s.name in ("theta", "R", "mode", "preset"))


def add_arguments(p) -> None:
    p.add_argument("--eps", type=float, default=1.0, help="pure-DP budget epsilon in (0, inf) (default 1)")
    add_param_options(p, _SPECS, defaults={"preset": "fast"})
    p.add_argument("--draws", type=int, default=1, help="independent releases (default 1)")


def _sampler_summary(diag) -> dict | None:
    """What the sampler computed from the private data (NOT for publication)."""
    if diag.mcmc is not None:
        return diag.mcmc.as_dict()
    if diag.grid is None:
        return None
    p = diag.grid.probabilities
    return {
        "grid_points": int(p.size),
        "largest_probability": float(p.max()),
        "entropy": float(-np.sum(p[p > 0] * np.log(p[p > 0]))),
    }


def run(a):
    from .lad import l1_risk, lad_fit
    from .mechanism import L1ExponentialRegression

    ds = dataset_from_args(
        a,
        bounds_unused="to release l1-exponential: the features are used as given (the truncated score bounds "
        "each record's effect)",
    )
    if ds.task != "regression":
        raise ValueError(f"dataset must be a regression dataset for l1-exponential, got {ds.name!r} ({ds.task}).")
    draws = check_int("draws", a.draws, lo=1, hi=10_000)
    s = config_from_values(L1Settings, param_values(a, _SPECS))
    est = L1ExponentialRegression(epsilon=a.eps, **s.mechanism_kwargs())  # conv and ci: at their defaults
    res = est.run(ds.X, ds.y, rng=a.seed, n_draws=draws, diagnostics=a.diagnostics)
    rel, diag = res if a.diagnostics else (res, None)
    release = {
        "draws": rel.draws,
        "privacy_label": rel.privacy_label,
        "exact_sampler": rel.exact,
        "calibration": rel.calibration.as_dict(),
    }
    notes = ["Features and target used as given (never clipped: the truncated score bounds the sensitivity)."]
    extra = None
    if diag is not None:
        lad = lad_fit(ds.X, ds.y, est.radius)
        excess = np.atleast_1d(l1_risk(rel.draws, ds.X, ds.y)) - lad.objective
        extra = {"w_nonprivate_lad": lad.w, "risk_nonprivate": lad.objective, "excess_empirical_risk": excess}
        sampler = _sampler_summary(diag)
        if sampler is not None:
            extra["sampler"] = sampler
    return ds, release, notes, extra
