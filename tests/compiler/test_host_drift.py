"""Host drift (issue 31 item 2): a GPU server's collected state (scripts/collect-host-state.sh, read by
compiler.parse.hosts) against its intended NIC settings, per NIC and field; a state collected from a server in
the intended state is in sync, every changed field is named with the server, the NIC, expected and actual."""

from __future__ import annotations

import dataclasses

import pytest
from host_state import write_snapshot
from test_host_render import golden_snapshot

from compiler.host_config import build_host_configs
from compiler.nics import NicFamily
from compiler.parse import ParseError
from compiler.parse.drift import host_drift
from compiler.parse.hosts import read_host_states
from compiler.render.hosts import render_host


def test_collected_intended_state_is_in_sync(tmp_path):
    snapshot = golden_snapshot()
    intended = build_host_configs(snapshot)
    for server, config in intended.items():
        write_snapshot(tmp_path / server, config)
    states = read_host_states(tmp_path, dict(snapshot.inventory.servers_by_name))
    assert sorted(states) == sorted(intended)
    families = set()
    for server, parsed in states.items():
        drift = host_drift(intended[server], parsed.config)
        assert drift.differences == (), [item.message for item in drift.differences]
        assert drift.not_read == ()
        families |= {nic.family for nic in intended[server].nics}
    assert families == set(NicFamily.ALL)  # every NIC family's collection path is exercised


def test_drifted_state_names_server_nic_expected_and_actual(tmp_path):
    snapshot = golden_snapshot()
    config = build_host_configs(snapshot)["gpu0001"]  # ConnectX
    eth0, eth1 = config.nics[0], config.nics[1]
    broken = dataclasses.replace(config, nics=(
        dataclasses.replace(eth0, pfc_priorities=(4,), dscp_to_priority=((26, 5), (48, 6)), mtu=4000),
        dataclasses.replace(eth1, cnp_dscp=4, global_pause=True, ecn_np=()),
    ) + config.nics[2:], nccl_env=tuple(item for item in config.nccl_env if item[0] != "NCCL_IB_TC"))
    root = write_snapshot(tmp_path / "gpu0001", broken)
    (root / "nics" / eth0.name / "mlnx_qos.txt").write_text(  # mlnx_qos absent: the cable length is not read
        (root / "nics" / eth0.name / "mlnx_qos.txt").read_text().replace("Cable len: ", "Cable: "))
    parsed = read_host_states(tmp_path, dict(snapshot.inventory.servers_by_name))["gpu0001"]
    drift = host_drift(config, parsed.config)
    messages = [item.message for item in drift.differences]
    assert messages == [
        "gpu0001 nic eth0: MTU 9000 intended, 4000 running",
        "gpu0001 nic eth0: DSCP to priority {26: 3} intended, {26: 5} running",
        "gpu0001 nic eth0: PFC priorities [3] intended, [4] running",
        "gpu0001 nic eth1: DCQCN notification point priorities [3] intended, [] running",
        "gpu0001 nic eth1: CNP DSCP 48 intended, 4 running",
        "gpu0001 nic eth1: 802.3x global pause False intended, True running",
        "gpu0001 NCCL environment: NCCL_IB_TC '104' intended, 'unset' running",
    ]
    assert drift.state == "drifted" and drift.not_read == ("eth0: cable length (m)",)
    assert drift.as_dict()["differences"][2] == {"path": "nics[eth0].pfc_priorities", "intended": [3],
                                                  "running": [4], "message": messages[2]}


def test_missing_and_extra_nics_are_drift():
    config = build_host_configs(golden_snapshot())["gpu0001"]
    extra = dataclasses.replace(config.nics[0], name="eth9", rdma_device="mlx5_9")
    running = dataclasses.replace(config, nics=config.nics[1:] + (extra,))
    messages = [item.message for item in host_drift(config, running).differences]
    assert messages == ["gpu0001 nic eth0: NIC 'present' intended, 'not collected (no such RDMA netdev)' running",
                        "gpu0001 nic eth9: NIC 'absent (not in the inventory)' intended, 'present' running"]


def test_rendered_files_read_as_a_host_state_and_bad_entries_are_named(tmp_path):
    config = build_host_configs(golden_snapshot())["gpu0002"]
    (tmp_path / "gpu0002").mkdir()
    for name, text in render_host(config).items():
        (tmp_path / "gpu0002" / name).write_text(text)
    assert host_drift(config, read_host_states(tmp_path)["gpu0002"].config).differences == ()
    (tmp_path / "notes").mkdir()
    with pytest.raises(ParseError, match=r"notes: neither a collected host state .* nor rendered host files"):
        read_host_states(tmp_path)
    with pytest.raises(ParseError, match=r"no host state in it"):
        read_host_states(tmp_path / "notes")
