"""Lab host addressing: which address each attached server NIC port uses in its network.

Real GPU servers get their addresses from the operator's IPAM/DHCP; the twin, the containerlab export and the
static host-reachability matrix need one agreed answer, and this module is it. Addresses are taken in order
from the network's usable hosts, skipping the anycast gateway, with the attachments sorted by (server, NIC) so
the answer is deterministic. Pure Python; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network

from .errors import FieldError, IntentValidationError
from .model import Endpoint, Snapshot


@dataclass(frozen=True, slots=True)
class HostAddress:
    endpoint: Endpoint  # server NIC port
    network: str  # intent network name
    tenant: str
    vlan_id: int
    address: str  # "10.10.0.11/24"
    gateway: str | None  # anycast gateway IP, None for an L2-only network
    leaf: str  # the leaf the NIC is cabled to ("" when not cabled)
    leaf_interface: str

    @property
    def ip(self) -> str:
        return self.address.split("/", 1)[0]


def host_addresses(snapshot: Snapshot) -> list[HostAddress]:
    """Every attached NIC port with its address, sorted by network then endpoint."""
    inventory = snapshot.inventory
    result: list[HostAddress] = []
    for network in sorted(snapshot.intent.networks, key=lambda n: n.name):
        subnet = IPv4Network(network.subnet, strict=False)
        hosts = (ip for ip in subnet.hosts() if network.gateway is None or str(ip) != network.gateway)
        for endpoint in sorted(network.attachments):
            ip = next(hosts, None)
            if ip is None:
                raise IntentValidationError(FieldError(
                    f"networks[{network.name}].subnet", network.subnet,
                    f"too small for {len(network.attachments)} attached NIC ports plus the gateway",
                ))
            cable = inventory.cable_at.get(endpoint)
            peer = cable.other_end(endpoint) if cable else None
            result.append(HostAddress(
                endpoint=endpoint, network=network.name, tenant=network.tenant, vlan_id=network.vlan_id,
                address=f"{ip}/{subnet.prefixlen}", gateway=network.gateway,  # the IPv4Interface text, built cheaply
                leaf=peer.device if peer else "", leaf_interface=peer.interface if peer else "",
            ))
    return result
