"""The base scenario of the compiler tests (a module with a unique name so tests can import it safely)."""

from __future__ import annotations

import copy

BASE_SCENARIO = {
    "clos": {"name": "t", "spines": 2, "leaves": 4, "servers_per_leaf": 2, "platform": "frr"},
    "intent": {
        "name": "t",
        "tenants": [{"name": "A", "vrf": "TENANT_A"}, {"name": "B", "vrf": "TENANT_B"}],
        "networks": [
            {"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24", "gateway": "10.10.0.1",
             "attachments": "all"},
            {"name": "net20", "tenant": "B", "vlan_id": 20, "subnet": "10.20.0.0/24", "gateway": "10.20.0.1",
             "leaves": ["leaf1", "leaf2"]},
        ],
        "roce_classes": [
            {"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
             "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10, "cnp_dscp": 48, "cnp_priority": 6},
            {"name": "bulk", "dscp": [10], "priority": 1, "traffic_class": 1, "lossless": False},
        ],
    },
}


def scenario(**changes) -> dict:
    """A deep copy of the base scenario with top-level sections updated (``intent={...}`` merges keys)."""
    data = copy.deepcopy(BASE_SCENARIO)
    for section, value in changes.items():
        if isinstance(value, dict) and section in data:
            data[section].update(value)
        else:
            data[section] = value
    return data
