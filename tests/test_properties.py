"""Property-based tests: hostile numbers at every public entry point of dp_core and of the CLI.

1. Engine: every public function/class of the listed dp_core modules whose parameters are scalars
   (discovered from ``__all__`` and the signatures) is called with ONE parameter replaced by an
   arbitrary float/int (nan, inf, huge, tiny, negative, subnormal, ...) and the others at typical
   values. Contract: it returns, or raises ``ValueError``/``TypeError``; never another exception,
   never a hang (a SIGALRM limit per call, hypothesis ``deadline`` and ``pytest.mark.timeout``).
2. CLI: ``dp_core.cli.main(argv)`` in-process with hostile values in every option of every
   command (options discovered from the argparse parsers, so new ones are covered): exit status
   0 or 2 only, exactly one line on stderr on error, no traceback, no hang.

The fast tests take about 20 s on an idle 2-core machine (about 100 s when it is shared);
``-m slow`` adds the full cross product (every hostile value in every parameter and option,
including real ``reproduce`` runs; about 60 s idle). Environment variables:
``DP_CORE_PROPERTY_STATS=1`` prints the number of calls and the wall time;
``DP_CORE_ENGINE_EXAMPLES``, ``DP_CORE_RUN_EXAMPLES``, ``DP_CORE_CLI_EXAMPLES`` set the numbers of
hypothesis examples (default 4000, 800, 500); ``DP_CORE_PROPERTY_RANDOM=1`` draws new examples
instead of the same ones on every run.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _hostile as H

# --------------------------------------------------------------------------------------------
# 1. the engine
# --------------------------------------------------------------------------------------------

ENGINE_MODULES = (
    "dp_core.calibration",
    "dp_core.mechanisms.input_perturbation.bounds",
    "dp_core.mechanisms.l1_exponential.bounds",
    "dp_core.mechanisms.label_dp_bags.bounds",
    "dp_core.mechanisms.large_margin_gaussian.bounds",
    "dp_core.mechanisms.input_perturbation",
    "dp_core.mechanisms.l1_exponential",
    "dp_core.mechanisms.label_dp_bags",
    "dp_core.mechanisms.large_margin_gaussian",
    "dp_core.data",
    "dp_core.audit",
    "dp_core.compare",
    "dp_core.negotiate",
    "dp_core.rng",
)

# Typical values of required parameters, by name (anything else numeric: 1.0 or 3).
TYPICAL = {
    "epsilon": 1.0,
    "eps": 1.0,
    "delta": 1e-5,
    "sensitivity": 1.0,
    "sigma": 1.0,
    "n": 200,
    "d": 2,
    "k": 4,
    "m": 10,
    "rho": 0.1,
    "theta": 1.5,
    "tau": 1.0,
    "eta": 0.05,
    "zeta": 0.01,
    "lam": 0.1,
    "alpha": 1.0,
    "b1": 1.0,
    "b2": 1.0,
    "gamma": 0.1,
    "h": 0.5,
    "n_classes": 3,
    "mu": 1.0,
    "radius": 1.0,
    "kappa_value": 0.5,
    "iota": 0.1,
    "log_N": 5.0,
    "diam_W": 2.0,
    "M_theta": 1.0,
    "V_theta": 1.0,
    "m1": 1.0,
    "target_delta": 1e-5,
    "noise_std": 1.0,
    "eps_run": 1.0,
    "delta_local": 1e-5,
    "sigma_u": 1.0,
    "q": 0.5,
    "seed": 0,
    "assumption": "A3",
    "variant": "noisy-wtd-llp",
    "dim": 3,
    "beta": 1.0,
    "mu_eff": 0.1,
    "C": 3,
}
SCALAR_WORDS = ("float", "int", "bool", "str", "Real", "Integral")

# Functions whose typical call is itself heavy (full experiments, solvers, samplers over data).
SKIP = {
    "negotiate",
    "run_compare",
    "utility_at",
    "make_spec",
    "audit_convergence",
    "run_audit",
    "runs_grid",
    "accuracy_sweep",
    "excess_vs_n",
    "regularisation_sweep",
    "unbounded_share",
    "bound_tightness",
    "leak_demo",
    "decision_grid",
    "utility_sweep",
    "utility_trials",
    "simulate_fits",
    "simulate_releases",
    "em_mcmc",
    "em_grid",
    "grid_mechanism_releases",
    "load_dataset",
    "load_csv_path",
    "parse_csv",
    "theorem2_curve",
    "llp_exact_delta_curve",
    "bound_terms_table",
    "make_eval_sample",
    "population_excess_risk",
    "solve_monotone",
    # records of results (built by the engine from validated values, not entry points for users)
    "Theorem2Terms",
    "MomentConstants",
    "BoundTerms",
    "ExactDelta",
    "PrivacyAccounting",
    "AuditResult",
    "AuditTarget",
    "ThresholdTest",
    "DatasetInfo",
    "PreprocessInfo",
    "GridNet",
    "Target",
    "L1Calibration",
}


def _scalar_param(p: inspect.Parameter) -> str | None:
    """'float', 'int' or None for a parameter (from its annotation text or its default)."""
    ann = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", str(p.annotation))
    if p.default is not inspect.Parameter.empty and isinstance(p.default, bool):
        return None
    if "float" in str(ann) or (p.default is not inspect.Parameter.empty and isinstance(p.default, float)):
        return "float"
    if str(ann).startswith("int") or (p.default is not inspect.Parameter.empty and type(p.default) is int):
        return "int"
    return None


def _is_scalar_only(sig: inspect.Signature) -> bool:
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        if p.default is not inspect.Parameter.empty:
            continue
        ann = str(p.annotation)
        untyped_but_known = p.annotation is inspect.Parameter.empty and p.name in TYPICAL
        not_scalar = not any(w in ann for w in SCALAR_WORDS) or "ndarray" in ann or "Dataset" in ann
        if _scalar_param(p) is None and not untyped_but_known and not_scalar:
            return False
    return True


def engine_targets() -> list[tuple[str, object, inspect.Signature, list[tuple[str, str]]]]:
    """``(qualified name, callable, signature, [(numeric parameter, kind), ...])`` for every target."""
    found = []
    seen: set[int] = set()
    for modname in ENGINE_MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if name in SKIP or id(obj) in seen or not callable(obj) or name.isupper():
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            numeric = [(p.name, _scalar_param(p)) for p in sig.parameters.values() if _scalar_param(p)]
            if not numeric or not _is_scalar_only(sig) or _typical_kwargs(sig) is None:
                continue
            seen.add(id(obj))
            found.append((f"{modname}.{name}", obj, sig, numeric))
    return found


def _typical_kwargs(sig: inspect.Signature) -> dict | None:
    kwargs = {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not inspect.Parameter.empty:
            continue
        kind = _scalar_param(p)
        if p.name in TYPICAL:
            kwargs[p.name] = int(TYPICAL[p.name]) if kind == "int" else TYPICAL[p.name]
        elif kind == "float":
            kwargs[p.name] = 1.0
        elif kind == "int":
            kwargs[p.name] = 3
        else:
            return None
    return kwargs


TARGETS = engine_targets()

HOSTILE_FLOATS = (math.nan, math.inf, -math.inf, -1.0, 0.0, -0.0, 1e308, 1e-320, 5e-324, 1e20, -1e20, 1e-300)
HOSTILE_INTS = (-1, 0, 10**20, 2**63, -(2**63), 10**300)

hostile_float = st.one_of(st.sampled_from(HOSTILE_FLOATS), st.floats(allow_nan=True, allow_infinity=True))
hostile_int = st.one_of(st.sampled_from(HOSTILE_INTS), st.integers(min_value=-(10**30), max_value=10**30))
hostile_other = st.sampled_from([None, "nan", "", True, [1.0], np.float64("nan"), np.int64(-1)])

ALLOWED = (ValueError, TypeError)
#: DP_CORE_PROPERTY_RANDOM=1 explores new examples on every run (default: the same examples every run)
RANDOM = bool(os.environ.get("DP_CORE_PROPERTY_RANDOM"))
CALL_LIMIT = 5.0  # seconds per call


class _CallTimeout(BaseException):
    pass


def _call_with_limit(func, kwargs):
    def on_alarm(signum, frame):
        raise _CallTimeout(f"{getattr(func, '__name__', func)}({kwargs}) exceeded {CALL_LIMIT} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT)
    try:
        return func(**kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_STATS = {"engine": 0, "cli": 0, "constructed": 0, "runs": 0}


@pytest.fixture(scope="module", autouse=True)
def _print_stats():
    t0 = time.perf_counter()
    yield
    _report(
        f"property module: {_STATS['engine']} engine calls ({_STATS['constructed']} mechanism configurations, "
        f"{_STATS['runs']} runs), {_STATS['cli']} CLI calls",
        _STATS["engine"] + _STATS["cli"],
        time.perf_counter() - t0,
    )


def _check_engine_call(target, pname, value):
    qual, func, sig, _numeric = target
    kwargs = _typical_kwargs(sig)
    kwargs[pname] = value
    _STATS["engine"] += 1
    try:
        with np.errstate(all="ignore"):
            _call_with_limit(func, kwargs)
    except ALLOWED as exc:
        msg = str(exc)
        assert msg and "\n" not in msg.strip(), f"{qual}: message must be one non-empty line, got {msg!r}"
    except _CallTimeout as exc:
        pytest.fail(f"{qual} with {pname}={value!r}: hang: {exc}")
    except Exception as exc:  # noqa: BLE001 - the property under test
        pytest.fail(f"{qual} with {pname}={value!r}: {type(exc).__name__}: {exc}")


def test_engine_targets_are_discovered():
    names = {t[0].rsplit(".", 1)[1] for t in TARGETS}
    # the calibration functions, bounds, privacy parameters and mechanism configurations are covered
    for expected in (
        "gaussian_sigma_analytic",
        "laplace_scale",
        "moment_constants",
        "accounting_summary",
        "input_perturbation_params",
        "privacy_params",
        "LargeMarginGaussian",
        "CompareSpec",  # ExplorerConfig now takes the plug-ins' parameters as keywords (not introspectable)
        "make_census",
    ):
        assert expected in names, sorted(names)
    assert len(TARGETS) >= 40


@pytest.mark.timeout(150, method="thread")  # the cases use SIGALRM themselves
@settings(
    max_examples=int(os.environ.get("DP_CORE_ENGINE_EXAMPLES", "4000")),
    deadline=6000,
    derandomize=not RANDOM,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@given(data=st.data())
def test_engine_hostile_scalars(data):
    target = data.draw(st.sampled_from(TARGETS), label="target")
    pname, kind = data.draw(st.sampled_from(target[3]), label="parameter")
    value = data.draw(st.one_of(hostile_float if kind == "float" else hostile_int, hostile_other), label="value")
    _check_engine_call(target, pname, value)


def _tiny_data(task: str):
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, size=(40, 2)) / 2
    if task == "regression":
        return X, np.clip(X @ np.array([0.5, -0.3]) + 0.1 * g.standard_normal(40), -1, 1)
    return X, (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.2).astype(int)


def _mechanisms():
    from dp_core.mechanisms.input_perturbation import InputPerturbation
    from dp_core.mechanisms.l1_exponential import L1ExponentialRegression
    from dp_core.mechanisms.label_dp_bags import LabelDPBags
    from dp_core.mechanisms.large_margin_gaussian import LargeMarginGaussian

    return [
        (InputPerturbation, {"epsilon": 1.0, "delta": 1e-5}, "regression"),
        (L1ExponentialRegression, {"epsilon": 1.0, "mode": "grid", "grid_m": 21}, "regression"),
        (LabelDPBags, {"m": 4, "k": 5}, "regression"),
        (LargeMarginGaussian, {"epsilon": 1.0}, "classification"),
    ]


MECHANISMS = _mechanisms()


@pytest.mark.timeout(120, method="thread")  # the cases use SIGALRM themselves
@settings(
    max_examples=int(os.environ.get("DP_CORE_RUN_EXAMPLES", "800")),
    deadline=8000,
    derandomize=not RANDOM,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@given(data=st.data())
def test_mechanism_run_with_a_hostile_setting(data):
    """Construct a mechanism with ONE hostile numeric setting; if that is accepted, ``run`` on 40 rows
    must return or raise ValueError/TypeError (not overflow, crash or hang)."""
    cls, base, task = data.draw(st.sampled_from(MECHANISMS), label="mechanism")
    params = [(p.name, _scalar_param(p)) for p in inspect.signature(cls).parameters.values() if _scalar_param(p)]
    pname, kind = data.draw(st.sampled_from(params), label="parameter")
    moderate = st.floats(min_value=1e-4, max_value=1e4) if kind == "float" else st.integers(min_value=-3, max_value=60)
    value = data.draw(st.one_of(hostile_float if kind == "float" else hostile_int, moderate), label="value")
    kwargs = {**base, pname: value}
    _STATS["constructed"] += 1
    _STATS["engine"] += 1
    try:
        mech = cls(**kwargs)
    except ALLOWED:
        return
    _STATS["runs"] += 1
    X, y = _tiny_data(task)
    try:
        with np.errstate(all="ignore"):
            _call_with_limit(lambda: mech.run(X, y, rng=0), {})
    except ALLOWED as exc:
        assert str(exc).strip() and "\n" not in str(exc).strip()
    except _CallTimeout as exc:
        pytest.fail(f"{cls.__name__}({kwargs}).run: hang: {exc}")
    except Exception as exc:  # noqa: BLE001 - the property under test
        pytest.fail(f"{cls.__name__}({kwargs}).run: {type(exc).__name__}: {exc}")


@pytest.mark.slow
@pytest.mark.timeout(1800, method="thread")  # the cases use SIGALRM themselves
@pytest.mark.parametrize("target", TARGETS, ids=[t[0] for t in TARGETS])
def test_engine_every_parameter_every_hostile_value(target):
    for pname, kind in target[3]:
        for value in HOSTILE_FLOATS if kind == "float" else HOSTILE_INTS:
            _check_engine_call(target, pname, value)


# --------------------------------------------------------------------------------------------
# 2. the command line
# --------------------------------------------------------------------------------------------

COMMANDS = H.commands()
CLI_LIMIT = 20.0  # seconds per call; reproduce commands may still be computing then (see below)


def _moderate(value: str) -> bool:
    """A value a reproduce command may legitimately accept and start computing with."""
    try:
        x = float(value)
    except ValueError:
        return False
    return math.isfinite(x) and abs(x) <= 1e6


def _cli_case(cmd: H.Cmd, opt: H.Option, value: str, tmp: Path, *, real_reproduce: bool = False) -> H.Result:
    H.write_report_config(tmp)
    settings_ = H.base_settings(cmd, tmp)
    settings_[opt.flag] = value
    limit = 8.0 if real_reproduce and cmd.verb == "reproduce" else CLI_LIMIT
    res = H.run_cli(H.argv_for(cmd, settings_), limit=limit, cwd=tmp)
    _STATS["cli"] += 1
    # A real reproduce command that accepted a valid value may still be computing at the limit.
    H.check_result(
        res,
        may_run_past_limit=real_reproduce
        and cmd.verb == "reproduce"
        and (opt.kind in ("choice", "flag", "text") or _moderate(value)),
    )
    return res


def test_cli_commands_are_discovered():
    names = {c.name for c in COMMANDS}
    assert {
        "calibrate gaussian",
        "simulate label-dp-bags",
        "reproduce large-margin-gaussian",
        "audit laplace",
        "compare",
        "negotiate",
        "report",
    } <= names
    assert sum(len(c.options) for c in COMMANDS) > 150


def test_cli_base_settings_succeed(tmp_path):
    """The quick settings every hostile case starts from are valid (else the cases test nothing)."""
    for cmd in COMMANDS:
        if cmd.verb == "reproduce":
            continue
        tmp = tmp_path / cmd.name.replace(" ", "_")
        tmp.mkdir()
        H.write_report_config(tmp)
        res = H.run_cli(H.argv_for(cmd, H.base_settings(cmd, tmp)), limit=CLI_LIMIT)
        assert res.code == 0, (cmd.name, res.err)


FAST_CMDS = [c for c in COMMANDS if c.verb in ("calibrate", "compare", "negotiate", "report", "audit", "reproduce")]
REPRODUCE_MODULES = ("input_perturbation", "l1_exponential", "label_dp_bags", "large_margin_gaussian")


@pytest.fixture
def fast_reproduce(monkeypatch):
    """The fast CLI tests stop at the door of ``reproduce``'s computation (a minute each even with
    --quick; it has its own tests): what they check is that hostile options are refused before it
    starts. The slow cross product below runs the real computation."""
    calls = []
    for name in REPRODUCE_MODULES:
        mod = importlib.import_module(f"dp_core.mechanisms.{name}.reproduce")

        def record(out_dir, **kwargs):
            calls.append((str(out_dir), kwargs))
            return {"out": str(out_dir), **kwargs}

        monkeypatch.setattr(mod, "reproduce", record)
    return calls


NUMERIC_FAST = ("-1", "0", "nan", "inf", "1e309", "1e-320", "100000000000000000000", "abc", "9" * 5000)


@pytest.mark.timeout(170, method="thread")  # the cases use SIGALRM themselves
def test_cli_every_option_of_fast_commands(tmp_path, fast_reproduce):
    """Each hostile value in each option of calibrate/audit/negotiate/report/reproduce (about 1,200 calls)."""
    t0 = time.perf_counter()
    n = 0
    for cmd in FAST_CMDS:
        for opt in cmd.options:
            if opt.kind == "flag":
                continue
            values = NUMERIC_FAST if opt.kind in ("float", "int") else H.hostile_values(opt)[:8]
            for value in values:
                tmp = tmp_path / f"c{n}"
                tmp.mkdir()
                _cli_case(cmd, opt, value, tmp)
                n += 1
    _report("cli fast commands", n, time.perf_counter() - t0)


@pytest.mark.timeout(170, method="thread")  # the cases use SIGALRM themselves
@settings(
    max_examples=int(os.environ.get("DP_CORE_CLI_EXAMPLES", "500")),
    deadline=None,
    derandomize=not RANDOM,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@given(data=st.data())
def test_cli_hostile_option_of_any_command(data, tmp_path_factory, fast_reproduce):
    """hypothesis picks a command (simulate and reproduce too), one of its options and a value."""
    # commands with an option to spoil (``glossary`` takes only a positional symbol)
    cmd = data.draw(st.sampled_from([c for c in COMMANDS if any(o.kind != "flag" for o in c.options)]), label="command")
    opts = [o for o in cmd.options if o.kind != "flag"]
    opt = data.draw(st.sampled_from(opts), label="option")
    if opt.kind == "float":
        value = data.draw(st.one_of(st.sampled_from(H.HOSTILE_NUMBERS), st.floats().map(repr)), label="value")
    elif opt.kind == "int":
        # negative, small, or beyond every cap: a valid count in between (24,687 trials) is a long
        # computation the user asked for, not a hostile value
        value = data.draw(
            st.one_of(
                st.sampled_from(H.HOSTILE_NUMBERS),
                st.integers(max_value=0).map(str),
                st.integers(min_value=0, max_value=40).map(str),
                st.integers(min_value=10**10).map(str),
            ),
            label="value",
        )
    else:
        value = data.draw(st.one_of(st.sampled_from(H.hostile_values(opt)), st.text(max_size=40)), label="value")
    if value.startswith("-") and value not in H.HOSTILE_NUMBERS and opt.kind == "text":
        value = " " + value  # argparse would read a leading '-' as an option name
    _cli_case(cmd, opt, value, tmp_path_factory.mktemp("cli"))


@pytest.mark.slow
@pytest.mark.timeout(3600, method="thread")  # the cases use SIGALRM themselves
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c.name for c in COMMANDS])
def test_cli_every_option_every_hostile_value(cmd, tmp_path):
    """The full cross product, including simulate and reproduce (slow)."""
    t0 = time.perf_counter()
    n = 0
    for opt in cmd.options:
        if opt.kind == "flag":
            continue
        for value in H.hostile_values(opt):
            tmp = tmp_path / f"c{n}"
            tmp.mkdir()
            _cli_case(cmd, opt, value, tmp, real_reproduce=True)
            n += 1
    _report(f"cli {cmd.name}", n, time.perf_counter() - t0)


def _report(what: str, n: int, seconds: float) -> None:
    if os.environ.get("DP_CORE_PROPERTY_STATS"):
        sys.__stderr__.write(f"\n{what}: {n} cases in {seconds:.1f} s\n")
