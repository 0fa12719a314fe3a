"""The AdaSSP page plan: test R² of many seeded private fits, and how the three releases are calibrated."""

import numpy as np

from dp_core import display
from dp_core.fit_checks import constant_answer, score_screen
from dp_core.plugin import Screen, cached


@cached(max_entries=32)
def first_screen(values: tuple, name: str, fingerprint: str, eps, delta, seed, trials, _ds) -> Screen:
    """The per-release σ, the guarantee, and the test R² of ``trials`` private fits."""
    from . import AdasspConfig, adassp_thetas, sigmas
    from .compare import prepare_state

    cfg = AdasspConfig(**dict(values))
    if _ds.task != "regression":
        raise ValueError("adassp is linear regression: choose a regression dataset.")
    prepared = prepare_state(_ds, seed=seed)
    r2 = prepared.r2(adassp_thetas(prepared.stats, eps, delta, cfg, np.random.default_rng(seed), size=trials))
    ols = float(prepared.r2(prepared.theta_ols[None, :])[0])
    sig = sigmas(eps, delta)
    return score_screen(
        r2,
        eps=eps,
        const=constant_answer("regression", None),
        runs="private fits",
        base=(ols, "least squares (non-private)"),
        axes=("test R²", "fits"),
        who="Each person's record (features and label): the fit hides whether any one record was used.",
        numbers=(
            ("Noise σ on XᵀX", display.number(sig[1]), "analytic Gaussian at (ε/3, δ/3), sensitivity √2"),
            ("Guarantee", f"ε = {display.epsilon(eps)}, δ = {display.delta(delta)}", "three releases composed"),
            ("Median test R²", display.number(float(np.median(r2))), f"over {trials} private fits"),
        ),
        status=("proved", "AdaSSP (Wang 2018, Algorithm 2)"),
        caption=f"{trials} private fits; least squares on the same rows scores {display.number(ols)}",
    )


def _calibration(values: dict, *, eps, delta, seed, trials, ds):
    from . import sigmas

    names = ("λ_min (sensitivity 1)", "XᵀX (sensitivity √2)", "Xᵀy (sensitivity 2)")
    parts = "; ".join(f"{k}: σ = {display.number(s)}" for k, s in zip(names, sigmas(eps, delta)))
    return f"Each release gets (ε/3, δ/3) = ({display.epsilon(eps / 3)}, {display.delta(delta / 3)}): {parts}.", None


SECTIONS = (("How the noise is calibrated", _calibration),)
