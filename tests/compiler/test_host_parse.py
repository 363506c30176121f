"""Host state read back (issue 31): render -> parse is exact on every field for generated host configs of every
NIC family (hypothesis); ``mlnx_qos`` output, ``dcb -j`` JSON, a collected snapshot directory and the NCCL env
parse to the values they state; bad input is a ParseError naming the file and the value.

The tool outputs below are written from the tools' documentation and source (MLNX_OFED "mlnx_qos" examples,
iproute2 dcb/dcb_app.c, dcb_pfc.c, dcb_ets.c JSON printers), not captured from hardware."""

from __future__ import annotations

from pathlib import Path

import pytest
from host_state import write_snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.host_config import PRIORITIES, HostConfig, NicConfig, build_host_configs, kernel_gid_table
from compiler.nics import NicFamily
from compiler.parse import ParseError
from compiler.parse.hosts import (
    parse_dcb_json,
    parse_gid_table,
    parse_host_files,
    parse_host_snapshot,
    parse_mlnx_qos,
    parse_nccl_env,
    parse_pause,
)
from compiler.render.hosts import render_host

priorities = st.lists(st.integers(0, PRIORITIES - 1), unique=True, max_size=PRIORITIES).map(lambda p: tuple(sorted(p)))
eight = st.lists(st.integers(0, PRIORITIES - 1), min_size=PRIORITIES, max_size=PRIORITIES).map(tuple)
bandwidth = st.lists(st.integers(0, 100), min_size=PRIORITIES, max_size=PRIORITIES).map(tuple)
dscp_map = st.dictionaries(st.integers(0, 63), st.integers(0, 7), max_size=8).map(lambda d: tuple(sorted(d.items())))


@st.composite
def nic_configs(draw, server: str, index: int) -> NicConfig:
    family = draw(st.sampled_from(NicFamily.ALL))
    name = f"eth{index}"
    prefix = {NicFamily.CONNECTX: "mlx5_", NicFamily.BNXT: "bnxt_re", NicFamily.LINUX_DCB: "irdma"}[family]
    addresses = tuple(f"10.{index}.{host}.2/24" for host in draw(st.lists(st.integers(0, 255), unique=True, max_size=2)))
    dscp = draw(dscp_map)
    common = dict(
        server=server, name=name, rdma_device=f"{prefix}{index}", rail=index, family=family,
        nic_model=draw(st.sampled_from(["ConnectX-7", "BCM57608", "", "E810-CQDA2"])),
        speed_gbps=draw(st.sampled_from([100, 200, 400, 800])), mtu=draw(st.integers(576, 9216)),
        pcie_gen=draw(st.sampled_from([None, 4, 5, 6])), dscp_to_priority=dscp,
        pfc_priorities=draw(st.none() | priorities), priority_to_tc=draw(eight), tc_bandwidth=draw(bandwidth),
        tc_strict=draw(priorities), roce_mode=draw(st.none() | st.sampled_from(["v1", "v2"])),
        roce_tos=draw(st.none() | st.integers(0, 255)), global_pause=draw(st.none() | st.booleans()),
        addresses=addresses, gateway=draw(st.none() | st.just(f"10.{index}.0.1")) if addresses else None,
        leaf=draw(st.sampled_from(["", "leaf1"])),
    )
    common["pcie_lanes"] = draw(st.sampled_from([8, 16])) if common["pcie_gen"] else None
    common["leaf_interface"] = "Ethernet8" if common["leaf"] else ""
    if family == NicFamily.CONNECTX:
        return NicConfig(**common, trust=draw(st.none() | st.sampled_from(["dscp", "pcp"])),
                         cable_length_m=draw(st.none() | st.integers(0, 300)), ecn_rp=draw(st.none() | priorities),
                         ecn_np=draw(st.none() | priorities), cnp_dscp=draw(st.none() | st.integers(0, 63)),
                         cnp_priority=draw(st.none() | st.integers(0, 7)))
    if family == NicFamily.LINUX_DCB:
        return NicConfig(**common, trust=draw(st.none() | st.sampled_from(["dscp", "pcp"])))
    # Thor: trust is stated by the DSCP app entries; one RoCE priority in the CC block (compiler.render.hosts)
    common["roce_tos"] = draw(st.integers(0, 255))
    probe = NicConfig(**common)
    ecn = (probe.priority_of(probe.roce_tos >> 2),) if draw(st.booleans()) else ()
    return NicConfig(**common, trust="dscp" if dscp else "pcp", ecn_rp=ecn, ecn_np=ecn,
                     cnp_dscp=draw(st.integers(0, 63)), cnp_priority=draw(st.integers(0, 7)))


nccl_keys = st.lists(st.sampled_from(["NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_IB_GID_INDEX", "NCCL_IB_ROCE_VERSION_NUM",
                                      "NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_HCA"]), unique=True)


@st.composite
def host_configs(draw) -> HostConfig:
    count = draw(st.integers(1, 4))
    nics = tuple(draw(nic_configs("gpu0001", index)) for index in range(count))
    env = tuple((key, "=mlx5_0:1" if key == "NCCL_IB_HCA" else str(draw(st.integers(0, 255)))) for key in draw(nccl_keys))
    return HostConfig(server="gpu0001", model=draw(st.sampled_from(["", "DGX-H100"])), nics=nics, nccl_env=env)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(host_configs())
def test_render_parse_round_trip_is_exact(config):
    parsed = parse_host_files(config.server, render_host(config))
    assert parsed.unmodelled == []
    assert parsed.config == config


def test_round_trip_of_the_compiled_fabric():
    from test_host_render import golden_snapshot  # the golden scenario: all three families

    for server, config in build_host_configs(golden_snapshot()).items():
        assert parse_host_files(server, render_host(config)).config == config


def test_unknown_lines_are_unmodelled_not_dropped():
    config = build_host_configs(__import__("test_host_render").golden_snapshot())["gpu0001"]
    files = render_host(config)
    files["nic-qos.sh"] += "sysctl -w net.ipv4.tcp_ecn=1\n"
    parsed = parse_host_files("gpu0001", files)
    assert parsed.unmodelled == [("nic-qos.sh", len(files["nic-qos.sh"].splitlines()), "sysctl -w net.ipv4.tcp_ecn=1")]


@pytest.mark.parametrize(("text", "message"), [
    ("# --- eth0 rdma mlx5_0 rail 0 model - 400G family connectx [x]\nmlnx_qos -i eth0 --pfc 0,0,1\n", "8 flags"),
    ("mlnx_qos -i eth9 --trust dscp\n", "'eth9' has no '# --- ' NIC header"),
    ("# --- eth0 rdma mlx5_0 rail 0 model - 400G family connectx [x]\ncma_roce_mode -d mlx5_0 -p 1 -m 7\n", "-m 7"),
    ("# --- eth0 rdma mlx5_0 rail 0 model - 400G family connectx [x]\nmlnx_qos -i eth0 --cable_len=ten\n", "'ten'"),
])
def test_bad_script_lines_name_file_line_and_value(text, message):
    with pytest.raises(ParseError) as raised:
        parse_host_files("gpu0001", {"nic-qos.sh": text})
    assert "nic-qos.sh line" in str(raised.value) and message in str(raised.value)


MLNX_QOS = """\
DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
\tprio:0 dscp:07,06,05,04,03,02,01,00,
\tprio:1 dscp:15,14,13,12,11,10,09,08,
\tprio:2 dscp:23,22,21,20,19,18,17,16,
\tprio:3 dscp:31,30,29,28,27,26,25,24,
\tprio:4 dscp:39,38,37,36,35,34,33,32,
\tprio:5 dscp:47,46,45,44,43,42,41,40,
\tprio:6 dscp:55,54,53,52,51,50,49,48,
\tprio:7 dscp:63,62,61,60,59,58,57,56,
default priority:
Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016
Cable len: 7
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
\tbuffer      0   0   0   1   0   0   0   0
tc: 0 ratelimit: unlimited, tsa: ets, bw: 10%
\t priority:  0
\t priority:  2
\t priority:  4
\t priority:  5
\t priority:  7
tc: 1 ratelimit: unlimited, tsa: ets, bw: 10%
\t priority:  1
tc: 3 ratelimit: unlimited, tsa: ets, bw: 80%
\t priority:  3
tc: 6 ratelimit: unlimited, tsa: strict
\t priority:  6
"""


def test_mlnx_qos_output():
    parsed = parse_mlnx_qos(MLNX_QOS)
    assert parsed["trust"] == "dscp" and parsed["cable_length_m"] == 7 and parsed["pfc_priorities"] == (3,)
    assert dict(parsed["dscp_to_priority"])[26] == 3 and dict(parsed["dscp_to_priority"])[48] == 6
    assert len(parsed["dscp_to_priority"]) == 64
    assert parsed["priority_to_tc"] == (0, 1, 0, 3, 0, 0, 6, 0)
    assert parsed["tc_bandwidth"] == (10, 10, 0, 80, 0, 0, 0, 0) and parsed["tc_strict"] == (6,)
    pcp = parse_mlnx_qos(MLNX_QOS.replace("trust state: dscp", "trust state: pcp").replace("0   1   0", "0   0   1"))
    assert pcp["trust"] == "pcp" and pcp["pfc_priorities"] == (4,)


DCB_APP = {"dscp_prio": [[10, 1], [12, 1], [26, 3], [48, 6]]}
DCB_PFC = {"pfc_cap": 8, "macsec_bypass": False, "delay": 0,
           "prio_pfc": {"0": False, "1": False, "2": False, "3": True, "4": False, "5": False, "6": False, "7": False}}
DCB_ETS = {"willing": False, "ets_cap": 8, "cbs": False,
           "tc_bw": {"0": 10, "1": 10, "2": 0, "3": 80, "4": 0, "5": 0, "6": 0, "7": 0},
           "tc_tsa": {"0": "ets", "1": "ets", "2": "ets", "3": "ets", "4": "ets", "5": "ets", "6": "strict", "7": "ets"},
           "prio_tc": {"0": 0, "1": 1, "2": 0, "3": 3, "4": 0, "5": 0, "6": 6, "7": 0}}


def test_dcb_json():
    parsed = parse_dcb_json(DCB_APP, DCB_PFC, DCB_ETS, {"order": ["dscp"]})
    assert parsed == {"trust": "dscp", "dscp_to_priority": ((10, 1), (12, 1), (26, 3), (48, 6)),
                      "pfc_priorities": (3,), "priority_to_tc": (0, 1, 0, 3, 0, 0, 6, 0),
                      "tc_bandwidth": (10, 10, 0, 80, 0, 0, 0, 0), "tc_strict": (6,)}
    with pytest.raises(ParseError, match="not the JSON dcb prints"):
        parse_dcb_json(app={"dscp_prio": [["x", 1]]})


def test_nccl_env_and_pause():
    env = parse_nccl_env("# comment\nexport NCCL_IB_TC=104\nNCCL_IB_HCA='=mlx5_0:1'\nOMP_NUM_THREADS=4\n")
    assert env == (("NCCL_IB_TC", "104"), ("NCCL_IB_HCA", "=mlx5_0:1"))
    with pytest.raises(ParseError, match="line 1: expected KEY=VALUE"):
        parse_nccl_env("NCCL_IB_TC 104\n")
    assert parse_pause("Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\ton\n") is True
    assert parse_pause("Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n") is False


def test_snapshot_directory_reads_back_the_intended_state(tmp_path):
    from test_host_render import golden_snapshot

    snapshot = golden_snapshot()
    for server, config in build_host_configs(snapshot).items():
        parsed = parse_host_snapshot(write_snapshot(tmp_path / server, config),
                                     snapshot.inventory.servers_by_name[server]).config
        assert parsed.server == server and parsed.nccl_env == config.nccl_env
        for read, intended in zip(parsed.nics, config.nics, strict=True):
            for field in ("name", "rdma_device", "rail", "family", "speed_gbps", "mtu", "pcie_gen", "pcie_lanes",
                          "trust", "pfc_priorities", "priority_to_tc", "tc_bandwidth", "tc_strict", "roce_mode",
                          "roce_tos", "global_pause", "addresses"):
                assert getattr(read, field) == getattr(intended, field), (server, read.name, field)
            assert all(read.priority_of(d) == intended.priority_of(d) for d in range(64))
            if intended.family != NicFamily.LINUX_DCB:  # a generic NIC states no ECN/CNP
                assert (read.ecn_rp, read.ecn_np, read.cnp_dscp, read.cnp_priority) == (
                    intended.ecn_rp, intended.ecn_np, intended.cnp_dscp, intended.cnp_priority)
            if intended.family == NicFamily.CONNECTX:
                assert read.cable_length_m == intended.cable_length_m


def test_gid_table_from_the_collected_sysfs_values(tmp_path):
    text = ("0 fe80:0000:0000:0000:a288:c2ff:fe3b:506a eth0 IB/RoCE v1\n"
            "1 fe80:0000:0000:0000:a288:c2ff:fe3b:506a eth0 RoCE v2\n"
            "2 0000:0000:0000:0000:0000:ffff:0ac8:010a eth0 IB/RoCE v1\n"
            "3 0000:0000:0000:0000:0000:ffff:0ac8:010a eth0 RoCE v2\n")
    table = parse_gid_table(text)
    assert [(entry.index, entry.roce_type, entry.ipv4) for entry in table] == [
        (0, "IB/RoCE v1", None), (1, "RoCE v2", None), (2, "IB/RoCE v1", "10.200.1.10"), (3, "RoCE v2", "10.200.1.10")]
    with pytest.raises(ParseError, match=r"gids.txt line 1: expected '<index> <gid> <netdev> <IB/RoCE v1 \| RoCE v2>'"):
        parse_gid_table("3 ::ffff:10.0.0.1 eth0 RoCE v3\n")
    # a collected snapshot carries its table into the NIC's state; the intended state has none (the kernel fills it)
    from dataclasses import replace

    config = build_host_configs(__import__("test_host_render").golden_snapshot())["gpu0001"]
    nic = config.nics[0]
    table = tuple(replace(entry, gid="fe80::a288:c2ff:fe3b:506a") if entry.ipv4 is None else entry
                  for entry in kernel_gid_table(nic.name, nic.addresses))
    read = parse_host_snapshot(write_snapshot(tmp_path / "gpu0001", replace(config, nics=(replace(nic, gid_table=table),))))
    assert [(entry.index, entry.roce_type, entry.ipv4, entry.netdev) for entry in read.config.nics[0].gid_table] == [
        (entry.index, entry.roce_type, entry.ipv4, entry.netdev) for entry in table]
    assert nic.gid_table is None


def test_snapshot_bad_value_names_the_file(tmp_path):
    from test_host_render import golden_snapshot

    config = build_host_configs(golden_snapshot())["gpu0001"]
    root = write_snapshot(tmp_path / "gpu0001", config)
    (root / "nics" / "eth0" / "mtu").write_text("jumbo\n")
    with pytest.raises(ParseError, match=r"nics/eth0/mtu: expected an integer, got 'jumbo'"):
        parse_host_snapshot(root)


def test_collection_script_is_valid_sh_and_documents_the_layout_parsed():
    import subprocess

    script = Path(__file__).parents[2] / "scripts" / "collect-host-state.sh"
    subprocess.run(["sh", "-n", str(script)], check=True)
    text = script.read_text()
    for written in ("mlnx_qos.txt", "dcb-$object.json", "pause.txt", "addresses.json", "current_link_speed",
                    "rdma_device", "default_roce_tos", "bnxt_re/$rdma/cc", "nccl.env"):
        assert written in text, written


def test_operator_template_reads_back_the_connectx_settings():
    from test_host_render import golden_snapshot

    from compiler.parse.hosts import parse_operator_template

    config = build_host_configs(golden_snapshot())["gpu0001"]
    files = render_host(config)
    parsed = parse_operator_template(files["nic-configuration-template.yaml"])
    nic = config.nics[0]
    assert parsed == {"1021": {"trust": nic.trust, "pfc_priorities": nic.pfc_priorities, "roce_tos": nic.roce_tos,
                               "ecn_rp": nic.ecn_rp, "ecn_np": nic.ecn_np, "cnp_dscp": 48, "cnp_priority": 6}}
    assert "nic-configuration-template.yaml" not in render_host(build_host_configs(golden_snapshot())["gpu0002"])
    operator_default = files["nic-configuration-template.yaml"].replace('value: "48"', 'value: "4"')
    assert parse_operator_template(operator_default)["1021"]["cnp_dscp"] == 4  # the operator's own default, caught
    with pytest.raises(ParseError, match="pfc"):
        parse_operator_template(files["nic-configuration-template.yaml"].replace('"0,0,0,1,0,0,0,0"', '"1,0"'))


def _complete(nic: NicConfig) -> NicConfig:
    """What a real NIC reports: every setting has a value (the collection script reads them all)."""
    from dataclasses import replace

    filled = replace(nic, trust=nic.trust or "dscp", pfc_priorities=nic.pfc_priorities or (),
                     roce_mode=nic.roce_mode or "v2", roce_tos=nic.roce_tos or 0, pcie_gen=nic.pcie_gen or 5,
                     pcie_lanes=nic.pcie_lanes or 16, global_pause=bool(nic.global_pause))
    if nic.family == NicFamily.CONNECTX:
        filled = replace(filled, cable_length_m=nic.cable_length_m or 0, ecn_rp=nic.ecn_rp or (),
                         ecn_np=nic.ecn_np or (), cnp_dscp=nic.cnp_dscp or 0, cnp_priority=nic.cnp_priority or 0)
    return filled


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(host_configs())
def test_collected_snapshot_reads_back_every_generated_state(tmp_path_factory, config):
    from dataclasses import replace

    config = replace(config, nics=tuple(_complete(nic) for nic in config.nics))
    root = write_snapshot(tmp_path_factory.mktemp("host"), config)
    parsed = parse_host_snapshot(root).config
    assert parsed.nccl_env == config.nccl_env
    for read, intended in zip(parsed.nics, config.nics, strict=True):
        for field in ("name", "rdma_device", "family", "speed_gbps", "mtu", "pcie_gen", "pcie_lanes", "trust",
                      "pfc_priorities", "priority_to_tc", "tc_strict", "roce_mode", "roce_tos", "global_pause",
                      "addresses"):
            assert getattr(read, field) == getattr(intended, field), field
        # mlnx_qos prints no bandwidth for a strict TC (it has none): only the ETS TCs' shares are compared
        ets = [tc for tc in range(PRIORITIES) if tc not in intended.tc_strict]
        assert [read.tc_bandwidth[tc] for tc in ets] == [intended.tc_bandwidth[tc] for tc in ets]
        assert all(read.priority_of(d) == intended.priority_of(d) for d in range(64))
        if intended.family != NicFamily.LINUX_DCB:
            assert (read.ecn_rp, read.ecn_np, read.cnp_dscp, read.cnp_priority) == (
                intended.ecn_rp, intended.ecn_np, intended.cnp_dscp, intended.cnp_priority)
