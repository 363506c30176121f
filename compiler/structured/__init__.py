"""Structured config: one vendor-neutral dict per device, built by one module per feature.

Each feature is a function ``apply(context, switch, config)`` that fills the keys it owns in ``config``;
:data:`FEATURES` is the declared merge order (later features may annotate what earlier ones built, e.g.
roce_qos adds ``qos`` to the interfaces that interfaces_mtu created). The shape is docs/structured-config.md;
every key is present from the start (:func:`skeleton`), so consumers never guess.
"""

from __future__ import annotations

from typing import cast

from compiler.facts import FabricFacts
from compiler.model import Snapshot
from compiler.natural import natural_key
from compiler.structured import (
    base,
    ecmp_hashing,
    evpn_overlay,
    interfaces_mtu,
    management,
    roce_qos,
    underlay_bgp,
    valley_free,
    vxlan_vrf,
)
from compiler.structured.context import StructuredContext
from compiler.structured.contract import StructuredConfig

FEATURES = (
    ("base", base.apply),
    ("interfaces_mtu", interfaces_mtu.apply),
    ("underlay_bgp", underlay_bgp.apply),
    ("valley_free", valley_free.apply),
    ("evpn_overlay", evpn_overlay.apply),
    ("vxlan_vrf", vxlan_vrf.apply),
    ("roce_qos", roce_qos.apply),
    ("management", management.apply),
    ("ecmp_hashing", ecmp_hashing.apply),
)


def skeleton(hostname: str) -> StructuredConfig:
    """Every key present from the start. The identity and BGP scalars are None placeholders here, filled by the
    base and underlay_bgp features before any other feature reads them (hence the cast: a finished config has
    every value, which is what the type says)."""
    return cast(StructuredConfig, {
        "hostname": hostname, "role": None, "platform": None, "model": None, "hardware": {}, "system_mac": None,
        "asn": None, "router_id": None,
        "mtu": {}, "loopbacks": [], "interfaces": [],
        "bgp": {"asn": None, "router_id": None, "maximum_paths": None, "keepalive_s": None, "hold_s": None,
                "allowas_in": 0, "bfd": False, "peer_groups": [], "neighbors": [], "networks": [],
                "evpn": {"enabled": False, "advertise_all_vni": False}, "vrfs": []},
        "vlans": [], "vrfs": [], "vxlan": {}, "qos": {}, "management": {},
    })


def build_structured_configs(snapshot: Snapshot, facts: FabricFacts) -> dict[str, StructuredConfig]:
    context = StructuredContext.build(snapshot, facts)
    configs: dict[str, StructuredConfig] = {}
    for switch in sorted(snapshot.inventory.switches, key=lambda s: natural_key(s.hostname)):
        config = skeleton(switch.hostname)
        for _name, apply in FEATURES:
            apply(context, switch, config)
        configs[switch.hostname] = config
    return configs
