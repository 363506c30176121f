"""The NetBox join of an adoption (issue 26): a config set's adoption plan joined with what NetBox documents.

``adoption_netbox_join(plan, data)`` maps the NetBox answers (``inventory.netbox.netbox_to_inventory``: devices,
roles, device types, cabling traced through patch panels and breakout profiles) and compares them, switch by
switch and cable by cable, with what the configs say (``compiler.adopt.adoption_plan``). Where both sources agree
the adoption takes NetBox's word for what configs cannot say; where they disagree each disagreement names both
sources. The rule (docs/inventory.md "Adopting with NetBox"):

* **refused** (the adoption stops, nothing saved): the two sources contradict each other about one object --
  a switch whose NetBox role is not the role its config plays; a NetBox ``asn`` / ``loopback`` / ``vtep`` device
  custom field (the fields ``netbox_writeback`` writes) that differs from the config's value; a port NetBox cables
  to one far end while the configs place it on a link to another.
* **warned** (adopted, each listed): one source knows an object the other does not -- a fabric switch NetBox
  documents with no config in the set (not adopted: there is nothing to adopt it from), a switch whose config has
  no NetBox device (adopted from its config alone), a NetBox cable on a port of an adopted switch that the
  configs hold no link on, or toward a device the configs do not name (not adopted: the configs hold no
  addressing or peer for it), a cable the configs imply that NetBox lacks (kept, marked inferred), adopted
  switches spread over several NetBox sites.
* **agreed**: a cable both sources hold becomes documented (``inferred`` false, its evidence names the NetBox
  cable and the config lines) with NetBox's media and length; a switch both hold takes NetBox's device type when
  its config states no model, NetBox's serial, OS version, rack (with its site, row and U position) and the
  optics NetBox has in the ports the config uses (and in the NICs of the servers both name). Under the
  per-rack-pair ASN scheme the racks decide which leaves share an ASN: NetBox's racks are taken only when they
  pair the leaves as their shared ASNs do, else the configs' pairing is kept and the difference warned.

Pure: NetBox JSON and a plan in, a joined plan out; never imports Django (the live client is
``inventory.netbox_client``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace

from compiler import model as core
from compiler import platforms
from compiler.adopt.plan import SUBPORT, AdoptionError, AdoptionPlan, InferredCable
from compiler.catalog import SWITCH_MODELS
from compiler.natural import natural_key

from .netbox import _custom, _name, _slug, netbox_to_inventory

REFUSE, WARN = "refuse", "warn"
# Device custom fields netbox_writeback writes (inventory/netbox_writeback.py) -> the plan's allocations.
PINNED_FIELDS = (("asn", "asns"), ("loopback", "loopbacks"), ("vtep", "vteps"))


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One object the two sources see differently: ``netbox`` and ``configs`` say what each holds."""

    kind: str  # role | asn | loopback | vtep | cable | device | site
    subject: str  # "leaf1", "leaf1:Ethernet1/1", "cable L1-S2"
    netbox: str
    configs: str
    severity: str  # REFUSE | WARN
    outcome: str  # what the adoption does about it

    def __str__(self) -> str:
        return f"{self.kind} {self.subject}: NetBox says {self.netbox}; the configs say {self.configs} ({self.outcome})"

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class NetboxJoin:
    plan: AdoptionPlan  # the joined plan (the input plan when nothing was taken from NetBox)
    agreed: dict[str, int]  # switches, cables, models taken
    disagreements: list[Disagreement] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # what the NetBox import left out, and why

    def as_dict(self) -> dict:
        return {"agreed": dict(self.agreed), "sites": list(self.sites),
                "disagreements": [item.as_dict() for item in self.disagreements],
                "skipped": [{"object": what, "reason": why} for what, why in self.skipped]}


def _ends(cable) -> frozenset[tuple[str, str]]:
    return frozenset({(cable.a.device, cable.a.interface), (cable.b.device, cable.b.interface)})


def _far(ends: frozenset[tuple[str, str]], near: tuple[str, str]) -> tuple[str, str]:
    return next(iter(ends - {near}), near)


def adoption_netbox_join(plan: AdoptionPlan, data: dict[str, list[dict]]) -> NetboxJoin:
    """Join ``plan`` with NetBox's answers (``load_dump`` / ``NetboxClient.dump`` shape). Raises AdoptionError
    listing every refused disagreement (and the warnings beside them) when the sources contradict each other."""
    imported = netbox_to_inventory(data, fabric=plan.name, allow_missing_links=True)
    netbox = imported.inventory
    adopted = plan.snapshot.inventory
    # netbox_to_inventory has checked the shapes it reads; what only the join reads is read defensively here.
    devices = {_name(record): record for record in data.get("devices", []) if isinstance(record, dict)}
    found: list[Disagreement] = []
    nb_switches = {switch.hostname: switch for switch in netbox.switches}
    ours = {switch.hostname: switch for switch in adopted.switches}
    for host in sorted(set(nb_switches) - set(ours), key=natural_key):
        found.append(Disagreement("device", host, f"a {nb_switches[host].role} switch", "no config of this name",
                                  WARN, "not adopted"))
    for host in sorted(set(ours) - set(nb_switches), key=natural_key):
        record = devices.get(host)
        said = (f"a device of role {_slug(record.get('role') or record.get('device_role'))!r}, not a fabric "
                "switch") if record else "no device of this name"
        found.append(Disagreement("device", host, said, f"a {ours[host].role} switch", WARN,
                                  "adopted from its config alone"))
    both = sorted(set(nb_switches) & set(ours), key=natural_key)
    for host in both:
        if nb_switches[host].role != ours[host].role:
            found.append(Disagreement("role", host, f"role {nb_switches[host].role}",
                                      f"role {ours[host].role} (what its config does)", REFUSE, "refused"))
        custom = _custom(devices[host]) if host in devices else {}
        for key, kind in PINNED_FIELDS:
            documented, configured = custom.get(key), getattr(plan.snapshot.allocations, kind).get(host)
            if documented in (None, "") or configured is None:
                continue
            if str(documented).split("/")[0] != str(configured).split("/")[0]:
                found.append(Disagreement(key, host, f"custom field {key}={documented}", f"{key} {configured}",
                                          REFUSE, "refused"))
    sites = sorted({_slug(devices[host].get("site")) or _name(devices[host].get("site")) for host in both} - {""})
    if len(sites) > 1:
        found.append(Disagreement("site", plan.name, f"the adopted switches are in sites {', '.join(sites)}",
                                  "one fabric", WARN, "adopted as one fabric"))
    # Every NetBox cable on a port of an adopted switch: its far end may be a device the configs do not name.
    nb_cables = {_ends(cable): cable for cable in netbox.cables
                 if any(end.device in ours for end in (cable.a, cable.b))}
    our_cables = {_ends(cable): cable for cable in adopted.cables}
    nb_port = {end: ends for ends in nb_cables for end in ends}
    our_port = {end: ends for ends in our_cables for end in ends}
    conflicted: set[frozenset] = set()
    for end in sorted(set(nb_port) & set(our_port), key=lambda item: natural_key(f"{item[0]}:{item[1]}")):
        if nb_port[end] != our_port[end]:
            far_nb, far_ours = _far(nb_port[end], end), _far(our_port[end], end)
            conflicted |= {nb_port[end], our_port[end]}
            found.append(Disagreement("cable", f"{end[0]}:{end[1]}",
                                      f"cable {nb_cables[nb_port[end]].label} to {far_nb[0]}:{far_nb[1]}",
                                      f"a link to {far_ours[0]}:{far_ours[1]}", REFUSE, "refused"))
    for ends in sorted(set(nb_cables) - set(our_cables) - conflicted, key=lambda e: natural_key(nb_cables[e].label)):
        cable = nb_cables[ends]
        found.append(Disagreement("cable", f"cable {cable.label}", f"{cable.a} -- {cable.b}",
                                  "no link on these ports", WARN, "not adopted"))
    for ends in sorted(set(our_cables) - set(nb_cables) - conflicted, key=lambda e: natural_key(our_cables[e].label)):
        cable = our_cables[ends]
        found.append(Disagreement("cable", f"{cable.a} -- {cable.b}", "no cable between these ports",
                                  "a link (inferred)", WARN, "kept as inferred"))
    refused = [item for item in found if item.severity == REFUSE]
    if refused:
        raise AdoptionError("NetBox and the configs disagree (refused: the adoption saves nothing): "
                            + "; ".join(str(item) for item in found))
    joined, agreed = _joined(plan, netbox, nb_cables, our_cables, both, found)
    return NetboxJoin(plan=joined, agreed=agreed, disagreements=found, sites=sites, skipped=list(imported.skipped))


def _joined(plan: AdoptionPlan, netbox: core.Inventory, nb_cables: dict, our_cables: dict,
            both: list[str], found: list[Disagreement]) -> tuple[AdoptionPlan, dict[str, int]]:
    """The plan with NetBox's word where both sources agree: media and length of each cable both hold, the device
    type of a switch whose config names none, serial, OS version, rack and optics."""
    adopted = plan.snapshot.inventory
    cables = tuple(replace(cable, cable_type=nb_cables[ends].cable_type, length_m=nb_cables[ends].length_m)
                   if ends in nb_cables else cable for ends, cable in our_cables.items())
    agreed_labels = {cable.label: nb_cables[ends].label for ends, cable in our_cables.items() if ends in nb_cables}
    inferred = [InferredCable(label=item.label, a=item.a, b=item.b, inferred=False,
                              evidence=f"NetBox cable {agreed_labels[item.label]} + {item.evidence}")
                if item.label in agreed_labels else item for item in plan.cables]
    nb_switches = {switch.hostname: switch for switch in netbox.switches}
    nb_models = {spec.name: spec for spec in netbox.switch_models}
    models = {spec.name: spec for spec in adopted.switch_models}
    model_source = dict(plan.model_source)
    switches = []
    taken = optics = 0
    racks_taken = _racks_agree(plan, nb_switches, both, found)
    for switch in adopted.switches:
        if switch.hostname not in both:
            switches.append(switch)
            continue
        documented = nb_switches[switch.hostname]
        changes: dict = {"serial": switch.serial or documented.serial,
                         "os_version": switch.os_version or documented.os_version}
        if racks_taken:
            changes.update(rack=documented.rack, u_position=documented.u_position)
        nb_ports = documented.interfaces_by_name
        ports = tuple(replace(port, optic=nb_ports[port.name].optic) if port.optic is None and port.name in nb_ports
                      and nb_ports[port.name].optic is not None else port for port in switch.interfaces)
        optics += sum(1 for new, old in zip(ports, switch.interfaces, strict=True) if new is not old)
        changes["interfaces"] = ports
        if model_source[switch.hostname] != "config" and documented.model != switch.model and _fits(
                documented.model, nb_models, switch):
            changes["model"] = documented.model
            model_source[switch.hostname] = "NetBox device type"
            # the spec goes with the inventory (it is saved with it), NetBox's own when the import made one
            models[documented.model] = nb_models.get(documented.model) or SWITCH_MODELS[documented.model]
            taken += 1
        switches.append(replace(switch, **changes))
    nb_servers = {server.name: server for server in netbox.servers}
    servers = []
    for server in adopted.servers:
        nb_nics = {nic.name: nic for nic in nb_servers[server.name].nics} if server.name in nb_servers else {}
        nics = tuple(replace(nic, optic=nb_nics[nic.name].optic) if nic.optic is None and nic.name in nb_nics
                     and nb_nics[nic.name].optic is not None else nic for nic in server.nics)
        optics += sum(1 for new, old in zip(nics, server.nics, strict=True) if new is not old)
        servers.append(replace(server, nics=nics))
    used = {switch.model for switch in switches}
    rack_names = {switch.rack for switch in switches if switch.rack}
    racks = {rack.name: rack for rack in adopted.racks}
    if racks_taken:
        racks = {rack.name: rack for rack in netbox.racks if rack.name in rack_names} | {
            name: rack for name, rack in racks.items() if name in rack_names}
    inventory = replace(adopted, switches=tuple(switches), servers=tuple(servers), cables=cables,
                        racks=tuple(rack for _, rack in sorted(racks.items())),
                        switch_models=tuple(spec for name, spec in sorted(models.items()) if name in used))
    joined = replace(plan, snapshot=replace(plan.snapshot, inventory=inventory), cables=inferred,
                     model_source=model_source)
    return joined, {"switches": len(both), "cables": len(agreed_labels), "models": taken,
                    "racks": len(rack_names) if racks_taken else 0, "optics": optics,
                    "netbox_switches": len(netbox.switches), "netbox_cables": len(netbox.cables)}


def _racks_agree(plan: AdoptionPlan, nb_switches: dict[str, core.Switch], both: list[str],
                 found: list[Disagreement]) -> bool:
    """Whether NetBox's racks are taken: always under a per-leaf ASN scheme; under per-rack-pair only when NetBox's
    racks group the leaves as their shared ASNs do (the racks decide the ASN groups there)."""
    if not any(nb_switches[host].rack for host in both):
        return False
    if plan.snapshot.intent.asn_scheme != core.AsnScheme.PER_RACK:
        return True
    leaves = [switch for switch in plan.snapshot.inventory.switches
              if switch.hostname in both and switch.role in (core.Role.LEAF, core.Role.BORDER)]

    def groups(rack_of) -> set[frozenset[str]]:
        grouped: dict[str, set[str]] = {}
        for switch in leaves:
            grouped.setdefault(rack_of(switch) or switch.hostname, set()).add(switch.hostname)
        return {frozenset(hosts) for hosts in grouped.values()}

    ours, theirs = groups(lambda switch: switch.rack), groups(lambda switch: nb_switches[switch.hostname].rack)
    if ours == theirs:
        return True
    differ = sorted({host for group in theirs ^ ours for host in group}, key=natural_key)
    found.append(Disagreement("rack", ", ".join(differ),
                              "racks " + "; ".join(" + ".join(sorted(g, key=natural_key)) for g in sorted(
                                  theirs, key=lambda g: natural_key(min(g)))),
                              "rack pairs by shared ASN " + "; ".join(" + ".join(sorted(g, key=natural_key))
                                                                      for g in sorted(ours, key=lambda g: natural_key(min(g)))),
                              WARN, "the configs' pairing kept (it decides the ASNs)"))
    return False


def _fits(model: str, nb_models: dict[str, core.SwitchModelSpec], switch: core.Switch) -> bool:
    """NetBox's device type replaces an unstated model only when our platform data knows it and names every port
    the config uses as the config does (compiler.platforms.port_problem); otherwise the config's model is kept
    and the report says where it came from."""
    spec = SWITCH_MODELS.get(model) or nb_models.get(model)
    if spec is None or model not in platforms.known_models() or not platforms.runs(model, switch.platform):
        return False
    return not any(platforms.port_problem(model, switch.platform, spec.port_count, interface.name,
                                          match.group(1) if (match := SUBPORT.match(interface.name)) else None)
                   for interface in switch.interfaces)
