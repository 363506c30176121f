"""Arista EOS renderer: structured config (docs/structured-config.md) -> ``startup-config`` text.

This package owns only formatting. Every decision (which ports get PFC, which VLANs exist, ECN thresholds) is
already made in the structured config; the Python here checks that the structured config can be expressed in
EOS at all (raising :class:`compiler.errors.RenderError` naming the field otherwise) and provides small
formatting filters. The Jinja2 templates in ``templates/`` print the blocks in the order EOS itself shows them
in ``show running-config``; the blocks repeated per port and per BGP neighbor are formatted in Python
(:mod:`compiler.render.eos.repeated_blocks`: 8x faster than the Jinja loops at 1,088 switches). Syntax is that
of Arista's own generator (aristanetworks/avd ``eos_cli_config_gen``), and tests/compiler/render/test_eos_avd_oracle.py
proves it: the same settings rendered by pyavd give the same command shapes. EOS-specific vocabulary (the queue
keyword of an ASIC family, watchdog actions, speed keywords) lives here; the hardware facts behind it live in
:mod:`compiler.hardware`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

import jinja2

from compiler.errors import RenderError
from compiler.hardware import EOS_FAMILIES, AsicFamily, configures_port_headroom
from compiler.render import bgp_options, igp
from compiler.render.eos import repeated_blocks
from compiler.render.unset import finalize, omit_unset
from compiler.secret_refs import placeholder
from compiler.structured.contract import (
    Aaa,
    Bfd,
    Interface,
    NtpOptions,
    Qos,
    StructuredConfig,
    System,
    VlanInternalOrder,
)

__all__ = ["render", "eos_speed", "ECN_QUEUE_KEYWORD"]

TEMPLATE_DIR = Path(__file__).parent / "templates"

# EOS names a forced speed by rate and electrical lane count ("400g-4" = 4 x 100G lanes). The lane count is the
# interface's ``lanes`` (structured config: the cage's lanes divided by the breakout count, compiler.hardware);
# these rates have one lane only and EOS names them without a count. 1.6 Tb/s is spelled "1.6t".
SINGLE_LANE_SPEEDS_GBPS = (1, 10, 25)
# Per-lane rates of the SerDes generations (IEEE 802.3by 25G NRZ, 802.3cd 50G PAM4, 802.3ck 100G PAM4,
# 802.3dj 200G PAM4): a speed/lane pair giving another rate is not a mode any port runs.
LANE_RATES_GBPS = (10, 25, 50, 100, 200)

# The ECN/scheduling queue keyword per ASIC family (compiler.hardware.AsicFamily; Arista EOS User Manual,
# "Quality of Service": Trident/Tomahawk configure unicast queues as `uc-tx-queue N`, Jericho/Arad `tx-queue N`).
ECN_QUEUE_KEYWORD = {"strata": "uc-tx-queue", "sand": "tx-queue"}
# Families whose ingress buffer (PFC headroom) EOS configures with `platform trident mmu queue profile`; on Sand
# (VOQ) platforms the headroom is sized by the chip's ingress scheduler and there is no command for it
# (compiler.hardware.CHIP_SIZED_HEADROOM, which the headroom check reads too).
MMU_PROFILE_FAMILIES = frozenset(family for family in EOS_FAMILIES if configures_port_headroom("eos", family))
QOS_PROFILE_NAME = "FT_ROCE"
MMU_PROFILE_NAME = "FT_ROCE"

# EOS PFC watchdog actions: drop | errdisable | notify-only (Arista EOS User Manual, "priority-flow-control pause
# watchdog action"; AVD eos_cli_config_gen schema priority_flow_control.watchdog.action). The contract uses
# SONiC's words: "drop" drops the stuck queue's packets; "forward" (SONiC: ignore the storm's pause frames and keep
# sending, i.e. do not discard) has no EOS twin: notify-only is the one EOS action that discards nothing.
WATCHDOG_ACTIONS = {"drop": "drop", "forward": "notify-only"}
# EOS watchdog timers are seconds with at most 2 decimals, 0.01..60 (AVD schema: "decimal with up to 2 decimal
# point. Example: 0.01 or 60").
WATCHDOG_TIMER_MS = (10, 60_000)

# EOS permanently ties traffic class 7 to tx-queue 7 for control-plane traffic; it cannot be remapped.
EOS_CONTROL_TRAFFIC_CLASS = 7

# `qos map dscp ... to traffic-class N` takes a list of DSCP values; we print at most this many per line so each
# command stays short and readable.
DSCP_VALUES_PER_LINE = 8
# The TACACS+ server group AAA uses (`aaa group server tacacs+ FT_TACACS`), with local users as the fallback when
# no server answers (`... group FT_TACACS local`), so a TACACS+ outage never locks the operator out.
AAA_GROUP_NAME = "FT_TACACS"
# `tacacs-server host ... key 7 <key>`: the key is stored obfuscated (type 7) as EOS itself shows it; the rendered
# text carries the secret reference's marker (compiler.secret_refs) and the push driver writes the type-7 form.
TACACS_KEY_TYPE = "7"

# `vlan internal order ascending range 1006 1199`: EOS takes a VLAN for each routed port from its internal range
# (Arista EOS User Manual, "vlan internal order"; EOS's own default is 1006-4094, so the VLAN a routed port gets
# depends on the order ports came up, and a VLAN added later can find its ID taken). Pinned as Arista AVD does for
# every device (pyavd 6.4 eos_designs schema, internal_vlan_order default: ascending, 1006..1199); the end grows on a
# device with more routed ports than that range holds. A VLAN of ours inside the range is refused.
INTERNAL_VLAN_ORDER = ("ascending", 1006, 1199)
MAX_VLAN_ID = 4094  # IEEE 802.1Q


def render(structured: StructuredConfig) -> dict[str, str]:
    """Render one device's structured config as an EOS ``startup-config``."""
    try:
        _check_expressible(structured)
        qos = structured.get("qos") or {}
        watchdog_action = _watchdog_action(qos)
        profile_blocks, profile_by_port_qos = _qos_profiles(structured)
        neighbors = structured["bgp"]["neighbors"]
        text = _template().render(
            device=structured,
            management=_management(structured),
            virtual_router_mac=_virtual_router_mac(structured),
            dscp_map_lines=_dscp_map_lines(qos),
            watchdog_action=watchdog_action,
            qos_profiles=profile_blocks,
            mmu_profile=_mmu_profile(structured),
            port_channel_interfaces=repeated_blocks.port_channel_interfaces(structured.get("port_channels") or [],
                                                                            profile_by_port_qos),
            ethernet_interfaces=repeated_blocks.ethernet_interfaces(
                structured["interfaces"], profile_by_port_qos, eos_speed,
                {bundle["name"]: bundle["mtu"] for bundle in structured.get("port_channels") or []},
                {bundle["name"]: bundle["qos"] for bundle in structured.get("port_channels") or []},
                _igp_process(structured)),
            mlag=structured.get("mlag") or None,
            system_lines=_system_lines(structured.get("system") or None),
            load_balance_lines=_load_balance_lines(structured),
            bfd_block=_bfd_block(structured.get("bfd") or None),
            vlan_internal_order=_vlan_internal_order(structured),
            spanning_tree=_spanning_tree(structured),
            loopback_igp={loopback["name"]: igp.interface_lines(loopback["igp"], _igp_process(structured), "eos", "   ")
                          for loopback in structured["loopbacks"] if "igp" in loopback},
            igp_block=igp.router_block(structured["igp"], [
                port["name"] for port in [*structured["interfaces"], *structured["loopbacks"]]
                if port.get("igp", {}).get("passive") and port["igp"]["protocol"] == "ospf"], "eos")
            if "igp" in structured else "",
            bgp_neighbor_lines=repeated_blocks.bgp_neighbor_lines(neighbors),
            group_option_lines=bgp_options.group_lines(structured["bgp"]["peer_groups"], "   ", family=False)
            + bgp_options.group_lines(structured["bgp"]["peer_groups"], "   ", family=True),
            standalone_neighbors=[neighbor for neighbor in neighbors if not neighbor["peer_group"]
                                  and neighbor["address"] is not None],
            # Parsed foreign configs only (the compiler builds no IPv6 address family).
            ipv6_peers=[group["name"] for group in structured["bgp"]["peer_groups"]
                        if "ipv6_unicast" in group["address_families"]] + [
                neighbor["address"] for neighbor in neighbors if not neighbor["peer_group"]
                and neighbor["address"] is not None and "ipv6_unicast" in neighbor["address_families"]],
            route_map_neighbors=[neighbor for neighbor in neighbors if neighbor.get("route_map_out")],
        )
    except KeyError as error:
        # A field the contract promises is missing; say which instead of printing nothing.
        raise RenderError(
            f"{structured.get('hostname', '?')}: structured config does not match docs/structured-config.md: "
            f"missing field {error.args[0]!r}"
        ) from error
    except (jinja2.UndefinedError, TypeError) as error:
        # StrictUndefined in the templates: same meaning as the KeyError above.
        raise RenderError(
            f"{structured.get('hostname', '?')}: structured config does not match docs/structured-config.md: {error}"
        ) from error
    return {"startup-config": omit_unset(text)}


def eos_speed(interface: Interface) -> str:
    """EOS ``speed`` argument for an interface: rate and lane count, e.g. 400 Gb/s over 4 lanes -> ``400g-4``."""
    speed_gbps = interface["speed_gbps"]
    if speed_gbps in SINGLE_LANE_SPEEDS_GBPS:
        return f"{speed_gbps}g"
    lanes = interface.get("lanes")
    if lanes is None and interface.get("speed_default_lanes") and speed_gbps < 1600:
        # A foreign config's rate without a lane count: the cage's default lane mode, as the device stated it.
        return f"forced {speed_gbps}gfull"
    field = f"interfaces[{interface['name']}]"
    if not isinstance(lanes, int) or isinstance(lanes, bool) or lanes < 1:
        raise RenderError(f"{field}.lanes={lanes!r}: EOS names {speed_gbps}G by its lane count; the switch model's "
                          "port cage must be known (compiler.hardware.LANES_PER_CAGE)")
    if speed_gbps % lanes or speed_gbps // lanes not in LANE_RATES_GBPS:
        raise RenderError(f"{field}.speed_gbps={speed_gbps!r}: no EOS speed keyword for this rate over {lanes} "
                          f"lane(s) (lane rates {', '.join(f'{rate}G' for rate in LANE_RATES_GBPS)})")
    rate = "1.6t" if speed_gbps == 1600 else f"{speed_gbps}g"
    return f"{rate}-{lanes}"


def _seconds(milliseconds: int | None) -> str | None:
    """EOS watchdog timers are in seconds with 2 decimals: 200 -> ``0.20`` (validated by _watchdog_action)."""
    return None if milliseconds is None else f"{milliseconds / 1000:.2f}"


def _system_lines(system: System | None) -> str:
    """Device-wide settings read from foreign configs (compiler.parse.eos_system), one line each; agent daemons
    as blocks."""
    if not system:
        return ""
    lines = []
    if system.get("aaa_root") is False:
        lines.append("no aaa root")
    if system.get("enable_password") is False:
        lines.append("no enable password")
    if system.get("transceiver_qsfp_default_mode"):
        lines.append(f"transceiver qsfp default-mode {system['transceiver_qsfp_default_mode']}")
    if system.get("snmp_location"):
        lines.append(f"snmp-server location {system['snmp_location']}")
    if system.get("snmp_contact"):
        lines.append(f"snmp-server contact {system['snmp_contact']}")
    monitor = system.get("queue_monitor_length")
    if monitor:
        lines.append("queue-monitor length")
        if monitor.get("log_interval_s") is not None:
            lines.append(f"queue-monitor length log {monitor['log_interval_s']}")
        if monitor.get("notifying"):
            lines.append("queue-monitor length notifying")
    for group, serdes in (system.get("speed_groups") or {}).items():
        lines.append(f"hardware speed-group {group} serdes {serdes}")
    if system.get("sand_lag_hardware_only"):
        lines.append("platform sand lag hardware-only")
    if system.get("tcam_profile"):
        lines += ["!", "hardware tcam", f"   system profile {system['tcam_profile']}"]
    for daemon in system.get("daemons") or []:
        lines += ["!", f"daemon {daemon['name']}"]
        if daemon.get("exec"):
            lines.append(f"   exec {daemon['exec']}")
        lines.append("   no shutdown" if daemon.get("enabled") else "   shutdown")
    return "".join(f"{line}\n" for line in lines)


def _bfd_block(bfd: Bfd | None) -> str:
    """``router bfd`` timers (RFC 5880 section 6.8.1; multihop RFC 5883) from a foreign config."""
    if not bfd:
        return ""
    lines = ["!", "router bfd"]
    for timers, prefix in ((bfd["single_hop"], ""), (bfd["multihop"], "multihop ")):
        if timers:
            lines.append(f"   {prefix}interval {timers['interval_ms']} min-rx {timers['min_rx_ms']} "
                         f"multiplier {timers['multiplier']}")
    return "".join(f"{line}\n" for line in lines)


def vlan_ranges(vlan_ids) -> str:
    """``[10, 11, 12, 20]`` -> ``10-12,20``: a VLAN list as EOS prints it (consecutive IDs as a range)."""
    runs: list[list[int]] = []
    for vlan_id in sorted(set(vlan_ids)):
        if runs and vlan_id == runs[-1][1] + 1:
            runs[-1][1] = vlan_id
        else:
            runs.append([vlan_id, vlan_id])
    return ",".join(f"{low}-{high}" if high > low else str(low) for low, high in runs)


@cache
def _template() -> jinja2.Template:
    """One Jinja2 environment per process: templates are parsed and compiled once, then reused for every device."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        auto_reload=False,  # templates do not change while a process runs; skip a stat() per include per device
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=finalize,  # None prints as UNSET: the line is left out (omit_unset)
    )
    environment.filters["seconds"] = _seconds
    environment.filters["by_int_key"] = lambda mapping: sorted(mapping.items(), key=lambda item: int(item[0]))
    environment.filters["vlan_ranges"] = vlan_ranges
    return environment.get_template("startup-config.j2")


def _igp_process(structured: StructuredConfig) -> str:
    return structured["igp"]["process"] if "igp" in structured else ""


def _check_expressible(structured: StructuredConfig) -> None:
    """Raise RenderError for structured configs EOS cannot express, naming the field and value."""
    hostname = structured.get("hostname", "?")
    for neighbor in structured["bgp"].get("neighbors", []):
        if neighbor.get("address") is None and not neighbor.get("peer_group"):
            # EOS states an unnumbered (RFC 5549) neighbor as `neighbor interface X peer-group G` (EOS 4.24+):
            # one outside every peer group has no EOS form. Intents build unnumbered underlays for FRR and SONiC
            # only (compiler.model.Underlay); parsed EOS configs carry them with their peer group.
            raise RenderError(
                f"{hostname}: bgp.neighbors[{neighbor.get('interface')}].address=None: unnumbered BGP "
                f"(peer {neighbor.get('peer_device')}) outside a peer group is not supported by the EOS renderer "
                "(EOS: neighbor interface X peer-group G)"
            )
    qos = structured.get("qos") or {}
    queue_of_control_class = (qos.get("tc_to_queue") or {}).get(str(EOS_CONTROL_TRAFFIC_CLASS))
    if queue_of_control_class is not None and int(queue_of_control_class) != EOS_CONTROL_TRAFFIC_CLASS:
        raise RenderError(
            f"{hostname}: qos.tc_to_queue[7]={queue_of_control_class!r}: EOS ties traffic class 7 to tx-queue 7"
        )
    if qos:
        # EOS pauses per traffic class (validate_intent: a lossless class's priority is its traffic class).
        lossless_classes = sorted({int(entry["traffic_class"]) for entry in qos["classes"] if entry["lossless"]})
        if sorted(int(priority) for priority in qos["lossless_priorities"]) != lossless_classes:
            raise RenderError(
                f"{hostname}: qos.lossless_priorities={qos['lossless_priorities']!r}: EOS makes the traffic class "
                f"lossless, and the lossless classes' DSCPs land on traffic classes {lossless_classes}"
            )
    load_balance = structured.get("load_balance")
    family = (structured.get("hardware") or {}).get("asic_family")
    if load_balance is not None and load_balance["ecmp_hash_function"] is not None:
        raise RenderError(f"{hostname}: load_balance.ecmp_hash_function={load_balance['ecmp_hash_function']!r}: "
                          "pyavd's eos_cli_config_gen has no ECMP hash-function field (compiler.hardware."
                          "HASHING_CAPABILITIES)")
    if load_balance is not None and load_balance["ecmp_hash_seed"] is not None:
        raise RenderError(f"{hostname}: load_balance.ecmp_hash_seed={load_balance['ecmp_hash_seed']!r}: pyavd's "
                          "eos_cli_config_gen has no ECMP hash-seed field (compiler.hardware.HASHING_CAPABILITIES)")
    if load_balance is not None and load_balance["udp_payload_hash"] is not None and family != AsicFamily.SAND:
        raise RenderError(f"{hostname}: load_balance.udp_payload_hash on ASIC family {family!r}: EOS hashes UDP "
                          "payload bytes in a sand load-balance profile, Jericho (StrataDNX) only")
    management = structured.get("management") or {}
    tenant_vrfs = {vrf["name"] for vrf in structured["vrfs"]}
    if management.get("vrf") in tenant_vrfs:
        raise RenderError(f"{hostname}: management.vrf={management['vrf']!r}: also a tenant VRF on this switch")


# The sand load-balance profile we write. EOS 4.33.1F+ (pyavd load_balance.policies.sand_profiles, Arista TOI "UDP
# payload hashing"); pyavd has no field that selects a profile, so we edit the one named "default" -- assumed to be
# the profile in effect when none is selected; not verified on a switch (docs/renderers.md).
SAND_LOAD_BALANCE_PROFILE = "default"


def _load_balance_lines(structured: StructuredConfig) -> list[str]:
    """`load-balance policies`: hash the UDP payload bytes of one destination port (the RoCE BTH destination QP)."""
    load_balance = structured.get("load_balance")
    udp = load_balance["udp_payload_hash"] if load_balance is not None else None
    if udp is None:
        return []
    return ["load-balance policies", f"   load-balance sand profile {SAND_LOAD_BALANCE_PROFILE}",
            f"      fields udp dst-port {udp['dst_port']}", f"         payload bytes {udp['payload_bytes']}"]


def _family_keyword(structured: StructuredConfig) -> str:
    hardware = structured.get("hardware") or {}
    family = hardware.get("asic_family")
    if family not in ECN_QUEUE_KEYWORD:
        raise RenderError(
            f"{structured.get('hostname', '?')}: hardware.asic_family={family!r} (model {hardware.get('model')!r}, "
            f"ASIC {hardware.get('asic')!r}): EOS RoCE queues are known for ASIC families {sorted(ECN_QUEUE_KEYWORD)} "
            "(compiler.hardware.ASIC_FAMILIES)"
        )
    return ECN_QUEUE_KEYWORD[family]


def _qos_profiles(structured: StructuredConfig) -> tuple[list[tuple[str, str]], dict[int, str]]:
    """([(name, body lines)], {id(port QoS dict): profile name}): one ``qos profile`` per distinct port QoS policy: DSCP trust, PFC on the lossless
    traffic classes, the PFC watchdog, and per egress queue its scheduling and ECN thresholds.

    Ports share a profile (``service-profile``) instead of repeating ~12 lines each; ports whose QoS differs only
    in PFC headroom share one, since headroom is an ingress-buffer setting (:func:`_mmu_profile`).
    """
    qos = structured.get("qos") or {}
    # ports and bundles (a bundle's QoS is its own service-profile: repeated_blocks.port_channel_interfaces)
    port_qos_dicts = {id(port["qos"]): port["qos"]
                      for port in [*structured["interfaces"], *(structured.get("port_channels") or [])] if port["qos"]}
    if not port_qos_dicts:
        return [], {}
    keyword = _family_keyword(structured)
    watchdog = qos.get("pfc_watchdog")
    watchdog_enabled = bool(watchdog and watchdog["enabled"])
    scheduling = qos.get("scheduling") or {}
    _check_scheduling(structured["hostname"], scheduling)
    bodies: dict[str, list] = {}
    for port_qos in port_qos_dicts.values():
        body = repeated_blocks.qos_profile_lines(port_qos, scheduling, keyword, watchdog_enabled)
        bodies.setdefault(body, []).append(port_qos)
    blocks: list[tuple[str, str]] = []
    name_by_port_qos: dict[int, str] = {}
    for index, (body, users) in enumerate(bodies.items(), start=1):
        name = QOS_PROFILE_NAME if len(bodies) == 1 else f"{QOS_PROFILE_NAME}_{index}"
        blocks.append((name, body))
        name_by_port_qos.update((id(port_qos), name) for port_qos in users)
    return blocks, name_by_port_qos


def _check_scheduling(hostname: str, scheduling: dict) -> None:
    """EOS serves strict-priority queues before round-robin ones, and a strict queue must be numbered above every
    round-robin queue (`no priority` on queue N makes queues 0..N round-robin)."""
    strict = [int(queue) for queue, entry in scheduling.items() if entry["mode"] == "strict"]
    weighted = [int(queue) for queue, entry in scheduling.items() if entry["mode"] == "dwrr"]
    unknown = [queue for queue, entry in scheduling.items() if entry["mode"] not in ("strict", "dwrr")]
    if unknown:
        raise RenderError(f"{hostname}: qos.scheduling[{unknown[0]}].mode={scheduling[unknown[0]]['mode']!r}: "
                          "EOS takes strict or dwrr")
    if strict and weighted and min(strict) < max(weighted):
        raise RenderError(f"{hostname}: qos.scheduling[{min(strict)}].mode='strict': EOS needs strict-priority "
                          f"queues above every weighted queue, and queue {max(weighted)} is weighted")
    total = sum(int(scheduling[str(queue)]["weight_percent"]) for queue in weighted)
    if total > 100:
        raise RenderError(f"{hostname}: qos.scheduling weights sum to {total}%: EOS bandwidth percents cannot "
                          "exceed 100")


def _mmu_profile(structured: StructuredConfig) -> dict | None:
    """The Strata ingress-buffer profile reserving PFC headroom, or None (no lossless port, or a Sand platform).

    EOS applies one MMU queue profile to the whole switch, so it reserves the largest headroom any port needs:
    per port, the XOFF headroom (compiler.qos_math) summed over its lossless priority groups.
    """
    qos = structured.get("qos") or {}
    family = (structured.get("hardware") or {}).get("asic_family")
    if not qos.get("lossless_priorities") or family not in MMU_PROFILE_FAMILIES:
        return None
    # Ports share QoS dicts (compiler.structured.qos_policy): sum each distinct dict's headroom once.
    distinct = {id(i["qos"]): i["qos"] for i in structured["interfaces"] if i["qos"] and i["qos"].get("headroom")}
    headroom_bytes = max(
        (sum(int(group["xoff_bytes"]) for group in port_qos["headroom"].values()) for port_qos in distinct.values()),
        default=0,
    )
    if not headroom_bytes:
        return None
    return {"name": MMU_PROFILE_NAME, "headroom_bytes": headroom_bytes}


def _management(structured: StructuredConfig) -> dict | None:
    """The management plane (docs/structured-config.md ``management``), or None when the structured config has none.

    Management1 sits in the management VRF with the default route there; eAPI (`management api http-commands`,
    HTTPS) listens in that VRF; NTP, syslog and DNS are reached through it.
    """
    management = structured.get("management") or {}
    if not management:
        return None
    hostname = structured.get("hostname", "?")
    # Without an address (a parsed config with none, or DHCP) the `ip address` line is left out (compiler.render.unset)
    # and the switch keeps the address it booted with, as the SONiC renderer does.
    if not management.get("interface"):
        raise RenderError(f"{hostname}: management.interface={management.get('interface')!r}: required to reach the "
                          "switch's management plane")
    vrf = management.get("vrf") or None
    if vrf == "default":
        vrf = None
    return {
        "interface": management["interface"], "vrf": vrf, "address": management["address"],
        "gateway": management.get("gateway"),
        "ntp_servers": [server + _ntp_options((management.get("ntp_options") or {}).get(server))
                        for server in management.get("ntp_servers") or ()],
        "syslog_servers": list(management.get("syslog_servers") or ()),
        "dns_servers": list(management.get("dns_servers") or ()),
        "aaa": _aaa(hostname, management.get("aaa")),
    }


def _ntp_options(options: NtpOptions | None) -> str:
    """`` iburst`` (the compiler's form), or the options a foreign config stated (``ntp_options``)."""
    if options is None:
        return " iburst"
    return (" iburst" if options["iburst"] else "") + (" prefer" if options["prefer"] else "")


def _aaa(hostname: str, aaa: Aaa | None) -> dict | None:
    """TACACS+ servers in the management VRF, a server group, login and exec authorisation through it with local
    users as fallback, sourced from the management interface. The key is the secret reference's marker."""
    if not aaa:
        return None
    if not aaa.get("tacacs_servers"):
        raise RenderError(f"{hostname}: management.aaa.tacacs_servers={aaa.get('tacacs_servers')!r}: AAA needs at "
                          "least one TACACS+ server")
    try:
        key = placeholder(aaa.get("secret_ref") or "")
    except ValueError as exc:
        raise RenderError(f"{hostname}: management.aaa.secret_ref={aaa.get('secret_ref')!r}: {exc}") from None
    return {"servers": list(aaa["tacacs_servers"]), "key_type": TACACS_KEY_TYPE, "key": key,
            "group": AAA_GROUP_NAME}


def _virtual_router_mac(structured: StructuredConfig) -> str | None:
    """EOS has one fabric-wide anycast gateway MAC (``ip virtual-router mac-address``); all SVIs must agree."""
    macs = {svi["mac"].lower(): vlan["id"] for vlan in structured["vlans"] if (svi := vlan["svi"]) and svi["mac"]}
    if len(macs) > 1:
        listing = ", ".join(f"vlan {vlan_id}: {mac}" for mac, vlan_id in sorted(macs.items()))
        raise RenderError(
            f"{structured['hostname']}: vlans[].svi.mac differ ({listing}); EOS supports a single "
            "ip virtual-router mac-address per device"
        )
    return next(iter(macs), None)


def _vlan_internal_order(structured: StructuredConfig) -> VlanInternalOrder | None:
    """The pinned internal VLAN range (:data:`INTERNAL_VLAN_ORDER`), long enough for every routed port; a parsed
    EOS config (``system``) keeps the range it states, or none (EOS's default), whatever its VLANs."""
    system = structured.get("system")
    if system is not None:
        return system.get("vlan_internal_order")
    allocation, beginning, ending = INTERNAL_VLAN_ORDER
    # the ports repeated_blocks prints with `no switchport`: neither unused, nor a bundle member, nor a Layer-2 port
    routed = sum(1 for interface in structured["interfaces"]
                 if interface["kind"] != "unused" and not interface.get("port_channel") and not (
                     interface["kind"] == "server" and (interface["access_vlan"] or interface["trunk_vlans"]
                                                        or interface.get("switchport_mode"))))
    routed += sum(1 for bundle in structured.get("port_channels") or [] if bundle["ip"])
    ending = max(ending, beginning + routed - 1)
    hostname = structured.get("hostname", "?")
    if ending > MAX_VLAN_ID:
        raise RenderError(f"{hostname}: {routed} routed ports need internal VLANs {beginning}..{ending}, beyond "
                          f"VLAN {MAX_VLAN_ID}")
    for vlan in structured["vlans"]:
        if beginning <= vlan["id"] <= ending:
            raise RenderError(f"{hostname}: vlans[{vlan['id']}].id={vlan['id']}: inside EOS's internal VLAN range "
                              f"{beginning}..{ending} (vlan internal order, pinned as AVD does): use another VLAN ID")
    return {"allocation": allocation, "beginning": beginning, "ending": ending}


def _spanning_tree(structured: StructuredConfig) -> list[str]:
    """Global spanning-tree lines (Arista EOS User Manual, "Spanning Tree Protocol"): the mode, VLANs with STP
    off, then bridge priorities (per MST instance in mstp mode, per VLAN otherwise)."""
    stp = structured.get("spanning_tree") or {}
    if not stp:
        return []
    lines = [f"spanning-tree mode {stp['mode']}"] if stp["mode"] else []
    if stp["disabled_vlans"]:
        lines.append(f"no spanning-tree vlan-id {repeated_blocks.vlan_list(stp['disabled_vlans'])}")
    scope = "mst" if stp["mode"] == "mstp" else "vlan-id"
    lines += [f"spanning-tree {scope} {key} priority {priority}"
              for key, priority in sorted(stp["priorities"].items(), key=lambda item: int(item[0]))]
    return lines


def _dscp_map_lines(qos: Qos) -> list[tuple[str, int]]:
    """(``"24 26"``, traffic_class) pairs covering all 64 DSCPs: the contract maps unlisted DSCPs to class 0.

    EOS's own default map is not "everything to 0" (DSCP 0-7 go to traffic class 1), so every value is written.
    """
    if not qos:
        return []
    classes: dict[int, list[int]] = {}
    dscp_to_tc = {int(dscp): int(tc) for dscp, tc in qos["dscp_to_tc"].items()}
    for dscp in range(64):
        classes.setdefault(dscp_to_tc.get(dscp, 0), []).append(dscp)
    lines = []
    for traffic_class in sorted(classes):
        values = classes[traffic_class]
        for start in range(0, len(values), DSCP_VALUES_PER_LINE):
            chunk = values[start : start + DSCP_VALUES_PER_LINE]
            lines.append((" ".join(str(value) for value in chunk), traffic_class))
    return lines


def _watchdog_action(qos: Qos) -> str | None:
    watchdog: Mapping[str, object] = qos.get("pfc_watchdog") or {}
    if not watchdog.get("enabled"):
        return None
    action = watchdog.get("action")
    if action not in WATCHDOG_ACTIONS:
        raise RenderError(
            f"qos.pfc_watchdog.action={action!r}: EOS supports {sorted(WATCHDOG_ACTIONS)} "
            "(drop, or forward as EOS notify-only)"
        )
    low, high = WATCHDOG_TIMER_MS
    for field in ("detect_ms", "restore_ms"):
        value = watchdog.get(field)
        # None: a parsed config without the line; it is left out (compiler.render.unset), the default applies.
        if value is not None and (not isinstance(value, int) or not low <= value <= high or value % 10):
            raise RenderError(f"qos.pfc_watchdog.{field}={value!r}: EOS takes {low / 1000:.2f}..{high // 1000} s "
                              "in steps of 0.01 s (a multiple of 10 ms)")
    return WATCHDOG_ACTIONS[action]
