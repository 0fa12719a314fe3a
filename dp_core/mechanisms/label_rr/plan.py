"""Label RR's page plan: the first screen (held-out utility of fits on randomized labels) and one section."""

import math

import numpy as np

from ... import display
from ...fit_checks import constant_answer, score_screen
from ...plugin import Screen, cached


@cached(max_entries=32)
def first_screen(values: tuple, name: str, fingerprint: str, eps, delta, seed, trials, _ds) -> Screen:
    """The held-out utility of ``trials`` fits on randomized labels beside the fit on the true labels."""
    from . import LabelRRConfig
    from .fit import nonprivate_metrics, prepare_rr_data, trial_metrics

    cfg = LabelRRConfig(**dict(values))
    data = prepare_rr_data(_ds, seed=seed)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(trials)]
    util, _ = trial_metrics(data, cfg, float(eps), rngs)
    base = nonprivate_metrics(data)[0]
    metric = "R²" if data.task == "regression" else "accuracy"
    return score_screen(
        util,
        eps=eps,
        const=constant_answer(data.task, data.y_test),
        runs="fits on randomized labels",
        name=f"test {metric}",
        base=(base, "fit on the true labels"),
        axes=(f"test {metric}", "fits"),
        who="Each person's label (the features are public): the released labels hide any one person's label.",
        numbers=(
            ("Guarantee", f"ε = {display.epsilon(eps)}, δ = 0", "pure ε-label-DP"),
            (f"Test {metric}", display.number(float(np.mean(util))), f"mean of {trials} fits"),
            ("True labels", display.number(base), f"test {metric} of the same fit"),
        ),
        status=("proved", "randomized response (Ghazi et al. 2021; 2023)"),
        caption=f"{trials} fits on randomized labels; the same fit on the true labels reaches {display.number(base)}",
    )


def _outputs(values: dict, *, eps, delta, seed, trials, ds):
    from . import LabelRRConfig, uniform_outputs

    cfg = LabelRRConfig(**values)
    if ds.task != "regression":  # stage 1: the uniform prior over the K classes
        keep = display.number(1.0 / (1.0 + (np.unique(ds.y).size - 1) * math.exp(-min(float(eps), 50.0))))
        return f"Under stage 1's uniform prior each label is kept with probability {keep}.", None
    e_rr, out, loss = uniform_outputs(cfg, float(eps))
    vals = ", ".join(display.number(v) for v in out)
    return (
        f"With labels spread evenly over [0, 1], RR-on-bins at ε₂ = {display.epsilon(e_rr)} releases one of "
        f"{out.size} values ({vals}); expected squared error {display.number(loss)}.",
        None,
    )


SECTIONS = (("What a released label can be", _outputs),)
