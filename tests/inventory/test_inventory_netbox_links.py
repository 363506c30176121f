"""Issue #18, pure mapping: every link of an AI fabric documented in NetBox the ordinary way is imported (patch
panels, breakout cables, feet, NetBox 4 modules, vendor part numbers), storage NICs stay out of the fabric, rails
come from the cabling, and a link that cannot be imported stops the import (or, when allowed, is a physical-check
error) — no cabled port is ever rendered shut. Each case has a passing and a broken variant."""

import re

import netbox_fabric as nb
import pytest

from compiler.api import compile_fabric
from compiler.catalog import media_for_part
from compiler.errors import InputError
from compiler.model import Endpoint, FabricIntent, Snapshot
from inventory.netbox import load_dump, netbox_to_inventory
from validators.physical import MISSING_LINK, check_missing_link, physical_report


def imported(data=None, **options):
    return netbox_to_inventory(data or nb.build(), fabric="ai", **options)


def links(inventory) -> set[frozenset]:
    return {frozenset({str(c.a), str(c.b)}) for c in inventory.cables}


def test_every_link_is_imported_with_its_run():
    result = imported()
    inventory = result.inventory
    assert len(inventory.cables) == 8 and not inventory.missing_links
    by_label = {c.label: c for c in inventory.cables}
    patched = by_label["PP-S1+TR-1+PP-L1"]  # leaf1 -> pp1 front -> rear -> trunk -> pp2 rear -> front -> spine1
    assert {str(patched.a), str(patched.b)} == {"leaf1:Ethernet63/1", "spine1:Ethernet1/1"}
    assert patched.length_m == 45.0 and patched.cable_type == "smf"
    assert by_label["L1-S2"].length_m == 15.24  # 50 ft
    assert {str(by_label["BO-1/1"].b), str(by_label["BO-1/2"].b)} == {"gpu1:eth1", "gpu2:eth1"}
    assert {str(by_label["BO-1/1"].a), str(by_label["BO-1/2"].a)} == {"leaf2:Ethernet3/1", "leaf2:Ethernet3/5"}
    assert physical_report(inventory).ok, physical_report(inventory).as_text()


def test_optics_from_modules_and_vendor_part_numbers():
    inventory = imported().inventory
    leaf2 = inventory.switches_by_name["leaf2"].interfaces_by_name
    assert leaf2["Ethernet63/1"].optic.part_number == "QDD-400G-DR4"  # a NetBox 4 module in bay "Ethernet63/1"
    gpu2 = inventory.servers_by_name["gpu2"].nics_by_name["eth0"].optic
    assert (gpu2.media, gpu2.reach_m, gpu2.vendor) == ("400G-DR4", 100.0, "NVIDIA")  # MMS4X00-NS400 module
    optics = sum(1 for s in inventory.switches for i in s.interfaces if i.optic) + \
        sum(1 for s in inventory.servers for n in s.nics if n.optic)
    assert optics == 12  # every optic of the fabric recognised (10 inventory items, 2 modules)
    # broken: a part number nobody catalogued is skipped with the reason, never guessed
    data = nb.build()
    nb.find(data["modules"], device="leaf2")["module_type"]["part_number"] = "XYZ-123"
    result = imported(data)
    assert dict(result.skipped)["module leaf2:Ethernet63/1"] == "cannot tell the optic media from part number 'XYZ-123'"
    assert result.inventory.switches_by_name["leaf2"].interfaces_by_name["Ethernet63/1"].optic is None


@pytest.mark.parametrize(("part", "media"), [
    ("MMA4Z00-NS", ("800G-2xSR4", None)), ("MMS4X00-NM", ("800G-2xDR4", None)), ("MMS4X00-NM-T", ("800G-2xDR4", None)),
    ("MMS4X00-NS400", ("400G-DR4", 100.0)), ("QDD-400G-DR4", ("400G-DR4", None)), ("OSFP-800G-2DR4", ("800G-2xDR4", None)),
    ("vendor-400G-FR4-x", ("400G-FR4", None)), ("GLC-T", None), ("MMA4Z00-NS400", None)])
def test_part_numbers_map_to_catalogue_media(part, media):
    assert media_for_part(part) == media


def test_storage_and_management_nics_stay_out_and_rails_come_from_the_leaves():
    result = imported()
    for server in result.inventory.servers:
        assert [(n.name, n.rail) for n in server.nics] == [("eth0", 0), ("eth1", 1)]
    skipped = dict(result.skipped)
    assert skipped["interface gpu1:stor0"] == "marked 'storage': kept out of the backend fabric"
    assert skipped["interface gpu2:stor0"].startswith("not cabled to a fabric leaf")
    # broken: a NIC whose own rail custom field disagrees with the leaf it is cabled to is refused by name
    data = nb.build()
    nb.find(data["interfaces"], device="gpu1", name="eth1")["custom_fields"]["rail"] = 3
    with pytest.raises(InputError, match=r"interface gpu1:eth1.custom_fields.rail.*disagrees with rail 1 "
                                                    r"of leaf leaf2"):
        imported(data)


def test_a_storage_nic_cabled_to_a_fabric_leaf_is_a_lost_link_not_a_rail():
    data = nb.build()
    nb.find(data["interfaces"], device="gpu1", name="eth0")["tags"] = [{"id": 9, "name": "Storage", "slug": "storage"}]
    with pytest.raises(InputError, match="gpu1:eth0 is marked 'storage'"):
        imported(data)


def test_a_broken_patch_panel_run_stops_the_import_with_its_reason():
    data = nb.build()
    data["cables"].remove(nb.find(data["cables"], label="TR-1"))  # the trunk between the panels is gone
    with pytest.raises(InputError) as refused:
        imported(data)
    # both switch ports of the run lose their link: one error per port, each naming its cable and the reason
    assert sorted((e.field, e.value) for e in refused.value.errors) == [
        ("cable PP-L1", "netbox cable PP-L1 (id 1)"), ("cable PP-S1", "netbox cable PP-S1 (id 3)")]
    assert all("is not cabled onwards" in e.message for e in refused.value.errors)


def test_an_unpaired_breakout_stops_the_import():
    data = nb.build()
    breakout = nb.find(data["cables"], label="BO-1")
    breakout["b_terminations"].pop()  # two switch lanes, one NIC: NetBox's pairing is undefined
    with pytest.raises(InputError, match="breakout cable BO-1 has 2 terminations on one end and 1"):
        imported(data)


def test_allowed_missing_links_are_physical_errors_and_never_silently_shut():
    data = nb.build()
    data["cables"].remove(nb.find(data["cables"], label="TR-1"))
    inventory = imported(data, allow_missing_links=True).inventory
    assert sorted(str(m.endpoint) for m in inventory.missing_links) == ["leaf1:Ethernet63/1", "spine1:Ethernet1/1"]
    assert len(inventory.cables) == 7  # the rest is imported
    findings = check_missing_link(inventory)
    assert sorted((f.check, f.severity, f.subject) for f in findings) == [
        (MISSING_LINK, "error", "leaf1:Ethernet63/1"), (MISSING_LINK, "error", "spine1:Ethernet1/1")]
    assert not physical_report(inventory).ok
    # the port would be shut by the compiler: exactly what the check exists to catch
    eos = _eos(inventory)["leaf1"]
    assert _block(eos, "Ethernet63/1").count("   shutdown") == 1
    # passing: once the port is cabled in the inventory the finding is gone
    assert check_missing_link(imported().inventory) == []


def test_no_cabled_port_is_rendered_shut():
    inventory = imported().inventory
    cabled = {(c.a.device, c.a.interface) for c in inventory.cables} | {(c.b.device, c.b.interface)
                                                                          for c in inventory.cables}
    configs = _eos(inventory)
    checked = 0
    for host, text in configs.items():
        for device, port in cabled:
            if device == host:
                assert "   no shutdown" in _block(text, port), f"{host}:{port} is shut"
                checked += 1
    assert checked == 12  # 8 links: 4 leaf-spine (8 switch ends) + 4 server links (4 switch ends)
    assert "   shutdown" in _block(configs["leaf2"], "Ethernet1/1")  # the one uncabled port is shut


def _eos(inventory) -> dict[str, str]:
    result = compile_fabric(Snapshot(inventory, FabricIntent(name="ai", inventory_fabric="ai")), ["eos"])
    return {host: "".join(files.values()) for host, by_platform in result.rendered.items()
            for files in [by_platform.get("eos", {})] if files}


def _block(config: str, interface: str) -> str:
    match = re.search(rf"^interface {re.escape(interface)}\n(.*?)(?=^!|\Z)", config, re.S | re.M)
    assert match, f"no interface {interface}"
    return match.group(1)


def test_page_cap_truncation_is_refused_and_every_page_is_read(tmp_path):
    data = nb.build()
    nb.write(data, tmp_path / "all", page_size=3)  # cables.json, cables.2.json, ... as NetBox pages of 3
    assert (tmp_path / "all" / "cables.4.json").exists()
    assert load_dump(tmp_path / "all") == data
    # broken: only the first page (what a client that ignores `next` saves)
    nb.write(data, tmp_path / "first", page_size=3)
    for extra in (tmp_path / "first").glob("cables.[0-9]*.json"):
        extra.unlink()
    with pytest.raises(InputError, match=r"cables.json='3 of 11': is truncated"):
        load_dump(tmp_path / "first")


def test_empty_rail_custom_field_is_not_set():
    data = nb.build()
    for interface in data["interfaces"]:
        if interface["device"]["name"].startswith("gpu"):
            interface["custom_fields"]["rail"] = ""
    assert [n.rail for n in imported(data).inventory.servers_by_name["gpu1"].nics] == [0, 1]
    assert Endpoint("gpu1", "eth0") in imported(data).inventory.cable_at


def test_community_library_model_names_map_to_the_catalogue():
    data = nb.build()
    for device in data["devices"]:
        if device["device_type"]["model"] == "DCS-7060DX5-64S":  # as netbox-community/devicetype-library names it
            device["device_type"].update(model="DCS-7060DX5-64S-F", part_number="DCS-7060DX5-64S-F")
    inventory = imported(data).inventory
    assert inventory.switches_by_name["leaf1"].model == "DCS-7060DX5-64S"
    assert inventory.models_by_name["DCS-7060DX5-64S"].buffer_mb == 113.0  # the catalogue spec, not a guess
    # broken: a model nobody knows keeps its NetBox name (derived from its interfaces, checks say so)
    data["devices"][0]["device_type"]["model"] = "XYZ-9000-F"
    assert imported(data).inventory.switches_by_name["spine1"].model == "XYZ-9000-F"


def test_ports_the_platform_data_lacks_are_left_out_only_when_uncabled():
    data = nb.build()
    leaf1_port = nb.find(data["interfaces"], device="leaf1", name="Ethernet63/1")
    for device in ("leaf1", "leaf2"):
        extra = {**leaf1_port, "id": 9000 + len(device) + (device == "leaf2"), "name": "Ethernet65",
                 "type": {"value": "10gbase-x-sfpp", "label": "SFP+"}, "speed": 10_000_000,
                 "device": nb.find(data["interfaces"], device=device, name="Ethernet63/1")["device"]}
        data["interfaces"].append(extra)
    result = imported(data)
    assert dict(result.skipped)["interface leaf1:Ethernet65"].startswith("not a port of DCS-7060DX5-64S")
    # broken: cabled, it is kept, and physical.port_exists names it rather than the link vanishing
    ends = [i for i in data["interfaces"] if i["name"] == "Ethernet65"]
    data["cables"].append({**nb.find(data["cables"], label="L2-S2"), "id": 99, "label": "X-65", "type": "dac-passive",
                           "a_terminations": [{"object_type": "dcim.interface", "object_id": ends[0]["id"]}],
                           "b_terminations": [{"object_type": "dcim.interface", "object_id": ends[1]["id"]}]})
    inventory = imported(data).inventory
    assert any(c.label == "X-65" for c in inventory.cables)
    errors = [f.subject for f in physical_report(inventory).findings if f.check == "physical.port_exists"]
    assert sorted(errors) == ["leaf1:Ethernet65", "leaf2:Ethernet65"]
