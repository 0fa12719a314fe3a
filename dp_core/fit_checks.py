"""Does a regression-only mechanism fit these data? Pure checks the pages show on their first screen.

:func:`classification_target` (class codes treated as numbers), :func:`poor_fit` (a held-out R² far
below 0, with causes) and :func:`constant_answer` (are the private models better than a constant answer?);
foundation layer, no mechanism imported. ``docs/input_perturbation.md``
§"fit_checks: the two questions".
"""

import math
from dataclasses import dataclass, field

import numpy as np

from . import display as fmt
from ._validation import check_choice, check_int, check_positive
from .preprocessing import INTERCEPT_CONSTANT

__all__ = [
    "ConstantAnswer",
    "FitState",
    "SplitData",
    "constant_answer",
    "score_screen",
    "MAX_CODES",
    "R2_FLAG",
    "PoorFit",
    "classification_target",
    "intercept_reach",
    "poor_fit",
    "target_offset",
    "target_kurtosis",
    "target_skewness",
]

#: Most distinct whole values a target may have and still be read as class codes (as the upload's task detection).
MAX_CODES = 10
#: Held-out R² below which a fit is flagged instead of shown: worse than twice the error of predicting the mean.
R2_FLAG = -1.0
#: A target mean more than this many standard deviations from 0, out of the intercept's reach, is a cause:
#: predicting 0 then scores R² = -offset² < -1 = :data:`R2_FLAG` on its own.
OFFSET_FLAG = 1.0
#: Sample skewness (absolute) above which a target counts as skewed (a log-normal with sigma 0.7 has about 2.9).
SKEW_FLAG = 2.0
#: Sample kurtosis above which a target counts as heavy-tailed (normal: 3; Student-t with 5 degrees of freedom: 9).
KURTOSIS_FLAG = 20.0


def _target(y) -> np.ndarray:
    arr = np.asarray(y, dtype=float).ravel()
    if arr.size < 2 or not np.all(np.isfinite(arr)):
        raise ValueError(f"y must hold at least 2 finite values, got {arr.size} value(s) or non-finite ones.")
    return arr


def classification_target(y, *, task: str = "regression", name: str = "the target") -> str | None:
    """A plain sentence when ``y`` holds class codes, else ``None``.

    ``task`` is the dataset's declared task (``"binary"``/``"multiclass"`` count as classification);
    a ``"regression"`` target counts as class codes when it has at most :data:`MAX_CODES` distinct whole
    values that are consecutive (``0..C-1`` or ``1..C``).

    >>> classification_target([0, 1, 2, 1, 0]) is not None
    True
    >>> classification_target([0.5, 1.5, 3.2]) is None
    True
    """
    if task not in ("regression", "binary", "multiclass"):
        raise ValueError(f"task must be one of regression, binary, multiclass, got {task!r}.")
    arr = _target(y)
    values = np.unique(arr)
    if task != "regression":
        return (
            f"{name} is a {task} target with {fmt.integer(values.size)} classes: its values are class codes, "
            "not quantities."
        )
    whole = bool(np.all(np.mod(values, 1) == 0))
    consecutive = whole and values.size <= MAX_CODES and float(values[-1] - values[0]) == values.size - 1
    if consecutive and float(values[0]) in (0.0, 1.0):
        return (
            f"{name} has only {fmt.integer(values.size)} distinct whole values "
            f"({fmt.number(values[0])} to {fmt.number(values[-1])}): it looks like class codes, not quantities."
        )
    return None


def target_offset(y) -> float:
    """``|mean(y)| / sd(y)``: how many standard deviations the target's mean lies from 0 (inf if sd = 0).

    Predicting 0 for every row scores R² = 1 − (mean² + var)/var = −offset², so a model that cannot move
    its predictions to the mean scores about that.

    >>> round(target_offset([1.0, 3.0]), 6)
    2.0
    """
    arr = _target(y)
    sd = float(arr.std())
    return math.inf if sd == 0 else abs(float(arr.mean())) / sd


def target_skewness(y) -> float:
    """The sample skewness ``mean((y - mean)^3) / sd^3`` (0 for a constant target).

    >>> target_skewness([1.0, 2.0, 3.0])
    0.0
    """
    arr = _target(y)
    sd = float(arr.std())
    return 0.0 if sd == 0 else float(np.mean((arr - arr.mean()) ** 3) / sd**3)


def intercept_reach(eta: float, constant: float | None = None, *, minmax_dim: int | None = None) -> float:
    """Largest shift of the predictions of a model ``||w|| <= eta`` by its intercept coordinate.

    The public intercept constant ``c`` (:data:`dp_core.preprocessing.INTERCEPT_CONSTANT`, docs/preprocessing.md)
    is appended to every normalised row and the row divided by ``sqrt(1 + c^2)``; the intercept weight is at
    most ``eta``, so it moves a prediction by at most ``eta * c / sqrt(1 + c^2)``. With the historical
    ``"minmax"`` rows (a column of ones, every row divided by ``sqrt(d)``, ``d = minmax_dim`` with the
    intercept) the reach is ``eta / sqrt(d)``.

    >>> round(intercept_reach(1.0, 0.25), 4), intercept_reach(2.0, minmax_dim=4)
    (0.2425, 1.0)
    """
    e = check_positive("eta", eta)
    if minmax_dim is not None:
        return e / math.sqrt(check_int("minmax_dim", minmax_dim, lo=1))
    c = INTERCEPT_CONSTANT if constant is None else check_positive("constant", constant)
    return e * c / math.sqrt(1.0 + c * c)


def target_kurtosis(y) -> float:
    """The sample kurtosis ``mean((y - mean)^4) / sd^4`` (3 for a normal target, 0 for a constant one).

    >>> target_kurtosis([-1.0, 1.0])
    1.0
    """
    arr = _target(y)
    sd = float(arr.std())
    return 0.0 if sd == 0 else float(np.mean((arr - arr.mean()) ** 4) / sd**4)


@dataclass(frozen=True)
class PoorFit:
    """A fit far worse than predicting the mean, with its likely causes (``explained``: found in the target)."""

    r2: float
    causes: tuple[str, ...]
    message: str
    explained: bool = True


def _causes(arr: np.ndarray, *, intercept_reach: float | None, clip: float | None) -> list[str]:
    causes = []
    off = target_offset(arr)
    if off >= OFFSET_FLAG and (intercept_reach is None or intercept_reach < abs(float(arr.mean()))):
        reach = (
            "the model has no intercept and the target is not centred"
            if intercept_reach is None
            else f"the model's intercept can move predictions by at most {fmt.number(intercept_reach, sig=2)}, "
            f"less than the mean's size {fmt.number(abs(float(arr.mean())), sig=3)}"
        )
        causes.append(
            f"The target's mean lies {fmt.number(off, sig=2)} standard deviations from 0 and {reach}: predicting 0 "
            f"everywhere would score R² = {fmt.number(-(off**2), sig=2)}."
        )
    skew, kurt = target_skewness(arr), target_kurtosis(arr)
    if abs(skew) >= SKEW_FLAG or kurt >= KURTOSIS_FLAG:
        med = float(np.median(arr))
        mad = float(np.median(np.abs(arr - med)))
        shape = (
            f"skewed (skewness {fmt.number(skew, sig=2)})"
            if abs(skew) >= SKEW_FLAG
            else f"heavy-tailed (kurtosis {fmt.number(kurt, sig=2)}; a normal target has 3)"
        )
        causes.append(
            f"The target is {shape}: half the rows lie within {fmt.number(mad, sig=2)} of its median "
            f"{fmt.number(med, sig=3)} while its range spans {fmt.number(float(arr.max() - arr.min()), sig=3)}, so a "
            "few extreme rows set its range and dominate the fit."
        )
    if clip is not None:
        c = check_positive("clip", clip)
        span = float(arr.max() - arr.min())
        if span > 4 * c:
            causes.append(
                f"Labels are clipped at ±{fmt.number(c, sig=3)}, much less than the target's range "
                f"{fmt.number(span, sig=3)}: the clipped labels no longer carry the differences the fit needs."
            )
    return causes


def poor_fit(
    y,
    r2: float,
    *,
    intercept_reach: float | None = None,
    clip: float | None = None,
    threshold: float = R2_FLAG,
    kind: str = "squared",
) -> PoorFit | None:
    """Flag a held-out R² below ``threshold`` (default :data:`R2_FLAG`) with its likely causes computed from ``y``.

    ``y``: the target as the mechanism sees it; ``intercept_reach``: the largest shift the intercept allows
    (``None``: no intercept); ``clip``: the label clipping bound; ``kind="absolute"`` reads ``r2`` as
    ``1 - MAE / MAE of the median``. Returns ``None`` when ``r2 >= threshold``
    (``docs/input_perturbation.md`` §"fit_checks.poor_fit").
    """
    arr = _target(y)
    if kind not in ("squared", "absolute"):
        raise ValueError(f"kind must be 'squared' or 'absolute', got {kind!r}.")
    r2 = float(r2)
    if math.isnan(r2):
        raise ValueError("r2 must be a number, got nan.")
    if r2 >= float(threshold):
        return None
    causes = _causes(arr, intercept_reach=intercept_reach, clip=clip)
    explained = bool(causes)
    if not causes:
        causes = ["The features barely predict this target on held-out rows, and the fit overshoots."]
    ratio = 1.0 - r2
    head = (
        f"held-out R² = {fmt.number(r2, sig=3)}, a squared error {fmt.number(ratio, sig=2)} times that of predicting "
        "the mean"
        if kind == "squared"
        else f"a held-out absolute error {fmt.number(ratio, sig=2)} times that of predicting the median"
    )
    msg = f"Not a usable fit: {head}. Likely cause: " + " ".join(causes)
    return PoorFit(r2=r2, causes=tuple(causes), message=msg, explained=explained)


# ------------------------------------------------------------------ better than a constant answer?
@dataclass(frozen=True)
class ConstantAnswer:
    """The held-out score of the best answer that ignores the features: ``score``; ``words`` say what it is.

    A private model scoring no more than this has learnt nothing the noise left, which a mean over many
    runs hides: :meth:`number` counts the runs that beat it and :meth:`alerts` says how many did not."""

    score: float
    words: str
    metric: str

    def beaten(self, scores) -> int:
        """How many of ``scores`` are strictly above the constant answer's."""
        return int(np.sum(np.asarray(scores, dtype=float) > self.score))

    def number(self, scores, runs: str = "private models") -> tuple[str, str, str]:
        """The first-screen number ``(label, "b of n", help)``."""
        n = np.asarray(scores).size
        return (
            "Better than a constant",
            f"{self.beaten(scores)} of {n}",
            f"{runs} with a test {self.metric} above {self.words} ({fmt.number(self.score)})",
        )

    def alerts(self, scores, eps: float, runs: str = "private models") -> tuple[tuple[str, str, str], ...]:
        """No alert when every run beats the constant answer; a warning from half the runs, else a note."""
        n = np.asarray(scores).size
        worse = n - self.beaten(scores)
        if worse == 0:
            return ()
        level = "warning" if 2 * worse >= n else "info"
        text = (
            f"{worse} of {n} {runs} ({fmt.percent(worse / n)}) score no better than {self.words} (test "
            f"{self.metric} {fmt.number(self.score)}) at ε = {fmt.epsilon(eps)}: the noise swamps what the data "
            "say. A larger ε or more rows help."
        )
        return ((level, text, "⚠️" if level == "warning" else "ℹ️"),)

    def mark(self, fig) -> None:
        """A dotted vertical line at the constant answer's score on a Plotly figure of test scores."""
        fig.add_vline(
            x=self.score, line_dash="dot", annotation_text="constant answer", annotation_position="bottom right"
        )


def constant_answer(task: str, y_test) -> ConstantAnswer:
    """The best feature-blind answer on the test rows: always the commonest class (its accuracy), or for
    regression the test mean (R² = 0 by definition of R²)."""
    check_choice("task", task, ("binary", "multiclass", "regression"))
    if task == "regression":
        return ConstantAnswer(0.0, "predicting the test mean", "R²")
    _, counts = np.unique(np.asarray(y_test), return_counts=True)
    if counts.size == 0:
        raise ValueError("y_test must hold at least one label.")
    return ConstantAnswer(float(counts.max() / counts.sum()), "always answering the commonest class", "accuracy")


def score_screen(scores, *, eps, const: ConstantAnswer, runs, base, axes, who, numbers, status, caption, name=None):
    """A first screen of held-out scores: their histogram (trace ``name``, default ``runs``; ``axes`` its titles)
    beside ``base = (score, label)`` of the non-private fit (dashed) and ``const`` (dotted); the constant answer's
    number, caption tail and alerts follow ``numbers`` and ``caption``."""
    import plotly.graph_objects as go

    from .plugin import Screen

    fig = go.Figure(go.Histogram(x=scores, name=name or runs))
    fig.add_vline(x=base[0], line_dash="dash", annotation_text=base[1])
    const.mark(fig)
    fig.update_layout(xaxis_title=axes[0], yaxis_title=axes[1])
    return Screen(
        who=who,
        numbers=(*numbers, const.number(scores, runs)),
        status=status,
        chart=fig,
        caption=f"{caption}, {const.words} scores {fmt.number(const.score)}.",
        alerts=const.alerts(scores, eps, runs),
    )


# ------------------------------------------------------------------ a prepared split (dp_gd, label_rr)
@dataclass(frozen=True, eq=False)
class SplitData:
    """A seeded train/test split as a mechanism fits it: ``task``, ``n_classes`` (0: regression), the arrays, the
    label range ``[lo, hi]`` the labels come from, and the notes and leaks the comparison shows."""

    task: str
    n_classes: int
    X_train: np.ndarray = field(repr=False)
    y_train: np.ndarray = field(repr=False)
    X_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    lo: float = 0.0
    hi: float = 1.0
    notes: tuple[str, ...] = ()
    leaks: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.X_train.shape[0])


@dataclass(frozen=True, eq=False)
class FitState:
    """A comparison adapter's prepared state: the split and the mechanism's config."""

    data: SplitData
    cfg: object
