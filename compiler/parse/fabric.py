"""What only the whole set of configs says: which port is cabled to which, EVPN's flood lists, EVPN sessions
between loopbacks mapped onto the underlay sessions.

* Peers: two routed ports whose addresses share a subnet are the ends of one link (RFC 3021 /31s in our
  fabrics); a port that already names its peer (our descriptions, SONiC DEVICE_NEIGHBOR) keeps it. Ports with no
  address to pair on (unnumbered, RFC 5549) are paired when their descriptions name each other: A's names B and
  B's port, and B's port names A and A's port (AVD's ``P2P_<peer>_<port>``); a one-sided description is no pair.
* Flood lists: a VTEP with ``advertise-all-vni`` / ``redistribute learned`` floods each VNI to every other VTEP
  carrying it (EVPN type-3 routes, RFC 8365 section 9), which is what the compiler writes into the structured
  config (compiler.structured.vxlan_vrf).
* Networks and tenants: configs name neither; a VLAN's network is the name any device gives its VNI (EOS
  ``vlan N / name``, SONiC VLAN description), else ``vni<N>``; a tenant is known by its VRF, so a VRF's tenant is
  its name and a VLAN's the VRF its VNI is routed in on any device (EOS states it on the SVI only).
* EVPN over loopback sessions (AVD's overlay design): the structured config models EVPN on the sessions toward
  a device, so ``l2vpn_evpn`` moves to the underlay neighbors toward the device owning the overlay address.
"""

from __future__ import annotations

import gc
import re
from collections import Counter

from compiler.natural import natural_key
from compiler.parse import ParseError, parse_device
from compiler.parse.bgp_options import FAMILY_ORDER
from compiler.parse.common import ParsedDevice, Unmodelled, network_of

_WORDS = re.compile(r"[\s_]+")  # description words: AVD joins them with '_', ours with spaces


def complete_fabric(devices: dict[str, ParsedDevice]) -> None:
    structured = {host: device.structured for host, device in devices.items()}
    _peers(structured)
    _mutual_descriptions(structured)
    _overlay_sessions(devices)
    _flood_lists(structured)
    _neighbor_peers(structured)
    _networks_and_tenants(structured)


def _peers(structured: dict[str, dict]) -> None:
    by_subnet: dict[tuple[int, int], list[tuple[str, dict]]] = {}
    for host, config in structured.items():
        for interface in config["interfaces"]:
            if interface["ip"] and network_of(interface["ip"])[1] >= 30:
                by_subnet.setdefault(network_of(interface["ip"]), []).append((host, interface))
    for ends in by_subnet.values():
        if len(ends) != 2:
            continue
        (host_a, port_a), (host_b, port_b) = ends
        for port, host, name in ((port_a, host_b, port_b["name"]), (port_b, host_a, port_a["name"])):
            if port["peer_device"] is None:
                port["peer_device"], port["peer_interface"] = host, name


def _mutual_descriptions(structured: dict[str, dict]) -> None:
    ports = {host: {interface["name"]: interface for interface in config["interfaces"]}
             for host, config in structured.items()}

    def named(description: str) -> set[tuple[str, str]]:
        words = _WORDS.split(description)
        return {(host, port) for host, port in zip(words, words[1:], strict=False) if port in ports.get(host, ())}

    for host, config in structured.items():
        for interface in config["interfaces"]:
            if interface["peer_device"] is not None or interface["ip"] or not interface["description"] or not (
                    interface["unnumbered"] or interface["kind"] == "fabric"):
                continue  # only routed ports without an address to pair on (access ports are not links)
            for peer, port in named(interface["description"]):
                far = ports[peer][port]
                if far["peer_device"] is None and (host, interface["name"]) in named(far["description"]):
                    interface["peer_device"], interface["peer_interface"] = peer, port
                    far["peer_device"], far["peer_interface"] = host, interface["name"]
                    break


def _neighbor_peers(structured: dict[str, dict]) -> None:
    owner = {}
    for host, config in structured.items():
        for interface in config["interfaces"]:
            if interface["ip"]:
                owner[interface["ip"].split("/")[0]] = (host, interface["name"])
    for config in structured.values():
        for neighbor in config["bgp"]["neighbors"]:
            if neighbor["peer_device"] is None and neighbor["address"] in owner:
                neighbor["peer_device"], neighbor["peer_interface"] = owner[neighbor["address"]]


def _overlay_sessions(devices: dict[str, ParsedDevice]) -> None:
    loopback_owners: dict[str, list[str]] = {}  # an address two devices claim: each (bgp.router_ids reports it)
    for host, device in devices.items():
        for loopback in device.structured["loopbacks"]:
            if loopback["ip"]:
                loopback_owners.setdefault(loopback["ip"].split("/")[0], []).append(host)
    port_owner = {}
    for host, device in devices.items():
        for interface in device.structured["interfaces"]:
            if interface["ip"]:
                port_owner[interface["ip"].split("/")[0]] = host
    for device in devices.values():
        config = device.structured
        overlay = config.pop("_overlay_neighbors", [])
        for entry in overlay:
            peers = loopback_owners.get(entry["address"], [])
            peer = peers[0] if peers else None
            cabled = {interface["name"]: interface["peer_device"] for interface in config["interfaces"]}
            # Numbered sessions by the owner of the neighbor address; unnumbered (RFC 5549) by the cable.
            targets = [n for n in config["bgp"]["neighbors"] if (port_owner.get(n["address"]) if n["address"]
                                                                 else cabled.get(n["interface"])) in peers]
            if not targets and peer is not None and entry.get("update_source"):
                # No BGP underlay toward the peer (an OSPF/IS-IS underlay, iBGP overlay with route reflectors): the
                # session stays between the loopbacks; validators.sessions pairs it and checks the IGP route.
                entry["interface"] = entry["update_source"]
                config["bgp"]["neighbors"].append(entry)
                continue
            entry.pop("update_source", None)
            if not targets:
                bgp_location = device.locate("bgp")
                device.unmodelled.append(Unmodelled(bgp_location[0] if bgp_location else "", 0,
                                                    f"neighbor {entry['address']}: EVPN session to an address no "
                                                    "parsed device owns"))
                continue
            for neighbor in targets:
                families = set(neighbor["address_families"]) | set(entry["address_families"])
                neighbor["address_families"] = [f for f in FAMILY_ORDER if f in families]
                if entry["remote_as"] is not None and entry["remote_as"] != neighbor["remote_as"]:
                    # The loopback session expects another AS than the underlay session to the same device: the
                    # model folds EVPN onto the underlay session, so keep what the overlay line says for the check.
                    neighbor["overlay_remote_as"] = {"address": entry["address"], "remote_as": entry["remote_as"]}


def _flood_lists(structured: dict[str, dict]) -> None:
    carriers: dict[int, list[str]] = {}
    for config in structured.values():
        vxlan = config["vxlan"]
        if not vxlan or not vxlan.get("vtep_ip") or not config["bgp"]["evpn"]["enabled"]:
            continue
        for vni in vxlan["vlan_vnis"].values():
            carriers.setdefault(int(vni), []).append(vxlan["vtep_ip"])
    ordered = {vni: sorted(ips, key=natural_key) for vni, ips in carriers.items()}  # once per VNI, not per VTEP
    for config in structured.values():
        vxlan = config["vxlan"]
        if not vxlan or not vxlan.get("vtep_ip") or not config["bgp"]["evpn"]["enabled"]:
            continue
        own = vxlan["vtep_ip"]
        vxlan["flood_lists"] = {str(vni): [ip for ip in ordered.get(int(vni), ()) if ip != own]
                                for vni in sorted(vxlan["vlan_vnis"].values())}


def _networks_and_tenants(structured: dict[str, dict]) -> None:
    names: dict[object, Counter] = {}
    vrfs: dict[object, str] = {}
    for config in structured.values():
        for vlan in config["vlans"]:
            key = vlan["vni"] if vlan["vni"] is not None else ("vlan", vlan["id"])
            if vlan["name"]:
                names.setdefault(key, Counter())[vlan["name"]] += 1
            if vlan["vrf"]:
                vrfs.setdefault(key, vlan["vrf"])
        for vrf in config["vrfs"]:
            vrf["tenant"] = vrf["name"]
    for config in structured.values():
        for vlan in config["vlans"]:
            key = vlan["vni"] if vlan["vni"] is not None else ("vlan", vlan["id"])
            stated = names.get(key)
            vlan["network"] = stated.most_common(1)[0][0] if stated else (
                f"vni{vlan['vni']}" if vlan["vni"] is not None else f"vlan{vlan['id']}")
            vlan["tenant"] = vrfs.get(key)


# --------------------------------------------------------------------------------------------- a set of configs


def parse_fabric(device_files: dict[str, dict[str, str]]) -> dict[str, ParsedDevice]:
    """{device key (directory or file name): {file name: text}} -> {hostname: ParsedDevice}, fabric completed.

    ParseError naming the device's directory or file when its files are no config (compiler.parse names the file,
    line and command), and naming both when two of them claim one hostname: a set holds each device once."""
    devices: dict[str, ParsedDevice] = {}
    # Millions of small dicts and lists: the cyclic GC would rescan them over and over for nothing (as in
    # validators.run.validate_fabric); parsing creates no reference cycles.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for key, files in sorted(device_files.items()):
            try:
                parsed = parse_device(files, hostname_hint=key)
            except ParseError as error:
                raise ParseError(f"device {key!r}: {error}") from error
            hostname = parsed.hostname or key
            if hostname in devices:
                first = devices[hostname]
                hint = ("; FRR per-daemon files of one device go in one directory: <device>/zebra.conf, "
                        "<device>/bgpd.conf" if first.platform == parsed.platform == "frr" else "")
                raise ParseError(f"hostname {hostname!r} is claimed twice: by {_where(first.source, first.files)} "
                                 f"and by {_where(key, parsed.files)} (one device, one config{hint})")
            parsed.structured["hostname"] = hostname
            parsed.source = key
            devices[hostname] = parsed
        complete_fabric(devices)
    finally:
        if gc_was_enabled:
            gc.enable()
    return devices


def _where(key: str, files: list[str]) -> str:
    """How a report names a device's files: a top-level file by its name, a directory with its files."""
    if len(files) == 1 and files[0].rsplit(".", 1)[0] == key:
        return files[0]
    return f"{key}/{files[0]}" if len(files) == 1 else f"{key}/ ({', '.join(files)})"
