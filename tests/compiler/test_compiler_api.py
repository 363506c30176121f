"""compile_fabric end to end: determinism, platform selection, hashes, errors; diff and blast radius."""

from __future__ import annotations

import hashlib

import pytest

from compiler import render
from compiler.api import compile_fabric, files_sha256, render_configs
from compiler.blast import blast_radius
from compiler.diff import config_diff, structured_diff
from compiler.errors import InputError, IntentValidationError, RenderError


def test_compiling_twice_is_byte_identical(make_snapshot):
    first = compile_fabric(make_snapshot(clos={"platform": "eos", "leaf_platforms": ["eos", "sonic"]}))
    second = compile_fabric(make_snapshot(clos={"platform": "eos", "leaf_platforms": ["eos", "sonic"]}))
    assert first.rendered == second.rendered
    assert first.hashes == second.hashes
    assert first.structured == second.structured


def test_default_platforms_are_own_plus_frr(make_snapshot):
    result = compile_fabric(make_snapshot(clos={"platform": "eos", "leaf_platforms": ["eos", "sonic"]}))
    assert set(result.rendered["leaf1"]) == {"eos", "frr"}
    assert set(result.rendered["leaf2"]) == {"sonic", "frr"}
    assert set(result.rendered["leaf2"]["sonic"]) == {"config_db.json", "frr.conf"}
    assert set(result.rendered["leaf1"]["frr"]) == {"frr.conf", "linux-plan.json"}
    frr_only = compile_fabric(make_snapshot())
    assert set(frr_only.rendered["leaf1"]) == {"frr"}


def test_hash_covers_every_file(snapshot):
    result = compile_fabric(snapshot)
    files = result.rendered["leaf1"]["frr"]
    assert result.hashes["leaf1"]["frr"] == files_sha256(files)
    changed = dict(files, **{"frr.conf": files["frr.conf"] + "!\n"})
    assert files_sha256(changed) != files_sha256(files)
    assert len(result.hashes["leaf1"]["frr"]) == len(hashlib.sha256().hexdigest())


def test_invalid_intent_stops_before_compiling(make_snapshot):
    from compiler_scenarios import scenario

    from compiler.scenario import snapshot_from_scenario

    data = scenario()
    data["intent"]["networks"][0]["vlan_id"] = 4095
    with pytest.raises(IntentValidationError, match=r"networks\[net10\].vlan_id=4095"):
        compile_fabric(snapshot_from_scenario(data))


def test_missing_renderer_raises_render_error(snapshot, monkeypatch):
    monkeypatch.setitem(render._RENDERERS, "sonic", None)
    with pytest.raises(RenderError, match="no renderer for this platform"):
        compile_fabric(snapshot, platforms=["sonic"])


def test_eos_rejects_unnumbered_via_validation(make_snapshot):
    with pytest.raises(IntentValidationError, match="not supported by the EOS renderer"):
        compile_fabric(make_snapshot(clos={"platform": "eos"}, intent={"underlay": "unnumbered"}))


def test_config_diff():
    assert config_diff("a\nb\n", "a\nb\n") == ""
    diff = config_diff("hostname x\nmtu 9214\n", "hostname x\nmtu 9000\n")
    assert "-mtu 9214\n" in diff and "+mtu 9000\n" in diff


def test_structured_diff_matches_by_name():
    old = {"interfaces": [{"name": "e1", "mtu": 9214}, {"name": "e2", "mtu": 9214}], "asn": 1}
    new = {"interfaces": [{"name": "e0", "mtu": 1}, {"name": "e1", "mtu": 9000}, {"name": "e2", "mtu": 9214}],
           "asn": 1}
    assert structured_diff(old, new) == [("interfaces[e1].mtu", 9214, 9000),
                                         ("interfaces[e0]", None, {"name": "e0", "mtu": 1})]
    assert structured_diff(old, old) == []


def test_blast_radius_of_network_change(make_snapshot):
    from compiler_scenarios import scenario

    from compiler.scenario import snapshot_from_scenario

    before = compile_fabric(make_snapshot())
    data = scenario()
    data["intent"]["networks"][1]["gateway"] = "10.20.0.254"  # net20 lives on leaf1 and leaf2 only
    after = compile_fabric(snapshot_from_scenario(data))
    radius = blast_radius(before, after)
    assert radius.devices == ("leaf1", "leaf2")
    assert radius.networks == ("net20",) and radius.tenants == ("B",)
    assert radius.server_ports == ()  # no server port sits in net20
    assert any(path == "vlans[net20].svi.ip" for path, _old, _new in radius.changes["leaf1"])
    assert blast_radius(before, before).empty


def test_blast_radius_of_growth(make_snapshot):
    before = make_snapshot()
    from compiler.allocate import allocate

    stored = allocate(before.inventory, before.intent)
    grown = make_snapshot(clos={"leaves": 5}, allocations={"asns": dict(stored.asns)})
    radius = blast_radius(before, grown)
    assert radius.added_devices == ("leaf5",)
    # spines gain a neighbor; the net10 leaves gain a flood-list entry; nothing else moves
    assert set(radius.devices) == {"leaf1", "leaf2", "leaf3", "leaf4", "leaf5", "spine1", "spine2"}
    assert all(not path.startswith(("asn", "router_id", "loopbacks")) for path, _o, _n in radius.changes["leaf1"])
    assert any(port.startswith("leaf5:") for port in radius.server_ports)


def test_rendering_never_mutates_structured(make_snapshot):
    """Port QoS blocks are shared between ports, so every renderer must treat structured configs as read-only."""
    import copy

    from compiler.api import build_facts, render_device, structured_configs
    from compiler.render import supported_platforms

    snapshot = make_snapshot(clos={"platform": "sonic"})
    configs = structured_configs(snapshot, build_facts(snapshot))
    before = copy.deepcopy(configs)
    for config in configs.values():
        for platform in supported_platforms():
            render_device(config, platform)
    assert configs == before


def test_render_configs_in_forked_workers_equals_one_process(make_snapshot):
    """workers=2 forks two children that render halves of the fabric: the same texts, hashes and host order."""
    result = compile_fabric(make_snapshot(clos={"platform": "eos", "leaf_platforms": ["eos", "sonic"]}))
    rendered, hashes = render_configs(result.structured, workers=2)  # own platform + frr
    alone, alone_hashes = render_configs(result.structured)
    assert list(rendered) == list(alone) == list(result.structured) and len(rendered) > 2
    assert rendered == alone and hashes == alone_hashes
    assert compile_fabric(result.snapshot, workers=2).rendered == result.rendered


def test_render_configs_raises_a_childs_render_error_and_refuses_zero_workers(make_snapshot):
    structured = compile_fabric(make_snapshot()).structured
    broken = {host: dict(config) for host, config in structured.items()}
    last = list(broken)[-1]  # rendered by the second child
    broken[last]["hostname"] = "leaf\nhostname evil"
    with pytest.raises(RenderError, match="line break"):
        render_configs(broken, ("frr",), workers=2)
    with pytest.raises(InputError, match="workers=0"):
        render_configs(structured, workers=0)
