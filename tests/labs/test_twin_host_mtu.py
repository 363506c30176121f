"""Twin hosts configured from their rendered host files (issue 31 item 6), and the live host-to-host MTU probes
at the RoCE frame and the NIC MTU, with a planted leaf-port and host-NIC mismatch each caught and named."""

import time

import pytest

from compiler.api import compile_fabric
from compiler.host_config import build_host_configs
from compiler.parse.hosts import parse_netplan
from compiler.render.hosts import render_netplan
from compiler.scenario import snapshot_from_scenario
from labs import checks, measure, runtime
from labs.from_compile import topology_from_compile
from labs.shell import ns_exec
from labs.topology import validate_topology
from validators.findings import CheckStatus, Report

ROCE = [{"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True},
        {"name": "cnp", "dscp": [48], "priority": 6, "traffic_class": 6, "lossless": False}]


def scenario(host_mtu=9000, roce=True):
    return {"clos": {"spines": 1, "leaves": 2, "servers_per_leaf": 1, "platform": "frr"},
            "intent": {"name": "hostmtu", "host_mtu": host_mtu, "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                       "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                                     "gateway": "10.10.0.1", "attachments": "all"}],
                       **({"roce_classes": ROCE} if roce else {})}}


def test_hosts_take_mtu_and_addresses_from_the_rendered_host_config():
    snapshot = snapshot_from_scenario(scenario(host_mtu=8000))
    # the inventory's NICs keep their own (default) MTU: the twin must not use it
    assert {nic.mtu for server in snapshot.inventory.servers for nic in server.nics} == {9000}
    topology = topology_from_compile(compile_fabric(snapshot), name_prefix="fthm1")
    validate_topology(topology)
    configs = build_host_configs(snapshot)
    assert len(topology.hosts) == 2
    for host in topology.hosts:
        netplan = parse_netplan(render_netplan(configs[host.name]))
        for interface in host.interfaces:
            mtu, addresses, gateway = netplan[interface.ifname]
            assert (interface.mtu, interface.address, interface.gateway) == (mtu, addresses[0], gateway)
            assert interface.mtu == 8000 and interface.gateway == "10.10.0.1"
            assert interface.roce_mtu == 4096  # 8000 - 96 fits IB MTU 4096
    frames = {port.roce_frame for port in checks.host_ports(topology)}
    assert frames == {4096 + 96}
    # a NIC MTU of 4,000 gives RoCE MTU 2048 (issue 31); no RoCE class: no RoCE frame to probe
    small = topology_from_compile(compile_fabric(snapshot_from_scenario(scenario(host_mtu=4000))), name_prefix="fthm2")
    assert {i.roce_mtu for h in small.hosts for i in h.interfaces} == {2048}
    plain = topology_from_compile(compile_fabric(snapshot_from_scenario(scenario(roce=False))), name_prefix="fthm3")
    assert {port.roce_frame for port in checks.host_ports(plain)} == {0}


def _set_mtu(netns: str, ifname: str, mtu: int) -> None:
    ns_exec(netns, ["ip", "link", "set", "dev", ifname, "mtu", str(mtu)])


def _host_roce_mtu(state) -> tuple[Report, dict]:
    report = Report()
    measured = checks.check_host_roce_mtu(state, report)
    return report, measured


@pytest.mark.twin
@pytest.mark.usefixtures("twin_required")
def test_host_roce_mtu_probes_on_the_live_twin(tmp_path):
    """1 spine, 2 leaves, 2 hosts: both directions pass at 4,192 and 9,000 bytes and fail at 9,001; a leaf
    port lowered to 8,000, a host NIC lowered to 4,000 and one raised to 9,100 are each named with expected and
    probed MTU."""
    started = time.monotonic()
    topology = topology_from_compile(compile_fabric(snapshot_from_scenario(scenario())))
    state = runtime.up(topology, tmp_path)
    try:
        converge = Report()
        checks.check_bgp_sessions(state, converge, timeout_s=60)
        checks.check_evpn_flood_lists(state, converge, timeout_s=30)
        assert converge.ok, converge.as_text()
        report, measured = _host_roce_mtu(state)
        print(f"\n{report.as_text()}\n{measured}")
        assert report.checks["twin.host_roce_mtu"].status == CheckStatus.PASSED, report.as_text()
        assert len(measured) == 2
        for result in measured.values():
            assert result["mtu"] == 9000 and result["roce_frame"] == 4192 and result["passed_roce_frame"]
            assert result["passed_mtu"] and result["over_mtu_failed"] and result["path_mtu"] == 9000
        static = Report()
        checks.check_pfc_ecn(static)
        assert static.checks["twin.pfc_ecn"].status == CheckStatus.SKIPPED
        assert "NIC DCB" in static.checks["twin.pfc_ecn"].reason

        first, second = sorted(topology.hosts, key=lambda h: h.name)
        leaf_port = first.interfaces[0]
        # the port lives in its tenant VRF's namespace with the netns VRF backend
        leaf_netns, link = measure.switch_port_links(state, leaf_port.peer_node)[leaf_port.peer_ifname]
        original = link.mtu
        # broken 1: the leaf port facing the first host is 8,000: the RoCE frame still passes, 9,000 does not
        _set_mtu(leaf_netns, leaf_port.peer_ifname, 8000)
        report, measured = _host_roce_mtu(state)
        print(report.as_text())
        assert report.checks["twin.host_roce_mtu"].status == CheckStatus.FAILED
        findings = {f.subject: f for f in report.findings}
        subject = f"{leaf_port.peer_node}:{leaf_port.peer_ifname}"
        assert set(findings) == {subject}, report.as_text()
        # probed exactly in the direction the port sends (it receives 4 bytes over its MTU: room for a VLAN tag)
        assert (findings[subject].expected, findings[subject].actual) == (9000, 8000)
        assert sorted(result["path_mtu"] for result in measured.values()) == [8000, 8004]
        assert "MTU 8000 in the kernel" in findings[subject].message
        assert "still passes" in findings[subject].message
        assert all(result["passed_roce_frame"] and not result["passed_mtu"] for result in measured.values())
        _set_mtu(leaf_netns, leaf_port.peer_ifname, original)

        # broken 2: the second host's NIC is 4,000: below the 4,192-byte RoCE frame too
        nic = second.interfaces[0]
        _set_mtu(state.host_netns[second.name], nic.ifname, 4000)
        report, measured = _host_roce_mtu(state)
        print(report.as_text())
        findings = {f.subject: f for f in report.findings}
        subject = f"{second.name}:{nic.ifname}"
        assert set(findings) == {subject}, report.as_text()
        assert (findings[subject].expected, findings[subject].actual) == (9000, 4000)
        assert sorted(result["path_mtu"] for result in measured.values()) == [4000, 4004]
        assert "fails too" in findings[subject].message and findings[subject].message.startswith("host ")
        assert not any(result["passed_roce_frame"] for result in measured.values())
        _set_mtu(state.host_netns[second.name], nic.ifname, 9000)

        # broken 3: the first host's NIC is 9,100, above its host config: the probes still pass (the leaf port
        # drops 9,001 bytes, as it must), the MTU read back from the kernel names it
        _set_mtu(state.host_netns[first.name], first.interfaces[0].ifname, 9100)
        report, measured = _host_roce_mtu(state)
        print(report.as_text())
        findings = {f.subject: f for f in report.findings}
        subject = f"{first.name}:{first.interfaces[0].ifname}"
        assert set(findings) == {subject}, report.as_text()
        assert (findings[subject].expected, findings[subject].actual) == (9000, 9100)
        assert "read back 9100" in findings[subject].message
        assert all(result["passed_mtu"] and result["over_mtu_failed"] for result in measured.values())
    finally:
        runtime.down(state.prefix, tmp_path, force=True)
    print(f"twin test wall time {time.monotonic() - started:.1f} s")
