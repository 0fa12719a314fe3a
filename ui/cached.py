"""The foundation's ``st.cache_data`` wrappers around pure ``dp_core`` functions.

Mechanism pages keep their own wrappers in ``ui/cached_<mechanism>.py``. Arguments are scalars
and names; ``dp_core.__version__`` is part of every key so that a new engine never serves stale
results. Both are upload-independent (demo names and budget values only), so they always use the
server's shared cache; wrappers that receive the session's dataset use ``ui.cached_scope``'s rule.
"""

from __future__ import annotations

import dp_core
from dp_core import calibration, data

from . import cached_scope as scoped


@scoped.cache_data(max_entries=32, show_spinner="Loading the dataset...", upload_independent=True)
def load_demo(name: str, n: int | None = None, seed: int = 0, _version: str = dp_core.__version__) -> data.Dataset:
    return data.load_dataset(name, n=n, seed=seed)


@scoped.cache_data(max_entries=256, show_spinner=False, upload_independent=True)
def gaussian_sigmas(epsilon: float, delta: float, sensitivity: float = 1.0) -> dict:
    analytic = calibration.gaussian_sigma_analytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    classic = (
        calibration.gaussian_sigma_classic(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
        if epsilon <= 1.0
        else float("nan")
    )
    return {
        "analytic": analytic,
        "classic": classic,
        "laplace": calibration.laplace_scale(epsilon=epsilon, sensitivity=sensitivity),
    }


@scoped.cache_data(max_entries=16, show_spinner=False, upload_independent=True)
def noise_curves(delta: float, _version: str = dp_core.__version__):
    """The noise-against-ε curves of Home's first chart (they depend on δ only)."""
    from dp_core import explain

    return explain.noise_curves(delta=delta)


@scoped.cache_resource(max_entries=64, show_spinner=False, upload_independent=True)
def noise_figure(epsilon: float, delta: float, _version: str = dp_core.__version__):
    """Home's first chart: noise for one count against ε, the current setting marked (curves cached by δ).

    Kept as the stored, never-modified figure for each (ε, δ) (the select slider has a few dozen values):
    moving ε back and forth, as every visitor does, rebuilds nothing; building it costs 30–40 ms, a third of
    Home's ε rerun and the share of it that five sessions at once wait for in turn.
    """
    from dp_core import explain

    return explain.noise_figure(epsilon=epsilon, delta=delta, curves=noise_curves(delta))


_PLANS: dict[str, object] = {}


class _Plan:
    """A mechanism's page plan with its :func:`dp_core.plugin.cached` functions wrapped for the app."""

    def __init__(self, module) -> None:
        self._module = module

    def __getattr__(self, name: str):
        fn = getattr(self._module, name)
        opts = getattr(fn, "__cache__", None)
        if opts is None:
            return fn
        opts = dict(opts)
        deco = scoped.cache_resource if opts.pop("resource") else scoped.cache_data
        wrapped = deco(**opts)(fn)
        setattr(self, name, wrapped)  # wrap once per process
        return wrapped


def plan(mechanism: str):
    """The page plan of ``mechanism`` (its ``plan`` hook): the one generic cached layer of every mechanism page."""
    if mechanism not in _PLANS:
        from dp_core import registry

        _PLANS[mechanism] = _Plan(registry.get(mechanism).load("plan"))
    return _PLANS[mechanism]
