"""Figure contract: every figure builder of ``dp_core`` draws something readable.

Builders are discovered by introspection (every public function of every ``dp_core`` module whose
return annotation is a plotly ``Figure``), so a new builder without a test input fails
:func:`test_every_builder_has_inputs`. Each is called with inputs produced by the real engine at
small, seeded sizes (log/linear and every mode/variant argument) and must pass
:func:`dp_core.figures.figure_problems`. The checker itself is tested on hand-made figures that
must fail.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import math
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

import dp_core
from dp_core.experiments import summarize
from dp_core.figures import (
    LOG_UNITS_MARK,
    apply_layout,
    figure_problems,
    hline,
    hrect,
    line_ci_figure,
    to_axis_units,
    vline,
)

_FIGURE_ANNOTATIONS = {"go.Figure", "plotly.graph_objects.Figure", "Figure", go.Figure}


# ------------------------------------------------------------------------------------------------
# discovery
# ------------------------------------------------------------------------------------------------


def _dp_core_modules():
    for info in pkgutil.walk_packages(dp_core.__path__, "dp_core."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def discover_builders() -> dict[str, object]:
    """``module.function`` -> function, for every public function annotated to return a Figure."""
    out = {}
    for mod in _dp_core_modules():
        for name, f in inspect.getmembers(mod, inspect.isfunction):
            if name.startswith("_") or f.__module__ != mod.__name__:
                continue
            if mod.__name__.endswith(".plan"):  # a page plan's cached wrappers hand over a builder's figure
                continue
            if inspect.signature(f).return_annotation in _FIGURE_ANNOTATIONS:
                out[f"{mod.__name__}.{name}"] = f
    return out


def _unannotated_figure_functions() -> list[str]:
    """Public functions whose source builds a figure but whose return annotation does not say so."""
    bad = []
    for mod in _dp_core_modules():
        text = Path(mod.__file__).read_text()
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            src = ast.get_source_segment(text, node) or ""
            if ("go.Figure(" in src or "make_subplots(" in src) and "return fig" in src:
                ann = ast.unparse(node.returns) if node.returns else ""
                if ann not in ("go.Figure", "plotly.graph_objects.Figure", "Figure"):
                    bad.append(f"{mod.__name__}.{node.name} (-> {ann or 'no annotation'})")
    return bad


# ------------------------------------------------------------------------------------------------
# the checker fails on broken figures (so it can fail)
# ------------------------------------------------------------------------------------------------


def _ok_line(log_x=False, log_y=False) -> go.Figure:
    fig = go.Figure(go.Scatter(x=[0.1, 1.0, 10.0], y=[1.0, 0.5, 0.2], mode="lines", name="Laplace"))
    return apply_layout(fig, x_title="ε", y_title="error", log_x=log_x, log_y=log_y)


def test_checker_accepts_a_clean_figure():
    fig = _ok_line(log_x=True, log_y=True)
    vline(fig, 1.0, log_x=True, annotation_text="ε = 1")
    hline(fig, 0.3, log_y=True, annotation_text="target 0.3")
    assert figure_problems(fig) == []


def test_to_axis_units():
    assert to_axis_units(1000.0, log=True) == pytest.approx(3.0)
    assert to_axis_units(-2.0, log=False) == -2.0
    with pytest.raises(ValueError, match="log axis"):
        to_axis_units(0.0, log=True)


@pytest.mark.parametrize("value", [1.0, 3.0])
def test_checker_flags_a_label_in_data_units_on_a_log_axis(value):
    fig = _ok_line(log_x=True)
    fig.add_vline(x=value, annotation_text=f"ε = {value:g}")  # the line is right, its label lands at 10**value
    probs = figure_problems(fig)
    assert len(probs) == 1 and "annotation" in probs[0] and "log" in probs[0], probs


def test_checker_flags_a_tiny_delta_label_placed_in_data_units():
    fig = _ok_line(log_y=True)
    fig.add_annotation(x=1.0, y=1e-6, text="target", name=LOG_UNITS_MARK)  # lands at delta = 10**1e-6 ~ 1
    assert any("10^" in p for p in figure_problems(fig))


def test_checker_flags_shapes_given_in_log10_units():
    fig = _ok_line(log_y=True)
    fig.add_hrect(y0=-3, y1=0)  # meant as 1e-3 .. 1; shapes take data units
    assert any("≤ 0" in p for p in figure_problems(fig))
    fig = go.Figure(go.Scatter(x=[10.0, 100.0, 1000.0], y=[1.0, 2.0, 3.0], name="a"))
    apply_layout(fig, x_title="n", y_title="value", log_x=True)
    fig.add_vline(x=2.0)  # meant as n = 100
    assert any("fit as a log10 value" in p for p in figure_problems(fig))
    fig = _ok_line(log_y=True)
    fig.update_yaxes(range=[-3, 1])
    hrect(fig, 0.5, 8.0, log_y=True)  # data units: right
    assert figure_problems(fig) == []


def test_checker_flags_any_unconverted_label_on_a_log_axis():
    fig = _ok_line(log_x=True)
    fig.add_vline(x=1.0, annotation_text="ι*")  # ambiguous by value alone: 1 or 10 are both in the data
    probs = figure_problems(fig)
    assert len([p for p in probs if "not placed with" in p]) == 1, probs
    fig = _ok_line(log_x=True)
    vline(fig, 1.0, log_x=True, annotation_text="ι*")
    assert figure_problems(fig) == []
    assert fig.layout.shapes[0].x0 == 1.0 and fig.layout.annotations[0].x == 0.0


def test_checker_flags_a_hidden_annotation():
    fig = _ok_line()
    fig.update_xaxes(range=[0, 12])
    fig.add_annotation(x=50.0, y=0.5, text="far away")
    assert any("outside the visible range" in p for p in figure_problems(fig))


def test_checker_flags_category_bars_on_a_forced_linear_axis():
    fig = go.Figure(go.Bar(x=["bag 1", "bag 2"], y=[1.0, 2.0], name="sum"))
    fig.update_layout(xaxis_title="bag", yaxis_title="sum")
    assert figure_problems(fig) == []
    fig.update_xaxes(type="linear")
    probs = figure_problems(fig)
    assert any("categories" in p for p in probs) and any("no point" in p for p in probs)


def test_checker_flags_traces_with_nothing_to_draw():
    fig = _ok_line(log_y=True)
    fig.add_trace(go.Scatter(x=[1.0, 2.0], y=[math.nan, math.inf], name="broken"))
    fig.add_trace(go.Scatter(x=[1.0, 2.0], y=[-1.0, 0.0], name="negative on log"))
    probs = figure_problems(fig)
    assert sum("no point it can draw" in p for p in probs) == 2


def test_checker_flags_a_range_that_hides_every_point():
    fig = _ok_line()
    fig.update_xaxes(range=[20, 30])
    assert any("no point inside the visible" in p for p in figure_problems(fig))
    fig = _ok_line(log_x=True)
    fig.update_xaxes(range=[2, 5])  # meant as epsilon in [2, 5]; on a log axis this is 100 .. 100,000
    assert any("no point inside" in p for p in figure_problems(fig))


def test_checker_flags_a_histogram_squeezed_by_outliers():
    g = np.random.default_rng(0)
    x = np.concatenate([g.normal(size=500), [400.0, 900.0]])
    fig = go.Figure(go.Histogram(x=x, name="residuals"))
    fig.update_layout(xaxis_title="residual", yaxis_title="count")
    assert any("central 90%" in p for p in figure_problems(fig))
    fig2 = go.Figure(go.Histogram(x=g.normal(size=500), name="residuals"))
    fig2.update_layout(xaxis_title="residual", yaxis_title="count")
    assert figure_problems(fig2) == []


def test_checker_flags_missing_axis_titles_per_subplot():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Histogram(x=[1, 2, 3], name="a"), row=1, col=1)
    fig.add_trace(go.Histogram(x=[1, 2, 3], name="b"), row=1, col=2)
    fig.update_xaxes(title_text="value", row=1, col=1)
    probs = figure_problems(fig)
    assert {p.split()[0] for p in probs if "no title" in p} == {"xaxis2", "yaxis", "yaxis2"}


@pytest.mark.parametrize(
    "bad", ["excess_risk", "nan", "mean inf", "np.float64(0.5)", "None", "0.30000000000000004", "epsilon"]
)
def test_checker_flags_bad_text(bad):
    fig = _ok_line()
    fig.data[0].name = f"curve {bad}"
    assert figure_problems(fig), bad
    fig = _ok_line()
    fig.update_layout(title=f"title {bad}")
    assert figure_problems(fig), bad


def test_checker_accepts_symbols_and_subscripts():
    fig = _ok_line()
    fig.data[0].name = "σ_u (aggregate), λ<sub>min</sub>(M) + Δ_in, ‖N‖_F, x_j², 1,234 draws, δ = 1e-5"
    assert figure_problems(fig) == []


# ------------------------------------------------------------------------------------------------
# realistic inputs from the engine (small, seeded)
# ------------------------------------------------------------------------------------------------

SEED = 0


@functools.cache
def _ds(name: str, n: int | None = None):
    from dp_core.data import load_dataset

    return load_dataset(name, n=n, seed=SEED) if n else load_dataset(name, seed=SEED)


# -- generic ------------------------------------------------------------------------------------


@functools.cache
def _generic_summary() -> pd.DataFrame:
    g = np.random.default_rng(SEED)
    rows = []
    for m, scale in (("laplace", 1.0), ("gaussian", 0.6)):
        for e in (0.1, 0.3, 1.0, 3.0, 10.0):
            for t in range(8):
                rows.append(
                    {"method": m, "epsilon": e, "trial": t, "error": scale / e * (1 + 0.2 * g.standard_normal())}
                )
    return summarize(pd.DataFrame(rows), by=["epsilon", "method"], values=["error"])


def _generic_line(log: bool) -> go.Figure:
    return line_ci_figure(
        _generic_summary(),
        x="epsilon",
        y="error",
        x_title="privacy budget ε",
        y_title="mean absolute error",
        log_x=log,
        log_y=log,
        title="Error against ε",
    )


def _generic_bounds() -> pd.DataFrame:
    eps = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
    return pd.concat(
        [
            pd.DataFrame({"epsilon": eps, "bound": 2 * s / eps, "method": m})
            for m, s in (("laplace", 1.0), ("gaussian", 0.6))
        ]
    )


def cases_generic():
    from dp_core import figures as F

    for log in (False, True):
        yield f"line_ci_figure[log={log}]", "dp_core.figures.line_ci_figure", lambda log=log: _generic_line(log)
        yield (
            f"add_bound_trace[log={log}]",
            "dp_core.figures.add_bound_trace",
            lambda log=log: F.add_bound_trace(
                _generic_line(log), [0.1, 1, 10], [20, 2, 0.2], method="laplace", name="Laplace: bound"
            ),
        )
        yield (
            f"bound_traces[log={log}]",
            "dp_core.figures.bound_traces",
            lambda log=log: F.bound_traces(_generic_line(log), _generic_bounds(), x="epsilon"),
        )
        yield (
            f"style_refuted[log={log}]",
            "dp_core.figures.style_refuted",
            lambda log=log: F.style_refuted(_generic_line(log), ["laplace"]),
        )
        yield (
            f"group_refuted[log={log}]",
            "dp_core.figures.group_refuted",
            lambda log=log: F.group_refuted(_generic_line(log), ["laplace"]),
        )
        yield (
            f"apply_layout[log={log}]",
            "dp_core.figures.apply_layout",
            lambda log=log: F.apply_layout(
                go.Figure(go.Bar(x=["a b", "c d"], y=[1.0, 2.0], name="bars")),
                x_title="group",
                y_title="value",
                log_y=log,
            ),
        )

    def noise():
        from dp_core.calibration import gaussian_sigma_classic, laplace_scale

        eps = np.logspace(-1, 0, 12)
        t = pd.concat(
            [
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "scale": [laplace_scale(epsilon=e, sensitivity=1.0) for e in eps],
                        "method": "laplace",
                    }
                ),
                pd.DataFrame(
                    {
                        "epsilon": eps,
                        "scale": [gaussian_sigma_classic(epsilon=e, delta=1e-5, sensitivity=1.0) for e in eps],
                        "method": "gaussian_classic",
                    }
                ),
            ]
        )
        return F.noise_scale_figure(t, x="epsilon", y="scale", x_title="ε", y_title="noise scale")

    yield "noise_scale_figure", "dp_core.figures.noise_scale_figure", noise
    yield "empty_figure", "dp_core.figures.empty_figure", lambda: F.empty_figure("No results")
    yield "corner_note", "dp_core.figures.corner_note", lambda: F.corner_note(F.empty_figure("No results"), "Not drawn")

    for log in (False, True):

        def marks(log=log):
            fig = _generic_line(log)
            F.vline(fig, 2.0, log_x=log, annotation_text="ε = 2")
            F.hline(fig, 0.5, log_y=log, annotation_text="target 0.5", line_dash="dot")
            F.vrect(fig, 0.2, 0.5, log_x=log, fillcolor="rgba(0,0,0,0.1)", line_width=0)
            F.hrect(fig, 0.1, 0.3, log_y=log, fillcolor="rgba(0,0,0,0.1)", line_width=0)
            return F.annotate(fig, 5.0, 1.0, log_x=log, log_y=log, text="a note", showarrow=True)

        for helper in ("vline", "hline", "vrect", "hrect", "annotate"):
            yield f"{helper}[log={log}]", f"dp_core.figures.{helper}", marks

    from dp_core.explain import posterior_figure

    for eps in (0.1, 1.0, 5.0):
        yield (
            f"posterior_figure[eps={eps}]",
            "dp_core.explain.posterior_figure",
            lambda e=eps: posterior_figure(epsilon=e),
        )


# -- compare ------------------------------------------------------------------------------------


@functools.cache
def _compare(dataset: str):
    from dp_core.compare import make_spec, run_compare

    mechs = {
        "iris": ["output_perturbation", "large_margin_gaussian"],
        "diabetes": ["output_perturbation", "input_perturbation", "label_dp_bags"],
    }[dataset]
    spec = make_spec(epsilons=(0.1, 0.3, 2.0, 8.0), delta=1e-5, n_trials=3, seed=SEED, k=8, m=8, rho=0.5)
    return run_compare(_ds(dataset), spec, mechanisms=mechs)


def cases_compare():
    from dp_core.compare.figures import compare_figure, negotiation_figure
    from dp_core.negotiate import negotiate

    for dataset in ("iris", "diabetes"):
        for view in ("utility", "excess_risk"):
            for marker in (None, 1.0, 0.15):
                yield (
                    f"compare_figure[{dataset},{view},eps_marker={marker}]",
                    "dp_core.compare.figures.compare_figure",
                    lambda d=dataset, v=view, mk=marker: compare_figure(_compare(d), y=v, eps_marker=mk),
                )
        yield (
            f"compare_figure[{dataset},no bounds]",
            "dp_core.compare.figures.compare_figure",
            lambda d=dataset: compare_figure(_compare(d), y="excess_risk", show_bounds=False),
        )

    def neg(dataset, target):
        r = _compare(dataset)
        answer = negotiate(
            _ds(dataset),
            [target],
            epsilon=1.0,
            delta=1e-5,
            mechanisms=None,
            n_trials=3,
            seed=SEED,
            eps_min=0.1,
            eps_max=8.0,
            n_points=4,
            k=8,
            m=8,
            rho=0.5,
            result=r,
            solve_for="epsilon",
        )
        return negotiation_figure(r, answer)

    yield (
        "negotiation_figure[accuracy]",
        "dp_core.compare.figures.negotiation_figure",
        lambda: neg("iris", "accuracy>=0.6"),
    )
    yield (
        "negotiation_figure[excess]",
        "dp_core.compare.figures.negotiation_figure",
        lambda: neg("diabetes", "excess_risk<=0.05"),
    )

    def curve(dataset, target, **kw):
        from dp_core.compare.figures import learning_curve_figure

        answer = negotiate(
            _ds(dataset), [target], epsilon=1.0, mechanisms=["output_perturbation"], n_trials=3, seed=SEED, **kw
        )
        return learning_curve_figure(answer)

    yield (
        "learning_curve_figure[smallest n]",
        "dp_core.compare.figures.learning_curve_figure",
        lambda: curve("iris", "accuracy>=0.8", solve_for="n"),
    )
    yield (
        "learning_curve_figure[twice the rows, excess]",
        "dp_core.compare.figures.learning_curve_figure",
        lambda: curve("diabetes", "excess_risk<=0.05", rows_factor=2.0, eps_min=0.1, eps_max=8.0, n_points=4),
    )


# -- audit --------------------------------------------------------------------------------------


@functools.cache
def _audit(mechanism: str, mode: str | None):
    from dp_core.audit import make_target
    from dp_core.audit.report import audit_report

    kw = {"mode": mode} if mode else {}
    target = make_target(mechanism, epsilon=1.0, delta=1e-5, dataset=_ds("census", 2000), **kw)
    return audit_report(target, runs=400, seed=SEED)


def cases_audit():
    from dp_core.audit.report import convergence_figure, histogram_figure

    for mech, mode in (
        ("gaussian", "analytic"),
        ("laplace", None),
        ("label-dp-bags", "naive-lba"),
        ("label-dp-bags", None),
        ("label-dp-bags", "noisy-wtd-llp"),
    ):
        yield (
            f"histogram_figure[{mech},{mode}]",
            "dp_core.audit.report.histogram_figure",
            lambda a=mech, b=mode: histogram_figure(_audit(a, b)),
        )
        yield (
            f"convergence_figure[{mech},{mode}]",
            "dp_core.audit.report.convergence_figure",
            lambda a=mech, b=mode: convergence_figure(_audit(a, b)),
        )

    def infinite_estimate():  # a leak with no false positives: the point estimate is infinite at every run count
        import dataclasses

        rep = _audit("label-dp-bags", None)
        conv = rep.convergence.assign(eps_estimate=math.inf)
        return convergence_figure(dataclasses.replace(rep, convergence=conv))

    yield "convergence_figure[infinite estimate]", "dp_core.audit.report.convergence_figure", infinite_estimate


# -- input perturbation -------------------------------------------------------------------------


@functools.cache
def _ip_data(model: str):
    from dp_core.mechanisms.input_perturbation.experiment import prepare_data

    return prepare_data(_ds("census", 6000), model, seed=SEED)


@functools.cache
def _ip_params(model: str, mode: str, n: int = 4000):
    from dp_core.mechanisms.input_perturbation import model as ipm
    from dp_core.mechanisms.input_perturbation import params as ipp

    c = ipm.model_constants(model, eta=1.0)
    return ipp.input_perturbation_params(
        n=n,
        d=_ip_data(model).d,
        epsilon=1.0,
        delta=1e-5,
        eta=1.0,
        zeta=c.zeta,
        lam=c.lam,
        alpha=1.0,
        Delta_multiplier=1.0,
        sigma_u_mode=mode,
    )


@functools.cache
def _ip_sweep(model: str):
    from dp_core.mechanisms.input_perturbation import bounds as ipb
    from dp_core.mechanisms.input_perturbation import experiment as ipe
    from dp_core.mechanisms.input_perturbation import model as ipm

    data = _ip_data(model)
    cfg = ipe.SimulationConfig(epsilon=1.0, delta=1e-5, model=model)
    ns = (1024, 2048, data.n_train)
    df = ipe.simulate_over_n(data, cfg, list(ns), n_trials=4, seed=SEED)
    c = ipm.model_constants(model, eta=1.0)
    bounds = pd.DataFrame(
        ipb.theorem2_curve(
            list(ns),
            d=data.d,
            epsilon=1.0,
            delta=1e-5,
            eta=1.0,
            zeta=c.zeta,
            lam=c.lam,
            alpha=1.0,
            Delta_multiplier=1.0,
            sigma_u_mode="COR2",
            w_norm=None,
        )
    )
    return df, bounds


def cases_input_perturbation():
    from dp_core.mechanisms.input_perturbation import bounds as ipb
    from dp_core.mechanisms.input_perturbation import diagnostic as ipd
    from dp_core.mechanisms.input_perturbation import experiment as ipe
    from dp_core.mechanisms.input_perturbation import figures as ipf
    from dp_core.mechanisms.input_perturbation import model as ipm
    from dp_core.mechanisms.input_perturbation import params as ipp

    mod = "dp_core.mechanisms.input_perturbation.figures"
    for mode in ("COR2", "ALG1"):
        yield (
            f"theorem2_stack_figure[{mode}]",
            f"{mod}.theorem2_stack_figure",
            lambda md=mode: ipf.theorem2_stack_figure(ipb.theorem2_terms(_ip_params("least_squares", md)).as_dict()),
        )
    d = 14
    for model in ("least_squares", "logistic_taylor"):
        yield (
            f"noise_vs_epsilon_figure[{model}]",
            f"{mod}.noise_vs_epsilon_figure",
            lambda m=model: ipf.noise_vs_epsilon_figure(
                ipe.noise_scale_table(n=4000, d=d, epsilons=np.logspace(-2, 1, 31), delta=1e-5, model=m), n=4000
            ),
        )
        yield (
            f"tradeoff_figure[{model}]",
            f"{mod}.tradeoff_figure",
            lambda m=model: ipf.tradeoff_figure(
                ipe.alpha_tradeoff_table(n=4000, d=d, epsilon=1.0, delta=1e-5, alphas=np.logspace(-2, 0, 21), model=m)
            ),
        )

    def scaling(mode, which):
        n_min = ipp.min_n(1e-5)["alg1" if mode == "ALG1" else "cor2"]
        if which == "sigma":
            ns = np.unique(
                np.concatenate([n_min * (1 + np.logspace(-3, 0, 12)), np.logspace(np.log10(2 * n_min), 7, 40)])
            )
            t = ipe.noise_vs_n_table(ns=ns, d=14, epsilon=1.0, delta=1e-5, sigma_u_mode=mode)
            return ipf.sigma_u_vs_n_figure(t, n_min=n_min)
        t = ipe.local_vs_n_table(
            ns=np.unique(np.logspace(np.log10(n_min + 1), 8, 25).astype(int)),
            d=14,
            epsilon=1.0,
            delta=1e-5,
            sigma_u_mode=mode,
        )
        return ipf.local_vs_n_figure(t)

    for mode in ("COR2", "ALG1"):
        yield f"sigma_u_vs_n_figure[{mode}]", f"{mod}.sigma_u_vs_n_figure", lambda md=mode: scaling(md, "sigma")
        yield f"local_vs_n_figure[{mode}]", f"{mod}.local_vs_n_figure", lambda md=mode: scaling(md, "local")

    for model in ("least_squares", "logistic_taylor"):
        metric_name = "test RMSE" if model == "least_squares" else "test accuracy"
        yield (
            f"excess_vs_n_figure[{model}]",
            f"{mod}.excess_vs_n_figure",
            lambda m=model: ipf.excess_vs_n_figure(*_ip_sweep(m)),
        )
        yield (
            f"excess_vs_n_figure[{model},no rates]",
            f"{mod}.excess_vs_n_figure",
            lambda m=model: ipf.excess_vs_n_figure(*_ip_sweep(m), show_rates=False),
        )
        yield f"gap_figure[{model}]", f"{mod}.gap_figure", lambda m=model: ipf.gap_figure(_ip_sweep(m)[0])
        yield (
            f"metric_figure[{model}]",
            f"{mod}.metric_figure",
            lambda m=model, name=metric_name: ipf.metric_figure(
                summarize(_ip_sweep(m)[0], by=["n", "method"], values=["excess_risk", "test_metric"]), metric_name=name
            ),
        )

    def diag(model):
        data = _ip_data(model)
        p = _ip_params(model, "COR2", n=data.n_train)
        stats = ipm.sufficient_stats(data.X_train, data.y_train, model)
        res = ipd.privacy_diagnostic(stats, p, n_draws=300, seed=SEED)
        return ipf.diagnostic_figure(res.lmin_plus_ridge, res.quad_form, res.threshold)

    for model in ("least_squares", "logistic_taylor"):
        yield f"diagnostic_figure[{model}]", f"{mod}.diagnostic_figure", lambda m=model: diag(m)

    def repro(model):

        df = _ip_repro()
        s = summarize(df, by=["model", "epsilon", "n", "method"], values=["test_metric", "excess_risk"])
        return ipf.reproduction_figure(s[s["model"] == model], model=model)

    for model in ("least_squares", "logistic_taylor"):
        yield f"reproduction_figure[{model}]", f"{mod}.reproduction_figure", lambda m=model: repro(m)


@functools.cache
def _ip_repro():
    from dp_core.mechanisms.input_perturbation.reproduce import reproduction_table

    return reproduction_table(quick=True, seed=SEED, n_trials=2, tune=False)


# -- heavy-tailed l1 regression -----------------------------------------------------------------


@functools.cache
def _l1_analysis(dataset: str, features: tuple, standardise: bool):
    from dp_core.mechanisms.l1_exponential.mechanism import L1ExponentialRegression
    from dp_core.mechanisms.l1_exponential.simulation import analyse_dataset

    # heavy_tailed at its default size (5,000 rows, the page's default): its few huge residuals are the case
    # that once squeezed the residual histogram into 2-4 % of its axis
    ds = _ds(dataset, 800) if dataset == "census" else _ds(dataset)
    est = L1ExponentialRegression(
        epsilon=1.0,
        theta=1.5,
        radius=1.0,
        convention="tight",
        c_iota=1.0,
        tau=1.0,
        sigma_theta=1.0,
        assumption="A3",
        eta_total=0.05,
        mode="auto",
        grid_budget=200_000,
        mcmc_preset="quick",
    )
    return analyse_dataset(
        ds.X,
        ds.y,
        feature_names=ds.feature_names,
        estimator=est,
        features=features,
        standardise=standardise,
        n_releases=10,
        seed=SEED,
        delta=1e-5,
    )


def _l1_base(d: int = 1, **kw):
    from dp_core.mechanisms.l1_exponential.population import HeavyTailedModel
    from dp_core.mechanisms.l1_exponential.simulation import SimulationConfig

    return SimulationConfig(
        model=HeavyTailedModel(d=d),
        n=kw.pop("n", 400),
        epsilon=1.0,
        theta=1.5,
        grid_budget=100_000,
        eval_size=1000,
        gd_steps=50,
        **kw,
    )


@functools.cache
def _l1_sweep(which: str):
    from dp_core.mechanisms.l1_exponential import simulation as sim

    if which == "rates":
        return sim.rate_sweep(_l1_base(), ns=(200, 800), thetas=(1.2, 1.5, 2.0), n_trials=3, seed=SEED)
    if which == "eps":
        return sim.epsilon_sweep(_l1_base(), epsilons=(0.1, 1.0, 10.0), n_trials=3, seed=SEED)
    if which == "trunc":
        return sim.truncation_sweep(_l1_base(), c_iotas=(0.05, 1.0, 20.0), n_trials=3, seed=SEED)
    return sim.baseline_sweep(_l1_base(), tails=(1.5, 4.0), n_trials=3, seed=SEED)


@functools.cache
def _l1_sampler():
    from dp_core.data import make_heavy_tailed
    from dp_core.mechanisms.l1_exponential.grid import em_grid
    from dp_core.mechanisms.l1_exponential.mcmc import MCMCSchedule, em_mcmc

    ds = make_heavy_tailed(300, d=2, seed=SEED)
    grid = em_grid(ds.X, ds.y, epsilon=1.0, theta=1.5, iota=0.05, m=60)
    mc = em_mcmc(
        ds.X, ds.y, epsilon=1.0, theta=1.5, iota=0.05, n_draws=40, schedule=MCMCSchedule.preset("quick"), rng=SEED
    )
    return grid.net.points, grid.probabilities, mc.draws, mc.diagnostics.as_dict()


def cases_l1_exponential():
    from dp_core.mechanisms.l1_exponential import bounds as l1b
    from dp_core.mechanisms.l1_exponential import figures as lf
    from dp_core.mechanisms.l1_exponential.truncation import CONVENTIONS

    mod = "dp_core.mechanisms.l1_exponential.figures"
    for iota in (0.1, 0.5, 2.0):
        yield (
            f"psi_figure[iota={iota}]",
            f"{mod}.psi_figure",
            lambda i=iota: lf.psi_figure(sorted({1.2, 1.5, 2.0, 1.8}), i),
        )
    for dataset, feats, std in (
        ("heavy_tailed", (0,), False),
        ("heavy_tailed", (0, 1), False),
        ("diabetes", (2, 3), True),
        ("census", (0,), True),
    ):

        def resid(d=dataset, f=feats, s=std):
            an = _l1_analysis(d, f, s)
            return lf.residual_histogram(an.residuals, an.result.calibration["iota"])

        def density(d=dataset, f=feats, s=std):
            an = _l1_analysis(d, f, s)
            marks = {"LAD (non-private)": an.result.lad_w}
            if len(f) == 1:
                probs = {c: an.density[c] for c in CONVENTIONS}
            else:
                probs = {"tight": an.density["tight"]}
            return lf.density_figure(an.density_points, probs, marks=marks)

        def releases(d=dataset, f=feats, s=std):
            an = _l1_analysis(d, f, s)
            return lf.releases_figure(an.result.em_draws, an.result.lad_w, an.feature_names)

        yield f"residual_histogram[{dataset},{feats}]", f"{mod}.residual_histogram", resid
        yield f"density_figure[{dataset},{feats}]", f"{mod}.density_figure", density
        yield f"releases_figure[{dataset},{feats}]", f"{mod}.releases_figure", releases
    yield "rate_figure", f"{mod}.rate_figure", lambda: lf.rate_figure(_l1_sweep("rates")[0])
    for a in ("A1", "A3"):
        yield (
            f"assumption_rates_figure[{a}]",
            f"{mod}.assumption_rates_figure",
            lambda: lf.assumption_rates_figure(n=2000, epsilon=1.0, eta_total=0.05, theta=1.5),
        )

    def eps_fig(conv):
        s2, b2 = _l1_sweep("eps")
        np_level = float(s2[s2.method == "nonprivate"]["excess_risk_mean"].mean())
        return lf.epsilon_figure(
            s2[s2.method == "em_l1"], b2, eps_star=l1b.privacy_dominance_epsilon(1.5, conv), nonprivate=np_level
        )

    for conv in ("tight", "paper_box"):
        yield f"epsilon_figure[{conv}]", f"{mod}.epsilon_figure", lambda c=conv: eps_fig(c)
    yield "truncation_figure", f"{mod}.truncation_figure", lambda: lf.truncation_figure(*_l1_sweep("trunc"))
    yield (
        "truncation_figure[no bound]",
        f"{mod}.truncation_figure",
        lambda: lf.truncation_figure(_l1_sweep("trunc")[0]),
    )
    yield "baseline_figure", f"{mod}.baseline_figure", lambda: lf.baseline_figure(_l1_sweep("base"))
    for which, sweep in (("rates", "rates"), ("epsilon", "eps"), ("truncation", "trunc"), ("baselines", "base")):
        yield (
            f"experiment_figure[{which}]",
            f"{mod}.experiment_figure",
            lambda w=which, s=sweep: lf.experiment_figure(w, _l1_sweep(s), theta=1.2, convention="paper_box"),
        )
    for coord in (0, 1):
        yield (
            f"sampler_figure[w{coord + 1}]",
            f"{mod}.sampler_figure",
            lambda c=coord: lf.sampler_figure(*_l1_sampler()[:3], coord=c, diagnostics=_l1_sampler()[3]),
        )


# -- label-DP by aggregation --------------------------------------------------------------------


@functools.cache
def _lb_data():
    from dp_core.mechanisms import label_dp_bags as lb

    return lb.prepare_dataset(_ds("census", 4000), b1=1.0, seed=SEED)


@functools.cache
def _lb_conditions(k: int, m: int):
    from dp_core.mechanisms import label_dp_bags as lb

    data = _lb_data()
    return lb.data_conditions(data.X, data.y, 1.0, k=k, m=m)


def _lb_params(variant: str, k: int, m: int) -> dict:
    if variant == "noisy-wtd-llp":
        return {"d": None, "b2": None, "gamma": None, "lam": None}
    c = _lb_conditions(k, m)
    return {"d": c["rank"], "b2": c["b2"], "gamma": float(min(c["gamma_default"], 1 / 3)), "lam": c["lam_star"]}


@functools.cache
def _lb_summary(variant: str, eps: float, rho: float, k: int = 16, m: int = 100):
    from dp_core.mechanisms.label_dp_bags import bounds as acc

    p = _lb_params(variant, k, m)
    return acc.accounting_summary(
        variant=variant, epsilon=eps, n=_lb_data().n, k=k, m=m, b1=1.0, rho=rho, noise_std=1.0, target_delta=1e-5, **p
    )


@functools.cache
def _lb_utility(k: int, m: int, rho: float):
    from dp_core.mechanisms import label_dp_bags as lb
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    data = _lb_data()
    ks = lbf.k_grid(data.n, m, k, max_points=3)
    ms = lbf.m_grid(data.n, k, m, data.d, max_points=3)
    points = [{"k": kk, "m": m, "rho": rho, "axis": "k"} for kk in ks] + [
        {"k": k, "m": mm, "rho": rho, "axis": "m"} for mm in ms
    ]
    per = lb.utility_sweep(data, points, n_trials=3, seed=SEED, epsilon=1.0, delta=1e-5, noise_std=1.0)
    by_k = summarize(per[per["axis"] == "k"], by=["k", "method"], values=["test_mse", "excess_risk", "ratio"])
    by_m = summarize(per[per["axis"] == "m"], by=["m", "method"], values=["test_mse", "excess_risk", "ratio"])
    return by_k, by_m, ms


@functools.cache
def _lb_replica():
    from unittest import mock

    from dp_core.mechanisms.label_dp_bags import reproduce as rep

    # the quick replica at a third of its size (still several feasible cells of Table 1)
    with mock.patch.dict(rep._QUICK["criteo"], {"n_train": 24_000, "seeds": 2}):
        return rep.replica_table(quick=True, seed=SEED)[0]


def cases_label_dp_bags():
    from dp_core.mechanisms import label_dp_bags as lb
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    mod = "dp_core.mechanisms.label_dp_bags.figures"
    for variant in ("noisy-wtd-llp", "wtd-lba"):
        for eps, rho in ((1.0, 0.1), (4.0, 0.5), (1.0, 0.0)):
            if variant == "wtd-lba" and rho != 0.1:
                continue
            yield (
                f"terms_figure[{variant},eps={eps},rho={rho}]",
                f"{mod}.terms_figure",
                lambda v=variant, e=eps, r=rho: lbf.terms_figure(lbf.terms_table(_lb_summary(v, e, r))),
            )

        def dk(v=variant, target=1e-5):
            data = _lb_data()
            p = _lb_params(v, 16, 100)
            tab = lbf.delta_vs_k_table(
                mechanism=v,
                epsilons=(0.5, 1.0, 2.0, 4.0),
                m=100,
                n=data.n,
                b1=1.0,
                rho=0.1,
                noise_std=1.0,
                exact_points=5,
                **p,
            )
            return lbf.delta_vs_k_figure(tab, n=data.n, m=100, k_current=16, target_delta=target)

        yield f"delta_vs_k_figure[{variant}]", f"{mod}.delta_vs_k_figure", dk
    for k, rho, target in ((16, 0.1, 1e-5), (32, 0.5, 1e-2)):
        yield (
            f"eps_profile_figure[k={k},rho={rho}]",
            f"{mod}.eps_profile_figure",
            lambda kk=k, r=rho, t=target: lbf.eps_profile_figure(
                lbf.eps_profile_table(n=_lb_data().n, k=kk, m=100, rho=r, b1=1.0, noise_std=1.0), target_delta=t
            ),
        )

    def rss(k=16, m=100):
        data = _lb_data()
        r = lb.bag_residuals(data.X, data.y, m=m, k=k, rng=SEED)
        return lbf.residual_figure(r, k=k, gamma=_lb_params("wtd-lba", k, m)["gamma"])

    yield "residual_figure", f"{mod}.residual_figure", rss
    yield (
        "residual_figure[no gamma]",
        f"{mod}.residual_figure",
        lambda: lbf.residual_figure(
            lb.bag_residuals(_lb_data().X, _lb_data().y, m=100, k=16, rng=SEED), k=16, gamma=None
        ),
    )
    for metric in ("test_mse", "excess_risk"):
        yield (
            f"utility_figure[k,{metric}]",
            f"{mod}.utility_figure",
            lambda y=metric: lbf.utility_figure(_lb_utility(16, 100, 0.1)[0], x="k", y=y, title="against k"),
        )
        yield (
            f"utility_figure[m,{metric}]",
            f"{mod}.utility_figure",
            lambda y=metric: lbf.utility_figure(_lb_utility(16, 100, 0.1)[1], x="m", y=y, title="against m"),
        )

    def ratio():
        _, by_m, ms = _lb_utility(16, 100, 0.1)
        data = _lb_data()
        pred = lbf.prediction_table(ms, d=data.d, rho=0.1, gamma_hat=_lb_conditions(16, 100)["gamma_hat"])
        sel = by_m[by_m["method"].isin(["wtd_lba", "noisy_wtd_llp"]) & (by_m["m"] > data.d + 1)]
        return lbf.ratio_figure(sel, pred)

    yield "ratio_figure", f"{mod}.ratio_figure", ratio
    for seed, rho in ((0, 0.25), (3, 0.0)):
        yield (
            f"bag_illustration_figure[seed={seed},rho={rho}]",
            f"{mod}.bag_illustration_figure",
            lambda s=seed, r=rho: lbf.bag_illustration_figure(lbf.bag_illustration(seed=s, rho=r)),
        )
    yield "reproduction_figure", f"{mod}.reproduction_figure", lambda: lbf.reproduction_figure(_lb_replica())


# -- large-margin Gaussian classifier -----------------------------------------------------------


@functools.cache
def _lm_task(dataset: str):
    from dp_core.mechanisms import large_margin_gaussian as lmg

    ds = _ds(dataset, 400) if dataset == "gaussian_classes" else _ds(dataset)
    return lmg.make_task(ds, k=2, seed=SEED)


@functools.cache
def _lm_draw(dataset: str, mode: str, eps: float):
    from dp_core.mechanisms import large_margin_gaussian as lmg

    t = _lm_task(dataset)
    cfg = lmg.LargeMarginGaussian(epsilon=eps, mode=mode, psd=True)
    b, g = lmg.release_many(
        t.X_train,
        t.y_train,
        cfg,
        n_runs=1,
        seed=np.random.SeedSequence([SEED, 0]),
        n_classes=t.n_classes,
        diagnostics=True,
    )
    return g.phi_star, (None if b.unbounded[0] else b.phi[0]), g.data.scale


@functools.cache
def _lm_acc(dataset: str):
    from dp_core.mechanisms import large_margin_gaussian as lmg

    df = lmg.accuracy_sweep(
        _lm_task(dataset), epsilons=[0.1, 1.0, 10.0], modes=["corrected", "repaired", "printed"], n_trials=3, seed=SEED
    )
    return summarize(
        df, by=["method", "epsilon"], values=["accuracy", "agreement", "excess", "unbounded", "pathwise_bound"]
    )


@functools.cache
def _lm_excess_n(mode: str):
    from dp_core.mechanisms import large_margin_gaussian as lmg

    trials, bounds = lmg.excess_vs_n(
        _lm_task("gaussian_classes"), ns=[60, 120, 280], mode=mode, delta=0.05, n_trials=3, seed=SEED
    )
    return summarize(trials, by=["method", "n"], values=["excess", "pathwise_bound", "test_loss_excess"]), bounds


@functools.cache
def _lm_reg(parameter: str):
    from dp_core.mechanisms import large_margin_gaussian as lmg

    values = [0.001, 0.03, 0.3] if parameter == "mu" else [0.05, 0.2, 1.0]
    df = lmg.regularisation_sweep(
        _lm_task("gaussian_classes"), parameter=parameter, values=values, n_trials=3, seed=SEED
    )
    return summarize(df, by=["method", "value"], values=["accuracy", "excess", "pathwise_bound", "nonprivate_accuracy"])


def cases_large_margin_gaussian():
    from dp_core.mechanisms import large_margin_gaussian as lmg
    from dp_core.mechanisms.large_margin_gaussian import figures as lmf
    from dp_core.mechanisms.large_margin_gaussian.bounds import noise_radius, printed_radius

    mod = "dp_core.mechanisms.large_margin_gaussian.figures"

    def regions(dataset, mode, eps):
        t = _lm_task(dataset)
        phi_star, phi, scale = _lm_draw(dataset, mode, eps)
        return lmf.decision_regions_figure(
            [("non-private Φ*", phi_star), (f"private ({mode}), ε = {eps:g}", phi)], t.X_train, t.y_train, scale=scale
        )

    for dataset, mode, eps in (
        ("gaussian_classes", "corrected", 1.0),
        ("iris", "repaired", 0.5),
        ("gaussian_classes", "printed", 1.0),
    ):
        yield (
            f"decision_regions_figure[{dataset},{mode}]",
            f"{mod}.decision_regions_figure",
            lambda a=dataset, b=mode, c=eps: regions(a, b, c),
        )
    yield (
        "decision_regions_figure[no release]",
        f"{mod}.decision_regions_figure",
        lambda: lmf.decision_regions_figure(
            [("non-private Φ*", _lm_draw("gaussian_classes", "corrected", 1.0)[0]), ("private (printed)", None)],
            _lm_task("gaussian_classes").X_train,
            _lm_task("gaussian_classes").y_train,
            scale=1.0,
        ),
    )
    for d in (2, 4):
        yield (
            f"unbounded_figure[d={d}]",
            f"{mod}.unbounded_figure",
            lambda dd=d: lmf.unbounded_figure(
                lmg.unbounded_share(d=dd, n=400, lam=0.01, epsilons=[0.05, 0.5, 5.0], n_draws=2000, seed=SEED),
                title="P: share of unbounded draws",
            ),
        )
    for dataset in ("gaussian_classes", "iris"):
        yield (
            f"accuracy_figure[{dataset}]",
            f"{mod}.accuracy_figure",
            lambda a=dataset: lmf.accuracy_figure(_lm_acc(a), chance=1 / 3, title="Test accuracy against ε"),
        )
        yield (
            f"accuracy_figure[{dataset},agreement]",
            f"{mod}.accuracy_figure",
            lambda a=dataset: lmf.accuracy_figure(
                _lm_acc(a)[_lm_acc(a)["method"] != "nonprivate"],
                chance=None,
                y="agreement",
                title="Agreement",
                y_title="agreement with non-private",
            ),
        )
        yield (
            f"excess_vs_epsilon_figure[{dataset}]",
            f"{mod}.excess_vs_epsilon_figure",
            lambda a=dataset: lmf.excess_vs_epsilon_figure(_lm_acc(a), title="Excess against ε"),
        )
    for mode in ("corrected", "repaired", "printed"):
        yield (
            f"excess_vs_n_figure[{mode}]",
            f"{mod}.excess_vs_n_figure",
            lambda m=mode: lmf.excess_vs_n_figure(*_lm_excess_n(m), method=m, title=f"Excess against n ({m})"),
        )
        if mode != "printed":
            yield (
                f"test_loss_figure[{mode}]",
                f"{mod}.test_loss_figure",
                lambda m=mode: lmf.test_loss_figure(*_lm_excess_n(m), method=m, title="True-risk excess"),
            )
    for parameter in ("mu", "h"):
        yield (
            f"tradeoff_figure[{parameter}]",
            f"{mod}.tradeoff_figure",
            lambda p=parameter: lmf.tradeoff_figure(_lm_reg(p), parameter=p, title=f"against {p}"),
        )

    def noise(mode):
        t = _lm_task("gaussian_classes")
        acc = lmg.privacy_params(
            epsilon=1.0,
            n=t.n,
            d=t.d,
            n_classes=t.n_classes,
            lam=0.01,
            h=0.5,
            mu=None,
            mode=mode,
            semantics="target",
            jacobian="conservative",
            psd=True,
        ).as_dict()
        norms = np.linalg.norm(lmg.sample_radial(acc["noise_dim"], acc["beta"], rng=SEED, size=500), axis=1)
        radii = {
            "exact": noise_radius(acc["noise_dim"], acc["beta"], 0.05, kind="exact"),
            "union": noise_radius(acc["noise_dim"], acc["beta"], 0.05, kind="union"),
        }
        if acc["shared_noise"]:
            radii["printed (Lemma 4)"] = printed_radius(t.d, acc["eps_noise"], 0.05)
        return lmf.noise_norm_figure(
            norms, dim=acc["noise_dim"], beta=acc["beta"], radii=radii, method=mode, title="Sampled noise norms"
        )

    for mode in ("corrected", "repaired", "printed"):
        yield f"noise_norm_figure[{mode}]", f"{mod}.noise_norm_figure", lambda m=mode: noise(m)


# -- a few more variants of optional arguments ----------------------------------------------------


def cases_variants():
    from dp_core import figures as F
    from dp_core.mechanisms.l1_exponential import figures as lf
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    yield (
        "noise_scale_figure[linear]",
        "dp_core.figures.noise_scale_figure",
        lambda: F.noise_scale_figure(
            _generic_bounds(), x="epsilon", y="bound", x_title="ε", y_title="bound", log_x=False, log_y=False
        ),
    )
    yield (
        "sampler_figure[no diagnostics]",
        "dp_core.mechanisms.l1_exponential.figures.sampler_figure",
        lambda: lf.sampler_figure(*_l1_sampler()[:3], coord=0),
    )
    yield (
        "density_figure[no marks]",
        "dp_core.mechanisms.l1_exponential.figures.density_figure",
        lambda: lf.density_figure(
            _l1_analysis("heavy_tailed", (0,), False).density_points,
            {"tight": _l1_analysis("heavy_tailed", (0,), False).density["tight"]},
        ),
    )
    yield (
        "utility_figure[linear k]",
        "dp_core.mechanisms.label_dp_bags.figures.utility_figure",
        lambda: lbf.utility_figure(_lb_utility(16, 100, 0.1)[0], x="k", y="test_mse", log_x=False),
    )
    yield (
        "eps_profile_figure[no target]",
        "dp_core.mechanisms.label_dp_bags.figures.eps_profile_figure",
        lambda: lbf.eps_profile_figure(lbf.eps_profile_table(n=_lb_data().n, k=16, m=100, rho=0.1)),
    )

    def dk_plain():
        tab = lbf.delta_vs_k_table(
            mechanism="noisy-wtd-llp", epsilons=(1.0,), m=100, n=_lb_data().n, rho=0.1, exact=False
        )
        return lbf.delta_vs_k_figure(tab, n=_lb_data().n, m=100)

    yield "delta_vs_k_figure[no marks]", "dp_core.mechanisms.label_dp_bags.figures.delta_vs_k_figure", dk_plain
    yield (
        "line_ci_figure[no band, one method]",
        "dp_core.figures.line_ci_figure",
        lambda: line_ci_figure(
            _generic_summary(),
            x="epsilon",
            y="error",
            x_title="ε",
            y_title="error",
            log_x=True,
            band=False,
            methods=["gaussian"],
        ),
    )

    def compare_subset():
        from dp_core.compare.figures import compare_figure

        return compare_figure(
            _compare("diabetes"), y="excess_risk", eps_marker=2.0, methods=["output_gaussian", "input"]
        )

    yield "compare_figure[methods subset]", "dp_core.compare.figures.compare_figure", compare_subset


def cases_first_screens():
    """The first-screen charts of Home, label-DP and large-margin (added with the plain first screens)."""
    from dp_core import explain

    for eps, delta in ((0.01, 1e-5), (1.0, 1e-5), (10.0, 1e-12)):
        yield (
            f"noise_figure[{eps},{delta}]",
            "dp_core.explain.noise_figure",
            lambda e=eps, d=delta: explain.noise_figure(epsilon=e, delta=d),
        )

    def bags(variant: str, rho: float):
        from dp_core.data import load_dataset
        from dp_core.mechanisms import label_dp_bags as lb
        from dp_core.mechanisms.label_dp_bags import figures as lbf

        ds = load_dataset("diabetes")
        data = lb.prepare(ds.X, ds.y, label_range=(float(ds.y.min()), float(ds.y.max())))
        util = lb.first_screen_utility(
            data, variant=variant, k=4, m=20, rho=rho, noise_std=1.0, n_trials=5, seed=0, epsilon=1.0, delta=1e-5
        )
        return lbf.first_screen_figure(util, mechanism_label="With bags")

    for variant, rho in (("noisy-wtd-llp", 0.1), ("wtd-lba", 0.0)):
        yield (
            f"first_screen_figure[{variant}]",
            "dp_core.mechanisms.label_dp_bags.figures.first_screen_figure",
            lambda v=variant, r=rho: bags(v, r),
        )
    from dp_core.mechanisms.large_margin_gaussian import figures as lmf

    for name, bars in (
        ("two", [("No privacy", 0.95), ("Corrected, ε = 1", 0.61)]),
        ("missing", [("No privacy", 0.83), ("Printed", None), ("Repaired", float("nan"))]),
    ):
        yield (
            f"accuracy_bars_figure[{name}]",
            "dp_core.mechanisms.large_margin_gaussian.figures.accuracy_bars_figure",
            lambda b=bars: lmf.accuracy_bars_figure(b, title="Test accuracy"),
        )


GROUPS = (
    "generic",
    "compare",
    "audit",
    "input_perturbation",
    "l1_exponential",
    "label_dp_bags",
    "large_margin_gaussian",
    "variants",
    "first_screens",
)
CASES = [case for group in GROUPS for case in globals()[f"cases_{group}"]()]


def test_cases_have_unique_ids():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


def test_every_builder_has_inputs():
    builders = discover_builders()
    assert len(builders) >= 40, sorted(builders)
    covered = {c[1] for c in CASES}
    assert covered <= set(builders), sorted(covered - set(builders))
    assert set(builders) <= covered, f"figure builders without a test input: {sorted(set(builders) - covered)}"


def test_every_figure_function_says_it_returns_a_figure():
    assert _unannotated_figure_functions() == []


@pytest.mark.parametrize("builder, make", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_figure_has_no_problems(builder, make):
    fig = make()
    assert isinstance(fig, go.Figure), builder
    assert figure_problems(fig) == []


# ------------------------------------------------------------------------------------------------
# the defects found on main stay fixed
# ------------------------------------------------------------------------------------------------


def test_compare_marker_label_sits_at_log10_of_epsilon():
    from dp_core.compare.figures import compare_figure

    for eps in (1.0, 0.3):
        fig = compare_figure(_compare("iris"), y="utility", eps_marker=eps)
        (shape,) = [s for s in fig.layout.shapes if s.type == "line" and s.xref == "x"]
        assert shape.x0 == shape.x1 == pytest.approx(eps)  # shapes: data units
        (label,) = [a for a in fig.layout.annotations if a.text.startswith("ε =")]
        assert label.x == pytest.approx(math.log10(eps))  # annotations: log10 units


def test_label_dp_category_bars_keep_a_category_axis():
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    for fig in (
        lbf.terms_figure(lbf.terms_table(_lb_summary("noisy-wtd-llp", 1.0, 0.1))),
        lbf.bag_illustration_figure(lbf.bag_illustration(seed=0)),
    ):
        assert fig.layout.xaxis.type in (None, "category")
        assert all(isinstance(v, str) for v in fig.data[0].x)


def test_label_dp_target_and_floor_labels_sit_at_log10():
    from dp_core.mechanisms.label_dp_bags import figures as lbf

    tab = lbf.eps_profile_table(n=_lb_data().n, k=16, m=100, rho=0.1)
    fig = lbf.eps_profile_figure(tab, target_delta=1e-5)
    floor = float(tab["floor"].iloc[0])
    assert sorted(s.y0 for s in fig.layout.shapes) == pytest.approx([1e-5, floor])
    assert sorted(a.y for a in fig.layout.annotations) == pytest.approx([-5.0, math.log10(floor)])


def test_l1_residual_histogram_fills_its_axis():
    from dp_core.mechanisms.l1_exponential import figures as lf

    an = _l1_analysis("heavy_tailed", (0, 1), False)
    iota = an.result.calibration["iota"]
    fig = lf.residual_histogram(an.residuals, iota)
    lo, hi = fig.layout.xaxis.range
    lx = np.log10(np.abs(an.residuals[an.residuals != 0]))
    q05, q95 = np.quantile(lx, [0.05, 0.95])
    assert (q95 - q05) / (hi - lo) > 0.2
    assert lo <= math.log10(1 / iota) <= hi  # the threshold stays on the axis
    assert fig.layout.xaxis.title.text and "log" in fig.layout.title.text


def test_proof_event_histograms_have_axis_titles():
    fig = next(c[2] for c in CASES if c[0] == "diagnostic_figure[least_squares]")()
    for ax in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.yaxis, fig.layout.yaxis2):
        assert ax.title.text


def test_checker_reads_figure_json():
    import json

    fig = _ok_line(log_x=True)
    fig.add_vline(x=1.0, annotation_text="ε = 1")
    as_json = json.loads(fig.to_json())
    assert figure_problems(as_json) == figure_problems(fig) != []
    assert figure_problems(json.loads(_ok_line().to_json())) == []


def test_large_margin_reproduction_figure():
    """The reproduction's own (private) figure builder, at its quick size."""
    from dp_core.mechanisms.large_margin_gaussian import reproduce as rep

    pilot = rep.pilot_table(quick=True, seed=SEED, n_trials=2)
    contrast = rep.contrast_table(quick=True, seed=SEED, n_trials=2)
    assert figure_problems(rep._figure(pilot, contrast)) == []
