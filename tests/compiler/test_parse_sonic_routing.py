"""SONiC CONFIG_DB routing tables (issue 25 item 2): BGP_NEIGHBOR (not read before, so bgp.sessions PASSED with 0
sessions), BGP_PEER_RANGE, IPv6 INTERFACE rows, buffer priority-group ranges and unknown HWSKUs. Rows follow
sonic-buildimage's YANG models (sonic-bgp-neighbor, sonic-bgp-peerrange, sonic-interface, sonic-buffer-pg)."""

from __future__ import annotations

import json
from pathlib import Path

from compiler.parse import parse_device
from validators.configs import validate_configs

GOLDEN_LEAF = (Path(__file__).resolve().parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "rendered" / "leaf2"
               / "sonic" / "config_db.json")


def config_db(hostname: str, asn: str, address: str, neighbors: dict, ranges: dict | None = None,
              hwsku: str = "Force10-S6000") -> dict[str, str]:
    db = {
        "DEVICE_METADATA": {"localhost": {"hostname": hostname, "bgp_asn": asn, "hwsku": hwsku,
                                          "type": "LeafRouter"}},
        "PORT": {"Ethernet0": {"admin_status": "up", "mtu": "9100", "speed": "100000", "lanes": "1,2,3,4"}},
        "INTERFACE": {"Ethernet0": {}, f"Ethernet0|{address}": {}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, f"Loopback0|10.1.0.{int(asn) % 250}/32": {}},
        "BGP_NEIGHBOR": neighbors,
    }
    if ranges:
        db["BGP_PEER_RANGE"] = ranges
    return {"config_db.json": json.dumps(db, indent=4)}


def neighbor(asn: str, **row) -> dict:
    return {"asn": asn, "name": "peer", "holdtime": "10", "keepalive": "3", "nhopself": "0", "rrclient": "0", **row}


def pair(leaf_neighbor: dict, spine_neighbors: dict, ranges: dict | None = None) -> dict:
    return {"leaf1": config_db("leaf1", "65101", "10.0.0.1/31", {"10.0.0.0": leaf_neighbor}),
            "spine1": config_db("spine1", "65001", "10.0.0.0/31", spine_neighbors, ranges)}


def sessions(configs):
    validation = validate_configs(configs, checks=["bgp.sessions"])
    return validation, [f for f in validation.report.findings if f.check == "bgp.sessions"]


def test_bgp_neighbor_rows_are_neighbors():
    parsed = parse_device(config_db("leaf1", "65101", "10.0.0.1/31", {
        "10.0.0.0": neighbor("65001", admin_status="down", rrclient="1"), "default|fc00::2": neighbor("65001.5"),
        "Vrf_RED|10.9.9.9": neighbor("65001")}))
    bgp = parsed.structured["bgp"]
    assert bgp["asn"] == 65101 and bgp["router_id"] == "10.1.0.101"  # DEVICE_METADATA; Loopback0 (bgpcfgd)
    by_address = {entry["address"]: entry for entry in bgp["neighbors"]}
    assert by_address["10.0.0.0"]["interface"] == "Ethernet0" and by_address["10.0.0.0"]["remote_as"] == 65001
    assert by_address["10.0.0.0"]["shutdown"] is True and by_address["10.0.0.0"]["route_reflector_client"] is True
    assert by_address["fc00::2"]["remote_as"] == 65001 * 65536 + 5
    assert by_address["fc00::2"]["address_families"] == ["ipv6_unicast"]
    assert [item.text for item in parsed.unmodelled] == ["BGP_NEIGHBOR|Vrf_RED|10.9.9.9"]  # VRF sessions: not yet


def test_sonic_sessions_from_bgp_neighbor_establish():
    validation, findings = sessions(pair(neighbor("65001"), {"10.0.0.1": neighbor("65101")}))
    assert findings == []
    assert [str(s) for s in validation.report.context.sessions.established] == ["leaf1:Ethernet0<->spine1:Ethernet0"]


def test_a_wrong_asn_in_bgp_neighbor_is_an_error():
    _, findings = sessions(pair(neighbor("65001"), {"10.0.0.1": neighbor("65102")}))
    assert [f.message for f in findings] == ["session down: spine1 expects leaf1 in AS 65102 but leaf1 is AS 65101"]


def test_admin_status_down_is_a_warning():
    _, findings = sessions(pair(neighbor("65001"), {"10.0.0.1": neighbor("65101", admin_status="down")}))
    assert [(f.severity, f.message) for f in findings] == [
        ("warning", "session administratively down: neighbor shutdown on spine1")]


def test_a_peer_range_accepts_the_dynamic_neighbor():
    ranges = {"BGPSLBPassive": {"name": "BGPSLBPassive", "ip_range": ["10.0.0.0/24"]}}
    validation, findings = sessions(pair(neighbor("65001"), {}, ranges))
    assert findings == []
    assert len(validation.report.context.sessions.established) == 1
    outside = {"BGPSLBPassive": {"name": "BGPSLBPassive", "ip_range": ["10.250.0.0/27"]}}
    _, findings = sessions(pair(neighbor("65001"), {}, outside))
    assert [f.message for f in findings] == [
        "one-sided session: leaf1:Ethernet0 peers with spine1 but spine1 has no neighbor statement for leaf1 on "
        "Ethernet0"]


def test_ipv6_interface_rows_and_sessions():
    leaf = config_db("leaf1", "65101", "fc00::1/126", {"fc00::2": neighbor("65001")})
    spine = config_db("spine1", "65001", "fc00::2/126", {"fc00::1": neighbor("65101")})
    parsed = parse_device(leaf)
    port = parsed.structured["interfaces"][0]
    assert port["ip"] is None and port["ipv6"] == "fc00::1/126" and port["kind"] == "fabric"
    validation, findings = sessions({"leaf1": leaf, "spine1": spine})
    assert findings == [] and len(validation.report.context.sessions.established) == 1


def test_buffer_pg_priority_ranges_carry_the_headroom():
    db = json.loads(GOLDEN_LEAF.read_text())
    profile = db["BUFFER_PG"].pop("Ethernet0|3")["profile"]
    db["BUFFER_PG"]["Ethernet0|3-4"] = {"profile": profile}
    port = next(item for item in parse_device({"config_db.json": json.dumps(db)}).structured["interfaces"]
                if item["name"] == "Ethernet0")
    assert port["qos"]["headroom"]["3"]["xoff_bytes"] == 77824
    del db["BUFFER_PG"]["Ethernet0|3-4"]  # broken: no priority group holds priority 3
    port = next(item for item in parse_device({"config_db.json": json.dumps(db)}).structured["interfaces"]
                if item["name"] == "Ethernet0")
    assert port["qos"]["headroom"] == {}


def test_an_unknown_hwsku_is_read_as_platform_unknown():
    parsed = parse_device(config_db("leaf1", "65101", "10.0.0.1/31", {}, hwsku="Vendor-Unknown-SKU-64x400G"))
    assert parsed.structured["model"] is None
    assert parsed.structured["hardware"] == {"model": None, "asic": None, "asic_family": None}


def test_a_config_db_key_with_a_trailing_blank_is_read_not_refused():
    """sonic-mgmt's 7-node testbeds carry ``"Ethernet112|fc00::71/126 "``: the whole device was refused."""
    import json

    from compiler.parse import parse_device

    db = {"DEVICE_METADATA": {"localhost": {"hostname": "P1", "bgp_asn": "64600"}},
          "PORT": {"Ethernet112": {"admin_status": "up", "mtu": "9100"}},
          "INTERFACE": {"Ethernet112": {}, "Ethernet112|10.0.0.56/31 ": {}}}
    parsed = parse_device({"config_db.json": json.dumps(db)}, hostname_hint="P1")
    port = next(item for item in parsed.structured["interfaces"] if item["name"] == "Ethernet112")
    assert port["ip"] == "10.0.0.56/31"
