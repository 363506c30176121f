"""Structured key ``management`` (compiler/structured/management.py) and its intent checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.api import build_facts, structured_configs
from compiler.errors import IntentValidationError
from compiler.model import Management
from compiler.structured.base import system_mac
from compiler.validate import validate_intent


def _with_management(snapshot, **changes):
    return replace(snapshot, intent=replace(snapshot.intent, management=replace(Management(), **changes)))


def test_every_switch_gets_its_management_plane(make_snapshot):
    snapshot = _with_management(make_snapshot(clos={"platform": "sonic"}), ntp_servers=("192.0.2.10",),
                                syslog_servers=("192.0.2.20",), dns_servers=("192.0.2.53",),
                                aaa_servers=("192.0.2.5",), aaa_secret_ref="vault:secret/tacacs")
    configs = structured_configs(snapshot, build_facts(snapshot))
    leaf = snapshot.inventory.switches_by_name["leaf1"]
    assert configs["leaf1"]["management"] == {
        "interface": "eth0", "vrf": "mgmt", "address": f"{leaf.mgmt_ip}/16", "gateway": "172.16.255.254",
        "ntp_servers": ["192.0.2.10"], "syslog_servers": ["192.0.2.20"], "dns_servers": ["192.0.2.53"],
        "aaa": {"tacacs_servers": ["192.0.2.5"], "secret_ref": "vault:secret/tacacs"}}


def test_eos_management_interface_comes_from_the_platform_data(make_snapshot):
    snapshot = make_snapshot(clos={"platform": "eos"})
    configs = structured_configs(snapshot, build_facts(snapshot))
    assert configs["spine1"]["management"]["interface"] == "Management1"


def test_system_mac_is_stable_locally_administered_unicast():
    mac = system_mac("SN-abc")
    assert mac == system_mac("SN-abc") != system_mac("SN-abd")
    first = int(mac.split(":")[0], 16)
    assert first & 0x02 and not first & 0x01


@pytest.mark.parametrize(("changes", "field", "value"), [
    ({"network": "172.16.0.1/16"}, "management.network", "172.16.0.1/16"),
    ({"gateway": "10.0.0.1"}, "management.gateway", "10.0.0.1"),
    ({"ntp_servers": ("pool.ntp.org",)}, "management.ntp_servers", "pool.ntp.org"),
    ({"vrf": "management-vrf-too-long"}, "management.vrf", "management-vrf-too-long"),
    ({"aaa_servers": ("192.0.2.5",), "aaa_secret_ref": "hunter2"}, "management.aaa_secret_ref", "hunter2"),
    ({"aaa_servers": ("192.0.2.5",), "aaa_secret_ref": "vault:a#b,c"}, "management.aaa_secret_ref", "vault:a#b,c"),
    ({"network": "10.99.0.0/16"}, "switches[spine1].mgmt_ip", "172.16.0.1"),
    ({"gateway": "172.16.0.1"}, "switches[spine1].mgmt_ip", "172.16.0.1"),  # spine1's own address
])
def test_bad_management_input_names_the_field_and_value(make_snapshot, changes, field, value):
    snapshot = _with_management(make_snapshot(), **changes)
    with pytest.raises(IntentValidationError) as caught:
        validate_intent(snapshot)
    assert any(error.field == field and error.value == value for error in caught.value.errors), caught.value.errors


def test_good_management_input_passes(make_snapshot):
    validate_intent(_with_management(make_snapshot(), gateway="172.16.255.254", ntp_servers=("2001:db8::123",),
                                     aaa_servers=("192.0.2.5",), aaa_secret_ref="vault:secret/tacacs"))
