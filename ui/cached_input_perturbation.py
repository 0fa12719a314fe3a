"""Transitional: ``pages/start_here.py`` still imports this; it is ``ui.cached.plan("input-perturbation")``.

Delete once that page does ``plan("input-perturbation")`` itself (the plan is
``dp_core/mechanisms/input_perturbation/plan.py``).
"""

from .cached import plan


def __getattr__(name: str):
    return getattr(plan("input-perturbation"), name)
