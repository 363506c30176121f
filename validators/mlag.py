"""MLAG pairs as configured (Arista EOS User Manual, "Multi-Chassis Link Aggregation"): ``mlag.peers``.

Two switches form one MLAG domain when each names the other's peer-SVI address as ``peer-address``, both use the
same ``domain-id``, their ``local-interface`` SVIs share one subnet, and each has the ``peer-link`` port-channel it
names, with members. A dual-attached bundle (``mlag N`` on a port-channel) needs the same MLAG id on the peer:
with it on one switch only, the host's LACP partner is two unrelated systems and the bundle does not form.
A ``peer-address`` no device in the set owns is a peer outside the set: reported as a warning, not an error.
Findings name the configuration line (``mlag domain-id``, ``mlag peer-link``, ``interface Port-ChannelN mlag``)
so validators.configs cites it on both ends.
"""

from __future__ import annotations

from collections.abc import Mapping

from compiler.structured.contract import StructuredConfig
from validators.common import CheckSkipped, ip_to_int, split_prefix
from validators.context import as_context
from validators.findings import Finding, Severity

PEERS = "mlag.peers"


def _svi_addresses(structured: Mapping[str, StructuredConfig]) -> dict[int, list[tuple[str, str]]]:
    """Own SVI address -> [(device, ``VlanN``)]: several devices when every pair reuses one peer subnet (AVD's
    L2LS gives each MLAG pair 192.168.0.0/31 on an SVI routed nowhere)."""
    owners: dict[int, list[tuple[str, str]]] = {}
    for host, config in structured.items():
        for vlan in config["vlans"]:
            svi = vlan["svi"]
            address = svi.get("address") if svi else None
            if address:
                owners.setdefault(split_prefix(address)[0], []).append((host, f"Vlan{vlan['id']}"))
    return owners


def _peer_of(host: str, config: StructuredConfig, structured: Mapping[str, StructuredConfig],
             owners: dict[int, list[tuple[str, str]]]) -> tuple[str, str] | list[tuple[str, str]] | None:
    """The device owning ``peer-address``; with several owners (a reused peer subnet), the one the peer-link's
    description names (AVD: ``MLAG_LEAF2_Port-Channel47``), else the one whose own peer-address points back here
    with the same domain-id. A list: still ambiguous. None: no device in the set owns it."""
    mlag = config["mlag"]
    candidates = [owner for owner in owners.get(ip_to_int(mlag["peer_address"]), []) if owner[0] != host]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    if len({owner[0] for owner in candidates}) == 1:
        # One device owning the address on several SVIs (AVD reuses the MLAG peer address on each VRF's iBGP
        # SVI): that device is the peer, on its MLAG local-interface where it is one of them.
        local = (structured[candidates[0][0]].get("mlag") or {}).get("local_interface")
        return next((owner for owner in candidates if owner[1] == local), candidates[0])
    description = next((bundle["description"] for bundle in config.get("port_channels") or []
                        if bundle["name"] == mlag["peer_link"]), "")
    words = set(description.replace("_", " ").split())
    named = [owner for owner in candidates if owner[0] in words]
    if len(named) == 1:
        return named[0]
    own_addresses = {address for address, entries in owners.items() if any(entry[0] == host for entry in entries)}
    mutual = [owner for owner in candidates if (peer_mlag := structured[owner[0]].get("mlag"))
              and peer_mlag["peer_address"] and ip_to_int(peer_mlag["peer_address"]) in own_addresses
              and peer_mlag["domain_id"] == mlag["domain_id"]]
    return mutual[0] if len(mutual) == 1 else candidates


def _local_prefix(config: StructuredConfig) -> tuple[int, int] | None:
    name = config["mlag"]["local_interface"] or ""
    vlan = next((vlan for vlan in config["vlans"] if f"Vlan{vlan['id']}" == name), None)
    svi = vlan["svi"] if vlan else None
    address = svi.get("address") if svi else None
    return split_prefix(address) if address else None


def _carries_peer_vlan(config: StructuredConfig, peer_link) -> bool:
    """The peer-link trunk carries the local-interface SVI's VLAN: in its allowed list (none listed: all), and when
    the VLAN is restricted to trunk groups (EOS ``trunk group``), the peer-link is in one of them."""
    name = config["mlag"]["local_interface"] or ""
    vlan = next((vlan for vlan in config["vlans"] if f"Vlan{vlan['id']}" == name), None)
    if vlan is None or peer_link["switchport_mode"] != "trunk":
        return vlan is None  # no such VLAN: reported as a local-interface without address
    if peer_link["trunk_vlans"] and vlan["id"] not in peer_link["trunk_vlans"] + [peer_link["access_vlan"]]:
        return False
    groups = vlan.get("trunk_groups") or []
    return not groups or bool(set(groups) & set(peer_link["trunk_groups"]))


def _error(subject: str, expected, actual, message: str) -> Finding:
    return Finding(check=PEERS, severity=Severity.ERROR, subject=subject, expected=expected, actual=actual,
                   message=message)


def _own_checks(host: str, config: StructuredConfig) -> list[Finding]:
    mlag = config["mlag"]
    bundles = {bundle["name"]: bundle for bundle in config.get("port_channels") or []}
    findings = []
    peer_link = bundles.get(mlag["peer_link"] or "")
    if peer_link is None or not peer_link["members"]:
        findings.append(_error(
            f"{host}:mlag peer-link", "a port-channel with members", mlag["peer_link"],
            f"{host}: MLAG peer-link {mlag['peer_link']} is not a port-channel with members: the peers cannot "
            "exchange MLAG state or carry traffic for single-attached hosts"))
    elif not _carries_peer_vlan(config, peer_link):
        findings.append(_error(
            f"{host}:interface {peer_link['name']}", f"{mlag['local_interface']}'s VLAN on the peer-link",
            {"trunk_vlans": peer_link["trunk_vlans"], "trunk_groups": peer_link["trunk_groups"]},
            f"{host}: MLAG peer-link {peer_link['name']} does not carry the VLAN of local-interface "
            f"{mlag['local_interface']} (allowed VLANs or trunk group): the MLAG control session cannot reach "
            "the peer"))
    local = _local_prefix(config)
    if local is None:
        findings.append(_error(
            f"{host}:mlag local-interface", "an SVI with an address", mlag["local_interface"],
            f"{host}: MLAG local-interface {mlag['local_interface']} has no address: the MLAG control session "
            "has no source"))
    elif mlag["peer_address"]:
        own, length = local
        peer = ip_to_int(mlag["peer_address"])
        if peer == own or own >> (32 - length) != peer >> (32 - length):
            findings.append(_error(
                f"{host}:mlag peer-address", f"an address in the subnet of {mlag['local_interface']}",
                mlag["peer_address"], f"{host}: MLAG peer-address {mlag['peer_address']} is not on the subnet of "
                f"local-interface {mlag['local_interface']}"))
    return findings


def mlag_pairs(structured: Mapping[str, StructuredConfig]) -> dict[str, str]:
    """device -> its MLAG peer, for pairs where each names the other: one logical leaf (AVD gives the pair one
    ASN and one VTEP address), which the ASN and VTEP-reachability checks treat as such."""
    owners = _svi_addresses(structured)
    peers = {}
    for host, config in structured.items():
        if config.get("mlag") and config["mlag"]["peer_address"]:
            owner = _peer_of(host, config, structured, owners)
            if isinstance(owner, tuple):
                peers[host] = owner[0]
    return {host: peer for host, peer in peers.items() if peers.get(peer) == host}


def check_peers(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    members = {host: config for host, config in ctx.structured.items() if config.get("mlag")}
    if not members:
        raise CheckSkipped("no MLAG configuration")
    ctx.record_examined(PEERS, {"MLAG switches": len(members)})
    owners = _svi_addresses(ctx.structured)
    findings: list[Finding] = []
    for host, config in sorted(members.items()):
        findings += _own_checks(host, config)
        mlag = config["mlag"]
        owner = _peer_of(host, config, ctx.structured, owners) if mlag["peer_address"] else None
        if isinstance(owner, list):
            findings.append(Finding(
                check=PEERS, severity=Severity.WARNING, subject=f"{host}:mlag peer-address",
                expected="one device owning it", actual=sorted(entry[0] for entry in owner),
                message=f"{host}: MLAG peer {mlag['peer_address']} is an address of "
                f"{', '.join(sorted(entry[0] for entry in owner))}; the peer-link description names none of them: "
                "the pair is not checked"))
            continue
        if owner is None:
            findings.append(Finding(
                check=PEERS, severity=Severity.WARNING, subject=f"{host}:mlag peer-address",
                expected="a device in the set", actual=mlag["peer_address"],
                message=f"{host}: MLAG peer {mlag['peer_address']} is outside the configs given (external): the "
                "pair is not checked"))
            continue
        peer = owner[0]
        peer_mlag = ctx.structured[peer].get("mlag") or {}
        if peer < host and peer in members:
            continue  # the pair is judged once, from its lower end
        link = f"{host}:mlag domain-id<->{peer}:mlag domain-id"
        if not peer_mlag:
            findings.append(_error(f"{host}:mlag peer-address<->{peer}:{owner[1]}", "mlag configuration", None,
                                   f"{host} names {peer} ({owner[1]}) as MLAG peer but {peer} has no MLAG"))
            continue
        if peer_mlag["domain_id"] != mlag["domain_id"]:
            findings.append(_error(
                link, mlag["domain_id"], peer_mlag["domain_id"],
                f"MLAG domain-id {mlag['domain_id']} on {host} but {peer_mlag['domain_id']} on {peer}: the peers "
                "do not form one domain and both act alone"))
        back = owners.get(ip_to_int(peer_mlag["peer_address"]), []) if peer_mlag["peer_address"] else []
        if host not in {entry[0] for entry in back}:
            findings.append(_error(
                f"{host}:mlag peer-address<->{peer}:mlag peer-address", f"an address of {host}",
                peer_mlag["peer_address"], f"{host} peers with {peer} but {peer}'s MLAG peer-address "
                f"{peer_mlag['peer_address']} is not {host}'s"))
        findings += _dual_attached(host, config, peer, ctx.structured[peer])
    return findings


def _dual_attached(host: str, config: StructuredConfig, peer: str, peer_config: StructuredConfig) -> list[Finding]:
    """MLAG ids (``mlag N`` on a port-channel) present on one peer only."""
    ids = {bundle["mlag"]: bundle["name"] for bundle in config.get("port_channels") or [] if bundle["mlag"] is not None}
    peer_ids = {bundle["mlag"]: bundle["name"] for bundle in peer_config.get("port_channels") or []
                if bundle["mlag"] is not None}
    findings = []
    for mlag_id in sorted(ids.keys() ^ peer_ids.keys()):
        where, other = (host, peer) if mlag_id in ids else (peer, host)
        bundle = ids.get(mlag_id) or peer_ids[mlag_id]
        findings.append(_error(
            f"{where}:interface {bundle} mlag", f"mlag {mlag_id} on {other} too", None,
            f"{where}:{bundle} is MLAG {mlag_id} but {other} has no MLAG {mlag_id}: the dual-attached host sees "
            "two LACP partners and the bundle does not form across the pair"))
    return findings


CHECKS = {PEERS: check_peers}
