"""NetBox 4.5+ cable profiles: how the positions of one end of a cable pair with the positions of the other.

Source: netbox-community/netbox ``netbox/dcim/cable_profiles.py`` and ``Cable.profile_class`` in
``netbox/dcim/models/cables.py`` at v4.6.8 (commit 3db98de783c02038775b78f9804a95681f78eb7b; Apache-2.0). NetBox
4.5.0 introduced profiles; 4.5.x added breakout-1c2p-2c1p and 4.6 breakout-1c8p-8c1p. A copy of NetBox's file is
in tests/inventory/fixtures/netbox-cable-profiles/ and a test checks this table against it.

What NetBox defines and we mirror:
- a profile has connectors on each end (connector number -> how many positions it presents);
- ``Cable.update_terminations`` gives the i-th termination of an end (the order of ``a_terminations`` /
  ``b_terminations``, ordered by connector) connector i and every position 1..n of that connector;
- ``get_mapped_position(side, connector, position)`` gives the far (connector, position): the identity when the
  profile has no mapping, else its ``_mapping`` (both directions in one table), or per side for
  breakout-2c4p-8c1p-shuffle (``_a_mapping`` / ``_b_mapping``).
"""

from __future__ import annotations

from dataclasses import dataclass

Position = tuple[int, int]  # (connector, position)


@dataclass(frozen=True)
class CableProfile:
    slug: str
    a_connectors: dict[int, int]
    b_connectors: dict[int, int]
    mapping: dict[Position, Position] | None = None  # NetBox's _mapping (None: symmetrical, 1:1)
    a_mapping: dict[Position, Position] | None = None  # side-specific (breakout-2c4p-8c1p-shuffle)
    b_mapping: dict[Position, Position] | None = None

    def connectors(self, side: str) -> dict[int, int]:
        return self.a_connectors if side == "a" else self.b_connectors

    def mapped(self, side: str, connector: int, position: int) -> Position | None:
        """The far end's (connector, position) for this end's; None when NetBox's profile maps it nowhere."""
        if self.a_mapping is not None and self.b_mapping is not None:
            return (self.a_mapping if side == "a" else self.b_mapping).get((connector, position))
        if self.mapping is not None:
            return self.mapping.get((connector, position))
        return connector, position


def _equal(connectors: int, positions: int) -> dict[int, int]:
    return {number: positions for number in range(1, connectors + 1)}


def _single(positions: int) -> CableProfile:
    return CableProfile(f"single-1c{positions}p", _equal(1, positions), _equal(1, positions))


def _trunk(connectors: int, positions: int) -> CableProfile:
    return CableProfile(f"trunk-{connectors}c{positions}p", _equal(connectors, positions),
                        _equal(connectors, positions))


def _breakout(lanes: int) -> CableProfile:
    # Breakout1CnPxnC1P: A (1, k) <-> B (k, 1)
    mapping = {(1, k): (k, 1) for k in range(1, lanes + 1)} | {(k, 1): (1, k) for k in range(2, lanes + 1)}
    return CableProfile(f"breakout-1c{lanes}p-{lanes}c1p", _equal(1, lanes), _equal(lanes, 1), mapping=mapping)


PROFILES: dict[str, CableProfile] = {p.slug: p for p in (
    *(_single(n) for n in (1, 2, 4, 6, 8, 12, 16)),
    *(_trunk(2, n) for n in (1, 2, 4, 6, 8, 12)),
    *(_trunk(4, n) for n in (1, 2, 4, 6, 8)),
    _trunk(8, 4),
    CableProfile("trunk-2c4p-shuffle", _equal(2, 4), _equal(2, 4), mapping={
        (1, 1): (1, 1), (1, 2): (1, 2), (1, 3): (2, 1), (1, 4): (2, 2),
        (2, 1): (1, 3), (2, 2): (1, 4), (2, 3): (2, 3), (2, 4): (2, 4)}),
    CableProfile("trunk-4c4p-shuffle", _equal(4, 4), _equal(4, 4),
                 mapping={(c, p): (p, c) for c in range(1, 5) for p in range(1, 5)}),
    *(_breakout(n) for n in (2, 4, 6, 8)),
    CableProfile("breakout-2c4p-8c1p-shuffle", _equal(2, 4), _equal(8, 1),
                 a_mapping={(1, 1): (1, 1), (1, 2): (2, 1), (1, 3): (5, 1), (1, 4): (6, 1),
                            (2, 1): (3, 1), (2, 2): (4, 1), (2, 3): (7, 1), (2, 4): (8, 1)},
                 b_mapping={(1, 1): (1, 1), (2, 1): (1, 2), (3, 1): (2, 1), (4, 1): (2, 2),
                            (5, 1): (1, 3), (6, 1): (1, 4), (7, 1): (2, 3), (8, 1): (2, 4)}),
)}
