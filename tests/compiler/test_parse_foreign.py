"""Configs we did not write: an EOS EVPN/VXLAN + RoCE fabric rendered by Arista AVD (pyavd ``eos_designs`` +
``eos_cli_config_gen`` from the inventory below) and a SONiC fabric written by hand from SONiC's documentation
(sonic-buildimage/src/sonic-yang-models/doc/Configuration.md tables; FRR's user guide for frr.conf). Both parse with
no unmodelled line in the features we model and validate with 0 error findings; a fault injected into AVD's input
or into the SONiC text is caught."""

from __future__ import annotations

import copy
import json
import re

import pytest

from compiler.parse import parse_device
from validators.configs import validate_configs

pyavd = pytest.importorskip("pyavd", reason="pyavd is a pinned test dependency (requirements.txt)")

# Top-level commands of the features the structured config models; an unmodelled line under one of them is a
# parser gap. Everything else (aaa, transceiver defaults, spanning-tree mode, router bfd) is outside the model.
MODELLED = re.compile(r"^(interface |router bgp |vlan \d+$|vrf instance |qos |priority-flow-control |platform trident "
                      r"|ip virtual-router |ip routing|hostname |ip prefix-list |route-map )")

ROCE = {
    "qos": {"map": {"dscp": ["0 1 2 3 4 5 6 7 to traffic-class 0", "8 9 10 11 12 13 14 15 to traffic-class 0",
                             "16 17 18 19 20 21 22 23 to traffic-class 0", "24 25 27 28 29 30 31 32 to traffic-class 0",
                             "33 34 35 36 37 38 39 40 to traffic-class 0", "41 42 43 44 45 46 47 to traffic-class 0",
                             "49 50 51 52 53 54 55 56 to traffic-class 0", "57 58 59 60 61 62 63 to traffic-class 0",
                             "26 to traffic-class 3", "48 to traffic-class 6"],
                    "traffic_class": ["0 to tx-queue 0", "3 to tx-queue 3", "6 to tx-queue 6"]}},
    "priority_flow_control": {"watchdog": {"action": "drop", "timeout": "0.20", "recovery_time": "0.40"}},
    "qos_profiles": [{"name": "ROCE", "trust": "dscp",
                      "priority_flow_control": {"enabled": True, "priorities": [{"priority": 3, "no_drop": True}],
                                                "watchdog": {"enabled": True}},
                      "uc_tx_queues": [
                          {"id": 0, "priority": "no priority", "bandwidth_percent": 20},
                          {"id": 3, "priority": "no priority", "bandwidth_percent": 80,
                           "random_detect": {"ecn": {"threshold": {"units": "bytes", "min": 153600, "max": 1536000,
                                                                    "max_probability": 10}}}},
                          {"id": 6, "priority": "priority strict"}]}],
    "platform": {"trident": {"mmu": {"active_profile": "ROCE", "queue_profiles": [
        {"name": "ROCE", "ingress": {"headroom": {"unit": "bytes", "memory": 131072}}}]}}},
}

# AVD eos_designs inputs (L3LS-EVPN): 2 spines, 2 leaves in their own ASNs, eBGP underlay + EVPN overlay, one
# tenant VRF with an SVI and an L2 VLAN, a GPU server per leaf on a RoCE port; RoCE QoS as eos_cli_config_gen keys.
AVD_FABRIC = {
    "fabric_name": "AVDFAB",
    "underlay_routing_protocol": "ebgp",
    "overlay_routing_protocol": "ebgp",
    "p2p_uplinks_mtu": 9214,
    "p2p_uplinks_qos_profile": "ROCE",
    "bgp_maximum_paths": 4, "bgp_ecmp": 4,
    "spine": {"defaults": {"loopback_ipv4_pool": "10.255.0.0/27", "bgp_as": "65000", "structured_config": ROCE},
              "nodes": [{"name": "spine1", "id": 1, "mgmt_ip": "192.168.0.11/24"},
                        {"name": "spine2", "id": 2, "mgmt_ip": "192.168.0.12/24"}]},
    "l3leaf": {"defaults": {"loopback_ipv4_pool": "10.255.0.0/27", "loopback_ipv4_offset": 2,
                            "vtep_loopback_ipv4_pool": "10.255.1.0/27", "uplink_ipv4_pool": "10.255.255.0/26",
                            "uplink_switches": ["spine1", "spine2"], "uplink_interfaces": ["Ethernet1", "Ethernet2"],
                            "max_uplink_switches": 2, "virtual_router_mac_address": "00:1c:73:00:dc:01",
                            "spanning_tree_mode": "none", "structured_config": ROCE},
               "node_groups": [
                   {"group": "leaf1", "bgp_as": "65101", "nodes": [
                       {"name": "leaf1", "id": 1, "mgmt_ip": "192.168.0.21/24",
                        "uplink_switch_interfaces": ["Ethernet1", "Ethernet1"]}]},
                   {"group": "leaf2", "bgp_as": "65102", "nodes": [
                       {"name": "leaf2", "id": 2, "mgmt_ip": "192.168.0.22/24",
                        "uplink_switch_interfaces": ["Ethernet2", "Ethernet2"]}]}]},
    "tenants": [{"name": "A", "mac_vrf_vni_base": 10000,
                 "vrfs": [{"name": "TENANT_A", "vrf_vni": 50001,
                           "svis": [{"id": 10, "name": "net10", "enabled": True, "mtu": 9000,
                                     "ip_address_virtual": "10.10.0.1/24"}]}],
                 "l2vlans": [{"id": 20, "name": "net20"}]}],
    "servers": [{"name": f"gpu{n}", "adapters": [{"endpoint_ports": ["eth0"], "switch_ports": ["Ethernet10"],
                                                   "switches": [f"leaf{n}"], "vlans": "10", "mode": "access",
                                                   "mtu": 9000, "qos_profile": "ROCE"}]} for n in (1, 2)],
}
NODE_TYPES = {"spine1": "spine", "spine2": "spine", "leaf1": "l3leaf", "leaf2": "l3leaf"}


def _avd_configs(fabric: dict) -> dict[str, str]:
    """pyavd's documented pipeline: validate_inputs -> get_avd_facts -> structured config -> EOS CLI."""
    designs = {}
    for host, node_type in NODE_TYPES.items():
        result = pyavd.validate_inputs({**copy.deepcopy(fabric), "type": node_type})
        assert not list(result.validation_result.violations), host
        designs[host] = result.validated_data
    facts = pyavd.get_avd_facts(designs)
    return {host: pyavd.get_device_config(pyavd.get_device_structured_config(host, designs[host], facts))
            for host in NODE_TYPES}


@pytest.fixture(scope="module")
def avd_configs() -> dict[str, str]:
    return _avd_configs(AVD_FABRIC)


def _modelled_gaps(text: str, device) -> list[str]:
    lines = text.splitlines()
    gaps = []
    for item in device.unmodelled:
        top = next(lines[index] for index in range(item.line - 1, -1, -1) if lines[index][:1] not in (" ", ""))
        if MODELLED.match(top):
            gaps.append(f"{item.line}: {item.text} (under {top!r})")
    return gaps


def _errors(result) -> list[str]:
    return [f"{f.check} {f.subject}: {f.message}" for f in result.report.findings if f.severity == "error"]


def test_avd_fabric_parses_and_validates_clean(avd_configs):
    for host, text in avd_configs.items():
        device = parse_device({"running-config": text})
        assert device.platform == "eos" and device.hostname == host
        assert _modelled_gaps(text, device) == [], host
    result = validate_configs({host: {"running-config": text} for host, text in avd_configs.items()})
    assert _errors(result) == []
    leaf1 = result.devices["leaf1"].structured
    # AVD's EVPN runs on loopback sessions: the model carries it on the sessions toward each spine.
    assert {n["peer_device"]: n["address_families"] for n in leaf1["bgp"]["neighbors"]} == {
        "spine1": ["ipv4_unicast", "l2vpn_evpn"], "spine2": ["ipv4_unicast", "l2vpn_evpn"]}
    assert leaf1["vxlan"]["vlan_vnis"] == {"10": 10010, "20": 10020}
    server = next(i for i in leaf1["interfaces"] if i["name"] == "Ethernet10")
    assert (server["kind"], server["access_vlan"], server["qos"]["pfc_priorities"]) == ("server", 10, [3])
    assert result.report.checks["roce.pfc"].status == "passed"
    assert result.report.checks["physical.cable_reach"].reason == "no inventory (structured configs only)"


def test_avd_input_fault_pfc_missing_on_one_server_port_is_caught():
    fabric = copy.deepcopy(AVD_FABRIC)
    del fabric["servers"][1]["adapters"][0]["qos_profile"]  # gpu2's port on leaf2 loses the RoCE profile
    configs = _avd_configs(fabric)
    result = validate_configs({host: {"running-config": text} for host, text in configs.items()})
    assert any(line.startswith("roce.pfc leaf2:Ethernet10") for line in _errors(result)), _errors(result)


def test_avd_input_fault_mtu_mismatch_is_caught():
    fabric = copy.deepcopy(AVD_FABRIC)
    fabric["l3leaf"]["node_groups"][0]["nodes"][0]["structured_config"] = {
        "ethernet_interfaces": [{"name": "Ethernet1", "mtu": 1500}]}
    configs = _avd_configs(fabric)
    result = validate_configs({host: {"running-config": text} for host, text in configs.items()})
    assert any(line.startswith("mtu.links") and "leaf1:Ethernet1" in line for line in _errors(result)), \
        _errors(result)


# --------------------------------------------------------------------------- SONiC, written by hand from its docs

def _sonic_device(hostname: str, asn: int, loopback: str, ports: dict[str, dict], vtep: str | None,
                  neighbors: list[tuple[str, int]]) -> dict[str, str]:
    """One SONiC switch as an operator writes it: config_db.json tables as in SONiC's Configuration.md and a
    split-mode frr.conf. ``ports``: name -> {ip | vlan, description}."""
    db: dict = {
        "DEVICE_METADATA": {"localhost": {"hostname": hostname, "bgp_asn": str(asn), "hwsku": "DellEMC-Z9664f-O64",
                                          "type": "ToRRouter" if vtep else "LeafRouter",
                                          "docker_routing_config_mode": "split"}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, f"Loopback0|{loopback}/32": {}},
        "PORT": {}, "INTERFACE": {}, "PORT_QOS_MAP": {}, "QUEUE": {}, "PFC_WD": {},
        "DSCP_TO_TC_MAP": {"AZURE": {str(dscp): "3" if dscp == 26 else "0" for dscp in range(64)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {"0": "0", "3": "3"}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3"}},
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}, "scheduler.1": {"type": "DWRR", "weight": "15"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true",
                                            "green_min_threshold": "153600", "green_max_threshold": "1536000",
                                            "green_drop_probability": "10"}},
    }
    for index, (name, port) in enumerate(ports.items()):
        db["PORT"][name] = {"admin_status": "up", "alias": f"fortyGigE0/{index * 4}", "description": port["description"],
                            "lanes": f"{index * 4 + 1},{index * 4 + 2},{index * 4 + 3},{index * 4 + 4}",
                            "mtu": "9000" if "vlan" in port else "9100", "speed": "100000"}
        if "ip" in port:
            db["INTERFACE"][name] = {}
            db["INTERFACE"][f"{name}|{port['ip']}"] = {}
        db["PORT_QOS_MAP"][name] = {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
                                    "pfc_to_pg_map": "AZURE", "pfc_enable": "3", "pfcwd_sw_enable": "3"}
        db["QUEUE"][f"{name}|0"] = {"scheduler": "scheduler.0"}
        db["QUEUE"][f"{name}|3"] = {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
        db["PFC_WD"][name] = {"action": "drop", "detection_time": "200", "restoration_time": "200"}
    if vtep:
        db["LOOPBACK_INTERFACE"].update({"Loopback1": {}, f"Loopback1|{vtep}/32": {}})
        db["VLAN"] = {"Vlan10": {"vlanid": "10", "mtu": "9000"}}
        db["VLAN_MEMBER"] = {f"Vlan10|{name}": {"tagging_mode": "untagged"} for name, port in ports.items()
                             if "vlan" in port}
        db["VXLAN_TUNNEL"] = {"vtep": {"src_ip": vtep}}
        db["VXLAN_EVPN_NVO"] = {"nvo": {"source_vtep": "vtep"}}
        db["VXLAN_TUNNEL_MAP"] = {"vtep|map_10010_Vlan10": {"vlan": "Vlan10", "vni": "10010"}}
    networks = [f"{loopback}/32"] + ([f"{vtep}/32"] if vtep else [])
    frr = [f"hostname {hostname}", "!", f"router bgp {asn}", f" bgp router-id {loopback}",
           " no bgp ebgp-requires-policy", " neighbor FABRIC peer-group"]
    frr += [line for address, remote_as in neighbors
            for line in (f" neighbor {address} remote-as {remote_as}", f" neighbor {address} peer-group FABRIC")]
    frr += [" !", " address-family ipv4 unicast", *[f"  network {prefix}" for prefix in networks],
            "  neighbor FABRIC activate", "  maximum-paths 4", " exit-address-family", " !",
            " address-family l2vpn evpn", "  neighbor FABRIC activate"]
    frr += (["  advertise-all-vni"] if vtep else []) + [" exit-address-family", "exit", "!"]
    return {"config_db.json": json.dumps(db, indent=4), "frr.conf": "\n".join(frr) + "\n"}


def _sonic_fabric() -> dict[str, dict[str, str]]:
    """2 spines x 2 leaves: leaf N port Ethernet0 to spine1, Ethernet8 to spine2, Ethernet4 to its GPU server."""
    def spine(number: int) -> dict[str, str]:
        base = (number - 1) * 4
        return _sonic_device(f"spine{number}", 65000, f"10.1.0.{number}", {
            "Ethernet0": {"ip": f"10.0.0.{base}/31", "description": "to leaf1"},
            "Ethernet4": {"ip": f"10.0.0.{base + 2}/31", "description": "to leaf2"}}, None,
            [(f"10.0.0.{base + 1}", 65001), (f"10.0.0.{base + 3}", 65002)])

    def leaf(number: int) -> dict[str, str]:
        to_spine1, to_spine2 = (number - 1) * 2, 4 + (number - 1) * 2
        return _sonic_device(f"leaf{number}", 65000 + number, f"10.1.0.{10 + number}", {
            "Ethernet0": {"ip": f"10.0.0.{to_spine1 + 1}/31", "description": "to spine1"},
            "Ethernet4": {"vlan": 10, "description": f"gpu{number}"},
            "Ethernet8": {"ip": f"10.0.0.{to_spine2 + 1}/31", "description": "to spine2"}},
            f"10.2.0.{number}", [(f"10.0.0.{to_spine1}", 65000), (f"10.0.0.{to_spine2}", 65000)])

    return {"spine1": spine(1), "spine2": spine(2), "leaf1": leaf(1), "leaf2": leaf(2)}


def test_hand_written_sonic_fabric_parses_and_validates_clean():
    configs = _sonic_fabric()
    result = validate_configs(configs)
    assert _errors(result) == []
    assert {device.platform for device in result.devices.values()} == {"sonic"}
    assert [str(item) for _, item in result.unmodelled()] == []
    leaf1 = result.devices["leaf1"].structured
    assert leaf1["interfaces"][0]["peer_device"] == "spine1"  # paired by the /31, no DEVICE_NEIGHBOR needed
    assert leaf1["qos"]["lossless_priorities"] == [3] and leaf1["vxlan"]["flood_lists"] == {"10010": ["10.2.0.2"]}


def test_hand_written_sonic_fault_pfc_enable_removed_is_caught():
    configs = _sonic_fabric()
    db = json.loads(configs["leaf2"]["config_db.json"])
    del db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    configs["leaf2"]["config_db.json"] = json.dumps(db, indent=4)
    result = validate_configs(configs)
    pfc = [f for f in result.report.findings if f.severity == "error" and f.check == "roce.pfc"
           and f.subject.startswith("leaf2:Ethernet0")]
    assert pfc and result.where(pfc[0])[0].startswith("leaf2/config_db.json:")
