"""The error findings on the known-good public fabrics are exactly the ones judged true (tests/data/corpus/JUDGED.md),
and each fix that removed a false one still raises the error once the thing it learned to read is broken.

Passing case: every known-good set (SOURCES.md) through exactly what ``validate --configs DIR`` runs, its error
findings compared with the judged-true list below (a new error fails until it is judged; a judged one that vanishes
fails until JUDGED.md says why). Broken cases: one text edit per fix, and the error the fix must still give.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from compiler.parse.files import configs_from_directory
from validators.configs import ConfigValidation, validate_configs
from validators.findings import Severity
from validators.routing import RoutingModel, propagate, simulate_reference
from validators.sessions import Session

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"

# (check -> count) of the error findings judged true per known-good set (JUDGED.md, "Every finding"); every other
# known-good set reports no error.
JUDGED_TRUE: dict[str, dict[str, int]] = {
    # the spine ports toward DC1-SVC3A/B are `shutdown`: no path reaches their VTEPs
    "avd/eos_config_deploy_cvp": {"routing.vtep_reachability": 20},
    # one-sided loopback sessions in AVD's molecule data (no statement back, no listen range)
    "avd/eos_designs-mpls-isis-sr-ldp": {"bgp.sessions": 2},
    "avd/eos_designs-twodc-5stage-clos": {"bgp.sessions": 1},
    # DC1-LEAF2A/2B share AS 65102 without MLAG or allowas-in; Port-Channel11 (MTU 1600, VLAN 110) over 1500
    "avd/evpn_underlay_ebgp_overlay_ebgp": {"bgp.asns": 2, "routing.vtep_reachability": 2,
                                            "overlay.host_reachability": 1, "mtu.overlay_budget": 3},
    "avd/evpn_underlay_rfc5549_overlay_ebgp": {"mtu.overlay_budget": 3},
}


def _known_good() -> list[str]:
    names = []
    for line in (CORPUS / "SOURCES.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 10 and "/" in cells[0] and cells[9] == "yes":
            names.append(cells[0])
    return names


@cache
def _files(name: str) -> dict[str, dict[str, str]]:
    return configs_from_directory(CORPUS / name)


def _run(name: str, edits: dict[tuple[str, str], tuple[str, str]] | None = None) -> ConfigValidation:
    """validate --configs on the set, after replacing ``old`` by ``new`` once in each (device, file) named."""
    files = {device: dict(texts) for device, texts in _files(name).items()}
    for (device, file_name), (old, new) in (edits or {}).items():
        text = files[device][file_name]
        assert old in text, f"{name}/{device}/{file_name} no longer holds {old!r}"
        files[device][file_name] = text.replace(old, new, 1)
    return validate_configs(files)


def _errors(result: ConfigValidation, check: str) -> list:
    return [f for f in result.report.findings if f.severity == Severity.ERROR and f.check == check]


@pytest.mark.parametrize("name", _known_good())
def test_known_good_errors_are_the_judged_true_ones(name):
    result = _run(name)
    errors = Counter(f.check for f in result.report.findings if f.severity == Severity.ERROR)
    assert dict(errors) == JUDGED_TRUE.get(name, {})


def test_the_judged_sets_are_known_good():
    assert set(JUDGED_TRUE) <= set(_known_good())


# ---------------------------------------------------------------------------------------------- iBGP routing

def _router(asn: int, number: int, role: str = "leaf") -> dict:
    return {"role": role, "asn": asn, "router_id": f"10.0.0.{number}", "loopbacks": [], "vxlan": {},
            "bgp": {"asn": asn, "router_id": f"10.0.0.{number}", "maximum_paths": 4, "allowas_in": 0,
                    "networks": [f"10.9.{number}.0/24"], "neighbors": []}}


def test_an_ibgp_session_carries_ebgp_routes_but_not_ibgp_learned_ones():
    """RFC 4271 9.2: b1 passes what it learned from a (eBGP) to its iBGP peer b2; b2 does not pass it on to its
    own iBGP peer b3 (no route reflection), and b3's own route reaches b2 only, never a."""
    structured = {"a": _router(65001, 1), "b1": _router(65002, 2), "b2": _router(65002, 3), "b3": _router(65002, 4)}
    sessions = [Session("a", "e1", "b1", "e1"), Session("b1", "e2", "b2", "e2"), Session("b2", "e3", "b3", "e3")]
    model = RoutingModel(structured, sessions)
    from_a = propagate(model, model.index["a"])
    assert {model.names[device] for device in from_a} == {"a", "b1", "b2"}
    assert from_a[model.index["b2"]][0] == (65001,)  # crossed iBGP unchanged: no AS prepended
    from_b3 = propagate(model, model.index["b3"])
    assert {model.names[device] for device in from_b3} == {"b3", "b2"}
    reference = simulate_reference(model)
    for origin in ("a", "b3"):
        prefix = structured[origin]["bgp"]["networks"][0]
        reached = {name for name, routes in reference.items() if prefix in routes}
        fast = {model.names[d] for d in propagate(model, model.index[origin])}
        assert reached == fast


def test_without_the_ibgp_session_the_mlag_peers_routes_stop():
    """Broken case of the iBGP model on AVD's dual-DC fabric: dc2-leaf2a/2b hear dc1-leaf2a/2b's anycast VTEP each
    over its own DCI link and pass it to the other over their MLAG iBGP session (Vlan4093); without that session
    each is left with its DCI peer's route only, and the pairs through the other member break."""
    name = "avd/dual-dc-l3ls"
    assert _errors(_run(name), "routing.vtep_reachability") == []
    files = {device: dict(texts) for device, texts in _files(name).items()}
    for device, peer in (("dc2-leaf2a", "10.255.129.121"), ("dc2-leaf2b", "10.255.129.120")):
        lines = files[device][f"{device}.cfg"].split("\n")
        kept = [line for line in lines if not line.startswith(f"   neighbor {peer} ")]
        assert len(kept) < len(lines)
        files[device][f"{device}.cfg"] = "\n".join(kept)
    broken = validate_configs(files)
    assert _errors(broken, "routing.vtep_reachability") or _errors(broken, "whatif.n_minus_1")


# ------------------------------------------------------------------------------- separate fabrics in one set

def test_two_fabrics_in_one_set_are_judged_apart_until_something_joins_them():
    name, spine5 = "avd/evpn_underlay_rfc5549_overlay_ebgp", ("DC1-SPINE5", "DC1-SPINE5.cfg")
    result = _run(name)
    assert _errors(result, "routing.vtep_reachability") == []
    assert any(f.subject == "fabric parts" for f in result.report.findings)
    # A neighbor statement naming DC1-SPINE1's loopback joins the two parts: the pairs across them are judged.
    joined = _run(name, {spine5: ("   neighbor UNDERLAY_PEERS peer group\n",
                                  "   neighbor UNDERLAY_PEERS peer group\n   neighbor 192.168.255.1 remote-as 65001\n")})
    assert _errors(joined, "routing.vtep_reachability")


def test_a_router_id_reused_within_one_fabric_is_still_an_error():
    name = "avd/evpn_underlay_rfc5549_overlay_ebgp"
    assert _errors(_run(name), "bgp.router_ids") == []  # DC1-LEAF1A and DC1-SPINE5: two fabrics, nothing between
    broken = _run(name, {("DC1-SPINE1", "DC1-SPINE1.cfg"): ("   router-id 192.168.255.1", "   router-id 192.168.255.5")})
    assert {f.subject for f in _errors(broken, "bgp.router_ids")} == {"DC1-SPINE1", "DC1-LEAF1A"}


# --------------------------------------------------------------------------------------------- MTU per network

def test_a_jumbo_host_port_counts_for_its_own_vlan_only():
    """Port-Channel12 (MTU 1601) carries VLAN 1 only: no VXLAN network is judged at 1601, until it carries VLAN 121."""
    name, leaf = "avd/evpn_underlay_ebgp_overlay_ebgp", ("DC1-LEAF2A", "DC1-LEAF2A.cfg")
    assert not any("1601" in f.message for f in _run(name).report.findings if f.severity == Severity.ERROR)
    broken = _run(name, {leaf: ("   mtu 1601\n   switchport\n",
                                "   mtu 1601\n   switchport access vlan 121\n   switchport\n")})
    assert any(f.subject == "DC1-LEAF2A:Vlan121" for f in _errors(broken, "mtu.svi"))
    assert any("1601" in f.message for f in _errors(broken, "mtu.overlay_budget"))


# ------------------------------------------------------------------------------------------- iBGP one AS

def test_an_ibgp_route_reflector_design_is_one_as():
    """AVD's IS-IS fabric runs its EVPN overlay as iBGP in AS 65000 with route reflectors: one AS by design (the
    broken case, two leaves sharing an ASN with no iBGP between them, is in tests/validators/test_validators_bgp.py)."""
    assert _errors(_run("avd/evpn_underlay_isis_overlay_ibgp"), "bgp.asns") == []


# ------------------------------------------------------------------------------------- AVD WAN (cv-pathfinder)

WAN = "avd/cv-pathfinder"


def test_wan_sets_pair_vrf_subinterfaces_listen_ranges_and_bfd_per_neighbor():
    result = _run(WAN)
    assert [f for f in result.report.findings if f.severity == Severity.ERROR] == []
    assert any(f.subject == "unresolved VTEPs" for f in result.report.findings)


def test_a_vrf_subinterface_read_as_default_vrf_breaks_the_pairing_again():
    broken = _run(WAN, {("site1-wan1", "site1-wan1.cfg"): ("   vrf RED\n   ip address 10.0.1.9/31", "   ip address 10.0.1.9/31")})
    assert any("Ethernet1.101" in f.message for f in _errors(broken, "bgp.sessions"))


def test_without_the_listen_range_the_wan_routers_sessions_are_one_sided():
    broken = _run(WAN, {("pf1", "pf1.cfg"): ("   bgp listen range 192.168.42.0/24 peer-group WAN-OVERLAY-PEERS "
                                             "remote-as 65000\n", "")})
    assert any("one-sided" in f.message and "pf1" in f.message for f in _errors(broken, "bgp.sessions"))


def test_bfd_stated_on_a_neighbor_outside_every_group_is_one_sided():
    broken = _run(WAN, {("site2-wan2", "site2-wan2.cfg"): ("   neighbor 100.64.21.1 remote-as 65666\n",
                                                           "   neighbor 100.64.21.1 remote-as 65666\n"
                                                           "   neighbor 100.64.21.1 bfd\n")})
    assert any("inet-cloud" in f.subject for f in _errors(broken, "bgp.timers_bfd"))


# ----------------------------------------------------------------------------------------- SONiC VOQ chassis

VOQ = "sonic-mgmt/vs-voq-t2"


def _voq_key(device: str) -> tuple[str, str]:
    return device, next(iter(_files(VOQ)[device]))


def test_the_chassis_internal_ibgp_pairs_and_checks_its_as():
    assert _errors(_run(VOQ), "bgp.asns") == []
    broken = _run(VOQ, {_voq_key("vlab-t2-02"): ('      "asn": "65100",\n      "holdtime": "180"',
                                                 '      "asn": "65199",\n      "holdtime": "180"')})
    assert any("65199" in f.message for f in _errors(broken, "bgp.sessions"))


def test_runtime_sized_headroom_is_judged_only_with_a_buffer_model():
    result = _run(VOQ)
    assert _errors(result, "roce.headroom") == []
    assert any("at runtime" in f.message for f in result.report.findings if f.check == "roce.headroom")
    broken = _run(VOQ, {_voq_key("vlab-t2-01"): ('      "buffer_model": "traditional",\n', "")})
    assert _errors(broken, "roce.headroom")


def test_an_unknown_asic_family_is_not_judged_but_named():
    result = _run(VOQ)
    assert _errors(result, "roce.platform") == []
    assert any(f.subject == "platform unknown" for f in result.report.findings if f.check == "roce.platform")

