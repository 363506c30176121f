"""Neighbor route maps and prefix lists act in the routing simulation (issue 25): validators.policy semantics,
the parser reading their contents (compiler.parse.policy.policy_contents), both engines of validators.routing
agreeing with them, and the public corpus: a spine route map denying the VTEP loopbacks breaks reachability,
cited at the route-map line; a clause the model does not read makes the checks incomplete, never an error.
"""

from __future__ import annotations

from functools import cache
from ipaddress import ip_network
from pathlib import Path

from compiler.parse import parse_device
from compiler.parse.files import configs_from_directory
from validators.configs import validate_configs
from validators.findings import CheckStatus, Severity
from validators.policy import evaluate, prefix_list_permits
from validators.routing import RoutingModel, propagate, simulate_reference
from validators.sessions import Session

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"


def _entry(seq, action, prefix, ge=None, le=None):
    return {"seq": seq, "action": action, "prefix": prefix, "ge": ge, "le": le, "line": seq}


def test_prefix_list_lengths_and_first_match():
    entries = [_entry(5, "deny", "10.0.1.0/24", le=32), _entry(10, "permit", "10.0.0.0/8", ge=24, le=32)]
    assert prefix_list_permits(entries, ip_network("10.0.1.7/32")) is False  # first entry decides
    assert prefix_list_permits(entries, ip_network("10.9.0.1/32")) is True
    assert prefix_list_permits(entries, ip_network("10.9.0.0/16")) is None  # shorter than ge 24: no entry
    assert prefix_list_permits([_entry(5, "permit", "10.0.0.0/8")], ip_network("10.0.0.0/8")) is True
    assert prefix_list_permits([_entry(5, "permit", "10.0.0.0/8")], ip_network("10.1.0.0/16")) is None  # exact only


def test_route_map_entries_implicit_deny_and_unread_matches():
    contents = {"prefix_lists": {"PL": [_entry(10, "permit", "10.255.1.0/24", le=32)]},
                "as_path_lists": {"AP": [{"action": "permit", "regex": "^65001_"}]},
                "route_maps": {"RM": [
                    {"seq": 10, "action": "deny", "line": 40, "prefix_lists": ["PL"], "as_path_lists": [],
                     "unsupported": []},
                    {"seq": 20, "action": "permit", "line": 42, "prefix_lists": [], "as_path_lists": ["AP"],
                     "unsupported": []}],
                    "UNREAD": [{"seq": 10, "action": "deny", "line": 50, "prefix_lists": [], "as_path_lists": [],
                                "unsupported": [{"line": 51, "text": "match community C1"}]}]}}
    ref = {"kind": "route_map", "name": "RM", "direction": "out", "line": 9}
    denied = evaluate(contents, ref, "10.255.1.3/32", (65001,))
    assert not denied.permitted and "deny 10 (line 40)" in denied.cite
    assert evaluate(contents, ref, "10.9.0.0/24", (65001, 65100)).permitted
    implicit = evaluate(contents, ref, "10.9.0.0/24", (65002,))
    assert not implicit.permitted and "implicit deny" in implicit.cite
    # a match clause not read: the simulation cannot tell, so it does not deny
    assert evaluate(contents, {**ref, "name": "UNREAD"}, "10.255.1.3/32", ()) is None


EOS_SPINE = """hostname s1
interface Ethernet1
   no switchport
   ip address 10.0.0.0/31
interface Loopback0
   ip address 10.255.0.1/32
ip prefix-list PL-LO
   seq 10 permit 10.255.1.0/24 eq 32
route-map RM-OUT deny 10
   match ip address prefix-list PL-LO
route-map RM-OUT permit 20
   set community 65000:1
router bgp 65100
   router-id 10.255.0.1
   neighbor 10.0.0.1 remote-as 65001
   neighbor 10.0.0.1 route-map RM-OUT out
   address-family ipv4
      neighbor 10.0.0.1 activate
end
"""


def test_the_parser_reads_the_contents_and_leaves_unread_clauses_unmodelled():
    device = parse_device({"startup-config": EOS_SPINE})
    contents = device.structured["bgp"]["policy_contents"]
    assert contents["prefix_lists"]["PL-LO"] == [{"seq": 10, "action": "permit", "prefix": "10.255.1.0/24",
                                                  "ge": 32, "le": 32, "line": 8}]
    first, second = contents["route_maps"]["RM-OUT"]
    assert (first["action"], first["prefix_lists"], second["action"]) == ("deny", ["PL-LO"], "permit")
    assert second["unsupported"] == [{"line": 12, "text": "set community 65000:1"}]
    unread = {item.line for item in device.unmodelled}
    assert 12 in unread and not unread & {7, 8, 9, 10, 11}


def _router(asn: int, number: int, role: str, refs=(), contents=None) -> dict:
    neighbors = [{"interface": interface, "address": None, "policy_refs": list(items)}
                 for interface, items in refs]
    bgp = {"asn": asn, "router_id": f"10.0.0.{number}", "maximum_paths": 4, "allowas_in": 0,
           "networks": [f"10.255.1.{number}/32"], "neighbors": neighbors}
    if contents:
        bgp["policy_contents"] = contents
    return {"role": role, "asn": asn, "router_id": f"10.0.0.{number}",
            "loopbacks": [{"name": "Loopback1", "ip": f"10.255.1.{number}/32", "purpose": "vtep"}],
            "vxlan": {}, "bgp": bgp}


def _fabric(deny_on_spine2: bool):
    """Two leaves, two spines; spine2 exports through a route map denying the VTEP loopbacks, or none."""
    contents = {"prefix_lists": {"PL": [_entry(10, "permit", "10.255.1.0/24", le=32)]}, "as_path_lists": {},
                "route_maps": {"RM": [{"seq": 10, "action": "deny", "line": 30, "prefix_lists": ["PL"],
                                       "as_path_lists": [], "unsupported": []},
                                      {"seq": 20, "action": "permit", "line": 32, "prefix_lists": [],
                                       "as_path_lists": [], "unsupported": []}]}}
    ref = {"kind": "route_map", "name": "RM", "direction": "out", "line": 20}
    structured = {"l1": _router(65001, 1, "leaf"), "l2": _router(65002, 2, "leaf"),
                  "s1": _router(65100, 3, "spine"),
                  "s2": _router(65100, 4, "spine", [("e1", [ref]), ("e2", [ref])] if deny_on_spine2 else (),
                                contents if deny_on_spine2 else None)}
    sessions = [Session("l1", "u1", "s1", "e1"), Session("l2", "u1", "s1", "e2"),
                Session("l1", "u2", "s2", "e1"), Session("l2", "u2", "s2", "e2")]
    return structured, RoutingModel(structured, sessions)


def test_an_export_deny_narrows_the_paths_and_both_engines_agree():
    for deny in (False, True):
        structured, model = _fabric(deny)
        denials: list = []
        routes = propagate(model, model.index["l1"], denials=denials)
        width = len(routes[model.index["l2"]][1])
        assert width == (1 if deny else 2)
        assert bool(denials) == deny and (not deny or "s2 route-map RM deny 10 (line 30)" in denials[0].cite)
        reference = simulate_reference(model)
        assert len(reference["l2"]["10.255.1.1/32"].next_hops) == width


# ---------------------------------------------------------------------------------------------- the corpus

L3LS = "avd/single-dc-l3ls"
SPINES = ("dc1-spine1", "dc1-spine2")


@cache
def _files() -> dict:
    return configs_from_directory(CORPUS / L3LS)


def _with_spine_policy(match: str):
    """Both spines export to the leaves through RM-NO-VTEPS, whose deny entry matches with ``match``."""
    files = {device: dict(texts) for device, texts in _files().items()}
    for spine in SPINES:
        text = files[spine][f"{spine}.cfg"]
        assert "router bgp 65100\n" in text
        files[spine][f"{spine}.cfg"] = text.replace("router bgp 65100\n", (
            "ip prefix-list PL-VTEPS seq 10 permit 10.255.1.0/27 eq 32\n!\n"
            f"route-map RM-NO-VTEPS deny 10\n   {match}\n!\nroute-map RM-NO-VTEPS permit 20\n!\n"
            "router bgp 65100\n   neighbor IPv4-UNDERLAY-PEERS route-map RM-NO-VTEPS out\n"), 1)
    return validate_configs(files)


def _errors(result, check):
    return [f for f in result.report.findings if f.severity == Severity.ERROR and f.check == check]


def test_a_spine_route_map_denying_the_loopbacks_breaks_reachability_at_its_line():
    assert _errors(validate_configs(_files()), "routing.vtep_reachability") == []  # the passing case
    broken = _with_spine_policy("match ip address prefix-list PL-VTEPS")
    errors = _errors(broken, "routing.vtep_reachability")
    assert errors and all("route-map RM-NO-VTEPS deny 10" in f.message for f in errors)
    line = 1 + _files()["dc1-spine1"]["dc1-spine1.cfg"].split("\n").index("router bgp 65100") + 2
    assert f"dc1-spine1/dc1-spine1.cfg:{line}" in broken.where(errors[0])


def test_an_unread_match_clause_makes_reachability_incomplete_not_failed():
    result = _with_spine_policy("match community C-NO-VTEPS")
    assert _errors(result, "routing.vtep_reachability") == []  # never an error on what was not read
    check = result.report.checks["routing.vtep_reachability"]
    assert check.status == CheckStatus.INCOMPLETE
    assert "route-map RM-NO-VTEPS deny 10: match community C-NO-VTEPS" in " ".join(
        line for gap in result.gaps if gap.feature == "routing policy" for line in gap.lines)


FRR_ROUTER = """frr version 10.3
hostname r1
interface eth1
 ip address 10.0.0.0/31
exit
router bgp 65001
 bgp router-id 10.255.0.1
 neighbor 10.0.0.1 remote-as 65002
 address-family ipv4 unicast
  neighbor 10.0.0.1 route-map RM-IN in
  neighbor 10.0.0.1 prefix-list PL-OUT out
 exit-address-family
exit
ip prefix-list PL-OUT seq 5 permit 10.255.0.0/24 le 32
ip prefix-list PL-OUT seq 10 deny any
ip prefix-list PL-IN permit 10.255.1.0/24 le 32
bgp as-path access-list AP seq 5 permit ^65002$
route-map RM-IN permit 10
 match ip address prefix-list PL-IN
 match as-path AP
exit
route-map RM-IN deny 20
 match community C
exit
"""


def test_frr_one_line_prefix_lists_as_paths_and_an_unread_match():
    device = parse_device({"frr.conf": FRR_ROUTER})
    contents = device.structured["bgp"]["policy_contents"]
    assert [entry["action"] for entry in contents["prefix_lists"]["PL-OUT"]] == ["permit", "deny"]
    assert contents["as_path_lists"]["AP"] == [{"action": "permit", "regex": "^65002$"}]
    first, second = contents["route_maps"]["RM-IN"]
    assert (first["prefix_lists"], first["as_path_lists"]) == (["PL-IN"], ["AP"])
    assert second["unsupported"] == [{"line": 23, "text": "match community C"}]
    assert 23 in {item.line for item in device.unmodelled}
    ref_out = {"kind": "prefix_list", "name": "PL-OUT", "direction": "out", "line": 11}
    assert evaluate(contents, ref_out, "10.255.0.1/32", ()).permitted
    assert not evaluate(contents, ref_out, "10.9.0.0/24", ()).permitted  # seq 10 deny any
    ref_in = {"kind": "route_map", "name": "RM-IN", "direction": "in", "line": 10}
    assert evaluate(contents, ref_in, "10.255.1.1/32", (65002,)).permitted
    assert evaluate(contents, ref_in, "10.255.1.1/32", (65003, 65002)) is None  # reaches the unread entry
