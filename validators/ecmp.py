"""Check routing.ecmp: every VTEP pair has the designed ECMP width (the number of spines both leaves are cabled
to), read from the leaf-pair matrix (:mod:`validators.leaf_pairs`) that the context builds once per run.
"""

from __future__ import annotations

from collections import defaultdict

from validators.common import CheckSkipped, short_list
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.leaf_pairs import pair_subject, side

ECMP = "routing.ecmp"


def check_ecmp(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    matrix = ctx.leaf_pairs
    findings: list[Finding] = []
    if not matrix.leaves:
        raise CheckSkipped("no VTEP leaves")
    if matrix.mode != "leaf-spine":
        raise CheckSkipped(f"designed ECMP widths are defined for two-tier leaf-spine fabrics; this one is "
                           f"{matrix.mode} (reachability is still checked)")
    leaves = len(matrix.leaves)
    ctx.record_examined(ECMP, {"leaf pairs": leaves * (leaves - 1)})
    tier = matrix.tier
    assert tier is not None  # leaf-spine mode (checked above) always has a spine tier
    mismatches = []
    for origin_class, receiver_class, count in matrix.class_pairs():
        designed, designed_mask = matrix.designed[(origin_class, receiver_class)]
        width, mask = matrix.widths[(origin_class, receiver_class)]
        if width == 0:
            # Reachable only over longer (valley) paths found by propagation: degraded, not designed.
            valley = [(o, r, matrix.overrides[(o, r)]) for o, r in matrix.pairs_in(origin_class, receiver_class)
                      if matrix.overrides.get((o, r))]
            if valley:
                o, r, valley_width = valley[0]
                subject, _pairs = pair_subject(matrix, origin_class, receiver_class)
                findings.append(Finding(
                    check=ECMP, severity=Severity.ERROR, subject=subject, expected=designed, actual=valley_width,
                    message=f"{len(valley)} leaf pair(s) (e.g. {matrix.leaves[r]}->{matrix.leaves[o]}) reach each other only "
                    f"over a path through another leaf (ECMP {valley_width}, designed {designed})"))
            continue  # unreachable pairs are the reachability check's findings
        if width == designed:
            continue
        missing = tuple(tier.spine_names(designed_mask & ~mask))
        receiver = matrix.signatures[receiver_class]
        why = f"missing paths via {short_list(missing, 6)}" if missing else (
            f"maximum_paths {receiver.maximum_paths} caps it" if width == receiver.maximum_paths else
            "fewer parallel sessions than cabled")
        mismatches.append((origin_class, receiver_class, count, designed, width, why))
    # Merge class pairs with the same story so one broken leaf gives one finding per direction, whatever the
    # classes of the other leaves (an ASN-collision class, say): first over receivers, then over origins.
    by_origin: dict[tuple, list] = defaultdict(list)
    for origin_class, receiver_class, count, designed, width, why in mismatches:
        by_origin[(origin_class, designed, width, why)].append((receiver_class, count))
    by_receivers: dict[tuple, list] = defaultdict(list)
    for (origin_class, designed, width, why), receivers in by_origin.items():
        key = (tuple(sorted(r for r, _c in receivers)), designed, width, why)
        by_receivers[key].append((origin_class, sum(c for _r, c in receivers)))
    for (receiver_classes, designed, width, why), origins in by_receivers.items():
        receivers = [matrix.leaves[m] for c in receiver_classes for m in matrix.members[c]]
        origin_leaves = [matrix.leaves[m] for c, _n in origins for m in matrix.members[c]]
        count = sum(n for _c, n in origins)
        findings.append(Finding(
            check=ECMP, severity=Severity.ERROR, subject=f"{side(receivers)}->{side(origin_leaves)}",
            expected=designed, actual=width,
            message=f"ECMP width {width} instead of the designed {designed} ({why}); {count} leaf pair(s) affected"))
    return findings
