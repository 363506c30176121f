"""Limits and defaults of intent fields (sources in the comments)."""

from compiler.allocate import MAX_VNI

VLAN_ID_MIN, VLAN_ID_MAX = 1, 4094  # IEEE 802.1Q: 0 and 4095 are reserved
VNI_MIN, VNI_MAX = 1, MAX_VNI  # 24-bit VXLAN network identifier, RFC 7348 section 5
DSCP_MIN, DSCP_MAX = 0, 63  # 6-bit DSCP field, RFC 2474
PRIORITY_MIN, PRIORITY_MAX = 0, 7  # 3-bit 802.1p PCP / PFC priority, IEEE 802.1Qbb
TRAFFIC_CLASS_MIN, TRAFFIC_CLASS_MAX = 0, 7  # eight egress queues on every supported ASIC
ASN_MIN, ASN_MAX = 1, 4294967294  # 4-byte ASNs, RFC 6793; 4294967295 reserved by RFC 7300
MTU_MIN, MTU_MAX = 1280, 9216  # 1280: IPv6 minimum link MTU (RFC 8200); 9216: largest port MTU we support
BGP_HOLD_MIN_S = 3  # RFC 4271 section 4.2: hold time is 0 or at least three seconds

# Compiles of fabrics with fewer devices run inside the API request; bigger ones go to a Celery task.
SYNC_COMPILE_MAX_DEVICES = 200

# The typical RoCEv2 class, as NVIDIA ships it ("roce lossless" on Onyx and Cumulus Linux: RoCE traffic on
# switch priority 3 / traffic class 3 with PFC, ECN marking from 150 KB to 1500 KB, CNPs on priority 6 with strict
# scheduling; NVIDIA Onyx User Manual "RoCE Commands" (show roce), Cumulus Linux User Guide "RDMA over Converged
# Ethernet - RoCE"). DSCP 26 for RoCE data and DSCP 48 for CNPs are the NVIDIA ConnectX defaults for DCQCN.
# The 10 % marking probability at the maximum threshold is the DCQCN starting point (Zhu et al., SIGCOMM 2015,
# "Congestion Control for Large-Scale RDMA Deployments": Pmax between 1 % and 10 %).
# CNPs are not a class of their own: the compiler contract (docs/structured-config.md, qos.cnp) takes them from
# the lossless class's cnp_dscp/cnp_priority and maps DSCP 48 -> traffic class 6 (lossy, strict); a separate
# class carrying DSCP 48 would map it twice, which validate_intent rejects.
ROCE_DEFAULT_CLASSES = (
    {
        "name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
        "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10,
        "cnp_dscp": 48, "cnp_priority": 6, "pfc_watchdog": True,
    },
)
