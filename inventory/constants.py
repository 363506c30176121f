"""Inventory limits and defaults (units: Gb/s, bytes, metres, rack units)."""

# Largest L2 frame/L3 MTU any supported platform accepts on a port (EOS and SONiC: 9214, FRR/Linux: 9216).
INTERFACE_MTU_MIN = 68  # RFC 791: every IPv4 module must forward a 68-byte datagram
INTERFACE_MTU_MAX = 9216
INTERFACE_MTU_DEFAULT = 9214
NIC_MTU_DEFAULT = 9000

# Port speeds a data-center switch or NIC port can run at (Gb/s), IEEE 802.3 rates.
PORT_SPEEDS_GBPS = (1, 10, 25, 40, 50, 100, 200, 400, 800, 1600)
# 0: a port whose speed no source states (an adopted config without `speed`: the platform's default runs and no
# speed line is rendered, compiler.adopt.plan.UNSTATED_SPEED_GBPS).
PORT_SPEED_UNSTATED = 0
PORT_SPEED_CHOICES = [(PORT_SPEED_UNSTATED, "not stated")] + [(speed, f"{speed}G") for speed in PORT_SPEEDS_GBPS]

RACK_HEIGHT_MAX_U = 60
BREAKOUT_LANES_MAX = 8
PLANE_MAX = 64
POD_MAX = 63  # 5-stage Clos pods (compiler.pods: 4 management /24s per pod in a /16)

# Driver names per platform slug: NAPALM has a core EOS driver only; SONiC and FRR are reached over their
# Linux shell (Netmiko "linux"), FRR through vtysh.
PLATFORM_DEFAULTS = {
    "eos": {"name": "Arista EOS", "napalm_driver": "eos", "netmiko_device_type": "arista_eos"},
    "sonic": {"name": "SONiC", "napalm_driver": "", "netmiko_device_type": "linux"},
    "frr": {"name": "FRR on Linux", "napalm_driver": "", "netmiko_device_type": "linux"},
}
