"""The pre-push guard (changes.guard.push_guard): per platform, a passing candidate and each way to break it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eos_recorded_device import RECORDED

from changes.drivers.config_db import apply_config_db_patch, config_db_patch
from changes.errors import PushRefused
from changes.guard import config_blocks, push_guard

EOS = (RECORDED / "running-before.cfg").read_text()


def _eos(running: str, candidate: str) -> None:
    push_guard(device="leaf1", platform="eos", running={"startup-config": running},
               effective={"startup-config": candidate})


def test_eos_candidate_keeping_management_and_drain_passes():
    _eos(EOS, EOS.replace("vlan 10\n   name net10\n", "vlan 10\n   name net10\n!\nvlan 30\n"))
    _eos(EOS, EOS.replace("!\nend\n", "!\nmanagement ssh\n   vrf MGMT\n      no shutdown\n!\nend\n"))  # an addition


@pytest.mark.parametrize(("before", "after", "named"), [
    ("   ip address 192.0.2.11/24\n", "   ip address 192.0.2.12/24\n", "'interface Management1': line 'ip address 192.0.2.11/24'"),
    ("interface Management1\n   vrf MGMT\n", "interface Management1\n", "'interface Management1': line 'vrf MGMT' would be removed"),
    ("vrf instance MGMT\n!\n", "", "management 'vrf instance MGMT' would be removed"),
    ("ip route vrf MGMT 0.0.0.0/0 192.0.2.1\n", "ip route vrf MGMT 0.0.0.0/0 192.0.2.254\n",
     "management route 'ip route vrf MGMT 0.0.0.0/0 192.0.2.1' would be removed"),
    ("management api http-commands\n   no shutdown\n", "management api http-commands\n   shutdown\n",
     "'management api http-commands': line 'no shutdown' would be removed"),
    ("username admin privilege 15 role network-admin secret sha512 $6$k3yhash$AbCdEf\n", "",
     "login 'username admin' would be removed"),
    ("maintenance\n   unit System\n      quiesce\n!\n", "", "drain state 'maintenance' would be removed"),
])
def test_eos_candidate_cutting_management_or_drain_is_refused(before, after, named):
    assert before in EOS
    with pytest.raises(PushRefused) as refused:
        _eos(EOS, EOS.replace(before, after))
    assert str(refused.value).startswith("leaf1: push refused") and named in str(refused.value)
    assert refused.value.device == "leaf1" and refused.value.problems


def test_eos_drain_added_by_the_candidate_is_refused_and_default_vrf_route_protected():
    undrained = EOS.replace("maintenance\n   unit System\n      quiesce\n!\n", "")
    with pytest.raises(PushRefused, match="drain state 'maintenance': line 'unit System / quiesce' would be added"):
        _eos(undrained, EOS)
    no_vrf = "interface Management1\n   ip address 192.0.2.11/24\n!\nip route 0.0.0.0/0 192.0.2.1\n"
    _eos(no_vrf, no_vrf + "vlan 30\n")
    with pytest.raises(PushRefused, match="management route 'ip route 0.0.0.0/0 192.0.2.1'"):
        _eos(no_vrf, "interface Management1\n   ip address 192.0.2.11/24\n")


SONIC = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "hwsku": "Mellanox-SN5600-C256", "platform":
                                      "x86_64-nvidia_sn5600-r0", "mac": "1c:34:da:00:00:02", "bgp_asn": "65102"}},
    "MGMT_INTERFACE": {"eth0|192.0.2.12/24": {"gwaddr": "192.0.2.1"}},
    "MGMT_PORT": {"eth0": {"admin_status": "up", "alias": "eth0"}},
    "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
    "STATIC_ROUTE": {"mgmt|0.0.0.0/0": {"nexthop": "192.0.2.1"}},
    "SSH_SERVER": {"POLICIES": {"ports": "22"}},
    "BGP_DEVICE_GLOBAL": {"STATE": {"tsa_enabled": "true"}},
    "VLAN": {"Vlan10": {"vlanid": "10"}},
}


def _sonic(candidate: dict) -> None:
    """As the Netmiko driver calls it: effective = running + the push's JSON Patch."""
    effective = apply_config_db_patch(SONIC, config_db_patch(SONIC, candidate))
    push_guard(device="leaf2", platform="sonic", running={"config_db.json": json.dumps(SONIC), "frr.conf": ""},
               effective={"config_db.json": json.dumps(effective), "frr.conf": ""})


def test_sonic_candidate_without_management_tables_passes_because_they_are_merged():
    _sonic({"DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "bgp_asn": "65102"}}, "VLAN": {}})


@pytest.mark.parametrize(("candidate", "named"), [
    ({"MGMT_INTERFACE": {"eth0|192.0.2.12/24": {"gwaddr": "192.0.2.254"}}},
     "MGMT_INTERFACE|eth0|192.0.2.12/24 field 'gwaddr' would change '192.0.2.1' -> '192.0.2.254'"),
    ({"MGMT_PORT": {"eth0": {"admin_status": "down"}}}, "MGMT_PORT|eth0 field 'admin_status' would change"),
    ({"STATIC_ROUTE": {"mgmt|0.0.0.0/0": {"nexthop": "192.0.2.9"}}}, "STATIC_ROUTE|mgmt|0.0.0.0/0 field 'nexthop'"),
    ({"DEVICE_METADATA": {"localhost": {"hwsku": "ACS-MSN2700"}}},
     "DEVICE_METADATA|localhost field 'hwsku' would change 'Mellanox-SN5600-C256' -> 'ACS-MSN2700'"),
    ({"BGP_DEVICE_GLOBAL": {"STATE": {"tsa_enabled": "false"}}},
     "BGP_DEVICE_GLOBAL|STATE field 'tsa_enabled' would change 'true' -> 'false'"),
    ({"SSH_SERVER": {"POLICIES": {"ports": "2222"}}}, "SSH_SERVER|POLICIES field 'ports'"),
])
def test_sonic_candidate_changing_management_or_drain_is_refused(candidate, named):
    with pytest.raises(PushRefused) as refused:
        _sonic(candidate)
    assert str(refused.value).startswith("leaf2: push refused") and named in str(refused.value)


def test_sonic_removal_only_happens_on_a_full_replace_and_is_refused():
    effective = {table: rows for table, rows in SONIC.items() if not table.startswith("MGMT")}
    with pytest.raises(PushRefused, match=r"MGMT_INTERFACE\|eth0\|192.0.2.12/24 would be removed"):
        push_guard(device="leaf2", platform="sonic", running={"config_db.json": json.dumps(SONIC)},
                   effective={"config_db.json": json.dumps(effective)})


def test_sonic_undrained_switch_may_not_be_drained_by_a_push():
    running = {table: rows for table, rows in SONIC.items() if table != "BGP_DEVICE_GLOBAL"}
    drained = {**running, "BGP_DEVICE_GLOBAL": {"STATE": {"tsa_enabled": "true"}}}
    with pytest.raises(PushRefused, match="tsa_enabled' would change 'false' -> 'true'"):
        push_guard(device="leaf2", platform="sonic", running={"config_db.json": json.dumps(running)},
                   effective={"config_db.json": json.dumps(drained)})


FRR = """frr version 8.4
hostname leaf1
!
vrf mgmt
 ip route 0.0.0.0/0 192.0.2.1
exit-vrf
!
router bgp 65101
 neighbor 10.1.0.0 remote-as 65000
 address-family ipv4 unicast
  neighbor 10.1.0.0 route-map FT-DRAIN out
 exit-address-family
exit
!
route-map FT-DRAIN permit 10
 set as-path prepend 65101 65101 65101
exit
"""


def test_frr_candidate_keeping_mgmt_vrf_and_drain_passes_and_breaking_them_is_refused():
    push_guard(device="leaf1", platform="frr", running={"frr.conf": FRR}, effective={"frr.conf": FRR + "ip forwarding\n"})
    with pytest.raises(PushRefused, match=r"leaf1: .*management 'vrf mgmt': line 'ip route 0.0.0.0/0 192.0.2.1'"):
        push_guard(device="leaf1", platform="frr", running={"frr.conf": FRR},
                   effective={"frr.conf": FRR.replace(" ip route 0.0.0.0/0 192.0.2.1\n", "")})
    undrained = FRR.replace("  neighbor 10.1.0.0 route-map FT-DRAIN out\n", "")
    with pytest.raises(PushRefused, match="drain state 'router bgp 65101 / address-family ipv4 unicast / neighbor 10.1.0.0 route-map FT-DRAIN out'"):
        push_guard(device="leaf1", platform="frr", running={"frr.conf": FRR}, effective={"frr.conf": undrained})


def test_unknown_platform_is_refused_by_name():
    with pytest.raises(PushRefused, match="platform='junos' has no push guard"):
        push_guard(device="leaf1", platform="junos", running={}, effective={})


def test_config_blocks_flatten_nested_modes():
    blocks = config_blocks(EOS)
    assert blocks["management api http-commands"] == ["no shutdown", "vrf MGMT", "vrf MGMT / no shutdown"]
    assert blocks["maintenance"] == ["unit System", "unit System / quiesce"]
    assert "end" not in blocks


def test_eos_candidate_without_a_management_address_is_refused_even_if_running_shows_none():
    bare = "hostname leaf1\n!\nvlan 10\n"
    with pytest.raises(PushRefused, match=r"leaf1: .*no 'interface Management\*' with an 'ip address'"):
        _eos(bare, bare + "vlan 30\n")
    _eos(bare, bare + "interface Management1\n   ip address 192.0.2.11/24\n")


def test_a_rendered_sonic_config_keeps_the_switch_s_own_mac():
    """Issue #27: the renderer states DEVICE_METADATA.mac only when the inventory knows the base MAC, so pushing a
    golden SONiC rendering (no MAC in the inventory) onto a switch keeps the switch's own MAC and the guard
    passes; a made-up MAC (what the renderer wrote before) is refused, naming the field."""
    golden = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "rendered"
    candidate = json.loads(next(golden.glob("*/sonic/config_db.json")).read_text())
    assert "mac" not in candidate["DEVICE_METADATA"]["localhost"]
    running = json.loads(json.dumps(candidate))
    running["DEVICE_METADATA"]["localhost"]["mac"] = "1c:34:da:00:00:02"  # the switch's own, from its EEPROM

    def push(config: dict) -> dict:
        effective = apply_config_db_patch(running, config_db_patch(running, config))
        push_guard(device="leaf2", platform="sonic", running={"config_db.json": json.dumps(running), "frr.conf": ""},
                   effective={"config_db.json": json.dumps(effective), "frr.conf": ""})
        return effective

    assert push(candidate)["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:00:00:02"
    invented = json.loads(json.dumps(candidate))
    invented["DEVICE_METADATA"]["localhost"]["mac"] = "c6:06:55:20:af:b9"
    with pytest.raises(PushRefused, match="mac"):
        push(invented)
