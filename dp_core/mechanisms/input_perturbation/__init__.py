"""Input perturbation (Fukuchi, Tran, Sakuma 2017) with its baselines, samplers and diagnostics.

Modules: :mod:`.params` (Step 0, local privacy, conservative accounting), :mod:`.model` (quadratic
losses and sufficient statistics), :mod:`.solver` (exact ball-constrained ridge), :mod:`.mechanism`
(Algorithms 1-2, the ``records`` and ``stats`` samplers, baselines, :func:`release_thetas` for audits),
:mod:`.diagnostic` (the privacy-proof diagnostic), :mod:`.experiment` (Monte-Carlo sweeps, data
preparation) and :mod:`.figures`. Bounds live in :mod:`dp_core.mechanisms.input_perturbation.bounds`.
"""

from .diagnostic import privacy_diagnostic
from .mechanism import (
    InputPerturbation,
    InputPerturbationDiagnostics,
    InputPerturbationRelease,
    release_thetas,
    release_thetas_xy,
)
from .model import sufficient_stats
from .params import conservative_accounting, input_perturbation_params, local_privacy
from .solver import solve_ball

__all__ = [
    "InputPerturbation",
    "InputPerturbationRelease",
    "InputPerturbationDiagnostics",
    "release_thetas",
    "release_thetas_xy",
    "sufficient_stats",
    "input_perturbation_params",
    "local_privacy",
    "conservative_accounting",
    "privacy_diagnostic",
    "solve_ball",
]


# -- the plug-in (see dp_core.plugin; discovered by dp_core.registry) -----------------------------
from ...plugin import LOWER_IS_PRIVATE, Mechanism, ParamSpec  # noqa: E402

PLUGIN = Mechanism(
    name="input-perturbation",
    title="Input perturbation (Fukuchi, Tran, Sakuma)",
    aliases=(),
    page="pages/input_perturbation.py",
    icon="🧮",
    summary="Every contributor adds Gaussian noise to its own record; the server fits a ridge-regularised model.",
    params=(
        ParamSpec(
            "alpha",
            float,
            1.0,
            options=(0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0),
            private=LOWER_IS_PRIVATE,
            label="local / central trade-off α",
            symbol="α",
            url_prefix="ip_",
            help="the claim is (αε, δ)-DP",
        ),
        ParamSpec("eta", float, 1.0, 0.05, 100.0, label="parameter-ball radius η", symbol="η", url_prefix="ip_"),
        ParamSpec("mode", str, "COR2", options=("COR2", "ALG1", "CORR"), label="σ_u formula", url_prefix="ip_"),
        ParamSpec("sampler", str, "stats", options=("stats", "records"), label="Monte-Carlo sampler", url_prefix="ip_"),
        # page parameters (the defaults of model, pos and n come from the data on the page)
        ParamSpec(
            "model",
            str,
            "least_squares",
            options=("least_squares", "logistic_taylor"),
            label="model",
            url_prefix="ip_",
            help="least squares for numeric targets, the Taylor surrogate of the logistic loss for class labels",
        ),
        ParamSpec(
            "dmult",
            float,
            1.0,
            options=(0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0),
            label="Δ multiplier",
            symbol="Δ",
            url_prefix="ip_",
            help="the regularisation Δ as a multiple of Δ*, the value minimising the Theorem-2 bound",
        ),
        ParamSpec("pos", float, 0.0, -1e12, 1e12, label="positive class", url_prefix="ip_"),
        ParamSpec("n", int, 1000, 2, 10**9, label="number of contributors n", symbol="n", url_prefix="ip_"),
        ParamSpec("wnorm", str, "eta", options=("eta", "measured"), label="‖ŵ‖ in the bound curves", url_prefix="ip_"),
    ),
    hooks={
        "cli": f"{__name__}.cli",
        "compare": f"{__name__}.compare:ADAPTER",
        "audit": f"{__name__}.audit:AUDIT",
        "reproduce": f"{__name__}.reproduce:reproduce",
        "bounds": f"{__name__}.bounds",
        "plan": f"{__name__}.plan",
        "release": f"{__name__}.release",
        "catalog": f"{__name__}.catalog",
        "estimator": f"{__name__}.estimator",
    },
)
