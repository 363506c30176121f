"""``python -m labs``: errors are messages and exit codes, never tracebacks (no twin is booted here)."""

import json

from labs.__main__ import main


def test_status_of_unknown_twin(tmp_path, capsys):
    assert main(["--state-dir", str(tmp_path), "status", "ftnone1"]) == 0
    assert json.loads(capsys.readouterr().out) == {"prefix": "ftnone1", "exists": False, "orphan_namespaces": [],
                                                     "foreign_namespaces": []}


def test_down_of_unknown_twin_is_an_error_not_a_traceback(tmp_path, capsys):
    assert main(["--state-dir", str(tmp_path), "down", "ftnone2"]) == 2
    assert "no twin 'ftnone2'" in capsys.readouterr().err


def test_invalid_topology_names_the_fields(tmp_path, capsys):
    topology = tmp_path / "bad.json"
    topology.write_text(json.dumps({"name_prefix": "BAD PREFIX", "nodes": [], "links": [
        {"a_node": "leaf1", "a_ifname": "eth1", "b_node": "spine1", "b_ifname": "eth1"}]}))
    assert main(["--state-dir", str(tmp_path), "up", "--topology", str(topology)]) == 2
    fields = json.loads(capsys.readouterr().out)["fields"]
    assert "name_prefix" in fields and "links[0].a_node" in fields and "links[0].b_node" in fields


def test_list_is_empty_without_state_files(tmp_path, capsys):
    assert main(["--state-dir", str(tmp_path), "list"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_bad_installation_id_is_an_error_naming_it(tmp_path, capsys):
    assert main(["--state-dir", str(tmp_path), "--installation", "../x", "status", "ftnone3"]) == 2
    assert "installation='../x': must be 6 lowercase hex characters" in capsys.readouterr().err


def test_list_shows_another_installations_twin_without_inspecting_it(tmp_path, capsys):
    from labs import runtime

    runtime.TwinState(prefix="ftother", label="", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], installation="0f0f0f").save()
    assert main(["--state-dir", str(tmp_path), "--installation", "a1b2c3", "list"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["prefix"] == "ftother" and "belongs to installation 0f0f0f" in entry["error"]
    assert main(["--state-dir", str(tmp_path), "--installation", "a1b2c3", "verify", "ftother"]) == 2
    assert "nothing was touched" in capsys.readouterr().err


def test_status_says_what_each_switch_runs(tmp_path, capsys):
    """The per-switch account of its own config (labs.node_configs) comes from the state file's topology."""
    from labs import runtime

    configs = {"leaf1": {"platform": "eos", "boots_from": "startup-config parsed", "live": ["router bgp 65100"],
                         "static_only": ["priority-flow-control (2 ports)"], "unmodelled": [], "unmodelled_count": 0}}
    runtime.TwinState(prefix="ftown9", label="", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], installation="a1b2c3",
                      topology={"name_prefix": "ftown9", "extra": {"device_configs": configs}}).save()
    assert main(["--state-dir", str(tmp_path), "--installation", "a1b2c3", "status", "ftown9"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["exists"] and status["device_configs"] == configs
    runtime.TwinState(prefix="ftown8", label="", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], installation="a1b2c3").save()
    assert main(["--state-dir", str(tmp_path), "--installation", "a1b2c3", "status", "ftown8"]) == 0
    assert json.loads(capsys.readouterr().out)["device_configs"] == {}  # a hand-written topology has none
