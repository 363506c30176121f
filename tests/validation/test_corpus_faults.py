"""Fault injection into the known-good public fabrics (tests/data/corpus, SOURCES.md): each fault is one small
text edit to a copy of a set, run through exactly what ``validate --configs DIR`` runs
(compiler.parse.files.configs_from_directory, then validators.configs.validate_configs). A fault is caught when a
new finding (one the unfaulted set does not have) of the expected severity (an error; a warning for one-sided BGP
timers) names it, and cited when one of that finding's locations (ConfigValidation.where) is the faulted line,
file:line. The unfaulted sets are the passing case: what they report is the baseline no fault may hide in.

A fault the model does not carry yet is marked ``xfail(strict=True)`` with the reason ("not caught: not
modelled"), never a weaker assertion: when the model learns it, the XPASS fails and the mark goes.
The table of docs/validation.md ("The public corpus") is this module's list.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from compiler.parse.files import configs_from_directory
from validators.configs import ConfigValidation, validate_configs
from validators.findings import Severity

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"


@dataclass(frozen=True)
class Fault:
    name: str
    set: str  # <source>/<set> under tests/data/corpus, a known-good set (SOURCES.md)
    file: str  # path inside the set
    old: str  # whole line(s) of the file, joined by \n (the first occurrence is edited)
    new: str | None  # its replacement (lines joined by \n); None deletes it
    needle: str  # what the finding's check or message says (case-insensitive)
    cite: str | None = None  # the line a deletion is cited by (another line of ``file``); default the edited one
    cite_file: str | None = None  # when the cited line is on the other end of a link, in another file
    at: int = 0  # which line of ``new`` is the faulted one (an edit that rewrites several lines)
    xfail: str = ""  # why the fault is not caught or not cited today
    severity: str = Severity.ERROR  # a timers difference is a warning: the session still comes up (RFC 4271 4.2)


L3LS = "avd/single-dc-l3ls"
DUAL = "avd/dual-dc-l3ls"
L2LS = "avd/l2ls-fabric"
CAMPUS = "avd/campus-fabric"
EBGP = "avd/evpn_underlay_ebgp_overlay_ebgp"
FRR = "containerlab/frr01"
FRR_EVPN = "dbono711/clab-frr-evpn-vxlan"
OSPF_EOS = "avd/evpn_underlay_ospf_overlay_ebgp"
ISIS_EOS = "avd/evpn_underlay_isis_overlay_ibgp"
SONIC = "sonic-mgmt/7nodes-cisco"
VOQ = "sonic-mgmt/vs-voq-t2"

FAULTS = [
    # ---- MLAG: the pair agrees on domain, peer-link and each other's address (EOS MLAG configuration guide)
    Fault("mlag-domain-id", L3LS, "dc1-leaf1b.cfg", "   domain-id DC1_L3_LEAF1", "   domain-id DC1_L3_LEAFX",
          "domain"),
    Fault("mlag-domain-id", DUAL, "dc1-leaf2b.cfg", "   domain-id DC1_L3_LEAF2", "   domain-id OTHER", "domain"),
    Fault("mlag-domain-id", L2LS, "LEAF2.cfg", "   domain-id RACK1", "   domain-id RACK9", "domain"),
    Fault("mlag-domain-id", CAMPUS, "LEAF1B.cfg", "   domain-id IDF1", "   domain-id IDF9", "domain"),
    Fault("mlag-peer-link-removed", L3LS, "dc1-leaf1b.cfg", "   peer-link Port-Channel3", None, "peer-link",
          cite="mlag configuration"),
    Fault("mlag-peer-link-removed", L2LS, "LEAF2.cfg", "   peer-link Port-Channel47", None, "peer-link",
          cite="mlag configuration"),
    Fault("mlag-peer-address-wrong", L3LS, "dc1-leaf1b.cfg", "   peer-address 10.255.1.64",
          "   peer-address 10.255.1.66", "peer-address"),
    Fault("mlag-peer-address-wrong", L2LS, "LEAF2.cfg", "   peer-address 192.168.0.0", "   peer-address 192.168.0.9",
          "peer-address"),
    Fault("mlag-peer-link-removed", CAMPUS, "LEAF1B.cfg", "   peer-link Port-Channel53", None, "peer-link",
          cite="mlag configuration"),
    # ---- port-channels: members of one bundle carry one MTU (LACP/802.1AX aggregates like ports), both ends bundle
    Fault("member-mtu-differs", L3LS, "dc1-leaf1b.cfg", "   channel-group 3 mode active",
          "   mtu 9000\n   channel-group 3 mode active", "mtu"),
    Fault("member-mtu-differs", DUAL, "dc1-leaf2b.cfg", "   channel-group 3 mode active",
          "   mtu 9000\n   channel-group 3 mode active", "mtu"),
    Fault("member-mtu-differs", L2LS, "LEAF2.cfg", "   channel-group 1 mode active",
          "   mtu 9000\n   channel-group 1 mode active", "mtu"),
    Fault("member-mtu-differs", EBGP, "DC1-LEAF2A.cfg", "   channel-group 12 mode active",
          "   mtu 1500\n   channel-group 12 mode active", "mtu"),
    Fault("member-mtu-differs", EBGP, "DC1-LEAF2B.cfg", "   channel-group 12 mode active",
          "   mtu 9214\n   channel-group 12 mode active", "mtu"),
    Fault("member-removed", L3LS, "dc1-leaf1b.cfg", "   channel-group 3 mode active", None, "Ethernet3",
          cite="interface Ethernet3"),
    Fault("member-removed", DUAL, "dc1-leaf2b.cfg", "   channel-group 3 mode active", None, "Ethernet3",
          cite="interface Ethernet3"),
    Fault("member-removed", L2LS, "LEAF2.cfg", "   channel-group 47 mode active", None, "Ethernet47",
          cite="interface Ethernet47"),
    Fault("member-removed", L2LS, "LEAF2.cfg", "   channel-group 1 mode active", None, "Ethernet1",
          cite="interface Ethernet1"),
    # ---- BGP: both ends of a session agree on AS numbers, the session exists on both, timers and BFD both sides
    Fault("remote-as-wrong", L3LS, "dc1-leaf1b.cfg", "   neighbor 10.255.255.4 remote-as 65100",
          "   neighbor 10.255.255.4 remote-as 65199", "65199"),
    Fault("remote-as-wrong", DUAL, "dc1-leaf2b.cfg", "   neighbor 10.255.255.12 remote-as 65100",
          "   neighbor 10.255.255.12 remote-as 65199", "65199"),
    Fault("overlay-remote-as-wrong", L3LS, "dc1-leaf1b.cfg", "   neighbor 10.255.0.1 remote-as 65100",
          "   neighbor 10.255.0.1 remote-as 65199", "65199"),
    Fault("neighbor-remote-as-removed", L3LS, "dc1-leaf1b.cfg", "   neighbor 10.255.255.4 remote-as 65100", None,
          "10.255.255.4", cite="   neighbor 10.255.255.4 peer group IPv4-UNDERLAY-PEERS"),
    Fault("neighbor-removed-one-side", L3LS, "dc1-leaf1b.cfg",
          "   neighbor 10.255.255.4 peer group IPv4-UNDERLAY-PEERS\n   neighbor 10.255.255.4 remote-as 65100\n"
          "   neighbor 10.255.255.4 description dc1-spine1_Ethernet2", None, "dc1-leaf1b",
          cite="   neighbor 10.255.255.5 remote-as 65101", cite_file="dc1-spine1.cfg"),
    Fault("neighbor-removed-one-side", DUAL, "dc1-leaf2b.cfg",
          "   neighbor 10.255.255.12 peer group IPv4-UNDERLAY-PEERS\n   neighbor 10.255.255.12 remote-as 65100\n"
          "   neighbor 10.255.255.12 description dc1-spine1_Ethernet4", None, "dc1-leaf2b",
          cite="   neighbor 10.255.255.13 remote-as 65102", cite_file="dc1-spine1.cfg"),
    Fault("timers-one-sided", L3LS, "dc1-leaf1b.cfg", "   neighbor 10.255.255.4 remote-as 65100",
          "   neighbor 10.255.255.4 timers 3 9\n   neighbor 10.255.255.4 remote-as 65100", "timer",
          severity=Severity.WARNING),
    Fault("timers-one-sided", DUAL, "dc1-leaf2b.cfg", "   neighbor 10.255.255.12 remote-as 65100",
          "   neighbor 10.255.255.12 timers 3 9\n   neighbor 10.255.255.12 remote-as 65100", "timer",
          severity=Severity.WARNING),
    Fault("bfd-one-sided", L3LS, "dc1-leaf1b.cfg", "   neighbor 10.255.255.4 remote-as 65100",
          "   neighbor 10.255.255.4 bfd\n   neighbor 10.255.255.4 remote-as 65100", "bfd"),
    Fault("bfd-one-sided", DUAL, "dc1-leaf2b.cfg", "   neighbor 10.255.255.12 remote-as 65100",
          "   neighbor 10.255.255.12 bfd\n   neighbor 10.255.255.12 remote-as 65100", "bfd"),
    Fault("bfd-one-sided-group", L3LS, "dc1-leaf1b.cfg", "   neighbor IPv4-UNDERLAY-PEERS peer group",
          "   neighbor IPv4-UNDERLAY-PEERS peer group\n   neighbor IPv4-UNDERLAY-PEERS bfd", "bfd",
          cite="   neighbor IPv4-UNDERLAY-PEERS bfd"),
    Fault("bfd-one-sided-group", DUAL, "dc1-leaf2b.cfg", "   neighbor IPv4-UNDERLAY-PEERS peer group",
          "   neighbor IPv4-UNDERLAY-PEERS peer group\n   neighbor IPv4-UNDERLAY-PEERS bfd", "bfd",
          cite="   neighbor IPv4-UNDERLAY-PEERS bfd"),
    # ---- overlay: VLAN-VNI and VRF-VNI maps and route targets agree across VTEPs (RFC 8365)
    Fault("vni-mismatch", L3LS, "dc1-leaf1b.cfg", "   vxlan vlan 11 vni 10011", "   vxlan vlan 11 vni 10911", "vni"),
    Fault("vni-mismatch", DUAL, "dc1-leaf2b.cfg", "   vxlan vlan 11 vni 10011", "   vxlan vlan 11 vni 10911", "vni"),
    Fault("l3vni-mismatch", L3LS, "dc1-leaf1b.cfg", "   vxlan vrf VRF10 vni 10", "   vxlan vrf VRF10 vni 99", "vni"),
    Fault("l3vni-mismatch", DUAL, "dc1-leaf2b.cfg", "   vxlan vrf VRF10 vni 10", "   vxlan vrf VRF10 vni 99", "vni"),
    Fault("vlan-vni-map-missing", L3LS, "dc1-leaf1b.cfg", "   vxlan vlan 11 vni 10011", None, "vni",
          cite="interface Vxlan1"),
    Fault("vlan-vni-map-missing", DUAL, "dc1-leaf2b.cfg", "   vxlan vlan 11 vni 10011", None, "vni",
          cite="interface Vxlan1"),
    Fault("route-target-missing", L3LS, "dc1-leaf1b.cfg", "      route-target both 10011:10011", None, "route",
          cite="   vlan 11"),
    Fault("route-target-missing", DUAL, "dc1-leaf2b.cfg", "      route-target both 10011:10011", None, "route",
          cite="   vlan 11"),
    Fault("route-target-wrong", L3LS, "dc1-leaf1b.cfg", "      route-target both 10012:10012",
          "      route-target both 10012:19999", "route"),
    Fault("vrf-route-target-wrong", L3LS, "dc1-leaf1b.cfg", "      route-target import evpn 10:10",
          "      route-target import evpn 10:99", "route"),
    # ---- tenant VRF sessions: the MLAG pair's per-VRF iBGP over its peer SVI pairs within the VRF (RFC 4364)
    Fault("vrf-session-remote-as-wrong", L3LS, "dc1-leaf1b.cfg",
          "      neighbor 10.255.1.96 peer group MLAG-IPv4-UNDERLAY-PEER",
          "      neighbor 10.255.1.96 peer group MLAG-IPv4-UNDERLAY-PEER\n      neighbor 10.255.1.96 remote-as 65199",
          "VRF VRF10 session down", at=1),
    Fault("vrf-neighbor-removed", L3LS, "dc1-leaf1b.cfg",
          "      neighbor 10.255.1.96 peer group MLAG-IPv4-UNDERLAY-PEER\n"
          "      neighbor 10.255.1.96 description dc1-leaf1a_Vlan3009", None, "one-sided",
          cite="      neighbor 10.255.1.97 peer group MLAG-IPv4-UNDERLAY-PEER", cite_file="dc1-leaf1a.cfg"),
    # ---- neighbor policies act in the routing simulation (validators.policy): an import route map denying the
    # other leaves' VTEP loopbacks leaves the leaf without a route to them, cited at the route-map entry that denies
    Fault("route-map-denies-loopbacks", EBGP, "DC1-LEAF1A.cfg",
          "route-map RM-CONN-2-BGP permit 10\n   match ip address prefix-list PL-LOOPBACKS-EVPN-OVERLAY\n!\n"
          "router bfd\n   multihop interval 1200 min-rx 1200 multiplier 3\n!\nrouter bgp 65101",
          "ip prefix-list PL-VTEPS seq 10 permit 192.168.254.0/24 le 32\n!\n"
          "route-map RM-NO-VTEPS-IN deny 10\n   match ip address prefix-list PL-VTEPS\n!\n"
          "route-map RM-NO-VTEPS-IN permit 20\n!\n"
          "route-map RM-CONN-2-BGP permit 10\n   match ip address prefix-list PL-LOOPBACKS-EVPN-OVERLAY\n!\n"
          "router bfd\n   multihop interval 1200 min-rx 1200 multiplier 3\n!\nrouter bgp 65101\n"
          "   neighbor UNDERLAY-PEERS route-map RM-NO-VTEPS-IN in", "route-map RM-NO-VTEPS-IN deny 10", at=2),
    # ---- EVPN multihoming: the PEs of an ethernet segment agree (RFC 7432 7.6; EOS all-active multihoming)
    Fault("esi-es-import-differs", EBGP, "DC1-LEAF2B.cfg", "      route-target import 08:08:07:07:06:06",
          "      route-target import 08:08:07:07:06:99", "es-import"),
    Fault("esi-lacp-system-id-differs", EBGP, "DC1-LEAF2B.cfg", "   lacp system-id 0808.0707.0606",
          "   lacp system-id 0808.0707.0607", "lacp"),
    Fault("esi-identifier-differs", EBGP, "DC1-LEAF2B.cfg", "      identifier 0000:1234:0606:0707:0808",
          "      identifier 0000:1234:0606:0707:0809", "also presented with ESI"),
    # ---- MTU: both ends of a routed link agree; the underlay carries the VXLAN overhead (RFC 7348: 50 bytes)
    Fault("p2p-mtu-differs", L3LS, "dc1-leaf1b.cfg", "   mtu 1500", "   mtu 1400", "mtu"),
    Fault("p2p-mtu-differs", DUAL, "dc1-leaf2b.cfg", "   mtu 1500", "   mtu 1400", "mtu"),
    Fault("svi-mtu-differs", L2LS, "LEAF2.cfg", "   mtu 1500", "   mtu 1400", "mtu"),
    # ---- SONiC: config_db.json of a known-good testbed (read since its keys' trailing blanks and IPv6 are)
    Fault("remote-as-wrong", SONIC, "P1.json", '            "asn": "64600",', '            "asn": "64699",', "64699"),
    Fault("port-mtu-differs", SONIC, "P1.json",
          '        "Ethernet112": {\n            "lanes": "524,525,526,527",\n            "alias": "Ethernet112",\n'
          '            "index": "28",\n            "speed": "100000",\n            "admin_status": "up",\n'
          '            "mtu": "9100"',
          '        "Ethernet112": {\n            "lanes": "524,525,526,527",\n            "alias": "Ethernet112",\n'
          '            "index": "28",\n            "speed": "100000",\n            "admin_status": "up",\n'
          '            "mtu": "1500"', "mtu", at=6),
    # ---- RoCE (SONiC QoS of the known-good VOQ testbed, read since the routing model reads its IPv6): lossless
    # priorities 3 and 4, DSCP 3 and 4 mapped to them, WRED/ECN min below max (SONiC QoS configuration guide)
    Fault("pfc-priority-removed", VOQ, "vlab-t2-01.json", '      "pfc_enable": "3,4"', '      "pfc_enable": "3"',
          "pfc"),
    Fault("ecn-thresholds-inverted", VOQ, "vlab-t2-01.json",
          '      "green_max_threshold": "2097152",\n      "green_min_threshold": "1048576",',
          '      "green_max_threshold": "1048576",\n      "green_min_threshold": "2097152",', "ecn", at=1),
    Fault("dscp-remapped", VOQ, "vlab-t2-01.json",
          '  "DSCP_TO_TC_MAP": {\n    "AZURE": {\n      "0": "1",\n      "1": "1",\n      "2": "1",\n      "3": "3",',
          '  "DSCP_TO_TC_MAP": {\n    "AZURE": {\n      "0": "1",\n      "1": "1",\n      "2": "1",\n      "3": "1",',
          "dscp", at=5),
    # ---- IGP: EOS OSPF and IS-IS underlays (RFC 2328 10.5: both ends in one area, neither passive; ISO 10589 8.2:
    # a common level), then an FRR OSPF underlay whose links are its point-to-point subnets
    Fault("ospf-area-mismatch", OSPF_EOS, "DC1-LEAF1A.cfg", "   ip ospf area 0.0.0.0", "   ip ospf area 0.0.0.1",
          "area"),
    Fault("ospf-passive-default", OSPF_EOS, "DC1-LEAF1A.cfg", "   no passive-interface Ethernet1", None, "passive",
          cite="   passive-interface default"),
    Fault("isis-disabled", ISIS_EOS, "DC1-LEAF1A.cfg", "   isis enable EVPN_UNDERLAY", None, "isis",
          cite="router isis EVPN_UNDERLAY"),
    Fault("isis-level-mismatch", ISIS_EOS, "DC1-LEAF1A.cfg", "   isis circuit-type level-2",
          "   isis circuit-type level-1", "level"),
    Fault("isis-passive", ISIS_EOS, "DC1-LEAF1A.cfg", "   isis enable EVPN_UNDERLAY",
          "   isis enable EVPN_UNDERLAY\n   isis passive", "passive", at=1),
    Fault("ospf-area-mismatch", FRR, "router2/frr.conf", " network 192.168.1.0/24 area 0.0.0.0",
          " network 192.168.1.0/24 area 0.0.0.1", "area"),
    Fault("ospf-network-removed", FRR, "router2/frr.conf", " network 192.168.1.0/24 area 0.0.0.0", None, "ospf",
          cite="router ospf"),
    Fault("ospf-passive-transit", FRR, "router2/frr.conf", "router ospf", "router ospf\n passive-interface eth1",
          "passive", at=1),
    Fault("link-subnet-differs", FRR, "router2/frr.conf", " ip address 192.168.1.2/24", " ip address 192.168.7.2/24",
          "192.168."),
    # FRR EVPN leaf-spine (eBGP underlay + eBGP EVPN overlay between loopbacks, peer groups)
    Fault("remote-as-wrong", FRR_EVPN, "leaf01/frr.conf", " neighbor 172.31.1.0 remote-as 65000",
          " neighbor 172.31.1.0 remote-as 65099", "65099"),
    Fault("overlay-remote-as-wrong", FRR_EVPN, "leaf01/frr.conf", " neighbor 172.29.1.2 remote-as 65001",
          " neighbor 172.29.1.2 remote-as 65098", "65098"),
    # the leaf's end moves off the /31: its eBGP neighbor is on no port, cited at that neighbor's statement
    Fault("link-subnet-differs", FRR_EVPN, "leaf01/frr.conf", " ip address 172.31.1.1/31", " ip address 172.31.9.1/31",
          "172.31.", cite=" neighbor 172.31.1.0 remote-as 65000"),
    Fault("router-id-duplicate", FRR_EVPN, "spine02/frr.conf", " bgp router-id 172.29.1.2",
          " bgp router-id 172.29.1.1", "172.29.1.1"),
    Fault("route-map-undefined", FRR_EVPN, "leaf01/frr.conf", "  neighbor UNDERLAY route-map PERMIT_ALL in",
          "  neighbor UNDERLAY route-map PERMIT_NONE in", "PERMIT_NONE"),
]


def _faulted_line(fault: Fault, text: str) -> tuple[str, int]:
    """Apply the edit; the faulted text and the 1-based number of the line a finding must cite."""
    lines, olds = text.split("\n"), fault.old.split("\n")
    # ValueError: the fault no longer matches its set (the corpus changed)
    index = next(i for i in range(len(lines)) if lines[i:i + len(olds)] == olds) if len(olds) > 1 \
        else lines.index(fault.old)
    lines[index:index + len(olds)] = [] if fault.new is None else fault.new.split("\n")
    cited = index + 1 + fault.at
    if fault.cite is not None and fault.cite_file is None:
        cited = lines.index(fault.cite) + 1
    return "\n".join(lines), cited


@cache
def _baseline(name: str) -> frozenset[tuple[str, str, str]]:
    result = validate_configs(configs_from_directory(CORPUS / name))
    return frozenset((f.check, f.subject, f.message) for f in result.report.findings)


def _inject(fault: Fault, tmp_path: Path) -> tuple[ConfigValidation, list, str]:
    copy = tmp_path / fault.set.replace("/", "_")
    shutil.copytree(CORPUS / fault.set, copy)
    path = copy / fault.file
    text, line = _faulted_line(fault, path.read_text())
    path.write_text(text)
    if fault.cite_file is not None:
        line = (copy / fault.cite_file).read_text().split("\n").index(fault.cite) + 1
    result = validate_configs(configs_from_directory(copy))
    baseline = _baseline(fault.set)
    new = [f for f in result.report.findings if f.severity in (Severity.ERROR, Severity.WARNING)
           and (f.check, f.subject, f.message) not in baseline]
    return result, new, f"{fault.cite_file or fault.file}:{line}"


def _param(fault: Fault):
    # An uncaught or uncited fault fails by its assertion; once caught and cited it XPASSes and fails strict.
    marks = [pytest.mark.xfail(strict=True, reason=fault.xfail, raises=AssertionError)] if fault.xfail else []
    return pytest.param(fault, id=f"{fault.set.split('/')[1]}-{fault.name}-{fault.file}", marks=marks)


@pytest.mark.parametrize("fault", [_param(fault) for fault in FAULTS])
def test_fault_is_caught_and_cites_its_line(fault, tmp_path):
    result, new, faulted = _inject(fault, tmp_path)
    needle = fault.needle.lower()
    named = [f for f in new if f.severity == fault.severity
             and (needle in f.check.lower() or needle in f.message.lower())]
    shown = [(f.check, f.message, result.where(f)) for f in new]
    assert named, f"no new {fault.severity} names {fault.needle!r}: {shown}"
    assert any(where == faulted or where.endswith(f"/{faulted}") for f in named for where in result.where(f)), \
        f"not cited at {faulted}: {[(f.check, result.where(f)) for f in named]}"


@pytest.mark.parametrize("fault", [pytest.param(fault, id=f"{fault.set}-{fault.name}-{fault.file}") for fault in FAULTS])
def test_every_fault_still_edits_its_set(fault):
    """A fault whose line is gone from the corpus would fail as "not caught" for the wrong reason."""
    text = (CORPUS / fault.set / fault.file).read_text()
    faulted, line = _faulted_line(fault, text)
    assert faulted != text and 1 <= line <= len(faulted.split("\n"))
