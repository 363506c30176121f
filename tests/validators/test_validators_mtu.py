"""MTU: link ends, the VXLAN budget per network (RFC 7348: +50 bytes over IPv4) and SVI MTUs."""

from validator_fabrics import compiled, context, interface

from validators import mtu


def test_correct_fabric_passes():
    ctx = context(compiled())
    assert mtu.check_links(ctx) == []
    assert mtu.check_overlay_budget(ctx) == []
    assert mtu.check_svi(ctx) == []


def test_one_spine_port_at_9000_breaks_the_link_and_the_overlay_budget():
    def lower(structured):
        interface(structured, "spine1", peer="leaf3")["mtu"] = 9000

    ctx = context(compiled(), lower)
    port = interface(ctx.structured, "spine1", peer="leaf3")
    links = mtu.check_links(ctx)
    assert len(links) == 1
    assert "spine1:" + port["name"] in links[0].subject and "leaf3:" in links[0].subject
    assert {links[0].expected, links[0].actual} == {9000, 9214}
    budget = mtu.check_overlay_budget(ctx)
    networks = {f.subject for f in budget if f.subject.startswith("network")}
    assert networks == {"network net10", "network net11", "network net20"}
    assert all(f.expected == 9050 and f.actual == 9000 and f"spine1:{port['name']}" in f.message
               for f in budget if f.subject.startswith("network"))
    assert any(f.subject == "leaf3:vxlan" for f in budget)  # the VXLAN MTU no longer fits leaf3's path


def test_host_mtu_too_large_for_the_underlay():
    def jumbo(structured):
        for config in structured.values():
            if config["role"] == "leaf":
                config["mtu"]["host"] = 9200
                for port in config["interfaces"]:
                    if port["kind"] == "server":
                        port["mtu"] = 9200

    findings = mtu.check_overlay_budget(context(compiled(), jumbo))
    assert any(f.subject == "network net10" and f.expected == 9250 and f.actual == 9214 for f in findings)


def test_server_port_below_the_nic_mtu():
    def small(structured):
        interface(structured, "leaf2", kind="server")["mtu"] = 1500

    findings = mtu.check_links(context(compiled(), small))
    assert len(findings) == 1 and findings[0].subject.startswith("leaf2:") and findings[0].expected == 9000


def test_svi_mtu_differs_on_one_leaf():
    def svi(structured):
        vlan = next(v for v in structured["leaf4"]["vlans"] if v["network"] == "net11")
        vlan["svi"]["mtu"] = 1500

    findings = mtu.check_svi(context(compiled(), svi))
    assert {f.subject for f in findings} == {"leaf4:Vlan11", "leaf4:net11"}
