"""The user parameters of label-DP by aggregation, declared once (page links, CLI options, compare).
Details: docs/label_dp_bags.md §"settings (module)".
"""

from __future__ import annotations

from dataclasses import dataclass

from ...plugin import HIGHER_IS_PRIVATE, LOWER_IS_PRIVATE, param, validate_config

#: Caps of the page's widgets and links (the engine itself takes any k, m with m k <= n).
K_MIN, K_MAX, K_DEFAULT = 0, 4096, 0
M_MIN, M_MAX, M_DEFAULT = 0, 100_000, 0
K_FALLBACK, M_FALLBACK = 64, 100
RHO_MIN, RHO_MAX, RHO_DEFAULT = 0.0, 1.0, 0.1
VARIANTS = ("noisy-wtd-llp", "wtd-lba")
METRICS = ("test_mse", "excess_risk")
_AUTO = "0 = auto: k and m from the data size"


@dataclass(frozen=True)
class BagSettings:
    """The bag setting (k, m, rho), the variant accounted for and the page's label/accounting choices.

    The link keys are ``k``, ``m``, ``rho`` (shared by the pages) and ``lb_<name>`` for the others.
    """

    k: int = param(K_DEFAULT, lo=K_MIN, hi=K_MAX, private=HIGHER_IS_PRIVATE, label="bag size k", help=_AUTO, symbol="k")
    m: int = param(
        M_DEFAULT, lo=M_MIN, hi=M_MAX, private=LOWER_IS_PRIVATE, label="number of bags m", help=_AUTO, symbol="m"
    )
    rho: float = param(
        RHO_DEFAULT, lo=RHO_MIN, hi=RHO_MAX, private=HIGHER_IS_PRIVATE, label="noisy fraction ρ", symbol="ρ"
    )
    variant: str = param(VARIANTS[0], options=VARIANTS, label="mechanism variant", url_prefix="lb_")
    noise_std: float = param(
        1.0, lo=0.05, hi=100.0, private=HIGHER_IS_PRIVATE, label="label-noise std s", symbol="s", url_prefix="lb_"
    )
    public: bool = param(False, label="public label range", url_prefix="lb_")
    lo: float = param(0.0, lo=-1e12, hi=1e12, label="lowest label value", url_prefix="lb_")
    hi: float = param(1.0, lo=-1e12, hi=1e12, label="highest label value", url_prefix="lb_")
    gamma: float = param(
        0.01,
        lo=1e-6,
        hi=1 / 3,
        label="γ used for the accounting (declared lower bound on the per-example linear residual)",
        symbol="γ",
        url_prefix="lb_",
    )
    metric: str = param(METRICS[0], options=METRICS, label="utility metric", url_prefix="lb_")

    def __post_init__(self) -> None:
        validate_config(self)
