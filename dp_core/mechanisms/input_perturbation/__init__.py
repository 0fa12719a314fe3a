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
from ...plugin import Mechanism  # noqa: E402
from .experiment import PageSettings, SimulationConfig  # noqa: E402

PLUGIN = Mechanism(
    name="input-perturbation",
    title="Input perturbation (Fukuchi, Tran, Sakuma)",
    aliases=(),
    page="pages/input_perturbation.py",
    icon="🧮",
    order=10,
    summary="Every contributor adds Gaussian noise to its own record; the server fits a ridge-regularised model.",
    configs=((SimulationConfig, "ip_"), (PageSettings, "ip_")),
    package=__name__,
)
