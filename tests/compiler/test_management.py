"""Structured key ``management`` (compiler/structured/management.py) and its intent checks."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from compiler.api import build_facts, render_device, structured_configs
from compiler.errors import IntentValidationError
from compiler.model import Management
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


@pytest.mark.parametrize(("changes", "field", "value"), [
    ({"network": "172.16.0.1/16"}, "management.network", "172.16.0.1/16"),
    ({"gateway": "10.0.0.1"}, "management.gateway", "10.0.0.1"),
    ({"ntp_servers": ("-pool.ntp.org",)}, "management.ntp_servers", "-pool.ntp.org"),  # not an RFC 1123 name
    ({"ntp_servers": ("10.0.0.300",)}, "management.ntp_servers", "10.0.0.300"),  # a bad address, not a name
    ({"syslog_servers": ("pool.ntp.org",)}, "management.syslog_servers", "pool.ntp.org"),  # names: NTP only
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
    validate_intent(_with_management(make_snapshot(), gateway="172.16.255.254",
                                     ntp_servers=("2001:db8::123", "0.pool.ntp.org"),
                                     aaa_servers=("192.0.2.5",), aaa_secret_ref="vault:secret/tacacs"))


def _with_base_mac(snapshot, hostname: str, mac: str | None):
    switches = tuple(replace(switch, base_mac=mac) if switch.hostname == hostname else switch
                     for switch in snapshot.inventory.switches)
    return replace(snapshot, inventory=replace(snapshot.inventory, switches=switches))


def test_system_mac_is_the_inventory_base_mac_or_none(make_snapshot):
    """The device's own identity (issue #27): the structured system_mac is the inventory's base MAC, never a
    made-up one; SONiC's DEVICE_METADATA then carries it, or no mac at all."""
    snapshot = _with_base_mac(make_snapshot(clos={"platform": "sonic"}), "leaf1", "1C:34:DA:5E:00:02")
    validate_intent(snapshot)
    configs = structured_configs(snapshot, build_facts(snapshot))
    assert configs["leaf1"]["system_mac"] == "1c:34:da:5e:00:02"
    assert configs["leaf2"]["system_mac"] is None
    rendered = {host: json.loads(render_device(configs[host], "sonic")["config_db.json"]) for host in ("leaf1", "leaf2")}
    assert rendered["leaf1"]["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:5e:00:02"
    assert "mac" not in rendered["leaf2"]["DEVICE_METADATA"]["localhost"]


@pytest.mark.parametrize(("mac", "reason"), [
    ("1c:34:da:5e:00", "six hex octets"), ("1c-34-da-5e-00-02", "six hex octets"),
    ("01:00:5e:00:00:01", "multicast"), ("00:00:00:00:00:00", "all-zero")])
def test_a_bad_base_mac_is_a_field_error(make_snapshot, mac, reason):
    snapshot = _with_base_mac(make_snapshot(clos={"platform": "sonic"}), "leaf1", mac)
    with pytest.raises(IntentValidationError) as error:
        validate_intent(snapshot)
    assert any(item.field == "switches[leaf1].base_mac" and item.value == mac and reason in item.message
               for item in error.value.errors)


def test_two_switches_with_one_base_mac_are_refused(make_snapshot):
    snapshot = _with_base_mac(make_snapshot(clos={"platform": "sonic"}), "leaf1", "1c:34:da:5e:00:02")
    snapshot = _with_base_mac(snapshot, "leaf2", "1C:34:DA:5E:00:02")
    with pytest.raises(IntentValidationError, match=r"base MAC used by 2 switches \(leaf1, leaf2\)"):
        validate_intent(snapshot)
