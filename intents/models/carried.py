"""Carried lines of an adopted fabric: what a device's running config states and no intent field expresses.

``manage.py fabric_adopt`` (intents/adopt.py) stores one row per carried block (compiler.adopt.carry.CarriedBlock):
the original lines byte for byte, the parent lines they sit under, the rendered file they go back into, their kind
and where they came from. Every compile of the intent puts them back into the device's own platform rendering
(intents.services), so nothing the fabric ran is lost when the compiler owns it.
"""

from django.db import models

__all__ = ("CarriedBlock",)


class CarriedBlock(models.Model):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="carried_blocks")
    hostname = models.CharField(max_length=63)
    position = models.PositiveIntegerField(help_text="Order of the block among the device's carried blocks")
    target = models.CharField(max_length=64, help_text="Rendered file it goes back into (startup-config, frr.conf...)")
    kind = models.CharField(max_length=64, help_text="The top-level command it sits under (router bgp, ntp...)")
    source_file = models.CharField(max_length=255)
    source_line = models.PositiveIntegerField(default=0)
    parents = models.JSONField(default=list, blank=True, help_text="Lines (stripped) it sits under")
    text = models.TextField(help_text="The carried lines as the running config has them")
    lines = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ("fabric_intent", "hostname", "position")
        constraints = [models.UniqueConstraint(fields=("fabric_intent", "hostname", "position"),
                                               name="carriedblock_unique_position")]

    def __str__(self) -> str:
        return f"{self.hostname} {self.kind} ({self.source_file}:{self.source_line})"
