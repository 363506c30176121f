"""containerlab export and engine: the same compiled fabric as a containerlab topology.

``topology_for(result)`` builds the topology (a dict that validates against containerlab's own JSON schema);
``export(result, out_dir)`` writes ``<name>.clab.yml`` plus every startup config beside it; ``deploy`` runs the
``containerlab`` binary only when it is installed, and otherwise fails saying what is missing.

Kinds: ``arista_ceos`` for EOS switches (startup config = our EOS rendering; interface names are the EOS names,
which containerlab >= 0.56 accepts as interface aliases for cEOS), ``sonic-vs`` for SONiC switches (config_db.json
as the startup config and our frr.conf bound to /etc/sonic/frr/frr.conf), ``linux`` for FRR switches (FRR image
with our frr.conf) and for GPU hosts (addresses from compiler.hosts). Links carry the cable's MTU.

Synthetic identity is the twin's alone: a SONiC rendering states ``DEVICE_METADATA.mac`` only when the inventory
knows the switch's base MAC (a real switch keeps its own), so the export gives a sonic-vs node without one a
stable, locally administered MAC of its own (:func:`twin_system_mac`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import yaml

from compiler.errors import TwinError
from compiler.hosts import host_addresses
from compiler.model import Endpoint, Platform
from compiler.names import HOSTNAME, path_component
from compiler.paths import safe_join

DEFAULT_IMAGES = {
    "arista_ceos": "ceos:4.32.2F",
    "sonic-vs": "docker-sonic-vs:latest",
    "frr": "quay.io/frrouting/frr:8.4.4",
    "host": "ghcr.io/hellt/network-multitool:latest",
}
KIND_BY_PLATFORM = {Platform.EOS: "arista_ceos", Platform.SONIC: "sonic-vs", Platform.FRR: "linux"}


def sonic_vs_ifname(index: int) -> str:
    """sonic-vs maps container interfaces eth1, eth2 ... onto its front-panel ports in port order."""
    return f"eth{index}"


def topology_for(result, *, images: dict[str, str] | None = None, config_dir: str = "configs") -> dict:
    """The containerlab topology dict for a CompileResult (see compiler.api)."""
    images = {**DEFAULT_IMAGES, **(images or {})}
    snapshot = result.snapshot
    inventory = snapshot.inventory
    nodes: dict[str, dict] = {}
    ifname_maps: dict[str, dict[str, str]] = {}

    for switch in inventory.switches:
        kind = KIND_BY_PLATFORM[switch.platform]
        base = f"{config_dir}/{switch.hostname}"
        node: dict = {"kind": kind, "labels": {"role": switch.role, "platform": switch.platform}}
        if switch.platform == Platform.EOS:
            node.update(image=images["arista_ceos"], **{"startup-config": f"{base}/startup-config"})
            ifname_maps[switch.hostname] = {i.name: i.name for i in switch.interfaces}
        elif switch.platform == Platform.SONIC:
            node.update(
                image=images["sonic-vs"], **{"startup-config": f"{base}/config_db.json"},
                binds=[f"{base}/frr.conf:/etc/sonic/frr/frr.conf"],
            )
            ifname_maps[switch.hostname] = {
                interface.name: sonic_vs_ifname(index) for index, interface in enumerate(switch.interfaces, start=1)
            }
        else:
            node.update(image=images["frr"], binds=[f"{base}/frr.conf:/etc/frr/frr.conf"])
            ifname_maps[switch.hostname] = {
                interface.name: f"eth{index}" for index, interface in enumerate(switch.interfaces, start=1)
            }
        nodes[switch.hostname] = node

    addresses = {host.endpoint: host for host in host_addresses(snapshot)}
    for server in inventory.servers:
        exec_lines = []
        ifname_maps[server.name] = {}
        for index, nic in enumerate(server.nics, start=1):
            ifname = f"eth{index}"
            ifname_maps[server.name][nic.name] = ifname
            exec_lines.append(f"ip link set {ifname} mtu {nic.mtu}")
            host = addresses.get(Endpoint(server.name, nic.name))
            if host is not None:
                exec_lines.append(f"ip addr add {host.address} dev {ifname}")
                if host.gateway:
                    exec_lines.append(f"ip route replace default via {host.gateway} dev {ifname}")
        nodes[server.name] = {"kind": "linux", "image": images["host"], "labels": {"role": "server"}}
        if exec_lines:
            nodes[server.name]["exec"] = exec_lines

    mtu_by_device = {
        hostname: {i["name"]: i["mtu"] for i in structured.get("interfaces", [])}
        for hostname, structured in result.structured.items()
    }
    links = []
    for cable in sorted(inventory.cables, key=lambda c: c.label):
        ends = []
        for end in (cable.a, cable.b):
            if end.device not in nodes:
                break
            ends.append({"node": end.device, "interface": ifname_maps[end.device][end.interface]})
        if len(ends) != 2:
            continue
        mtu = min(
            mtu_by_device.get(end.device, {}).get(end.interface, 9214)
            if end.device in mtu_by_device else _nic_mtu(inventory, end)
            for end in (cable.a, cable.b)
        )
        links.append({"type": "veth", "endpoints": ends, "mtu": mtu})

    return {"name": _lab_name(snapshot.intent.name), "topology": {"nodes": nodes, "links": links}}


def export(result, out_dir: str | Path, *, images: dict[str, str] | None = None) -> Path:
    """Write the topology file and every startup config; returns the topology file's path."""
    out = Path(out_dir)
    topology = topology_for(result, images=images)
    for switch in result.snapshot.inventory.switches:
        files = result.rendered.get(switch.hostname, {}).get(switch.platform, {})
        if not files:
            raise TwinError(f"{switch.hostname}: no {switch.platform} rendering in this compile result")
        path_component(HOSTNAME, switch.hostname, f"switches[{switch.hostname}].hostname")
        if switch.platform == Platform.SONIC and "config_db.json" in files:
            files = {**files, "config_db.json": _with_twin_mac(files["config_db.json"], switch)}
        for name, text in files.items():
            path = safe_join(out, "configs", switch.hostname, name, fields=("configs", "hostname", "file"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    path = safe_join(out, f"{topology['name']}.clab.yml", fields=("topology.name",))
    path.write_text(yaml.safe_dump(topology, sort_keys=False))
    return path


def twin_system_mac(seed: str) -> str:
    """A stable MAC for a twin node from the switch's serial (or hostname): locally administered, unicast (IEEE
    802 U/L bit set, I/G bit clear), so it never claims a vendor's address; two nodes share one only if their seeds
    collide in the first 46 bits of SHA-256. For the twin only: a real switch keeps its own base MAC."""
    digest = bytearray(hashlib.sha256(seed.encode()).digest()[:6])
    digest[0] = (digest[0] & 0xFC) | 0x02
    return ":".join(f"{byte:02x}" for byte in digest)


def _with_twin_mac(config_db: str, switch) -> str:
    """The SONiC rendering with a synthetic DEVICE_METADATA.mac when it states none (the inventory had no base
    MAC): sonic-vs boots from this file and needs one."""
    tables = json.loads(config_db)
    localhost = tables.get("DEVICE_METADATA", {}).get("localhost")
    if localhost is None or localhost.get("mac"):
        return config_db
    localhost["mac"] = twin_system_mac(switch.serial or switch.hostname)
    return json.dumps(tables, indent=4, sort_keys=True) + "\n"


def deploy(topology_file: str | Path, *, destroy: bool = False) -> str:
    """Run containerlab when it is installed; otherwise a clear error saying what is missing."""
    binary = shutil.which("containerlab") or shutil.which("clab")
    if binary is None:
        raise TwinError(
            "the containerlab engine needs the `containerlab` binary and a Docker engine; neither is installed "
            f"here. The topology was exported to {topology_file}; run `containerlab deploy -t {topology_file}` "
            "on a host that has them, or use the default netns engine (`manage.py twin up`)."
        )
    command = [binary, "destroy" if destroy else "deploy", "-t", str(topology_file)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if completed.returncode != 0:
        raise TwinError(f"containerlab {' '.join(command[1:])} failed: {completed.stderr.strip()[-2000:]}")
    return completed.stdout


def _nic_mtu(inventory, endpoint) -> int:
    server = inventory.servers_by_name.get(endpoint.device)
    nic = server.nics_by_name.get(endpoint.interface) if server else None
    return nic.mtu if nic else 1500


def _lab_name(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name).strip("-")
    return cleaned or "fabric"
