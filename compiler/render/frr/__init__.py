"""FRR platform renderer: ``frr.conf`` (FRR 8.4 syntax) and ``linux-plan.json`` (what the twin applies to the
Linux kernel: names, MTUs, addresses, bridges, VXLAN devices, VRFs; plus the RoCE QoS as static-only `dcb`/`tc`
commands the twin cannot apply).

All decisions are made here in Python; ``templates/frr.conf.j2`` only prints the view built by
:func:`frr_view`. :func:`render_frr_conf` takes an ``ifname`` mapping so the SONiC renderer reuses it with
SONiC port names. Config proven on the twin (see docs/twin-notes.md): ``frr defaults datacenter``,
``no zebra nexthop kernel enable`` (FRR 8.4 kernel nexthop-group bug after link flaps), peer group with
``advertisement-interval 0`` and short connect timers, ``advertise-all-vni`` on VTEPs only.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import lru_cache
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]  # CPython's C encoder, not in typeshed
from pathlib import Path

import jinja2

from compiler.errors import RenderError
from compiler.model import Platform
from compiler.names import LINUX_IFNAME_MAX
from compiler.render import bgp_options, igp
from compiler.render.frr import repeated_blocks
from compiler.render.unset import finalize, omit_unset
from compiler.structured.contract import PortQos, Qos, StructuredConfig

FRR_VERSION = "8.4"
CONNECT_RETRY_S = 2  # fast session retry after a link flap (docs/twin-notes.md: proven config)
LINUX_SYSCTLS = {
    "net.ipv4.ip_forward": "1",
    # Hash ECMP on the L4 5-tuple so RoCE flows (UDP 4791, varying source port) spread over all uplinks.
    "net.ipv4.fib_multipath_hash_policy": "1",
    "net.ipv6.conf.all.forwarding": "1",
}

# The kernel's multipath hash key (Linux 6.11+, Documentation/networking/ip-sysctl.rst: IPv4 and IPv6 datapaths;
# unsigned 32-bit; 0 = a random internal key).
HASH_SEED_SYSCTL = "net.ipv4.fib_multipath_hash_seed"


def _hash_seed_sysctl(structured: StructuredConfig) -> dict[str, str]:
    """This switch's own ECMP hash seed, where the intent asks for distinct seeds (structured ``load_balance``)."""
    load_balance = structured.get("load_balance")
    seed = load_balance["ecmp_hash_seed"] if load_balance is not None else None
    if seed is None:
        return {}
    if not 1 <= seed <= 0xFFFFFFFF:
        raise RenderError(f"{structured['hostname']}: load_balance.ecmp_hash_seed={seed!r}: the kernel takes 1..2^32-1 "
                          "(0 means a random key)")
    return {HASH_SEED_SYSCTL: str(seed)}


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        autoescape=False, finalize=finalize,  # None prints as UNSET: the line is left out (omit_unset)
    )
    return environment.get_template("frr.conf.j2")


_ETHERNET = re.compile(r"^ethernet", re.IGNORECASE)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@lru_cache(maxsize=65536)
def linux_ifname(name: str) -> str:
    """Inventory port name -> Linux-safe name: ``Ethernet1/1`` -> ``eth1_1``; at most 15 characters."""
    candidate = _UNSAFE.sub("_", _ETHERNET.sub("eth", name))
    if len(candidate) > LINUX_IFNAME_MAX:
        candidate = "if" + hashlib.sha1(name.encode()).hexdigest()[:LINUX_IFNAME_MAX - 2]
    return candidate


def twin_ifname(name: str, platform: str) -> str:
    """A port's kernel name in the twin, which runs each switch's own config (labs.node_configs): a SONiC switch
    keeps its CONFIG_DB port names (``Ethernet0``: SONiC's kernel names, used by its frr.conf), every other
    platform gets the Linux-safe name of :func:`linux_ifname`."""
    return name if platform == Platform.SONIC else linux_ifname(name)


def _identity(name: str) -> str:
    return name


def frr_view(structured: StructuredConfig, ifname: Callable[[str], str] = _identity,
             fpm_lines: tuple[str, ...] = ()) -> dict:
    """Everything frr.conf prints, decided: names mapped, optional blocks resolved to lists/booleans. ``fpm_lines``:
    zebra's FPM lines a platform needs (SONiC: :func:`compiler.render.sonic.fpm_lines`), none on FRR/Linux."""
    bgp = structured["bgp"]
    # Thousands of ports and neighbors on a large spine: their lines are formatted in Python (repeated_blocks).
    neighbor_lines = repeated_blocks.neighbor_lines(bgp["neighbors"], ifname)
    evpn = bgp["evpn"]
    # A VLAN without a VNI (a parsed config that maps none) is local: no EVPN VNI block.
    vni_blocks = [{"vni": vlan["vni"], "rd": vlan["rd"], "import": vlan["route_targets"]["import"],
                   "export": vlan["route_targets"]["export"]} for vlan in structured["vlans"] if vlan["vni"] is not None]
    process = structured["igp"]["process"] if "igp" in structured else ""
    interface_blocks = repeated_blocks.interface_blocks(structured["interfaces"], ifname, process)
    loopback_igp = next((loopback["igp"] for loopback in structured["loopbacks"] if "igp" in loopback), None)
    if loopback_igp is not None:  # the Linux plan holds lo's addresses; zebra states its IGP
        interface_blocks += f"interface lo\n{igp.interface_lines(loopback_igp, process, 'frr', ' ')}exit\n!\n"
    return {
        "frr_version": FRR_VERSION,
        "hostname": structured["hostname"],
        "fpm_lines": list(fpm_lines),
        "vrfs": [{"name": vrf["name"], "l3vni": vrf["l3vni"]} for vrf in structured["vrfs"]],
        "interface_blocks": interface_blocks,
        "igp_block": igp.router_block(structured["igp"], (), "frr") if "igp" in structured else "",
        "bgp": {
            "asn": bgp["asn"], "router_id": bgp["router_id"], "keepalive_s": bgp["keepalive_s"],
            "hold_s": bgp["hold_s"], "maximum_paths": bgp["maximum_paths"], "allowas_in": bgp.get("allowas_in", 0),
            "peer_groups": [{"name": group["name"], "bfd": group["bfd"], "connect_retry_s": CONNECT_RETRY_S,
                             "evpn": "l2vpn_evpn" in group["address_families"],
                             # a group activated in no family at all: IPv4 unicast, bgpd's default
                             "ipv4": "ipv4_unicast" in group["address_families"] or not group["address_families"]}
                            for group in bgp["peer_groups"]],
            "group_session_lines": bgp_options.group_lines(bgp["peer_groups"], " ", family=False)
            + repeated_blocks.listen_range_lines(bgp),
            "group_family_lines": bgp_options.group_lines(bgp["peer_groups"], "  ", family=True, evpn=False),
            "group_evpn_lines": bgp_options.group_lines(bgp["peer_groups"], "  ", family=True, evpn=True),
            "evpn_family_lines": repeated_blocks.evpn_family_lines(bgp["neighbors"], ifname),
            "neighbor_lines": neighbor_lines,
            "ipv4_family_lines": repeated_blocks.ipv4_family_lines(bgp["neighbors"], ifname),
            "ipv6_family_lines": repeated_blocks.ipv6_family_lines(bgp["neighbors"]),
            "networks": bgp["networks"],
            "evpn": evpn["enabled"],
            "advertise_all_vni": evpn["advertise_all_vni"],
            "vnis": [block for block in vni_blocks if block["import"] or block["export"]],
            "vrfs": [{"name": vrf["name"], "rd": vrf["rd"], "import": vrf["route_targets"]["import"],
                      "export": vrf["route_targets"]["export"]} for vrf in bgp["vrfs"]],
            # 5-stage Clos valley-free export policy (compiler/structured/valley_free.py); empty otherwise
            "route_maps_out": [(ifname(n["interface"]) if n["address"] is None else n["address"], n["route_map_out"])
                               for n in bgp["neighbors"] if n.get("route_map_out")],
            "route_maps": bgp.get("route_maps", []),
        },
    }


def render_frr_conf(structured: StructuredConfig, ifname: Callable[[str], str] = _identity,
                    fpm_lines: tuple[str, ...] = ()) -> str:
    return omit_unset(_template().render(frr_view(structured, ifname, fpm_lines)))


def linux_plan(structured: StructuredConfig, ifname: Callable[[str], str] = linux_ifname) -> dict:
    """The kernel side of an FRR switch (docs/structured-config.md, "Linux plan"). ``ifname`` maps port names to
    kernel names: Linux-safe names by default; the twin passes SONiC's own port names for a SONiC switch, whose
    frr.conf names its ports so (labs.node_configs)."""
    vxlan = structured["vxlan"]
    host_mtu = structured["mtu"]["host"]
    links = [{"name": ifname(item["name"]), "source_name": item["name"], "mtu": item["mtu"],
              "address": item["ip"], "kind": item["kind"]}
             for item in structured["interfaces"] if item["kind"] != "unused"]
    members: dict[int, list[str]] = {}
    for item in structured["interfaces"]:
        if item["kind"] != "server":
            continue
        if item["access_vlan"] is not None:
            members.setdefault(item["access_vlan"], []).append(ifname(item["name"]))
        for vlan_id in item["trunk_vlans"]:
            # A port carrying several networks joins each bridge through an 802.1Q sub-interface.
            members.setdefault(vlan_id, []).append(f"{ifname(item['name'])}.{vlan_id}"[:LINUX_IFNAME_MAX])

    def vxlan_device(vni: int) -> dict:
        return {"name": f"vx{vni}", "vni": vni, "local": vxlan["vtep_ip"], "dstport": vxlan["udp_port"],
                "mtu": vxlan["mtu"]}

    # A VLAN without a VNI (a parsed config that maps none) is a local bridge without a VXLAN device.
    bridges = [{"name": f"br{vlan['id']}", "vlan": vlan["id"],
                "mtu": vlan["svi"]["mtu"] if vlan["svi"] else host_mtu,
                **({"vxlan": vxlan_device(vlan["vni"])} if vlan["vni"] is not None else {}),
                "members": members.get(vlan["id"], []),
                "svi": {"address": vlan["svi"]["ip"], "mac": vlan["svi"]["mac"]} if vlan["svi"] else None,
                "vrf": vlan["vrf"]} for vlan in structured["vlans"]]
    vrfs = [{"name": vrf["name"], "table": vrf["linux_table"],
             "l3vni": vrf["l3vni"],
             "bridge": {"name": f"br{vrf['transit_vlan']}", "mtu": vxlan["mtu"], "vxlan": vxlan_device(vrf["l3vni"])}}
            for vrf in structured["vrfs"]]
    plan = {
        "hostname": structured["hostname"],
        "sysctls": {**LINUX_SYSCTLS, **_hash_seed_sysctl(structured)},
        "loopback_addresses": [loopback["ip"] for loopback in structured["loopbacks"]],
        "links": links,
        "bridges": bridges,
        "vrfs": vrfs,
    }
    management = management_plan(structured)
    if management:
        plan["management"] = management
    if structured.get("qos"):
        # Two keys so plan_json prints one port per line: what applies, then the ports' commands.
        pfc_watchdog = structured["qos"].get("pfc_watchdog")
        watchdog = pfc_watchdog and pfc_watchdog["enabled"]
        plan["roce_qos"] = {"applies": ROCE_QOS_APPLIES,
                            "not_rendered": dict(ROCE_QOS_NOT_RENDERED) if watchdog else {}}
        plan["roce_qos_ports"] = roce_qos_ports(structured, ifname)
    return plan


# --- Management plane on a Linux switch ------------------------------------------------------------------------
# The out-of-band port in its own VRF (Linux l3mdev, Documentation/networking/vrf.rst), the default route in that
# VRF, and the NTP/syslog/DNS targets as the config lines of chrony, rsyslog and resolv.conf. Table 5000 is the one
# SONiC gives its mgmt VRF (sonic-buildimage files/image_config/interfaces/interfaces.j2), above every tenant table
# (VRF_TABLE_BASE + transit VLAN offset <= 2094). Without a management VRF the default route gets a metric far
# above zebra's (20 for BGP), so a default learned from the fabric still wins. The twin has no management network:
# labs/ never reads this key.
MANAGEMENT_VRF_TABLE = 5000
MANAGEMENT_DEFAULT_ROUTE_METRIC = 4096
SYSLOG_UDP_PORT = 514  # RFC 5426
MANAGEMENT_APPLIES = ("static-only: run on the switch (the services must run in the management VRF, e.g. "
                      "'ip vrf exec <vrf> chronyd'); the twin has no management network and ignores this key")
MANAGEMENT_NOT_RENDERED = {
    "aaa": "TACACS+ on Linux is PAM/NSS (libpam-tacplus, libnss-tacplus): configure it with the switch image; the "
           "shared secret stays a reference (docs/renderers.md)",
}


def management_plan(structured: StructuredConfig) -> dict | None:
    """The management plane of an FRR/Linux switch (docs/renderers.md, "FRR/Linux management"), or None."""
    management = structured.get("management")
    if not management:
        return None
    port = linux_ifname(management["interface"])
    vrf = management.get("vrf") if management.get("vrf") not in (None, "", "default") else None
    address, gateway = management.get("address"), management.get("gateway")
    commands = []
    if vrf:
        commands += [f"ip link add {vrf} type vrf table {MANAGEMENT_VRF_TABLE}", f"ip link set {vrf} up",
                     f"ip link set {port} master {vrf}"]
    if address:
        commands.append(f"ip address replace {address} dev {port}")
    commands.append(f"ip link set {port} up")
    if address and gateway:
        commands.append(f"ip route replace default via {gateway} vrf {vrf}" if vrf else
                        f"ip route replace default via {gateway} dev {port} metric {MANAGEMENT_DEFAULT_ROUTE_METRIC}")

    def syslog_target(server: str) -> str:
        return f"*.* @[{server}]:{SYSLOG_UDP_PORT}" if ":" in server else f"*.* @{server}:{SYSLOG_UDP_PORT}"

    return {
        "applies": MANAGEMENT_APPLIES,
        "interface": port, "address": address, "vrf": vrf, "table": MANAGEMENT_VRF_TABLE if vrf else None,
        "gateway": gateway,
        "commands": commands,
        "chrony": [f"server {server} iburst" for server in management.get("ntp_servers") or ()],
        "rsyslog": [syslog_target(server) for server in management.get("syslog_servers") or ()],
        "resolv_conf": [f"nameserver {server}" for server in management.get("dns_servers") or ()],
        "not_rendered": dict(MANAGEMENT_NOT_RENDERED) if management.get("aaa") else {},
    }


# --- RoCE QoS on a Linux switch -------------------------------------------------------------------------------
# A Linux switch programs QoS through DCB (dcbnl, iproute2's `dcb`) and tc; a switchdev driver offloads it to the
# ASIC. The commands follow the iproute2 man pages dcb-app(8), dcb-pfc(8), dcb-buffer(8), tc-ets(8), tc-red(8)
# and the mlxsw (NVIDIA Spectrum) driver's QoS model, the only upstream switchdev driver for our ASIC families
# (compiler.hardware.ROCE_CAPABILITIES says what each platform/family implements; validators.roce.check_platform
# reports what does not reach a device). The twin cannot apply this part: a veth has no DCB, so the plan is
# marked static-only and labs/ never reads it.
ROCE_QOS_APPLIES = ("static-only: run on the switch (DCB offload needs a switchdev driver, e.g. mlxsw on NVIDIA "
                    "Spectrum); the twin's veth ports have no DCB")
ROCE_QOS_NOT_RENDERED = {
    # Linux has no PFC watchdog (no dcbnl or tc knob; mlxsw implements none): reported by roce.platform.
    "pfc_watchdog": "Linux has no PFC watchdog interface",
}
RED_AVPKT_BYTES = 1500  # tc-red's average packet size for its burst/EWMA arithmetic (its documented example)
ETS_QUANTUM_BYTES_PER_PERCENT = 1000  # tc-ets DWRR quanta are bytes; only their ratio matters (weight percent)


def _ets_bands(policy: Qos) -> list[int]:
    """Egress queues in tc-ets band order: strict bands must come first (tc-ets(8)), highest queue first."""
    scheduling = policy["scheduling"]
    strict = sorted((int(q) for q, entry in scheduling.items() if entry["mode"] == "strict"), reverse=True)
    weighted = sorted((int(q) for q, entry in scheduling.items() if entry["mode"] != "strict"), reverse=True)
    return strict + weighted


def _device_roce_commands(policy: Qos) -> tuple[list[str], dict[str, str]]:
    """Per-device parts of the port commands: the DSCP app table, the ETS qdisc; and queue -> ETS class id."""
    tc_to_priority = policy["tc_to_priority"]
    tc_to_queue = policy["tc_to_queue"]
    # dcb-app: DSCP -> priority (our DSCP -> TC -> 802.1p priority); any DSCP entry puts the port in DSCP trust.
    dscp_prio = " ".join(f"{dscp}:{tc_to_priority[str(tc)]}" for dscp, tc in policy["dscp_to_tc"].items())
    bands = _ets_bands(policy)
    band_of_queue = {queue: index for index, queue in enumerate(bands)}
    # priomap: priority -> band of the queue its traffic class uses; unmapped priorities go with best effort.
    queue_of_priority: dict[int, int] = {}
    for tc, priority in sorted(tc_to_priority.items(), key=lambda item: int(item[0])):
        queue_of_priority.setdefault(priority, tc_to_queue[tc])
    best_effort = band_of_queue[tc_to_queue["0"]]
    priomap = " ".join(str(band_of_queue.get(queue_of_priority.get(priority, -1), best_effort))
                       for priority in range(16))
    strict_count = sum(1 for entry in policy["scheduling"].values() if entry["mode"] == "strict")
    quanta = " ".join(str(policy["scheduling"][str(queue)]["weight_percent"] * ETS_QUANTUM_BYTES_PER_PERCENT)
                      for queue in bands[strict_count:])
    ets = f"root handle 1: ets bands {len(bands)}"
    if strict_count:
        ets += f" strict {strict_count}"
    if quanta:
        ets += f" quanta {quanta}"
    ets += f" priomap {priomap}"
    commands = [f"dcb app replace dev {{port}} dscp-prio {dscp_prio}", f"tc qdisc replace dev {{port}} {ets}"]
    class_of_queue = {str(queue): f"1:{index + 1}" for queue, index in band_of_queue.items()}
    return commands, class_of_queue


def _port_roce_commands(port_qos: PortQos, class_of_queue: dict[str, str]) -> list[str]:
    """Per-port parts: PFC on the lossless priorities, their headroom buffers, RED/ECN per marked queue."""
    lossless = port_qos["pfc_priorities"]
    pfc = " ".join(["all:off", *(f"{priority}:on" for priority in lossless)])
    commands = [f"dcb pfc set dev {{port}} prio-pfc {pfc}"]
    headroom = port_qos.get("headroom") or {}
    if headroom:
        # One buffer per lossless priority, numbered like it (the priority group, compiler.structured.qos_policy);
        # unnamed buffers keep their size (dcb-buffer changes only the keys given).
        prio_buffer = " ".join(f"{priority}:{priority}" for priority in headroom)
        sizes = " ".join(f"{priority}:{entry['size_bytes']}" for priority, entry in headroom.items())
        commands.append(f"dcb buffer set dev {{port}} prio-buffer {prio_buffer} buffer-size {sizes}")
    for queue, thresholds in sorted((port_qos.get("ecn") or {}).items(), key=lambda item: int(item[0])):
        classid = class_of_queue.get(queue)
        if classid is None:
            continue
        low, high = thresholds["min_bytes"], thresholds["max_bytes"]
        probability = thresholds["probability"] / 100
        # tc-red: limit above max (bytes), probability as a fraction, `ecn` marks instead of dropping. tc derives
        # burst as (2 min + max) / (3 avpkt), which its EWMA rejects when min == max (step marking): burst must
        # exceed min / avpkt (tc_red_eval_ewma), so give the smallest burst that does. tc takes min 0 as max / 3.
        burst = (low or high // 3) // RED_AVPKT_BYTES + 1
        commands.append(f"tc qdisc replace dev {{port}} parent {classid} red limit {2 * high} min {low} max {high} "
                        f"avpkt {RED_AVPKT_BYTES} burst {burst} probability {probability:g} ecn")
    return commands


def roce_qos_ports(structured: StructuredConfig, ifname: Callable[[str], str] = linux_ifname) -> list[dict]:
    """The RoCE QoS of an FRR/Linux switch as `dcb`/`tc` commands per port (docs/renderers.md, "FRR/Linux RoCE")."""
    policy = structured["qos"]
    device_commands, class_of_queue = _device_roce_commands(policy)
    by_port_qos: dict[int, str] = {}  # ports share one qos dict per speed/cable/MTU: format its commands once
    ports = []
    for item in structured["interfaces"]:
        port_qos = item.get("qos")
        if item["kind"] == "unused" or not port_qos:
            continue
        template = by_port_qos.get(id(port_qos))
        if template is None:
            template = by_port_qos[id(port_qos)] = "\n".join(
                device_commands + _port_roce_commands(port_qos, class_of_queue))
        name = ifname(item["name"])
        ports.append({"name": name, "commands": template.replace("{port}", name).split("\n")})
    return ports


def plan_json(plan: dict) -> str:
    """JSON with one top-level key per line and one list item per line: diff-friendly, and built with the C
    encoder (``json.dumps(indent=...)`` falls back to the pure-Python encoder, 5x slower at 1,000+ switches)."""
    lines = []
    for key, value in plan.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {_compact_json(item)}" for item in value)
            lines.append(f"  {_compact_json(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {_compact_json(key)}: {_compact_json(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _not_serializable(value: object) -> None:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


# ``json.dumps(value)`` with default settings, minus its per-call setup (it builds a new C encoder every call,
# more than half the cost of a small dict). The plan is a tree, so the circular-reference check is not needed.
_C_ENCODER = c_make_encoder and c_make_encoder(None, _not_serializable, encode_basestring_ascii, None, ": ", ", ",
                                               False, False, True)


def _compact_json(value: object) -> str:
    return "".join(_C_ENCODER(value, 0)) if _C_ENCODER else json.dumps(value)


def render(structured: StructuredConfig) -> dict[str, str]:
    return {
        "frr.conf": render_frr_conf(structured, linux_ifname),
        "linux-plan.json": plan_json(linux_plan(structured)),
    }
