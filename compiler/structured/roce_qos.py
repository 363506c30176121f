"""Feature roce_qos: the device QoS policy and, on every fabric-facing, peer-link and server-facing port,
DSCP trust, PFC on the lossless priorities, the PFC watchdog, ECN thresholds per queue and the PFC headroom
per lossless priority group (computed from port speed, cable length and port MTU by compiler.qos_math, or the
class's fixed ``headroom_bytes`` under the static policy).
"""

from __future__ import annotations

from compiler.structured.contract import StructuredConfig

QOS_PORT_KINDS = frozenset({"fabric", "server", "peer_link"})


def apply(context, switch, config: StructuredConfig) -> None:
    fabric_qos = context.qos
    if fabric_qos is None:
        return
    config["qos"] = fabric_qos.device_policy()
    for interface in config["interfaces"]:
        if interface["kind"] in QOS_PORT_KINDS:
            interface["qos"] = fabric_qos.port_qos(interface["speed_gbps"], interface["cable_length_m"],
                                                   interface["mtu"])
