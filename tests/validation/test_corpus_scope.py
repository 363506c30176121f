"""What the corpus bench counts toward issue 25's "unmodelled lines <= 10 % on fabric devices": the fabric sets
(SOURCES.md, "Fabric devices") and the access-port lines it reports as out of scope instead of unmodelled."""

from __future__ import annotations

import pytest

from bench.corpus_bench import fabric_totals, is_fabric, line_kind, out_of_scope, set_kinds, unmodelled_lines
from compiler.parse import parse_device


@pytest.mark.parametrize("text, feature", [
    ("dot1x port-control auto", "802.1X"), ("dot1x system-auth-control", "802.1X"),
    ("aaa authentication dot1x default group radius", "802.1X"), ("poe limit 30.00 watts", "PoE"),
    ("switchport phone vlan 120", "phone VLAN"), ("switchport mode trunk phone", "phone VLAN"),
])
def test_access_port_features_are_out_of_scope(text, feature):
    assert out_of_scope(text) == feature


@pytest.mark.parametrize("text", [
    # Fabric features never leave the denominator, however close their words are.
    "switchport mode trunk", "storm-control broadcast level 1", "spanning-tree portfast", "mac security profile M",
    "ptp enable", "aaa authentication login default local", "dot1q", "poem", "switchport trunk native vlan 120",
])
def test_fabric_features_are_not_out_of_scope(text):
    assert out_of_scope(text) is None


def test_out_of_scope_lines_are_counted_apart_and_others_stay_unmodelled():
    text = ("hostname access1\ninterface Ethernet1\n   switchport access vlan 10\n   dot1x port-control auto\n"
            "   poe priority critical\n   link-debounce time 500\n")
    files = {"startup-config": text}
    device = parse_device(files)
    kinds: dict[str, int] = {}
    assert unmodelled_lines(files, device, kinds) == (1, 2)  # link-debounce stays unmodelled
    assert kinds == {"link-debounce time": 1}


def test_fabric_sets_are_the_known_good_fabrics_only():
    kinds = set_kinds()
    fabric = {name for name, entry in kinds.items() if is_fabric({"set": name, **entry})}
    assert {"avd/single-dc-l3ls", "avd/l2ls-fabric", "avd/campus-fabric", "sonic-mgmt/vs-voq-t2"} <= fabric
    # WAN, MPLS, SRv6, unit-test and grammar sets are reported but outside the target.
    assert not fabric & {"avd/cv-pathfinder", "avd/isis-ldp-ipvpn", "avd/eos_designs_unit_tests",
                         "batfish/arista-testconfigs", "sonic-mgmt/7nodes-cisco", "containerlab/frr01"}


def test_fabric_figure_divides_by_the_in_scope_lines():
    rows = [{"set": "a/b", "fabric": True, "unmodelled_kinds": {"x y": 5},
             "platforms": {"eos": {"devices": 1, "lines": 100, "unmodelled": 5, "out_of_scope": 50}}},
            {"set": "c/d", "fabric": False, "unmodelled_kinds": {"z": 90},
             "platforms": {"eos": {"devices": 1, "lines": 100, "unmodelled": 90, "out_of_scope": 0}}}]
    fabric = fabric_totals(rows)
    assert fabric["platforms"]["eos"]["in_scope"] == 50 and fabric["unmodelled"] == 5
    assert fabric["kinds"] == {"x y": 5} and fabric["sets"] == ["a/b"]


def test_line_kind_groups_by_command_head_and_table():
    assert line_kind("neighbor 10.1.2.3 description x") == "neighbor N.N.N.N"
    assert line_kind("SYSTEM_PORT") == "SYSTEM_PORT"
    assert line_kind("BGP_NEIGHBOR|Vrf1|10.0.0.1") == "BGP_NEIGHBOR"
