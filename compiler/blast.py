"""Blast radius of a change: which devices, tenants, networks and server ports a new intent/inventory touches.

Compares two compiled states (CompileResult, or Snapshots which are compiled to structured config here):
a device is affected when its structured config or any rendered file differs; a network when its definition
changed or its VLAN entry changed on any leaf; a tenant when its definition, VRF entries or any of its networks
changed; a server port when its own port config changed or it sits in an affected network.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.api import build_facts, structured_configs, validate_intent
from compiler.diff import structured_diff
from compiler.model import Endpoint, Snapshot
from compiler.natural import natural_key


@dataclass(frozen=True)
class BlastRadius:
    devices: tuple[str, ...]  # changed, added or removed switches
    added_devices: tuple[str, ...]
    removed_devices: tuple[str, ...]
    tenants: tuple[str, ...]
    networks: tuple[str, ...]
    server_ports: tuple[str, ...]  # "leaf1:Ethernet3" switch ports facing servers that change or carry a changed network
    changes: dict  # hostname -> [(path, old, new)] of the structured diff

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    @property
    def empty(self) -> bool:
        return not self.devices


def _structured(state) -> tuple[dict, dict | None, Snapshot]:
    if isinstance(state, Snapshot):
        validate_intent(state)
        return structured_configs(state, build_facts(state)), None, state
    return dict(state.structured), dict(state.hashes), state.snapshot


def blast_radius(old, new) -> BlastRadius:
    old_configs, old_hashes, old_snapshot = _structured(old)
    new_configs, new_hashes, new_snapshot = _structured(new)
    added = sorted(set(new_configs) - set(old_configs), key=natural_key)
    removed = sorted(set(old_configs) - set(new_configs), key=natural_key)
    changes: dict[str, list] = {}
    for host in set(old_configs) & set(new_configs):
        diff = structured_diff(old_configs[host], new_configs[host])
        hashes_differ = old_hashes is not None and new_hashes is not None and \
            old_hashes.get(host) != new_hashes.get(host)
        if diff or hashes_differ:
            changes[host] = diff
    devices = sorted(set(changes) | set(added) | set(removed), key=natural_key)

    old_intent, new_intent = old_snapshot.intent, new_snapshot.intent
    old_networks = {network.name: network for network in old_intent.networks}
    new_networks = {network.name: network for network in new_intent.networks}
    networks = {name for name in set(old_networks) | set(new_networks) if old_networks.get(name) != new_networks.get(name)}
    old_tenants = {tenant.name: tenant for tenant in old_intent.tenants}
    new_tenants = {tenant.name: tenant for tenant in new_intent.tenants}
    tenants = {name for name in set(old_tenants) | set(new_tenants) if old_tenants.get(name) != new_tenants.get(name)}
    vrf_tenant = {tenant.vrf: tenant.name for tenant in (*old_intent.tenants, *new_intent.tenants)}
    for diff in changes.values():
        for path, _old, _new in diff:
            if path.startswith("vlans["):
                networks.add(path[len("vlans["):path.index("]")])  # VLAN entries are keyed by network name
            elif path.startswith(("vrfs[", "bgp.vrfs[")):
                vrf = path[path.index("[") + 1:path.index("]")]
                if vrf in vrf_tenant:
                    tenants.add(vrf_tenant[vrf])
    for name in networks:
        network = new_networks.get(name) or old_networks.get(name)
        if network is not None:  # a changed VLAN entry names a network of the old or the new intent
            tenants.add(network.tenant)
    changed_vlans = {n.vlan_id for name in networks for n in (old_networks.get(name), new_networks.get(name)) if n}
    server_ports = set()
    for configs, diffs in ((old_configs, changes), (new_configs, changes)):
        for host, config in configs.items():
            host_paths = {path.split("]")[0] + "]" for path, _o, _n in diffs.get(host, ()) if path.startswith("interfaces[")}
            for interface in config["interfaces"]:
                if interface["kind"] != "server":
                    continue
                vlans = {interface["access_vlan"], *interface["trunk_vlans"]}
                if f"interfaces[{interface['name']}]" in host_paths or vlans & changed_vlans or host in added:
                    server_ports.add(str(Endpoint(host, interface["name"])))
    return BlastRadius(
        devices=tuple(devices), added_devices=tuple(added), removed_devices=tuple(removed),
        tenants=tuple(sorted(tenants, key=natural_key)), networks=tuple(sorted(networks, key=natural_key)),
        server_ports=tuple(sorted(server_ports, key=natural_key)), changes=changes,
    )

