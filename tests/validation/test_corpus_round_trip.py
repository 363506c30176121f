"""``render(parse(text))`` on the public corpus (issue 25 item 5): every device the parsers read is rendered for
its own platform without printing ``None``, and our own parser reads the rendering back (bench.corpus_bench
.round_trip, the figure the bench reports).

Every known-good fabric device (SOURCES.md, "Fabric devices") round-trips, with no exception. Elsewhere in the
corpus (grammar and unit-test snapshots) the renderers refuse a few devices, naming field and value: those are
:data:`REFUSED` with the reason (a model limit or a value the platform's schema refuses), and the list is
strict (a device that starts to round-trip, or fails for another reason, fails the test until the entry is
updated). Pure: no database.
"""

from __future__ import annotations

import pytest

from bench import corpus_bench
from bench.corpus_bench import corpus_sets, is_fabric, round_trip, set_kinds
from compiler.errors import FabricTwinError
from compiler.parse import parse_device
from compiler.parse.files import configs_from_directory

# "set/device": the start of the round-trip failure, and why it is refused. Two are limits of our model (named so,
# not blamed on the config): each would be a model change, not a renderer fix.
REFUSED: dict[str, tuple[str, str]] = {
    "avd/eos_cli_config_gen/ethernet-interfaces": (
        "render: RenderError: ethernet-interfaces: qos.lossless_priorities=[5]",
        "model limit: AVD's CLI-grammar test sets `priority-flow-control priority 5 no-drop` with no DSCP mapped to "
        "traffic class 5 (no qos map at all); the model states lossless priorities through its classes' DSCPs, "
        "and the EOS writer refuses a lossless priority no class reaches rather than print a different config"),
    "avd/eos_cli_config_gen/qos": (
        "render: RenderError: qos: qos.scheduling weights sum to 161%",
        "model limit: AVD's CLI-grammar test has eight qos profiles with their own tx-queue bandwidths; the model "
        "has one device-wide qos.scheduling, merged from all of them (161 %), which EOS's `bandwidth percent` "
        "cannot print (a profile's shares are at most 100)"),
    "batfish/sonic-snapshots/vlan": (
        "render: RenderError: vlan: vlans[1].id=1: SONiC VLAN ids are 2..4094",
        "Batfish's parser snapshot names Vlan1, outside sonic-vlan.yang's VLAN_LIST (Vlan2..Vlan4095, vlanid "
        "2..4094) that the SONiC writer follows"),
}

KINDS = set_kinds()
SETS = [(f"{source}/{name}", directory) for source, name, directory in corpus_sets()]


def _failures(directory, every_line_read: bool = False) -> tuple[int, dict[str, str]]:
    """(devices read, {device key: why its round trip fails}) for one set, devices parsed one by one."""
    read, failures = 0, {}
    for key, files in sorted(configs_from_directory(directory).items()):
        try:
            device = parse_device(files, hostname_hint=key)
        except FabricTwinError:
            continue  # refused with its reason: counted by test_corpus.py, not a round trip
        read += 1
        if problem := round_trip(device, every_line_read):
            failures[key] = problem
    return read, failures


@pytest.mark.parametrize("name, directory", [pytest.param(name, directory, id=name) for name, directory in SETS
                                             if is_fabric({"set": name, **KINDS.get(name, {})})])
def test_every_known_good_fabric_device_round_trips(name, directory):
    # Stricter here: every line we print for a fabric device is one our parser models. (Elsewhere a neighbor's
    # route map whose body is unmodelled keeps its reference line only, which then reads back as unmodelled.)
    read, failures = _failures(directory, every_line_read=True)
    assert read and failures == {}


@pytest.mark.parametrize("name, directory", [pytest.param(name, directory, id=name) for name, directory in SETS
                                             if not is_fabric({"set": name, **KINDS.get(name, {})})])
def test_other_sets_round_trip_but_for_the_named_refusals(name, directory):
    _, failures = _failures(directory)
    expected = {key.rsplit("/", 1)[1]: why for key, (why, _) in REFUSED.items() if key.rsplit("/", 1)[0] == name}
    assert set(failures) == set(expected), failures
    for key, why in expected.items():
        assert failures[key].startswith(why), failures[key]


def test_the_round_trip_catches_none_an_unread_rendering_and_a_refusal(monkeypatch):
    """The deliberately broken cases, with the renderer replaced by stand-ins."""
    device = parse_device({"frr.conf": "frr version 10.3\nhostname leaf1\n!\ninterface eth1\n ip address "
                                       "10.0.0.1/31\nexit\n!\nrouter bgp 65001\n neighbor 10.0.0.0 remote-as 65000\n"
                                       "exit\n!\n"})
    assert round_trip(device) == ""
    monkeypatch.setattr(corpus_bench, "render_device", lambda structured, platform: {
        "frr.conf": "hostname leaf1\ninterface eth1\n mtu None\nexit\n"})
    assert round_trip(device) == "prints None: frr.conf: mtu None"
    monkeypatch.setattr(corpus_bench, "render_device", lambda structured, platform: {
        "frr.conf": "hostname leaf1\ninterface eth1\n no such command here\nexit\n"})
    assert round_trip(device) == ""  # read back, a line unmodelled: only the strict form says so
    assert round_trip(device, every_line_read=True) == ("printed but not read back: frr.conf:3: no such command "
                                                        "here")
    monkeypatch.setattr(corpus_bench, "render_device", lambda structured, platform: {
        "frr.conf": "hostname leaf1\nrouter bgp notanumber\nexit\n"})
    assert round_trip(device).startswith("parse again: ParseError: frr.conf:2 `router bgp notanumber`")

    def refuse(structured, platform):
        raise corpus_bench.FabricTwinError("interfaces[eth1].lanes=None")

    monkeypatch.setattr(corpus_bench, "render_device", refuse)
    assert round_trip(device) == "render: FabricTwinError: interfaces[eth1].lanes=None"


def test_the_evpn_overlay_peer_group_keeps_its_bfd_through_the_round_trip():
    """AVD's loopback overlay group (EVPN-OVERLAY-PEERS, `bfd`, members folded onto the underlay sessions) stays a
    peer group, so the writer prints its `bfd` back: before, the group was dropped and 97 fabric devices re-read
    with another `bgp.bfd`. The carried model of the BGP block is equal after the round trip."""
    from compiler.parse.carried import carried
    from compiler.render import render_device

    files = configs_from_directory(corpus_bench.CORPUS / "avd" / "single-dc-l3ls")["dc1-leaf1a"]
    first = parse_device(files, hostname_hint="dc1-leaf1a")
    groups = {group["name"]: group for group in first.structured["bgp"]["peer_groups"]}
    assert groups["EVPN-OVERLAY-PEERS"]["bfd"] is True and groups["EVPN-OVERLAY-PEERS"]["address_families"] == [
        "l2vpn_evpn"]
    assert groups["IPv4-UNDERLAY-PEERS"]["bfd"] is False  # bgp.bfd comes from the overlay group alone
    again = parse_device(render_device(first.structured, "eos"), platform="eos")
    assert carried(again.structured, "eos")["bgp"] == carried(first.structured, "eos")["bgp"]
    assert again.structured["bgp"]["bfd"] is True
