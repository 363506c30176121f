"""OSPF and IS-IS underlays (EOS and FRR) read into the structured config's optional ``igp`` keys
(docs/structured-config.md, "Foreign routing features"): the process, its router ID / NET, and per interface or
loopback the area or level, network type, passivity and metric -- what decides adjacencies, loopback
reachability and ECMP (validators.igp).

Forms: EOS ``router ospf N`` (``router-id``, ``passive-interface default``, ``[no] passive-interface X``,
``network P area A``, ``maximum-paths``) and interface ``ip ospf area A`` / ``ip ospf network point-to-point`` /
``ip ospf cost N``; ``router isis NAME`` (``net``, ``is-type``, ``router-id ipv4``, ``address-family ipv4
unicast`` / ``maximum-paths``) and interface ``isis enable NAME`` / ``isis network point-to-point`` / ``isis
passive`` / ``isis metric N`` / ``isis circuit-type``. FRR: ``router ospf`` (``ospf router-id``), ``ip ospf
passive``, ``router isis NAME`` and interface ``ip router isis NAME`` (FRR user guide, "OSPFv2" and "IS-IS").
OSPF areas are kept dotted (``0`` is ``0.0.0.0``, RFC 2328 appendix C.1); IS-IS levels as ``level-1``,
``level-2`` or ``level-1-2``.
"""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Network, ip_interface
from typing import Any

from compiler.parse.common import Node, node_value

_NOOPS = {"log-adjacency-changes", "log-adjacency-changes detail", "metric-style wide", "exit",
          "exit-address-family", "redistribute connected"}


def _area(text: str) -> str:
    """``0`` / ``0.0.0.0`` -> ``0.0.0.0`` (an OSPF area ID is 32 bits, written either way)."""
    return text if "." in text else str(IPv4Address(int(text)))


def _level(text: str) -> str:
    """EOS ``level-2`` / FRR ``level-2-only`` / ``level-1-2`` -> ``level-2`` / ``level-1-2``."""
    return {"level-1-only": "level-1", "level-2-only": "level-2"}.get(text, text)


def interface_line(node: Node, port: dict) -> bool:
    """One IGP line of an interface or loopback into ``port["_igp"]``; True when understood."""
    words = node.words()
    if words[0] not in ("ip", "isis"):
        return False
    igp: dict[str, Any] = port.setdefault("_igp", {})
    if words[:3] == ["ip", "ospf", "area"] and len(words) == 4:
        igp.update(protocol="ospf", area=node_value(node, _area, words[3]), _node=node)
    elif words[:3] == ["ip", "ospf", "network"] and len(words) == 4:
        igp["point_to_point"] = words[3] == "point-to-point"
    elif words[:3] == ["ip", "ospf", "cost"] and len(words) == 4:
        igp["metric"] = node_value(node, int, words[3])
    elif words[:3] == ["ip", "ospf", "authentication"] and len(words) in (3, 4):
        igp["authentication"] = words[3] if len(words) == 4 else "simple"  # RFC 2328 D.3 (keys not compared)
    elif node.text == "ip ospf passive":  # FRR
        igp.update(passive=True, _passive_node=node)
    elif (words[:2] == ["isis", "enable"] or words[:3] == ["ip", "router", "isis"]) and len(words) in (3, 4):
        igp.update(protocol="isis", process=words[-1], _node=node)
    elif words[:3] == ["isis", "network", "point-to-point"] and len(words) == 3:
        igp["point_to_point"] = True
    elif node.text == "isis passive":
        igp.update(passive=True, _passive_node=node)
    elif words[:2] == ["isis", "metric"] and len(words) == 3:
        igp["metric"] = node_value(node, int, words[2])
    elif words[:2] == ["isis", "circuit-type"] and len(words) == 3:
        igp.update(level=_level(words[2]), _level_node=node)
    elif node.text in ("isis bfd", "ip ospf bfd"):
        igp["bfd"] = True
    else:
        if not igp:
            del port["_igp"]
        return False
    return True


def router_block(node: Node) -> dict | None:
    """``router ospf [N]`` / ``router isis NAME`` -> the process, with its lines used; None for anything else."""
    words = node.words()
    if words[:2] == ["router", "ospf"] and len(words) in (2, 3):
        process: dict[str, Any] = {"protocol": "ospf", "process": words[2] if len(words) == 3 else "",
                                   "router_id": None, "net": None, "level": None, "maximum_paths": None,
                                   "_passive_default": False, "_passive": {}, "_networks": [], "_passive_nodes": {}}
    elif words[:2] == ["router", "isis"] and len(words) == 3:
        process = {"protocol": "isis", "process": words[2], "router_id": None, "net": None, "level": "level-1-2",
                   "maximum_paths": None, "_passive_default": False, "_passive": {}, "_networks": [], "_passive_nodes": {}}
    else:
        return None
    node.used = True
    for child in node.children:
        child_words = child.words()
        if child.text in _NOOPS or child.text == "bfd default" or (
                child_words[0] == "max-lsa" and len(child_words) == 2):
            pass  # logging, LSA limits and BFD for all neighbors: no route the model describes changes
        elif child_words[-2:-1] == ["router-id"] or child_words[:2] == ["router-id", "ipv4"]:
            if len(child_words) not in (2, 3):
                continue
            process["router_id"] = child_words[-1]  # EOS router-id X / router-id ipv4 X, FRR ospf router-id X
        elif child_words[0] == "net" and len(child_words) == 2:
            process["net"] = child_words[1]
        elif child_words[0] == "is-type" and len(child_words) == 2:
            process["level"] = _level(child_words[1])
        elif child.text == "passive-interface default":
            process["_passive_default"] = True
            process["_passive_default_node"] = child
        elif child_words[0] == "passive-interface" and len(child_words) == 2:
            process["_passive"][child_words[1]] = True
            process["_passive_nodes"][child_words[1]] = child
        elif child_words[:2] == ["no", "passive-interface"] and len(child_words) == 3:
            process["_passive"][child_words[2]] = False
        elif child_words[0] == "network" and len(child_words) == 4 and child_words[2] == "area":
            network = node_value(child, lambda text: IPv4Network(text, strict=False), child_words[1])
            process["_networks"].append((network, node_value(child, _area, child_words[3]), child))
        elif child_words[0] == "maximum-paths" and len(child_words) == 2:
            process["maximum_paths"] = node_value(child, int, child_words[1])
        elif child.text == "address-family ipv4 unicast":
            for grandchild in child.children:
                grand_words = grandchild.words()
                if grand_words[0] == "maximum-paths" and len(grand_words) == 2:
                    process["maximum_paths"] = node_value(grandchild, int, grand_words[1])
                elif grandchild.text not in _NOOPS:
                    continue
                grandchild.used = True
        else:
            continue
        child.used = True
    return process


def finish(structured: dict, processes: list[dict], at: Callable[[str, Node], None] | None = None) -> None:
    """Each interface's and loopback's IGP from its own lines and its process's (area by ``network``
    statement, passivity by ``passive-interface``); the process into ``structured["igp"]``. ``at(key, node)``
    records the line that put a port into the IGP (``interface X igp``) and the one that made it passive
    (``interface X igp passive``): what an adjacency finding cites."""
    ports = [*structured["interfaces"], *structured["loopbacks"]]
    if not processes:
        for port in ports:
            port.pop("_igp", None)
        return
    by_protocol = {process["protocol"]: process for process in processes}
    for port in ports:
        stated = port.pop("_igp", None) or {}
        protocol = stated.get("protocol")
        ospf = by_protocol.get("ospf")
        if protocol is None and ospf and port.get("ip"):
            address = ip_interface(port["ip"]).ip
            match = next(((area, node) for network, area, node in ospf["_networks"] if address in network), None)
            if match is not None:
                protocol, stated["area"], stated["_node"] = "ospf", match[0], match[1]
        process = by_protocol.get(protocol or "")
        if process is None:
            continue
        passive = stated.get("passive", process["_passive"].get(port["name"], process["_passive_default"]))
        if at is not None:
            if stated.get("_node") is not None:
                at(f"interface {port['name']} igp", stated["_node"])
            passive_node = stated.get("_passive_node") or process["_passive_nodes"].get(port["name"]) or (
                process.get("_passive_default_node") if port["name"] not in process["_passive"] else None)
            if passive and passive_node is not None:
                at(f"interface {port['name']} igp passive", passive_node)
            if stated.get("_level_node") is not None:
                at(f"interface {port['name']} igp level", stated["_level_node"])
        port["igp"] = {"protocol": protocol, "area": stated.get("area"),
                       "level": stated.get("level", process["level"]) if protocol == "isis" else None,
                       "point_to_point": stated.get("point_to_point", False), "passive": passive,
                       "metric": stated.get("metric"),
                       **({"authentication": stated["authentication"]} if "authentication" in stated else {})}
    first = processes[0]
    structured["igp"] = {key: value for key, value in first.items() if not key.startswith("_")}
    ospf = by_protocol.get("ospf")
    if ospf is not None:
        # `network P area A` statements that put no port of this device into OSPF: inert here, and the evidence
        # when another device's port in P forms no adjacency (routing.igp: the two ends' subnets differ).
        addresses = [ip_interface(port["ip"]).ip for port in ports if port.get("ip")]
        unmatched = [(network, node) for network, _area, node in ospf["_networks"]
                     if not any(address in network for address in addresses)]
        if unmatched:
            structured["igp"]["unmatched_networks"] = [str(network) for network, _node in unmatched]
            for network, node in unmatched:
                if at is not None:
                    at(f"igp network {network}", node)
