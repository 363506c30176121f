"""Host renderers (issue 31): golden files per NIC family (``UPDATE_GOLDEN=1`` rewrites tests/golden/hosts/expected),
the host config's derived values (ToS = DSCP << 2, RoCE MTU, PFC vector, capability gaps) and the catalogue."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest
import yaml

from compiler.host_config import build_host_configs, roce_mtu
from compiler.model import Snapshot
from compiler.nics import NIC_MODELS, SERVER_MODELS, NicFamily, default_server_model, pcie_bandwidth_gbps
from compiler.render.hosts import render_host
from compiler.scenario import snapshot_from_scenario

GOLDEN = Path(__file__).parents[1] / "golden" / "hosts"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def golden_snapshot() -> Snapshot:
    data = yaml.safe_load((GOLDEN / "hosts.yaml").read_text())
    models = data.pop("server_models")
    snapshot = snapshot_from_scenario(data)
    servers = tuple(dataclasses.replace(server, model=models.get(server.name, "")) for server in snapshot.inventory.servers)
    return dataclasses.replace(snapshot, inventory=dataclasses.replace(snapshot.inventory, servers=servers))


def test_golden_host_files():
    outputs = {f"{server}/{name}": text for server, config in build_host_configs(golden_snapshot()).items()
               for name, text in render_host(config).items()}
    expected_dir = GOLDEN / "expected"
    if UPDATE:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for relative, text in outputs.items():
            (expected_dir / relative).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / relative).write_text(text)
    expected = {str(path.relative_to(expected_dir)): path.read_text() for path in expected_dir.rglob("*") if path.is_file()}
    assert sorted(outputs) == sorted(expected)
    for relative, text in outputs.items():
        assert text == expected[relative], f"{relative} drifted; UPDATE_GOLDEN=1 to accept"


def test_each_family_renders_its_own_tools():
    configs = build_host_configs(golden_snapshot())
    files = {server: render_host(config) for server, config in configs.items()}
    connectx, thor, generic = files["gpu0001"]["nic-qos.sh"], files["gpu0002"]["nic-qos.sh"], files["gpu0003"]["nic-qos.sh"]
    assert "mlnx_qos -i eth0 --trust dscp" in connectx and "cma_roce_tos -d mlx5_0 -t 104" in connectx
    assert "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3" in connectx
    assert "mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0" in connectx and "--cable_len=2" in connectx
    assert "mlxconfig.sh" in files["gpu0001"] and "mlxconfig.sh" not in files["gpu0002"]
    assert "CNP_DSCP_P1=48 CNP_802P_PRIO_P1=6" in files["gpu0001"]["mlxconfig.sh"]
    assert "/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/cnp_dscp" in thor and "mlnx_qos" not in thor
    assert "dcb pfc set dev eth0 prio-pfc 0:off 1:off 2:off 3:on" in thor
    assert "dcb apptrust set dev eth0 order dscp" in generic and "ecn" not in generic and "cnp" not in generic
    assert "echo 'RoCE v2' > /sys/kernel/config/rdma_cm/irdma0/ports/1/default_roce_mode" in generic
    for server_files in files.values():
        assert "ethtool -A eth0 autoneg off rx off tx off" in server_files["nic-qos.sh"]
        assert "NCCL_IB_TC=104\n" in server_files["nccl.env"]
    assert "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n" in files["gpu0001"]["nccl.env"]
    assert "NCCL_IB_HCA==bnxt_re0:1,bnxt_re1:1\n" in files["gpu0002"]["nccl.env"]


def test_host_config_values():
    configs = build_host_configs(golden_snapshot())
    nic = configs["gpu0001"].nics[0]
    assert (nic.trust, nic.pfc_priorities, nic.roce_tos, nic.cnp_dscp, nic.cnp_priority) == ("dscp", (3,), 104, 48, 6)
    assert nic.priority_to_tc == (0, 1, 0, 3, 0, 0, 6, 0)
    assert sum(nic.tc_bandwidth) == 100 and nic.tc_strict == (6,)  # CNP class strict, like the switch egress
    assert nic.dscp_to_priority == ((10, 1), (12, 1), (26, 3), (48, 6))
    assert nic.addresses and nic.gateway == "10.100.0.1" and nic.leaf == "leaf1"
    generic = configs["gpu0003"].nics[0]
    assert generic.family == NicFamily.LINUX_DCB and generic.ecn_rp is None and generic.cnp_dscp is None
    assert generic.cable_length_m is None and generic.pfc_priorities == (3,)
    assert configs["gpu0004"].model == "DGX-H100"  # no model: the default for a 400G NIC


@pytest.mark.parametrize(("mtu", "expected"), [(9000, 4096), (4192, 4096), (4191, 2048), (4000, 2048), (1500, 1024),
                                               (300, 0)])
def test_roce_mtu_subtracts_the_roce_headers(mtu, expected):
    assert roce_mtu(mtu) == expected


def test_pcie_bandwidth_and_catalogue():
    assert 250 < pcie_bandwidth_gbps(4, 16) < 256 < 400 < pcie_bandwidth_gbps(5, 16) < 505 < 800
    assert pcie_bandwidth_gbps(6, 16) > 800 and pcie_bandwidth_gbps(7, 16) == 0
    assert default_server_model(400) == "DGX-H100" and default_server_model(25) == "Generic-E810"
    assert default_server_model(1600) is None
    for server in SERVER_MODELS.values():
        assert server.nic_model in NIC_MODELS
        nic = NIC_MODELS[server.nic_model]
        # every catalogue server can drive its NICs at line rate
        assert nic.max_speed_gbps <= pcie_bandwidth_gbps(min(nic.pcie_gen, server.slot_pcie_gen), nic.pcie_lanes)
