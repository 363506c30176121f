"""NetBox as the source of truth: import and re-sync (services; the mapping is inventory.netbox, the HTTP client
inventory.netbox_client).

``netbox_sync`` maps what NetBox holds, diffs it against the previous applied sync by NetBox object id (create /
update / delete / re-patch), and either records the diff (dry run) or applies it in one transaction with
``inventory_replace`` (the fabric becomes exactly what NetBox has). Every run, failed or dry, is a NetboxSync row.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from compiler import model as core
from compiler.errors import FabricTwinError

from .choices import NetboxSyncStatusChoices, NetboxSyncTriggerChoices
from .models import NetboxSync
from .netbox import NetboxImport, load_dump, netbox_to_inventory
from .netbox_client import NetboxClient
from .services import PersistResult, inventory_replace

CREATE, UPDATE, DELETE, REPATCH = "create", "update", "delete", "re-patch"


@dataclass
class SyncResult:
    record: NetboxSync
    mapped: NetboxImport
    diff: list[dict] = field(default_factory=list)
    persisted: PersistResult | None = None

    @property
    def inventory(self) -> core.Inventory:
        return self.mapped.inventory

    def diff_text(self) -> str:
        return "\n".join(f"{c['action']:8} {c['object']:14} {c['name']}" + (f": {c['detail']}" if c["detail"] else "")
                         for c in self.diff) or "no change in NetBox since the last sync"


def state_diff(old: dict[str, dict], new: dict[str, dict]) -> list[dict]:
    """The changes from ``old`` to ``new`` (both keyed by NetBox object: ``device:3``, ``cable:17``): a cable whose
    ends changed is a re-patch, any other changed field an update. Sorted by object key."""
    changes = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        name = str((after or before).get("name") or (after or before).get("label") or key)
        if before is None:
            changes.append({"action": CREATE, "object": key, "name": name, "detail": ""})
        elif after is None:
            changes.append({"action": DELETE, "object": key, "name": name, "detail": ""})
        elif before != after:
            fields = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            action = REPATCH if key.startswith("cable:") and "ends" in fields else UPDATE
            detail = "; ".join(f"{k}: {_short(before.get(k))} -> {_short(after.get(k))}" for k in fields)
            changes.append({"action": action, "object": key, "name": name, "detail": detail})
    return changes


def _short(value: Any) -> str:
    text = ", ".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def last_applied(fabric: str) -> NetboxSync | None:
    return NetboxSync.objects.filter(fabric_name=fabric, status=NetboxSyncStatusChoices.APPLIED).first()


def netbox_sync(*, fabric: str, data: dict[str, list[dict]], source: str, dry_run: bool = False,
                allow_missing_links: bool = False, trigger: str = NetboxSyncTriggerChoices.COMMAND,
                progress: bool = False) -> SyncResult:
    """Map ``data`` (NetBox JSON), diff it against the last applied sync and apply it unless ``dry_run``.

    A mapping error (a link that cannot be imported, a hostile record) raises after recording a failed run; so does
    an apply the database refuses (nothing of it is saved)."""
    record = NetboxSync(fabric_name=fabric, source=source[:300], trigger=trigger,
                        allow_missing_links=allow_missing_links)
    try:
        mapped = netbox_to_inventory(data, fabric=fabric, allow_missing_links=allow_missing_links)
    except FabricTwinError as error:
        _fail(record, error)
        raise
    previous = last_applied(fabric)
    diff = state_diff(previous.state if previous else {}, mapped.state)
    record.diff, record.state, record.skipped = diff, mapped.state, [list(item) for item in mapped.skipped]
    record.missing_links = [{"device": m.endpoint.device, "interface": m.endpoint.interface, "source": m.source,
                             "reason": m.reason} for m in mapped.inventory.missing_links]
    result = SyncResult(record=record, mapped=mapped, diff=diff)
    try:
        result.persisted = _apply(mapped.inventory, dry_run=dry_run, progress=progress)
    except FabricTwinError as error:
        _fail(record, error)
        raise
    record.persisted = result.persisted.as_dict()
    record.status = NetboxSyncStatusChoices.DRY_RUN if dry_run else NetboxSyncStatusChoices.APPLIED
    counts = {action: sum(1 for c in diff if c["action"] == action) for action in (CREATE, UPDATE, DELETE, REPATCH)}
    written = result.persisted.as_dict()
    record.summary = (f"{'would apply' if dry_run else 'applied'}: "
                      + ", ".join(f"{n} {action}" for action, n in counts.items())
                      + f"; rows created {sum(written['created'].values())}, updated "
                        f"{sum(written['updated'].values())}, deleted {sum(written['deleted'].values())}"
                      + (f"; {len(record.missing_links)} MISSING LINKS" if record.missing_links else ""))
    record.save()
    return result


class _DryRun(Exception):
    """Rolls the dry run's transaction back after measuring what it would write."""


def _apply(inventory: core.Inventory, *, dry_run: bool, progress: bool) -> PersistResult:
    """Apply in one transaction; a dry run applies too, then rolls back, so it reports exactly what would change."""
    if not dry_run:
        return inventory_replace(inventory=inventory, progress=progress)
    measured: list[PersistResult] = []
    try:
        with transaction.atomic():
            measured.append(inventory_replace(inventory=inventory, progress=progress))
            raise _DryRun
    except _DryRun:
        pass
    return measured[0]


def _fail(record: NetboxSync, error: Exception) -> None:
    """Record a failed run: the error only (what NetBox held may be the hostile input that failed: not stored;
    NUL, which PostgreSQL text cannot hold, escaped)."""
    record.status = NetboxSyncStatusChoices.FAILED
    record.diff, record.state, record.skipped, record.missing_links = [], {}, [], []
    text = str(error).replace("\x00", "\\x00")
    record.error = text[:10_000]
    record.summary = f"failed: {text.splitlines()[0][:200]}" if text else "failed"
    record.save()


def netbox_sync_from_dump(*, directory: Path | str, fabric: str, **options: Any) -> SyncResult:
    return netbox_sync(fabric=fabric, data=load_dump(directory), source=Path(directory).name, **options)


def netbox_client_configured() -> NetboxClient:
    """The NetBox of FT_NETBOX_URL / FT_NETBOX_TOKEN (settings), for the webhook and the schedule."""
    if not settings.FT_NETBOX_URL or not settings.FT_NETBOX_TOKEN:
        raise FabricTwinError("NetBox is not configured: set FT_NETBOX_URL and FT_NETBOX_TOKEN")
    return NetboxClient(settings.FT_NETBOX_URL, settings.FT_NETBOX_TOKEN)


def netbox_sync_live(*, client: NetboxClient, fabric: str, filters: dict | None = None, **options: Any) -> SyncResult:
    return netbox_sync(fabric=fabric, data=client.dump(**(filters or {})), source=client.base, **options)


def webhook_signature_valid(*, body: bytes, signature: str, secret: str) -> bool:
    """NetBox signs a webhook body with HMAC-SHA512 of the webhook's secret, hex, in ``X-Hook-Signature``
    (NetBox docs, integrations/webhooks: "Webhook Security"). Constant-time comparison."""
    if not secret or not signature:
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()
    return hmac.compare_digest(expected, signature.strip().lower())
