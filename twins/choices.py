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


class TwinOperationKindChoices(models.TextChoices):
    UP = "up", "Start twin"
    DOWN = "down", "Stop twin"
    PING = "ping", "Live checks + ping matrix"
    FIDELITY = "fidelity", "Fidelity"
    FAIL_LINK = "fail_link", "Fail a leaf uplink"
    FAIL_SPINE = "fail_spine", "Fail a spine"
