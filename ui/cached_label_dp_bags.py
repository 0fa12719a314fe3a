"""Kept only for ``pages/audit.py`` (its bag hint) until it calls ``plan("label-dp-bags")``; then delete."""

from .cached import plan

bag_suggestion = plan("label-dp-bags").bag_suggestion
