"""DP-GD's page plan: the first screen (held-out utility of seeded private runs) and one section."""

import numpy as np

from ... import display
from ...fit_checks import constant_answer, score_screen
from ...plugin import Screen, cached


def _trials(values: tuple, eps: float, delta: float, seed: int, trials: int, ds):
    from . import DPGDConfig, noise_multiplier
    from .compare import ADAPTER, GDState, held_out_metrics, prepare_gd_data

    gd = GDState(prepare_gd_data(ds, seed=seed), DPGDConfig(**dict(values)))
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(trials)]
    util = held_out_metrics(gd.data, ADAPTER._runs(gd, eps, delta, rngs))[0]
    base = held_out_metrics(gd.data, ADAPTER._runs(gd, eps, delta, [None], private=False))[0]
    steps = gd.cfg.n_steps(gd.data.n, eps)
    return gd.data, steps, noise_multiplier(float(eps), float(delta), steps), util, float(base[0])


@cached(max_entries=32)
def first_screen(values: tuple, name: str, fingerprint: str, eps, delta, seed, trials, _ds) -> Screen:
    """Steps, noise multiplier and the held-out utility of ``trials`` private runs beside the noise-free run."""
    data, steps, z, util, base = _trials(values, eps, delta, seed, trials, _ds)
    metric = "R²" if data.task == "regression" else "accuracy"
    return score_screen(
        util,
        eps=eps,
        const=constant_answer(data.task, data.y_test),
        runs="private runs",
        name=f"test {metric}",
        base=(base, "noise-free schedule"),
        axes=(f"test {metric}", "runs"),
        who="Each person's record: the released model hides whether any one record was in the training data.",
        numbers=(
            ("Steps", display.integer(steps), "public rule or the steps set"),
            ("Noise multiplier", display.number(z), "RDP accountant (dp_accounting)"),
            (f"Test {metric}", display.number(float(np.mean(util))), f"mean of {trials} runs"),
        ),
        status=("proved", "Gaussian mechanism composed over T steps (Bassily et al. 2014; Abadi et al. 2016)"),
        caption=f"{trials} private runs; the noise-free schedule reaches {metric} {display.number(base)}",
    )


def _calibration(values: dict, *, eps, delta, seed, trials, ds):
    from . import DPGDConfig, accounted_epsilon, noise_multiplier

    cfg = DPGDConfig(**values)
    steps = cfg.n_steps(int(round(0.8 * ds.n)), eps)
    z = noise_multiplier(float(eps), float(delta), steps)
    text = (
        f"T = {steps} steps; each adds Gaussian noise of std 2·C·z = {display.number(2 * cfg.clip * z)} to the "
        f"gradient sum clipped to C = {cfg.clip:g}. The RDP accountant gives ε = "
        f"{display.epsilon(accounted_epsilon(z, steps, delta))} at δ = {display.delta(delta)} for z = "
        f"{display.number(z)}, the smallest multiplier within the budget."
    )
    return text, None


SECTIONS = (("How the noise is calibrated", _calibration),)
