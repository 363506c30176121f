"""Host <-> switch checks (issue 31): a correct fabric passes every hosts.* check that applies; each host-side
fault (the issue's fault table) fails exactly the checks it should, naming server, NIC, switch port, expected and
actual; the read-back state given as ``ValidationInput.hosts`` is what is judged."""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import pytest
from validator_fabrics import ROCE, intent_for

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.host_config import HostConfig, build_host_configs, kernel_gid_table
from compiler.model import Cable, Endpoint, RoceClass, Snapshot
from validators import hosts
from validators.context import ValidationInput
from validators.findings import CheckStatus, Severity
from validators.run import validate_fabric


@lru_cache(maxsize=4)
def fabric(rails: int = 2, servers_per_leaf: int = 4, roce_classes: tuple[RoceClass, ...] | None = None):
    inventory = plan_clos(ClosParams(name="h", spines=2, leaves=4, servers_per_leaf=servers_per_leaf,
                                     rails_per_server=rails))
    intent = intent_for(inventory)
    if roce_classes is not None:
        intent = dataclasses.replace(intent, roce_classes=roce_classes)
    return compile_fabric(Snapshot(inventory, intent), platforms=[])


def run(result, hosts_state=None, snapshot=None):
    source = ValidationInput(structured=result.structured, snapshot=snapshot or result.snapshot, hosts=hosts_state)
    return validate_fabric(source, checks=["hosts"])


def failed(report) -> set[str]:
    return {name for name, check in report.checks.items() if check.status == CheckStatus.FAILED}


def with_nic(state: dict[str, HostConfig], server: str, nic: str, **changes) -> dict[str, HostConfig]:
    host = state[server]
    nics = tuple(dataclasses.replace(item, **changes) if item.name == nic else item for item in host.nics)
    return {**state, server: dataclasses.replace(host, nics=nics)}


def with_env(state: dict[str, HostConfig], server: str, **env) -> dict[str, HostConfig]:
    host = state[server]
    current = dict(host.nccl_env)
    for key, value in env.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
    return {**state, server: dataclasses.replace(host, nccl_env=tuple(current.items()))}


def test_correct_fabric_passes_every_host_check():
    result = fabric()
    report = run(result)
    assert failed(report) == set()
    assert [f for f in report.findings if f.severity != Severity.INFO] == []
    ran = {name for name, check in report.checks.items() if check.status == CheckStatus.PASSED}
    assert ran == set(hosts.CHECKS) - {hosts.PLANE}  # every check examined something but the multiplane one:
    assert report.checks[hosts.PLANE].status == CheckStatus.SKIPPED  # no server of this fabric is multi-plane
    assert "no multi-plane server" in report.checks[hosts.PLANE].reason
    assert report.checks["hosts.pfc"].examined == {"server NIC links": 4 * 2 * 2}  # 2 groups x 4 servers x 2 rails


# The fault table: (name, how the host state is broken, the checks that must fail).
FAULTS = [
    ("DSCP 24 instead of 26 at the NIC",
     lambda s: with_env(with_nic(s, "gpu0001", "eth0", roce_tos=96), "gpu0001", NCCL_IB_TC="96", NCCL_IB_FIFO_TC="96"),
     {"hosts.roce_tos", "hosts.nccl_tc", "hosts.nccl_fifo_tc"}),
    ("PFC on priority 4", lambda s: with_nic(s, "gpu0001", "eth0", pfc_priorities=(4,)), {"hosts.pfc"}),
    ("trust pcp", lambda s: with_nic(s, "gpu0001", "eth0", trust="pcp"), {"hosts.trust"}),
    ("CNP DSCP 4 (NIC Configuration Operator default) vs the switch's 48",
     lambda s: with_nic(s, "gpu0001", "eth0", cnp_dscp=4), {"hosts.cnp"}),
    ("notification point off", lambda s: with_nic(s, "gpu0001", "eth1", ecn_np=()), {"hosts.ecn"}),
    ("netdev MTU 4000 (RoCE MTU 2048)", lambda s: with_nic(s, "gpu0001", "eth0", mtu=4000), {"hosts.roce_mtu"}),
    ("NCCL_IB_TC unset", lambda s: with_env(s, "gpu0001", NCCL_IB_TC=None), {"hosts.nccl_tc"}),
    ("global pause on", lambda s: with_nic(s, "gpu0001", "eth0", global_pause=True), {"hosts.global_pause"}),
    ("PCIe Gen4 x16 under a 400G port", lambda s: with_nic(s, "gpu0001", "eth0", pcie_gen=4), {"hosts.pcie"}),
    ("FIFO TC in the lossy bulk class (DSCP 10)",
     lambda s: with_env(s, "gpu0001", NCCL_IB_FIFO_TC="40"), {"hosts.nccl_fifo_tc"}),
    ("RoCE v1", lambda s: with_nic(s, "gpu0001", "eth0", roce_mode="v1"), {"hosts.roce_version"}),
    ("NCCL RoCE version 1", lambda s: with_env(s, "gpu0001", NCCL_IB_ROCE_VERSION_NUM="1"), {"hosts.roce_version"}),
    ("DSCP 26 mapped to priority 5 at the NIC",
     lambda s: with_nic(s, "gpu0001", "eth0", dscp_to_priority=((26, 5), (48, 6))), {"hosts.dscp_priority"}),
    ("NIC MTU 9216 over a 9000 port", lambda s: with_nic(s, "gpu0001", "eth0", mtu=9216),
     {"hosts.mtu", "hosts.overlay_mtu"}),
    ("NIC at 200G on a 400G port", lambda s: with_nic(s, "gpu0001", "eth0", speed_gbps=200), {"hosts.speed"}),
    ("NCCL_IB_GID_INDEX=1: the link-local default GID", lambda s: with_env(s, "gpu0001", NCCL_IB_GID_INDEX="1"),
     {"hosts.gid"}),
    ("NCCL_IB_GID_INDEX=2: the RoCE v1 GID", lambda s: with_env(s, "gpu0001", NCCL_IB_GID_INDEX="2"), {"hosts.gid"}),
    ("NCCL_IB_GID_INDEX=7: no such GID", lambda s: with_env(s, "gpu0001", NCCL_IB_GID_INDEX="7"), {"hosts.gid"}),
    ("cable_len 3 m on a 2 m cable (too long is waste, still a mismatch)",
     lambda s: with_nic(s, "gpu0001", "eth0", cable_length_m=3), {"hosts.cable_length"}),
]


@pytest.mark.parametrize(("name", "breaks", "checks"), FAULTS, ids=[fault[0] for fault in FAULTS])
def test_each_host_fault_is_caught_by_its_checks(name, breaks, checks):
    result = fabric()
    state = build_host_configs(result.snapshot)
    report = run(result, breaks(state))
    assert failed(report) == checks, name
    for finding in report.findings:
        if finding.severity == Severity.ERROR:
            assert finding.subject.startswith("gpu0001:eth")  # server and NIC ...
            assert "<->leaf" in finding.subject  # ... and the switch port
            assert "expected" in finding.message and "actual" in finding.message
    # the broken state is the only difference: the intended state passes
    assert failed(run(result, state)) == set()


def _nic(state: dict[str, HostConfig], server: str, name: str):
    return next(nic for nic in state[server].nics if nic.name == name)


def test_gid_index_judged_on_the_table_read_back():
    """The GID table read back (gids.txt) is what is judged: the kernel's own order passes; a global IPv6 address
    added before the IPv4 one (SLAAC) moves the IPv4 RoCE v2 GID to index 5, so index 3 is an IPv6 GID; with
    NCCL_IB_GID_INDEX unset (NCCL >= 2.21 picks) any RoCE v2 GID of the NIC's address passes, none fails."""
    result = fabric()
    state = build_host_configs(result.snapshot)
    nic = _nic(state, "gpu0001", "eth0")
    assert nic.addresses
    read_back = kernel_gid_table(nic.name, nic.addresses)
    assert (read_back[3].roce_type, read_back[3].ipv4) == ("RoCE v2", nic.addresses[0].split("/")[0])
    assert failed(run(result, with_nic(state, "gpu0001", "eth0", gid_table=read_back))) == set()
    slaac = kernel_gid_table(nic.name, ("2001:db8:0:2::10/64",) + nic.addresses)
    report = run(result, with_nic(state, "gpu0001", "eth0", gid_table=slaac))
    assert failed(report) == {"hosts.gid"}
    finding = report.checks["hosts.gid"].findings[0]
    assert finding.subject.startswith("gpu0001:eth0<->leaf")
    assert finding.expected.endswith("(index 5)") and finding.actual == "index 3: 2001:db8:0:2::10 (RoCE v2)"
    assert "not an IPv4 address of the NIC" in finding.message
    auto = with_env(state, "gpu0001", NCCL_IB_GID_INDEX=None)
    assert failed(run(result, with_nic(auto, "gpu0001", "eth0", gid_table=slaac))) == set()
    v1_only = tuple(entry for entry in slaac if entry.roce_type != "RoCE v2")
    report = run(result, with_nic(auto, "gpu0001", "eth0", gid_table=v1_only))
    assert failed(report) == {"hosts.gid"} and "none in the table" in report.checks["hosts.gid"].findings[0].actual


def _multiplane_snapshot(rewire: bool = True) -> Snapshot:
    """A dual-plane fabric: DGX-B300-2P servers, each rail's SuperNIC split into two PFs (eth0 plane 0, eth1 plane
    1, both rail 0); leaves alternate planes, each reaching only its plane's spines (spines 1-2 plane 0, 3-4 plane
    1). ``rewire=False`` keeps the planner's full mesh: every leaf reaches both planes."""
    inventory = plan_clos(ClosParams(name="mp", spines=4, leaves=4, servers_per_leaf=2, rails_per_server=2, planes=2))
    spine_plane = {switch.hostname: switch.plane for switch in inventory.switches if switch.role == "spine"}
    assert sorted(spine_plane.values()) == [0, 0, 1, 1]
    leaf_plane = {f"leaf{index}": (index - 1) % 2 for index in range(1, 5)}
    cables = tuple(cable for cable in inventory.cables if not rewire or not (
        cable.a.device in leaf_plane and cable.b.device in spine_plane
        and spine_plane[cable.b.device] != leaf_plane[cable.a.device]))
    servers = tuple(dataclasses.replace(server, model="DGX-B300-2P", nics=tuple(
        dataclasses.replace(nic, rail=0) for nic in server.nics)) for server in inventory.servers)
    inventory = dataclasses.replace(inventory, cables=cables, servers=servers)
    return Snapshot(inventory, intent_for(inventory))


def test_multiplane_each_plane_reaches_its_own_spine_plane():
    snapshot = _multiplane_snapshot()
    result = compile_fabric(snapshot, platforms=[])
    report = run(result)
    assert failed(report) == set() and [f for f in report.findings if f.severity == Severity.ERROR] == []
    assert report.checks[hosts.PLANE].status == CheckStatus.PASSED
    assert report.checks[hosts.PLANE].examined == {"multi-plane NIC ports": 4 * 2}  # 4 servers x 2 planes


def test_multiplane_leaf_reaching_both_planes_merges_them():
    result = compile_fabric(_multiplane_snapshot(rewire=False), platforms=[])
    findings = run(result).checks[hosts.PLANE].findings
    assert len(findings) == 8 and {finding.actual for finding in findings} == {"spine plane(s) [0, 1]"}
    assert "merges planes that must stay independent" in findings[0].message
    assert findings[0].subject.startswith("gpu0001:eth0<->leaf1:")


def test_multiplane_port_on_the_other_planes_leaf():
    snapshot = _multiplane_snapshot()
    inventory = snapshot.inventory
    eth0, eth1 = inventory.cable_at[Endpoint("gpu0001", "eth0")], inventory.cable_at[Endpoint("gpu0001", "eth1")]
    swapped = {eth0.label: dataclasses.replace(eth0, b=eth1.b), eth1.label: dataclasses.replace(eth1, b=eth0.b)}
    cables = tuple(swapped.get(cable.label, cable) for cable in inventory.cables)
    snapshot = dataclasses.replace(snapshot, inventory=dataclasses.replace(inventory, cables=cables))
    findings = run(compile_fabric(snapshot, platforms=[]), snapshot=snapshot).checks[hosts.PLANE].findings
    assert [(f.subject.split("<->")[0], f.expected, f.actual) for f in findings] == [
        ("gpu0001:eth0", "spine plane 0 only", "spine plane(s) [1]"),
        ("gpu0001:eth1", "spine plane 1 only", "spine plane(s) [0]")]
    assert "carries plane 0 into another plane" in findings[0].message


def test_multiplane_rail_missing_a_plane_port():
    snapshot = _multiplane_snapshot()
    inventory = snapshot.inventory
    servers = tuple(dataclasses.replace(server, nics=server.nics[:1]) if server.name == "gpu0002" else server
                    for server in inventory.servers)
    cables = tuple(cable for cable in inventory.cables if cable.a != Endpoint("gpu0002", "eth1"))
    snapshot = dataclasses.replace(snapshot, inventory=dataclasses.replace(inventory, servers=servers, cables=cables))
    findings = run(compile_fabric(snapshot, platforms=[]), snapshot=snapshot).checks[hosts.PLANE].findings
    assert [(f.subject, f.expected, f.actual) for f in findings] == [("gpu0002:rail0", "2 NIC ports", "1 (eth0)")]
    assert "swplb, 2 planes (DGX-B300-2P)" in findings[0].message


def test_catalogue_multiplane_entries_fit_their_nics():
    from compiler.nics import SERVER_MODELS, catalogue_problems

    assert catalogue_problems() == []
    assert {name for name, model in SERVER_MODELS.items() if model.planes > 1} == {"DGX-B300-2P", "DGX-B300-4P"}


def test_cable_length_3m_on_a_30m_cable():
    result = fabric()
    inventory = result.snapshot.inventory
    endpoint = Endpoint("gpu0001", "eth0")
    long = dataclasses.replace(inventory.cable_at[endpoint], length_m=30.0)
    cables = tuple(long if cable.label == long.label else cable for cable in inventory.cables)
    snapshot = dataclasses.replace(result.snapshot, inventory=dataclasses.replace(inventory, cables=cables))
    intended = build_host_configs(snapshot)
    assert next(nic for nic in intended["gpu0001"].nics if nic.name == "eth0").cable_length_m == 30
    report = run(result, with_nic(intended, "gpu0001", "eth0", cable_length_m=3), snapshot=snapshot)
    assert failed(report) == {"hosts.cable_length"}
    finding = report.checks["hosts.cable_length"].findings[0]
    assert finding.expected == "30 m" and finding.actual == "3 m"
    assert "overflow" in finding.message


def test_nic_on_the_wrong_rail():
    result = fabric()
    inventory = result.snapshot.inventory
    eth0, eth1 = (inventory.cable_at[Endpoint("gpu0001", name)] for name in ("eth0", "eth1"))

    def swapped(cable: Cable, nic: str) -> Cable:
        server_end = Endpoint("gpu0001", nic)
        return dataclasses.replace(cable, a=server_end, b=cable.other_end(Endpoint("gpu0001", "eth1" if nic == "eth0"
                                                                                    else "eth0")))
    cables = tuple(cable for cable in inventory.cables if cable.label not in (eth0.label, eth1.label))
    cables += (swapped(eth0, "eth1"), swapped(eth1, "eth0"))
    snapshot = dataclasses.replace(result.snapshot, inventory=dataclasses.replace(inventory, cables=cables))
    report = run(result, build_host_configs(snapshot), snapshot=snapshot)
    assert "hosts.rail" in failed(report)
    subjects = {finding.subject for finding in report.checks["hosts.rail"].findings}
    assert subjects == {"gpu0001:eth1<->leaf1:Ethernet1/1", "gpu0001:eth0<->leaf2:Ethernet1/1"}


def test_two_nics_of_one_server_on_one_leaf():
    result = fabric()
    state = build_host_configs(result.snapshot)
    inventory = result.snapshot.inventory
    eth1 = inventory.cable_at[Endpoint("gpu0001", "eth1")]
    leaf_end = eth1.other_end(Endpoint("gpu0001", "eth1"))
    # eth1 recabled to a free port of eth0's leaf (leaf1)
    moved = dataclasses.replace(eth1, b=Endpoint("leaf1", leaf_end.interface.replace("1/1", "1/9")), a=Endpoint("gpu0001", "eth1"))
    cables = tuple(moved if cable.label == eth1.label else cable for cable in inventory.cables)
    snapshot = dataclasses.replace(result.snapshot, inventory=dataclasses.replace(inventory, cables=cables))
    structured = dict(result.structured)
    leaf1 = dict(structured["leaf1"])
    port = dict(next(i for i in leaf1["interfaces"] if i["kind"] == "server"), name=moved.b.interface,
                peer_interface="eth1")
    leaf1["interfaces"] = [*leaf1["interfaces"], port]
    structured["leaf1"] = leaf1
    report = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot, hosts=state), checks=["hosts.rail"])
    messages = [finding.message for finding in report.checks["hosts.rail"].findings]
    assert any("2 NICs on leaf1" in message for message in messages)


def test_pfc_only_intent_asks_no_ecn():
    pfc_only = dataclasses.replace(ROCE, ecn_min_kb=0, ecn_max_kb=0, ecn_mark_probability=0)
    result = fabric(roce_classes=(pfc_only,))
    state = build_host_configs(result.snapshot)
    assert all(nic.ecn_rp == () for host in state.values() for nic in host.nics)
    report = run(result, with_nic(state, "gpu0001", "eth0", ecn_np=()))
    assert report.checks["hosts.ecn"].status == CheckStatus.SKIPPED  # nothing to judge: no class marks ECN
    assert failed(report) == set()


def test_tos_106_is_dscp_26_with_ect():
    result = fabric()
    state = with_nic(build_host_configs(result.snapshot), "gpu0001", "eth0", roce_tos=106)
    assert failed(run(result, state)) == set()


def test_generic_dcb_nic_is_a_capability_warning_not_an_error():
    result = fabric()
    snapshot = result.snapshot
    servers = tuple(dataclasses.replace(server, model="Generic-E810") if server.name == "gpu0002" else server
                    for server in snapshot.inventory.servers)
    # E810 is a 100G Gen4 NIC: keep the fabric at 400G and only look at the capability/ECN/CNP verdicts
    snapshot = dataclasses.replace(snapshot, inventory=dataclasses.replace(snapshot.inventory, servers=servers))
    report = validate_fabric(ValidationInput(structured=result.structured, snapshot=snapshot),
                             checks=["hosts.capability", "hosts.ecn", "hosts.cnp", "hosts.pfc"])
    capability = report.checks["hosts.capability"]
    assert capability.status == CheckStatus.PASSED  # warnings never fail
    features = {finding.expected for finding in capability.findings if finding.subject == "gpu0002"}
    assert features == {"cable_length", "cnp", "ecn"}
    assert all(finding.severity == Severity.WARNING for finding in capability.findings)
    assert report.checks["hosts.ecn"].examined == {"server NIC links": 4 * 2 * 2 - 2}  # gpu0002's NICs not judged


def test_without_servers_the_host_checks_skip_with_the_reason():
    report = validate_fabric(fabric().structured, checks=["hosts"])
    assert all(check.status == CheckStatus.SKIPPED for check in report.checks.values())
    assert report.checks["hosts.mtu"].reason == hosts.NO_HOSTS


def test_validate_configs_reads_host_files_beside_switch_configs():
    from compiler.render import render_device
    from compiler.render.hosts import render_host
    from validators.configs import validate_configs

    result = fabric()
    files = {host: render_device(config, config["platform"]) for host, config in result.structured.items()}
    intended = build_host_configs(result.snapshot)
    files.update({server: render_host(config) for server, config in intended.items()})
    validation = validate_configs(files, checks=["hosts"])
    assert failed(validation.report) == set()
    assert validation.report.checks["hosts.pfc"].examined == {"server NIC links": 16}
    assert validation.host_unmodelled == []
    broken = dict(files, gpu0003=dict(files["gpu0003"]))
    broken["gpu0003"]["nic-qos.sh"] = broken["gpu0003"]["nic-qos.sh"].replace(
        "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0", "mlnx_qos -i eth1 --pfc 0,0,0,0,1,0,0,0")
    broken["gpu0003"]["nccl.env"] = broken["gpu0003"]["nccl.env"].replace("NCCL_IB_TC=104\n", "")
    report = validate_configs(broken, checks=["hosts"]).report
    assert failed(report) == {"hosts.pfc", "hosts.nccl_tc"}
    assert {f.subject for f in report.checks["hosts.pfc"].findings} == {"gpu0003:eth1<->leaf2:Ethernet3/1"}
