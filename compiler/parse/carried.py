"""Which fields of the structured config each platform's files carry, and the differences between two models.

``carried(structured, platform)`` keeps the fields a platform's rendering states (and normalises spellings the
platform changes, like SONiC's ``Vrf_`` prefix); everything else (cable labels, inventory models, class names,
tenant names) is dropped because no config says it. Projections are filters, so ``carried(carried(s, a), b)`` is
what both platforms carry: the basis of cross-target equivalence. ``differences(a, b)`` lists
``(path, a value, b value)`` for every field that differs.
"""

from __future__ import annotations

from typing import Any

from compiler.model import Role
from compiler.parse.frr import strip_vrf_prefix

# EOS names a single-lane rate without a lane count (compiler.render.eos.SINGLE_LANE_SPEEDS_GBPS).
SINGLE_LANE_SPEEDS_GBPS = (1, 10, 25)
# Interface fields per platform (beyond name/kind/enabled/description/ip/mtu/peer/VLANs every platform states).
INTERFACE_FIELDS = {
    "eos": {"speed_gbps", "lanes"},
    "sonic": {"speed_gbps", "cable_length_m"},
    "frr": set(),
}
PORT_QOS_FIELDS = {
    "eos": {"trust", "pfc_priorities", "pfc_watchdog", "ecn"},
    "sonic": {"trust", "pfc_priorities", "pfc_watchdog", "ecn", "headroom"},
    "frr": {"pfc_priorities", "ecn", "headroom_size"},
}
BASE_INTERFACE_FIELDS = {"name", "kind", "enabled", "description", "ip", "mtu", "peer_device", "peer_interface",
                         "access_vlan", "trunk_vlans", "unnumbered"}
CLASS_FIELDS = ("dscp", "traffic_class", "priority", "queue", "lossless", "ecn")
# Layer 2 read from foreign configs (optional keys): what each platform's text states. SONiC has no trunk groups,
# native VLAN tagging, per-member LACP mode beyond active/static, MLAG or spanning tree in the tables we read.
LAYER2_INTERFACE_FIELDS = {
    "eos": {"port_channel", "lacp_mode", "switchport_mode", "trunk_groups", "native_vlan_tag", "dhcp"},
    "sonic": {"port_channel", "lacp_mode"},
    "frr": set(),
}
LAYER2_BLOCKS = {"eos": ("port_channels", "mlag", "spanning_tree"), "sonic": ("port_channels",), "frr": ()}


def _vrf(name):
    return strip_vrf_prefix(name) if isinstance(name, str) else name


def carried(structured: dict, platform: str) -> dict:
    """The part of ``structured`` that ``platform``'s files state, in one spelling."""
    out: dict = {"hostname": structured["hostname"], "asn": structured["asn"], "router_id": structured["router_id"]}
    if platform == "sonic":
        # DEVICE_METADATA.type (ToRRouter for leaves and borders); EOS and FRR text say no role (the parsers
        # infer one: a VTEP or a switch with server ports is a leaf).
        out["role"] = Role.LEAF if structured.get("role") in (Role.LEAF, Role.BORDER) else structured.get("role")
    out["loopbacks"] = [{"ip": item["ip"], "purpose": item["purpose"]} for item in structured["loopbacks"]]
    interfaces = []
    for interface in structured["interfaces"]:
        if platform == "frr" and interface["kind"] == "unused":
            continue  # FRR has no unused ports: the twin creates only cabled veths
        entry = {key: interface.get(key) for key in BASE_INTERFACE_FIELDS | INTERFACE_FIELDS[platform]
                 | LAYER2_INTERFACE_FIELDS[platform] if key in interface}
        if interface["kind"] == "unused":
            entry = {key: interface.get(key) for key in {"name", "kind", "enabled", "mtu"}
                     | (INTERFACE_FIELDS[platform] - {"cable_length_m"})}
        if "cable_length_m" in entry and not interface.get("qos"):
            del entry["cable_length_m"]  # SONiC's CABLE_LENGTH lists the lossless (buffer-sized) ports only
        if "lanes" in entry and interface.get("speed_gbps") in SINGLE_LANE_SPEEDS_GBPS:
            del entry["lanes"]
        entry["trunk_vlans"] = sorted(entry.get("trunk_vlans") or []) if "trunk_vlans" in entry else None
        if entry.get("trunk_vlans") is None:
            entry.pop("trunk_vlans", None)
        entry["qos"] = _port_qos(interface.get("qos") or {}, structured, platform)
        interfaces.append(entry)
    out["interfaces"] = interfaces
    out["bgp"] = _bgp(structured["bgp"], platform)
    # EOS and SONiC bind a VLAN to a VRF through its SVI only; the Linux plan's bridge names its VRF always.
    out["vlans"] = [{"id": vlan["id"], "vni": vlan["vni"],
                     "vrf": _vrf(vlan["vrf"]) if vlan["svi"] or platform == "frr" else None, "rd": vlan["rd"],
                     "route_targets": vlan["route_targets"] if vlan["vni"] else None,
                     "svi": dict(vlan["svi"]) if vlan["svi"] else None,
                     **({"name": vlan["name"]} if platform != "frr" else {})} for vlan in structured["vlans"]]
    out["vrfs"] = [{"name": _vrf(vrf["name"]), "l3vni": vrf["l3vni"],
                    **({"transit_vlan": vrf["transit_vlan"]} if platform != "eos" else {}),
                    **({"linux_table": vrf.get("linux_table")} if platform == "frr" else {})}
                   for vrf in structured["vrfs"]]
    for block in LAYER2_BLOCKS[platform]:
        if structured.get(block):
            out[block] = structured[block]
    if platform == "eos":
        for vlan, entry in zip(structured["vlans"], out["vlans"], strict=True):
            if vlan.get("trunk_groups"):
                entry["trunk_groups"] = vlan["trunk_groups"]
    out["vxlan"] = _vxlan(structured["vxlan"], platform)
    out["qos"] = _qos(structured.get("qos") or {}, platform)
    if platform == "frr":
        out["management"] = _linux_management(structured.get("management") or None)
    else:
        management = structured.get("management") or None
        out["management"] = {
            "interface": management["interface"], "vrf": management.get("vrf") or "default",
            "address": management["address"], "gateway": management.get("gateway"),
            "ntp_servers": list(management.get("ntp_servers") or []),
            "syslog_servers": list(management.get("syslog_servers") or []),
            "dns_servers": list(management.get("dns_servers") or []),
            "aaa": _aaa(management.get("aaa"))} if management else None
    return out


def _linux_management(management: dict | None) -> dict | None:
    """The Linux plan's management (compiler.render.frr.management_plan): the port by its Linux name (not
    compared), and of AAA only that it is wanted (TACACS+ on Linux is PAM/NSS, configured with the image)."""
    if not management:
        return None
    return {"vrf": management.get("vrf") or "default", "address": management["address"],
            "gateway": management.get("gateway"), "ntp_servers": list(management.get("ntp_servers") or []),
            "syslog_servers": list(management.get("syslog_servers") or []),
            "dns_servers": list(management.get("dns_servers") or []),
            "aaa": {"requested": True} if management.get("aaa") else None}


def _aaa(aaa: dict | None) -> dict | None:
    """TACACS+ servers in order and the secret reference (EOS and SONiC state both; the secret never)."""
    if not aaa:
        return None
    return {"tacacs_servers": list(aaa.get("tacacs_servers") or []), "secret_ref": aaa.get("secret_ref")}


def carried_by_both(structured: dict, platform_a: str, platform_b: str) -> dict:
    """What both platforms state (cross-target equivalence compares this). The management port's name is the
    platform's own (EOS Management1, SONiC eth0), so it is not compared."""
    both = _intersect(carried(structured, platform_a), carried(structured, platform_b))
    if both.get("management"):
        both["management"].pop("interface", None)
    return both


def _intersect(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return {key: _intersect(a[key], b[key]) for key in a if key in b}
    if isinstance(a, list) and isinstance(b, list) and all(isinstance(item, dict) for item in a + b):
        # Lists of records: keep the records both have (FRR drops unused ports), by name/id/address.
        keys_b = {_record_key(item): item for item in b}
        return [_intersect(item, keys_b[_record_key(item)]) for item in a if _record_key(item) in keys_b]
    return a


def _record_key(item: dict):
    for key in ("name", "id", "address", "ip", "traffic_class", "seq"):
        if key in item:
            return (key, item[key])
    return repr(item)


def _port_qos(port_qos: dict, structured: dict, platform: str) -> dict:
    """A port's QoS with every carried field present (a port without QoS: empty values), so a difference reads
    ``[3]`` against ``[]``."""
    fields = PORT_QOS_FIELDS[platform]
    out: dict[str, Any] = {}
    qos = structured.get("qos") or {}
    watchdog_on = bool((qos.get("pfc_watchdog") or {}).get("enabled"))
    for key in ("trust", "pfc_priorities", "ecn"):
        if key in fields:
            out[key] = port_qos.get(key) or ({} if key == "ecn" else [] if key == "pfc_priorities" else None)
    if "pfc_watchdog" in fields:
        # A port's watchdog is stated only where it is on and the switch runs one (both renderers).
        out["pfc_watchdog"] = bool(port_qos.get("pfc_watchdog") and watchdog_on and port_qos.get("pfc_priorities"))
    if "headroom" in fields:
        out["headroom"] = {priority: {key: entry.get(key) for key in ("xoff_bytes", "xon_bytes", "size_bytes")}
                           for priority, entry in (port_qos.get("headroom") or {}).items()}
    if "headroom_size" in fields:
        out["headroom"] = {priority: {"size_bytes": entry.get("size_bytes")}
                           for priority, entry in (port_qos.get("headroom") or {}).items()}
    return out


_EOS_UNNUMBERED_UNCARRIED = frozenset({"description", "peer_device", "peer_interface"})


def _bgp(bgp: dict, platform: str) -> dict:
    groups = [{"name": group["name"], "bfd": group["bfd"], "address_families": sorted(group["address_families"]),
               **({"remote_as": group["remote_as"]} if platform == "eos" and isinstance(group["remote_as"], int)
                  else {})} for group in bgp["peer_groups"]]
    # EOS's unnumbered form (`neighbor interface X peer-group G remote-as N`) has no description, so neither the
    # description nor the peer it names is carried there.
    neighbors = [{key: neighbor[key] for key in ("address", "interface", "remote_as", "peer_group", "description",
                                                  "peer_device", "peer_interface")
                  if platform != "eos" or neighbor["address"] is not None or key not in _EOS_UNNUMBERED_UNCARRIED}
                 | {"address_families": sorted(neighbor["address_families"]),
                    "route_map_out": neighbor.get("route_map_out")} for neighbor in bgp["neighbors"]]
    return {"asn": bgp["asn"], "router_id": bgp["router_id"], "maximum_paths": bgp["maximum_paths"],
            "keepalive_s": bgp["keepalive_s"], "hold_s": bgp["hold_s"], "allowas_in": bgp.get("allowas_in") or 0,
            # Advertised networks are a set (FRR and EOS print them in their own order): compared sorted.
            "bfd": bgp["bfd"], "peer_groups": groups, "neighbors": neighbors, "networks": sorted(bgp["networks"]),
            "evpn": {"enabled": bgp["evpn"]["enabled"], "advertise_all_vni": bgp["evpn"]["advertise_all_vni"]},
            "vrfs": [{"name": _vrf(vrf["name"]), "rd": vrf["rd"], "l3vni": vrf["l3vni"],
                      "route_targets": vrf["route_targets"]} for vrf in bgp["vrfs"]],
            # Valley-free export policy (5-stage Clos): every platform prints the route maps and AS-path lists.
            "route_maps": [{"name": route_map["name"], "entries": [dict(entry) for entry in route_map["entries"]]}
                           for route_map in bgp.get("route_maps") or []]}


def _vxlan(vxlan: dict, platform: str) -> dict:
    if not vxlan:
        return {}
    out = {"vtep_ip": vxlan["vtep_ip"], "source_interface": vxlan["source_interface"],
           "vlan_vnis": {str(k): v for k, v in vxlan["vlan_vnis"].items()},
           "vrf_vnis": {_vrf(k): v for k, v in vxlan["vrf_vnis"].items()},
           "flood_lists": {str(k): sorted(v) for k, v in (vxlan.get("flood_lists") or {}).items()}}
    if platform in ("eos", "frr"):
        out["udp_port"] = vxlan["udp_port"]
    if platform in ("sonic", "frr"):
        out["mtu"] = vxlan["mtu"]
    return out


def _qos(qos: dict, platform: str) -> dict:
    if not qos:
        return {}
    cnp = qos.get("cnp") or {}
    out = {"dscp_to_tc": {str(k): int(v) for k, v in qos["dscp_to_tc"].items() if int(v) != 0},
           "lossless_priorities": sorted(int(p) for p in qos["lossless_priorities"]),
           "classes": [{key: entry.get(key) or ({} if key == "ecn" else entry.get(key)) for key in CLASS_FIELDS}
                       for entry in qos["classes"]
                       if int(entry["traffic_class"]) != 0 and not _is_cnp_marking(entry, cnp)]}
    if platform in ("eos", "sonic"):
        out["tc_to_queue"] = {str(k): int(v) for k, v in qos["tc_to_queue"].items()}
        watchdog = qos.get("pfc_watchdog") or {}
        out["pfc_watchdog"] = {key: watchdog.get(key) for key in ("enabled", "detect_ms", "restore_ms", "action")} \
            if watchdog.get("enabled") else {"enabled": False}
        out["scheduling"] = {queue: ({"mode": entry["mode"]} if platform == "sonic" else dict(entry))
                             for queue, entry in qos["scheduling"].items()}
        out["cnp"] = dict(qos.get("cnp") or {})
    if platform == "sonic":
        out["tc_to_priority_group"] = {str(k): int(v) for k, v in qos["tc_to_priority_group"].items()}
    return out


def _is_cnp_marking(entry: dict, cnp: dict) -> bool:
    """A lossy class with exactly the CNP's DSCP, priority and traffic class and no ECN (an intent may declare the
    CNP marking as a RoCE class of its own, as the reference fabric does): every renderer prints it as the CNP
    marking, so no text can tell the two apart and the parsers keep it as ``qos.cnp`` (common.finish_qos)."""
    return bool(cnp) and not entry.get("lossless") and not entry.get("ecn") \
        and [int(dscp) for dscp in entry["dscp"]] == [int(cnp["dscp"])] \
        and int(entry["priority"]) == int(cnp["priority"]) and int(entry["traffic_class"]) == int(cnp["traffic_class"])


def differences(a, b, path: str = "") -> list[tuple[str, object, object]]:
    """Every (path, a, b) where two carried models differ; lists of records are matched by name/id/address."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(a) + [key for key in b if key not in a]:
            out += differences(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
        return out
    if isinstance(a, list) and isinstance(b, list) and a and b and all(isinstance(i, dict) for i in a + b):
        keyed_a = {_record_key(item): item for item in a}
        keyed_b = {_record_key(item): item for item in b}
        out = []
        for key in list(keyed_a) + [key for key in keyed_b if key not in keyed_a]:
            out += differences(keyed_a.get(key), keyed_b.get(key), f"{path}[{key[1]}]")
        return out
    return [] if a == b else [(path, a, b)]
