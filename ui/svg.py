"""Pure SVG drawing for the UI: the Clos topology and rack elevations (no Django imports).

Both pictures are built from the frozen snapshot (``compiler.model``) so they draw exactly what the compiler
and the validators see. Links are coloured from validator findings (``validators.findings.Finding``): the
worst severity among the findings whose subject names a port of the link, or the link itself.

Readability at scale: parallel cables between the same two switches are drawn as one bundle (with a count),
and servers are aggregated per leaf into one box ("24 servers"), so a 64-leaf fabric stays a picture rather
than a hairball. Labels are whole host names less the prefix a whole tier shares (named once in the tier
caption), so no two boxes read the same; vertical boxes are as tall as their label. 5-stage fabrics are framed
per pod and super-spine plane, and above ``POD_DETAIL_MAX_LEAVES`` leaves drawn one box per pod (each opens on
its own). Each switch carries a platform badge (E/S/F, ``PLATFORM_BADGE``). The SVG element is a window onto the
drawing: ui.js fits the whole drawing into it, and zooms and pans its viewBox.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from html import escape

from compiler.model import PLATFORM_LABEL, Endpoint, Inventory, Platform, Role, Switch
from compiler.natural import natural_key
from validators.subjects import Subject

# Severity ranks: higher is worse. "ok" means a report exists and names nothing on this link.
SEVERITY_RANK = {"unknown": 0, "ok": 1, "info": 2, "warning": 3, "error": 4}
SEVERITY_COLOUR = {"unknown": "#9aa3ad", "ok": "#2f9e44", "info": "#1c7ed6", "warning": "#e8890c", "error": "#e03131"}

# Each switch box carries a badge naming its platform (issue #30 point 5: EOS and SONiC leaves look alike
# otherwise): a letter on a colour no role fill or severity uses, explained by the page's legend.
PLATFORM_BADGE = {Platform.EOS: ("E", "#74c0fc"), Platform.SONIC: ("S", "#f783ac"), Platform.FRR: ("F", "#ffd43b")}
BADGE = 12  # px, the badge's side
BADGE_ROOM = BADGE + 4  # what a vertical box grows by to keep its label clear of the badge


def platform_legend(inventory: Inventory) -> list[tuple[str, str, str]]:
    """(letter, colour, label) of each platform the fabric's switches run, in Platform.ALL order."""
    present = {switch.platform for switch in inventory.switches}
    return [(*PLATFORM_BADGE[platform], PLATFORM_LABEL[platform]) for platform in Platform.ALL if platform in present]


# Heights in rack units of what the planner places (compiler.clos): switches 2U, 8-GPU servers 4U.
SWITCH_HEIGHT_U = 2
SERVER_HEIGHT_U = 4


def kw(watts: float) -> str:
    """Watts as kilowatts with one decimal, rounded half up (as Django's floatformat shows the same number)."""
    return str((Decimal(str(watts)) / 1000).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def worse(a: str, b: str) -> str:
    return a if SEVERITY_RANK.get(a, 0) >= SEVERITY_RANK.get(b, 0) else b


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


# --------------------------------------------------------------------------------------------- findings


def link_key(device_a: str, device_b: str) -> tuple[str, str]:
    """Order-independent key of the bundle between two devices."""
    return (device_a, device_b) if natural_key(device_a) <= natural_key(device_b) else (device_b, device_a)


def _subject_endpoints(subject: str) -> list[Endpoint]:
    """'leaf1:Ethernet1' -> one endpoint; 'a:x<->b:y' -> two; a bare device name -> none (node-level)."""
    return [Endpoint(end.device, end.interface) for end in Subject.parse(subject).ends if end.device and end.interface]


@dataclass
class LinkHealth:
    """Worst severity per device pair and per device, with the findings that decided it."""

    links: dict[tuple[str, str], str] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)
    findings_by_link: dict[tuple[str, str], list] = field(default_factory=dict)
    has_report: bool = False


def link_health(inventory: Inventory, findings: Iterable, checks: Iterable[str] | None = None,
                has_report: bool = True) -> LinkHealth:
    """Map findings (optionally only those of ``checks``) onto cabled device pairs and devices.

    A finding on one port colours the link that port is cabled into; a finding on a whole device colours
    the device box. Links without findings are "ok" when a report exists, "unknown" otherwise.
    """
    wanted = set(checks) if checks is not None else None
    health = LinkHealth(has_report=has_report)
    base = "ok" if has_report else "unknown"
    for cable in inventory.cables:
        health.links.setdefault(link_key(cable.a.device, cable.b.device), base)
    for finding in findings:
        if wanted is not None and finding.check not in wanted:
            continue
        endpoints = _subject_endpoints(finding.subject)
        if not endpoints:
            device = finding.subject.strip()
            if device in inventory.switches_by_name or device in inventory.servers_by_name:
                health.nodes[device] = worse(health.nodes.get(device, base), finding.severity)
            continue
        keys = set()
        if len(endpoints) == 2:
            keys.add(link_key(endpoints[0].device, endpoints[1].device))
        for endpoint in endpoints:
            cable = inventory.cable_at.get(endpoint)
            if cable is not None:
                keys.add(link_key(cable.a.device, cable.b.device))
        for key in keys:
            health.links[key] = worse(health.links.get(key, base), finding.severity)
            health.findings_by_link.setdefault(key, []).append(finding)
    return health


# --------------------------------------------------------------------------------------------- topology

@dataclass(frozen=True, slots=True)
class _Box:
    name: str
    role: str
    x: float
    y: float
    width: float
    height: float
    label: str
    href: str | None = None
    title: str = ""
    platform: str = ""  # a switch's platform (badge); empty for an aggregated pod


TIER_ROLES = ((Role.SUPER_SPINE,), (Role.SPINE,), (Role.LEAF, Role.BORDER))
TIER_NAMES = ("super-spines", "spines", "leaves")
MARGIN_X = 30
# Above this many leaves a 5-stage fabric is drawn one box per pod (super-spines still one by one); a pod's own
# picture (``pod=``) shows its spines and leaves. 128 leaves at the dense pitch is a 5,000-pixel picture already.
POD_DETAIL_MAX_LEAVES = 128
LABEL_CHAR_PX = 6.6  # 11px system-ui, a generous average advance per character: a vertical box fits its label
POD_PREFIX = "pod:"  # node key of an aggregated pod box
POD_PITCH = 116  # an aggregated pod box is wide enough for "12 spines · 265 leaves" on two lines


def switch_group(switch: Switch) -> str:
    """The group a switch is drawn in: its pod (5-stage), a super-spine's plane, or nothing."""
    if switch.role == Role.SUPER_SPINE:
        return f"plane {switch.plane + 1}"  # compiler.pods numbers planes from 0 (plane k-1 for spine k)
    if switch.pod:
        return f"pod {switch.pod}"
    return ""


def short_labels(names: Iterable[str]) -> dict[str, str]:
    """Labels without the dash-ended prefix every name shares ("big-leaf10" -> "leaf10"; the picture names the
    prefix once; "pod1-leaf1" and "pod2-leaf1" share none and stay whole). Never truncated otherwise, so two labels are never the same text: if dropping the prefix would
    leave an empty or repeated label, the full names are kept."""
    names = list(names)
    if len(names) < 2:
        return {name: name for name in names}
    cut = os.path.commonprefix(names).rfind("-") + 1
    labels = {name: name[cut:] for name in names}
    if not cut or not all(labels.values()) or len(set(labels.values())) != len(names):
        return {name: name for name in names}
    return labels


def _node_of(switch: Switch, overview: bool) -> str:
    return f"{POD_PREFIX}{switch.pod}" if overview and switch.pod and switch.role != Role.SUPER_SPINE else \
        switch.hostname


def topology_svg(
    inventory: Inventory,
    health: LinkHealth,
    *,
    link_url: Callable[[str, str], str] | None = None,
    device_url: Callable[[str], str] | None = None,
    pod_url: Callable[[int], str] | None = None,
    pod: int | None = None,
    target: str = "#link-detail",
) -> str:
    """The Clos as SVG: tiers of switches grouped by pod / plane, bundled links coloured by ``health``, servers
    aggregated per leaf.

    ``link_url(a, b)`` gives the HTMX endpoint of a bundle's detail (both ends, optics, cables); clicking a
    link loads it into ``target``. ``device_url(name)`` links each switch box to its page. A 5-stage fabric with
    more than ``POD_DETAIL_MAX_LEAVES`` leaves is drawn one box per pod, linked to ``pod_url(n)``; ``pod=n`` draws
    the super-spines and pod *n* only.
    """
    switches = [s for s in inventory.switches if pod is None or s.role == Role.SUPER_SPINE or s.pod == pod]
    leaf_count = sum(1 for s in switches if s.role in (Role.LEAF, Role.BORDER))
    overview = pod is None and leaf_count > POD_DETAIL_MAX_LEAVES and any(s.pod for s in switches)
    visible = {s.hostname for s in switches}

    # tiers of (node key, group, switches the node stands for); pods first then names, so a group is contiguous
    tiers: list[tuple[str, list[tuple[str, str, list[Switch]]]]] = []
    for roles, tier_name in zip(TIER_ROLES, TIER_NAMES, strict=True):
        members = sorted((s for s in switches if s.role in roles),
                         key=lambda s: (s.pod, s.plane if s.role == Role.SUPER_SPINE else 0, natural_key(s.hostname)))
        if overview and roles != (Role.SUPER_SPINE,):
            if roles == (Role.SPINE,):  # one box per pod stands in the spine row; its leaves are inside it
                pods: dict[int, list[Switch]] = {}
                for switch in sorted(switches, key=lambda s: s.pod):
                    if switch.role != Role.SUPER_SPINE:
                        pods.setdefault(switch.pod, []).append(switch)
                tiers.append(("pods", [(f"{POD_PREFIX}{n}", "", group) for n, group in pods.items()]))
            continue
        if members:
            tiers.append((tier_name, [(s.hostname, switch_group(s), [s]) for s in members]))
    if not tiers:
        tiers = [("switches", [])]

    widest = max((len(nodes) for name, nodes in tiers if name != "pods"), default=0)
    dense = widest > 16
    pitch = 40 if dense else 96 if widest <= 8 else 64
    pods_wide = max((len(nodes) for name, nodes in tiers if name == "pods"), default=0)
    width = max(640, MARGIN_X * 2 + widest * pitch, MARGIN_X * 2 + pods_wide * POD_PITCH)

    # labels: without the prefix every switch of the tier shares (named once in the tier caption); distinct
    labels: dict[str, str] = {}
    prefixes: dict[str, str] = {}
    for tier_name, nodes in tiers:
        names = [key for key, _, _ in nodes if not key.startswith(POD_PREFIX)]
        short = short_labels(names)
        labels.update(short)
        if names and short[names[0]] != names[0]:
            prefixes[tier_name] = names[0][: len(names[0]) - len(short[names[0]])]
    longest = max((len(label) for label in labels.values()), default=6)

    boxes: dict[str, _Box] = {}
    groups: dict[str, list[str]] = {}  # group label -> node keys (a pod spans its spine and leaf rows)
    gap = 230 if dense else 170  # more height between tiers keeps a dense mesh from flattening into a band
    vertical_h = max(60.0, longest * LABEL_CHAR_PX + 12)
    tier_y: dict[int, float] = {}
    y = 40.0
    for index, (tier_name, nodes) in enumerate(tiers):
        tier_y[index] = y
        # each tier spreads over the full width (8 spines above 64 leaves, not clustered in a corner)
        slot = (width - 2 * MARGIN_X) / max(len(nodes), 1) if len(nodes) > 1 else width - 2 * MARGIN_X
        slot = min(slot, 4 * pitch) if not dense else slot
        row_width = slot * len(nodes)
        box_w = min(84.0 if tier_name != "pods" else 150.0, slot - 8)
        tallest = 0.0
        for position, (key, group, members) in enumerate(nodes):
            x = (width - row_width) / 2 + position * slot + (slot - box_w) / 2
            if key.startswith(POD_PREFIX):
                number = int(key[len(POD_PREFIX):])
                spines = sum(1 for s in members if s.role == Role.SPINE)
                label = f"pod {number}\n{spines} spines · {len(members) - spines} leaves"
                platforms = ", ".join(PLATFORM_LABEL.get(p, p) for p in sorted({s.platform for s in members}))
                title = (f"pod {number}: {spines} spines, {len(members) - spines} leaves, {platforms} "
                         f"(click to open the pod)")
                box = _Box(key, "pod", x, y, box_w, 44, label, pod_url(number) if pod_url else None, title)
            else:
                switch = members[0]
                box = _Box(key, switch.role, x, y, box_w, vertical_h + BADGE_ROOM if box_w < 50 else 34,
                           labels.get(key, key), device_url(key) if device_url else None,
                           f"{key} ({switch.role}, {PLATFORM_LABEL.get(switch.platform, switch.platform)})",
                           switch.platform)
            boxes[key] = box
            tallest = max(tallest, box.height)
            if group:
                groups.setdefault(group, []).append(key)
        y += tallest + gap

    # servers aggregated per leaf: count, and the worst health of the server links of that leaf
    node_of = {s.hostname: _node_of(s, overview) for s in switches}
    servers_per_leaf: dict[str, set[str]] = {}
    server_link_health: dict[str, str] = {}
    bundles: dict[tuple[str, str], int] = {}
    bundle_state: dict[tuple[str, str], str] = {}
    for cable in inventory.cables:
        a, b = cable.a.device, cable.b.device
        a_switch, b_switch = a in visible, b in visible
        state = health.links.get(link_key(a, b), "unknown")
        if a_switch and b_switch:
            if node_of[a] == node_of[b]:
                continue  # inside one aggregated pod
            key = link_key(node_of[a], node_of[b])
            bundles[key] = bundles.get(key, 0) + 1
            bundle_state[key] = worse(bundle_state.get(key, "unknown"), state)
        elif (a_switch and b in inventory.servers_by_name) or (b_switch and a in inventory.servers_by_name):
            leaf, server = (a, b) if a_switch else (b, a)
            if overview and node_of[leaf] != leaf:
                continue
            servers_per_leaf.setdefault(leaf, set()).add(server)
            server_link_health[leaf] = worse(server_link_health.get(leaf, "unknown"), state)

    box_h = max((box.height for box in boxes.values()), default=34)
    last_y = max(tier_y.values()) + box_h
    server_y = last_y + 110
    height = server_y + (box_h + 40 if servers_per_leaf else 10)

    parts = [
        # The element is the window onto the drawing: never wider than the drawing's natural size (a 2-leaf fabric
        # stays small), as wide as the page otherwise, shaped like the drawing but at least 45% (room to zoom into
        # a wide fabric) and at most 75% of the window high. ui.js fits the whole drawing into it (a 64-leaf
        # fabric is seen whole; zoom in for the labels) and zooms and pans the viewBox.
        f'<svg xmlns="http://www.w3.org/2000/svg" class="topology" data-zoom viewBox="0 0 {width:.0f} {height:.0f}" '
        f'style="max-width:{width:.0f}px;aspect-ratio:{width:.0f}/{height:.0f};'
        f'min-height:min({height:.0f}px,45vh);max-height:min({height:.0f}px,75vh)" '
        f'role="img" '
        f'aria-label="Fabric topology of {_attr(inventory.fabric)}">',
        '<style>.link{stroke-width:2.5}.hit{stroke:transparent;stroke-width:12;cursor:pointer}'
        '.bundle:hover .link{stroke-width:5!important;stroke-opacity:1!important}'
        '.node rect{stroke:#1f2933;stroke-width:1}.node text{font:11px system-ui,sans-serif;fill:#fff}.node text.sub{font-size:10px}'
        '.badge rect{stroke:#1f2933;stroke-width:.5}.badge text{font:bold 9px system-ui,sans-serif;fill:#1f2933}'
        '.srv rect{fill:#e9ecef;stroke:#868e96}.srv text{font:10px system-ui,sans-serif;fill:#343a40}'
        '.group rect{fill:#f1f3f5;stroke:#ced4da;stroke-dasharray:4 3}.group text,.tier{font:11px system-ui,'
        'sans-serif;fill:#495057}.tier{paint-order:stroke;stroke:#fff;stroke-width:4px}.count{font:10px system-ui,sans-serif;fill:#495057}</style>',
    ]
    # group frames first (behind everything): a pod frames its spines and leaves, a plane its super-spines
    for group, keys in sorted(groups.items(), key=lambda item: natural_key(item[0])):
        members = [boxes[key] for key in keys]
        x1 = min(box.x for box in members) - 4
        x2 = max(box.x + box.width for box in members) + 4
        y1 = min(box.y for box in members) - 16
        y2 = max(box.y + box.height for box in members) + 4
        parts.append(f'<g class="group" data-group="{_attr(group)}"><rect x="{x1:.1f}" y="{y1:.1f}" '
                     f'width="{x2 - x1:.1f}" height="{y2 - y1:.1f}" rx="6"/>'
                     f'<text x="{x1 + 4:.1f}" y="{y1 + 11:.1f}">{_attr(group)}</text></g>')
    # worst links last so they are drawn on top; in a dense mesh healthy links are faint so problems stand out
    def draw_order(item):
        (a, b), _ = item
        return SEVERITY_RANK.get(bundle_state.get((a, b), "unknown"), 0), natural_key(a), natural_key(b)

    for (a, b), count in sorted(bundles.items(), key=draw_order):
        if a not in boxes or b not in boxes:
            continue
        upper, lower = (boxes[a], boxes[b]) if boxes[a].y <= boxes[b].y else (boxes[b], boxes[a])
        x1, y1 = upper.x + upper.width / 2, upper.y + upper.height
        x2, y2 = lower.x + lower.width / 2, lower.y
        state = bundle_state.get((a, b), "unknown")
        colour = SEVERITY_COLOUR[state]
        title = f"{upper.label} ↔ {lower.label}: {count} cable{'s' if count != 1 else ''}, {state}"
        hx = ""
        if link_url and not (a.startswith(POD_PREFIX) or b.startswith(POD_PREFIX)):
            hx = f' hx-get="{_attr(link_url(a, b))}" hx-target="{_attr(target)}" hx-swap="innerHTML"'
        # a thicker line says "several parallel cables" without drawing each one
        faint = dense and SEVERITY_RANK.get(state, 0) <= SEVERITY_RANK["ok"]
        stroke_width = (1.0 if faint else 3.5) if dense else min(2.5 + count - 1, 7)
        bundle_width = f' style="stroke-width:{stroke_width}{";stroke-opacity:.35" if faint else ""}"'
        parts.append(
            f'<g class="bundle" data-link="{_attr(a)}--{_attr(b)}" data-state="{state}"{hx}>'
            f'<title>{_attr(title)}</title>'
            f'<line class="hit" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'
            f'<line class="link" stroke="{colour}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
            f'{bundle_width}/></g>'
        )
    for index, (tier_name, nodes) in enumerate(tiers):
        note = f" · names start {prefixes[tier_name]}" if tier_name in prefixes else ""
        parts.append(f'<text class="tier" x="{MARGIN_X}" y="{tier_y[index] - 20:.1f}">{_attr(tier_name)} '
                     f'({len(nodes)}){_attr(note)}</text>')
    role_fill = {Role.SUPER_SPINE: "#5f3dc4", Role.SPINE: "#364fc7", Role.LEAF: "#0b7285", Role.BORDER: "#5c940d",
                 "pod": "#364fc7"}
    for box in boxes.values():
        node_state = health.nodes.get(box.name)
        stroke = f' style="stroke:{SEVERITY_COLOUR[node_state]};stroke-width:3"' if node_state else ""
        if "\n" in box.label:  # an aggregated pod: name, then what it holds
            first, second = box.label.split("\n", 1)
            cx = box.x + box.width / 2
            text = (f'<text x="{cx:.1f}" y="{box.y + 16:.1f}" text-anchor="middle">{_attr(first)}</text>'
                    f'<text x="{cx:.1f}" y="{box.y + 33:.1f}" text-anchor="middle" class="sub">{_attr(second)}</text>')
        elif box.width < 50:  # narrow boxes of a dense tier: vertical labels, the box as tall as its label
            cx, cy = box.x + box.width / 2, box.y + (box.height + BADGE_ROOM) / 2  # below the badge
            text = (f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" dominant-baseline="middle" '
                    f'transform="rotate(-90 {cx:.1f} {cy:.1f})">{_attr(box.label)}</text>')
        else:
            text = (f'<text x="{box.x + box.width / 2:.1f}" y="{box.y + box.height / 2:.1f}" text-anchor="middle" '
                    f'dominant-baseline="middle">{_attr(box.label)}</text>')
        data = f'data-pod="{_attr(box.name[len(POD_PREFIX):])}"' if box.role == "pod" else \
            f'data-device="{_attr(box.name)}"'
        platform = f' data-platform="{_attr(box.platform)}"' if box.platform else ""
        node = (f'<g class="node" {data}><title>{_attr(box.title)}</title>'
                f'<rect{platform} x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" rx="4" '
                f'fill="{role_fill.get(box.role, "#495057")}"{stroke}/>{text}</g>{_badge(box)}')
        parts.append(f'<a href="{_attr(box.href)}">{node}</a>' if box.href else node)
    for leaf, servers in sorted(servers_per_leaf.items(), key=lambda item: natural_key(item[0])):
        box = boxes.get(leaf)
        if box is None:
            continue
        state = server_link_health.get(leaf, "unknown")
        x, y = box.x, server_y
        hx = ""
        if link_url:
            hx = f' hx-get="{_attr(link_url(leaf, "servers"))}" hx-target="{_attr(target)}" hx-swap="innerHTML"'
        label = f"{len(servers)}" if dense else f"{len(servers)} srv"
        parts.append(
            f'<g class="bundle srv" data-link="{_attr(leaf)}--servers" data-state="{state}"{hx}>'
            f'<title>{_attr(leaf)}: {len(servers)} servers, links {state}</title>'
            f'<line class="hit" x1="{x + box.width / 2:.1f}" y1="{box.y + box.height:.1f}" '
            f'x2="{x + box.width / 2:.1f}" y2="{y:.1f}"/>'
            f'<line class="link" stroke="{SEVERITY_COLOUR[state]}" x1="{x + box.width / 2:.1f}" '
            f'y1="{box.y + box.height:.1f}" x2="{x + box.width / 2:.1f}" y2="{y:.1f}"/>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.width:.1f}" height="26" rx="3"/>'
            f'<text x="{x + box.width / 2:.1f}" y="{y + 13:.1f}" text-anchor="middle" '
            f'dominant-baseline="middle">{label}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _badge(box: _Box) -> str:
    """The platform badge of a switch box: inside the top of a vertical box (grown for it), on the top right corner
    of a horizontal one (its label stays centred). Outside the node's group, with its own title, so a node's
    texts stay its label."""
    if box.platform not in PLATFORM_BADGE:
        return ""
    letter, colour = PLATFORM_BADGE[box.platform]
    if box.width < 50:
        x, y = box.x + (box.width - BADGE) / 2, box.y + 3
    else:
        x, y = box.x + box.width - BADGE + 4, box.y - BADGE / 2
    return (f'<g class="badge"><title>{_attr(box.name)}: {_attr(PLATFORM_LABEL[box.platform])}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{BADGE}" height="{BADGE}" rx="2" fill="{colour}"/>'
            f'<text x="{x + BADGE / 2:.1f}" y="{y + BADGE / 2:.1f}" text-anchor="middle" '
            f'dominant-baseline="central">{letter}</text></g>')


# --------------------------------------------------------------------------------------------- racks

@dataclass(frozen=True, slots=True)
class RackDevice:
    name: str
    kind: str  # spine | leaf | super-spine | border | server
    u_position: int  # lowest U the device occupies (1 = bottom)
    height_u: int
    power_w: float
    href: str | None = None


def rack_elevation_svg(name: str, height_u: int, devices: Iterable[RackDevice], power_budget_kw: float) -> str:
    """Front elevation: U numbers on the left, devices at their U position, a power bar (used vs budget).

    Devices that overlap or stick out of the rack are drawn in red so the picture shows the conflict.
    """
    devices = sorted(devices, key=lambda device: device.u_position)
    unit = 16
    top, left, rack_w = 30, 34, 240
    rack_h = height_u * unit
    power_x = left + rack_w + 40
    width, height = power_x + 90, top + rack_h + 40
    used_w = sum(device.power_w for device in devices)
    occupied: dict[int, str] = {}
    overlaps: set[str] = set()
    for device in devices:
        for u in range(device.u_position, device.u_position + device.height_u):
            if u in occupied or u > height_u or u < 1:
                overlaps.update({device.name, occupied.get(u, device.name)})
            occupied.setdefault(u, device.name)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rack" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="Rack {_attr(name)} elevation">',
        '<style>.u{font:9px ui-monospace,monospace;fill:#868e96}.dev text{font:11px system-ui,sans-serif;fill:#fff}'
        '.pw{font:11px system-ui,sans-serif;fill:#343a40}</style>',
        f'<text x="{left}" y="18" class="pw">{_attr(name)} · {height_u}U</text>',
        f'<rect x="{left}" y="{top}" width="{rack_w}" height="{rack_h}" fill="#f1f3f5" stroke="#495057"/>',
    ]
    for u in range(1, height_u + 1):
        y = top + (height_u - u) * unit
        parts.append(f'<text class="u" x="{left - 4}" y="{y + 11}" text-anchor="end">{u}</text>')
        parts.append(f'<line x1="{left}" x2="{left + rack_w}" y1="{y + unit}" y2="{y + unit}" stroke="#dee2e6"/>')
    fill = {Role.SPINE: "#364fc7", Role.LEAF: "#0b7285", Role.BORDER: "#5c940d", Role.SUPER_SPINE: "#5f3dc4",
            "server": "#495057"}
    for device in devices:
        top_u = device.u_position + device.height_u - 1
        y = top + (height_u - min(top_u, height_u)) * unit
        h = max(1, min(top_u, height_u) - max(device.u_position, 1) + 1) * unit
        colour = "#e03131" if device.name in overlaps else fill.get(device.kind, "#495057")
        label = f"{device.name} · {kw(device.power_w)} kW" if device.power_w else device.name
        body = (f'<g class="dev" data-device="{_attr(device.name)}"><title>{_attr(device.name)} U{device.u_position}'
                f'–U{top_u} ({device.kind})</title><rect x="{left + 3}" y="{y + 1}" width="{rack_w - 6}" '
                f'height="{h - 2}" rx="2" fill="{colour}"/><text x="{left + 10}" y="{y + min(h, 32) / 2 + 4}">'
                f'{_attr(label)}</text></g>')
        parts.append(f'<a href="{_attr(device.href)}">{body}</a>' if device.href else body)
    # power bar
    budget_w = power_budget_kw * 1000
    bar_h = rack_h
    if budget_w > 0:
        ratio = used_w / budget_w
        fill_h = min(ratio, 1.0) * bar_h
        colour = "#e03131" if ratio > 1 else "#e8890c" if ratio > 0.85 else "#2f9e44"
        parts.append(f'<rect x="{power_x}" y="{top}" width="28" height="{bar_h}" fill="#fff" stroke="#495057"/>')
        parts.append(f'<rect class="power-used" x="{power_x}" y="{top + bar_h - fill_h:.1f}" width="28" '
                     f'height="{fill_h:.1f}" fill="{colour}"/>')
        parts.append(f'<text class="pw" x="{power_x - 6}" y="{top + rack_h + 16}">{kw(used_w)} / '
                     f'{power_budget_kw:.1f} kW</text>')
        parts.append(f'<text class="pw" x="{power_x + 34}" y="{top + 12}">{ratio * 100:.0f}%</text>')
    else:
        parts.append(f'<text class="pw" x="{power_x - 6}" y="{top + 12}">{kw(used_w)} kW</text>')
        parts.append(f'<text class="pw" x="{power_x - 6}" y="{top + 28}">no budget</text>')
    parts.append("</svg>")
    return "".join(parts)


def power_summary(devices: Iterable[RackDevice], power_budget_kw: float) -> Mapping[str, float | None]:
    used_kw = sum(device.power_w for device in devices) / 1000
    return {"used_kw": used_kw, "budget_kw": power_budget_kw,
            "ratio": used_kw / power_budget_kw if power_budget_kw > 0 else None}


# Link-load heat map (validators.collective.whatif.link_loads): one row of cells per tier, a cell per link, its
# colour the link's mean load against the fluid ideal (1.0 = perfectly balanced). Cells are drawn busiest first
# and capped per tier so a 100k-link fabric stays a picture; the caption says how many are shown.
HEAT_CELL = 10  # px
HEAT_COLUMNS = 64
HEAT_MAX_CELLS = 1024  # per tier
HEAT_SCALE = ((0.0, "#e9ecef"), (0.0, "#a5d8ff"), (1.0, "#2f9e44"), (1.5, "#fab005"), (2.0, "#e8590c"),
              (3.0, "#c92a2a"))  # idle grey (exactly 0), under 1x blue, from 1x (balanced) green, then hotter


def heat_colour(load: float) -> str:
    """The scale's colour of the highest step at or below ``load`` (a load of exactly 0 is idle)."""
    if load <= 0:
        return HEAT_SCALE[0][1]
    colour = HEAT_SCALE[1][1]
    for threshold, step in HEAT_SCALE[1:]:
        if load >= threshold:
            colour = step
    return colour


def link_heatmap_svg(tiers: Mapping[str, list[dict]]) -> str:
    """Per tier a caption and a grid of cells (``link``, ``mean_load``, ``max_load``, ``mean_flows`` per row)."""
    caption_height, gap = 18, 10
    width = HEAT_COLUMNS * HEAT_CELL
    parts: list[str] = []
    y = 0
    for tier, links in tiers.items():
        shown = links[:HEAT_MAX_CELLS]
        more = f" (busiest {len(shown)} of {len(links)})" if len(links) > len(shown) else f" ({len(links)} links)"
        peak = max((row["mean_load"] for row in links), default=0.0)
        parts.append(f'<text x="0" y="{y + 13}" class="heat-caption">{escape(tier)}{more}, busiest '
                     f'{peak:.2f}× ideal</text>')
        y += caption_height
        for position, row in enumerate(shown):
            cx, cy = (position % HEAT_COLUMNS) * HEAT_CELL, y + (position // HEAT_COLUMNS) * HEAT_CELL
            parts.append(f'<rect x="{cx}" y="{cy}" width="{HEAT_CELL - 1}" height="{HEAT_CELL - 1}" '
                         f'fill="{heat_colour(row["mean_load"])}"><title>{_attr(row["link"])}: mean '
                         f'{row["mean_load"]:.2f}× ideal, worst {row["max_load"]:.2f}×, '
                         f'{row["mean_flows"]:.1f} flows</title></rect>')
        y += -(-len(shown) // HEAT_COLUMNS) * HEAT_CELL + gap
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="{width}" height="{max(y, 1)}" '
            f'viewBox="0 0 {width} {max(y, 1)}" role="img" aria-label="link load per tier">' + "".join(parts) + "</svg>")


# --------------------------------------------------------------------------------------------- RoCE gate


def counter_chart_svg(counter: str, canary: list[float], peers: list[float], push_after: int, *,
                      failed: bool = False) -> str:
    """One counter of a RoCE-gated canary (changes.pipelines.rocegate.rate_series): its rate per poll window (solid)
    against its control peers' median (dashed), a vertical line where the push happened. Both lines share one
    scale from 0 to the largest rate, so a canary that leaves its peers shows as lines apart."""
    width, height, left, top, bottom = 260, 90, 8, 18, 12
    plot_w, plot_h = width - 2 * left, height - top - bottom
    count = max(len(canary), len(peers), 2)
    highest = max([*canary, *peers, 0.0]) or 1.0

    def points(values: list[float]) -> str:
        return " ".join(f"{left + index * plot_w / (count - 1):.1f},{top + plot_h - value / highest * plot_h:.1f}"
                        for index, value in enumerate(values))

    colour = "#e03131" if failed else "#1971c2"
    push_x = left + max(push_after - 0.5, 0) * plot_w / (count - 1)  # between the last window before and the first after
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="counter-chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{_attr(counter)}: canary against control peers">',
        '<style>.cc{font:10px ui-monospace,monospace;fill:#495057}</style>',
        f'<text class="cc" x="{left}" y="11">{_attr(counter)} /s (max {highest:.3g})</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#f8f9fa" stroke="#dee2e6"/>',
        f'<line x1="{push_x:.1f}" x2="{push_x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#868e96" '
        f'stroke-dasharray="2 2"><title>push</title></line>',
    ]
    if peers:
        parts.append(f'<polyline class="peers" points="{points(peers)}" fill="none" stroke="#868e96" '
                     f'stroke-width="1.5" stroke-dasharray="4 3"><title>control peers (median)</title></polyline>')
    parts.append(f'<polyline class="canary" points="{points(canary)}" fill="none" stroke="{colour}" '
                 f'stroke-width="2"><title>canary</title></polyline>')
    parts.append(f'<text class="cc" x="{left}" y="{height - 1}">before the push</text>')
    parts.append(f'<text class="cc" x="{left + plot_w}" y="{height - 1}" text-anchor="end">after</text>')
    parts.append("</svg>")
    return "".join(parts)
