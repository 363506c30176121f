"""What the twin does not measure, said plainly so nobody reads a missing check as a pass:

- ``twin.pfc_ecn``       always skipped: veth has no PFC/ECN, verified statically only
- ``twin.l3vni_vrfs``    "static only" when the twin was booted without tenant VRFs
- ``twin.not_modelled``  the topology's own limitations (what ``labs.from_compile`` could not build)
- ``twin.subset``        a subset boot (``labs.subset``): the leaves, hosts and cables that were left out
"""

from __future__ import annotations

from validators.findings import Report

from ..expect import NO_TENANT_VRFS
from ..runtime import TwinState

PFC_ECN_REASON = ("verified statically only: veth devices support neither PFC (dcb pfc -> 'Operation not "
                  "supported') nor ECN marking queues (no red qdisc in this kernel); see docs/twin.md")


def check_pfc_ecn(report: Report) -> None:
    report.skip("twin.pfc_ecn", PFC_ECN_REASON)


def check_not_modelled(state: TwinState, report: Report) -> None:
    topology = state.topology_obj()
    tenant_vrfs = sorted({vrf["name"] for node in topology.nodes for vrf in node.linux_plan.get("vrfs", [])})
    if tenant_vrfs and not state.tenant_vrfs_built:
        report.skip("twin.l3vni_vrfs", f"static only: {NO_TENANT_VRFS}, so tenant VRFs "
                    f"{', '.join(tenant_vrfs)} and their L3VNIs (symmetric IRB) are not built; routing between "
                    "networks is measured as asymmetric IRB in the default table")
    limitations = topology.extra.get("limitations", [])
    if limitations:
        report.skip("twin.not_modelled", "; ".join(limitations))
    subset = topology.extra.get("subset")
    if subset:
        left_out = subset["left_out_leaves"]
        report.skip("twin.subset", f"subset boot ({subset['selection'] or 'chosen leaves'}): {subset['switches']} switches "
                    f"twinned; not measured here: {len(left_out)} leaves ({', '.join(left_out[:8])}"
                    f"{' ...' if len(left_out) > 8 else ''}), {subset['left_out_hosts']} hosts, "
                    f"{subset['left_out_links']} cables; every check above covers the twinned switches only")
