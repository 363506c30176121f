"""NetBox as the source of truth: import and re-sync (services; the mapping is inventory.netbox, the HTTP client
inventory.netbox_client).

``netbox_sync`` maps what NetBox holds, diffs it against the previous applied sync by NetBox object id (create /
update / delete / re-patch), and either records the diff (dry run) or applies it in one transaction with
``inventory_replace`` (the fabric becomes exactly what NetBox has). Every run, failed or dry, is a NetboxSync row.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from common.runs import RunStatus, run_execute
from compiler import model as core
from compiler.errors import FabricTwinError, FieldError, InputError

from .choices import NetboxSyncTriggerChoices
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
    """The baseline of the next diff: the latest sync that applied (succeeded, not a dry run)."""
    return NetboxSync.objects.filter(fabric_name=fabric, status=RunStatus.SUCCEEDED, dry_run=False).first()


def netbox_sync(*, fabric: str, data: dict[str, list[dict]], source: str, dry_run: bool = False,
                allow_missing_links: bool = False, trigger: str = NetboxSyncTriggerChoices.COMMAND,
                progress: bool = False) -> SyncResult:
    """Map ``data`` (NetBox JSON), diff it against the last applied sync and apply it unless ``dry_run``; the run
    is a NetboxSync row moved through ``common.runs.run_execute``.

    A mapping error (a link that cannot be imported, a hostile record) raises after recording a failed run; so does
    an apply the database refuses (nothing of it is saved). A bug fails the run "internal error" and is raised."""
    record = NetboxSync.objects.create(fabric_name=fabric, source=source[:300], trigger=trigger, dry_run=dry_run,
                                       allow_missing_links=allow_missing_links)
    return _sync_run(record, lambda: data, progress=progress)


def _sync_run(record: NetboxSync, load: Callable[[], dict[str, list[dict]]], *, progress: bool) -> SyncResult:
    """Move ``record`` through ``run_execute`` around loading what NetBox holds and syncing it; a domain error is
    raised after the failed run is recorded."""
    refused: list[FabricTwinError] = []
    with run_execute(record, update_fields=("diff", "persisted", "skipped", "missing_links", "state")):
        try:
            result = _sync(record, load(), progress=progress)
        except FabricTwinError as error:
            # the error only: what NetBox held may be the hostile input that failed (not stored)
            record.diff, record.state, record.skipped, record.missing_links, record.persisted = [], {}, [], [], {}
            text = str(error).replace("\x00", "\\x00")
            record.summary = {"text": f"failed: {text.splitlines()[0][:200]}" if text else "failed"}
            refused.append(error)
            raise
    if refused:
        raise refused[0]
    return result


def netbox_sync_prepare(*, fabric: str = "", trigger: str, dry_run: bool = False, allow_missing_links: bool = False,
                        requested_by=None) -> NetboxSync:
    """A pending re-sync of ``fabric`` (default FT_NETBOX_FABRIC) from the configured NetBox, recorded before it
    runs so the API can answer 202 with its status URL; ``netbox_sync_execute`` runs it. No fabric or NetBox not
    configured: an error naming the setting, nothing recorded."""
    fabric = fabric or settings.FT_NETBOX_FABRIC
    if not fabric:
        raise InputError(FieldError("fabric", fabric, "a fabric name (or set FT_NETBOX_FABRIC)"))
    client = netbox_client_configured()
    return NetboxSync.objects.create(
        fabric_name=fabric, source=client.base[:300], trigger=trigger, dry_run=dry_run,
        allow_missing_links=allow_missing_links,
        requested_by=requested_by if requested_by is not None and requested_by.is_authenticated else None)


def netbox_sync_execute(*, record: NetboxSync) -> NetboxSync:
    """Fetch from the configured NetBox and sync into the prepared ``record``: the record is the outcome (a sync
    NetBox or the inventory refused is ``failed`` with the reason, not raised)."""
    try:
        _sync_run(record, lambda: netbox_client_configured().dump(), progress=False)
    except FabricTwinError:
        pass  # recorded on the run by run_execute
    return record


def _sync(record: NetboxSync, data: dict[str, list[dict]], *, progress: bool) -> SyncResult:
    """The body of one sync run: map, diff against the last applied sync, apply (or measure, for a dry run)."""
    fabric, dry_run = record.fabric_name, record.dry_run
    mapped = netbox_to_inventory(data, fabric=fabric, allow_missing_links=record.allow_missing_links)
    previous = last_applied(fabric)
    diff = state_diff(previous.state if previous else {}, mapped.state)
    record.diff, record.state, record.skipped = diff, mapped.state, [list(item) for item in mapped.skipped]
    record.missing_links = [{"device": m.endpoint.device, "interface": m.endpoint.interface, "source": m.source,
                             "reason": m.reason} for m in mapped.inventory.missing_links]
    result = SyncResult(record=record, mapped=mapped, diff=diff)
    result.persisted = _apply(mapped.inventory, dry_run=dry_run, progress=progress)
    written = record.persisted = result.persisted.as_dict()
    counts = {action: sum(1 for c in diff if c["action"] == action) for action in (CREATE, UPDATE, DELETE, REPATCH)}
    rows = {key: sum(written[key].values()) for key in ("created", "updated", "deleted")}
    text = (f"{'would apply' if dry_run else 'applied'}: "
            + ", ".join(f"{n} {action}" for action, n in counts.items())
            + f"; rows created {rows['created']}, updated {rows['updated']}, deleted {rows['deleted']}"
            + (f"; {len(record.missing_links)} MISSING LINKS" if record.missing_links else ""))
    record.summary = {"text": text, **counts, **rows, "missing_links": len(record.missing_links)}
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


# How far a webhook's own timestamp may be from our clock; a signed body is accepted once within it (replays of a
# captured body were applied 3 of 3 times before this, issue 29).
WEBHOOK_WINDOW_S = 300


def webhook_replay_problem(*, body: bytes, now: datetime.datetime | None = None) -> str | None:
    """Why a correctly signed webhook body is refused, or None (then it is remembered: the same body is refused
    for the rest of the window). NetBox's default body carries ``timestamp`` (NetBox docs, integrations/webhooks:
    "Default Request Body"); one outside WEBHOOK_WINDOW_S, an empty or non-JSON body, or a body seen before is
    refused. Seen bodies are kept as SHA-256 digests in the default cache (shared by every web process when
    FT_CACHE_URL points at Redis)."""
    if not body.strip():
        return "an empty body: NetBox sends a JSON event (event, timestamp, model, data)"
    try:
        event = json.loads(body)
    except (ValueError, RecursionError):
        return "not a JSON event"
    stamp = event.get("timestamp") if isinstance(event, dict) else None
    try:
        when = datetime.datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        return f"timestamp={str(stamp)[:40]!r}: expected NetBox's ISO 8601 time with a UTC offset"
    skew = abs(((now or datetime.datetime.now(datetime.UTC)) - when).total_seconds())
    if skew > WEBHOOK_WINDOW_S:
        return f"timestamp={stamp!r}: more than WEBHOOK_WINDOW_S={WEBHOOK_WINDOW_S} s from this server's clock"
    if not cache.add(f"netbox-webhook:{hashlib.sha256(body).hexdigest()}", True, timeout=2 * WEBHOOK_WINDOW_S):
        return "this signed body was already received: a replay"
    return None
