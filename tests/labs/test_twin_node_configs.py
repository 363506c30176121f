"""Each switch's own config -> its twin node (pure: no namespaces, no FRR): EOS from its parsed startup-config,
SONiC from its own frr.conf + the Linux side of its config_db.json; faults that exist only in the vendor text
reach the node; the per-switch account of what runs live and what stays static-only comes from the parse."""

import json
from functools import cache

import pytest

from compiler.api import compile_fabric
from compiler.errors import TwinError
from compiler.scenario import snapshot_from_scenario
from labs import checks, runtime
from labs.checks import check_static_only_config, device_configs_of
from labs.from_compile import topology_from_compile
from labs.node_configs import node_from_own_config, summary_text, twin_node_files
from labs.runtime import TwinState
from labs.topology import validate_topology
from validators.configs import text_faithfulness
from validators.findings import CheckStatus, Report
from validators.prediction import predict

MIXED = {"clos": {"spines": 1, "leaves": 2, "servers_per_leaf": 1, "platform": "eos",
                  "leaf_platforms": ["eos", "sonic"]},
         "intent": {"name": "own", "underlay": "numbered", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                    "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                                  "gateway": "10.10.0.1", "attachments": "all"}],
                    "roce_classes": [{"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3,
                                      "lossless": True}]}}


@cache
def mixed():
    return compile_fabric(snapshot_from_scenario(MIXED))


def own_files(host, platform):
    return dict(mixed().rendered[host][platform])


def test_eos_and_sonic_switches_boot_from_their_own_configs():
    result = mixed()
    topology = topology_from_compile(result, name_prefix="ftown1")
    validate_topology(topology)
    nodes = topology.nodes_by_name
    # EOS: parse(startup-config) rendered by the one FRR renderer is exactly the intent's FRR rendering
    for host in ("spine1", "leaf1"):
        assert nodes[host].frr_conf == result.rendered[host]["frr"]["frr.conf"], host
        rendered = json.loads(result.rendered[host]["frr"]["linux-plan.json"])
        # the FRR translation of the RoCE QoS is not the EOS switch's: its QoS is static-only, checked from its text
        assert {key for key in rendered if key not in nodes[host].linux_plan} == {"roce_qos", "roce_qos_ports"}
        assert nodes[host].linux_plan == {key: value for key, value in rendered.items()
                                          if key not in ("roce_qos", "roce_qos_ports")}, host
    # SONiC: its own frr.conf as is (SONiC port and VRF names), the kernel side named like it
    leaf2 = nodes["leaf2"]
    assert leaf2.frr_conf == result.rendered["leaf2"]["sonic"]["frr.conf"]
    assert "interface Ethernet252" in leaf2.frr_conf and "vrf Vrf_TENANT_A" in leaf2.frr_conf
    assert [link["name"] for link in leaf2.linux_plan["links"]] == ["Ethernet0", "Ethernet252"]
    assert [vrf["name"] for vrf in leaf2.linux_plan["vrfs"]] == ["Vrf_TENANT_A"]
    assert leaf2.linux_plan["vrfs"][0]["table"] == 1001  # compiler.allocate.linux_vrf_table of L3VNI 50001
    assert leaf2.linux_plan["bridges"][0]["vxlan"]["vni"] == 10010 and leaf2.linux_plan["bridges"][0]["vrf"] == \
        "Vrf_TENANT_A"
    # cables and the host port use the names each switch's config uses
    assert {(link.a_node, link.a_ifname) for link in topology.links} == {("leaf1", "eth64_1"), ("leaf2", "Ethernet252")}
    peer = {host.name: host.interfaces[0].peer_ifname for host in topology.hosts}
    assert peer == {"gpu0001": "eth1_1", "gpu0002": "Ethernet0"}
    # the static prediction (fidelity) names the twin's ports the same way
    prediction = predict(result)
    link_keys = {key for key in prediction.link_mtu}
    assert any("leaf2:Ethernet252" in key for key in link_keys), link_keys
    assert not any("leaf2:eth" in key for key in link_keys), link_keys


def test_the_account_of_each_switch_comes_from_what_its_parse_carried():
    configs = topology_from_compile(mixed(), name_prefix="ftown2").extra["device_configs"]
    eos, sonic = configs["leaf1"], configs["leaf2"]
    assert eos["platform"] == "eos" and "startup-config parsed" in eos["boots_from"]
    assert any(part.startswith("router bgp 65100 (1 neighbors") for part in eos["live"]), eos["live"]
    assert "vrf/l3vni: TENANT_A 50001" in eos["live"]
    assert "priority-flow-control (2 ports)" in eos["static_only"] and eos["unmodelled_count"] == 0
    assert sonic["platform"] == "sonic" and sonic["boots_from"] == "frr.conf as is + Linux plan from config_db.json"
    assert sonic["live"][0].startswith("frr.conf: run as is (")
    assert "VXLAN_TUNNEL_MAP (2)" in sonic["live"] and "PORT (64): mtu" in sonic["live"]
    assert any(part.startswith("PORT_QOS_MAP") for part in sonic["static_only"])
    assert any(part.startswith("BUFFER_PG") for part in sonic["static_only"])
    assert "PORT: admin_status, fec, lanes, speed" in sonic["static_only"]
    # SONiC's FPM lines are in its frr.conf; the twin (no fpmsyncd) runs it without them and says so
    assert ("frr.conf: no fpm use-next-hop-groups; fpm address 127.0.0.1 (no fpmsyncd in the twin)"
            in sonic["static_only"]), sonic["static_only"]

    # a line no parser models is said, with its line, and counted in the report
    files = own_files("leaf1", "eos")
    files["startup-config"] = files["startup-config"].replace("hostname leaf1\n", "hostname leaf1\nbanner motd\n", 1)
    config = node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files=files,
                                  intended=mixed().structured["leaf1"])
    assert config.summary["unmodelled_count"] == 1 and "banner motd" in config.summary["unmodelled"][0]
    assert "not modelled: 1 lines/keys" in summary_text("leaf1", config.summary)
    topology = topology_from_compile(mixed(), name_prefix="ftown3", files={"leaf1": files})
    state = TwinState(prefix="ftown3", label="own", digest="", state_dir="", status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], topology=topology.to_dict())
    report = Report()
    measured = check_static_only_config(state, report)
    assert measured == device_configs_of(state) and set(measured) == {"spine1", "leaf1", "leaf2"}
    result = report.checks["twin.static_only_config"]
    assert result.status == CheckStatus.SKIPPED  # static-only parts are never reported as passed
    assert "leaf1 (eos): " in result.reason and "1 lines/keys not modelled" in result.reason
    assert "leaf2 (sonic): PORT: admin_status, fec, lanes, speed" in result.reason


def test_a_fault_only_in_the_eos_text_reaches_the_twin_node():
    result = mixed()
    good = topology_from_compile(result, name_prefix="ftown4").nodes_by_name["leaf1"]
    files = own_files("leaf1", "eos")
    text = files["startup-config"]
    # the neighbor is removed (all its lines), one VLAN maps to another VNI, the uplink's MTU is lowered
    neighbor = ("   neighbor 10.1.0.0 peer group UNDERLAY\n   neighbor 10.1.0.0 remote-as 65000\n"
                "   neighbor 10.1.0.0 description spine1_Ethernet1/1\n")
    for line in (neighbor, "   vxlan vlan 10 vni 10010\n",
                 "   no shutdown\n   mtu 9214\n   speed 400g-8\n   no switchport\n   ip address 10.1.0.1/31\n"):
        assert line in text, line
    files["startup-config"] = (text.replace(neighbor, "")
                               .replace("   vxlan vlan 10 vni 10010\n", "   vxlan vlan 10 vni 10099\n")
                               .replace("   mtu 9214\n   speed 400g-8\n   no switchport\n   ip address 10.1.0.1/31\n",
                                        "   mtu 1500\n   speed 400g-8\n   no switchport\n   ip address 10.1.0.1/31\n"))
    bad = topology_from_compile(result, name_prefix="ftown5", files={"leaf1": files}).nodes_by_name["leaf1"]
    assert "neighbor 10.1.0.0 peer-group" in good.frr_conf
    assert "neighbor 10.1.0.0" not in bad.frr_conf  # the session the twin will miss
    assert [b["vxlan"]["vni"] for b in good.linux_plan["bridges"]] == [10010]
    assert [b["vxlan"]["vni"] for b in bad.linux_plan["bridges"]] == [10099]
    mtu = {link["name"]: link["mtu"] for link in bad.linux_plan["links"]}
    assert mtu["eth64_1"] == 1500 and {link["name"]: link["mtu"] for link in good.linux_plan["links"]}["eth64_1"] == 9214
    # the intent's FRR rendering still says what was intended: only the EOS text carries the fault
    assert "neighbor 10.1.0.0 peer-group" in result.rendered["leaf1"]["frr"]["frr.conf"]


def test_a_fault_only_in_sonic_config_db_reaches_the_twin_node():
    result = mixed()
    files = own_files("leaf2", "sonic")
    db = json.loads(files["config_db.json"])
    db["PORT"]["Ethernet252"]["mtu"] = "1500"
    mapping = next(key for key, row in db["VXLAN_TUNNEL_MAP"].items() if row["vlan"] == "Vlan10")
    db["VXLAN_TUNNEL_MAP"][mapping]["vni"] = "10077"
    files["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    bad = topology_from_compile(result, name_prefix="ftown6", files={"leaf2": files}).nodes_by_name["leaf2"]
    assert {link["name"]: link["mtu"] for link in bad.linux_plan["links"]}["Ethernet252"] == 1500
    assert [b["vxlan"]["vni"] for b in bad.linux_plan["bridges"]] == [10077]
    assert bad.frr_conf == result.rendered["leaf2"]["sonic"]["frr.conf"]  # frr.conf untouched, run as is
    good = topology_from_compile(result, name_prefix="ftown7").nodes_by_name["leaf2"]
    assert {link["name"]: link["mtu"] for link in good.linux_plan["links"]}["Ethernet252"] == 9214


def test_a_neighbor_outside_every_peer_group_runs_with_its_own_remote_as():
    """A hand-edited EOS config may drop only the peer-group line: the neighbor still runs, with its remote-as."""
    files = own_files("leaf1", "eos")
    files["startup-config"] = files["startup-config"].replace("   neighbor 10.1.0.0 peer group UNDERLAY\n", "")
    node = node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files=files,
                                intended=mixed().structured["leaf1"]).node
    assert " neighbor 10.1.0.0 remote-as 65000\n neighbor 10.1.0.0 description" in node.frr_conf
    assert "peer-group None" not in node.frr_conf and "neighbor 10.1.0.0 peer-group" not in node.frr_conf


def test_configs_the_twin_cannot_run_are_refused_naming_the_switch():
    intended = mixed().structured
    sonic = own_files("leaf2", "sonic")
    with pytest.raises(TwinError, match=r"leaf2: a SONiC switch needs config_db.json and frr.conf"):
        node_from_own_config(hostname="leaf2", role="leaf", platform="sonic",
                             files={"config_db.json": sonic["config_db.json"]}, intended=intended["leaf2"])
    eos = own_files("leaf1", "eos")
    eos["startup-config"] = eos["startup-config"].replace("   vxlan vrf TENANT_A vni 50001\n", "")
    with pytest.raises(TwinError, match=r"leaf1: vrfs\[TENANT_A\]\.l3vni=None"):
        node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files=eos, intended=intended["leaf1"])
    with pytest.raises(TwinError, match=r"leaf1: its eos config cannot be parsed for the twin"):
        node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files={"startup-config": "{}"},
                             intended=intended["leaf1"])


def test_vrf_numbers_come_from_the_intended_config_else_the_twin_picks_free_ones():
    """The Linux table and the EOS transit VLAN are in no EOS text: the intended config's, else free ones."""
    files = own_files("leaf1", "eos")
    planned = node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files=files,
                                   intended=mixed().structured["leaf1"])
    assert [(vrf["table"], vrf["bridge"]["name"]) for vrf in planned.node.linux_plan["vrfs"]] == [(1001, "br3001")]
    assert planned.limitations == ()
    foreign = node_from_own_config(hostname="leaf1", role="leaf", platform="eos", files=files, intended=None)
    assert [(vrf["table"], vrf["bridge"]["name"]) for vrf in foreign.node.linux_plan["vrfs"]] == [(5095, "br4094")]
    assert foreign.limitations == ("leaf1: VRF TENANT_A: transit VLAN 4094 of its L3VNI bridge chosen by the twin "
                                   "(the intent has no free one for this VRF)",)


def test_a_compile_without_the_own_platform_runs_the_frr_rendering_and_says_so():
    result = compile_fabric(snapshot_from_scenario(MIXED), platforms=("frr",))
    topology = topology_from_compile(result, name_prefix="ftown8")
    assert topology.nodes_by_name["leaf1"].frr_conf == result.rendered["leaf1"]["frr"]["frr.conf"]
    assert topology.extra["device_configs"]["leaf2"]["platform"] == "frr"
    assert any(item.startswith("leaf2: runs its frr rendering (this compile has no sonic rendering)")
               for item in topology.extra["limitations"])


@pytest.mark.twin
@pytest.mark.usefixtures("twin_required")
def test_a_fault_only_in_the_eos_text_is_caught_live(tmp_path, monkeypatch):
    """1 spine, an EOS leaf and a SONiC leaf, each running its own config; leaf1's startup-config lacks its
    spine neighbor (a fault in the EOS text only: the intent and its FRR rendering still have it). The twin's BGP
    check names leaf1 and spine1; the SONiC leaf's own frr.conf loads as is and its session comes up."""
    monkeypatch.delenv("FT_TWIN_VRF_BACKEND", raising=False)
    result = mixed()
    files = own_files("leaf1", "eos")
    neighbor = ("   neighbor 10.1.0.0 peer group UNDERLAY\n   neighbor 10.1.0.0 remote-as 65000\n"
                "   neighbor 10.1.0.0 description spine1_Ethernet1/1\n")
    assert neighbor in files["startup-config"]
    files["startup-config"] = files["startup-config"].replace(neighbor, "")
    topology = topology_from_compile(result, max_servers_per_leaf=0, files={"leaf1": files})
    state = runtime.up(topology, tmp_path)
    try:
        report = Report()
        checks.check_config_load(state, report)
        checks.check_bgp_sessions(state, report, timeout_s=45)
        checks.check_l3vni_vrfs(state, report)
        print(f"\n{report.as_text()}")
        assert report.checks["twin.frr_config_load"].status == CheckStatus.PASSED  # SONiC frr.conf as is, too
        bgp = report.checks["twin.bgp_sessions"]
        assert bgp.status == CheckStatus.FAILED
        assert {finding.subject for finding in bgp.findings if finding.severity == "error"} == {"leaf1", "spine1"}
        if state.tenant_vrfs_built:  # leaf2's VRF is Vrf_TENANT_A, as its frr.conf names it
            assert report.checks["twin.l3vni_vrfs"].status == CheckStatus.PASSED, report.as_text()
    finally:
        runtime.down(state.prefix, tmp_path, force=True)


def test_twin_change_set_files_pass_the_text_gate_except_what_the_own_text_breaks():
    """What a twin change set pushes per device (labs.node_configs.twin_node_files) is gated on the text like any
    push: equal to the intent except the QoS no twin runs (said as info); a neighbor removed from the EOS text is
    an error naming it."""
    result = mixed()
    files = {host: twin_node_files(hostname=host, role=result.structured[host]["role"],
                                   platform=result.structured[host]["platform"],
                                   files=own_files(host, result.structured[host]["platform"]),
                                   intended=result.structured[host]) for host in result.structured}
    platforms = dict.fromkeys(files, "frr")
    twin_nodes = frozenset(files)
    findings = text_faithfulness(result.structured, files, platforms, without_qos=twin_nodes)
    assert {finding.severity for finding in findings} == {"info"} and len(findings) == 3
    assert any("PFC priorities" in finding.message for finding in text_faithfulness(result.structured, files,
                                                                                      platforms))
    eos = own_files("leaf1", "eos")
    eos["startup-config"] = eos["startup-config"].replace("   neighbor 10.1.0.0 remote-as 65000\n", "")
    files["leaf1"] = twin_node_files(hostname="leaf1", role="leaf", platform="eos", files=eos,
                                     intended=result.structured["leaf1"])
    errors = [finding for finding in text_faithfulness(result.structured, files, platforms, without_qos=twin_nodes)
              if finding.severity == "error"]
    assert errors and all(finding.subject.startswith("leaf1") for finding in errors), errors


def test_the_static_only_reason_stays_short_on_big_fabrics():
    summary = {"platform": "eos", "boots_from": "startup-config parsed", "live": [],
               "static_only": ["priority-flow-control (2 ports)"], "unmodelled": [], "unmodelled_count": 0}
    configs = {f"leaf{index}": dict(summary, static_only=[f"priority-flow-control ({index} ports)"])
               for index in range(1, 1001)}
    state = TwinState(prefix="ftown10", label="", digest="", state_dir="", status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], topology={"extra": {"device_configs": configs}})
    report = Report()
    assert len(check_static_only_config(state, report)) == 1000  # every switch's own account, with its counts
    assert report.checks["twin.static_only_config"].reason == (
        "verified statically only, the twin cannot run them: leaf1, leaf2, leaf3 and 997 more (eos): "
        "priority-flow-control")
