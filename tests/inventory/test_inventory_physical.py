"""Physical checks: every rule passes on a good inventory and fails on a deliberately broken one (pure, no DB)."""

from dataclasses import replace

import pytest

from compiler.clos import ClosParams, plan_clos
from compiler.model import Cable, Endpoint, Interface, Inventory, NicPort, Optic, Rack, Server, Switch, SwitchModelSpec
from validators import physical
from validators.findings import Severity

MODEL = SwitchModelSpec(name="T4-64", vendor="Test", asic="TH4", port_count=64, max_speed_gbps=400,
                        form_factor="QSFP-DD", breakout_modes=("1x400G", "2x200G", "4x100G"), buffer_mb=113,
                        typical_power_w=800)
DR4 = Optic(form_factor="QSFP-DD", media="400G-DR4", speed_gbps=400, reach_m=500.0, serial="O1")
SR8 = Optic(form_factor="QSFP-DD", media="400G-SR8", speed_gbps=400, reach_m=100.0, serial="O2")
NIC_DR4 = Optic(form_factor="QSFP112", media="400G-DR4", speed_gbps=400, reach_m=500.0, serial="O3")


def _leaf_optic(serial):
    return replace(DR4, serial=serial)


def good_inventory() -> Inventory:
    spine = Switch("spine1", "spine", "eos", "T4-64", rack="net1", u_position=40, mgmt_ip="10.0.0.1", serial="S1",
                   interfaces=(Interface("Ethernet1", 400, optic=_leaf_optic("OS1")),
                               Interface("Ethernet2", 400, optic=_leaf_optic("OS2"))))
    leaf1 = Switch("leaf1", "leaf", "eos", "T4-64", rack="r1", u_position=40, mgmt_ip="10.0.0.2", serial="L1",
                   interfaces=(Interface("Ethernet1", 400, optic=_leaf_optic("OL1a")),
                               Interface("Ethernet64", 400, optic=_leaf_optic("OL1b")),
                               Interface("Ethernet60", 400)))
    leaf2 = Switch("leaf2", "leaf", "eos", "T4-64", rack="r1", u_position=38, mgmt_ip="10.0.0.3", serial="L2",
                   interfaces=(Interface("Ethernet64", 400, optic=_leaf_optic("OL2b")), Interface("Ethernet60", 400)))
    server = Server("gpu1", rack="r1", u_position=1, power_w=10200.0, mgmt_ip="10.1.0.1", serial="G1",
                    nics=(NicPort("eth0", 0, 400, optic=NIC_DR4),))
    cables = (
        Cable("C1", Endpoint("leaf1", "Ethernet64"), Endpoint("spine1", "Ethernet1"), "smf", 30.0),
        Cable("C2", Endpoint("leaf2", "Ethernet64"), Endpoint("spine1", "Ethernet2"), "smf", 30.0),
        Cable("C3", Endpoint("gpu1", "eth0"), Endpoint("leaf1", "Ethernet1"), "smf", 3.0),
        Cable("C4", Endpoint("leaf1", "Ethernet60"), Endpoint("leaf2", "Ethernet60"), "dac", 1.0, peer_link=True),
    )
    racks = (Rack("net1", power_budget_kw=5.0), Rack("r1", power_budget_kw=15.0))
    return Inventory("t", switches=(spine, leaf1, leaf2), servers=(server,), cables=cables, racks=racks,
                     switch_models=(MODEL,))


def _replace_cable(inventory: Inventory, label: str, **changes) -> Inventory:
    cables = tuple(replace(c, **changes) if c.label == label else c for c in inventory.cables)
    return replace(inventory, cables=cables)


def _replace_interface(inventory: Inventory, hostname: str, name: str, **changes) -> Inventory:
    switches = []
    for switch in inventory.switches:
        if switch.hostname == hostname:
            interfaces = tuple(replace(i, **changes) if i.name == name else i for i in switch.interfaces)
            switch = replace(switch, interfaces=interfaces)
        switches.append(switch)
    return replace(inventory, switches=tuple(switches))


def errors(findings):
    return [f for f in findings if f.severity == Severity.ERROR]


@pytest.mark.parametrize("check", list(physical.PHYSICAL_CHECKS))
def test_every_rule_passes_on_a_consistent_inventory(check):
    assert errors(physical.PHYSICAL_CHECKS[check](good_inventory())) == []


def test_planned_clos_fabrics_are_physically_consistent_except_known_power():
    inventory = plan_clos(ClosParams(spines=2, leaves=4, servers_per_leaf=2, rack_power_budget_kw=60.0))
    report = physical.physical_report(inventory)
    assert report.ok, report.as_text()
    assert report.counts() == {"passed": len(physical.PHYSICAL_CHECKS), "failed": 0, "skipped": 0, "incomplete": 0}


def test_speed_mismatch_names_both_ends():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet1", speed_gbps=100)
    found = errors(physical.check_cable_speed(broken))
    assert len(found) == 1
    assert "leaf1:Ethernet64" in found[0].message and "spine1:Ethernet1" in found[0].message
    assert found[0].subject == "leaf1:Ethernet64<->spine1:Ethernet1"
    assert (found[0].expected, found[0].actual) == (400, 100)


def test_optic_form_factor_must_fit_the_cage():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet1", optic=replace(DR4, form_factor="OSFP"))
    found = errors(physical.check_optic_port(broken))
    assert [f.subject for f in found] == ["spine1:Ethernet1"]
    assert "OSFP" in found[0].message and "QSFP-DD" in found[0].message


def test_optic_speed_must_match_the_port():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet2",
                                optic=Optic("QSFP-DD", "100G-SR4", 100, 100.0))
    found = errors(physical.check_optic_port(broken))
    assert any(f.expected == 400 and f.actual == 100 for f in found)


def test_unsupported_breakout_mode_is_reported():
    inventory = good_inventory()
    spine = inventory.switches[0]
    children = (Interface("Ethernet5/1", 50, breakout_parent="Ethernet5", lane=1),
                Interface("Ethernet5/2", 50, breakout_parent="Ethernet5", lane=2))
    broken = replace(inventory, switches=(replace(spine, interfaces=spine.interfaces + children),
                                          *inventory.switches[1:]))
    found = errors(physical.check_optic_port(broken))
    assert [f.subject for f in found] == ["spine1:Ethernet5"]
    assert "2x50G" in found[0].message


def test_supported_breakout_passes_and_optic_on_parent_must_allow_the_split():
    inventory = good_inventory()
    spine = inventory.switches[0]
    parent = Interface("Ethernet7", 400, optic=replace(DR4, serial="P7"))
    children = tuple(Interface(f"Ethernet7/{lane}", 100, breakout_parent="Ethernet7", lane=lane) for lane in (1, 2, 3, 4))
    grown = replace(inventory, switches=(replace(spine, interfaces=spine.interfaces + (parent, *children)),
                                         *inventory.switches[1:]))
    assert errors(physical.check_optic_port(grown)) == []  # 400G-DR4 -> 4 x 100G-DR is standard
    fr4 = Optic("QSFP-DD", "400G-FR4", 400, 2000.0, serial="P7")
    broken = _replace_interface(grown, "spine1", "Ethernet7", optic=fr4)
    found = errors(physical.check_optic_port(broken))
    assert any("cannot break out into 4 ports" in f.message for f in found)


def test_fibre_type_must_match_the_optics():
    broken = _replace_cable(good_inventory(), "C1", cable_type="mmf")
    found = errors(physical.check_cable_media(broken))
    assert len(found) == 2  # both DR4 ends need single-mode fibre
    assert all("leaf1:Ethernet64 <-> spine1:Ethernet1" in f.message for f in found)


def test_dac_cable_on_optical_transceivers_is_reported():
    broken = _replace_cable(good_inventory(), "C3", cable_type="dac")
    found = errors(physical.check_cable_media(broken))
    assert {f.actual for f in found} == {"smf"}


def test_fibre_without_transceiver_is_reported():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet1", optic=None)
    found = errors(physical.check_cable_media(broken))
    assert len(found) == 1 and "needs a transceiver" in found[0].message


def test_cable_longer_than_optic_reach():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet1", optic=replace(SR8, serial="X"))
    broken = _replace_cable(broken, "C1", cable_type="mmf", length_m=150.0)
    broken = _replace_interface(broken, "leaf1", "Ethernet64", optic=replace(SR8, serial="Y"))
    found = errors(physical.check_cable_reach(broken))
    assert len(found) == 2  # SR8 reaches 100 m on OM4 at both ends
    assert found[0].expected == "<= 100 m" and found[0].actual == "150 m"


def test_dac_without_optic_record_uses_catalogue_reach():
    good = good_inventory()
    assert errors(physical.check_cable_reach(good)) == []  # C4: 1 m DAC
    broken = _replace_cable(good, "C4", length_m=5.0)
    found = errors(physical.check_cable_reach(broken))
    assert len(found) == 2 and "reaches 3 m" in found[0].message  # 400G passive copper ~3 m


def test_cable_ends_must_be_on_different_devices_and_exist():
    looped = _replace_cable(good_inventory(), "C4", b=Endpoint("leaf1", "Ethernet1"))
    found = errors(physical.check_cable_endpoints(looped))
    messages = " ".join(f.message for f in found)
    assert "loops back" in messages
    assert "leaf1:Ethernet1 is plugged into 2 cables" in messages
    unknown = _replace_cable(good_inventory(), "C1", b=Endpoint("spine9", "Ethernet1"))
    found = errors(physical.check_cable_endpoints(unknown))
    assert len(found) == 1 and "spine9:Ethernet1 is not in the inventory" in found[0].message


def test_leaf_to_leaf_needs_peer_link_flag():
    broken = _replace_cable(good_inventory(), "C4", peer_link=False)
    found = errors(physical.check_topology(broken))
    assert len(found) == 1 and "without being marked as a peer link" in found[0].message


def test_spine_to_spine_is_not_allowed():
    inventory = good_inventory()
    spine2 = Switch("spine2", "spine", "eos", "T4-64", rack="net1", interfaces=(Interface("Ethernet1", 400),))
    inventory = replace(inventory, switches=inventory.switches + (spine2,))
    broken = _replace_cable(inventory, "C1", a=Endpoint("spine2", "Ethernet1"))
    found = errors(physical.check_topology(broken))
    assert len(found) == 1 and "spine<->spine" in found[0].message


def test_server_to_spine_is_not_allowed_and_peer_link_flag_elsewhere_is():
    broken = _replace_cable(good_inventory(), "C3", b=Endpoint("spine1", "Ethernet2"))
    broken = replace(broken, cables=tuple(c for c in broken.cables if c.label != "C2"))
    found = errors(physical.check_topology(broken))
    assert len(found) == 1 and "server<->spine" in found[0].message
    flagged = _replace_cable(good_inventory(), "C1", peer_link=True)
    assert len(errors(physical.check_topology(flagged))) == 1


def test_rack_power_budget():
    good = good_inventory()
    assert errors(physical.check_rack_power(good)) == []  # r1: 2 x 800 W + 10.2 kW < 15 kW
    broken = replace(good, racks=(Rack("net1", power_budget_kw=5.0), Rack("r1", power_budget_kw=11.0)))
    found = errors(physical.check_rack_power(broken))
    assert len(found) == 1 and found[0].subject == "rack r1"
    assert found[0].actual == "11800 W" and found[0].expected == "<= 11000 W"


def test_rack_without_budget_is_an_info_not_a_pass_or_failure():
    inventory = replace(good_inventory(), racks=(Rack("net1"), Rack("r1")))
    found = physical.check_rack_power(inventory)
    assert {f.severity for f in found} == {Severity.INFO}


def test_duplicate_hostname_management_ip_and_serial():
    inventory = good_inventory()
    twin = replace(inventory.switches[2], hostname="leaf1", interfaces=())
    broken = replace(inventory, switches=inventory.switches + (twin,))
    found = errors(physical.check_unique_identity(broken))
    subjects = {f.subject for f in found}
    assert "leaf1" in subjects  # hostname used twice
    assert "management IP 10.0.0.3" in subjects
    assert "serial L2" in subjects


def test_duplicate_optic_serial():
    broken = _replace_interface(good_inventory(), "spine1", "Ethernet2", optic=replace(DR4, serial="OS1"))
    found = errors(physical.check_unique_identity(broken))
    assert len(found) == 1 and "optic at spine1:Ethernet1" in found[0].message


def test_physical_report_as_dict_and_text():
    broken = _replace_cable(good_inventory(), "C4", peer_link=False)
    report = physical.physical_report(broken)
    data = report.as_dict()
    assert data["ok"] is False
    assert data["counts"] == {"passed": len(physical.PHYSICAL_CHECKS) - 1, "failed": 1, "skipped": 0, "incomplete": 0}
    topology = next(c for c in data["checks"] if c["name"] == physical.TOPOLOGY)
    assert topology["status"] == "failed" and topology["counts"]["error"] == 1
    assert "[FAILED ] physical.topology" in report.as_text()


def test_physical_checks_scale_to_a_thousand_switches():
    import time

    inventory = plan_clos(ClosParams(spines=16, leaves=1000, servers_per_leaf=4, spine_model="DCS-7816R4",
                                     rack_power_budget_kw=200.0))  # 8 x 21 kW chassis per network rack
    started = time.perf_counter()
    report = physical.physical_report(inventory)
    elapsed = time.perf_counter() - started
    assert report.ok, report.as_text()[:2000]
    assert elapsed < 20, f"physical checks of 1016 switches took {elapsed:.1f} s"
