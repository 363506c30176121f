"""What ``scripts/collect-host-state.sh`` writes on a GPU server whose NICs are in a given state: the tool outputs
are written from the tools' documentation and source (MLNX_OFED "mlnx_qos" examples, iproute2 dcb JSON printers,
the kernel's sysfs/configfs ABI), not captured from hardware. Shared by the parser tests and the host drift tests."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

from compiler.host_config import PRIORITIES, HostConfig
from compiler.nics import PCIE_SPEED_TEXT, NicFamily


def sysfs_gid(gid: str) -> str:
    """A GID as /sys/class/infiniband/<dev>/ports/1/gids/<index> prints it: 0000:0000:0000:0000:0000:ffff:0a64:0002."""
    return ipaddress.IPv6Address(gid).exploded


def write_snapshot(root: Path, config: HostConfig) -> Path:
    """What scripts/collect-host-state.sh writes for ``config`` (ConnectX with mlnx_qos, others with dcb JSON)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "hostname").write_text(config.server + "\n")
    (root / "nccl.env").write_text("".join(f"{key}={value}\n" for key, value in config.nccl_env))
    for nic in config.nics:
        nic_dir = root / "nics" / nic.name
        nic_dir.mkdir(parents=True)
        driver = {NicFamily.CONNECTX: "mlx5_core", NicFamily.BNXT: "bnxt_en"}.get(nic.family, "ice")
        files = {"driver": driver, "rdma_device": nic.rdma_device, "mtu": str(nic.mtu),
                 "speed": str(nic.speed_gbps * 1000), "current_link_speed": PCIE_SPEED_TEXT[nic.pcie_gen],
                 "current_link_width": str(nic.pcie_lanes),
                 "pause.txt": f"Pause parameters for {nic.name}:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\t"
                              f"{'on' if nic.global_pause else 'off'}\n",
                 "addresses.json": json.dumps([{"ifname": nic.name, "addr_info": [
                     {"family": "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1])} for a in nic.addresses]}])}
        pfc = {str(p): p in (nic.pfc_priorities or ()) for p in range(PRIORITIES)}
        files["dcb-pfc.json"] = json.dumps({"prio_pfc": pfc})
        files["dcb-app.json"] = json.dumps({"dscp_prio": [list(pair) for pair in nic.dscp_to_priority]})
        files["dcb-ets.json"] = json.dumps({"prio_tc": {str(p): tc for p, tc in enumerate(nic.priority_to_tc or ())},
                                            "tc_bw": {str(t): bw for t, bw in enumerate(nic.tc_bandwidth or ())},
                                            "tc_tsa": {str(t): "strict" if t in (nic.tc_strict or ()) else "ets"
                                                       for t in range(PRIORITIES)}})
        if nic.family == NicFamily.LINUX_DCB:
            files["dcb-apptrust.json"] = json.dumps({"order": [nic.trust]})
        if nic.gid_table is not None:  # sysfs spells a GID as 8 groups of 4 hex digits
            files["gids.txt"] = "\n".join(f"{entry.index} {sysfs_gid(entry.gid)} {entry.netdev} {entry.roce_type}"
                                          for entry in nic.gid_table)
        for name, text in files.items():
            (nic_dir / name).write_text(text + "\n")
        if nic.family == NicFamily.CONNECTX:
            for point, enabled in (("roce_rp", nic.ecn_rp), ("roce_np", nic.ecn_np)):
                (nic_dir / "ecn" / point / "enable").mkdir(parents=True)
                for p in range(PRIORITIES):
                    (nic_dir / "ecn" / point / "enable" / str(p)).write_text(f"{int(p in (enabled or ()))}\n")
            (nic_dir / "ecn" / "roce_np" / "cnp_dscp").write_text(f"{nic.cnp_dscp}\n")
            (nic_dir / "ecn" / "roce_np" / "cnp_802p_prio").write_text(f"{nic.cnp_priority}\n")
            (nic_dir / "mlnx_qos.txt").write_text(
                f"Priority trust state: {nic.trust}\nCable len: {nic.cable_length_m}\nPFC configuration:\n"
                "\tpriority    0   1   2   3   4   5   6   7\n"
                "\tenabled     " + "   ".join(str(int(p in (nic.pfc_priorities or ()))) for p in range(PRIORITIES))
                + "\n" + "".join(f"tc: {tc} ratelimit: unlimited, tsa: {'strict' if tc in nic.tc_strict else 'ets'}"
                                 + ("" if tc in nic.tc_strict else f", bw: {nic.tc_bandwidth[tc]}%") + "\n"
                                 + "".join(f"\t priority:  {p}\n" for p, t in enumerate(nic.priority_to_tc) if t == tc)
                                 for tc in range(PRIORITIES))
                + "dscp2prio mapping:\n" + "".join(
                    f"\tprio:{p} dscp:" + ",".join(f"{d:02d}" for d in range(64) if nic.priority_of(d) == p) + ",\n"
                    for p in range(PRIORITIES)))
        if nic.family == NicFamily.BNXT:
            cc = root / "bnxt_re" / nic.rdma_device / "cc"
            cc.mkdir(parents=True)
            values = {"ecn_enable": int(bool(nic.ecn_rp)), "cnp_dscp": nic.cnp_dscp, "cnp_prio": nic.cnp_priority,
                      "roce_prio": nic.ecn_rp[0] if nic.ecn_rp else 0}
            for key, value in values.items():
                (cc / key).write_text(f"{value}\n")
        rdma_cm = root / "rdma_cm" / nic.rdma_device / "ports" / "1"
        rdma_cm.mkdir(parents=True)
        (rdma_cm / "default_roce_mode").write_text({"v2": "RoCE v2", "v1": "IB/RoCE v1"}[nic.roce_mode] + "\n")
        (rdma_cm / "default_roce_tos").write_text(f"{nic.roce_tos}\n")
    return root
