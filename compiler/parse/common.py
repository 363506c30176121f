"""What every parser shares: the result type, the indentation tree of CLI text, the empty structured config
(docs/structured-config.md, every key present) and the QoS facts derived from what a config states.

A config never says everything the structured config holds (class names, cable labels, inventory models); a
parser fills what the text states, derives what follows from it (the RoCE classes from the DSCP map, the
lossless priorities and the queues), and leaves the rest at the contract's empty value.
:mod:`compiler.parse.carried` names, per platform, which fields the text carries, so proofs compare only those.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from ipaddress import IPv6Interface, IPv6Network, ip_address
from socket import inet_aton
from typing import Any, TypeVar

from compiler.natural import natural_key

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Unmodelled:
    """A line (CLI, frr.conf) or key (config_db.json ``TABLE|key``) the parser does not model."""

    file: str
    line: int  # 1-based; 0 when the file has no lines to point at (a JSON key)
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}" if self.line else f"{self.file}: {self.text}"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "text": self.text}


@dataclass(slots=True)
class ParsedDevice:
    """One device's configuration files read back into the structured config."""

    hostname: str
    platform: str  # eos | sonic | frr
    structured: dict
    unmodelled: list[Unmodelled] = field(default_factory=list)
    # Where a fact was stated: "interface Ethernet1" / "bgp" / "vlan 10" / "qos" -> (file, line)
    locations: dict[str, tuple[str, int]] = field(default_factory=dict)
    source: str = ""  # where the files came from (a directory or file name in a config set)
    files: list[str] = field(default_factory=list)  # every file this device was built from (compiler.parse)
    detected_by: str = ""  # the evidence the platform was detected from ("bgpd.conf:1 `frr version 8.4`")

    def locate(self, *keys: str) -> tuple[str, int] | None:
        for key in keys:
            if key in self.locations:
                return self.locations[key]
        return None


@dataclass(slots=True)
class Node:
    """One CLI line with the lines indented below it."""

    text: str
    line: int
    children: list[Node] = field(default_factory=list)
    used: bool = False

    def words(self) -> list[str]:
        return self.text.split()


def cli_tree(text: str) -> list[Node]:
    """Top-level nodes of indentation-structured CLI text (EOS, FRR). ``!`` lines and blank lines separate
    blocks and carry nothing (EOS and FRR print comments as ``!``)."""
    roots: list[Node] = []
    indents: list[int] = []  # the open blocks: indentation and node, innermost last
    nodes: list[Node] = []
    number = 0
    for raw in text.split("\n"):
        number += 1
        content = raw.strip()  # also drops the CR of CRLF files
        if not content or content[0] == "!":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        node = Node(content, number, [])
        while indents and indents[-1] >= indent:
            indents.pop()
            nodes.pop()
        (nodes[-1].children if nodes else roots).append(node)
        indents.append(indent)
        nodes.append(node)
    return roots


def unused_lines(file_name: str, nodes: list[Node]) -> list[Unmodelled]:
    """Every line no parser consumed, in file order: nothing is silently dropped."""
    out: list[Unmodelled] = []
    pending = list(reversed(nodes))
    while pending:
        node = pending.pop()
        if not node.used:
            out.append(Unmodelled(file_name, node.line, node.text))
        pending.extend(reversed(node.children))
    return sorted(out, key=lambda item: item.line)


def empty_structured(hostname: str, platform: str) -> dict:
    """The contract's device dict with every key present and nothing stated yet."""
    return {
        "hostname": hostname, "role": None, "platform": platform, "model": None, "system_mac": None,
        "hardware": {"model": None, "asic": None, "asic_family": None},
        "asn": None, "router_id": None, "mtu": {"underlay": None, "host": None},
        "loopbacks": [], "interfaces": [],
        "bgp": {"asn": None, "router_id": None, "maximum_paths": 1, "keepalive_s": None, "hold_s": None,
                "allowas_in": 0, "bfd": False, "peer_groups": [], "neighbors": [], "networks": [],
                "evpn": {"enabled": False, "advertise_all_vni": False}, "vrfs": []},
        "vlans": [], "vrfs": [], "vxlan": {}, "qos": {}, "management": None,
    }


def empty_interface(name: str) -> dict:
    return {"name": name, "kind": "unused", "speed_gbps": None, "lanes": None, "breakout_parent": None,
            "mtu": None, "enabled": False, "description": "", "peer_device": None, "peer_interface": None,
            "cable": None, "cable_length_m": None, "ip": None, "unnumbered": False, "access_vlan": None,
            "trunk_vlans": [], "qos": {}}


def empty_port_qos() -> dict:
    return {"trust": None, "pfc_priorities": [], "pfc_watchdog": False, "ecn": {}, "headroom": {}}


def peer_from_description(description: str) -> tuple[str | None, str | None]:
    """Our renderers describe a port as ``P2P <peer> <port>`` / ``SERVER <host> <nic>``; other tools' words
    are not guessed at (the fabric pass pairs ports by their /31 instead, compiler.parse.fabric)."""
    words = description.split()
    if len(words) == 3 and words[0] in ("P2P", "SERVER"):
        return words[1], words[2]
    return None, None


def neighbor_peer_from_description(description: str) -> tuple[str | None, str | None]:
    """Our BGP neighbor description ``<peer>_<port>`` (compiler.structured.underlay_bgp)."""
    peer, separator, port = description.partition("_")
    if separator and peer and port and " " not in description:
        return peer, port
    return None, None


def finish_qos(qos: dict) -> dict:
    """Derive the RoCE classes, lossless priorities and CNP from the maps a config states.

    A class is a traffic class some DSCP maps to (other than 0, where unlisted DSCPs land); it is lossless when
    PFC pauses its priority, and carries the ECN thresholds of its queue. The CNP class is the lossy class
    scheduled strict-priority (compiler.structured.qos_policy: CNPs jump the queues so senders slow down soon).
    Class names are not in any config: ``tc<N>``.
    """
    if not qos:
        return {}
    dscp_by_tc: dict[int, list[int]] = {}
    for dscp, traffic_class in qos["dscp_to_tc"].items():
        dscp_by_tc.setdefault(int(traffic_class), []).append(int(dscp))
    lossless = {int(priority) for priority in qos["lossless_priorities"]}
    ecn_by_queue = qos.pop("_ecn_by_queue", {})
    classes: list[dict[str, Any]] = []
    cnp: dict[str, Any] = {}
    for traffic_class in sorted(dscp_by_tc):
        if traffic_class == 0:
            continue
        priority = int(qos["tc_to_priority"].get(str(traffic_class), traffic_class))
        queue = int(qos["tc_to_queue"].get(str(traffic_class), traffic_class))
        is_lossless = priority in lossless
        entry: dict[str, Any] = {"name": f"tc{traffic_class}", "dscp": sorted(dscp_by_tc[traffic_class]),
                 "traffic_class": traffic_class, "priority": priority, "queue": queue, "lossless": is_lossless,
                 "ecn": ecn_by_queue.get(str(queue)) or {}}
        strict = (qos["scheduling"].get(str(queue)) or {}).get("mode") == "strict"
        if not is_lossless and strict and not cnp and len(entry["dscp"]) == 1 and not entry["ecn"]:
            cnp = {"dscp": entry["dscp"][0], "priority": priority, "traffic_class": traffic_class}
            continue  # the contract keeps CNP apart from the classes
        classes.append(entry)
    qos["classes"] = classes
    qos["cnp"] = cnp
    qos["dscp_to_tc"] = {str(dscp): tc for dscp, tc in sorted(qos["dscp_to_tc"].items(), key=lambda i: int(i[0]))
                         if int(tc) != 0}
    return qos


def empty_qos() -> dict:
    return {"trust": None, "dscp_to_tc": {}, "tc_to_queue": {}, "tc_to_priority_group": {}, "tc_to_priority": {},
            "classes": [], "lossless_priorities": [], "cnp": {},
            "pfc_watchdog": {"enabled": False, "detect_ms": None, "restore_ms": None, "action": None},
            "scheduling": {}, "_ecn_by_queue": {}}


def sort_structured(structured: dict) -> dict:
    """The contract's deterministic orders: interfaces by natural name, neighbors by interface then address,
    VLANs by id."""
    structured["interfaces"].sort(key=lambda item: natural_key(item["name"]))
    structured["bgp"]["neighbors"].sort(key=lambda item: (natural_key(item["interface"] or ""),
                                                          natural_key(item["address"] or "")))
    structured["vlans"].sort(key=lambda item: item["id"])
    return structured


def ip_int(address: str) -> int:
    try:
        return int.from_bytes(inet_aton(address), "big")
    except OSError:
        raise ValueError(f"not an IPv4 address: {address!r}") from None


def network_of(prefix: str) -> tuple[int, int]:
    """``10.1.0.1/31`` -> (network number, prefix length)."""
    address, _, length = prefix.partition("/")
    bits = int(length or 32)
    return ip_int(address) >> (32 - bits), bits


def contains(prefix: str, address: str | None) -> bool:
    """True when ``address`` lies in the subnet of the interface prefix ``prefix``."""
    if not address:
        return False
    network, bits = network_of(prefix)
    return ip_int(address) >> (32 - bits) == network


class SubnetIndex:
    """Which local interface's subnet holds an address (configs name a BGP neighbor by address only): one dict
    lookup per prefix length in use instead of a scan of every port (a 1,024-port spine has 1,024 neighbors)."""

    def __init__(self, structured: dict) -> None:
        self.by_length: dict[int, dict[int, str]] = {}
        for interface in structured["interfaces"]:
            if interface["ip"]:
                network, bits = network_of(interface["ip"])
                self.by_length.setdefault(bits, {}).setdefault(network, interface["name"])
        self.lengths = sorted(self.by_length, reverse=True)  # the most specific subnet wins
        # IPv6 subnets (interfaces' optional ``ipv6``): few per device, scanned most specific first.
        self.ipv6 = sorted(((IPv6Network(interface["ipv6"], strict=False), interface["name"])
                            for interface in structured["interfaces"] if interface.get("ipv6")),
                           key=lambda item: -item[0].prefixlen)

    def interface_for(self, address: str | None) -> str | None:
        if not address:
            return None
        if ":" in address:
            v6 = ip_address(address)
            return next((name for network, name in self.ipv6 if v6 in network), None)
        value = ip_int(address)
        for bits in self.lengths:
            name = self.by_length[bits].get(value >> (32 - bits))
            if name is not None:
                return name
        return None


def layer3_neighbor_interfaces(structured: dict) -> None:
    """BGP neighbors no port's subnet holds, onto the SVI (own address, default VRF) or routed port-channel whose
    subnet does: the MLAG peers' iBGP session over the peer SVI (AVD: Vlan4093), a routed uplink bundle."""
    prefixes = [(f"Vlan{vlan['id']}", svi["address"]) for vlan in structured["vlans"]
                if (svi := vlan["svi"]) and svi.get("address") and vlan["vrf"] is None]
    prefixes += [(bundle["name"], bundle["ip"]) for bundle in structured.get("port_channels") or [] if bundle["ip"]]
    if not prefixes:
        return
    for neighbor in structured["bgp"]["neighbors"]:
        if neighbor["interface"] is None and neighbor["address"] and ":" not in neighbor["address"]:
            neighbor["interface"] = next((name for name, prefix in prefixes
                                          if contains(prefix, neighbor["address"])), None)
# ------------------------------------------------------------------------------------------------ routing words
ASN_MAX = 2**32 - 1  # RFC 6793: four-octet AS numbers


def parse_asn(text: str) -> int:
    """An AS number as configs print it: asplain (``4200000100``) or asdot (``65111.100``, RFC 5396: high * 65536 +
    low, each half 0-65535). Anything else is a ValueError naming the value."""
    high, dot, low = text.partition(".")
    try:
        if dot:
            high_value, low_value = int(high), int(low)
            if not (0 <= high_value <= 0xFFFF and 0 <= low_value <= 0xFFFF):
                raise ValueError
            return high_value * 65536 + low_value
        value = int(text)
        if not 0 <= value <= ASN_MAX:
            raise ValueError
        return value
    except ValueError:
        raise ValueError(f"AS number {text!r} is neither asplain (0-{ASN_MAX}) nor asdot (0-65535.0-65535, "
                         "RFC 5396)") from None


def remote_as_value(text: str) -> int | str:
    """``remote-as`` argument: a number (asplain or asdot) or a keyword (``external``, ``internal``) kept as is."""
    return parse_asn(text) if text[:1].isdigit() else text


def ip_address_text(text: str) -> str | None:
    """The canonical text of an IPv4/IPv6 address (IPv6 compressed, RFC 5952), None when ``text`` is no address
    (a peer group or interface name in a ``neighbor`` command)."""
    try:
        return str(ip_address(text))
    except ValueError:
        return None


def ipv6_interface_text(text: str) -> str:
    """``2001:DB8:0::1/64`` -> ``2001:db8::1/64`` (RFC 5952 text); a ValueError names the value."""
    try:
        return str(IPv6Interface(text))
    except ValueError:
        raise ValueError(f"not an IPv6 address/length: {text!r}") from None


def node_value(node: Node, read: Callable[[str], T], text: str) -> T:
    """``read(text)`` for a value on the line ``node``; a ValueError names the line number and the command, so a
    refusal says which line of which file (compiler.parse.parse_device adds the file)."""
    try:
        return read(text)
    except ValueError as error:
        raise ValueError(f"line {node.line}: {node.text!r}: {error}") from None
