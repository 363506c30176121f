"""How the twin builds tenant VRFs, without booting anything: backend choice, per-namespace command batches,
and the L3VNI expectations. The live behaviour is in test_twin_live.py / test_twin_from_compile.py."""

import json
import subprocess
from pathlib import Path

import pytest
from twin_sample_fabric import sample_fabric

from compiler.errors import TwinError
from labs import checks, measure, runtime
from validators.findings import CheckStatus, Report

BRIDGE = {"name": "br10", "vlan": 10, "mtu": 9000, "members": ["eth1_1", "eth9_9"],
          "vxlan": {"name": "vx10010", "vni": 10010, "local": "10.0.4.1", "dstport": 4789, "mtu": 9164},
          "svi": {"address": "10.10.0.1/24", "mac": "00:1c:73:00:00:99"}, "vrf": "TENANT_A"}
L3_BRIDGE = {"name": "br3001", "mtu": 9164,
             "vxlan": {"name": "vx50001", "vni": 50001, "local": "10.0.4.1", "dstport": 4789, "mtu": 9164}}


def test_backend_follows_the_kernel_and_can_be_forced(monkeypatch):
    topology = sample_fabric()  # leaves carry bridges in VRF TENANT_A
    monkeypatch.delenv("FT_TWIN_VRF_BACKEND", raising=False)
    assert runtime.choose_vrf_backend(topology, {"vrf": True}) == "kernel"
    assert runtime.choose_vrf_backend(topology, {"vrf": False}) == "netns"  # no VRF devices: FRR's netns backend
    monkeypatch.setenv("FT_TWIN_VRF_BACKEND", "none")
    assert runtime.choose_vrf_backend(topology, {"vrf": True}) == ""  # not built: "static only"
    monkeypatch.setenv("FT_TWIN_VRF_BACKEND", "netns")
    assert runtime.choose_vrf_backend(topology, {"vrf": False}) == "netns"
    monkeypatch.setenv("FT_TWIN_VRF_BACKEND", "netns")
    assert runtime.choose_vrf_backend(topology, {"vrf": True}) == "netns"
    monkeypatch.setenv("FT_TWIN_VRF_BACKEND", "kernel")
    with pytest.raises(TwinError, match="no VRF devices"):
        runtime.choose_vrf_backend(topology, {"vrf": False})
    monkeypatch.setenv("FT_TWIN_VRF_BACKEND", "vrf-lite")
    with pytest.raises(TwinError, match="FT_TWIN_VRF_BACKEND='vrf-lite': use one of 'kernel', 'netns', 'none'"):
        runtime.choose_vrf_backend(topology, {"vrf": True})


def test_no_tenant_vrfs_no_backend():
    topology = sample_fabric()
    for node in topology.nodes:
        for bridge in node.linux_plan["bridges"]:
            bridge.pop("vrf", None)
    assert runtime.choose_vrf_backend(topology, {"vrf": True}) == ""


def test_vrf_namespace_names_cannot_collide_with_node_names():
    topology = sample_fabric(prefix="ftvrf")
    assert runtime.vrf_netns_name(topology, "leaf1", "TENANT_A") == "ftvrf-leaf1+TENANT_A"
    assert runtime.plan_vrfs(topology.nodes_by_name["leaf1"]) == ["TENANT_A"]
    assert runtime.plan_vrfs(topology.nodes_by_name["spine1"]) == []


def test_netns_batches_create_vxlan_into_the_vrf_and_move_the_server_port():
    batches = runtime.LinuxBatches("ft-leaf1", "netns", {"TENANT_A": "ft-leaf1+TENANT_A"}, cabled={"eth1_1"})
    batches.add_bridge(L3_BRIDGE, "TENANT_A")
    batches.add_bridge(BRIDGE, "TENANT_A")
    switch, vrf = batches.ip["ft-leaf1"], batches.ip["ft-leaf1+TENANT_A"]
    # the VXLAN devices are created from the switch (underlay socket + VTEP address there) straight into the VRF
    assert runtime.vxlan_add_command(BRIDGE["vxlan"], into_netns="ft-leaf1+TENANT_A") in switch
    assert ("link add name vx50001 netns ft-leaf1+TENANT_A mtu 9164 type vxlan id 50001 local 10.0.4.1 dstport 4789 "
            "nolearning df set") in switch
    assert not any(command.startswith("link set dev vx") for command in switch)  # never born in the switch
    assert "link set dev eth1_1 netns ft-leaf1+TENANT_A" in switch and "eth9_9" not in " ".join(switch)  # uncabled
    assert batches.moved == {"eth1_1"}
    assert not any(command.startswith("link add name br") for command in switch)  # bridges live in the VRF
    assert "link add name br10 type bridge stp_state 0 mcast_snooping 0" in vrf
    assert "link set dev vx10010 master br10" in vrf and "link set dev eth1_1 master br10" in vrf
    assert "link set dev eth1_1 up" in vrf and "addr add 10.10.0.1/24 dev br10" in vrf
    assert not any("type vxlan" in command for command in vrf)  # never created twice
    assert "link set dev vx10010 learning off neigh_suppress on" in batches.bridge["ft-leaf1+TENANT_A"]
    assert batches.svis == {"ft-leaf1+TENANT_A": ["br10"]}


def test_kernel_batches_enslave_to_vrf_devices_in_the_switch():
    batches = runtime.LinuxBatches("ft-leaf1", "kernel", {}, cabled={"eth1_1"})
    batches.add_vrf_device({"name": "TENANT_A", "table": 1001})
    batches.add_bridge(BRIDGE, "TENANT_A")
    assert set(batches.ip) == {"ft-leaf1"}
    switch = batches.ip["ft-leaf1"]
    assert switch[:2] == ["link add name TENANT_A type vrf table 1001", "link set TENANT_A up"]
    assert "link set dev br10 master TENANT_A" in switch and not batches.moved


def test_a_port_already_in_the_vrf_is_not_moved_again():
    batches = runtime.LinuxBatches("ft-leaf1", "netns", {"TENANT_A": "ft-leaf1+TENANT_A"}, cabled={"eth1_1"},
                                   location={"eth1_1": "ft-leaf1+TENANT_A"})
    batches.add_bridge(BRIDGE, "TENANT_A")
    assert not any("eth1_1 netns" in command for commands in batches.ip.values() for command in commands)


def test_expected_l3vnis_from_linux_plans():
    topology = sample_fabric()
    leaf1 = topology.nodes_by_name["leaf1"]
    leaf1.linux_plan["vrfs"] = [{"name": "TENANT_A", "table": 1001, "l3vni": 50001, "bridge": L3_BRIDGE}]
    assert checks.expected_l3vnis(topology) == {"leaf1": {50001: ("TENANT_A", (10010, 10020))}}


RENDERED = """frr defaults datacenter
hostname leaf1
service integrated-vtysh-config
!
vrf TENANT_A
 vni 50001
exit-vrf
!
interface eth1_1
 no shutdown
!
router bgp 65101
!
"""


def test_twin_frr_conf_binds_each_netns_vrf_and_strips_back_to_the_rendered_config():
    conf = runtime.twin_frr_conf(RENDERED, {"TENANT_A": "ft-leaf1+TENANT_A", "TENANT_B": "ft-leaf1+TENANT_B"})
    lines = conf.splitlines()
    assert lines[0] == runtime.ZEBRA_NHG_WORKAROUND
    assert lines[lines.index("vrf TENANT_A") + 1] == " netns /run/netns/TENANT_A"  # inside its own stanza
    # a VRF without a stanza gets one, before the first block (FRR's order)
    assert lines.index("vrf TENANT_B") < lines.index("vrf TENANT_A") < lines.index("interface eth1_1")
    assert lines[lines.index("vrf TENANT_B") + 1:lines.index("vrf TENANT_B") + 3] == [
        " netns /run/netns/TENANT_B", "exit-vrf"]
    assert runtime.twin_frr_conf(conf, {"TENANT_A": "x", "TENANT_B": "y"}) == conf  # idempotent
    # what zebra shows and what we wrote compare equal to the rendered file once the twin's lines are gone
    assert runtime.strip_twin_lines(conf) == RENDERED
    assert runtime.twin_frr_conf(RENDERED) == f"{runtime.ZEBRA_NHG_WORKAROUND}\n{RENDERED}"  # no netns VRFs


def test_a_stale_netns_line_is_not_kept_for_a_vrf_the_switch_no_longer_has():
    conf = runtime.twin_frr_conf(RENDERED.replace(" vni 50001\n", " netns /run/netns/TENANT_A\n vni 50001\n"), {})
    assert "netns /run/netns" not in conf


DATA = Path(__file__).parent / "data"


def _state_with_l3vni(topology) -> runtime.TwinState:
    leaf1 = topology.nodes_by_name["leaf1"]
    leaf1.linux_plan["vrfs"] = [{"name": "TENANT_A", "table": 1001, "l3vni": 50001, "bridge": {**L3_BRIDGE,
                                                                                                "name": "br3001"}}]
    return runtime.TwinState(prefix="ftl3", label="", digest="", state_dir="/nonexistent", status="up", created_at=0,
                             node_netns={node.name: f"ftl3-{node.name}" for node in topology.nodes}, host_netns={},
                             frr_dirs=[], topology=topology.to_dict(), vrf_backend="netns",
                             vrf_netns={"leaf1": {"TENANT_A": "ftl3-leaf1+TENANT_A"}})


def _fake_ip(monkeypatch, neighbours: list[dict]) -> list[list[str]]:
    """``ip -j route`` / ``ip -j neigh`` as captured on leaf1's TENANT_A namespace of a reference twin."""
    calls: list[list[str]] = []

    def fake_run(args, **_kwargs):
        calls.append(list(args))
        text = (DATA / "leaf1_tenant_a_routes.json").read_text() if "route" in args else json.dumps(neighbours)
        return subprocess.CompletedProcess(args, 0, stdout=text, stderr="")

    monkeypatch.setattr(measure, "run", fake_run)  # every `ip` of the L3VNI measurements goes through it
    return calls


def test_l3vni_next_hops_complete_when_every_vtep_has_its_router_mac(monkeypatch):
    state = _state_with_l3vni(sample_fabric())
    calls = _fake_ip(monkeypatch, json.loads((DATA / "leaf1_tenant_a_l3vni_neigh.json").read_text()))
    assert checks.l3vni_next_hop_gaps(state) == {}
    assert ["ip", "-n", "ftl3-leaf1+TENANT_A", "-j", "neigh", "show", "dev", "br3001"] in calls  # in the VRF netns
    report = Report()
    assert checks.resync_l3vni_next_hops(state, report, settle_s=0) == {}
    assert report.checks["twin.l3vni_next_hops"].status == CheckStatus.PASSED


def test_l3vni_next_hop_lost_by_frr_is_found(monkeypatch):
    # what FRR 8.4 leaves after a best-path change: the kernel tried to resolve the VTEP itself and failed
    neighbours = [entry if entry["dst"] != "10.0.4.2" else {"dst": "10.0.4.2", "state": ["FAILED"]}
                  for entry in json.loads((DATA / "leaf1_tenant_a_l3vni_neigh.json").read_text())]
    state = _state_with_l3vni(sample_fabric())
    _fake_ip(monkeypatch, neighbours)
    assert checks.l3vni_next_hop_gaps(state) == {"leaf1": ["10.0.4.2"]}  # routes to 10.10.0.3 and 10.20.0.3 use it
    state.vrf_backend = "none"
    assert checks.l3vni_next_hop_gaps(state) == {}  # no tenant VRFs built: nothing routes through an L3VNI


def test_sonic_fpm_lines_are_left_out_of_the_twin_and_of_comparisons():
    """SONiC's frr.conf carries zebra's FPM lines (compiler.render.sonic.SONIC_FPM_LINES); the twin's zebra has no
    FPM module ("No such command") and no fpmsyncd, so it runs the config without them and compares without them."""
    sonic = RENDERED.replace("service integrated-vtysh-config\n", "service integrated-vtysh-config\n"
                             "no fpm use-next-hop-groups\nfpm address 127.0.0.1\n")
    conf = runtime.twin_frr_conf(sonic)
    assert "fpm" not in conf and conf == runtime.twin_frr_conf(RENDERED)
    assert runtime.strip_twin_lines(sonic) == runtime.strip_twin_lines(conf) == RENDERED
