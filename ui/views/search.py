"""The global search box and the per-object change history (issue #30 point 9: what NetBox users reach for).

Search looks through every kind of object people name — switches, servers, racks, interfaces (``switch:port``),
cables, fabric intents, tenants and networks — a few rows per kind with the count and a link to the full list.
History reads the audit trail (changes.audit: every save and delete of inventory and intents objects) of one
object. Reads only; the viewer role.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse

from changes.selectors import audit_for_object
from intents import selectors as intent_selectors
from inventory import selectors

from .common import viewer

PER_KIND = 10
MAX_QUERY = 200  # characters: a search is a name, an address or switch:port, never a document


@dataclass(frozen=True)
class Hit:
    text: str
    href: str
    detail: str = ""


def _interfaces(query: str):
    device, colon, port = query.partition(":")
    found = selectors.interface_list()
    if colon and device.strip() and port.strip():
        return found.filter(switch__hostname__iexact=device.strip(), name__istartswith=port.strip())
    return found.filter(Q(name__iexact=query) | Q(description__icontains=query))


def _groups(query: str) -> list[tuple[str, str, int, list[Hit]]]:
    """(kind, link to the full list, how many match, the first few as hits) per kind with a match."""
    kinds = [
        ("Switches", "ui:switch_list", selectors.switch_list().filter(
            Q(hostname__icontains=query) | Q(mgmt_ip__icontains=query) | Q(serial__icontains=query)).order_by("hostname"),
         lambda s: Hit(s.hostname, reverse("ui:switch_detail", args=[s.hostname]), f"{s.role} · {s.fabric.name}")),
        ("Servers", "ui:server_list", selectors.server_list().filter(
            Q(name__icontains=query) | Q(mgmt_ip__icontains=query) | Q(serial__icontains=query)).order_by("name"),
         lambda s: Hit(s.name, reverse("ui:server_detail", args=[s.name]), s.fabric.name if s.fabric else "")),
        ("Racks", "ui:rack_list", selectors.rack_list().filter(Q(name__icontains=query) | Q(row__icontains=query)),
         lambda r: Hit(r.name, reverse("ui:rack_detail", args=[r.pk]), r.site.name)),
        ("Interfaces", "ui:interface_list", _interfaces(query),
         lambda i: Hit(f"{i.switch.hostname}:{i.name}", reverse("ui:interface_detail", args=[i.pk]),
                       f"{i.speed_gbps}G")),
        ("Cables", "ui:cable_list", selectors.cable_list().filter(label__icontains=query).order_by("label"),
         lambda c: Hit(c.label, reverse("ui:cable_detail", args=[c.pk]), c.cable_type)),
        ("Fabric intents", "ui:intent_list", intent_selectors.fabric_intent_list().filter(name__icontains=query)
         .order_by("name"), lambda f: Hit(f.name, reverse("ui:intent_detail", args=[f.name]), f.fabric.name)),
        ("Tenants", "ui:intent_list", intent_selectors.tenant_list().filter(
            Q(name__icontains=query) | Q(vrf__icontains=query)).order_by("name"),
         lambda t: Hit(t.name, reverse("ui:intent_object_edit", args=[t.fabric_intent.name, "tenants", t.pk]),
                       f"VRF {t.vrf} · {t.fabric_intent.name}")),
        ("Networks", "ui:intent_list", intent_selectors.network_list().filter(
            Q(name__icontains=query) | Q(subnet__icontains=query)).order_by("name"),
         lambda n: Hit(n.name, reverse("ui:intent_object_edit", args=[n.fabric_intent.name, "networks", n.pk]),
                       f"VLAN {n.vlan_id} · {n.subnet} · {n.fabric_intent.name}")),
    ]
    groups = []
    for kind, list_url, queryset, hit in kinds:
        rows = list(queryset[:PER_KIND + 1])
        if not rows:
            continue
        count = len(rows) if len(rows) <= PER_KIND else queryset.count()
        groups.append((kind, reverse(list_url), count, [hit(row) for row in rows[:PER_KIND]]))
    return groups


@viewer
def search(request):
    query = request.GET.get("q", "").strip()[:MAX_QUERY]
    groups = _groups(query) if query else []
    return render(request, "ui/search.html", {"title": "Search", "query": query, "groups": groups,
                                              "total": sum(count for _, _, count, _ in groups)})


# object type (app_label.model, as the audit trail names it) -> (label, how to name the object for the title)
HISTORY_TYPES = {
    "inventory.switch": "Switch", "inventory.server": "Server", "inventory.rack": "Rack",
    "inventory.interface": "Interface", "inventory.cable": "Cable", "inventory.optic": "Optic",
    "inventory.nicport": "NIC port", "inventory.fabric": "Fabric", "intents.fabricintent": "Fabric intent",
    "intents.tenant": "Tenant", "intents.network": "Network", "intents.roceclass": "RoCE class",
    "changes.changeset": "Change set", "changes.deviceendpoint": "Device endpoint",
}


@viewer
def history(request, object_type: str, object_id: int):
    if object_type not in HISTORY_TYPES:
        raise Http404(f"no change history for {object_type!r} (known: {', '.join(HISTORY_TYPES)})")
    entries = audit_for_object(object_type=object_type, object_id=str(object_id))
    name = next((entry.object_repr for entry in entries if entry.object_repr), f"#{object_id}")
    return render(request, "ui/history.html", {
        "title": f"History of {HISTORY_TYPES[object_type].lower()} {name}", "entries": entries,
        "kind": HISTORY_TYPES[object_type]})
