"""The toy's page plan: the first screen (measured error of many seeded releases) and one section."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dp_core import display
from dp_core.plugin import Screen, cached


def _releases(values: tuple, eps: float, seed: int, trials: int, y):
    from . import ToyConfig, noisy_means

    cfg = ToyConfig(**dict(values))
    return cfg, noisy_means(y, cfg, eps, np.random.default_rng(seed), size=trials)


@cached(max_entries=32)
def first_screen(values: tuple, name: str, fingerprint: str, eps, delta, seed, trials, _ds) -> Screen:
    """The noise scale, the guarantee, and the mean absolute error measured over ``trials`` releases."""
    cfg, means = _releases(values, eps, seed, trials, _ds.y)
    true = float(np.clip(_ds.y, -cfg.clip, cfg.clip).mean())
    err = np.abs(means - true)
    fig = go.Figure(go.Histogram(x=means, name="released means"))
    fig.add_vline(x=true, line_dash="dash", annotation_text="clipped mean")
    fig.update_layout(xaxis_title="released mean", yaxis_title="releases")
    return Screen(
        who="Each person's label: the released mean hides whether any one label was in the data.",
        numbers=(
            ("Noise scale", display.number(cfg.scale(eps, _ds.n)), "Laplace scale 2·clip/(n·ε)"),
            ("Guarantee", f"ε = {display.epsilon(eps)}, δ = 0", "pure ε-DP"),
            ("Mean absolute error", display.number(float(err.mean())), f"over {trials} releases"),
        ),
        status=("proved", "Laplace mechanism (Dwork et al. 2006)"),
        chart=fig,
        caption=f"{trials} releases; {display.percent(float(np.mean(err <= 3 * cfg.scale(eps, _ds.n))))} "
        "lie within three scales of the clipped mean.",
    )


def _calibration(values: dict, *, eps, delta, seed, trials, ds):
    from . import ToyConfig

    cfg = ToyConfig(**values)
    scale = display.number(cfg.scale(eps, ds.n))
    return f"Sensitivity 2·{cfg.clip:g}/{ds.n} over ε = {display.epsilon(eps)}: Laplace scale {scale}.", None


SECTIONS = (("How the noise is calibrated", _calibration),)
