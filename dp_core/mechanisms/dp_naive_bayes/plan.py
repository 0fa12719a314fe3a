"""The DP naive Bayes page plan: test accuracy of many seeded private models, and how the budget is split."""

import numpy as np

from dp_core import display
from dp_core.fit_checks import constant_answer, score_screen
from dp_core.plugin import Screen, cached


@cached(max_entries=32)
def first_screen(values: tuple, name: str, fingerprint: str, eps, delta, seed, trials, _ds) -> Screen:
    """The budget split, the guarantee, and the test accuracy of ``trials`` private models."""
    from . import NaiveBayesConfig
    from .compare import accuracies, prepare_state

    cfg = NaiveBayesConfig(**dict(values))
    if _ds.task == "regression":
        raise ValueError("dp-naive-bayes classifies: choose a binary or multiclass dataset.")
    prepared = prepare_state(_ds, seed=seed, var_floor=cfg.var_floor)
    acc = accuracies(prepared, eps, cfg, np.random.default_rng(seed), trials)
    split = " / ".join(display.epsilon(b) for b in cfg.budgets(eps))
    return score_screen(
        acc,
        eps=eps,
        const=constant_answer(_ds.task, prepared.y_test),
        runs="private models",
        base=(prepared.nonprivate, "non-private naive Bayes"),
        axes=("test accuracy", "models"),
        who="Each person's record: the model hides whether any one record was in the training data.",
        numbers=(
            ("Budget (counts / sums / squares)", split, "sequential composition"),
            ("Guarantee", f"ε = {display.epsilon(eps)}, δ = 0", "pure ε-DP"),
            ("Mean test accuracy", display.number(float(acc.mean())), f"over {trials} private models"),
        ),
        status=("proved", "Laplace mechanism on class statistics (Vaidya et al. 2013)"),
        caption=f"{trials} private models; the non-private model scores {display.number(prepared.nonprivate)}",
    )


def _calibration(values: dict, *, eps, delta, seed, trials, ds):
    from . import NaiveBayesConfig, sensitivities

    cfg = NaiveBayesConfig(**values)
    parts = zip(("counts", "sums", "squared sums"), sensitivities(ds.d), cfg.budgets(eps), cfg.scales(eps, ds.d))
    text = "; ".join(
        f"{k}: sensitivity {display.number(s)}, ε {display.epsilon(e)}, scale {display.number(b)}"
        for k, s, e, b in parts
    )
    return f"Laplace noise per statistic ({text}).", None


SECTIONS = (("How the noise is calibrated", _calibration),)
