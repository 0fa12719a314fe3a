"""The DP naive Bayes page plan: test accuracy of many seeded private models, and how the budget is split."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dp_core import display
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
    guess = float(np.bincount(prepared.y_test).max() / prepared.y_test.size)  # always the test set's commonest class
    fig = go.Figure(go.Histogram(x=acc, name="private models"))
    fig.add_vline(x=prepared.nonprivate, line_dash="dash", annotation_text="non-private naive Bayes")
    fig.add_vline(x=guess, line_dash="dot", annotation_text="commonest class", annotation_position="bottom right")
    fig.update_layout(xaxis_title="test accuracy", yaxis_title="models")
    split = " / ".join(display.epsilon(b) for b in cfg.budgets(eps))
    beaten = int(np.sum(acc > guess))
    return Screen(
        who="Each person's record: the model hides whether any one record was in the training data.",
        numbers=(
            ("Budget (counts / sums / squares)", split, "sequential composition"),
            ("Guarantee", f"ε = {display.epsilon(eps)}, δ = 0", "pure ε-DP"),
            ("Mean test accuracy", display.number(float(acc.mean())), f"over {trials} private models"),
            (
                "Better than guessing",
                f"{beaten} of {trials}",
                f"private models more accurate than always answering the commonest class ({display.number(guess)})",
            ),
        ),
        status=("proved", "Laplace mechanism on class statistics (Vaidya et al. 2013)"),
        chart=fig,
        caption=f"{trials} private models; the non-private model scores {display.number(prepared.nonprivate)}, "
        f"always answering the commonest class {display.number(guess)}.",
        alerts=_guessing_alert(trials - beaten, trials, guess, eps),
    )


def _guessing_alert(worse: int, trials: int, guess: float, eps: float) -> tuple:
    """A warning when private models are no better than a constant answer (a silently useless model)."""
    if worse == 0:
        return ()
    level = "warning" if 2 * worse >= trials else "info"
    return (
        (
            level,
            f"{worse} of {trials} private models ({display.percent(worse / trials)}) are no more accurate than always "
            f"answering the commonest class ({display.number(guess)}) at ε = {display.epsilon(eps)}: the noise "
            "swamps the class statistics. A larger ε or more rows help.",
            "⚠️" if level == "warning" else "ℹ️",
        ),
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
