"""Arista's own generator as the oracle for our EOS text: the same settings, rendered by pyavd, compared by shape.

Our structured config (docs/structured-config.md) is mapped, feature by feature, onto AVD's ``eos_cli_config_gen``
structured-config schema (avd.arista.com, "eos_cli_config_gen" input variables); pyavd validates it against that
schema (`validate_structured_config`, which also checks value types and enumerations such as the PFC watchdog
action) and renders it with Arista's templates (`get_device_config`). Both texts are then cut into command
*shapes*: each command with the chain of modes it sits in (``interface Ethernet1`` > ``speed 400g-4``), values
masked (numbers, addresses, names -> placeholders), so the comparison is about syntax, not about values both tools
take from the same structured config.

The mapping states EOS facts independently of our renderer on purpose: which queue keyword an ASIC family takes
(:data:`AVD_QUEUE_FIELD`) and what our watchdog words mean in EOS (:data:`AVD_WATCHDOG_ACTION`). A renderer that
prints ``tx-queue`` on a Tomahawk or ``no-drop`` as a watchdog action therefore disagrees with the oracle.

pyavd is a test-only dependency (requirements.txt); nothing at runtime imports this module. Run it as a script
for the measurement table: ``.venv/bin/python tests/compiler/render/avd_oracle.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compiler.secret_refs import placeholder as secret_placeholder

# ASIC family (compiler.hardware.AsicFamily) -> the AVD field of the queue that takes ECN and scheduling. Arista EOS
# User Manual, "Quality of Service": Trident/Tomahawk (Strata) unicast queues are `uc-tx-queue`; Jericho (Sand)
# queues are `tx-queue`.
AVD_QUEUE_FIELD = {"strata": "uc_tx_queues", "sand": "tx_queues"}
# Our watchdog action words (SONiC's) -> EOS's (drop | errdisable | notify-only; AVD schema enumeration).
AVD_WATCHDOG_ACTION = {"drop": "drop", "forward": "notify-only"}
AAA_GROUP = "FT_TACACS"  # a name we choose (masked in shapes)

# Top-level command -> feature, for the per-feature counts. The first matching prefix wins.
FEATURES = (
    ("hostname", "identity"), ("service routing", "identity"),
    ("qos map", "qos maps"), ("priority-flow-control", "pfc watchdog"), ("qos profile", "qos profiles"),
    ("platform trident", "pfc headroom"), ("load-balance policies", "load balancing"),
    ("vlan ", "vlans"), ("vrf instance", "vrfs"), ("ip routing", "vrfs"), ("no ip routing", "management"),
    ("interface Ethernet", "ethernet interfaces"), ("interface Loopback", "loopbacks"),
    ("interface Port-Channel", "port-channels"), ("mlag configuration", "mlag"), ("spanning-tree", "spanning tree"),
    ("no spanning-tree", "spanning tree"),
    ("interface Management", "management"), ("management api", "management"), ("ip route", "management"),
    ("ntp ", "management"), ("logging ", "management"), ("ip name-server", "management"),
    ("tacacs-server", "aaa"), ("aaa ", "aaa"), ("ip tacacs", "aaa"),
    ("interface Vlan", "svis"), ("interface Vxlan", "vxlan"), ("ip virtual-router", "anycast gateway"),
    ("router bgp", "bgp"), ("ip as-path", "routing policy"), ("route-map", "routing policy"), ("end", "identity"),
)

# Shapes of our EOS output the oracle does not compare, with the reason (comments are dropped by shapes()).
NOT_COVERED = {
    ("end",): "EOS ends `show running-config` with `end`; AVD's template stops before it",
}


def _switchport(interface: dict) -> dict:
    if interface["kind"] == "server" and interface["trunk_vlans"]:
        access = interface["access_vlan"]
        allowed = sorted(set(interface["trunk_vlans"]) | ({access} if access else set()))
        trunk = {"allowed_vlan": ",".join(str(vlan) for vlan in allowed)}
        if access:
            trunk["native_vlan"] = access
        return {"enabled": True, "mode": "trunk", "trunk": trunk}
    if interface["kind"] == "server" and interface["access_vlan"]:
        return {"enabled": True, "mode": "access", "access_vlan": interface["access_vlan"]}
    return {"enabled": False}


def _ethernet(interface: dict, profile_of: dict[int, str], speed: str | None, bundles: dict[str, dict]) -> dict:
    entry = {"name": interface["name"], "shutdown": not interface["enabled"], "mtu": interface["mtu"]}
    if interface["description"]:
        entry["description"] = interface["description"]
    if speed:
        entry["speed"] = speed
    bundle = bundles.get(interface.get("port_channel") or "")
    if bundle is not None:
        # A member (the MLAG peer-link's too): `channel-group N mode M`; its bundle carries switchport/QoS, and
        # the member restates neither the bundle's MTU nor its QoS (as our renderer, EOS "Port Channels").
        entry["channel_group"] = {"id": int(bundle["name"].removeprefix("Port-Channel")),
                                  "mode": interface.get("lacp_mode") or "on"}
        if interface["mtu"] == bundle["mtu"]:
            del entry["mtu"]
        if interface["qos"] and interface["qos"] != bundle["qos"]:
            entry["service_profile"] = profile_of[id(interface["qos"])]
        return entry
    if interface["kind"] != "unused":
        entry["switchport"] = _switchport(interface)
        if interface["ip"] and not entry["switchport"]["enabled"]:
            entry["ip_address"] = interface["ip"]
    if interface["kind"] == "server" and entry["switchport"]["enabled"]:
        entry["spanning_tree_portfast"] = "edge"  # an edge port facing a NIC
    if interface["qos"]:
        entry["service_profile"] = profile_of[id(interface["qos"])]
    return entry


def _port_channel(bundle: dict, profile_of: dict[int, str]) -> dict:
    """An AVD port_channel_interfaces entry: L2 trunk (allowed VLANs, native VLAN, trunk groups: the MLAG
    peer-link's ``MLAG``), access or routed, MLAG id, min-links, and QoS stated on the bundle itself."""
    entry: dict = {"name": bundle["name"], "shutdown": not bundle["enabled"]}
    if bundle["description"]:
        entry["description"] = bundle["description"]
    if bundle["mtu"]:
        entry["mtu"] = bundle["mtu"]
    if bundle["switchport_mode"] == "trunk" or (bundle["trunk_vlans"] and not bundle["ip"]):
        trunk: dict = {}
        access = bundle["access_vlan"]
        if access:
            trunk["native_vlan"] = access
        if bundle["native_vlan_tag"]:
            trunk["native_vlan_tag"] = True
        if bundle["trunk_vlans"]:
            trunk["allowed_vlan"] = ",".join(str(v) for v in sorted(set(bundle["trunk_vlans"]) | ({access} - {None})))
        if bundle["trunk_groups"]:
            trunk["groups"] = list(bundle["trunk_groups"])
        entry["switchport"] = {"enabled": True, "mode": "trunk", "trunk": trunk}
    elif bundle["switchport_mode"] == "access" or bundle["access_vlan"]:
        entry["switchport"] = {"enabled": True, "mode": "access",
                               **({"access_vlan": bundle["access_vlan"]} if bundle["access_vlan"] else {})}
    elif bundle["ip"]:
        entry["switchport"] = {"enabled": False}
        entry["ip_address"] = bundle["ip"]
    if bundle["mlag"] is not None:
        entry["mlag"] = bundle["mlag"]
    if bundle["min_links"] is not None:
        entry["min_links"] = bundle["min_links"]
    if bundle["qos"]:  # AVD's port-channel takes a service-profile (no PFC or queue keys of its own)
        entry["service_profile"] = profile_of[id(bundle["qos"])]
    return entry


def _mlag_and_spanning_tree(structured: dict) -> dict:
    """AVD mlag_configuration and spanning_tree, from the structured ``mlag`` and ``spanning_tree``."""
    out: dict = {}
    mlag = structured.get("mlag")
    if mlag:
        out["mlag_configuration"] = {
            "domain_id": mlag["domain_id"], "local_interface": mlag["local_interface"],
            "peer_address": mlag["peer_address"], "peer_link": mlag["peer_link"],
            **({"reload_delay_mlag": str(mlag["reload_delay_mlag_s"])} if mlag["reload_delay_mlag_s"] is not None
               else {}),
            **({"reload_delay_non_mlag": str(mlag["reload_delay_non_mlag_s"])}
               if mlag["reload_delay_non_mlag_s"] is not None else {})}
    stp = structured.get("spanning_tree")
    if stp:
        tree: dict = {"mode": stp["mode"]} if stp["mode"] else {}
        if stp["disabled_vlans"]:
            tree["no_spanning_tree_vlan"] = ",".join(str(vlan) for vlan in stp["disabled_vlans"])
        priorities = sorted(stp["priorities"].items(), key=lambda item: int(item[0]))
        if stp["mode"] == "mstp":
            tree["mst_instances"] = [{"id": key, "priority": value} for key, value in priorities]
        elif priorities:
            tree["rapid_pvst_instances" if stp["mode"] == "rapid-pvst" else "pvst_instances"] = [
                {"id": key, "priority": value} for key, value in priorities]
        out["spanning_tree"] = tree
    return out


def _queues(port_qos: dict, scheduling: dict) -> list[dict]:
    queues = []
    for queue in sorted({*scheduling, *port_qos["ecn"]}, key=int):
        entry: dict = {"id": int(queue)}
        mode = scheduling.get(queue)
        if mode and mode["mode"] == "strict":
            entry["priority"] = "priority strict"
        elif mode:
            entry["priority"] = "no priority"
            entry["bandwidth_percent"] = mode["weight_percent"]
        ecn = port_qos["ecn"].get(queue)
        if ecn:
            entry["random_detect"] = {"ecn": {"threshold": {"units": "bytes", "min": ecn["min_bytes"],
                                                            "max": ecn["max_bytes"],
                                                            "max_probability": ecn["probability"]}}}
        queues.append(entry)
    return queues


def _qos(structured: dict, seconds_of) -> tuple[dict, dict[int, str]]:
    """AVD qos, priority_flow_control, qos_profiles and platform keys; and our port QoS dict id -> profile name."""
    qos = structured.get("qos") or {}
    if not qos:
        return {}, {}
    out: dict = {}
    dscp_to_tc = {int(dscp): int(tc) for dscp, tc in qos["dscp_to_tc"].items()}
    by_class: dict[int, list[int]] = {}
    for dscp in range(64):
        by_class.setdefault(dscp_to_tc.get(dscp, 0), []).append(dscp)
    dscp_lines = []
    for traffic_class, values in sorted(by_class.items()):
        for start in range(0, len(values), 8):
            dscp_lines.append(f"{' '.join(str(v) for v in values[start:start + 8])} to traffic-class {traffic_class}")
    out["qos"] = {"map": {"dscp": dscp_lines,
                          "traffic_class": [f"{tc} to tx-queue {queue}" for tc, queue in
                                            sorted(qos["tc_to_queue"].items(), key=lambda item: int(item[0]))]}}
    watchdog = qos["pfc_watchdog"]
    if watchdog["enabled"]:
        out["priority_flow_control"] = {"watchdog": {
            "action": AVD_WATCHDOG_ACTION.get(watchdog["action"], watchdog["action"]),
            "timeout": seconds_of(watchdog["detect_ms"]), "recovery_time": seconds_of(watchdog["restore_ms"])}}
    family = (structured.get("hardware") or {}).get("asic_family")
    queue_field = AVD_QUEUE_FIELD[family]
    profiles: dict[tuple, list] = {}
    for interface in [*structured["interfaces"], *(structured.get("port_channels") or [])]:
        port_qos = interface["qos"]
        if not port_qos:
            continue
        profile: dict = {"trust": port_qos["trust"]}
        if port_qos["pfc_priorities"]:
            profile["priority_flow_control"] = {
                "enabled": True,
                "priorities": [{"priority": p, "no_drop": True} for p in sorted(port_qos["pfc_priorities"])]}
            if port_qos["pfc_watchdog"] and watchdog["enabled"]:
                profile["priority_flow_control"]["watchdog"] = {"enabled": True}
        profile[queue_field] = _queues(port_qos, qos.get("scheduling") or {})
        profiles.setdefault(repr(profile), [profile, []])[1].append(id(port_qos))
    out["qos_profiles"], profile_of = [], {}
    for index, (profile, users) in enumerate(profiles.values(), start=1):
        name = "FT_ROCE" if len(profiles) == 1 else f"FT_ROCE_{index}"
        out["qos_profiles"].append({"name": name, **profile})
        profile_of.update((user, name) for user in users)
    if family == "strata" and qos["lossless_priorities"]:
        headroom = max(sum(group["xoff_bytes"] for group in i["qos"]["headroom"].values())
                       for i in structured["interfaces"] if i["qos"])
        out["platform"] = {"trident": {"mmu": {"active_profile": "FT_ROCE", "queue_profiles": [
            {"name": "FT_ROCE", "ingress": {"headroom": {"unit": "bytes", "memory": headroom}}}]}}}
    return out, profile_of


def _management(structured: dict) -> dict:
    management = structured.get("management") or {}
    if not management:
        return {}
    vrf = management.get("vrf") if management.get("vrf") not in (None, "default") else None
    out: dict = {
        "management_interfaces": [{"name": management["interface"], "description": "oob_management",
                                   "shutdown": False, "ip_address": management["address"],
                                   **({"vrf": vrf} if vrf else {})}],
        "management_api_http": {"enable_https": True, **({"enable_vrfs": [{"name": vrf}]} if vrf else {})},
    }
    if management.get("gateway"):
        out["static_routes"] = [{"prefix": "0.0.0.0/0", "next_hop": management["gateway"], **({"vrf": vrf} if vrf else {})}]
    if management.get("ntp_servers"):
        out["ntp"] = {"local_interface": {"name": management["interface"], **({"vrf": vrf} if vrf else {})},
                      "servers": [{"name": server, "iburst": True} for server in management["ntp_servers"]],
                      **({"vrf": vrf} if vrf else {})}
    if management.get("syslog_servers"):
        hosts = [{"name": server} for server in management["syslog_servers"]]
        out["logging"] = {"vrfs": [{"name": vrf or "default", "hosts": hosts}]}
    if management.get("dns_servers"):
        out["ip_name_server"] = {"vrfs": [{"name": vrf or "default",
                                           "servers": [{"ip_address": s} for s in management["dns_servers"]]}]}
    aaa = management.get("aaa")
    if aaa:
        # TACACS+ in the management VRF, one server group, login/exec through it with local users as fallback,
        # sourced from the management interface. The key is the secret reference's marker with key type 7 (the
        # obfuscated form EOS shows and the push driver writes); AVD's schema takes any string as the key.
        in_vrf = {"vrf": vrf} if vrf else {}
        servers = aaa["tacacs_servers"]
        out["tacacs_servers"] = {"hosts": [{"host": server, **in_vrf, "key": secret_placeholder(aaa["secret_ref"]),
                                            "key_type": "7"} for server in servers]}
        out["aaa_server_groups"] = [{"name": AAA_GROUP, "type": "tacacs+",
                                     "servers": [{"server": server, **in_vrf} for server in servers]}]
        out["aaa_authentication"] = {"login": {"default": f"group {AAA_GROUP} local"}}
        out["aaa_authorization"] = {"exec": {"default": f"group {AAA_GROUP} local"}}
        out["ip_tacacs_source_interfaces"] = [{"name": management["interface"], **in_vrf}]
    return out


def _route_targets(targets: dict, evpn: bool) -> dict:
    if not evpn and targets["import"] == targets["export"]:
        return {"both": list(targets["import"])}
    if evpn:
        return {"import": [{"address_family": "evpn", "route_targets": list(targets["import"])}],
                "export": [{"address_family": "evpn", "route_targets": list(targets["export"])}]}
    return {"import": list(targets["import"]), "export": list(targets["export"])}


def _router_bgp(structured: dict) -> dict:
    bgp = structured["bgp"]
    groups = []
    for group in bgp["peer_groups"]:
        entry: dict = {"name": group["name"], "timers": f"{bgp['keepalive_s']} {bgp['hold_s']}", "maximum_routes": 0}
        if isinstance(group["remote_as"], int):
            entry["remote_as"] = str(group["remote_as"])
        if group["bfd"]:
            entry["bfd"] = True
        if "l2vpn_evpn" in group["address_families"]:
            entry["send_community"] = "extended"
        if bgp.get("allowas_in"):
            entry["allowas_in"] = {"enabled": True, "times": bgp["allowas_in"]}
        groups.append(entry)
    neighbors = [{"ip_address": n["address"], "remote_as": str(n["remote_as"]),
                  **({"peer_group": n["peer_group"]} if n["peer_group"] else {}),
                  **({"description": n["description"]} if n["description"] else {})} for n in bgp["neighbors"]]
    standalone = [n for n in bgp["neighbors"] if not n["peer_group"]]

    def activated(family: str) -> dict:
        return {"peer_groups": [{"name": g["name"], "activate": True} for g in bgp["peer_groups"]
                                if family in g["address_families"]],
                "neighbors": [{"ip_address": n["address"], "activate": True} for n in standalone
                              if family in n["address_families"]]}

    out: dict = {
        "as": str(bgp["asn"]), "router_id": bgp["router_id"], "bgp": {"default": {"ipv4_unicast": False}},
        "maximum_paths": {"paths": bgp["maximum_paths"], "ecmp": bgp["maximum_paths"]},
        "peer_groups": groups, "neighbors": neighbors,
        "address_family_ipv4": {**activated("ipv4_unicast"), "networks": [{"prefix": p} for p in bgp["networks"]]},
        "vlans": [{"id": vlan["id"], "rd": vlan["rd"], "route_targets": _route_targets(vlan["route_targets"], False),
                   "redistribute_routes": ["learned"]} for vlan in structured["vlans"] if vlan["vni"]],
        "vrfs": [{"name": vrf["name"], "rd": vrf["rd"], "route_targets": _route_targets(vrf["route_targets"], True),
                  "router_id": bgp["router_id"], "redistribute": {"connected": {"enabled": True}}}
                 for vrf in bgp["vrfs"]],
    }
    policy_neighbors = [{"ip_address": n["address"], "route_map_out": n["route_map_out"]}
                        for n in bgp["neighbors"] if n.get("route_map_out")]
    if policy_neighbors:
        ipv4 = out["address_family_ipv4"]
        standalone_ips = {n["ip_address"] for n in ipv4["neighbors"]}
        ipv4["neighbors"] = [n for n in ipv4["neighbors"] if n["ip_address"] not in
                             {p["ip_address"] for p in policy_neighbors}] + [
            {**p, **({"activate": True} if p["ip_address"] in standalone_ips else {})} for p in policy_neighbors]
    if bgp["evpn"]["enabled"]:
        out["address_family_evpn"] = activated("l2vpn_evpn")
        if not bgp["evpn"]["advertise_all_vni"]:
            out["address_family_evpn"]["next_hop_unchanged"] = True
    return out


def avd_structured_config(structured: dict, speed_of, seconds_of) -> dict:
    """Our structured config as AVD eos_cli_config_gen structured config.

    Values are the ones our renderer prints, so AVD's schema judges them: ``speed_of(interface)`` is the EOS speed
    keyword (a free string in AVD's schema; its lane count is tested in test_render_eos) and ``seconds_of(ms)``
    the watchdog timer text (AVD's schema: at most 2 decimals).
    """
    qos, profile_of = _qos(structured, seconds_of)
    management = _management(structured)
    mgmt_vrf = (management.get("management_interfaces") or [{}])[0].get("vrf")
    vxlan = structured["vxlan"]
    bundles = {bundle["name"]: bundle for bundle in structured.get("port_channels") or []}
    mlag_local = (structured.get("mlag") or {}).get("local_interface")
    out: dict = {
        "hostname": structured["hostname"],
        # what eos_designs gives every device (its internal_vlan_order default; pyavd 6.4 _eos_designs/schema)
        "vlan_internal_order": {"allocation": "ascending", "range": {"beginning": 1006, "ending": 1199}},
        "service_routing_protocols_model": "multi-agent",
        "ip_routing": True,
        **qos,
        **management,
        "vlans": [{"id": vlan["id"], "name": vlan["name"],
                   **({"trunk_groups": list(vlan["trunk_groups"])} if vlan.get("trunk_groups") else {})}
                  for vlan in structured["vlans"]],
        "vrfs": [{"name": vrf["name"], "ip_routing": True} for vrf in structured["vrfs"]]
        + ([{"name": mgmt_vrf, "ip_routing": False}] if mgmt_vrf else []),
        "ethernet_interfaces": [
            _ethernet(interface, profile_of, speed_of(interface) if interface["speed_gbps"] else None, bundles)
            for interface in structured["interfaces"]],
        "port_channel_interfaces": [_port_channel(bundle, profile_of) for bundle in bundles.values()],
        **_mlag_and_spanning_tree(structured),
        "loopback_interfaces": [{"name": lo["name"], "description": lo["purpose"], "ip_address": lo["ip"]}
                                for lo in structured["loopbacks"]],
        "vlan_interfaces": [{"name": f"Vlan{vlan['id']}", "description": vlan["name"], "shutdown": False,
                             "mtu": vlan["svi"]["mtu"], "ip_address_virtual": vlan["svi"]["ip"],
                             **({"ip_address": vlan["svi"]["address"]} if vlan["svi"].get("address") else {}),
                             **({"no_autostate": True} if mlag_local == f"Vlan{vlan['id']}" else {}),
                             **({"vrf": vlan["vrf"]} if vlan["vrf"] else {})}
                            for vlan in structured["vlans"] if vlan["svi"]],
        "router_bgp": _router_bgp(structured),
    }
    route_maps = structured["bgp"].get("route_maps", [])
    if route_maps:  # 5-stage valley-free export policy
        out["as_path"] = {"access_lists": [
            {"name": f"{rm['name']}-{e['seq']}", "entries": [{"type": "permit", "match": e["as_path"], "origin": "any"}]}
            for rm in route_maps for e in rm["entries"] if e["as_path"] is not None]}
        out["route_maps"] = [{"name": rm["name"], "sequence_numbers": [
            {"sequence": e["seq"], "type": e["action"],
             **({"match": [f"as-path {rm['name']}-{e['seq']}"]} if e["as_path"] is not None else {})}
            for e in rm["entries"]]} for rm in route_maps]
    if vxlan:
        out["vxlan_interface"] = {"vxlan1": {"vxlan": {
            "source_interface": vxlan["source_interface"], "udp_port": vxlan["udp_port"],
            **({"qos": {"ecn_propagation": True, "dscp_propagation_encapsulation": True,
                        "map_dscp_to_traffic_class_decapsulation": True}} if structured.get("qos") else {}),
            "vlans": [{"id": int(vlan), "vni": vni} for vlan, vni in sorted(vxlan["vlan_vnis"].items(),
                                                                           key=lambda item: int(item[0]))],
            "vrfs": [{"name": name, "vni": vni} for name, vni in sorted(vxlan["vrf_vnis"].items())]}}}
    udp = (structured.get("load_balance") or {}).get("udp_payload_hash")
    if udp:  # destination-QP hashing: a sand profile hashing UDP payload bytes (EOS >= 4.33.1F)
        out["load_balance"] = {"policies": {"sand_profiles": [
            {"name": "default", "fields": {"udp": {"dst_port": udp["dst_port"], "payload_bytes": udp["payload_bytes"]}}}]}}
    macs = {vlan["svi"]["mac"] for vlan in structured["vlans"] if vlan["svi"] and vlan["svi"]["mac"]}  # not the MLAG SVI
    if macs:
        out["ip_virtual_router_mac_address"] = next(iter(macs))
    return out


def validate_with_avd(avd_config: dict) -> tuple[dict | None, list[str]]:
    """pyavd's schema validation: (validated data, ["path: message", ...])."""
    import pyavd  # test-only dependency, imported where used so the pure core never needs it

    result = pyavd.validate_structured_config(avd_config)
    violations = [f"{'.'.join(str(p) for p in v.path)}: {v.message}" for v in result.validation_result.violations]
    return result.validated_data, violations


def render_with_avd(validated: dict) -> str:
    import pyavd  # test-only dependency

    return pyavd.get_device_config(validated)


# ------------------------------------------------------------------------------------------------ shapes

_ADDRESS = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Commands whose whole argument is free text or a name chosen by us (descriptions, VLAN names, profile names).
_FREE_TEXT = re.compile(r"^(\s*(?:description|name|hostname|qos profile|service-profile|"
                        r"platform trident mmu queue profile)) .*?( apply)?$")


def mask(line: str, names: set[str]) -> str:
    """A command with its values replaced by placeholders: the shape both tools must agree on."""
    match = _FREE_TEXT.match(line)
    if match:
        return f"{match.group(1)} <text>{match.group(2) or ''}"
    words = []
    for word in line.split(" "):
        if word in names:
            word = "<name>"
        words.append(word)
    masked = " ".join(words)
    masked = _ADDRESS.sub("<ip>", masked)
    return _NUMBER.sub("<n>", masked)


def shapes(config: str, names: set[str]) -> set[tuple[str, ...]]:
    """(masked mode, ..., masked command) for every command; comments and ``!`` separators dropped."""
    result: set[tuple[str, ...]] = set()
    stack: list[tuple[int, str]] = []
    for raw in config.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        shape = mask(stripped, names)
        result.add((*(parent for _indent, parent in stack), shape))
        stack.append((indent, shape))
    return result


def feature_of(shape: tuple[str, ...]) -> str:
    top = shape[0].replace("<name>", "").strip()
    for prefix, feature in FEATURES:
        if top.startswith(prefix.strip()) or shape[0].startswith(prefix):
            return feature
    return "other"


def names_in(structured: dict) -> set[str]:
    """Names we chose (VRFs, peer groups): masked like values."""
    names = {vrf["name"] for vrf in structured["vrfs"]} | {group["name"] for group in structured["bgp"]["peer_groups"]}
    management = structured.get("management") or {}
    if management.get("vrf"):
        names.add(management["vrf"])
    if management.get("aaa"):
        names |= {AAA_GROUP, secret_placeholder(management["aaa"]["secret_ref"])}
    return names


@dataclass
class Comparison:
    ours_only: set[tuple[str, ...]]
    avd_only: set[tuple[str, ...]]
    compared: set[tuple[str, ...]]
    violations: list[str]

    @property
    def mismatches(self) -> int:
        return len(self.ours_only) + len(self.avd_only)


def compare(structured: dict, our_text: str, speed_of, seconds_of) -> Comparison:
    """Validate the mapped settings with pyavd, render them, and compare both texts' shapes (NOT_COVERED aside)."""
    validated, violations = validate_with_avd(avd_structured_config(structured, speed_of, seconds_of))
    if validated is None:
        return Comparison(set(), set(), set(), violations)
    names = names_in(structured)
    ours = shapes(our_text, names) - set(NOT_COVERED)
    theirs = shapes(render_with_avd(validated), names) - set(NOT_COVERED)
    return Comparison(ours - theirs, theirs - ours, ours | theirs, violations)


def summary(comparisons: dict[str, Comparison]) -> str:
    """The measurement table: distinct shapes compared and mismatched, per feature, over every case."""
    compared = set().union(*(c.compared for c in comparisons.values()))
    ours_only = set().union(*(c.ours_only for c in comparisons.values()))
    avd_only = set().union(*(c.avd_only for c in comparisons.values()))
    violations = sum(len(c.violations) for c in comparisons.values())
    features = sorted({feature_of(shape) for shape in compared})
    lines = [f"EOS command shapes vs pyavd eos_cli_config_gen: {len(comparisons)} structured configs, "
             f"{len(compared)} distinct shapes, {len(ours_only | avd_only)} mismatched, "
             f"{violations} AVD schema violations",
             f"{'feature':<22} {'shapes':>6} {'ours only':>9} {'AVD only':>8}"]
    for feature in features:
        def count(shapes_set, feature=feature):
            return sum(1 for shape in shapes_set if feature_of(shape) == feature)
        lines.append(f"{feature:<22} {count(compared):>6} {count(ours_only):>9} {count(avd_only):>8}")
    for shape in sorted(ours_only):
        lines.append(f"  ours only: {' > '.join(shape)}")
    for shape in sorted(avd_only):
        lines.append(f"  AVD only:  {' > '.join(shape)}")
    lines.append("not compared: " + "; ".join(f"{' > '.join(shape)} ({reason})" for shape, reason in NOT_COVERED.items()))
    return "\n".join(lines)
