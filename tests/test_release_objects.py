"""Release objects hold only what may be published; everything else is a NonPublicDiagnostics on request.

For every mechanism and baseline that returns a release object:

* its fields are exactly a declared publishable set (adding a field fails here until reviewed);
* no field, however nested, holds an array equal to the non-private fit or to the noise drawn, and
  neither ``dataclasses.asdict`` nor ``pickle`` of the release contains their bytes (a positive
  control shows the same check finds them in the diagnostics);
* the diagnostics come only with ``diagnostics=True``, are :class:`NonPublicDiagnostics` whose
  docstring starts with "NOT FOR PUBLICATION", and asking for them does not change the release;
* the excess-risk experiments that now read the diagnostics give the numbers main gave before the
  split (same seeds, values recorded on main at commit b48c9f5).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
import pkgutil

import numpy as np
import pytest

import dp_core
from dp_core.data import make_gaussian_classes
from dp_core.publication import NOT_FOR_PUBLICATION, NonPublicDiagnostics, is_publishable

# ----------------------------------------------------------------------------- declared publishable sets
PUBLISHABLE = {
    "InputPerturbationRelease": {
        "theta",
        "epsilon",
        "delta",
        "alpha",
        "eps_run",
        "privacy_status",
        "model",
        "eta",
        "sigma_b",
        "sigma_u",
        "Delta_in",
        "on_boundary",
        "status",
    },
    "large_margin_gaussian.ReleaseBatch": {"config", "accounting", "phi", "unbounded"},
    "L1FitResult": {"draws", "calibration", "privacy_label", "sampler_status", "sampler_message"},
    "ClippedEMResult": {"draws", "kappa", "sensitivity", "mode", "label", "net"},
    "LBARelease": {"mechanism", "bags", "xbar", "ybar"},
    "LLPRelease": {"mechanism", "bags", "features", "weights", "ybar", "rho"},
    "label_dp_bags.ReleaseBatch": {"mechanism", "bags", "ybar", "weights", "xbar", "noise_mask"},
}

#: Field names that, on a release, would mean a non-private value or the noise is carried along.
FORBIDDEN = {
    "theta_nonprivate",
    "w_hat",
    "phi_star",
    "noise",
    "noise_norm",
    "rho_noise",
    "excess",
    "excess_risk",
    "pathwise_bound",
    "direction",
    "direction_stat",
    "converged",
    "data",
    "costs",
    "probabilities",
    "trace_logp",
    "grid",
    "mcmc",
    "lad_w",
    "secret_weights",
    "label_noise",
    "objective",
}


def _key(obj) -> str:
    cls = type(obj)
    name = cls.__name__
    if name == "ReleaseBatch":
        return cls.__module__.split(".")[-2] + ".ReleaseBatch"
    return name


def _field_names(obj) -> set[str]:
    return {f.name for f in dataclasses.fields(obj)}


def _arrays(value):
    """Every ndarray reachable from ``value`` (dataclasses, dicts, lists, tuples)."""
    if isinstance(value, np.ndarray):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _arrays(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays(v)


def _holds(value, secret: np.ndarray) -> bool:
    secret = np.asarray(secret, dtype=np.float64)
    for a in _arrays(value):
        if a.dtype.kind != "f":
            continue
        if a.shape == secret.shape and np.allclose(a, secret, rtol=1e-12, atol=0, equal_nan=True):
            return True
        if a.ndim > secret.ndim and a.shape[-secret.ndim :] == secret.shape:  # a stack holding it as one entry
            flat = a.reshape((-1,) + secret.shape)
            if any(np.allclose(x, secret, rtol=1e-12, atol=0) for x in flat):
                return True
    return False


def assert_publishable(release, secrets: dict[str, np.ndarray]) -> None:
    """The release's fields are the declared set and hold none of ``secrets`` (as values or as bytes)."""
    assert is_publishable(release)
    assert not isinstance(release, NonPublicDiagnostics)
    names = _field_names(release)
    assert names == PUBLISHABLE[_key(release)], names ^ PUBLISHABLE[_key(release)]
    assert not names & FORBIDDEN
    blob = pickle.dumps(release)
    as_dict = dataclasses.asdict(release)
    for what, s in secrets.items():
        s = np.ascontiguousarray(s, dtype=np.float64)
        assert np.any(s != 0), f"{what}: a zero secret proves nothing"
        assert not _holds(release, s), f"the release holds the {what}"
        assert not _holds(as_dict, s), f"asdict(release) holds the {what}"
        assert s.tobytes() not in blob, f"pickle of the release contains the {what}"


def assert_diagnostics(diag, secrets: dict[str, np.ndarray]) -> None:
    """Positive control: the checks above do find the secrets in the diagnostics object."""
    assert isinstance(diag, NonPublicDiagnostics) and diag.not_for_publication
    assert not is_publishable(diag) and not is_publishable((None, diag))
    doc = inspect.getdoc(type(diag))
    assert doc.startswith(NOT_FOR_PUBLICATION), doc
    name = type(diag).__name__
    assert name.endswith(("Diagnostics", "Secrets")), name
    blob = pickle.dumps(diag)
    for what, s in secrets.items():
        s = np.ascontiguousarray(s, dtype=np.float64)
        assert _holds(diag, s) or s.tobytes() in blob, f"control: the diagnostics should hold the {what}"


def _same(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y, f.name


# ----------------------------------------------------------------------------- data (same draws as on main)
def _draws():
    g = np.random.default_rng(0)
    X = g.standard_normal((400, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = np.clip(X @ np.array([0.3, -0.2, 0.1]) + 0.1 * g.standard_normal(400), -1, 1)
    Xl = g.standard_normal((200, 2))
    yl = Xl @ np.array([0.3, -0.4]) + g.standard_t(3, 200)
    Xb = np.column_stack([g.standard_normal((200, 2)), np.ones(200)])
    yb = np.clip(Xb @ np.array([0.2, 0.1, 0.0]), -1, 1)
    return {"ip": (X, y), "l1": (Xl, yl), "bags": (Xb, yb)}


@pytest.fixture(scope="module")
def draws():
    return _draws()


@pytest.fixture(scope="module")
def task():
    from dp_core.mechanisms.large_margin_gaussian import make_task

    return make_task(make_gaussian_classes(300, seed=2), seed=0, n_test_synthetic=500)


# ----------------------------------------------------------------------------- input perturbation
@pytest.mark.parametrize("sampler", ["stats", "records"])
def test_input_perturbation_release_is_publishable(draws, sampler):
    from dp_core.mechanisms.input_perturbation import InputPerturbation, InputPerturbationRelease

    X, y = draws["ip"]
    mech = InputPerturbation(epsilon=1.0, delta=1e-5)
    rel = mech.run(X, y, rng=5, sampler=sampler)
    assert isinstance(rel, InputPerturbationRelease)
    rel2, diag = mech.run(X, y, rng=5, sampler=sampler, diagnostics=True)
    _same(rel, rel2)
    secrets = {
        "non-private fit": diag.theta_nonprivate,
        "linear-term noise": diag.noise_linear,
        "quadratic-term noise": diag.noise_quadratic,
    }
    assert_publishable(rel, secrets)
    assert_diagnostics(diag, secrets)
    assert rel.epsilon == 1.0 and rel.delta == 1e-5 and "not re-derived" in rel.privacy_status
    # the noise is what separates the server's inputs from the true statistics: w_in solves them
    from dp_core.mechanisms.input_perturbation.model import sufficient_stats

    st = sufficient_stats(X, y)
    p = mech.params(st.n, st.d)
    A = st.S + diag.noise_quadratic + p.Delta_in * np.eye(st.d)
    if not rel.on_boundary:
        np.testing.assert_allclose(A @ rel.theta, st.p - diag.noise_linear, rtol=1e-8, atol=1e-10)
    # excess risk as on main (commit b48c9f5, same seed)
    expected = {"stats": 0.007621089225583005, "records": 0.0034264806972414113}[sampler]
    assert diag.excess_risk == pytest.approx(expected, rel=1e-9)


# ----------------------------------------------------------------------------- large-margin Gaussian
@pytest.mark.parametrize("mode", ["corrected", "repaired", "printed"])
def test_large_margin_release_is_publishable(task, mode):
    from dp_core.mechanisms.large_margin_gaussian import LargeMarginGaussian, ReleaseBatch, release_many

    cfg = LargeMarginGaussian(epsilon=1.0, mode=mode)
    rel = release_many(task.X_train, task.y_train, cfg, n_runs=4, seed=7)
    assert isinstance(rel, ReleaseBatch)
    rel2, diag = release_many(task.X_train, task.y_train, cfg, n_runs=4, seed=7, diagnostics=True)
    np.testing.assert_array_equal(rel.phi, rel2.phi)
    np.testing.assert_array_equal(rel.unbounded, rel2.unbounded)
    one = cfg.run(task.X_train, task.y_train, rng=3)
    assert isinstance(one, ReleaseBatch)
    assert isinstance(cfg.run(task.X_train, task.y_train, rng=3, diagnostics=True)[1], NonPublicDiagnostics)
    secrets = {"non-private fit": diag.phi_star, "noise": diag.noise, "training data": diag.data.Z}
    for r in range(4):
        secrets[f"noise of run {r}"] = diag.noise[r]
    assert_publishable(rel, secrets)
    assert_diagnostics(diag, secrets)
    # predictions need only public settings
    pred = rel.predictions(task.X_test[:20])
    assert pred.shape == (4, 20)


def test_large_margin_excess_experiments_match_main(task):
    from dp_core.mechanisms.large_margin_gaussian import accuracy_sweep, excess_vs_n, regularisation_sweep

    acc = accuracy_sweep(task, epsilons=[0.5, 5.0], modes=("printed", "repaired", "corrected"), n_trials=3, seed=3)
    # values computed on main (commit b48c9f5) with the same seeds
    main = {
        "printed": (0.0917904345377957, 102.6264120883169),
        "repaired": (1.7800459766523558, 197.13634844831043),
        "corrected": (7.562833304527146, 1630.5443901772644),
        "nonprivate": (0.0, 0.0),
    }
    for m, (excess, noise_norm) in main.items():
        g = acc[acc.method == m]
        assert float(np.nansum(g.excess)) == pytest.approx(excess, rel=1e-9, abs=1e-15)
        assert float(g.noise_norm.sum()) == pytest.approx(noise_norm, rel=1e-9, abs=1e-15)
    assert float(np.nanmean(acc[acc.method == "corrected"].accuracy)) == pytest.approx(0.6893333333333334, rel=1e-12)
    finite = acc[acc.method == "repaired"].pathwise_bound
    assert float(finite.sum()) == pytest.approx(33.23962088694011, rel=1e-9)
    trials, bounds = excess_vs_n(task, ns=[100, 200], n_trials=3, seed=1)
    assert float(trials.excess.sum()) == pytest.approx(42.52016047824082, rel=1e-9)
    assert float(trials.test_loss_excess.sum()) == pytest.approx(2.611868241732232, rel=1e-9)
    assert float(bounds.value.sum()) == pytest.approx(21182422.589933783, rel=1e-9)
    reg = regularisation_sweep(task, values=[0.01, 0.1], n_trials=3, seed=2)
    assert float(reg.excess.sum()) == pytest.approx(5.135422398257942, rel=1e-9)


# ----------------------------------------------------------------------------- l1 exponential mechanism
@pytest.mark.parametrize("mode", ["grid", "mcmc"])
def test_l1_release_is_publishable(draws, mode):
    from dp_core.mechanisms.l1_exponential import L1ExponentialRegression, L1FitResult
    from dp_core.mechanisms.l1_exponential.lad import lad_fit

    X, y = draws["l1"]
    est = L1ExponentialRegression(epsilon=1.0, mode=mode, mcmc_preset="quick")
    rel = est.run(X, y, rng=0, n_draws=3)
    assert isinstance(rel, L1FitResult) and rel.exact == (mode == "grid")
    rel2, diag = est.run(X, y, rng=0, n_draws=3, diagnostics=True)
    np.testing.assert_array_equal(rel.draws, rel2.draws)
    secrets = {"non-private LAD fit": lad_fit(X, y, est.radius).w}
    assert_publishable(rel, secrets)
    if mode == "grid":
        inner = {"grid scores S(g)": diag.grid.costs, "exact output law": diag.grid.probabilities}
        assert_publishable(rel, inner)
        assert_diagnostics(diag, inner)
        assert diag.mcmc is None
    else:
        assert diag.grid is None and diag.mcmc is not None
        assert_diagnostics(diag, {})


@pytest.mark.parametrize("mode", ["grid", "mcmc"])
def test_l1_clipped_baseline_release_is_publishable(draws, mode):
    from dp_core.mechanisms.l1_exponential import baseline_clipped_em
    from dp_core.mechanisms.l1_exponential.baselines import ClippedEMResult
    from dp_core.mechanisms.l1_exponential.lad import lad_fit

    X, y = draws["l1"]
    kw = {"epsilon": 1, "clip_x": 3, "clip_y": 5, "n_draws": 2, "mode": mode, "rng": 0}
    if mode == "grid":
        kw["m"] = 40
    rel = baseline_clipped_em(X, y, **kw)
    assert isinstance(rel, ClippedEMResult)
    rel2, diag = baseline_clipped_em(X, y, diagnostics=True, **kw)
    np.testing.assert_array_equal(rel.draws, rel2.draws)
    assert_publishable(rel, {"non-private LAD fit": lad_fit(X, y, 1.0).w})
    if mode == "mcmc":
        assert_diagnostics(diag, {"log-target trace": diag.mcmc.trace_logp})
    else:
        assert_diagnostics(diag, {})


def test_l1_excess_experiments_match_main(draws):
    from dp_core.mechanisms.l1_exponential import L1ExponentialRegression
    from dp_core.mechanisms.l1_exponential import simulation as sim

    X, y = draws["l1"]
    df = sim.run_simulation(
        sim.SimulationConfig(n=200, epsilon=1.0, eval_size=2000, grid_budget=400_000), n_trials=2, seed=0
    )
    main = {
        "dp_gd": 0.1615112315779815,
        "em_clipped": 1.5063909063942993,
        "em_l1": 0.1434302771069683,
        "nonprivate": 0.007782116561676175,
    }
    got = df.groupby("method").excess_risk.sum().to_dict()
    for m, v in main.items():
        assert got[m] == pytest.approx(v, rel=1e-9)
    rd = sim.real_data_experiment(
        X[:150],
        y[:150],
        X[150:],
        y[150:],
        estimator=L1ExponentialRegression(epsilon=1.0),
        n_releases=3,
        clip_x=3.0,
        clip_y=3.0,
        rng=0,
    )
    main = {
        "dp_gd": 0.0742017617645504,
        "em_clipped": 0.12470798563454288,
        "em_l1": 0.025252061641398482,
        "nonprivate": 0.0,
    }
    got = rd.table.groupby("method").excess_test_mae.sum().to_dict()
    for m, v in main.items():
        assert got[m] == pytest.approx(v, rel=1e-9, abs=1e-15)
    assert isinstance(rd, NonPublicDiagnostics)  # the analysis holds the LAD fit and the grid scores


# ----------------------------------------------------------------------------- label-DP bags
def test_label_dp_single_releases_hold_no_secret(draws):
    from dp_core.mechanisms.label_dp_bags import LabelDPBags, sample_bags
    from dp_core.rng import as_generator

    X, y = draws["bags"]
    m, k, n = 10, 5, X.shape[0]
    rel = LabelDPBags(mechanism="wtd-lba", m=m, k=k).run(X, y, rng=4)
    g = as_generator(4)  # wtd-LBA draws the bags, then the secret weights
    bags = sample_bags(n, m, k, g)
    W = g.standard_normal((m, k))
    np.testing.assert_array_equal(rel.bags, bags)
    np.testing.assert_allclose(rel.ybar, np.einsum("jr,jr->j", W, y[bags]))
    assert_publishable(rel, {"secret weights": W})
    rel = LabelDPBags(mechanism="noisy-wtd-llp", m=m, k=k, rho=0.5).run(X, y, rng=6)
    from dp_core.mechanisms.label_dp_bags import noise_set

    g = as_generator(6)  # noisy-wtd-LLP draws N, the label noise, the bags, the weights
    mask = noise_set(n, 0.5, g)
    noise = g.standard_normal(int(mask.sum()))
    y_tilde = y.copy()
    y_tilde[mask] += noise
    np.testing.assert_allclose(rel.ybar, np.einsum("jr,jr->j", rel.weights, y_tilde[rel.bags]))
    assert_publishable(rel, {"label noise": noise, "noisy labels": y_tilde})
    # the secrets come only on request, and asking for them changes nothing
    for mech, seed in (("wtd-lba", 4), ("noisy-wtd-llp", 6), ("weighted-llp", 6), ("naive-lba", 1)):
        cfg = LabelDPBags(mechanism=mech, m=m, k=k, rho=0.5)
        plain = cfg.run(X, y, rng=seed)
        rel2, sec = cfg.run(X, y, rng=seed, diagnostics=True)
        _same(plain, rel2)
        assert_diagnostics(sec, {})
        if mech == "wtd-lba":
            np.testing.assert_array_equal(sec.weights, W)
            assert_diagnostics(sec, {"secret weights": W})
        elif mech == "noisy-wtd-llp":
            np.testing.assert_array_equal(sec.label_noise[mask], noise)
            assert_diagnostics(sec, {"label noise": sec.label_noise})


def test_label_dp_batch_secrets_only_on_request(draws):
    from dp_core.mechanisms.label_dp_bags import ReleaseBatch, simulate_releases

    X, y = draws["bags"]
    batch = simulate_releases(X, y, mechanism="wtd-lba", m=10, k=5, n_trials=3, seed=2, with_xbar=True)
    assert isinstance(batch, ReleaseBatch) and batch.weights is None
    batch2, sec = simulate_releases(
        X, y, mechanism="wtd-lba", m=10, k=5, n_trials=3, seed=2, with_xbar=True, diagnostics=True
    )
    np.testing.assert_array_equal(batch.ybar, batch2.ybar)
    # the weights are the ones main returned with return_secrets=True (same seed): first values
    assert sec.weights.shape == (3, 10, 5)
    np.testing.assert_allclose(batch.ybar, np.einsum("rjk,rjk->rj", sec.weights, y[batch.bags]))
    secrets = {"secret weights": sec.weights}
    for r in range(3):
        secrets[f"weights of run {r}"] = sec.weights[r]
    assert_publishable(batch, secrets)
    assert_diagnostics(sec, secrets)
    nb, nsec = simulate_releases(
        X, y, mechanism="noisy-wtd-llp", m=10, k=5, rho=0.5, n_trials=3, seed=2, diagnostics=True
    )
    assert nb.weights is not None and nsec.weights is None  # LLP weights are public
    assert_publishable(nb, {"label noise": nsec.label_noise})
    assert_diagnostics(nsec, {"label noise": nsec.label_noise})


# ----------------------------------------------------------------------------- the whole package
def _dp_core_classes():
    for info in pkgutil.walk_packages(dp_core.__path__, "dp_core."):
        if info.name.startswith("dp_core.cli") or info.name == "dp_core.__main__":
            continue
        mod = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__:
                yield cls


def test_every_release_class_is_declared_and_every_diagnostics_class_is_marked():
    releases, diagnostics = set(), set()
    for cls in _dp_core_classes():
        name = cls.__name__
        if issubclass(cls, NonPublicDiagnostics):
            diagnostics.add(name)
            doc = inspect.getdoc(cls) or ""
            assert doc.startswith(NOT_FOR_PUBLICATION), name
            continue
        if name.endswith(("Diagnostics", "Secrets")) and dataclasses.is_dataclass(cls):
            raise AssertionError(f"{cls.__module__}.{name} looks like diagnostics but is not a NonPublicDiagnostics")
        if dataclasses.is_dataclass(cls) and (
            "Release" in name or name.endswith("FitResult") or name == "ClippedEMResult"
        ):
            key = cls.__module__.split(".")[-2] + ".ReleaseBatch" if name == "ReleaseBatch" else name
            releases.add(key)
            fields = {f.name for f in dataclasses.fields(cls)}
            assert key in PUBLISHABLE, f"undeclared release class {cls.__module__}.{name}"
            assert fields == PUBLISHABLE[key], (key, fields ^ PUBLISHABLE[key])
            assert not fields & FORBIDDEN, key
    assert releases == set(PUBLISHABLE)
    assert {
        "InputPerturbationDiagnostics",
        "ReleaseDiagnostics",
        "L1Diagnostics",
        "ClippedEMDiagnostics",
        "ReleaseSecrets",
        "BagSecrets",
        "OutputModel",
        "LadFit",
        "GridEMResult",
        "RealDataResult",
    } <= diagnostics
