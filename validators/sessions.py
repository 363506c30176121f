"""BGP sessions as configured: pair every neighbor statement with its mirror on the peer and decide which
sessions would establish.

A numbered session needs: the local interface up with an address, the neighbor address in the same subnet,
a device that owns that address on the cabled peer port, a neighbor statement on that device pointing back at
our address, each side's ``remote_as`` equal to the other's ASN, both interfaces enabled and a common IPv4
unicast address family (IPv4, or IPv6 on IPv6 sessions). Unnumbered sessions (RFC 5549) pair on the cable
instead of addresses; IPv6 neighbors pair on the ports' ``ipv6`` addresses. Tenant VRF neighbors pair the same way
within their VRF only (:func:`_vrf_sessions`). A neighbor ``shutdown`` on either end
keeps the session down on purpose (a warning, RFC 4486); ``local_as`` is the AS a neighbor presents to its peer
(RFC 7705); a route map or prefix list a neighbor names that the config does not define is an error citing the
line (the parser lists what a config defines in ``bgp.policies_defined``). Timer and BFD
differences do not stop a session from establishing (hold time is negotiated down, RFC 4271 4.2) and are
reported separately by :mod:`validators.bgp`.

``build_sessions`` is O(neighbors) with integer address arithmetic so it runs on 65,536-link fabrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv6Address, IPv6Interface, ip_address, ip_interface, ip_network

from compiler.structured.contract import Neighbor, StructuredConfig
from validators.common import host_of, ip_to_int
from validators.findings import Finding, Severity
from validators.igp import build_igp
from validators.subjects import Subject

CHECK = "bgp.sessions"
IPV4_UNICAST = "ipv4_unicast"
IPV6_UNICAST = "ipv6_unicast"


@dataclass(frozen=True, slots=True)
class Session:
    """One established (or establishable) session, stored once with ``a`` < ``b`` by (device, interface)."""

    a: str
    a_interface: str
    b: str
    b_interface: str

    def __str__(self) -> str:
        return str(Subject.link(self.a, self.a_interface, self.b, self.b_interface))


@dataclass
class SessionTable:
    established: list[Session] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # sessions that cannot establish, with the reason
    neighbor_count: int = 0
    # (device, neighbor address, remote AS) of neighbors whose address no device of the set owns: peers outside
    # the fabric (or outside the configs given), reported by bgp.sessions and never judged as sessions here.
    external: list[tuple[str, str, object]] = field(default_factory=list)
    loopback_sessions: list[Session] = field(default_factory=list)  # iBGP/EVPN overlay sessions between loopbacks
    # Tenant VRF sessions (bgp.vrfs[].neighbors, foreign configs: the MLAG pair's per-VRF iBGP over a peer SVI, a
    # border leaf's VRF peering): paired within their VRF by _vrf_sessions; (VRF, session).
    vrf_neighbor_count: int = 0
    vrf_established: list[tuple[str, Session]] = field(default_factory=list)
    # (device, VRF, neighbor address or "interface X", remote AS) of VRF neighbors outside the set, as ``external``
    vrf_external: list[tuple[str, str, str, object]] = field(default_factory=list)


def _remote_as_ok(remote_as, local_asn, peer_asn) -> bool:
    if remote_as == "external":
        return peer_asn != local_asn
    if remote_as == "internal":
        return peer_asn == local_asn
    return remote_as == peer_asn


def _layer3_virtual_ports(config: StructuredConfig) -> list[dict]:
    """SVIs with their own address in the default VRF and routed port-channels, as ports sessions can run on:
    the MLAG peers' iBGP session runs over the peer SVI (AVD: Vlan4093), a routed uplink over a bundle. No cable:
    the peer is whoever owns the neighbor address (the session pairs by subnet)."""
    ports: list[dict] = []
    for vlan in config["vlans"]:
        svi = vlan["svi"]
        address = svi.get("address") if svi else None
        if address and vlan["vrf"] is None:
            ports.append({"name": f"Vlan{vlan['id']}", "ip": address, "kind": "svi", "enabled": True,
                          "peer_device": None, "peer_interface": None})
    for bundle in config.get("port_channels") or []:
        if bundle["ip"]:
            ports.append({"name": bundle["name"], "ip": bundle["ip"], "kind": "port_channel",
                          "enabled": bundle["enabled"], "peer_device": None, "peer_interface": None})
    return ports


def _shared_svi_owner(structured, host: str, neighbor: Neighbor, local_bare: str, owners: list[tuple[str, str]],
                      by_address: dict, default: tuple[str, str] | None) -> tuple[str, str] | None:
    """Of the devices owning one reused SVI address, the one that peers back with us: first one in the AS our
    neighbor statement expects, else any."""
    back = [key for key in owners if key[0] != host and (key[0], local_bare) in by_address]
    in_as = [key for key in back if structured[key[0]]["bgp"].get("asn") == neighbor["remote_as"]]
    return (in_as or back)[0] if back else default


def build_sessions(structured: Mapping[str, StructuredConfig]) -> SessionTable:
    table = SessionTable()
    findings = table.findings
    interfaces: dict[tuple[str, str], Mapping] = {}  # switch-facing or addressed ports (and SVIs, bundles)
    address_owner: dict[int, tuple[str, str]] = {}  # interface address -> (device, interface)
    # Peer SVI subnets reused by every MLAG pair (AVD L2LS: 192.168.0.0/31 on each pair's Vlan4094, routed nowhere).
    shared_svi: dict[int, list[tuple[str, str]]] = {}
    parsed: dict[tuple[str, str], tuple[int, int, str]] = {}  # port -> (address, prefix length, bare address)
    v6_ports: dict[tuple[str, str], IPv6Interface] = {}  # port -> its IPv6 address (foreign configs)
    v6_owner: dict[object, tuple[str, str]] = {}
    for host, config in structured.items():
        for interface in (*config["interfaces"], *_layer3_virtual_ports(config)):
            if interface.get("vrf") not in (None, "default"):
                continue  # a tenant VRF's port: the fabric sessions judged here are the default VRF's
            ip = interface["ip"]
            if ip or interface["kind"] in ("fabric", "peer_link"):
                key = (host, interface["name"])
                interfaces[key] = interface
                if ip:
                    bare, _, length = ip.partition("/")
                    own_address = ip_to_int(bare)
                    parsed[key] = (own_address, int(length) if length else 32, bare)
                    if own_address in address_owner and interface["kind"] == "svi":
                        shared_svi.setdefault(own_address, [address_owner[own_address]]).append(key)
                    address_owner[own_address] = key
            if interface.get("ipv6"):
                v6_key = (host, interface["name"])
                interfaces[v6_key] = interface
                v6_ports[v6_key] = IPv6Interface(interface["ipv6"])
                v6_owner[v6_ports[v6_key].ip] = v6_key
    owned = {host_of(loopback["ip"]) for config in structured.values() for loopback in config["loopbacks"]
             if loopback.get("ip")}
    owned.update(address for _int, _length, address in parsed.values())
    owned.update(str(port.ip) for port in v6_ports.values())
    by_address: dict[tuple[str, str], Neighbor] = {}  # (device, neighbor address) -> neighbor
    by_interface: dict[tuple[str, str], Neighbor] = {}  # (device, local interface) -> unnumbered neighbor
    for host, config in structured.items():
        for neighbor in config["bgp"]["neighbors"]:
            table.neighbor_count += 1
            if neighbor["address"]:
                by_address[(host, neighbor["address"])] = neighbor
            elif neighbor["interface"]:
                by_interface[(host, neighbor["interface"])] = neighbor

    def error(subject: str, expected, actual, message: str) -> None:
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=subject, expected=expected, actual=actual, message=message))

    findings.extend(_undefined_policies(structured))
    findings.extend(_overlay_remote_as(structured))
    _loopback_sessions(structured, table)
    _vrf_sessions(structured, table)
    established = table.established
    verified_mirrors: set[int] = set()  # neighbor statements already judged from the other end
    for host, config in structured.items():
        bgp = config["bgp"]
        local_asn = bgp.get("asn") if bgp.get("asn") is not None else config.get("asn")
        for neighbor in bgp["neighbors"]:
            if id(neighbor) in verified_mirrors or (neighbor.get("update_source") and neighbor["address"]):
                continue  # judged from the other end already, or a loopback session (_loopback_sessions)
            if neighbor["remote_as"] is None:
                # No remote-as on the neighbor nor its peer group: EOS and FRR never start the session ("neighbor
                # X remote-as" is what creates a BGP peer, RFC 4271 8: the peer AS is part of the configuration).
                target = neighbor["address"] or neighbor["interface"]
                error(f"{host}:neighbor {target}", "a remote AS", None,
                      f"{host}: BGP neighbor {target} states no remote-as (nor does its peer group "
                      f"{neighbor.get('peer_group') or '-'}): the session is never started")
                continue
            neighbor_port = interfaces.get((host, neighbor["interface"] or ""))
            cabled_to = neighbor_port["peer_device"] if neighbor_port is not None else None
            if neighbor["address"] and neighbor["address"] not in owned and (cabled_to is None or
                                                                              cabled_to not in structured):
                # Nobody here owns the address and the port is not cabled to a device of the set: a peer outside
                # it. (On a port cabled to one of ours, an unowned address is a wrong address: judged below.)
                table.external.append((host, neighbor["address"], neighbor.get("remote_as")))
                continue
            local_name = neighbor["interface"]
            local_key = (host, local_name)
            local = interfaces.get(local_key) if local_name else None
            if local is None and neighbor["address"] is None and local_name and (
                    mlag_peer := _mlag_peer(structured, host)) and (mlag_peer, local_name) in by_interface:
                # RFC 5549 between the MLAG peers over their peer SVI (AVD: neighbor interface Vlan4093): the
                # peer-link is the cable, the MLAG peer the other end.
                svi_mirror = by_interface[(mlag_peer, local_name)]
                peer_asn = structured[mlag_peer]["bgp"].get("asn")
                link = f"{host}:{local_name}<->{mlag_peer}:{local_name}"
                if not _remote_as_ok(neighbor["remote_as"], neighbor.get("local_as", local_asn),
                                     svi_mirror.get("local_as", peer_asn)):
                    error(link, peer_asn, neighbor["remote_as"], f"session down: {host} expects {mlag_peer} in AS "
                          f"{neighbor['remote_as']} but {mlag_peer} is AS {svi_mirror.get('local_as', peer_asn)}")
                elif host < mlag_peer:
                    established.append(Session(host, local_name, mlag_peer, local_name))
                continue
            if local is None:
                subject = f"{host}:{local_name}" if local_name else f"{host}:neighbor {neighbor.get('address')}"
                error(subject, "an existing local interface", local_name,
                      f"{host}: BGP neighbor {neighbor.get('address') or local_name} is on no configured interface")
                continue
            address = neighbor["address"]
            ipv6 = address is not None and ":" in address
            if address is not None and ipv6:
                local_v6 = v6_ports.get(local_key)
                if local_v6 is None:
                    error(f"{host}:{local_name}", "an IPv6 interface address", None,
                          f"{host}:{local_name} has no IPv6 address for numbered neighbor {address}")
                    continue
                peer_v6 = ip_address(address)
                if peer_v6 == local_v6.ip or peer_v6 not in local_v6.network:
                    error(f"{host}:{local_name}", f"an address in {local_v6}", address,
                          f"{host}:{local_name} neighbor {address} is not in the interface subnet {local_v6}")
                    continue
                owner = v6_owner.get(peer_v6)
                if owner is None:
                    error(f"{host}:{local_name}", f"a device owning {address}", None,
                          f"{host}:{local_name} neighbor {address} is dangling: no device has that address")
                    continue
                peer, peer_interface_name = owner
                own_text = str(local_v6.ip)
                mirror = by_address.get((peer, own_text))
            elif address:
                local_parsed = parsed.get(local_key)
                if local_parsed is None:
                    error(f"{host}:{local_name}", "an interface address", None,
                          f"{host}:{local_name} has no IP address for numbered neighbor {address}")
                    continue
                local_ip, prefix_length, local_bare = local_parsed
                peer_ip = ip_to_int(address)
                if peer_ip == local_ip or peer_ip >> (32 - prefix_length) != local_ip >> (32 - prefix_length):
                    error(f"{host}:{local_name}", f"an address in {local['ip']}", address,
                          f"{host}:{local_name} neighbor {address} is not in the interface subnet {local['ip']}")
                    continue
                owner = address_owner.get(peer_ip)
                if peer_ip in shared_svi:
                    owner = _shared_svi_owner(structured, host, neighbor, local_bare, shared_svi[peer_ip], by_address,
                                              owner)
                if owner is None:
                    error(f"{host}:{local_name}", f"a device owning {address}", None,
                          f"{host}:{local_name} neighbor {address} is dangling: no device has that address")
                    continue
                peer, peer_interface_name = owner
                if local["peer_device"] is not None and (local["peer_device"] != peer or
                                                         local["peer_interface"] != peer_interface_name):
                    error(f"{host}:{local_name}", f"{local['peer_device']}:{local['peer_interface']}",
                          f"{peer}:{peer_interface_name}",
                          f"{host}:{local_name} neighbor {address} belongs to {peer}:{peer_interface_name} "
                          f"but the port is cabled to {local['peer_device']}:{local['peer_interface']}")
                    continue
                own_text = local_bare
                mirror = by_address.get((peer, local_bare))
            else:
                cabled_peer, cabled_interface = local["peer_device"], local["peer_interface"]
                if cabled_peer is None or cabled_interface is None or cabled_peer not in structured:
                    error(f"{host}:{local_name}", "a cabled switch peer", cabled_peer,
                          f"{host}:{local_name} unnumbered neighbor has no switch at the other end of the cable")
                    continue
                peer, peer_interface_name = cabled_peer, cabled_interface
                mirror = by_interface.get((peer, peer_interface_name))
            if mirror is None and address is not None and _listens(structured[peer], neighbor, local_asn,
                                                                   ip_address(own_text)):
                # A dynamic neighbor: the peer accepts sessions from a range holding our address (RFC 4271 allows
                # either end to open; SONiC BGP_PEER_RANGE / FRR bgp listen range).
                low, high = sorted([(host, local_name), (peer, peer_interface_name)])
                established.append(Session(*low, *high))
                continue
            if mirror is None:
                error(f"{host}:{local_name}<->{peer}:{peer_interface_name}", f"a neighbor on {peer}:{peer_interface_name}",
                      None, f"one-sided session: {host}:{local_name} peers with {peer} but {peer} has no neighbor "
                            f"statement for {host} on {peer_interface_name}")
                continue
            if mirror["interface"] and mirror["interface"] != peer_interface_name:
                error(f"{host}:{local_name}<->{peer}:{peer_interface_name}", peer_interface_name, mirror["interface"],
                      f"{peer} peers with {host} from {mirror['interface']}, not the cabled {peer_interface_name}")
                continue
            if (peer, peer_interface_name) < local_key:
                continue  # each session is judged once, from its lower end; the other end was or will be seen
            peer_bgp = structured[peer]["bgp"]
            peer_asn = peer_bgp.get("asn") if peer_bgp.get("asn") is not None else structured[peer].get("asn")
            peer_port: Mapping[str, object] = interfaces.get((peer, peer_interface_name)) or {}
            families_a, families_b = neighbor["address_families"] or [], mirror["address_families"] or []
            # The AS each end presents to the other: its local-as when it states one (RFC 7705), else its own.
            local_asn_seen = neighbor.get("local_as", local_asn)
            peer_asn_seen = mirror.get("local_as", peer_asn)
            shut = [device for device, entry in ((host, neighbor), (peer, mirror)) if entry.get("shutdown")]
            if (neighbor["remote_as"] == peer_asn_seen and mirror["remote_as"] == local_asn_seen and local["enabled"]
                    and peer_port.get("enabled") and families_a == families_b and IPV4_UNICAST in families_a
                    and local_asn != peer_asn and not shut and not ipv6):
                established.append(Session(host, local_name, peer, peer_interface_name))  # the common case
                # The mirror needs no second look when everything it would check on its side holds too.
                peer_key = (peer, peer_interface_name)
                if peer_port.get("peer_device") == host and peer_port.get("peer_interface") == local_name and (
                        not address or (peer_key in parsed and parsed[peer_key][1] == length
                                        and address_owner.get(local_ip) == local_key)):
                    verified_mirrors.add(id(mirror))
                continue
            link = f"{host}:{local_name}<->{peer}:{peer_interface_name}"
            if shut:
                findings.append(Finding(
                    check=CHECK, severity=Severity.WARNING, subject=link, expected="no shutdown", actual="shutdown",
                    message=f"session administratively down: neighbor shutdown on {' and '.join(shut)}"))
                continue
            problems: list[tuple] = []
            if not _remote_as_ok(neighbor.get("remote_as"), local_asn_seen, peer_asn_seen):
                problems.append((peer_asn_seen, neighbor.get("remote_as"),
                                 f"{host} expects {peer} in AS {neighbor.get('remote_as')} but {peer} is AS "
                                 f"{peer_asn_seen}"))
            if not _remote_as_ok(mirror.get("remote_as"), peer_asn_seen, local_asn_seen):
                problems.append((local_asn_seen, mirror.get("remote_as"),
                                 f"{peer} expects {host} in AS {mirror.get('remote_as')} but {host} is AS "
                                 f"{local_asn_seen}"))
            for device, port_name, port in ((host, local_name, local), (peer, peer_interface_name, peer_port)):
                if not port.get("enabled", False):
                    problems.append((True, False, f"{device}:{port_name} is shut down"))
            set_a, set_b = set(families_a), set(families_b)
            unicast = IPV6_UNICAST if ipv6 and IPV6_UNICAST in set_a & set_b else IPV4_UNICAST
            if unicast not in set_a or unicast not in set_b:
                problems.append((IPV4_UNICAST, sorted(set_a & set_b), "no common ipv4_unicast address family"))
            elif set_a != set_b:
                missing = sorted(set_a ^ set_b)
                findings.append(Finding(
                    check=CHECK, severity=Severity.ERROR, subject=link, expected=sorted(set_a | set_b),
                    actual=sorted(set_a & set_b),
                    message=f"address families differ ({', '.join(missing)} on one end only): "
                    "those routes are not exchanged"))
            if problems:
                for expected, actual, message in problems:
                    error(link, expected, actual, f"session down: {message}")
                continue
            established.append(Session(host, local_name, peer, peer_interface_name))
    return table


def _undefined_policies(structured: Mapping[str, StructuredConfig]) -> list[Finding]:
    """A route map or prefix list a neighbor (or its peer group) names that its config does not define: EOS and
    FRR then apply an implicit deny (FRR) or permit nothing/everything by platform default, never what was meant.
    Judged only where the parser listed what the text defines (``bgp.policies_defined``)."""
    findings: list[Finding] = []
    for host, config in structured.items():
        bgp = config["bgp"]
        defined = bgp.get("policies_defined")
        if defined is None:
            continue
        seen: set[tuple] = set()
        entries: list = [*bgp["peer_groups"], *bgp["neighbors"]]
        for entry in entries:
            for ref in entry.get("policy_refs", ()):
                key = (ref["kind"], ref["name"], ref["line"])
                names: list[str] = defined["route_map"] if ref["kind"] == "route_map" else defined["prefix_list"]
                if ref["name"] in names or key in seen:
                    continue
                seen.add(key)
                target = entry.get("interface") or entry.get("address") or entry.get("name", "?")
                kind = ref["kind"].replace("_", "-")
                findings.append(Finding(
                    check=CHECK, severity=Severity.ERROR, subject=f"{host}:{target}" if entry.get("interface")
                    else host, expected=f"{kind} {ref['name']} defined", actual=None,
                    message=f"{host} line {ref['line']}: neighbor {entry.get('address') or target} {kind} "
                            f"{ref['name']} {ref['direction']} names a {kind} the config does not define"))
    return findings


def _overlay_remote_as(structured: Mapping[str, StructuredConfig]) -> list[Finding]:
    """An EVPN loopback session (folded by the parser onto the underlay session to the same device) whose own
    ``remote-as`` is not the peer's AS: the overlay session never opens (RFC 4271 6.2, Bad Peer AS), while the
    underlay one, with the right AS, does."""
    owners = {loopback["ip"].split("/")[0]: host for host, config in structured.items()
              for loopback in config["loopbacks"] if loopback.get("ip")}
    findings: list[Finding] = []
    for host, config in structured.items():
        local_asn = config["bgp"].get("asn") if config["bgp"].get("asn") is not None else config.get("asn")
        for neighbor in config["bgp"]["neighbors"]:
            overlay = neighbor.get("overlay_remote_as")
            peer = owners.get(overlay["address"]) if overlay else None
            if overlay is None or peer is None:
                continue
            peer_bgp = structured[peer]["bgp"]
            peer_asn = peer_bgp.get("asn") if peer_bgp.get("asn") is not None else structured[peer].get("asn")
            if not _remote_as_ok(overlay["remote_as"], local_asn, peer_asn):
                findings.append(Finding(
                    check=CHECK, severity=Severity.ERROR, subject=f"{host}:neighbor {overlay['address']}",
                    expected=peer_asn, actual=overlay["remote_as"],
                    message=f"EVPN session down: {host} expects {peer} (loopback {overlay['address']}) in AS "
                    f"{overlay['remote_as']} but {peer} is AS {peer_asn}"))
    return findings


def _listens(peer_config: StructuredConfig, neighbor: Neighbor, local_asn, local_address) -> bool:
    """True when the peer accepts a dynamic session from ``local_address`` in the AS we present."""
    peer_bgp = peer_config["bgp"]
    peer_asn = peer_bgp.get("asn") if peer_bgp.get("asn") is not None else peer_config.get("asn")
    presented = neighbor.get("local_as", local_asn)
    for listen in peer_bgp.get("listen_ranges", ()):
        if any(local_address in ip_network(prefix, strict=False) for prefix in listen["prefixes"]):
            return _remote_as_ok(listen["remote_as"], peer_asn, presented) and neighbor["remote_as"] == peer_asn
    return False


def _loopback_sessions(structured: Mapping[str, StructuredConfig], table: SessionTable) -> None:
    """Sessions between loopbacks (``update_source``: an iBGP EVPN overlay over an OSPF/IS-IS underlay, route
    reflectors on the spines): paired on the addresses like numbered ones; the AS numbers must agree and, where the
    devices run an IGP, each loopback must be routed to the other over it (validators.igp), since the session
    rides on that route (RFC 4271 is silent on how the peers reach each other; without a route it never opens)."""
    owners: dict[str, list[tuple[str, str]]] = {}  # an address two devices claim (a fault bgp.router_ids reports)
    for host, config in structured.items():
        for loopback in config["loopbacks"]:
            if loopback["ip"]:
                owners.setdefault(loopback["ip"].split("/")[0], []).append((host, loopback["name"]))
    statements = {(host, neighbor["address"]): neighbor for host, config in structured.items()
                  for neighbor in config["bgp"]["neighbors"] if neighbor.get("update_source") and neighbor["address"]}
    if not statements:
        return
    igp = build_igp(structured)
    judged: set[tuple[str, str]] = set()

    def error(subject: str, expected, actual, message: str) -> None:
        table.findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=subject, expected=expected,
                                      actual=actual, message=message))

    for (host, address), neighbor in statements.items():
        if (host, address) in judged:
            continue
        config = structured[host]
        source_name = neighbor.get("update_source", "")
        source = next((lb for lb in config["loopbacks"] if source_name in (lb["name"], (lb["ip"] or "").split("/")[0])),
                      None)
        if source is None or not source["ip"]:
            error(f"{host}:{source_name}", "a loopback with an address", source_name,
                  f"{host}: neighbor {address} update-source {source_name} names no loopback with an address")
            continue
        own = source["ip"].split("/")[0]
        if address not in owners:
            error(f"{host}:{source['name']}", f"a device owning {address}", None,
                  f"{host}:{source['name']} neighbor {address} is dangling: no device has that loopback address")
            continue
        # The owner that peers back (an address two devices claim is paired with the one that does).
        peer, peer_loopback = next((end for end in owners[address] if (end[0], own) in statements),
                                   owners[address][0])
        link = f"{host}:{source['name']}<->{peer}:{peer_loopback}"
        mirror = statements.get((peer, own))
        if mirror is None and _listens(structured[peer], neighbor, config["bgp"].get("asn") if config["bgp"].get(
                "asn") is not None else config.get("asn"), ip_address(own)):
            # A dynamic neighbor: the peer (a route reflector, AVD's WAN pathfinder) accepts sessions from a range.
            low, high = sorted([(host, source["name"]), (peer, peer_loopback)])
            table.loopback_sessions.append(Session(*low, *high))
            continue
        if mirror is None:
            error(link, f"a neighbor {own} on {peer}", None, f"one-sided session: {host} peers with {peer}'s "
                  f"loopback {address} but {peer} has no loopback session toward {own}")
            continue
        judged.add((peer, own))
        local_asn = config["bgp"].get("asn") if config["bgp"].get("asn") is not None else config.get("asn")
        peer_config = structured[peer]
        peer_asn = (peer_config["bgp"].get("asn") if peer_config["bgp"].get("asn") is not None
                    else peer_config.get("asn"))
        local_seen, peer_seen = neighbor.get("local_as", local_asn), mirror.get("local_as", peer_asn)
        shut = [device for device, entry in ((host, neighbor), (peer, mirror)) if entry.get("shutdown")]
        if shut:
            table.findings.append(Finding(
                check=CHECK, severity=Severity.WARNING, subject=link, expected="no shutdown", actual="shutdown",
                message=f"session administratively down: neighbor shutdown on {' and '.join(shut)}"))
            continue
        problems: list[tuple] = []
        if not _remote_as_ok(neighbor.get("remote_as"), local_seen, peer_seen):
            problems.append((peer_seen, neighbor.get("remote_as"), f"{host} expects {peer} in AS "
                             f"{neighbor.get('remote_as')} but {peer} is AS {peer_seen}"))
        if not _remote_as_ok(mirror.get("remote_as"), peer_seen, local_seen):
            problems.append((local_seen, mirror.get("remote_as"), f"{peer} expects {host} in AS "
                             f"{mirror.get('remote_as')} but {host} is AS {local_seen}"))
        # Families the model does not name (vpn-ipv4 of an MPLS L3VPN overlay) leave the lists empty: not judged.
        families_a, families_b = set(neighbor["address_families"]), set(mirror["address_families"])
        if families_a and families_b and not families_a & families_b:
            problems.append((sorted(neighbor["address_families"]), sorted(mirror["address_families"]),
                             "no common address family"))
        if igp.graph and host in igp.graph and peer in igp.graph and (
                igp.route_width(host, address) == 0 or igp.route_width(peer, own) == 0):
            problems.append(("an IGP route", None, f"no IGP route between the loopbacks {own} and {address}"))
        for expected, actual, message in problems:
            error(link, expected, actual, f"session down: {message}")
        if not problems:
            low, high = sorted([(host, source["name"]), (peer, peer_loopback)])
            table.loopback_sessions.append(Session(*low, *high))


def _mlag_peer(structured: Mapping[str, StructuredConfig], host: str) -> str | None:
    """The device owning ``host``'s MLAG peer address on one of its SVIs (None without MLAG)."""
    peer_address = (structured[host].get("mlag") or {}).get("peer_address")
    if not peer_address:
        return None
    for other, config in structured.items():
        for vlan in config["vlans"] if other != host else ():
            svi = vlan["svi"]
            if svi and (svi.get("address") or "").split("/")[0] == peer_address:
                return other
    return None


PortAddress = IPv4Interface | IPv6Interface


def _vrf_ports(config: StructuredConfig) -> list[tuple[str, str, PortAddress, bool]]:
    """(VRF, port name, IPv4/IPv6 interface, enabled) of every addressed port of a tenant VRF: routed ports naming
    a VRF and SVIs of a VLAN bound to one (the MLAG pair's per-VRF peer SVI). Port-channels state no VRF in the
    model: a VRF neighbor over one finds no port and is reported as such."""
    ports: list[tuple[str, str, PortAddress, bool]] = []
    for interface in config["interfaces"]:
        vrf = interface.get("vrf")
        if vrf in (None, "default"):
            continue
        for text in (interface["ip"], interface.get("ipv6")):
            if text:
                ports.append((vrf, interface["name"], ip_interface(text), interface["enabled"]))
    for vlan in config["vlans"]:
        address = vlan["svi"].get("address") if vlan["svi"] else None
        if address and vlan["vrf"] not in (None, "default"):
            ports.append((vlan["vrf"], f"Vlan{vlan['id']}", ip_interface(address), True))
    return ports


def _vrf_neighbor_settings(config: StructuredConfig, neighbor: Mapping) -> dict:
    """A VRF neighbor's remote AS, local AS and shutdown, its own or its peer group's (EOS and FRR peer groups
    are device-wide: a VRF neighbor names one of the router's groups and inherits what it states)."""
    group: Mapping = next((entry for entry in config["bgp"].get("peer_groups") or ()
                           if entry.get("name") == neighbor.get("peer_group")), {})
    remote_as = neighbor.get("remote_as")
    if remote_as is None:
        remote_as = group.get("remote_as")
    settings = {"remote_as": remote_as, "shutdown": bool(neighbor.get("shutdown", group.get("shutdown")))}
    local_as = neighbor.get("local_as", group.get("local_as"))
    if local_as is not None:
        settings["local_as"] = local_as
    return settings


def _vrf_sessions(structured: Mapping[str, StructuredConfig], table: SessionTable) -> None:
    """Pair every tenant VRF neighbor with its mirror in the same VRF on the peer (RFC 4364 section 3: a VRF's
    sessions and addresses are its own; the same address in two VRFs is two different peers, as AVD's MLAG pairs
    reuse one /31 per VRF). Numbered neighbors pair on the addresses of the VRF's ports, unnumbered ones (RFC 5549)
    on the MLAG peer's SVI of the same name or on the cable; both ends' AS numbers must agree (local-as, RFC 7705),
    the ports be up, and neither end shut down (a warning). An address no device of the set owns in any VRF is an
    external peer; owned only in another VRF (or the default one), a warning (VRFs may reuse addresses)."""
    ports: dict[tuple[str, str], list[tuple[str, PortAddress, bool]]] = {}  # (host, VRF) -> [(port, address, up)]
    owners: dict[tuple[str, object], list[tuple[str, str]]] = {}  # (VRF, address) -> [(host, port)]
    # address -> [(host, VRF or None for the default one)] of its owners in any VRF
    anywhere: dict[object, list[tuple[str, str | None]]] = {}
    for host, config in structured.items():
        for vrf, name, port_address, enabled in _vrf_ports(config):
            ports.setdefault((host, vrf), []).append((name, port_address, enabled))
            owners.setdefault((vrf, port_address.ip), []).append((host, name))
            anywhere.setdefault(port_address.ip, []).append((host, vrf))
        for default_port in (*config["interfaces"], *_layer3_virtual_ports(config)):
            if default_port.get("vrf") in (None, "default"):
                for text in (default_port["ip"], default_port.get("ipv6")):
                    if text:
                        anywhere.setdefault(ip_interface(text).ip, []).append((host, None))
    statements: dict[tuple[str, str, IPv4Address | IPv6Address], dict] = {}  # (host, VRF, address) -> neighbor
    unnumbered: dict[tuple[str, str, str], dict] = {}  # (host, VRF, interface) -> neighbor
    for host, config in structured.items():
        for bgp_vrf in config["bgp"].get("vrfs") or ():
            for vrf_neighbor in bgp_vrf.get("neighbors") or ():
                table.vrf_neighbor_count += 1
                if vrf_neighbor["address"]:
                    try:
                        address = ip_address(vrf_neighbor["address"])
                    except ValueError:  # not an address the parser checked (a link-local with a zone): unjudged
                        table.vrf_external.append((host, bgp_vrf["name"], vrf_neighbor["address"],
                                                   vrf_neighbor.get("remote_as")))
                        continue
                    statements[(host, bgp_vrf["name"], address)] = dict(vrf_neighbor)
                elif vrf_neighbor["interface"]:
                    unnumbered[(host, bgp_vrf["name"], vrf_neighbor["interface"])] = dict(vrf_neighbor)

    def error(subject: str, expected, actual, message: str) -> None:
        table.findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=subject, expected=expected,
                                      actual=actual, message=message))

    judged: set[int] = set()
    for (host, vrf, address), neighbor in statements.items():
        if id(neighbor) in judged:
            continue
        settings = _vrf_neighbor_settings(structured[host], neighbor)
        if settings["remote_as"] is None:
            error(f"{host}:vrf {vrf} neighbor {address}", "a remote AS", None,
                  f"{host}: VRF {vrf} BGP neighbor {address} states no remote-as (nor does its peer group "
                  f"{neighbor.get('peer_group') or '-'}): the session is never started")
            continue
        in_vrf = owners.get((vrf, address), ())
        peers = [owner for owner in in_vrf if owner[0] != host]
        local = next(((name, interface, enabled) for name, interface, enabled in ports.get((host, vrf), ())
                      if interface.version == address.version and address in interface.network
                      and address != interface.ip), None)
        if not peers:
            elsewhere = [(owner, other_vrf) for owner, other_vrf in anywhere.get(address, ()) if owner != host]
            # The owner in another VRF peers back toward our address from there: the two ends sit in two VRFs.
            crossed = [(owner, other_vrf) for owner, other_vrf in elsewhere if local is not None
                       and other_vrf is not None and (owner, other_vrf, local[1].ip) in statements]
            if any(owner == host for owner, _ in in_vrf):
                error(f"{host}:vrf {vrf} neighbor {address}", "a peer's address", str(address),
                      f"{host}: VRF {vrf} neighbor {address} is this device's own address in VRF {vrf}: the session "
                      "never opens")
            elif crossed:
                owner, crossed_vrf = crossed[0]
                error(f"{host}:vrf {vrf} neighbor {address}", f"VRF {vrf}", f"VRF {crossed_vrf}",
                      f"{host}: VRF {vrf} neighbor {address} is {owner}, which peers back from VRF {crossed_vrf}: the "
                      "two ends are in different VRFs, the session never opens (RFC 4364: a VRF's sessions and "
                      "addresses are its own)")
            elif elsewhere:
                # Another VRF may reuse the address (RFC 4364): reported, not judged as this session's peer.
                owner, reused_in = elsewhere[0]
                where = f"{owner} {'VRF ' + reused_in if reused_in else 'default VRF'}"
                table.findings.append(Finding(
                    check=CHECK, severity=Severity.WARNING, subject=f"{host}:vrf {vrf} neighbor {address}",
                    expected=f"{address} in VRF {vrf}", actual=where,
                    message=f"{host}: VRF {vrf} neighbor {address} is owned by {where} only, not in VRF {vrf}: if "
                    "that is the peer, the session never opens (a VRF's sessions stay inside it)"))
            else:
                table.vrf_external.append((host, vrf, str(address), settings["remote_as"]))
            continue
        if local is None:
            error(f"{host}:vrf {vrf} neighbor {address}", f"a VRF {vrf} interface in {address}'s subnet", None,
                  f"{host}: VRF {vrf} neighbor {address} is in the subnet of no interface of VRF {vrf}")
            continue
        local_name, local_interface, local_enabled = local
        # Of several owners (one address reused by two pairs), the one whose VRF peers back with us.
        peer, peer_port = next((owner for owner in peers if (owner[0], vrf, local_interface.ip) in statements),
                               peers[0])
        # Each end names its own neighbor statement (the lines a finding cites, validators.configs._own_lines).
        link = f"{host}:vrf {vrf} neighbor {address}<->{peer}:vrf {vrf} neighbor {local_interface.ip}"
        mirror = statements.get((peer, vrf, local_interface.ip))
        if mirror is None:
            error(link, f"a VRF {vrf} neighbor {local_interface.ip} on {peer}", None,
                  f"one-sided session: {host} VRF {vrf} peers with {peer} ({address}) but {peer} has no VRF {vrf} "
                  f"neighbor statement for {local_interface.ip}")
            continue
        judged.add(id(mirror))
        peer_enabled = next((enabled for name, interface, enabled in ports.get((peer, vrf), ()) if name == peer_port),
                            True)
        _judge_vrf_session(structured, table, vrf, (host, local_name, neighbor, local_enabled),
                           (peer, peer_port, mirror, peer_enabled), link)
    for (host, vrf, interface_name), neighbor in unnumbered.items():
        if id(neighbor) in judged:
            continue
        settings = _vrf_neighbor_settings(structured[host], neighbor)
        mlag_peer = _mlag_peer(structured, host)
        port = next((item for item in structured[host]["interfaces"] if item["name"] == interface_name), None)
        if mlag_peer is not None and (mlag_peer, vrf, interface_name) in unnumbered:
            peer, peer_port = mlag_peer, interface_name  # RFC 5549 over the MLAG pair's peer SVI in this VRF
        elif port is not None and port["peer_device"] in structured and port["peer_interface"]:
            peer, peer_port = str(port["peer_device"]), str(port["peer_interface"])
        else:
            # No switch of the set at the other end (no MLAG peer statement, no cable known): a peer outside it.
            table.vrf_external.append((host, vrf, f"interface {interface_name}", settings["remote_as"]))
            continue
        link = f"{host}:vrf {vrf} neighbor interface {interface_name}<->{peer}:vrf {vrf} neighbor interface {peer_port}"
        mirror = unnumbered.get((peer, vrf, peer_port))
        if mirror is None:
            error(link, f"a VRF {vrf} neighbor on {peer}:{peer_port}", None,
                  f"one-sided session: {host} VRF {vrf} peers over {interface_name} with {peer} but {peer} has no "
                  f"VRF {vrf} neighbor on {peer_port}")
            continue
        judged.add(id(mirror))
        _judge_vrf_session(structured, table, vrf, (host, interface_name, neighbor, True),
                           (peer, peer_port, mirror, True), link)


def _judge_vrf_session(structured: Mapping[str, StructuredConfig], table: SessionTable, vrf: str, end_a: tuple,
                       end_b: tuple, link: str) -> None:
    """Both ends of a paired VRF session: shut down (warning), AS numbers, ports up; established otherwise."""
    problems: list[tuple] = []
    seen = {}
    for host, port, neighbor, enabled in (end_a, end_b):
        config = structured[host]
        asn = config["bgp"].get("asn") if config["bgp"].get("asn") is not None else config.get("asn")
        settings = _vrf_neighbor_settings(config, neighbor)
        seen[host] = (settings, settings.get("local_as", asn))
        if not enabled:
            problems.append((True, False, f"{host}:{port} is shut down"))
    (host_a, _, _, _), (host_b, _, _, _) = end_a, end_b
    shut = [host for host in (host_a, host_b) if seen[host][0]["shutdown"]]
    if shut:
        table.findings.append(Finding(
            check=CHECK, severity=Severity.WARNING, subject=link, expected="no shutdown", actual="shutdown",
            message=f"VRF {vrf} session administratively down: neighbor shutdown on {' and '.join(shut)}"))
        return
    for local, peer in ((host_a, host_b), (host_b, host_a)):
        remote_as = seen[local][0]["remote_as"]
        if remote_as is None:
            problems.append(("a remote AS", None, f"{local} states no remote-as for {peer}"))
        elif not _remote_as_ok(remote_as, seen[local][1], seen[peer][1]):
            problems.append((seen[peer][1], remote_as, f"{local} expects {peer} in AS {remote_as} but {peer} is AS "
                             f"{seen[peer][1]}"))
    for expected, actual, message in problems:
        table.findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=link, expected=expected,
                                      actual=actual, message=f"VRF {vrf} session down: {message}"))
    if not problems:
        low, high = sorted([end_a[:2], end_b[:2]])
        table.vrf_established.append((vrf, Session(*low, *high)))
