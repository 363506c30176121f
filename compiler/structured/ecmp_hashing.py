"""Feature ecmp_hashing: the RoCE-aware ECMP hashing the intent asks for (compiler.model.EcmpHashing), as the
device-wide ``load_balance`` key, on the switches whose platform can express it (validate_intent has refused the
rest, compiler.hardware.HASHING_CAPABILITIES).

* distinct functions per tier: leaves (and borders, the same tier) CRC_32LO, spines CRC_32HI, super-spines
  CRC_CCITT (``sai_hash_algorithm_t`` names, as SONiC's sonic-types.yang ``hash-algorithm`` spells them). A CRC's
  seed only XORs a constant in, so tiers must differ by function (or hash bits), not by seed: the collective
  simulator's ladder (tests/validators/test_collective_ladder.py, docs/collective.md) shows CRC tiers seeded 1 and 2
  stay polarized (index >= 0.8) while a different rotation decorrelates them; tests/compiler/test_ecmp_hashing.py
  runs this very assignment through the simulator (polarization <= 0.1). The fields stated with it are the
  5-tuple the simulator models (SONiC native hash fields, sonic-hash.yang).
* distinct seeds: every switch its own seed, the CRC-32 of its hostname (1 if that is 0, which the kernel reads
  as "pick a random key"); the collective simulator derives per-switch seeds the same way
  (validators.collective.HashPolicy ``distinct_seeds``), and with a keyed hash such as the kernel's siphash it
  measured spine->super-spine polarization 1.00 with equal seeds and 0.00 with distinct ones (docs/collective.md).
* destination-QP hashing: UDP packets to the RoCE v2 port 4791 (IANA) hash payload bytes 5-7, the Base Transport
  Header's 24-bit DestQP (InfiniBand Architecture Specification vol. 1, 9.2: BTH bytes 0 opcode, 1 flags, 2-3
  P_Key, 4 FECN/BECN/reserved, 5-7 DestQP); the UDP payload of RoCE v2 starts with the BTH (Annex A17).
"""

from __future__ import annotations

import zlib

from compiler.hardware import HashFeature, hashing_capabilities
from compiler.model import Role, TierHashing
from compiler.structured.contract import LoadBalance, StructuredConfig

# Role -> ECMP hash function: one per tier on the way up (leaf -> spine -> super-spine).
TIER_HASH_FUNCTION = {Role.LEAF: "CRC_32LO", Role.BORDER: "CRC_32LO", Role.SPINE: "CRC_32HI",
                      Role.SUPER_SPINE: "CRC_CCITT"}
# The 5-tuple, as SONiC names native hash fields (sonic-hash.yang hash-field).
FIVE_TUPLE_FIELDS = ["SRC_IP", "DST_IP", "IP_PROTOCOL", "L4_SRC_PORT", "L4_DST_PORT"]
ROCE_V2_UDP_PORT = 4791  # IANA service name "roce"
BTH_DEST_QP_BYTES = "5-7"


def switch_hash_seed(hostname: str) -> int:
    """A switch's own ECMP hash seed: CRC-32 of its hostname (never 0: the kernel's "random key")."""
    return zlib.crc32(hostname.encode()) or 1


def apply(context, switch, config: StructuredConfig) -> None:
    hashing = context.intent.ecmp_hashing
    if not hashing.applies_to(switch.role):
        return
    can = hashing_capabilities(config["platform"], config["hardware"]["asic_family"])
    load_balance: LoadBalance = {"ecmp_hash_function": None, "ecmp_hash_fields": None, "ecmp_hash_seed": None,
                                 "udp_payload_hash": None}
    if hashing.tier_hashing == TierHashing.DISTINCT_FUNCTIONS and HashFeature.TIER_FUNCTIONS in can:
        load_balance["ecmp_hash_function"] = TIER_HASH_FUNCTION[switch.role]
        load_balance["ecmp_hash_fields"] = list(FIVE_TUPLE_FIELDS)
    if hashing.tier_hashing == TierHashing.DISTINCT_SEEDS and HashFeature.PER_SWITCH_SEED in can:
        load_balance["ecmp_hash_seed"] = switch_hash_seed(switch.hostname)
    if hashing.dest_qp_hashing and HashFeature.DEST_QP_UDF in can:
        load_balance["udp_payload_hash"] = {"dst_port": ROCE_V2_UDP_PORT, "payload_bytes": BTH_DEST_QP_BYTES}
    if any(value is not None for value in load_balance.values()):
        config["load_balance"] = load_balance
