"""routing.igp, VTEP reachability and the iBGP loopback sessions over OSPF and IS-IS underlays, on Arista AVD's
OSPF-underlay and IS-IS-underlay/iBGP-overlay fabrics (tests/data/corpus/SOURCES.md): each known-good fabric
passes, and an injected fault (an OSPF area mismatch, an IS-IS metric skewing ECMP, an uplink taken out of IS-IS)
is caught on the faulted link."""

from __future__ import annotations

from pathlib import Path

from validators.configs import validate_configs

AVD = Path(__file__).resolve().parents[1] / "data" / "corpus" / "avd"
CHECKS = ["bgp.sessions", "routing.igp", "routing.vtep_reachability"]


def fabric(scenario: str) -> dict[str, dict[str, str]]:
    return {path.stem: {path.name: path.read_text()} for path in sorted((AVD / scenario).glob("*.cfg"))}


def run(configs):
    validation = validate_configs(configs, checks=CHECKS)
    return validation, {name: result for name, result in validation.report.checks.items()}


def errors(validation, check: str) -> list:
    return [f for f in validation.report.findings if f.check == check and f.severity == "error"]


def replace_in_block(text: str, header: str, old: str, new: str) -> str:
    start = text.index(f"\n{header}\n")
    end = text.index("\n!", start + 1)
    return text[:start] + text[start:end].replace(old, new) + text[end:]


def test_ospf_underlay_fabric_passes():
    validation, results = run(fabric("evpn_underlay_ospf_overlay_ebgp"))
    # passed, or incomplete where lines the model does not read (OSPF keys, BGP passwords) sit next to it
    assert results["routing.igp"].status in ("passed", "incomplete") and results["routing.igp"].examined["IGP links"]
    assert errors(validation, "routing.igp") == errors(validation, "routing.vtep_reachability") == []
    assert validation.report.context.igp.links >= 16  # every leaf's uplinks formed adjacencies


def test_an_ospf_area_mismatch_on_a_link_is_an_error():
    configs = fabric("evpn_underlay_ospf_overlay_ebgp")
    text = configs["DC1-LEAF1A"]["DC1-LEAF1A.cfg"]
    configs["DC1-LEAF1A"] = {"DC1-LEAF1A.cfg": replace_in_block(text, "interface Ethernet1", "ip ospf area 0.0.0.0",
                                                                 "ip ospf area 0.0.0.1")}
    validation, _ = run(configs)
    found = errors(validation, "routing.igp")
    assert [f.message for f in found if "area" in f.message] == [
        "no IGP adjacency on DC1-LEAF1A:Ethernet1<->DC1-SPINE1:Ethernet1: OSPF area 0.0.0.1 on one end, 0.0.0.0 on "
        "the other (RFC 2328 10.5)"]


def test_isis_underlay_with_ibgp_route_reflectors_passes():
    validation, results = run(fabric("evpn_underlay_isis_overlay_ibgp"))
    assert results["routing.igp"].status in ("passed", "incomplete")
    assert errors(validation, "bgp.sessions") == errors(validation, "routing.igp") == []
    assert errors(validation, "routing.vtep_reachability") == []
    sessions = validation.report.context.sessions.loopback_sessions
    assert len(sessions) == 14  # each of 7 leaves to 2 route-reflector spines, between loopbacks
    spine = validation.devices["DC1-SPINE1"].structured["bgp"]
    assert all(neighbor.get("route_reflector_client") for neighbor in spine["neighbors"])


def test_an_isis_metric_skew_narrows_ecmp():
    configs = fabric("evpn_underlay_isis_overlay_ibgp")
    text = configs["DC1-LEAF1A"]["DC1-LEAF1A.cfg"]
    configs["DC1-LEAF1A"] = {"DC1-LEAF1A.cfg": replace_in_block(text, "interface Ethernet1", "isis metric 50",
                                                                 "isis metric 500")}
    validation, _ = run(configs)
    narrowed = [f for f in errors(validation, "routing.igp") if f.subject.startswith("DC1-LEAF1A->")]
    assert narrowed and all(f.expected == 4 and f.actual == 3 for f in narrowed)


def test_a_leaf_out_of_isis_loses_its_loopback_sessions():
    configs = fabric("evpn_underlay_isis_overlay_ibgp")
    text = configs["DC1-LEAF1A"]["DC1-LEAF1A.cfg"]
    for port in ("Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"):
        text = replace_in_block(text, f"interface {port}", "isis enable EVPN_UNDERLAY", "")
    configs["DC1-LEAF1A"] = {"DC1-LEAF1A.cfg": text}
    validation, _ = run(configs)
    sessions = [f.message for f in errors(validation, "bgp.sessions")]
    assert sessions and all("no IGP route between the loopbacks" in message for message in sessions)
    assert any("DC1-LEAF1A" in f.subject for f in errors(validation, "routing.igp"))


def test_loopback_sessions_in_an_address_family_the_model_does_not_name_are_not_misjudged():
    # An MPLS L3VPN overlay (vpn-ipv4) between loopbacks: no modelled family on either end is no error.
    configs = fabric("evpn_underlay_isis_overlay_ibgp")
    for name in ("DC1-LEAF1A", "DC1-SPINE1"):
        (file_name, text), = configs[name].items()
        configs[name] = {file_name: text.replace("address-family evpn", "address-family vpn-ipv4")}
    validation, _ = run(configs)
    assert not [f for f in errors(validation, "bgp.sessions") if "address family" in f.message]
