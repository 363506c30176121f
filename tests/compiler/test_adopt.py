"""The adoption core (compiler.adopt): configs -> plan -> compile -> parse back, pure (no database).

Own fabrics (compiled from scenarios here) must come back with semantic diff 0 and every allocation pinned as it
was; public AVD configs are adopted with their scheme recognised and what is not modelled refused by file:line;
partial and hostile sets are refused naming file and line; after adoption an intent change touches only the lines
it should (issue 26 item 4).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from pathlib import Path

import pytest
import yaml

from compiler.adopt import AdoptionError, adoption_plan, adoption_proof, carried_lines, with_carried
from compiler.adopt.proof import _present
from compiler.api import compile_fabric
from compiler.model import Network, Snapshot
from compiler.parse.files import configs_from_directory
from compiler.scenario import snapshot_from_scenario

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus"
MIXED = ROOT / "tests" / "golden" / "mixed_eos_sonic" / "scenario.yaml"


def compiled_set(snapshot: Snapshot) -> dict[str, dict[str, str]]:
    result = compile_fabric(snapshot)
    own = {switch.hostname: switch.platform for switch in snapshot.inventory.switches}
    return {host: dict(result.rendered[host][own[host]]) for host in result.rendered}


@pytest.fixture(scope="module")
def mixed() -> tuple[Snapshot, dict[str, dict[str, str]]]:
    snapshot = snapshot_from_scenario(yaml.safe_load(MIXED.read_text()))
    return snapshot, compiled_set(snapshot)


def test_own_fabric_round_trips_with_no_semantic_diff(mixed):
    snapshot, configs = mixed
    plan = adoption_plan(configs, name="mixed")
    proof = adoption_proof(plan)
    assert proof.semantic_diff == 0, [d.diff for d in proof.devices.values() if d.diff]
    assert proof.carried_intact
    assert proof.recognised_percent > 99
    assert {s.hostname: s.role for s in plan.snapshot.inventory.switches} == {
        s.hostname: s.role for s in snapshot.inventory.switches}
    assert len(plan.cables) == 8 and all(cable.inferred and "/31 pair" in cable.evidence for cable in plan.cables)
    assert plan.recognised["underlay"] == "numbered eBGP (/31)" and plan.recognised["asn_scheme"] == "per leaf"
    # Every allocation pinned exactly as the configs hold it.
    original = compile_fabric(snapshot).allocations
    pinned = plan.snapshot.allocations
    assert pinned.asns == dict(original.asns)
    assert pinned.loopbacks == dict(original.loopbacks)
    assert pinned.vteps == dict(original.vteps)
    assert sorted(tuple(sorted(ends)) for ends in pinned.p2p.values()) == sorted(
        tuple(sorted(ends)) for ends in original.p2p.values())
    assert [(t.vrf, t.l3vni) for t in plan.snapshot.intent.tenants] == [("TENANT_A", original.l3vnis["A"])]
    [network] = plan.snapshot.intent.networks
    assert (network.vlan_id, network.l2vni, network.subnet, network.gateway) == (10, 10010, "10.10.0.0/24", "10.10.0.1")
    [roce] = plan.snapshot.intent.roce_classes
    assert (roce.dscp, roce.priority, roce.lossless, roce.ecn_min_kb, roce.ecn_max_kb) == ((26,), 3, True, 150, 1500)


def test_a_wrong_intent_field_is_a_semantic_diff(mixed):
    """The deliberately broken case: an adopted intent that says something else shows in the diff, by field."""
    _, configs = mixed
    plan = adoption_plan(configs, name="mixed")
    intent = plan.snapshot.intent
    plan.snapshot = dataclasses.replace(plan.snapshot, intent=dataclasses.replace(
        intent, bgp=dataclasses.replace(intent.bgp, maximum_paths=8)))
    proof = adoption_proof(plan)
    assert proof.semantic_diff > 0
    assert {path for device in proof.devices.values() for path, _, _ in device.diff} == {"bgp.maximum_paths"}


def test_hand_added_lines_are_carried_byte_for_byte(mixed):
    _, configs = mixed
    configs = {host: dict(files) for host, files in configs.items()}
    text = configs["leaf1"]["startup-config"]
    extra = "ip route vrf mgmt 198.51.100.0/24 172.16.255.254\n!\nsnmp-server community  ro-Secret  ro\n"
    configs["leaf1"]["startup-config"] = text.replace("\nend", "\n" + extra + "end")
    proof = adoption_proof(adoption_plan(configs, name="mixed"))
    leaf1 = proof.devices["leaf1"]
    texts = [block.text for block in leaf1.carried]
    assert "ip route vrf mgmt 198.51.100.0/24 172.16.255.254" in texts
    assert "snmp-server community  ro-Secret  ro" in texts  # spacing kept: byte for byte
    assert {"ip route", "snmp-server"} <= set(leaf1.carried_by_kind())
    assert proof.carried_intact and proof.semantic_diff == 0
    assert "snmp-server community  ro-Secret  ro" in leaf1.files["startup-config"]


def test_an_addressless_loopback_is_carried_an_addressed_one_is_a_residual(mixed):
    """AVD's raw_eos_cli loopbacks hold a description only: they route nothing, so they are carried byte for
    byte. A loopback with an address is a modelled field the intent does not state: a residual, not carried."""
    _, configs = mixed
    configs = {host: dict(files) for host, files in configs.items()}
    text = configs["leaf1"]["startup-config"]
    bare = "interface Loopback1002\n  description Loopback created from raw_eos_cli\n!\n"
    configs["leaf1"]["startup-config"] = text.replace("\nend", "\n" + bare + "end")
    proof = adoption_proof(adoption_plan(configs, name="mixed"))
    assert proof.semantic_diff == 0 and proof.carried_intact
    assert "interface Loopback1002\n  description Loopback created from raw_eos_cli" in [
        block.text for block in proof.devices["leaf1"].carried]  # the block with its child line, as written
    addressed = "interface Loopback1002\n   description x\n   ip address 192.0.2.77/32\n!\n"
    configs["leaf1"]["startup-config"] = text.replace("\nend", "\n" + addressed + "end")
    proof = adoption_proof(adoption_plan(configs, name="mixed"))
    assert [path for path, _, _ in proof.devices["leaf1"].diff] == ["loopbacks[192.0.2.77/32]"]


def test_one_device_with_an_odd_management_prefix_is_its_own_residual(mixed):
    """Most devices state 172.16.0.0/16; leaf1 states its address as a /24. The adopted management network is the
    one most devices state (leaf1's address lies in it), so only leaf1's address differs, and the gateway every
    device states is kept (a network covering the addresses alone would move every device's gateway)."""
    _, configs = mixed
    configs = {host: dict(files) for host, files in configs.items()}
    configs["leaf1"]["startup-config"] = configs["leaf1"]["startup-config"].replace(
        "ip address 172.16.1.1/16", "ip address 172.16.1.1/24")
    plan = adoption_plan(configs, name="mixed")
    assert plan.snapshot.intent.management.network == "172.16.0.0/16"
    proof = adoption_proof(plan)
    assert {host: [path for path, _, _ in device.diff] for host, device in proof.devices.items() if device.diff} \
        == {"leaf1": ["management.address"]}


def test_a_lost_carried_line_is_detected():
    original = {"r1.cfg": "hostname r1\n!\nip routing\n!\nntp server 192.0.2.1\n!\nend\n"}
    rendered = {"startup-config": "hostname r1\n!\nip routing\n!\nend\n"}
    [block] = carried_lines(original, rendered, "eos")
    assert (block.kind, block.file, block.line, block.text) == ("ntp", "r1.cfg", 5, "ntp server 192.0.2.1")
    back = with_carried(rendered, [block])
    assert back["startup-config"].rstrip().endswith("ntp server 192.0.2.1\n!\nend")
    assert _present(block, back)
    assert not _present(block, rendered)


def test_nested_carried_lines_keep_their_parents():
    original = {"leaf.cfg": "router bgp 65001\n   router-id 10.0.0.1\n   neighbor 10.1.0.0 route-map RM in\n"}
    rendered = {"startup-config": "router bgp 65001\n   router-id 10.0.0.1\n"}
    [block] = carried_lines(original, rendered, "eos")
    assert (block.text, block.parents) == ("   neighbor 10.1.0.0 route-map RM in", ("router bgp 65001",))
    assert block.lines == 1 and block.kind == "router bgp"
    # Put back inside the one `router bgp` block (a second block would replace the first on reading).
    back = with_carried(rendered, [block])["startup-config"]
    assert back.count("router bgp") == 1
    assert back.startswith("router bgp 65001\n   router-id 10.0.0.1\n   neighbor 10.1.0.0 route-map RM in\n")


def test_frr_lines_go_back_before_the_closing_exit():
    original = {"frr.conf": "router bgp 65001\n address-family l2vpn evpn\n  advertise-all-vni\n  advertise-svi-ip\n"
                            " exit-address-family\nexit\n"}
    rendered = {"frr.conf": "router bgp 65001\n address-family l2vpn evpn\n  advertise-all-vni\n"
                            " exit-address-family\nexit\n"}
    [block] = carried_lines(original, rendered, "frr")
    back = with_carried(rendered, [block])["frr.conf"]
    assert "  advertise-all-vni\n  advertise-svi-ip\n exit-address-family\n" in back


def test_avd_l3ls_rack_pairs_recognised_and_unmodelled_refused_by_line():
    plan = adoption_plan(configs_from_directory(CORPUS / "avd" / "single-dc-l3ls"), name="avd")
    assert plan.recognised["asn_scheme"] == "per rack pair"
    racks = {switch.hostname: switch.rack for switch in plan.snapshot.inventory.switches if switch.rack}
    assert racks == {"dc1-leaf1a": "rack-as65101", "dc1-leaf1b": "rack-as65101",
                     "dc1-leaf2a": "rack-as65102", "dc1-leaf2b": "rack-as65102"}
    assert plan.snapshot.allocations.asns["dc1-leaf1a"] == plan.snapshot.allocations.asns["dc1-leaf1b"] == 65101
    reasons = {(item.device, item.file, item.line): item.reason for item in plan.refused}
    assert ("dc1-leaf1c", "dc1-leaf1c.cfg", 18) in reasons  # an L2 leaf: no BGP, no VXLAN
    assert any("MLAG anycast VTEP" in reason for reason in reasons.values())
    assert all(item.line > 0 for item in plan.refused)
    proof = adoption_proof(plan)
    assert proof.carried_intact  # whatever is not modelled comes back byte for byte


def test_unstated_bgp_timers_are_the_platform_default(mixed):
    """An EOS config stating no BGP timers runs EOS's 60/180 s: adopted as that, compiled explicitly, no residual.
    A fabric stating other timers keeps them."""
    _, configs = mixed
    eos = {host for host, files in configs.items() if "startup-config" in files}
    untimed = {host: {name: re.sub(r"^   neighbor \S+ timers \d+ \d+\n", "", text, flags=re.M)
                      for name, text in files.items()} if host in eos else files
               for host, files in configs.items()}
    assert untimed != configs
    plan = adoption_plan({host: files for host, files in untimed.items() if host in eos}, name="untimed")
    assert (plan.snapshot.intent.bgp.keepalive_s, plan.snapshot.intent.bgp.hold_s) == (60, 180)
    proof = adoption_proof(plan)
    assert not [path for device in proof.devices.values() for path, _, _ in device.diff if "keepalive" in path]
    stated = adoption_plan({host: files for host, files in configs.items() if host in eos}, name="timed")
    assert (stated.snapshot.intent.bgp.keepalive_s, stated.snapshot.intent.bgp.hold_s) == (3, 9)


def test_a_vtep_with_no_vni_adopts_a_bare_evpn_overlay(mixed):
    """AVD's cv_deploy leaves run VXLAN and EVPN before any VNI: the intent states the overlay on its own
    (evpn_overlay), so the VXLAN interface and the EVPN family come back; what is left is the MLAG pairs (their
    shared VTEP and iBGP session). A fabric whose VTEPs all map VNIs does not state it."""
    plan = adoption_plan(configs_from_directory(CORPUS / "avd" / "cv_deploy"), name="cvd")
    assert plan.snapshot.intent.evpn_overlay and not plan.snapshot.intent.tenants
    proof = adoption_proof(plan)
    paths = [path for device in proof.devices.values() for path, _, _ in device.diff]
    assert not [path for path in paths if path.startswith(("bgp.evpn", "vxlan.udp_port", "vxlan.source_interface"))]
    assert all("Vlan4093" in repr(device.diff) or "vtep" in repr(device.diff) for device in proof.devices.values()
               if device.diff)  # MLAG only
    _, configs = mixed
    assert not adoption_plan(configs, name="mixed").snapshot.intent.evpn_overlay


def test_partial_set_is_refused_naming_file_and_line(mixed):
    _, configs = mixed
    partial = {host: files for host, files in configs.items() if host != "spine2"}
    with pytest.raises(AdoptionError, match=r"leaf1 startup-config:\d+ `neighbor 10\.1\.0\.2 .*partial config set"):
        adoption_plan(partial, name="partial")


def test_hostile_file_is_refused_naming_the_file():
    with pytest.raises(AdoptionError, match=r"device 'evil'.*evil.cfg"):
        adoption_plan({"evil": {"evil.cfg": "\x00\x01 not a config {{{\n" * 3}}, name="x")


def _changed(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> dict[str, list[list[str]]]:
    """host -> the changed hunks (each a list of +/- lines) of its files."""
    out: dict[str, list[list[str]]] = {}
    for host in before:
        hunks: list[list[str]] = []
        for name in before[host]:
            for line in difflib.unified_diff(before[host][name].splitlines(), after[host][name].splitlines(),
                                             lineterm="", n=0):
                if line.startswith("@@"):
                    hunks.append([])
                elif line[:1] in "+-" and not line.startswith(("+++", "---")):
                    hunks[-1].append(line)
        if hunks:
            out[host] = hunks
    return out


def _final(plan, snapshot: Snapshot, blocks) -> dict[str, dict[str, str]]:
    result = compile_fabric(snapshot)
    return {host: with_carried(dict(result.rendered[host][device.platform]), blocks[host])
            for host, device in plan.devices.items()}


def test_after_adoption_an_intent_change_is_a_minimal_diff(mixed):
    _, configs = mixed
    plan = adoption_plan(configs, name="mixed")
    proof = adoption_proof(plan)
    blocks = {host: device.carried for host, device in proof.devices.items()}
    before = _final(plan, plan.snapshot, blocks)
    assert before == {host: device.files for host, device in proof.devices.items()}
    # Add a VNI: a routed network in the adopted tenant.
    intent = plan.snapshot.intent
    added = Network(name="net20", tenant=intent.tenants[0].name, vlan_id=20, subnet="10.20.0.0/24",
                    gateway="10.20.0.1")
    grown = dataclasses.replace(plan.snapshot, intent=dataclasses.replace(intent, networks=intent.networks + (added,)))
    changed = _changed(before, _final(plan, grown, blocks))
    assert set(changed) == {"leaf1", "leaf2", "leaf3", "leaf4"}  # spines carry no VNI
    vlan_words = re.compile(r"Vlan20\b|vlan 20\b|\b10020\b|\"20\"|net20|10\.20\.0\.1/24")
    for host, hunks in changed.items():
        for hunk in hunks:
            assert all(line.startswith("+") for line in hunk), (host, hunk)  # nothing removed or rewritten
            assert any(vlan_words.search(line) for line in hunk), (host, hunk)  # every added block is VLAN 20's
    # Change a RoCE threshold: only ECN lines move.
    roce = intent.roce_classes[0]
    tuned = dataclasses.replace(plan.snapshot, intent=dataclasses.replace(
        intent, roce_classes=(dataclasses.replace(roce, ecn_max_kb=2000),)))
    changed = _changed(before, _final(plan, tuned, blocks))
    assert changed
    for host, hunks in changed.items():
        for hunk in hunks:
            assert all(re.search(r"random-detect|ecn|red_max|max_threshold|green_max|1536000|2048000", line, re.I)
                       for line in hunk), (host, hunk)


def test_five_stage_fabric_recognised_with_super_spines():
    scenario = ROOT / "tests" / "golden" / "five_stage_2pods" / "scenario.yaml"
    snapshot = snapshot_from_scenario(yaml.safe_load(scenario.read_text()))
    plan = adoption_plan(compiled_set(snapshot), name="clos5")
    assert plan.recognised["asn_scheme"].startswith("5-stage")
    roles = {switch.hostname: switch.role for switch in plan.snapshot.inventory.switches}
    assert roles == {switch.hostname: switch.role for switch in snapshot.inventory.switches}
    assert adoption_proof(plan).semantic_diff == 0
