"""Widget limits and defaults, and :data:`URL_PARAMS`, the declaration of every URL parameter (parsed only
by ``ui.state``; dp_core's validation stays the authority for the mechanisms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EPS_MIN, EPS_MAX, EPS_DEFAULT = 0.01, 10.0, 1.0
# Log-spaced, readable values for the epsilon slider: 0.01 ... 10.
EPS_OPTIONS = tuple(
    sorted({round(m * 10.0**e, 6) for e in (-2, -1, 0) for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)} | {10.0})
)
#: The ε slider's end labels (left: small ε, right: large ε).
EPS_SLIDER_ENDS = ("← more private", "more accurate →")
#: From this ε up the sidebar says the promise is weak, from EPS_SMALL down that the noise is large.
EPS_LARGE, EPS_SMALL = 5.0, 0.2
#: The sidebar's notes at very large / very small ε ({eps}: the chosen ε, {factor}: e^ε, {limit}: the threshold).
EPS_NOTE_HIGH = (
    "ε = {eps} (≥ {limit}) is a weak promise: what anyone can conclude about one person may change by a "
    "factor of up to e^ε ≈ {factor}. Use it only where privacy matters little."
)
EPS_NOTE_LOW = (
    "ε = {eps} (≤ {limit}) is a very strong promise (a factor of at most e^ε ≈ {factor}), paid for with much "
    "noise: expect far lower accuracy, above all on small datasets."
)
DELTA_OPTIONS = tuple(sorted({round(m * 10.0**e, 14) for e in range(-12, 0) for m in (1, 2, 5)} | {0.5}))
DELTA_DEFAULT = 1e-5
SEED_DEFAULT = 0
TRIAL_OPTIONS = (10, 20, 50, 100, 200, 500, 1000)
TRIALS_DEFAULT = 100

# Label-DP bag parameters (shared so they survive page switches and live in the URL).
# k = 0 or m = 0 means "auto": the comparison picks both from the data size; the Label-DP page replaces
# it by its suggested setting (or K_FALLBACK, M_FALLBACK when none fits).
K_MIN, K_MAX, K_DEFAULT = 0, 4096, 0
M_MIN, M_MAX, M_DEFAULT = 0, 100_000, 0
K_FALLBACK, M_FALLBACK = 64, 100
RHO_MIN, RHO_MAX, RHO_DEFAULT = 0.0, 1.0, 0.1

DEFAULT_DATASET = "census"
#: The risk caps a negotiation takes beside its utility target (mirrors ``dp_core.risk.targets.RISK_METRICS``;
#: kept literal so that importing this module stays cheap; a test checks they agree).
RISK_CAPS = ("none", "tpr_at_fpr_0.01", "tpr_at_fpr_0.001", "mia_advantage")
#: Row preprocessing rules (mirrors ``dp_core.preprocessing.PREPROCESS_METHODS``; kept literal so this
#: module imports nothing heavy).
PREPROCESS_OPTIONS = ("normalize", "clip", "scale", "minmax")
PREPROCESS_DEFAULT = "normalize"

SEED_MAX = 2**31 - 1

# Compare page.
GRID_OPTIONS = tuple(sorted(set(EPS_OPTIONS) | {20.0, 50.0}))
N_EPS_OPTIONS = (4, 6, 8, 10, 12, 16)
COMPARE_VIEWS = ("utility", "excess_risk")
COMPARE_TMETRICS = ("accuracy", "r2", "mae", "excess_risk", "none")
TDELTA_MAX = 0.5
TVALUE_LIMIT = 1e6
#: The compare page's tabs (URL value ``cview``).
COMPARE_TABS = ("compare", "card", "negotiate", "share")
#: "What if we had N times the rows" choices of the negotiation (1 = the data as it is).
ROWS_FACTOR_OPTIONS = (1.0, 2.0, 4.0, 10.0)
#: The negotiation target each metric starts from when it is picked (``mae``, in the target's units, starts
#: from the measured curves: :func:`dp_core.negotiate.default_target_value`; this value only when none is measured).
TVALUE_DEFAULTS = {"accuracy": 0.9, "r2": 0.3, "mae": 1.0, "excess_risk": 0.05, "none": 0.0}

# Input perturbation page: its parameters are the ParamSpecs of dp_core/mechanisms/input_perturbation.
#: The α choices of that plug-in's ParamSpec, also used by the guided tour (a test checks they agree).
IP_ALPHA_OPTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0)


# Guided tour ("Start here").
TOUR_STEPS = 6

# Privacy audit page.
AUDIT_RUN_OPTIONS = (200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)

#: Directions of :attr:`UrlParam.private`: which side of the range gives the stronger guarantee.
LOWER_IS_PRIVATE, HIGHER_IS_PRIVATE = "lower", "higher"


@dataclass(frozen=True, slots=True)
class UrlParam:
    """How one URL query parameter is parsed (fields: ``docs/foundation.md`` §"UrlParam fields")."""

    kind: type
    default: Any
    lo: float | None = None
    hi: float | None = None
    options: tuple | None = None
    step: float | None = None
    private: str | None = None
    multi: bool = False
    page: str | None = None
    label: str = ""


_C, _AU, _TOUR = "pages/compare.py", "pages/audit.py", "pages/start_here.py"

#: Every URL parameter of the app. Shared ones (``page=None``) are read by ``ui.state.init_state``;
#: page ones by ``ui.state.url_param`` / ``seed_widget`` (data-dependent defaults and options are
#: passed by the page). Audit mechanism options (``audit_<mechanism>_<option>``) are declared by the
#: audit registry itself: see :func:`url_spec`.
URL_PARAMS: dict[str, UrlParam] = {
    # shared
    "eps": UrlParam(float, EPS_DEFAULT, EPS_MIN, EPS_MAX, private=LOWER_IS_PRIVATE, label="privacy budget ε"),
    "delta": UrlParam(
        float, DELTA_DEFAULT, options=DELTA_OPTIONS, private=LOWER_IS_PRIVATE, label="failure probability δ"
    ),
    "seed": UrlParam(int, SEED_DEFAULT, 0, SEED_MAX, label="random seed"),
    "trials": UrlParam(int, TRIALS_DEFAULT, options=TRIAL_OPTIONS, label="Monte-Carlo trials"),
    "k": UrlParam(int, K_DEFAULT, K_MIN, K_MAX, private=HIGHER_IS_PRIVATE, label="bag size k"),
    "m": UrlParam(int, M_DEFAULT, M_MIN, M_MAX, private=LOWER_IS_PRIVATE, label="number of bags m"),
    "rho": UrlParam(float, RHO_DEFAULT, RHO_MIN, RHO_MAX, private=HIGHER_IS_PRIVATE, label="noisy fraction ρ"),
    "dataset": UrlParam(str, DEFAULT_DATASET, label="dataset"),
    "preprocess": UrlParam(str, PREPROCESS_DEFAULT, options=PREPROCESS_OPTIONS, label="row preprocessing"),
    # public per-column bounds declared for an uploaded file ('lo:hi,lo:hi,...'; '' for none)
    "bounds": UrlParam(str, "", label="declared public bounds"),
    # compare
    "eps_min": UrlParam(float, 0.05, options=GRID_OPTIONS, page=_C, label="smallest ε of the grid"),
    "eps_max": UrlParam(float, 10.0, options=GRID_OPTIONS, page=_C, label="largest ε of the grid"),
    "n_eps": UrlParam(int, 8, options=N_EPS_OPTIONS, page=_C, label="grid points"),
    "view": UrlParam(str, "utility", options=COMPARE_VIEWS, page=_C, label="chart view"),
    "mech": UrlParam(str, "all", multi=True, page=_C, label="mechanisms"),
    "tmetric": UrlParam(str, None, options=COMPARE_TMETRICS, page=_C, label="negotiation target"),
    "tvalue": UrlParam(float, None, -TVALUE_LIMIT, TVALUE_LIMIT, page=_C, label="target value"),
    "tdelta": UrlParam(float, 0.0, 0.0, TDELTA_MAX, page=_C, label="target δ"),
    "tsolve": UrlParam(str, "epsilon", options=("epsilon", "n"), page=_C, label="solve for"),
    "tcap": UrlParam(str, "none", options=RISK_CAPS, page=_C, label="risk cap"),
    "tcapv": UrlParam(float, 0.05, 0.0, 1.0, page=_C, label="risk cap value"),
    "trows": UrlParam(float, 1.0, options=ROWS_FACTOR_OPTIONS, page=_C, label="times the rows"),
    "cview": UrlParam(str, "compare", options=COMPARE_TABS, page=_C, label="tab"),
    # input perturbation, label-DP by aggregation, large-margin, heavy-tailed l1: their ip_*, lb_*, lm_*, l1_*
    # keys are declared by their plug-ins (ParamSpec, dp_core/mechanisms/<name>/__init__.py)
    # guided tour
    "step": UrlParam(int, 1, 1, TOUR_STEPS, page=_TOUR, label="tour step"),
    # privacy audit (options of the chosen mechanism are passed by the page: they depend on it)
    "mechanism": UrlParam(str, "gaussian", page=_AU, label="audited mechanism"),
    "audit_mode": UrlParam(str, None, page=_AU, label="audit mode"),
    "audit_pair": UrlParam(str, None, page=_AU, label="neighbouring datasets"),
    "audit_runs": UrlParam(int, None, options=AUDIT_RUN_OPTIONS, page=_AU, label="runs per dataset"),
    "audit_pair_seed": UrlParam(int, 0, 0, SEED_MAX, page=_AU, label="seed of the pair"),
    "audit_row": UrlParam(str, "", page=_AU, label="audit-table row (mechanism:mode)"),
}

#: The shared parameters (kept under ``p_<name>`` in ``st.session_state``): name -> (type, default).
SHARED_PARAMS = {name: (spec.kind, spec.default) for name, spec in URL_PARAMS.items() if spec.page is None}


def url_spec(name: str) -> UrlParam:
    """The declaration of URL parameter ``name`` (also ``audit_<mechanism>_<option>`` from the audit registry and
    the plug-ins' ``ParamSpec``); ``KeyError`` for an undeclared name.
    """
    if name in URL_PARAMS:
        return URL_PARAMS[name]
    if name.startswith("audit_"):
        from dp_core.audit import MECHANISMS

        for mech_name, mech in MECHANISMS.items():
            for opt in mech.options:
                if name == f"audit_{mech_name}_{opt.name}":
                    return UrlParam(opt.kind, opt.default, opt.lo, opt.hi, page=_AU, label=opt.help)
    spec = plugin_url_params().get(name)
    if spec is not None:
        return spec
    raise KeyError(
        f"{name!r} is not a declared URL parameter: declare it as a ParamSpec of its mechanism's plug-in "
        "(or, for a page without a plug-in, in ui.constants.URL_PARAMS)."
    )


def plugin_url_params() -> dict[str, UrlParam]:
    """The URL parameters the mechanism plug-ins declare (``ParamSpec.url_key``), on their pages (a key also in
    :data:`URL_PARAMS` is the same parameter; a test checks).
    """
    from dp_core.registry import plugins

    out: dict[str, UrlParam] = {}
    for plugin in plugins():
        for p in plugin.params:
            out[p.url_key] = UrlParam(
                p.kind,
                p.default,
                p.lo,
                p.hi,
                options=p.options or None,
                step=p.step,
                private=p.private or None,
                page=None if not p.url_prefix else (plugin.page or None),
                label=p.label or p.name,
            )
    return out
