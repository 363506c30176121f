"""Live checks on a running twin: what the fabric actually does, as findings plus measured numbers.

One module per property; each measures through ``labs.measure`` (one function per measurement), compares with
what the topology predicts (``labs.expect``: cables, Linux plans, hosts' networks, so a twin booted from a
compiled fabric is checked against its own intent), records ``Finding``s into a ``validators.findings.Report``
(the project's one report type) and returns the numbers it measured:

- ``config``       ``twin.frr_config_load``  every frr.conf line was accepted by ``vtysh -b``
- ``bgp``          ``twin.bgp_sessions``     an Established session per fabric link and address family
- ``bfd``          ``twin.bfd_sessions``     BFD up on every fabric link where the config enables it
- ``evpn``         ``twin.evpn_flood_lists`` every VTEP floods each VNI to every other VTEP of it (EVPN type 3)
- ``ecmp``         ``twin.ecmp_width``       kernel next hops from each VTEP to each other VTEP loopback
- ``l3vni``        ``twin.l3vni_vrfs``, ``twin.l3vni_next_hops``  tenant VRFs/L3VNIs up; router MACs present
- ``ping``         ``twin.ping_bridged``, ``twin.ping_routed``, ``twin.tenant_isolation``
- ``mtu``          ``twin.host_mtu``, ``twin.link_mtu``  DF probes at exactly the MTU and one byte more;
                   ``twin.host_roce_mtu``  host to peer hosts at the RoCE frame and the host config's NIC MTU
- ``failover``     ``twin.failover_link``, ``twin.failover_spine``  convergence and outage of a flow
- ``static_only``  ``twin.pfc_ecn``, ``twin.not_modelled``, ``twin.static_only_config``  what the twin cannot
  measure, said as skipped; ``measured["device_configs"]`` says per switch what of its own config runs live

The names below stay importable from ``labs.checks`` as before (twins.services, changes.pipelines, ui,
``python -m labs``, bench).
"""

from __future__ import annotations

from validators.findings import Report

from ..expect import (
    NO_TENANT_VRFS,
    HostPort,
    classify_pair,
    expected_ecmp_widths,
    expected_flood_lists,
    expected_l3vnis,
    expected_sessions,
    host_ports,
    svi_networks,
)
from ..measure import (
    count_l3vni_host_routes,
    l3vni_next_hop_gaps,
    l3vni_relearn_enabled,
    l3vni_tables,
    measure_resources,
)
from ..runtime import TwinState
from ..runtime.sizing import CONVERGE_BASE_S, recorded_policy
from .bfd import check_bfd_sessions
from .bgp import check_bgp_sessions
from .config import check_config_load
from .ecmp import check_ecmp_width
from .evpn import check_evpn_flood_lists
from .failover import check_failover
from .l3vni import check_l3vni_vrfs, resync_l3vni_next_hops
from .mtu import check_host_mtu, check_host_roce_mtu, check_link_mtu
from .ping import check_ping_matrix, sample_pairs
from .static_only import (
    PFC_ECN_REASON,
    check_not_modelled,
    check_pfc_ecn,
    check_static_only_config,
    device_configs_of,
)

# The failover check's name before the package split (twins.services.twin_inject calls it).
inject_failure = check_failover

__all__ = [
    "NO_TENANT_VRFS", "PFC_ECN_REASON", "HostPort", "check_bfd_sessions", "check_bgp_sessions", "check_config_load",
    "check_ecmp_width", "check_evpn_flood_lists", "check_failover", "check_host_mtu", "check_host_roce_mtu",
    "check_l3vni_vrfs",
    "check_link_mtu", "check_not_modelled", "check_pfc_ecn", "check_ping_matrix", "check_static_only_config",
    "classify_pair", "device_configs_of",
    "count_l3vni_host_routes", "expected_ecmp_widths", "expected_flood_lists", "expected_l3vnis",
    "expected_sessions", "host_ports", "inject_failure", "l3vni_next_hop_gaps", "l3vni_tables", "measure_resources",
    "resync_l3vni_next_hops", "sample_pairs", "svi_networks", "verify",
]


def frr_record(state: TwinState) -> dict:
    """Which FRR ran (the version read from its zebra at boot) and whether the L3VNI `clear bgp *` workaround
    is applied for it (labs.measure.l3vni_relearn_enabled)."""
    frr = state.frr or {"release": "8.4", "version": "unknown (state file from before the FRR choice)"}
    return {"release": frr.get("release"), "version": frr.get("version"), "reason": frr.get("reason", ""),
            "l3vni_workaround": l3vni_relearn_enabled()}


def verify(state: TwinState, *, failover: bool = True, converge_timeout_s: float | None = None
           ) -> tuple[Report, dict]:
    """Run every live check in order; returns the report and the measured numbers. Waits scale with the twin
    (``converge_timeout_s`` defaults to its size policy's, labs.runtime.sizing)."""
    report = Report(f"twin {state.prefix} ({state.label})")
    measured: dict = {"frr": frr_record(state)}
    policy = recorded_policy(state.size_policy)
    converge_timeout_s = converge_timeout_s or (policy.converge_timeout_s if policy else CONVERGE_BASE_S)
    settle_s = max(30.0, converge_timeout_s / 2)  # BFD, flood lists, L3VNIs once the sessions are up
    if policy:
        measured["size_policy"] = policy.as_dict()
    check_config_load(state, report)
    measured["bgp"] = check_bgp_sessions(state, report, timeout_s=converge_timeout_s)
    measured["bfd"] = check_bfd_sessions(state, report, timeout_s=settle_s)
    measured["evpn"] = check_evpn_flood_lists(state, report, timeout_s=settle_s)
    measured["ecmp"] = check_ecmp_width(state, report)
    measured["l3vni"] = check_l3vni_vrfs(state, report, timeout_s=settle_s)
    measured["ping"] = check_ping_matrix(state, report)
    if measured["l3vni"]:
        measured["l3vni"]["host_routes_via_l3vni"] = count_l3vni_host_routes(state)
    measured["host_mtu"] = check_host_mtu(state, report)
    measured["link_mtu"] = check_link_mtu(state, report)
    measured["host_roce_mtu"] = check_host_roce_mtu(state, report)
    if failover:
        measured["failover_link"] = check_failover(state, report, scope="link")
        measured["failover_spine"] = check_failover(state, report, scope="spine")
    check_pfc_ecn(report)
    check_not_modelled(state, report)
    measured["device_configs"] = check_static_only_config(state, report)
    measured["resources"] = measure_resources(state)
    return report, measured
