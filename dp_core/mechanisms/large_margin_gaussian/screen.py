"""The first screen of the large-margin Gaussian classifier on the visitor's data, as a
:class:`~dp_core.plugin.Screen` (noise, guarantee, the draw's accuracy and its picture).
See docs/large_margin_gaussian.md.
"""

from __future__ import annotations

from ... import display as fmt
from ...glossary import tip
from ...plugin import Screen
from . import figures as lmf
from .experiments import utility_note

MECH = "large-margin-gaussian"
WHO = "each training point, its features and its class, from anyone who sees the released classifier."


def _numbers(acc: dict, draw: dict, acc_np: float, private: bool) -> tuple:
    claimed = f"ε = {fmt.epsilon(acc['eps_claimed'])}"
    return (
        (
            "Noise added",
            fmt.number(acc["expected_noise_norm"], sig=3),
            "The average size of the random matrix added to the training objective (its norm). "
            "Larger means more noise, more privacy and less accuracy.",
        ),
        (
            "Privacy guarantee",
            claimed if private else f"claimed {claimed}",
            (tip("ε") or "")
            + ("" if private else " P and P+ are not differentially private: this ε is only what the paper claims."),
        ),
        (
            "Test accuracy (private)",
            "no release" if draw["unbounded"] else fmt.number(draw["acc_p"]),
            "Share of held-out test points classified correctly by this private release, beside the "
            "same classifier trained without noise.",
            f"non-private {fmt.number(acc_np)}",
            "off",
        ),
    )


def _chart(task, draw: dict, acc_np: float, regions) -> tuple:
    """The class regions when the projection has two dimensions (``regions``), else accuracy bars; and a caption."""
    if task.d == 2:
        caption = (
            "Which class each point of the plane is assigned to, without privacy (left) and by the private "
            "release (right). Dots: training points."
        )
        return regions, caption
    bars = [
        ("guessing (chance)", 1.0 / task.n_classes),
        ("private release", None if draw["unbounded"] else draw["acc_p"]),
        ("trained without privacy", acc_np),
    ]
    caption = (
        f"The data have {fmt.integer(task.d)} dimensions after the public projection: the class regions are "
        "drawn when k = 2 (Settings)."
    )
    return lmf.accuracy_bars_figure(bars, title="Test accuracy"), caption


def first_screen(task, acc: dict, draw: dict, acc_np: float, *, mode: str, audit_mode: str, k, regions=None):
    """The page's first screen for one noise ``draw`` (``k``: the projection's size when it is the visitor's
    choice, else ``None``); ``regions``: the class-regions figure when ``task.d == 2``."""
    chart, caption = _chart(task, draw, acc_np, regions)
    notes = [utility_note(float("nan") if draw["unbounded"] else draw["acc_p"], acc_np, task.n_classes, k=k)]
    if task.data_dependent:
        notes.append(
            "🔓 Columns were scaled with statistics of the data itself: the guarantee does not cover that step "
            "(see Preprocessing)."
        )
    alerts = ()
    if draw["unbounded"]:
        text = "This noise draw makes the printed objective **unbounded below**: the mechanism has no output."
        alerts = (("error", text, "⛔"),)
    return Screen(
        who=WHO,
        numbers=_numbers(acc, draw, acc_np, mode == "corrected"),
        audit=(MECH, audit_mode),
        chart=chart,
        caption=caption,
        note=" ".join(t for t in notes if t),
        alerts=alerts,
    )
