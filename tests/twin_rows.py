"""A Twin row for a twin a test booted itself (labs.runtime with its own prefix and state directory), or for no
running twin at all: change sets and rollouts name their twin by this handle (issue #28 point 3)."""

from __future__ import annotations

from intents.models import FabricIntent
from inventory.models import Fabric, Site
from twins.models import Twin


def twin_row(*, prefix: str = "ftx", state_dir: str = "", status: str = "up", name: str = "") -> Twin:
    """A Twin row with ``prefix`` and ``state_dir``, on a bare fabric intent of its own (named after the prefix)."""
    name = name or f"twin-{prefix}"
    site, _ = Site.objects.get_or_create(name="twin-rows")
    fabric = Fabric.objects.create(name=name, site=site)
    intent = FabricIntent.objects.create(name=name, fabric=fabric)
    return Twin.objects.create(fabric_intent=intent, prefix=prefix, state_dir=str(state_dir), status=status)
