"""Choices of the twins app (NetBox style: one class per field)."""

from django.db import models


class TwinEngineChoices(models.TextChoices):
    NETNS = "netns", "Linux network namespaces + FRR (this machine)"
    CONTAINERLAB = "containerlab", "containerlab (needs the binary and Docker)"


class TwinStatusChoices(models.TextChoices):
    DOWN = "down", "Down"
    BOOTING = "booting", "Booting"
    UP = "up", "Up (every live check passed)"
    DEGRADED = "degraded", "Degraded (running, some live check failed)"
    FAILED = "failed", "Failed"


class InjectionKindChoices(models.TextChoices):
    LINK = "link", "One fabric link"
    SPINE = "spine", "A whole spine"
