"""The RoCEv2 UDP source port a Linux RDMA QP uses, vectorised over arrays of QP number pairs.

RoCEv2 (IBTA Annex A17) carries RDMA in UDP to port 4791; the *source* port is the flow's only entropy that a
5-tuple ECMP hash sees. When the application sets no IPv6 flow label, Linux derives it from the two QP numbers
(include/rdma/ib_verbs.h, Linux >= 5.6; mlx5's ``mlx5_set_path_udp_sport`` in drivers/infiniband/hw/mlx5/qp.c,
irdma and rxe call it whenever the QP's flow label is 0):

    static inline u32 rdma_calc_flow_label(u32 lqpn, u32 rqpn)
    {   u64 fl = (u64)lqpn * rqpn;
        fl ^= fl >> 20;  fl ^= fl >> 40;
        return (u32)(fl & IB_GRH_FLOWLABEL_MASK); }          /* IB_GRH_FLOWLABEL_MASK = 0x000FFFFF */

    static inline u16 rdma_flow_label_to_udp_sport(u32 fl)
    {   u32 fl_low = fl & 0x03fff, fl_high = fl & 0xFC000;
        fl_low ^= fl_high >> 14;
        return (u16)(fl_low | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN); }   /* 0xC000 */

The port is therefore fixed for the QP's life, symmetric in (lqpn, rqpn), and one of 16,384 values 49152-65535.
Pure numpy; tests/validators/collective/test_collective_ladder.py checks it bit-exact against a line-by-line
Python transcription on 10^5 pairs.
"""

from __future__ import annotations

import numpy as np

FLOW_LABEL_MASK = 0x000FFFFF  # IB_GRH_FLOWLABEL_MASK: the 20-bit IPv6 flow label
ROCE_SPORT_MIN = 0xC000  # IB_ROCE_UDP_ENCAP_VALID_PORT_MIN (49152)
ROCE_SPORT_VALUES = 0x4000  # 14 bits of entropy: 49152..65535
ROCE_DPORT = 4791  # IANA-assigned RoCEv2 UDP destination port
QPN_MASK = 0xFFFFFF  # QP numbers are 24 bits (the BTH DestQP field)


def rdma_calc_flow_label(lqpn: np.ndarray, rqpn: np.ndarray) -> np.ndarray:
    """``rdma_calc_flow_label`` of every pair (uint64 arithmetic as the kernel's u64; 24-bit QPNs cannot overflow)."""
    product = lqpn.astype(np.uint64) * rqpn.astype(np.uint64)
    product ^= product >> np.uint64(20)
    product ^= product >> np.uint64(40)
    return (product & np.uint64(FLOW_LABEL_MASK)).astype(np.uint32)


def rdma_flow_label_to_udp_sport(flow_label: np.ndarray) -> np.ndarray:
    """``rdma_flow_label_to_udp_sport``: fold the 20-bit label into 14 bits and set the top two bits."""
    label = flow_label.astype(np.uint32)
    low = label & np.uint32(0x03FFF)
    high = label & np.uint32(0xFC000)
    return ((low ^ (high >> np.uint32(14))) | np.uint32(ROCE_SPORT_MIN)).astype(np.uint16)


def roce_udp_sport(lqpn: np.ndarray, rqpn: np.ndarray) -> np.ndarray:
    """The source port of QP ``lqpn`` talking to ``rqpn`` when no flow label is set (``rdma_get_udp_sport(0, ..)``)."""
    return rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn))
