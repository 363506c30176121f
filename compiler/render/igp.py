"""OSPF / IS-IS lines of parsed foreign configs (the optional ``igp`` keys, compiler/parse/igp.py), printed by the
EOS and FRR renderers so that render(parse(text)) keeps the underlay. The compiler builds no IGP, so generated
configs and the goldens do not change. Syntax: Arista EOS User Manual "OSPFv2" / "IS-IS", FRR user guide
"OSPFv2" / "IS-IS" (the forms compiler.parse.igp reads).
"""

from __future__ import annotations

from collections.abc import Iterable

from compiler.structured.contract import Igp, InterfaceIgp

FRR_LEVELS = {"level-1": "level-1", "level-2": "level-2-only", "level-1-2": "level-1-2"}  # FRR spells L2 so


def interface_lines(igp: InterfaceIgp, process: str, platform: str, indent: str) -> str:
    """The IGP lines of one interface or loopback (EOS states OSPF passivity in ``router ospf``)."""
    out = []
    if igp["protocol"] == "ospf":
        if igp["point_to_point"]:
            out.append("ip ospf network point-to-point")
        out.append(f"ip ospf area {igp['area']}")
        if igp["metric"] is not None:
            out.append(f"ip ospf cost {igp['metric']}")
        if "authentication" in igp:
            out.append("ip ospf authentication" + ("" if igp["authentication"] == "simple"
                                                   else f" {igp['authentication']}"))
        if igp["passive"] and platform == "frr":
            out.append("ip ospf passive")
    else:
        out.append(f"isis enable {process}" if platform == "eos" else f"ip router isis {process}")
        if igp["level"]:
            out.append(f"isis circuit-type {igp['level'] if platform == 'eos' else FRR_LEVELS[igp['level']]}")
        if igp["metric"] is not None:
            out.append(f"isis metric {igp['metric']}")
        if igp["point_to_point"]:
            out.append("isis network point-to-point")
        if igp["passive"]:
            out.append("isis passive")
    return "".join(f"{indent}{line}\n" for line in out)


def router_block(igp: Igp, passive_ports: Iterable[str], platform: str) -> str:
    """``router ospf`` / ``router isis`` with the process's router ID, NET, level and maximum paths."""
    eos = platform == "eos"
    indent = "   " if eos else " "
    if igp["protocol"] == "ospf":
        lines = [f"router ospf {igp['process']}".rstrip()]
        if igp["router_id"]:
            lines.append(f"{indent}{'' if eos else 'ospf '}router-id {igp['router_id']}")
        if eos:
            lines += [f"{indent}passive-interface {name}" for name in passive_ports]
        if igp["maximum_paths"]:
            lines.append(f"{indent}maximum-paths {igp['maximum_paths']}")
    else:
        lines = [f"router isis {igp['process']}"]
        if igp["net"]:
            lines.append(f"{indent}net {igp['net']}")
        if igp["router_id"] and eos:
            lines.append(f"{indent}router-id ipv4 {igp['router_id']}")
        if igp["level"]:
            lines.append(f"{indent}is-type {igp['level'] if eos else FRR_LEVELS[igp['level']]}")
        if igp["maximum_paths"] and eos:
            lines += [f"{indent}address-family ipv4 unicast", f"{indent}   maximum-paths {igp['maximum_paths']}"]
    if not eos:
        lines.append("exit")
    return "!\n" + "".join(f"{line}\n" for line in lines)
