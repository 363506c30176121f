"""Choices the kernel's authorisation needs: what a change is aimed at decides the capability it needs
(common.policy.ByTarget). changes/choices.py re-exports it with the pipelines' other choices."""

from django.db import models


class RolloutTargetChoices(models.TextChoices):
    TWIN = "twin", "Twin"
    PRODUCTION = "production", "Production"
