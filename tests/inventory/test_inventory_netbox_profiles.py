"""NetBox 4.5+ cable profiles (issue 26): inventory/netbox_profiles.py against NetBox's own definitions (a copy of
netbox/dcim/cable_profiles.py v4.6.8 in fixtures/netbox-cable-profiles/, read as text), position by position."""

import ast
import re
from pathlib import Path

from inventory.netbox_profiles import PROFILES

NETBOX = Path(__file__).parent / "fixtures" / "netbox-cable-profiles"


def _netbox_profiles() -> dict[str, dict]:
    """slug -> {a_connectors, b_connectors, _mapping | _a_mapping/_b_mapping} as NetBox's classes define them."""
    classes = {}
    for node in ast.parse((NETBOX / "cable_profiles.py.txt").read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name != "BaseCableProfile":
            attrs: dict = {}
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    name = statement.targets[0].id
                    value = statement.value
                    attrs[name] = attrs[value.id] if isinstance(value, ast.Name) else ast.literal_eval(value)
            classes[node.name] = attrs
    slugs = dict(re.findall(r"^\s+([A-Z0-9_]+) = '([a-z0-9-]+)'", (NETBOX / "profile_choices.py.txt").read_text(), re.M))
    pairs = re.findall(r"CableProfileChoices\.([A-Z0-9_]+): cable_profiles\.(\w+)",
                       (NETBOX / "profile_class.py.txt").read_text())
    return {slugs[choice]: classes[name] for choice, name in pairs}


def _netbox_mapped(attrs: dict, side: str, connector: int, position: int):
    """BaseCableProfile.get_mapped_position (and the shuffle breakout's override), on the parsed attributes."""
    if "_a_mapping" in attrs:
        return attrs["_a_mapping" if side == "a" else "_b_mapping"].get((connector, position))
    if attrs.get("_mapping"):
        return attrs["_mapping"].get((connector, position))
    return connector, position


def test_every_netbox_profile_is_read_and_pairs_like_netbox():
    netbox = _netbox_profiles()
    assert len(netbox) == 26 and "breakout-1c2p-2c1p" in netbox and "breakout-2c4p-8c1p-shuffle" in netbox
    assert set(PROFILES) == set(netbox)
    checked = 0
    for slug, attrs in netbox.items():
        ours = PROFILES[slug]
        assert ours.a_connectors == attrs["a_connectors"] and ours.b_connectors == attrs["b_connectors"], slug
        for side, connectors in (("a", attrs["a_connectors"]), ("b", attrs["b_connectors"])):
            for connector, count in connectors.items():
                for position in range(1, count + 1):
                    assert ours.mapped(side, connector, position) == _netbox_mapped(attrs, side, connector,
                                                                                   position), (slug, side)
                    checked += 1
    assert checked > 300


def test_breakout_pairs_the_single_connector_with_each_lane():
    profile = PROFILES["breakout-1c2p-2c1p"]
    assert profile.mapped("a", 1, 2) == (2, 1) and profile.mapped("b", 2, 1) == (1, 2)
    assert profile.mapped("a", 1, 3) is None  # a position the profile does not have pairs with nothing
    shuffle = PROFILES["breakout-2c4p-8c1p-shuffle"]
    assert shuffle.mapped("a", 1, 3) == (5, 1) and shuffle.mapped("b", 5, 1) == (1, 3)
