"""ECMP hash functions, the header fields they read and how a switch turns a hash into a next-hop member.

The functions are the ones switch SAIs expose (``sai_hash_algorithm_t`` in SAI's inc/saiswitch.h, the values of
``SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_ALGORITHM``: CRC, XOR, RANDOM, CRC_32LO, CRC_32HI, CRC_CCITT; the seed is
``SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_SEED``), computed bit-exactly over the packed header bytes, vectorised over
flows:

* ``crc16-bisync`` -- CRC-16 with x^16+x^15+x^2+1 (0x8005), reflected (BISYNC, "CRC-16/ARC" in the reveng
  catalogue; check value of "123456789" = 0xBB3D); the seed is the initial register.
* ``crc16-ccitt`` -- CRC-16 with x^16+x^12+x^5+1 (0x1021), MSB first (ITU-T V.41); the seed is the initial
  register (Python's ``binascii.crc_hqx(data, seed)`` computes the same, which the tests use as the oracle).
* ``crc32-lo`` / ``crc32-hi`` -- the low / high 16 bits of the IEEE 802.3 CRC-32 (``zlib.crc32(data, seed)``).
* ``xor16`` -- the XOR of the header's 16-bit words and the seed (the classic weak fold).
* ``random`` -- a keyed random oracle (splitmix64 over the fields, keyed by the seed), what Linux's
  ``fib_multipath_hash_policy`` with ``fib_multipath_hash_seed`` (siphash) behaves like.

How a vendor ASIC mixes its seed in is not public; a CRC with the seed as its initial register is affine, so two
CRC tiers with different seeds differ by a constant XOR and a power-of-two group still polarises (see
docs/collective.md). ``offset`` rotates the hash before the member is taken (SAI's
``SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_OFFSET``, hash bit selection), which does decorrelate tiers. The member is ``hash % n``, or ``(hash % T) % n``
when the group is written into a member table of ``T`` slots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.errors import FieldError, InputError


class HashFunction:
    CRC16_BISYNC = "crc16-bisync"
    CRC16_CCITT = "crc16-ccitt"
    CRC32_LO = "crc32-lo"
    CRC32_HI = "crc32-hi"
    XOR16 = "xor16"
    RANDOM = "random"
    ALL = (CRC16_BISYNC, CRC16_CCITT, CRC32_LO, CRC32_HI, XOR16, RANDOM)
    WIDTH = {CRC16_BISYNC: 16, CRC16_CCITT: 16, CRC32_LO: 16, CRC32_HI: 16, XOR16: 16, RANDOM: 32}


class HashFields:
    """Which header a tier hashes: the packet's 5-tuple (under VXLAN the outer header, whose source port the
    ingress VTEP derived from the inner headers, RFC 7348 section 5), plus the BTH destination QP read by a UDF
    (with the inner 5-tuple), the outer header explicitly, or the inner one (SAI ``INNER_*`` fields)."""

    FIVE_TUPLE = "5-tuple"
    FIVE_TUPLE_DQP = "5-tuple+dqp"
    VXLAN_OUTER = "vxlan-outer"
    VXLAN_INNER = "vxlan-inner"
    ALL = (FIVE_TUPLE, FIVE_TUPLE_DQP, VXLAN_OUTER, VXLAN_INNER)


VXLAN_DPORT = 4789  # IANA VXLAN port (RFC 7348)
UDP = 17


@dataclass(frozen=True)
class HashConfig:
    """One switch's ECMP hashing. ``table_size``: member-table slots (None: ``hash % n``). ``dlb``: dynamic load
    balancing / flowlet switching on this switch (see simulate.py for the model)."""

    function: str = HashFunction.CRC16_CCITT
    seed: int = 0
    offset: int = 0
    fields: str = HashFields.FIVE_TUPLE
    table_size: int | None = None
    dlb: bool = False

    def problems(self, where: str) -> list[FieldError]:
        errors = []
        if self.function not in HashFunction.ALL:
            errors.append(FieldError(f"{where}.function", self.function, f"must be one of {', '.join(HashFunction.ALL)}"))
        if self.fields not in HashFields.ALL:
            errors.append(FieldError(f"{where}.fields", self.fields, f"must be one of {', '.join(HashFields.ALL)}"))
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
            errors.append(FieldError(f"{where}.seed", self.seed, "must be an integer 0..2^32-1"))
        width = HashFunction.WIDTH.get(self.function, 16)
        if not isinstance(self.offset, int) or not 0 <= self.offset < width:
            errors.append(FieldError(f"{where}.offset", self.offset, f"must be an integer 0..{width - 1}"))
        if self.table_size is not None and (not isinstance(self.table_size, int) or self.table_size < 1):
            errors.append(FieldError(f"{where}.table_size", self.table_size, "must be an integer >= 1 or null"))
        return errors

    def validate(self, where: str = "hash") -> None:
        errors = self.problems(where)
        if errors:
            raise InputError(errors)


def _reflected_table(poly: int, width: int) -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table[byte] = crc & ((1 << width) - 1)
    return table


def _msb_table(poly: int) -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ poly) if crc & 0x8000 else crc << 1
        table[byte] = crc & 0xFFFF
    return table


BISYNC_TABLE = _reflected_table(0xA001, 16)  # 0x8005 bit-reversed
CCITT_TABLE = _msb_table(0x1021)
CRC32_TABLE = _reflected_table(0xEDB88320, 32)  # 0x04C11DB7 bit-reversed (IEEE 802.3)


def pack_fields(columns: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """Header bytes, network order: ``columns`` of (values, byte width) -> (flows, bytes) uint8 matrix."""
    count = len(columns[0][0])
    total = sum(width for _values, width in columns)
    packed = np.empty((count, total), dtype=np.uint8)
    position = 0
    for values, width in columns:
        wide = values.astype(np.uint64)
        for byte in range(width):
            shift = np.uint64(8 * (width - 1 - byte))
            packed[:, position] = ((wide >> shift) & np.uint64(0xFF)).astype(np.uint8)
            position += 1
    return packed


def crc16_bisync(data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    crc = seed.astype(np.uint32) & np.uint32(0xFFFF)
    for column in range(data.shape[1]):
        crc = (crc >> np.uint32(8)) ^ BISYNC_TABLE[(crc ^ data[:, column]) & np.uint32(0xFF)]
    return crc


def crc16_ccitt(data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    crc = seed.astype(np.uint32) & np.uint32(0xFFFF)
    for column in range(data.shape[1]):
        crc = ((crc << np.uint32(8)) & np.uint32(0xFFFF)) ^ CCITT_TABLE[((crc >> np.uint32(8)) ^ data[:, column]) & np.uint32(0xFF)]
    return crc


def crc32(data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """``zlib.crc32(row, seed)`` for every row (the running value is complemented in and out, as zlib does)."""
    crc = ~seed.astype(np.uint32)
    for column in range(data.shape[1]):
        crc = (crc >> np.uint32(8)) ^ CRC32_TABLE[(crc ^ data[:, column]) & np.uint32(0xFF)]
    return ~crc


def xor16(data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    if data.shape[1] % 2:
        data = np.concatenate([data, np.zeros((data.shape[0], 1), dtype=np.uint8)], axis=1)
    words = data[:, 0::2].astype(np.uint32) << np.uint32(8) | data[:, 1::2].astype(np.uint32)
    return np.bitwise_xor.reduce(words, axis=1) ^ (seed.astype(np.uint32) & np.uint32(0xFFFF))


def splitmix64(value: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (Steele, Lea, Flood, OOPSLA 2014): a bijective 64-bit mixer."""
    with np.errstate(over="ignore"):
        z = value.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def random_oracle(data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """32 bits of a keyed mix of the header bytes (8 bytes at a time)."""
    state = splitmix64(seed.astype(np.uint64))
    padded = data
    if data.shape[1] % 8:
        padded = np.concatenate([data, np.zeros((data.shape[0], 8 - data.shape[1] % 8), dtype=np.uint8)], axis=1)
    words = np.ascontiguousarray(padded).view(">u8").astype(np.uint64)
    for column in range(words.shape[1]):
        state = splitmix64(state ^ words[:, column])
    return (state >> np.uint64(32)).astype(np.uint32)


def hash_value(function: str, data: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """The function's hash of every row of ``data`` with each row's seed (uint32 array)."""
    if function == HashFunction.CRC16_BISYNC:
        return crc16_bisync(data, seed)
    if function == HashFunction.CRC16_CCITT:
        return crc16_ccitt(data, seed)
    if function == HashFunction.CRC32_LO:
        return crc32(data, seed) & np.uint32(0xFFFF)
    if function == HashFunction.CRC32_HI:
        return crc32(data, seed) >> np.uint32(16)
    if function == HashFunction.XOR16:
        return xor16(data, seed)
    if function == HashFunction.RANDOM:
        return random_oracle(data, seed)
    raise InputError([FieldError("hash.function", function, f"must be one of {', '.join(HashFunction.ALL)}")])


def rotate(values: np.ndarray, offset: np.ndarray, width: int) -> np.ndarray:
    """Rotate ``width``-bit hashes right by each row's offset (hash bit selection)."""
    mask = np.uint64((1 << width) - 1)
    wide = values.astype(np.uint64)
    shift = offset.astype(np.uint64)
    rotated = (wide >> shift) | (wide << ((np.uint64(width) - shift) % np.uint64(width)))
    return (rotated & mask).astype(np.uint32)


def member_index(values: np.ndarray, group_size: np.ndarray, table_size: np.ndarray) -> np.ndarray:
    """``hash % n``, or ``(hash % T) % n`` where a member table of ``T`` slots is used (``T`` 0: none)."""
    values = values.astype(np.int64)
    sizes = group_size.astype(np.int64)
    tables = table_size.astype(np.int64)
    slot = np.where(tables > 0, values % np.maximum(tables, 1), values)
    return slot % sizes
