"""The mechanisms the audit knows, their modes, neighbouring pairs and options.

One :class:`AuditableMechanism` per mechanism; the CLI (``python -m dp_core audit NAME``) and the
audit page are both built from :data:`MECHANISMS`, so a new adapter appears in both at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._validation import check_choice, check_epsilon
from ..exceptions import InvalidPrivacyParameter
from .core import AuditTarget
from .simple import gaussian_target, laplace_target

__all__ = ["MECHANISMS", "AuditableMechanism", "Option", "make_target", "register"]


@dataclass(frozen=True)
class Option:
    """A mechanism-specific numeric option (CLI ``--kebab-name``, page widget)."""

    name: str
    kind: type
    default: Any
    help: str
    lo: float | None = None
    hi: float | None = None


@dataclass(frozen=True)
class AuditableMechanism:
    """How to audit one mechanism.

    Attributes
    ----------
    name : str
        CLI name (``audit NAME``) and the ``?mechanism=`` value of the page.
    title : str
        Title shown on the page.
    modes, pairs : dict
        ``{key: description}`` of the modes (claims) and the neighbouring pairs that can be tried;
        the first entry of each is the default.
    build : callable
        ``build(*, mode, pair, epsilon, delta, dataset, pair_seed, **options) -> AuditTarget``.
    options : tuple of Option
    uses_delta : bool
        Whether the claim has a delta (pure-DP mechanisms are audited at delta = 0).
    needs_data : tuple of str
        Pairs that are built from the user's dataset.
    default_runs, max_runs : int
    page : str
        The mechanism's own page (for a link back), or "".
    summary : str
        One line about the mechanism.
    default_dataset : str
        Demo dataset used by the CLI when none is given.
    """

    name: str
    title: str
    modes: dict[str, str]
    pairs: dict[str, str]
    build: Callable[..., AuditTarget]
    options: tuple[Option, ...] = ()
    uses_delta: bool = True
    needs_data: tuple[str, ...] = ()
    default_runs: int = 100_000
    max_runs: int = 1_000_000
    page: str = ""
    summary: str = ""
    default_dataset: str = "census"
    extra: dict = field(default_factory=dict)


def _build_laplace(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, sensitivity=1.0, clip=1.0):
    return laplace_target(
        epsilon=epsilon,
        sensitivity=sensitivity,
        pair=pair,
        y=None if dataset is None else dataset.y,
        clip=clip,
        pair_seed=pair_seed,
    )


def _build_gaussian(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, sensitivity=1.0, clip=1.0):
    return gaussian_target(
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        calibration=mode,
        pair=pair,
        y=None if dataset is None else dataset.y,
        clip=clip,
        pair_seed=pair_seed,
    )


_SIMPLE_PAIRS = {
    "boundary": "worst case: the query moves by its full sensitivity",
    "random": "from your data: one random row replaced by another (mean of y, clipped)",
}
_SIMPLE_OPTIONS = (
    Option("sensitivity", float, 1.0, "sensitivity of the query (boundary pair)", lo=1e-6, hi=1e6),
    Option("clip", float, 1.0, "clipping bound of the mean query (random pair)", lo=1e-6, hi=1e6),
)

MECHANISMS: dict[str, AuditableMechanism] = {}


def register(m: AuditableMechanism) -> None:
    """Add (or replace) a mechanism in :data:`MECHANISMS`."""
    MECHANISMS[m.name] = m


register(
    AuditableMechanism(
        name="laplace",
        title="Laplace mechanism",
        modes={"standard": "scale = sensitivity / ε (pure ε-DP)"},
        pairs=_SIMPLE_PAIRS,
        build=_build_laplace,
        options=_SIMPLE_OPTIONS,
        uses_delta=False,
        needs_data=("random",),
        summary="Laplace noise of scale Δ/ε on a scalar query.",
    )
)
register(
    AuditableMechanism(
        name="gaussian",
        title="Gaussian mechanism",
        modes={
            "analytic": "σ from the analytic calibration (Balle–Wang)",
            "classic": "σ = Δ·sqrt(2 ln(1.25/δ))/ε (ε ≤ 1)",
        },
        pairs=_SIMPLE_PAIRS,
        build=_build_gaussian,
        options=_SIMPLE_OPTIONS,
        needs_data=("random",),
        summary="Gaussian noise on a scalar query, calibrated for (ε, δ).",
    )
)


def _build_input_perturbation(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, n=10_000, alpha=1.0):
    from ..mechanisms.input_perturbation.audit import input_perturbation_target

    return input_perturbation_target(
        dataset=dataset, epsilon=epsilon, delta=delta, mode=mode, pair=pair, n=n, alpha=alpha, pair_seed=pair_seed
    )


def _build_large_margin(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, n=300, lam=0.01, h=0.5):
    from ..mechanisms.large_margin_gaussian.audit import large_margin_target

    return large_margin_target(
        dataset=dataset, epsilon=epsilon, mode=mode, pair=pair, n=n, lam=lam, h=h, pair_seed=pair_seed
    )


def _build_label_dp(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, m=10, k=64, rho=0.1, n=2000):
    from ..mechanisms.label_dp_bags.audit import label_dp_target

    return label_dp_target(
        dataset=dataset, epsilon=epsilon, delta=delta, mode=mode, pair=pair, m=m, k=k, rho=rho, n=n, pair_seed=pair_seed
    )


def _build_l1(*, mode, pair, epsilon, delta, dataset=None, pair_seed=0, n=20, theta=1.5, iota=1.0, grid_points=41):
    from ..mechanisms.l1_exponential.audit import l1_exponential_target

    return l1_exponential_target(
        dataset=dataset,
        epsilon=epsilon,
        mode=mode,
        pair=pair,
        n=n,
        theta=theta,
        iota=iota,
        grid_points=grid_points,
        pair_seed=pair_seed,
    )


def _register_adapters() -> None:
    from ..mechanisms.input_perturbation import audit as ip
    from ..mechanisms.l1_exponential import audit as l1
    from ..mechanisms.label_dp_bags import audit as ld
    from ..mechanisms.large_margin_gaussian import audit as lm

    register(
        AuditableMechanism(
            name="input-perturbation",
            title="Input perturbation",
            modes=ip.MODES,
            pairs=ip.PAIRS,
            build=_build_input_perturbation,
            options=(
                Option("n", int, 10_000, "number of contributors (first n training rows)", lo=50, hi=1_000_000),
                Option("alpha", float, 1.0, "local/central knob α in (0, 1]; the claim is (αε, δ)-DP", lo=0.01, hi=1.0),
            ),
            needs_data=tuple(ip.PAIRS),
            default_runs=20_000,
            max_runs=200_000,
            page="pages/input_perturbation.py",
            summary=(
                "Every contributor adds Gaussian noise to its own record; the server fits a ridge-regularised model."
            ),
        )
    )
    register(
        AuditableMechanism(
            name="large-margin-gaussian",
            title="Large-margin Gaussian classifier",
            modes=lm.MODES,
            pairs=lm.PAIRS,
            build=_build_large_margin,
            options=(
                Option("n", int, 300, "training rows used", lo=20, hi=5_000),
                Option("lam", float, 0.01, "trace regulariser λ", lo=1e-4, hi=10.0),
                Option("h", float, 0.5, "Huber width h", lo=0.01, hi=5.0),
            ),
            uses_delta=False,
            needs_data=tuple(lm.PAIRS),
            default_runs=1_000,
            max_runs=20_000,
            page="pages/large_margin_gaussian.py",
            default_dataset="gaussian_classes",
            summary="Objective perturbation of a multiclass large-margin Gaussian classifier.",
        )
    )
    register(
        AuditableMechanism(
            name="label-dp-bags",
            title="Label-DP by aggregation",
            modes=ld.MODES,
            pairs=ld.PAIRS,
            build=_build_label_dp,
            options=(
                Option("m", int, 10, "number of bags m", lo=1, hi=100_000),
                Option("k", int, 64, "bag size k (m·k ≤ n)", lo=1, hi=4096),
                Option("rho", float, 0.1, "noisy fraction ρ (noisy-wtd-LLP)", lo=0.0, hi=1.0),
                Option("n", int, 2_000, "rows used (first n training rows)", lo=2, hi=1_000_000),
            ),
            needs_data=tuple(ld.PAIRS),
            default_runs=2_000,
            max_runs=200_000,
            page="pages/label_dp_bags.py",
            summary="Labels released only as (weighted) sums over random bags.",
        )
    )
    register(
        AuditableMechanism(
            name="l1-exponential",
            title="Heavy-tailed ℓ1 regression",
            modes=l1.MODES,
            pairs=l1.PAIRS,
            build=_build_l1,
            options=(
                Option("n", int, 20, "rows used (random pair)", lo=2, hi=100_000),
                Option("theta", float, 1.5, "moment order θ in [1.05, 2]", lo=1.05, hi=2.0),
                Option("iota", float, 1.0, "truncation scale ι", lo=1e-3, hi=100.0),
                Option("grid_points", int, 41, "grid points on W = [−1, 1]", lo=3, hi=100_001),
            ),
            uses_delta=False,
            needs_data=("random",),
            default_runs=100_000,
            max_runs=2_000_000,
            page="pages/l1_exponential.py",
            default_dataset="heavy_tailed",
            summary="The exponential mechanism on a truncated ℓ1 loss (exact grid sampler, d = 1).",
        )
    )


_register_adapters()


def make_target(
    mechanism: str,
    *,
    mode: str | None = None,
    pair: str | None = None,
    epsilon: float,
    delta: float,
    dataset=None,
    pair_seed: int = 0,
    **options,
) -> AuditTarget:
    """Build the :class:`AuditTarget` of ``mechanism`` in ``mode`` on ``pair``.

    Parameters
    ----------
    mechanism : str
        A key of :data:`MECHANISMS`.
    mode, pair : str, optional
        Keys of the mechanism's ``modes`` / ``pairs`` (default: the first).
    epsilon, delta : float
        The privacy parameters the mechanism is run (and its claim checked) at.
    dataset : dp_core.data.Dataset, optional
        The user's data, for pairs built from data.
    pair_seed : int
        Seed choosing random neighbouring pairs.
    **options
        Mechanism-specific options (see ``MECHANISMS[mechanism].options``).
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    # exp(epsilon) appears in every test statistic; above 100 no number of runs could tell epsilons apart
    if check_epsilon(epsilon, allow_inf=False) > 100.0:
        raise InvalidPrivacyParameter(f"epsilon must be in (0, 100] for an audit, got {epsilon:g}.")
    m = MECHANISMS[mechanism]
    mode = next(iter(m.modes)) if mode is None else check_choice("mode", mode, m.modes)
    pair = next(iter(m.pairs)) if pair is None else check_choice("pair", pair, m.pairs)
    known = {o.name for o in m.options}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for mechanism {mechanism!r}; valid: {sorted(known)}.")
    if pair in m.needs_data and dataset is None:
        raise ValueError(f"pair {pair!r} of mechanism {mechanism!r} is built from data: pass a dataset.")
    return m.build(mode=mode, pair=pair, epsilon=epsilon, delta=delta, dataset=dataset, pair_seed=pair_seed, **options)
