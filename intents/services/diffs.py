"""Change awareness: the intent as it is now against what a target runs (per device diff), and the blast radius
of a proposed edit."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from compiler import model as core
from compiler.blast import BlastRadius, blast_radius
from compiler.diff import config_diff as text_diff
from compiler.diff import structured_diff
from compiler.errors import FieldError, InputError
from compiler.natural import natural_key

from ..adapters import fabric_snapshot
from ..choices import DiffTargetChoices
from ..models import FabricIntent
from ..selectors import diff_baselines, diff_missing_label
from .compile_runs import compile_devices


@dataclass(frozen=True)
class DeviceDiff:
    hostname: str
    platform: str
    baseline: str  # "deployed" (device), "twin", "compiled" (the latest stored compile) or "none"
    baseline_run: int | None
    text: str  # unified diff over every file, empty when identical
    structured: list[dict]  # [{"path", "old", "new"}]
    target: str = DiffTargetChoices.AUTO  # what it was compared with: device | twin | compile
    label: str = ""  # e.g. "diff vs twin (running compile #12)" (intents.selectors.diff_baselines)

    @property
    def changed(self) -> bool:
        return bool(self.text or self.structured)

    def as_dict(self) -> dict:
        return {"hostname": self.hostname, "platform": self.platform, "baseline": self.baseline,
                "baseline_run": self.baseline_run, "target": self.target, "label": self.label,
                "changed": self.changed, "text": self.text, "structured": self.structured}


def config_diff(*, fabric_intent: FabricIntent, device: str | None = None, platform: str | None = None,
                target: str = DiffTargetChoices.AUTO) -> list[DeviceDiff]:
    """Compile the intent as it is now (in memory, nothing stored) and diff it per device and platform against
    what the ``target`` runs (intents.selectors.diff_baselines: device, twin, last compile; auto picks per
    device), each diff labelled with what it compared against."""
    snapshot = fabric_snapshot(fabric_intent)
    if device is not None and device not in snapshot.inventory.switches_by_name:
        raise InputError(FieldError("device", device, f"no switch {device} in fabric "
                                                                 f"{snapshot.inventory.fabric}"))
    if platform is not None and platform not in core.Platform.ALL:
        raise InputError(FieldError("platform", platform, f"one of {', '.join(core.Platform.ALL)}"))
    baselines = diff_baselines(fabric_intent=fabric_intent, target=target, hostnames=[device] if device else None,
                               platforms=[platform] if platform else None)
    intended, rendered, _hashes = compile_devices(snapshot, devices=[device] if device else None,
                                                   platforms=[platform] if platform else None)
    diffs = []
    for hostname in sorted(rendered, key=natural_key):
        for platform_name, files in rendered[hostname].items():
            baseline = baselines.get((hostname, platform_name))
            old = baseline.config if baseline else None
            label = baseline.label if baseline else diff_missing_label(target=target, hostname=hostname)
            kind = baseline.kind if baseline else "none"
            old_files = old.files if old else {}
            text = "".join(
                text_diff(old_files.get(name, ""), files.get(name, ""),
                          old_name=f"{hostname}/{platform_name}/{name} ({kind})",
                          new_name=f"{hostname}/{platform_name}/{name} (intended)")
                for name in sorted(set(old_files) | set(files)))
            structured = [{"path": path, "old": before, "new": after}
                          for path, before, after in structured_diff(old.structured if old else {},
                                                                     intended[hostname])]
            diffs.append(DeviceDiff(hostname=hostname, platform=platform_name, baseline=kind,
                                    baseline_run=old.run_id if old else None, text=text, structured=structured,
                                    target=baseline.target if baseline else target, label=label))
    return diffs


def blast_radius_preview(*, fabric_intent: FabricIntent, change) -> BlastRadius:
    """Which devices, tenants, networks and server ports ``change`` would touch, without keeping it.

    ``change()`` applies the proposed edit through the normal services (so it is validated like any save) inside
    a savepoint that is always rolled back; the two snapshots are compared by ``compiler.blast``.
    """
    before = fabric_snapshot(fabric_intent)
    with transaction.atomic():
        change()
        fabric_intent.refresh_from_db()
        after = fabric_snapshot(fabric_intent)
        transaction.set_rollback(True)
    fabric_intent.refresh_from_db()
    return blast_radius(before, after)


def blast_radius_as_dict(radius: BlastRadius) -> dict:
    return {
        "devices": list(radius.devices), "added_devices": list(radius.added_devices),
        "removed_devices": list(radius.removed_devices), "tenants": list(radius.tenants),
        "networks": list(radius.networks), "server_ports": list(radius.server_ports),
        "changes": {host: [{"path": path, "old": old, "new": new} for path, old, new in changes]
                    for host, changes in sorted(radius.changes.items(), key=lambda item: natural_key(item[0]))},
    }
