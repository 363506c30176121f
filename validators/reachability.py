"""VTEP reachability: every leaf's VTEP loopback must be routed on every other leaf (the overlay's tunnels
ride on it). Uses the leaf-pair matrix of :mod:`validators.ecmp` and explains each unreachable pair: VTEP not
advertised, an ASN shared by the two leaves (eBGP loop prevention), no established session, or no loop-free
path at all. A pair the IGP underlay connects (OSPF/IS-IS, :mod:`validators.igp`) is reached: its route is the
IGP's, and ``routing.igp`` judges it. A set holding several fabrics with nothing stated between them (no cable, no
BGP neighbor; FabricContext.fabric_parts) is judged per fabric: a pair across two of them is reported as an info,
never as an error, since no line of either config asks for a route between them.
"""

from __future__ import annotations

from validators.common import CheckSkipped, short_list
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.leaf_pairs import pair_subject
from validators.routing import propagate

REACHABILITY = "routing.vtep_reachability"


def check_vtep_reachability(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    matrix = ctx.leaf_pairs
    leaves = len(matrix.leaves)
    ctx.record_examined(REACHABILITY, {"VTEP leaves": leaves, "leaf pairs": leaves * (leaves - 1)})
    model = matrix.model
    findings: list[Finding] = []
    if model.unresolved_vteps:
        sources = sorted({(ctx.structured[host].get("vxlan") or {}).get("source_interface") or "?"
                          for host in model.unresolved_vteps})
        findings.append(Finding(
            check=REACHABILITY, severity=Severity.INFO, subject="unresolved VTEPs", expected=None,
            actual=len(model.unresolved_vteps),
            message=f"{len(model.unresolved_vteps)} VTEP(s) not judged ({', '.join(model.unresolved_vteps[:5])}): "
            f"their VXLAN source ({', '.join(sources)}) is no loopback the model reads (a WAN path-selection "
            "interface is routed over transports these configs do not describe)"))
    if leaves < 2:
        if findings:
            ctx.record_examined(REACHABILITY, {"VTEP leaves": leaves, "unresolved VTEPs": len(model.unresolved_vteps)})
            return findings
        raise CheckSkipped("fewer than two VTEP leaves")
    parts = ctx.fabric_parts
    across = sum(1 for o in matrix.leaves for r in matrix.leaves if parts[o] != parts[r])
    if across:
        findings.append(Finding(
            check=REACHABILITY, severity=Severity.INFO, subject="fabric parts", expected=None,
            actual=len(set(parts.values())),
            message=f"these configs hold {len(set(parts.values()))} fabrics with no cable or BGP session between "
            f"them: {across} leaf pairs across them are not judged"))
    # Devices that export the default VRF into EVPN (EOS `vrf default` with EVPN route targets, a VRF-VNI for
    # "default": AVD's WAN edge) carry underlay routes as EVPN type-5 routes over the overlay (RFC 9136), which the
    # path-vector model does not simulate: a pair it finds unreachable in such a part may be reached that way.
    overlay_carried = {parts[host] for host, config in ctx.structured.items()
                       if "default" in ((config.get("vxlan") or {}).get("vrf_vnis") or {})}
    not_judged = 0
    for origin_class, receiver_class, count in matrix.class_pairs():
        width = matrix.widths[(origin_class, receiver_class)][0]
        if width:
            continue
        # MLAG peers sharing one VTEP address (EOS MLAG with a common Loopback1) are one VTEP: nothing to reach.
        broken = [(o, r) for o, r in matrix.pairs_in(origin_class, receiver_class)
                  if matrix.overrides.get((o, r), 0) == 0
                  and model.vtep_prefix[matrix.leaf_devices[o]] != model.vtep_prefix[matrix.leaf_devices[r]]
                  and not _over_igp(ctx, matrix, o, r) and parts[matrix.leaves[o]] == parts[matrix.leaves[r]]]
        carried_over_evpn = [pair for pair in broken if parts[matrix.leaves[pair[0]]] in overlay_carried]
        not_judged += len(carried_over_evpn)
        broken = [pair for pair in broken if parts[matrix.leaves[pair[0]]] not in overlay_carried]
        if not broken:
            continue
        origin_signature = matrix.signatures[origin_class]
        o, r = broken[0]
        origin_device, receiver_device = matrix.leaf_devices[o], matrix.leaf_devices[r]
        if not origin_signature.advertises and matrix.mode == "leaf-spine" or \
                model.vtep_prefix[origin_device] not in model.networks[origin_device]:
            reason = f"{matrix.leaves[o]} does not advertise its VTEP {model.vtep_prefix[origin_device]} in BGP"
        elif model.asn[origin_device] == model.asn[receiver_device]:
            reason = (f"{matrix.leaves[o]} and {matrix.leaves[r]} share AS {model.asn[origin_device]}: eBGP loop "
                      "prevention drops the route (RFC 4271 9.1.2)")
        elif not model.adjacency[receiver_device] or not model.adjacency[origin_device]:
            lonely = matrix.leaves[r] if not model.adjacency[receiver_device] else matrix.leaves[o]
            reason = f"{lonely} has no established BGP session"
        elif denials := _policy_denials(model, origin_device, receiver_device):
            reason = f"a neighbor policy denies the route: {'; '.join(denials[:3])}"
        else:
            reason = "no loop-free AS path between them over the established sessions"
        if len(broken) <= 3:
            for o, r in broken:
                findings.append(Finding(
                    check=REACHABILITY, severity=Severity.ERROR, subject=f"{matrix.leaves[r]}->{matrix.leaves[o]}",
                    expected="a route", actual=None,
                    message=f"{matrix.leaves[r]} has no route to {matrix.leaves[o]}'s VTEP "
                    f"{model.vtep_prefix[matrix.leaf_devices[o]]}: {reason}"))
        else:
            subject, _pairs = pair_subject(matrix, origin_class, receiver_class)
            findings.append(Finding(
                check=REACHABILITY, severity=Severity.ERROR, subject=subject, expected="a route", actual=None,
                message=f"{len(broken)} of {count} leaf pairs have no route to the VTEP loopback "
                f"(e.g. {matrix.leaves[r]}->{matrix.leaves[o]}): {reason}"))
    if not_judged:
        gateways = sorted(host for host, config in ctx.structured.items()
                          if "default" in ((config.get("vxlan") or {}).get("vrf_vnis") or {}))
        findings.append(Finding(
            check=REACHABILITY, severity=Severity.INFO, subject="default VRF over EVPN", expected=None,
            actual=not_judged,
            message=f"{not_judged} leaf pair(s) without a BGP underlay route not judged: {short_list(gateways)} "
            "carry the default VRF over EVPN (type-5 routes, RFC 9136), which the routing model does not simulate"))
    return findings


def _policy_denials(model, origin: int, receiver: int) -> list[str]:
    """The route-map / prefix-list lines that stopped ``origin``'s VTEP route on its way (empty when there are no
    policies or none stopped it), in the order the propagation met them."""
    if not model.policies:
        return []
    denials: list = []
    routes = propagate(model, origin, prefix=model.vtep_prefix[origin], denials=denials)
    if receiver in routes:
        return []
    return list(dict.fromkeys(decision.cite for decision in denials))


def _over_igp(ctx, matrix, origin: int, receiver: int) -> bool:
    """True when the receiver routes to the origin's VTEP over the IGP underlay."""
    prefix = matrix.model.vtep_prefix[matrix.leaf_devices[origin]]
    return bool(ctx.igp.graph) and bool(prefix) and ctx.igp.route_width(matrix.leaves[receiver], prefix) > 0
