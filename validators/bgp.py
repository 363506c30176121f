"""BGP configuration checks: session compatibility from both ends, timers and BFD, router-id and ASN uniqueness.

Session pairing is :mod:`validators.sessions`; this module adds what does not stop a session from coming up
but breaks the design: mismatched timers (the lower hold time wins silently), BFD on one end only (that end
never gets fast failure detection), duplicate router IDs (RFC 4271 6.2/6.8: the OPEN is rejected or the
collision resolution misbehaves) and ASNs reused where the ASN scheme does not allow it (RFC 7938 5.2.1: each
leaf -- or each rack in the per-rack scheme -- has its own ASN; eBGP loop prevention then drops the routes of
any other leaf sharing it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from compiler.model import Role
from validators.common import CORE_ROLES, VTEP_ROLES
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.mlag import mlag_pairs

SESSIONS = "bgp.sessions"
TIMERS_BFD = "bgp.timers_bfd"
ROUTER_IDS = "bgp.router_ids"
ASNS = "bgp.asns"


def check_sessions(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    table = ctx.sessions
    examined = {"BGP neighbors": table.neighbor_count - len(table.external)}
    if table.vrf_neighbor_count:
        examined["VRF BGP neighbors"] = table.vrf_neighbor_count - len(table.vrf_external)
    if table.external or table.vrf_external:
        examined["external peers"] = len(table.external) + len(table.vrf_external)
    ctx.record_examined(SESSIONS, examined)
    return list(table.findings) + external_peer_findings(table.external, ctx.external_peers, table.vrf_external)


def external_peer_findings(external: list[tuple[str, str, object]], treat: str,
                           vrf_external: Sequence[tuple[str, str, str, object]] = ()) -> list[Finding]:
    """Neighbors whose address no device of this set owns (a firewall, a WAN router, the other half of a set
    validated alone): reported, at the severity the caller chose (``external_peers``: info by default), never
    judged as sessions. Info and warning: one finding listing them; error: one per neighbor, so each is located
    (a tenant VRF's neighbor by its VRF statement: validators.configs._own_lines)."""
    # (subject, shown as, address, remote AS) per neighbor, default VRF first
    entries = [(f"{host}:neighbor {address}", host, address, remote_as) for host, address, remote_as in external]
    entries += [(f"{host}:vrf {vrf} neighbor {address}", f"{host} (VRF {vrf})", address, remote_as)
                for host, vrf, address, remote_as in vrf_external]
    if not entries:
        return []
    if treat == Severity.ERROR:
        return [Finding(check=SESSIONS, severity=Severity.ERROR, subject=subject,
                        expected="a peer in this config set", actual=address,
                        message=f"{shown}: BGP neighbor {address} (AS {remote_as}) is external: no device of this "
                        "set has that address") for subject, shown, address, remote_as in entries]
    external = [(shown, address, remote_as) for _, shown, address, remote_as in entries]
    listed = ", ".join(f"{host}->{address} (AS {remote_as})" for host, address, remote_as in external[:20])
    more = f" and {len(external) - 20} more" if len(external) > 20 else ""
    return [Finding(check=SESSIONS, severity=treat, subject="external peers", expected=None, actual=len(external),
                    message=f"{len(external)} BGP neighbor(s) outside this config set, not judged as sessions: "
                    f"{listed}{more}")]


def _effective_settings(structured) -> dict[tuple[str, str], tuple]:
    """(device, local interface) -> (keepalive, hold, bfd) as the neighbor will run them."""
    result = {}
    for host, config in structured.items():
        bgp = config["bgp"]
        keepalive, hold, bfd = bgp.get("keepalive_s"), bgp.get("hold_s"), bool(bgp.get("bfd"))
        group_bfd = {group.get("name"): bool(group["bfd"]) for group in bgp.get("peer_groups") or ()
                     if group.get("bfd") is not None}
        # Where peer groups state BFD, a neighbor outside every group states its own or runs none (EOS and FRR
        # enable BFD per neighbor or group; the device-wide flag is the compiled contract's, or "some group has it").
        ungrouped_bfd = bfd if not group_bfd else False
        for neighbor in bgp["neighbors"]:
            neighbor_bfd = neighbor.get("bfd")
            group = neighbor.get("peer_group")
            result[(host, neighbor["interface"])] = (
                neighbor.get("keepalive_s", keepalive), neighbor.get("hold_s", hold),
                bool(neighbor_bfd) if neighbor_bfd is not None
                else group_bfd.get(group, bfd) if group else ungrouped_bfd)
    return result


def check_timers_bfd(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    settings = _effective_settings(ctx.structured)
    ctx.record_examined(TIMERS_BFD, {"established sessions": len(ctx.sessions.established)})
    findings: list[Finding] = []
    for session in ctx.sessions.established:
        a = settings[(session.a, session.a_interface)]
        b = settings[(session.b, session.b_interface)]
        if a == b:
            continue
        if a[:2] != b[:2]:
            findings.append(Finding(
                check=TIMERS_BFD, severity=Severity.WARNING, subject=str(session), expected=list(a[:2]),
                actual=list(b[:2]), message=f"keepalive/hold differ ({session.a} {a[0]}/{a[1]} s, {session.b} "
                f"{b[0]}/{b[1]} s): the session runs on the lower hold time"))
        if a[2] != b[2]:
            on, off = (session.a, session.b) if a[2] else (session.b, session.a)
            findings.append(Finding(
                check=TIMERS_BFD, severity=Severity.ERROR, subject=str(session), expected=True, actual=False,
                message=f"BFD enabled on {on} but not on {off}: the BFD session never comes up and "
                "link failures are detected only by the BGP hold timer"))
    return findings


def check_router_ids(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    owners: dict[str, list[str]] = defaultdict(list)
    findings: list[Finding] = []
    ctx.record_examined(ROUTER_IDS, {"BGP speakers": sum(
        1 for config in ctx.structured.values()
        if config["bgp"]["neighbors"] or config["bgp"].get("router_id") or config["bgp"].get("asn") is not None)})
    for host, config in ctx.structured.items():
        router_id = config["bgp"].get("router_id") or config.get("router_id")
        if not router_id:
            if config["bgp"]["neighbors"]:
                findings.append(Finding(
                    check=ROUTER_IDS, severity=Severity.ERROR, subject=host, expected="a router ID", actual=None,
                    message=f"{host} runs BGP without a router ID"))
            continue
        owners[router_id].append(host)
    parts = ctx.fabric_parts
    for router_id, all_hosts in owners.items():
        # Only devices of one fabric can meet (FabricContext.fabric_parts): two fabrics validated together, with no
        # cable or session between them, may reuse an ID (RFC 6286 asks uniqueness within an AS's routing domain).
        by_part: dict[int, list[str]] = defaultdict(list)
        for host in all_hosts:
            by_part[parts[host]].append(host)
        for hosts in by_part.values():
            if len(hosts) < 2:
                continue
            for host in hosts:
                findings.append(Finding(
                    check=ROUTER_IDS, severity=Severity.ERROR, subject=host, expected="a unique router ID",
                    actual=router_id, message=f"router ID {router_id} is used by {', '.join(hosts)}"))
    return findings


def _asn_group(ctx, host: str, scheme: str) -> str:
    """Devices in one group may share an ASN: spines of one plane, leaves of one rack under per_rack (by the
    inventory's rack; from configs alone, the leaves of one ASN that each accept it back with allowas-in)."""
    config = ctx.structured[host]
    role = config.get("role")
    inventory = ctx.inventory
    switch = inventory.switches_by_name.get(host) if inventory is not None else None
    if role == Role.SPINE:
        return f"spine plane {switch.plane if switch is not None else 0}"
    if role == Role.SUPER_SPINE:
        return "super-spines"
    if role in VTEP_ROLES and scheme.startswith("per_rack"):
        if switch is not None and switch.rack:
            return f"rack {switch.rack}"
        if switch is None and (config["bgp"].get("allowas_in") or 0) >= 1:
            return f"AS {config['bgp'].get('asn') or config.get('asn')} with allowas-in"
    return host


def _inferred_scheme(ctx) -> str:
    """The ASN scheme of configs without an intent: per_rack when leaves share an ASN and accept it back
    (allowas-in: what compiler.structured.underlay_bgp renders for a rack pair's shared ASN), else per_leaf."""
    shared: dict[int, int] = defaultdict(int)
    for config in ctx.structured.values():
        if config.get("role") in VTEP_ROLES and (config["bgp"].get("allowas_in") or 0) >= 1:
            shared[config["bgp"].get("asn") or config.get("asn")] += 1
    return "per_rack (inferred from allowas-in)" if any(count > 1 for count in shared.values()) else "per_leaf"


def ibgp_domains(ctx) -> dict[str, str]:
    """Device -> "iBGP AS <n>: <first member>" for devices of one AS joined by iBGP neighbor statements (remote-as
    their own AS, from either end: a route-reflector design, an MLAG pair's peer session, an MPLS core). Such
    devices are one AS by design (RFC 4271 9.2: routes cross iBGP without the AS being prepended), so sharing the
    ASN is no collision; devices sharing it with no iBGP between them stay apart."""
    parent: dict[str, str] = {}

    def root(host: str) -> str:
        parent.setdefault(host, host)
        while parent[host] != host:
            parent[host] = parent[parent[host]]
            host = parent[host]
        return host

    def asn_of(config) -> object:
        return config["bgp"].get("asn") if config["bgp"].get("asn") is not None else config.get("asn")

    owners = ctx.address_owners
    for host, config in ctx.structured.items():
        asn = asn_of(config)
        if asn is None:
            continue
        for neighbor in config["bgp"]["neighbors"]:
            if neighbor.get("remote_as") not in (asn, "internal"):
                continue
            peer = owners.get(neighbor.get("address") or "")
            if peer is None and neighbor.get("interface") and not neighbor.get("address"):
                port = ctx.interface_index.get((host, neighbor["interface"]))
                peer = port.get("peer_device") if port is not None else None
            if peer is not None and peer != host and peer in ctx.structured \
                    and asn_of(ctx.structured[peer]) == asn:
                parent[root(host)] = root(peer)
    members: dict[str, list[str]] = defaultdict(list)
    for host in parent:
        members[root(host)].append(host)
    return {host: f"iBGP AS {asn_of(ctx.structured[host])}: {sorted(group)[0]}"
            for group in members.values() if len(group) > 1 for host in group}


def check_asns(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    # With an intent its ASN scheme decides; from configs alone, what they state: an iBGP design is one AS.
    ibgp = ibgp_domains(ctx) if ctx.intent is None else {}
    scheme = ctx.intent.asn_scheme if ctx.intent is not None else _inferred_scheme(ctx)
    groups_of_asn: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    findings: list[Finding] = []
    mlag_peers = mlag_pairs(ctx.structured)
    ctx.record_examined(ASNS, {"devices with an ASN": sum(
        1 for config in ctx.structured.values() if config["bgp"].get("asn") is not None or config.get("asn") is not None)})
    for host, config in ctx.structured.items():
        asn = config["bgp"].get("asn") if config["bgp"].get("asn") is not None else config.get("asn")
        if asn is None:
            continue
        if config.get("asn") is not None and config["bgp"].get("asn") not in (None, config["asn"]):
            findings.append(Finding(
                check=ASNS, severity=Severity.ERROR, subject=host, expected=config["asn"], actual=config["bgp"]["asn"],
                message=f"{host}: router bgp {config['bgp']['asn']} differs from the device ASN "
                f"{config['asn']}"))
        group = ibgp.get(host) or _asn_group(ctx, host, scheme)
        if host in mlag_peers and group == host:
            group = "MLAG " + "+".join(sorted((host, mlag_peers[host])))  # an MLAG pair is one leaf: one ASN
        groups_of_asn[asn][group].append(host)
    for asn, groups in groups_of_asn.items():
        if len(groups) < 2:
            continue
        names = sorted(groups)
        core = [group for group in names if group.startswith(("spine", "super"))]
        for group in names:
            hosts = groups[group]
            others = [host for other in names if other != group for host in groups[other]]
            kind = "a core ASN" if core and group not in core else "an ASN of another ASN group"
            for host in hosts:
                role = ctx.structured[host].get("role")
                if role in CORE_ROLES and not any(ctx.structured[o].get("role") in VTEP_ROLES for o in others):
                    continue  # spines of two planes sharing an ASN is a design choice, not a collision
                findings.append(Finding(
                    check=ASNS, severity=Severity.ERROR, subject=host, expected=f"an ASN unique to {group}", actual=asn,
                    message=f"{host} uses AS {asn}, {kind} also used by {', '.join(others[:4])}"
                    f"{' and more' if len(others) > 4 else ''} (scheme {scheme}): eBGP loop "
                    "prevention drops routes between them"))
    return findings


CHECKS = {SESSIONS: check_sessions, TIMERS_BFD: check_timers_bfd, ROUTER_IDS: check_router_ids, ASNS: check_asns}
