"""Overlay: VLAN<->VNI, route targets, flood lists, L3VNIs, and the host reachability matrix."""

from validator_fabrics import compiled, context, interface

from validators import overlay


def vlan(structured, host, network):
    return next(v for v in structured[host]["vlans"] if v["network"] == network)


def test_correct_fabric_passes():
    ctx = context(compiled())
    for name, check in overlay.CHECKS.items():
        if name == overlay.ESI:
            continue  # compiled fabrics have no EVPN ethernet segment: tests/validators/test_validators_esi.py
        assert check(ctx) == [], check.__name__


def test_vni_mismatch_on_one_leaf():
    def remap(structured):
        vlan(structured, "leaf3", "net11")["vni"] = 10999
        structured["leaf3"]["vxlan"]["vlan_vnis"]["11"] = 10999

    ctx = context(compiled(), remap)
    findings = overlay.check_vlan_vni(ctx)
    assert [f.subject for f in findings] == ["leaf3:net11"]
    assert "VNI 10999" in findings[0].actual
    matrix, matrix_findings = overlay.host_reachability(ctx)
    assert matrix.networks["net11"]["vni"] in (10011, 10999)


def test_vxlan_map_disagrees_with_vlans():
    def unmap(structured):
        del structured["leaf2"]["vxlan"]["vlan_vnis"]["20"]

    findings = overlay.check_vlan_vni(context(compiled(), unmap))
    assert [f.subject for f in findings] == ["leaf2:vxlan"]


def test_duplicate_vni_between_networks():
    def reuse(structured):
        for config in structured.values():
            for entry in config["vlans"]:
                if entry["network"] == "net20":
                    entry["vni"] = 10010
                    config["vxlan"]["vlan_vnis"]["20"] = 10010

    findings = overlay.check_vlan_vni(context(compiled(), reuse))
    assert any(f.subject == "VNI 10010" for f in findings)


def test_route_target_import_mismatch():
    def rt(structured):
        vlan(structured, "leaf5", "net10")["route_targets"]["import"] = ["65000:1"]

    findings = overlay.check_route_targets(context(compiled(), rt))
    assert len(findings) == 1 and findings[0].subject == "leaf5:VNI 10010"
    assert "never learns" in findings[0].message


def test_flood_list_missing_a_vtep():
    def drop(structured):
        flood = structured["leaf1"]["vxlan"]["flood_lists"]["10010"]
        flood.remove(structured["leaf4"]["vxlan"]["vtep_ip"])

    findings = overlay.check_flood_lists(context(compiled(), drop))
    assert len(findings) == 1 and findings[0].subject == "leaf1:VNI 10010"
    assert "leaf4" in findings[0].message and findings[0].severity == "error"


def test_flood_list_with_a_stranger_is_a_warning():
    def add(structured):
        structured["leaf1"]["vxlan"]["flood_lists"]["10010"].append("10.99.99.99")

    findings = overlay.check_flood_lists(context(compiled(), add))
    assert [(f.subject, f.severity) for f in findings] == [("leaf1:VNI 10010", "warning")]


def test_l3vni_mismatch_and_tenant_leak():
    def break_l3(structured):
        structured["leaf2"]["vrfs"][0]["l3vni"] = 50999
        vlan(structured, "leaf6", "net20")["vrf"] = "TENANT_A"

    ctx = context(compiled(), break_l3)
    findings = overlay.check_l3vni(ctx)
    subjects = {f.subject for f in findings}
    assert "leaf2:TENANT_A" in subjects
    assert "leaf6:net20" in subjects
    assert any("leak" in f.message for f in findings)


def test_host_matrix_same_network_yes_other_tenant_no():
    ctx = context(compiled())
    matrix, findings = overlay.host_reachability(ctx)
    assert findings == []
    ports = sorted(port for port, network in matrix.ports.items() if network == "net10")
    assert len(ports) == 6  # one server per leaf, all attached to net10
    assert matrix.can_reach(ports[0], ports[-1])
    assert matrix.reachable[("net10", "net11")] is True  # same tenant, both have gateways
    assert matrix.reachable[("net10", "net20")] is False and matrix.reasons[("net10", "net20")] == "different tenants"
    assert matrix.as_dict()["matrix"]["net20"]["net20"] is True
    assert matrix.addresses[ports[0]].startswith("10.10.0.") and len(set(matrix.addresses.values())) == 6


def test_host_matrix_flags_a_port_in_the_wrong_vlan_and_a_split_network():
    def wrong_vlan(structured):
        interface(structured, "leaf2", kind="server")["access_vlan"] = 20

    matrix, findings = overlay.host_reachability(context(compiled(), wrong_vlan))
    port = next(p for p, n in matrix.ports.items() if n == "net20")
    assert any(f.subject == port and f.expected == "net10" and f.actual == "net20" for f in findings)

    def shut_all(structured):
        for spine in ("spine1", "spine2", "spine3", "spine4"):
            interface(structured, "leaf3", peer=spine)["enabled"] = False

    matrix, findings = overlay.host_reachability(context(compiled(), shut_all))
    assert matrix.reachable[("net10", "net10")] is False
    assert any(f.subject == "network net10" and "leaf3" in f.message for f in findings)


def test_missing_gateway_on_one_leaf():
    def no_svi(structured):
        vlan(structured, "leaf4", "net11")["svi"] = None

    matrix, findings = overlay.host_reachability(context(compiled(), no_svi))
    assert any(f.subject == "network net11" and "leaf4" in f.message for f in findings)
