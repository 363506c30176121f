"""FRR ``frr.conf`` (+ our ``linux-plan.json``) -> structured config (docs/structured-config.md).

:func:`parse_frr_conf` reads the routing half (BGP, EVPN, VRF VNIs, port descriptions) as
:mod:`compiler.render.frr` prints it in FRR 8.4 syntax (FRR user guide, "BGP" and "EVPN"); SONiC's frr.conf is
the same text with SONiC port and VRF names, so :mod:`compiler.parse.sonic` reuses it. :func:`parse` adds the
kernel half from the Linux plan (addresses, MTUs, bridges, VXLAN devices, VRFs and the RoCE ``dcb``/``tc``
commands). FRR's own parser (``vtysh -C -f``) stays the syntax authority for the text (tests/render); this module
only reads meaning back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from compiler.parse import igp
from compiler.parse.bgp_options import FAMILY_ORDER, defined_policies, inherit, neighbor_option
from compiler.parse.common import (
    Node,
    ParsedDevice,
    SubnetIndex,
    Unmodelled,
    cli_tree,
    empty_interface,
    empty_port_qos,
    empty_qos,
    empty_structured,
    finish_qos,
    ip_address_text,
    ip_int,
    ipv6_interface_text,
    neighbor_peer_from_description,
    node_value,
    parse_asn,
    peer_from_description,
    remote_as_value,
    sort_structured,
    unused_lines,
)
from compiler.parse.management_plan import read_management_plan
from compiler.parse.policy import AsPathPolicies, apply_route_maps, policy_contents, route_map_out

CONF = "frr.conf"
ETS_QUANTUM_BYTES_PER_PERCENT = 1000  # compiler.render.frr: a DWRR quantum of 1000 bytes per weight percent
PLAN = "linux-plan.json"
_NOOPS = {"frr defaults datacenter", "frr defaults traditional", "end", "bgp log-neighbor-changes", "log syslog informational", "service integrated-vtysh-config",
          "no zebra nexthop kernel enable", "line vty", "exit", "no bgp ebgp-requires-policy",
          "no bgp default ipv4-unicast", "bgp bestpath as-path multipath-relax", "exit-address-family",
          "exit-vni", "exit-vrf", "redistribute connected", "advertise ipv4 unicast",
          # SONiC's FPM lines, rendered for its routing-config mode (compiler.render.sonic.SONIC_FPM_LINES)
          "no fpm use-next-hop-groups", "fpm address 127.0.0.1"}
FAMILIES = {"ipv4 unicast": "ipv4_unicast", "ipv6 unicast": "ipv6_unicast", "l2vpn evpn": "l2vpn_evpn"}


def _use(node: Node) -> Node:
    node.used = True
    return node


def strip_vrf_prefix(name: str) -> str:
    """SONiC names VRFs ``Vrf_<name>`` (sonic-vrf.yang; compiler.render.sonic.config_db.sonic_vrf_name)."""
    return name[4:] if name.startswith("Vrf_") else name


def parse_frr_conf(text: str, file_name: str, structured: dict, locations: dict, source_name=lambda name: name,
                   vrf_name=lambda name: name) -> list[Unmodelled]:
    """Fill ``structured`` (hostname, bgp, vrf VNIs, vlan RD/RTs, port descriptions) from frr.conf; returns the
    lines not understood. ``source_name`` maps frr.conf interface names back to the structured config's."""
    roots = cli_tree(text)
    bgp = structured["bgp"]
    interfaces = {item["name"]: item for item in structured["interfaces"]}
    vrf_vnis: dict[str, int] = {}
    vni_blocks: dict[int, dict] = {}
    policies = AsPathPolicies()
    processes: list[dict] = []  # router ospf / router isis (compiler.parse.igp)

    def at(key, node):
        locations.setdefault(key, (file_name, node.line))

    for node in roots:
        words = node.words()
        if node.text in _NOOPS or words[:2] == ["frr", "version"]:
            _use(node)
        elif words[0] == "hostname" and len(words) == 2:
            structured["hostname"] = _use(node).words()[1]
            at("device", node)
        elif words[0] == "vrf" and len(words) == 2:
            for child in node.children:
                if child.words()[0] == "vni" and len(child.words()) == 2:
                    vrf_vnis[vrf_name(words[1])] = int(_use(child).words()[1])
                elif child.text == "exit-vrf":
                    _use(child)
            at(f"vrf {vrf_name(words[1])}", _use(node))
        elif words[0] == "interface" and len(words) == 2:
            name = source_name(words[1])
            interface = interfaces.get(name)
            if interface is None:
                interface = interfaces[name] = empty_interface(name)
                interface["enabled"] = True
                structured["interfaces"].append(interface)
            for child in node.children:
                child_words = child.words()
                if child_words[0] == "description" and len(child_words) > 1:
                    interface["description"] = child.text.split(None, 1)[1]
                elif child.text == "shutdown":
                    interface["enabled"] = False
                elif child.text in ("ipv6 nd ra-interval 10", "no ipv6 nd suppress-ra"):
                    interface["unnumbered"] = True
                elif not (_zebra_address(child, interface) or igp.interface_line(child, interface)) and \
                        child.text != "exit":
                    continue
                if child_words[:2] == ["ip", "address"]:
                    at(f"interface {name} ip", child)  # what a finding about the port's subnet cites
                _use(child)
            if name == "lo" and not interface["ip"] and "_igp" in interface:
                # our renderer: lo's addresses are in the Linux plan (read first), its IGP in frr.conf
                structured["interfaces"].remove(interface)
                del interfaces[name]
                for loopback in structured["loopbacks"]:
                    loopback["_igp"] = dict(interface["_igp"])
            elif name == "lo" and interface["ip"]:
                # zebra's loopback: its IPv4 addresses are the device's loopbacks (router ID, VTEP source)
                structured["interfaces"].remove(interface)
                del interfaces[name]
                addresses = [interface["ip"], *interface.pop("_more_ips", [])]
                structured["loopbacks"].extend({"name": name if index == 0 else f"{name}:{index}", "ip": address,
                                                "purpose": None, **({"_igp": dict(interface["_igp"])}
                                                                    if "_igp" in interface else {})}
                                               for index, address in enumerate(addresses))
            elif interface["kind"] == "unused" and (interface["ip"] or interface.get("ipv6")):
                interface["kind"] = "fabric"  # a routed port (zebra ``ip address``)
            at(f"interface {name}", _use(node))
        elif words[:2] == ["router", "bgp"] and len(words) == 3:
            at("bgp", node)
            _router_bgp(node, bgp, vni_blocks, source_name, at)
        elif words[:2] == ["router", "bgp"] and len(words) == 5 and words[3] == "vrf":
            _router_bgp_vrf(node, bgp, vrf_name(words[4]))
            at(f"bgp vrf {vrf_name(words[4])}", node)
        elif (process := igp.router_block(node)) is not None:
            processes.append(process)
            at(f"igp {process['protocol']}", node)
        elif policies.as_path_line(node, "frr") or policies.route_map(node):
            at(f"route-map {words[1] if words[0] == 'route-map' else words[3]}", node)
    _export_policies(policies, bgp, source_name)
    for line in bgp.pop("_redistribute_maps", []):
        entries = _permit_all(roots, line.words()[3])
        if entries:
            _use(line)
            for entry in entries:
                at(f"route-map {line.words()[3]} {entry.words()[3]}", _use(entry))
    igp.finish(structured, processes, at)
    if any(node.words()[:2] == ["router", "bgp"] for node in roots):
        bgp["policies_defined"] = defined_policies(roots)
        policy_contents(roots, bgp, at)
    structured["_frr_vrf_vnis"] = vrf_vnis
    structured["_frr_vni_blocks"] = vni_blocks
    for entry in bgp["vrfs"]:
        entry["l3vni"] = vrf_vnis.get(entry["name"])
    structured["asn"], structured["router_id"] = bgp["asn"], bgp["router_id"]
    return unused_lines(file_name, roots)


def _permit_all(roots: list[Node], name: str) -> list[Node]:
    """The entries of route map ``name`` when it lets every route through unchanged: each entry ``permit`` with no
    match or set clause (FRR user guide "Route Maps": an entry without match clauses matches every route, the first
    matching entry decides). Empty when the map is not defined or filters or rewrites anything: then ``redistribute
    connected route-map NAME`` stays unmodelled (the checks depending on BGP say incomplete)."""
    entries = [node for node in roots if node.words()[:2] == ["route-map", name] and len(node.words()) == 4]
    if any(entry.words()[2] != "permit" or not entry.words()[3].isdigit()
           or any(child.text != "exit" for child in entry.children) for entry in entries):
        return []
    for entry in entries:
        for child in entry.children:
            _use(child)
    return entries


def _export_policies(policies: AsPathPolicies, bgp: dict, source_name: Callable[[str], str]) -> None:
    """``neighbor X route-map NAME out`` lines (kept aside by _address_family) onto their neighbors."""
    exports: list[tuple[Node, str, str]] = bgp.pop("_exports", [])
    neighbors = {entry["address"] or entry["interface"]: entry for entry in bgp["neighbors"]}
    groups = {group["name"] for group in bgp["peer_groups"]}
    # A peer group's export policy is each member's (FRR user guide "BGP", peer groups): onto every member.
    apply_route_maps(policies, [(node, member, name) for node, target, name in exports
                                for member in ([key for key, entry in neighbors.items() if entry["peer_group"] == target]
                                               if target in groups else
                                               [target if target[0].isdigit() else source_name(target)])],
                     neighbors, bgp)


def _router_bgp(node: Node, bgp: dict, vni_blocks: dict, source_name, at=lambda key, node: None) -> None:
    """``router bgp`` (the default VRF); ``at`` records the lines a finding cites (validators.configs._locate):
    ``bgp router-id``, each neighbor's ``remote-as`` / ``peer-group`` / ``bfd`` / ``timers`` line."""
    bgp["asn"] = node_value(node, parse_asn, node.words()[2])
    _use(node)
    groups: dict[str, dict] = {}
    neighbors: dict[str, dict] = {}
    activated: dict[str, set] = {}
    listen: list[tuple[str, str]] = []  # bgp listen range PREFIX peer-group G
    for child in node.children:
        words = child.words()
        if child.text in _NOOPS:
            pass
        elif words[:2] == ["bgp", "router-id"] and len(words) == 3:
            bgp["router_id"] = words[2]
            at("bgp router-id", child)
        elif words[:3] == ["bgp", "listen", "range"] and len(words) == 6 and words[4] == "peer-group":
            # dynamic neighbors (FRR user guide "BGP", listen range): any peer in the prefix, the group's AS
            listen.append((words[3], words[5]))
        elif words[:2] == ["timers", "bgp"] and len(words) == 4:
            bgp["keepalive_s"], bgp["hold_s"] = int(words[2]), int(words[3])
        elif words[0] == "neighbor" and len(words) >= 3:
            target, rest = ip_address_text(words[1]) or words[1], words[2:]
            if rest[0] in ("remote-as", "bfd", "timers") or rest[:1] == ["peer-group"] and len(rest) == 2:
                at(f"bgp neighbor {target} {'peer group' if rest[0] == 'peer-group' else rest[0]}", child)
            if rest[:1] == ["interface"]:
                # RFC 5549: `neighbor swp1 interface [v6only] [peer-group G | remote-as X]` (FRR user guide, BGP)
                entry = _neighbor(neighbors, target, unnumbered=True, source_name=source_name)
                options = rest[2:] if rest[1:2] == ["v6only"] else rest[1:]
                if options[:1] == ["peer-group"] and len(options) == 2:
                    entry["peer_group"] = options[1]
                elif options[:1] == ["remote-as"] and len(options) == 2:
                    entry["remote_as"] = node_value(child, remote_as_value, options[1])
                elif options:
                    continue
            elif rest == ["peer-group"]:
                groups[target] = {"name": target, "remote_as": "external", "bfd": False, "address_families": []}
            elif rest in (["advertisement-interval", "0"],) or rest[:2] == ["timers", "connect"]:
                pass
            elif rest == ["bfd"] and target in groups:
                groups[target]["bfd"] = True
            elif rest[0] == "update-source" and len(rest) == 2:
                # a session between loopbacks (iBGP overlay): validators.sessions pairs it on the addresses
                (groups.get(target) or _neighbor(neighbors, target, source_name=source_name))["update_source"] = rest[1]
            elif rest[0] in ("local-as", "bfd", "shutdown", "ebgp-multihop", "capability"):
                if not neighbor_option(rest, groups.get(target) or _neighbor(neighbors, target,
                                                                             source_name=source_name), child):
                    continue
            elif rest[0] == "peer-group" and len(rest) == 2:
                _neighbor(neighbors, target, source_name=source_name)["peer_group"] = rest[1]
            elif rest[0] == "remote-as" and len(rest) == 2:
                value = node_value(child, remote_as_value, rest[1])
                if target in groups:
                    groups[target]["remote_as"] = value
                else:
                    _neighbor(neighbors, target, source_name=source_name)["remote_as"] = value
            elif rest[0] == "description" and len(rest) >= 2:
                (groups.get(target) or _neighbor(neighbors, target, source_name=source_name))["description"] = \
                    child.text.split(None, 3)[3]
            else:
                continue
        elif words[0] == "address-family" and " ".join(words[1:]) in FAMILIES:
            _address_family(child, FAMILIES[" ".join(words[1:])], bgp, activated, vni_blocks)
        else:
            continue
        _use(child)
    for line, export, family in bgp.pop("_af_options", []):  # address-family lines, once neighbors and groups are known
        target = ip_address_text(line.words()[1]) or line.words()[1]
        stated = groups.get(target) or neighbors.get(target)
        if stated is not None and neighbor_option(line.words()[2:], stated, line, family):
            line.used = line.used or not export  # an export policy line: used when its route map is read
    for name, group in groups.items():
        group["address_families"] = [f for f in FAMILY_ORDER if f in activated.get(name, ())]
    bgp["peer_groups"] = list(groups.values())
    bgp["bfd"] = any(group["bfd"] for group in groups.values())
    if listen:
        bgp["listen_ranges"] = [{"name": name, "prefixes": [prefix],
                                 "remote_as": groups.get(name, {}).get("remote_as", "external")}
                                for prefix, name in listen]
    for entry in neighbors.values():
        group = groups.get(entry["peer_group"] or "", {})
        families = activated.get(entry["address"] or entry["interface"], set()) | set(group.get("address_families",
                                                                                              ()))
        entry["address_families"] = [f for f in FAMILY_ORDER if f in families]
        entry["peer_device"], entry["peer_interface"] = neighbor_peer_from_description(entry["description"])
        if entry["remote_as"] is None:
            entry["remote_as"] = group.get("remote_as")  # FRR: a peer-group member takes the group's remote-as
        inherit(entry, group)
        bgp["neighbors"].append(entry)


def _zebra_address(node: Node, interface: dict) -> bool:
    """zebra's ``ip address A/L`` / ``ipv6 address A/L`` on an interface (the half of an FRR config that is not
    BGP); True when the line is one. A second IPv4 address is not modelled (the contract has one per port)."""
    words = node.words()
    if words[:2] == ["ip", "address"] and len(words) == 3 and "/" in words[2]:
        node_value(node, lambda text: ip_int(text.split("/")[0]), words[2])
        if interface["ip"] and interface["name"] != "lo":
            return False
        if interface["ip"]:
            interface.setdefault("_more_ips", []).append(words[2])  # lo: one loopback per address
        else:
            interface["ip"] = words[2]
    elif words[:2] == ["ipv6", "address"] and len(words) == 3 and "/" in words[2] and not interface.get("ipv6"):
        interface["ipv6"] = node_value(node, ipv6_interface_text, words[2])
    else:
        return False
    return True


def _neighbor(neighbors: dict, target: str, unnumbered: bool = False, source_name=lambda name: name) -> dict:
    if target not in neighbors:
        is_address = ip_address_text(target) is not None and not unnumbered
        neighbors[target] = {"address": target if is_address else None,
                             "interface": None if is_address else source_name(target), "remote_as": None,
                             "peer_device": None, "peer_interface": None, "peer_group": None,
                             "address_families": [], "description": ""}
    return neighbors[target]


def _address_family(node: Node, family: str, bgp: dict, activated: dict, vni_blocks: dict) -> None:
    if family == "l2vpn_evpn":
        bgp["evpn"]["enabled"] = True
    for child in node.children:
        words = child.words()
        if child.text in _NOOPS:
            pass
        elif words[0] == "neighbor" and words[2:] == ["activate"]:
            activated.setdefault(ip_address_text(words[1]) or words[1], set()).add(family)
        elif words[0] == "neighbor" and words[2:3] == ["allowas-in"] and len(words) == 4:
            bgp["allowas_in"] = int(words[3])
        elif words[0] == "network" and len(words) == 2 and family == "ipv4_unicast":
            bgp["networks"].append(words[1])
        elif words[0] == "maximum-paths" and len(words) == 2:
            bgp["maximum_paths"] = int(words[1])
        elif child.text == "advertise-all-vni":
            bgp["evpn"]["advertise_all_vni"] = True
        elif family == "ipv4_unicast" and words[:3] == ["redistribute", "connected", "route-map"] and len(words) == 4:
            bgp.setdefault("_redistribute_maps", []).append(child)
            continue  # read as plain ``redistribute connected`` when its route map filters nothing (_permit_all)
        elif family == "ipv4_unicast" and (export := route_map_out(words)):
            bgp.setdefault("_exports", []).append((child, *export))
            bgp.setdefault("_af_options", []).append((child, True, family))  # also a reference whose existence is checked
            continue  # used once the neighbor and its route map are known (_export_policies)
        elif words[0] == "neighbor" and len(words) >= 3 and (words[2:] in (["route-reflector-client"],
                                                                         ["next-hop-self"]) or (
                len(words) == 5 and words[2] in ("route-map", "prefix-list"))):
            bgp.setdefault("_af_options", []).append((child, False, family))
            continue  # onto the neighbor or group once both are known (_router_bgp)
        elif words[0] == "vni" and len(words) == 2:
            block = vni_blocks[int(words[1])] = {"rd": None, "import": [], "export": []}
            for grandchild in child.children:
                grand_words = grandchild.words()
                if grand_words[0] == "rd" and len(grand_words) == 2:
                    block["rd"] = grand_words[1]
                elif grand_words[0] == "route-target" and len(grand_words) == 3 and grand_words[1] in ("import",
                                                                                                      "export"):
                    block[grand_words[1]].append(grand_words[2])
                elif grandchild.text != "exit-vni":
                    continue
                _use(grandchild)
        else:
            continue
        _use(child)


def _router_bgp_vrf(node: Node, bgp: dict, name: str) -> None:
    _use(node)
    entry: dict[str, Any] = {"name": name, "rd": None, "l3vni": None, "route_targets": {"import": [], "export": []}}
    for child in node.children:
        words = child.words()
        if child.text in _NOOPS or (words[:2] == ["bgp", "router-id"] and len(words) == 3):
            pass
        elif words[0] == "address-family" and " ".join(words[1:]) in FAMILIES:
            for grandchild in child.children:
                grand_words = grandchild.words()
                if grandchild.text in _NOOPS or (grand_words[0] == "maximum-paths" and len(grand_words) == 2):
                    pass
                elif grand_words[0] == "rd" and len(grand_words) == 2:
                    entry["rd"] = grand_words[1]
                elif grand_words[0] == "route-target" and len(grand_words) == 3 and grand_words[1] in ("import",
                                                                                                      "export"):
                    entry["route_targets"][grand_words[1]].append(grand_words[2])
                else:
                    continue
                _use(grandchild)
        else:
            continue
        _use(child)
    bgp["vrfs"].append(entry)


def apply_vni_blocks(structured: dict) -> None:
    """VLANs take the RD and route targets of their VNI's ``vni`` block (address-family l2vpn evpn)."""
    blocks = structured.pop("_frr_vni_blocks", {})
    for vlan in structured["vlans"]:
        block = blocks.get(vlan["vni"]) if vlan["vni"] is not None else None
        if block:
            vlan["rd"] = block["rd"]
            vlan["route_targets"] = {"import": block["import"], "export": block["export"]}


def peers_from_descriptions(structured: dict) -> None:
    for interface in structured["interfaces"]:
        if interface["kind"] != "unused" and interface["peer_device"] is None:
            interface["peer_device"], interface["peer_interface"] = peer_from_description(interface["description"])


# ------------------------------------------------------------------------------------------------ Linux plan
_DSCP_PRIO = re.compile(r"^dcb app replace dev \S+ dscp-prio (.+)$")
_PFC = re.compile(r"^dcb pfc set dev \S+ prio-pfc (.+)$")
_BUFFER = re.compile(r"^dcb buffer set dev \S+ prio-buffer (\S+) buffer-size (\S+)$")
_ETS = re.compile(r"^tc qdisc replace dev \S+ root handle 1: ets .*priomap ([\d ]+)$")
_RED = re.compile(r"^tc qdisc replace dev \S+ parent 1:(\d+) red .* min (\d+) max (\d+) .* probability ([\d.]+) ecn$")


def parse(files: dict[str, str], hostname_hint: str = "") -> ParsedDevice:
    """``{"frr.conf": ..., "linux-plan.json": ...}`` -> ParsedDevice (the plan is optional)."""
    structured = empty_structured(hostname_hint, "frr")
    locations: dict[str, tuple[str, int]] = {}
    unmodelled: list[Unmodelled] = []
    plan = None
    names: dict[str, str] = {}
    if PLAN in files:
        plan = json.loads(files[PLAN])
        management = read_management_plan(plan.pop("management", None) if isinstance(plan, dict) else None,
                                          unmodelled)
        if management is not None:
            structured["management"] = management
        names = {link["name"]: link["source_name"] for link in plan.get("links", [])}
        _apply_plan(plan, structured, unmodelled)
    if CONF in files:
        unmodelled += parse_frr_conf(files[CONF], CONF, structured, locations, lambda name: names.get(name, name))
    apply_vni_blocks(structured)
    peers_from_descriptions(structured)
    _finish_neighbors(structured)
    # The plan lists loopback addresses only: the router ID's is router_id; the contract's other loopback is the
    # VTEP source (leaves carry it even before a VNI exists).
    for loopback in structured["loopbacks"]:
        if loopback["purpose"] is None:
            is_router_id = loopback["ip"].split("/")[0] == structured["bgp"]["router_id"]
            loopback["purpose"] = "router_id" if is_router_id else "vtep"
    structured["role"] = "leaf" if structured["vxlan"] else "spine"
    structured.pop("_frr_vrf_vnis", None)
    sort_structured(structured)
    return ParsedDevice(structured["hostname"], "frr", structured, unmodelled, locations)


def _finish_neighbors(structured: dict) -> None:
    subnets = SubnetIndex(structured)
    for neighbor in structured["bgp"]["neighbors"]:
        if neighbor["interface"] is None:
            neighbor["interface"] = neighbor.get("update_source") or subnets.interface_for(neighbor["address"])
    mark_unnumbered_ports(structured)


def mark_unnumbered_ports(structured: dict) -> None:
    """A port with an unnumbered neighbor (``neighbor swp1 interface``) is a routed fabric port using its IPv6
    link-local address (RFC 5549), whether or not an ``interface`` block names it (zebra knows the kernel's)."""
    ports = {interface["name"]: interface for interface in structured["interfaces"]}
    for neighbor in structured["bgp"]["neighbors"]:
        name = neighbor["interface"]
        if neighbor["address"] is not None or not name:
            continue
        port = ports.get(name)
        if port is None:
            port = ports[name] = empty_interface(name)
            port["enabled"] = True
            structured["interfaces"].append(port)
        if port["kind"] == "unused":
            port["kind"] = "fabric"
        port["unnumbered"] = port["unnumbered"] or not port["ip"]


def _apply_plan(plan: dict, structured: dict, unmodelled: list[Unmodelled]) -> None:
    known = {"hostname", "sysctls", "loopback_addresses", "links", "bridges", "vrfs", "roce_qos", "roce_qos_ports"}
    for key in plan:
        if key not in known:
            unmodelled.append(Unmodelled(PLAN, 0, key))
    structured["hostname"] = plan.get("hostname") or structured["hostname"]
    router_loopbacks = plan.get("loopback_addresses", [])
    for index, address in enumerate(router_loopbacks):
        structured["loopbacks"].append({"name": f"Loopback{index}", "ip": address, "purpose": None})
    for link in plan.get("links", []):
        interface = empty_interface(link["source_name"])
        interface.update(kind=link["kind"], mtu=link["mtu"], ip=link["address"], enabled=True)
        structured["interfaces"].append(interface)
    by_linux = {link["name"]: link["source_name"] for link in plan.get("links", [])}
    vtep = None
    vlan_vnis, vrf_vnis = {}, {}
    for bridge in plan.get("bridges", []):
        vxlan = bridge.get("vxlan") or {}
        vtep = vtep or vxlan
        if vxlan:
            vlan_vnis[str(bridge["vlan"])] = vxlan["vni"]
        svi = bridge.get("svi")
        structured["vlans"].append({
            "id": bridge["vlan"], "name": "", "network": "", "vni": vxlan.get("vni"), "tenant": None,
            "vrf": bridge.get("vrf"), "rd": None, "route_targets": {"import": [], "export": []},
            "svi": {"ip": svi["address"], "mac": svi["mac"], "mtu": bridge["mtu"]} if svi else None})
        for member in bridge.get("members", []):
            base, _, tag = member.partition(".")
            source = next((item for item in structured["interfaces"] if item["name"] == by_linux.get(base)), None)
            if source is None:
                continue
            if tag:
                source["trunk_vlans"].append(bridge["vlan"])
            else:
                source["access_vlan"] = bridge["vlan"]
    for vrf in plan.get("vrfs", []):
        vtep = vtep or (vrf.get("bridge") or {}).get("vxlan")
        vrf_vnis[vrf["name"]] = vrf["l3vni"]
        bridge_name = (vrf.get("bridge") or {}).get("name", "")
        transit = int(bridge_name[2:]) if bridge_name[2:].isdigit() else None
        structured["vrfs"].append({"name": vrf["name"], "tenant": None, "l3vni": vrf["l3vni"], "transit_vlan": transit,
                                   "linux_table": vrf.get("table")})
    if vtep:
        loopback = next((lb for lb in structured["loopbacks"] if lb["ip"].split("/")[0] == vtep["local"]), None)
        if loopback:
            loopback["purpose"] = "vtep"
        structured["vxlan"] = {"source_interface": loopback["name"] if loopback else None, "vtep_ip": vtep["local"],
                               "udp_port": vtep["dstport"], "mtu": vtep["mtu"], "vlan_vnis": vlan_vnis,
                               "vrf_vnis": vrf_vnis, "flood_lists": {}}
    fabric = [link["mtu"] for link in plan.get("links", []) if link["kind"] == "fabric" and link["mtu"]]
    host = [b["mtu"] for b in plan.get("bridges", []) if b.get("svi")] or \
        [link["mtu"] for link in plan.get("links", []) if link["kind"] == "server" and link["mtu"]] or \
        [b["mtu"] for b in plan.get("bridges", []) if b["mtu"]]
    structured["mtu"] = {"underlay": max(fabric, default=None), "host": max(host, default=None)}
    _apply_roce_ports(plan, structured, by_linux, unmodelled)


def _apply_roce_ports(plan: dict, structured: dict, by_linux: dict, unmodelled: list[Unmodelled]) -> None:
    ports = plan.get("roce_qos_ports") or []
    if not ports:
        return
    qos = empty_qos()
    qos["trust"] = "dscp"
    watchdog_wanted = "pfc_watchdog" in ((plan.get("roce_qos") or {}).get("not_rendered") or {})
    qos["pfc_watchdog"]["enabled"] = watchdog_wanted
    interfaces = {item["name"]: item for item in structured["interfaces"]}
    for port in ports:
        interface = interfaces.get(by_linux.get(port["name"], port["name"]))
        if interface is None:
            unmodelled.append(Unmodelled(PLAN, 0, f"roce_qos_ports[{port['name']}]"))
            continue
        port_qos = empty_port_qos()
        port_qos["trust"] = "dscp"
        ecn_by_band: dict[int, dict] = {}
        priomap: list[int] = []
        strict_bands = 0
        quanta: list[int] = []
        for command in port.get("commands", []):
            if match := _DSCP_PRIO.match(command):
                for pair in match.group(1).split():
                    dscp, _, priority = pair.partition(":")
                    qos["dscp_to_tc"][str(int(dscp))] = int(priority)
            elif match := _PFC.match(command):
                port_qos["pfc_priorities"] = sorted(int(pair.split(":")[0]) for pair in match.group(1).split()
                                                    if pair.endswith(":on") and pair.split(":")[0].isdigit())
            elif match := _BUFFER.match(command):
                sizes = dict(pair.split(":") for pair in match.group(2).split(","))
                for priority in port_qos["pfc_priorities"]:
                    size = sizes.get(str(priority))
                    if size:
                        port_qos["headroom"][str(priority)] = {"xoff_bytes": None, "xon_bytes": None,
                                                               "size_bytes": int(size), "policy": "static"}
            elif match := _RED.match(command):
                # tc-red(8) on ETS band N (class 1:N); probability is a fraction, the contract's a percent.
                ecn_by_band[int(match.group(1)) - 1] = {"min_bytes": int(match.group(2)),
                                                        "max_bytes": int(match.group(3)),
                                                        "probability": round(float(match.group(4)) * 100)}
            elif match := _ETS.match(command):
                priomap = [int(band) for band in match.group(1).split()]
                strict_match = re.search(r" strict (\d+)", command)
                strict_bands = int(strict_match.group(1)) if strict_match else 0
                quanta_match = re.search(r" quanta ([\d ]+?) priomap", command)
                quanta = [int(value) for value in quanta_match.group(1).split()] if quanta_match else []
            else:
                unmodelled.append(Unmodelled(PLAN, 0, f"roce_qos_ports[{port['name']}]: {command}"))
        # tc-ets(8) priomap: priority -> band; a traffic class's band is that of its priority (priority == traffic
        # class in our maps), so the RED qdisc of band N marks that class's queue.
        queue_of_band = {}
        for traffic_class in sorted({0, *qos["dscp_to_tc"].values()}, reverse=True):
            if traffic_class < len(priomap):
                queue_of_band[priomap[traffic_class]] = traffic_class
        for band, ecn in ecn_by_band.items():
            if band in queue_of_band:
                port_qos["ecn"][str(queue_of_band[band])] = ecn
        for band in range(strict_bands):  # tc-ets(8): the first `strict` bands are strict priority
            if band in queue_of_band:
                qos["scheduling"][str(queue_of_band[band])] = {"mode": "strict"}
        for index, quantum in enumerate(quanta):  # then one DWRR quantum per band (compiler.render.frr)
            band = strict_bands + index
            if band in queue_of_band:
                qos["scheduling"][str(queue_of_band[band])] = {
                    "mode": "dwrr", "weight_percent": quantum // ETS_QUANTUM_BYTES_PER_PERCENT}
        # Linux has no PFC watchdog: the plan names it under roce_qos.not_rendered when the switch wants one.
        port_qos["pfc_watchdog"] = watchdog_wanted and bool(port_qos["pfc_priorities"])
        interface["qos"] = port_qos
    lossless = sorted({p for item in structured["interfaces"] if item["qos"] for p in item["qos"]["pfc_priorities"]})
    qos["lossless_priorities"] = lossless
    traffic_classes = sorted({0, *qos["dscp_to_tc"].values()})
    qos["tc_to_priority"] = {str(tc): tc for tc in traffic_classes}
    qos["tc_to_queue"] = {str(tc): tc for tc in traffic_classes}
    qos["tc_to_priority_group"] = {str(tc): (tc if tc in lossless else 0) for tc in traffic_classes}
    for item in structured["interfaces"]:
        for queue, ecn in (item["qos"] or {}).get("ecn", {}).items():
            qos["_ecn_by_queue"].setdefault(queue, ecn)
    structured["qos"] = finish_qos(qos)
