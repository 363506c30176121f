"""What the twin does not measure, said plainly so nobody reads a missing check as a pass:

- ``twin.pfc_ecn``       always skipped: veth has no PFC/ECN, verified statically only
- ``twin.l3vni_vrfs``    "static only" when the twin was booted without tenant VRFs
- ``twin.not_modelled``  the topology's own limitations (what ``labs.from_compile`` could not build)
- ``twin.static_only_config``  per switch, the parts of its own config the twin does not run (QoS, PFC, buffers,
  management, speeds) and the lines no parser models; what it does run is in ``measured["device_configs"]``
  (``labs.node_configs``)
- ``twin.subset``        a subset boot (``labs.subset``): the leaves, hosts and cables that were left out
"""

from __future__ import annotations

import re

from validators.findings import Report

from ..expect import NO_TENANT_VRFS
from ..runtime import TwinState

HOSTS_NAMED = 6  # a group of more switches names the first three and counts the rest
# "priority-flow-control (2 ports)" -> "priority-flow-control"; [^()], not [^)]: a run of " (" is not re-scanned
# to the end from each one (linear, tests/test_regex_budget.py).
_COUNT = re.compile(r" \([^()]*\)$")
PFC_ECN_REASON = ("verified statically only: veth devices support neither PFC (dcb pfc -> 'Operation not "
                  "supported') nor ECN marking queues (no red qdisc in this kernel); see docs/twin.md. The GPU "
                  "servers' NIC DCB/RoCE settings likewise: the hosts.* static checks (docs/hosts.md)")


def check_pfc_ecn(report: Report) -> None:
    report.skip("twin.pfc_ecn", PFC_ECN_REASON)


def device_configs_of(state: TwinState) -> dict[str, dict]:
    """Per switch: what it boots from, the parts of its config run live, static-only, not modelled
    (``labs.node_configs``; a twin booted from a hand-written topology has none)."""
    return dict((state.topology.get("extra") or {}).get("device_configs") or {})


def check_static_only_config(state: TwinState, report: Report) -> dict[str, dict]:
    """Skipped with, per group of switches with the same static-only parts, what of their own config the twin
    cannot run; returns the full per-switch account for ``measured``."""
    configs = device_configs_of(state)
    # Switches grouped by what is static-only, counts left out (they are per switch in measured), so the reason
    # stays a few lines at 1,000+ switches.
    groups: dict[tuple, list[str]] = {}
    unmodelled: dict[tuple, int] = {}
    for host, summary in configs.items():
        key = (summary["platform"], tuple(_COUNT.sub("", part) for part in summary["static_only"]))
        groups.setdefault(key, []).append(host)
        unmodelled[key] = unmodelled.get(key, 0) + summary.get("unmodelled_count", 0)
    parts = []
    for key, hosts in groups.items():
        platform, static_only = key
        named = ", ".join(hosts) if len(hosts) <= HOSTS_NAMED else f"{', '.join(hosts[:3])} and {len(hosts) - 3} more"
        text = f"{named} ({platform}): {'; '.join(static_only) or 'nothing'}"
        if unmodelled[key]:
            text += f"; {unmodelled[key]} lines/keys not modelled (neither run nor checked)"
        parts.append(text)
    if parts:
        report.skip("twin.static_only_config", "verified statically only, the twin cannot run them: "
                    + " | ".join(parts))
    return configs


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
