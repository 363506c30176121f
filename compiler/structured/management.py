"""Feature management: the out-of-band management plane of one switch, vendor-neutral.

``management: {interface, vrf, address, gateway, ntp_servers, syslog_servers, dns_servers, aaa}`` (shape in
docs/structured-config.md). The address is the inventory's ``Switch.mgmt_ip`` with the prefix length of the
intent's management network; the gateway is the intent's, or the network's last host. The interface is the
model's management port from the platform data (SONiC ``eth0``, EOS ``Management1`` / modular ``Management0``,
FRR/Linux ``eth0``). A switch without a management address gets ``address: null``: renderers then leave the
management interface to what the switch already runs (the operator's ZTP/DHCP address). AAA carries a secret
reference only, never a secret.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network

from compiler import platforms
from compiler.model import Platform
from compiler.structured.contract import StructuredConfig

LINUX_MANAGEMENT_PORT = "eth0"  # FRR/Linux switches (and SONiC, per every HWSKU's platform data)


def management_interface(model: str, platform: str) -> str:
    """The management port of ``model`` under ``platform`` (platform data; eth0 where the data has none)."""
    if model in platforms.known_models():
        data = platforms.model_platforms(model)
        if platform == Platform.EOS and data.eos is not None:
            return data.eos.management_interface
        if platform == Platform.SONIC and data.sonic is not None:
            return data.sonic.management_port
    return "Management1" if platform == Platform.EOS else LINUX_MANAGEMENT_PORT


def apply(context, switch, config: StructuredConfig) -> None:
    policy = context.intent.management
    network = IPv4Network(policy.network, strict=False)
    address = None
    if switch.mgmt_ip:
        # validate_intent checked that the address lies in the network (compiler/validate.py _check_management).
        address = f"{IPv4Address(switch.mgmt_ip.split('/')[0])}/{network.prefixlen}"
    config["management"] = {
        "interface": management_interface(switch.model, switch.platform),
        "vrf": policy.vrf,
        "address": address,
        "gateway": policy.gateway_address(),
        "ntp_servers": list(policy.ntp_servers),
        "syslog_servers": list(policy.syslog_servers),
        "dns_servers": list(policy.dns_servers),
        "aaa": ({"tacacs_servers": list(policy.aaa_servers), "secret_ref": policy.aaa_secret_ref}
                if policy.aaa_servers else None),
    }
