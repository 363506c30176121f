"""VTEP reachability: every leaf's VTEP loopback must be routed on every other leaf (the overlay's tunnels
ride on it). Uses the leaf-pair matrix of :mod:`validators.ecmp` and explains each unreachable pair: VTEP not
advertised, an ASN shared by the two leaves (eBGP loop prevention), no established session, or no loop-free
path at all. A pair the IGP underlay connects (OSPF/IS-IS, :mod:`validators.igp`) is reached: its route is the
IGP's, and ``routing.igp`` judges it.
"""

from __future__ import annotations

from validators.common import CheckSkipped
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.leaf_pairs import pair_subject

REACHABILITY = "routing.vtep_reachability"


def check_vtep_reachability(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    matrix = ctx.leaf_pairs
    leaves = len(matrix.leaves)
    ctx.record_examined(REACHABILITY, {"VTEP leaves": leaves, "leaf pairs": leaves * (leaves - 1)})
    if leaves < 2:
        raise CheckSkipped("fewer than two VTEP leaves")
    model = matrix.model
    findings: list[Finding] = []
    for origin_class, receiver_class, count in matrix.class_pairs():
        width = matrix.widths[(origin_class, receiver_class)][0]
        if width:
            continue
        # MLAG peers sharing one VTEP address (EOS MLAG with a common Loopback1) are one VTEP: nothing to reach.
        broken = [(o, r) for o, r in matrix.pairs_in(origin_class, receiver_class)
                  if matrix.overrides.get((o, r), 0) == 0
                  and model.vtep_prefix[matrix.leaf_devices[o]] != model.vtep_prefix[matrix.leaf_devices[r]]
                  and not _over_igp(ctx, matrix, o, r)]
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
    return findings


def _over_igp(ctx, matrix, origin: int, receiver: int) -> bool:
    """True when the receiver routes to the origin's VTEP over the IGP underlay."""
    prefix = matrix.model.vtep_prefix[matrix.leaf_devices[origin]]
    return bool(ctx.igp.graph) and bool(prefix) and ctx.igp.route_width(matrix.leaves[receiver], prefix) > 0
