"""The Linux side of a twin switch: veth cables, its linux-plan.json (sysctls, loopbacks, port MTUs/addresses,
VRFs, bridges + VXLAN, SVIs) applied at boot and as a delta on a running twin, and the hosts' addresses."""

from __future__ import annotations

import ipaddress
import json

from ..shell import ip_batch, ns_exec, parallel, run
from ..stitch import StitchPlan, create_stitched_links
from ..topology import TwinHost, TwinNode, TwinTopology
from .state import TwinState
from .vrf import add_netns_vrf, remove_netns_vrf


class LinuxBatches:
    """``ip``/``bridge`` command batches of one switch, per namespace: its own and, with netns VRFs, one per
    tenant VRF. Shared by the boot (``apply_linux_plan``) and a change (``apply_plan_delta``).

    Tenant VRFs follow the twin's backend. "kernel": VRF devices with the bridges enslaved. "netns": each VRF is
    its own namespace holding the tenant's bridges, SVIs and server ports; VXLAN devices are created in the
    switch's namespace straight into the VRF namespace (``ip link add … netns``), so their underlay socket stays in the
    switch's with the VTEP address while the device is in the VRF (how FRR's netns VRF backend expects EVPN: FRR
    topotest bgp_evpn_rt5 moves them there)."""

    def __init__(self, netns: str, backend: str, vrf_netns: dict[str, str], cabled: set[str],
                 location: dict[str, str] | None = None):
        self.netns = netns
        self.backend = backend
        self.vrf_netns = vrf_netns
        self.cabled = cabled
        self.location = location or {}  # device -> namespace it is in now (default: the switch's)
        self.ip: dict[str, list[str]] = {netns: []}
        self.bridge: dict[str, list[str]] = {netns: []}
        self.svis: dict[str, list[str]] = {}  # namespace -> SVI bridges in it
        self.moved: set[str] = set()

    def namespace_of(self, vrf: str | None) -> str:
        return self.vrf_netns.get(vrf, self.netns) if vrf and self.backend == "netns" else self.netns

    def add_vrf_device(self, vrf: dict) -> None:
        if self.backend == "kernel":
            self.ip[self.netns] += [f"link add name {vrf['name']} type vrf table {vrf['table']}",
                                    f"link set {vrf['name']} up"]

    def add_bridge(self, bridge: dict, vrf: str | None) -> None:
        target = self.namespace_of(vrf)
        if target == self.netns:
            bridge_commands(bridge, self.ip[self.netns], self.bridge[self.netns],
                            master=vrf if self.backend == "kernel" else None, cabled=self.cabled)
        else:
            target_ip = self.ip.setdefault(target, [])
            if bridge.get("vxlan"):
                # Born in the VRF namespace, never in the switch's: zebra would first see it as a VNI of the
                # default VRF and, on a running twin, keep installing its EVPN entries there ("No such device").
                self.ip[self.netns].append(vxlan_add_command(bridge["vxlan"], into_netns=target))
            members = [member for member in bridge.get("members", []) if member in self.cabled]
            for member in members:
                here = self.location.get(member, self.netns)
                if here != target:
                    self.ip.setdefault(here, []).append(f"link set dev {member} netns {target}")
                    self.moved.add(member)
            bridge_commands(bridge, target_ip, self.bridge.setdefault(target, []), master=None, cabled=self.cabled,
                            create_vxlan=False)
            target_ip.extend(f"link set dev {member} up" for member in members)  # a move sets a link down
        if bridge.get("svi"):
            self.svis.setdefault(target, []).append(bridge["name"])

    def apply(self) -> None:
        """The switch's namespace first (it creates and moves devices), then each VRF namespace."""
        for namespace in [self.netns, *(ns for ns in self.ip if ns != self.netns)]:
            ip_batch(self.ip.get(namespace, []), netns=namespace)
            ip_batch(self.bridge.get(namespace, []), netns=namespace, tool="bridge")
        for namespace, names in self.svis.items():
            # Asymmetric IRB: the anycast gateway learns host MACs from gratuitous ARP too (docs/twin-notes.md recipe).
            ns_exec(namespace, ["sysctl", "-qw", *(f"net.ipv4.conf.{name}.arp_accept=1" for name in names)])


def create_cables(topology: TwinTopology) -> None:
    """One veth pair per cable, created directly in both namespaces with the intended MTU on both ends. A
    sharded twin (``topology.extra["stitch"]``, :mod:`labs.stitch`) gets VXLAN links for its cross-host cables
    instead; every other cable is a veth pair as on one machine."""
    stitch = StitchPlan.from_dict(topology.extra["stitch"]) if topology.extra.get("stitch") else None
    stitched = stitch.stitched_indexes if stitch else set()
    commands = []
    for index, link in enumerate(topology.links):
        if index in stitched:
            continue
        commands.append(f"link add name {link.a_ifname} netns {topology.netns(link.a_node)} mtu {link.mtu} type veth "
                        f"peer name {link.b_ifname} netns {topology.netns(link.b_node)} mtu {link.mtu}")
    for host in topology.hosts:
        for interface in host.interfaces:
            commands.append(f"link add name {interface.ifname} netns {topology.netns(host.name)} mtu {interface.mtu} "
                            f"type veth peer name {interface.peer_ifname} netns {topology.netns(interface.peer_node)} "
                            f"mtu {interface.mtu}")
    ip_batch(commands)
    if stitch:  # a shard (labs.shard_run) creates only its own host's ends; the other hosts create theirs
        create_stitched_links(topology, stitch, only_host=(topology.extra.get("shard") or {}).get("host"))


def set_fabric_cables(topology: TwinTopology, updown: str) -> None:
    """Every switch-to-switch cable down or up at once: one end per cable (a veth pair carries traffic only when
    both ends are up), one ``ip -batch`` per namespace holding such ends."""
    ends: dict[str, list[str]] = {}
    here = {node.name for node in topology.nodes}
    for link in topology.links:
        # A shard's stitched cable has one end here (labs.shard_run): that one.
        node, ifname = ((link.a_node, link.a_ifname) if link.a_node in here
                        else (link.b_node, link.b_ifname))
        ends.setdefault(topology.netns(node), []).append(f"link set dev {ifname} {updown}")
    parallel(lambda item: ip_batch(item[1], netns=item[0]), sorted(ends.items()))


def apply_linux_plan(topology: TwinTopology, node: TwinNode, state: TwinState) -> None:
    """Apply the node's linux-plan.json: sysctls, loopbacks, port MTUs/addresses, VRFs, bridges + VXLAN, SVIs
    (tenant VRFs as ``LinuxBatches`` explains)."""
    netns = topology.netns(node.name)
    plan = node.linux_plan
    if plan.get("sysctls"):
        ns_exec(netns, ["sysctl", "-qw", *(f"{key}={value}" for key, value in plan["sysctls"].items())])
    cabled = cabled_ports(topology, node.name)
    vrf_netns = state.vrf_netns.get(node.name, {})
    batches = LinuxBatches(netns, state.vrf_backend, vrf_netns, cabled)
    ip_cmds = batches.ip[netns]
    ip_cmds.append("link set lo up")
    ip_cmds += [f"addr add {address} dev lo" for address in plan.get("loopback_addresses", [])]
    # A plan port without a cable has no veth to configure (an unused port on real hardware): skipped.
    for port in (port for port in plan.get("links", []) if port["name"] in cabled):
        if port.get("mtu"):
            ip_cmds.append(f"link set dev {port['name']} mtu {port['mtu']}")
        if port.get("address"):
            ip_cmds.append(f"addr add {port['address']} dev {port['name']}")
    for namespace in vrf_netns.values():
        batches.ip.setdefault(namespace, []).append("link set lo up")
    for vrf in plan.get("vrfs", []):
        batches.add_vrf_device(vrf)
        if vrf.get("bridge"):
            batches.add_bridge(vrf["bridge"], vrf["name"])
    for bridge in plan.get("bridges", []):
        batches.add_bridge(bridge, bridge.get("vrf"))
    # Every cabled port comes up, like a switch port without "shutdown"; the plan only adds MTU/address.
    ip_cmds.extend(f"link set dev {port} up" for port in sorted(cabled - batches.moved))
    batches.apply()


def apply_plan_delta(state: TwinState, node_name: str, old: dict, new: dict) -> None:
    """The Linux side of a replace on a running switch: remove what the ``old`` plan had and the ``new`` one lacks,
    (re)create what changed. Tenant VRFs follow the twin's backend (``LinuxBatches``): with netns VRFs a tenant's
    bridges live in its VRF namespace, and a VRF the new plan adds (or drops) gets its namespace created (or
    removed)."""
    netns = state.node_netns[node_name]
    cabled = cabled_ports(state.topology_obj(), node_name)
    old_bridges = {bridge["name"]: bridge for bridge in old.get("bridges", [])}
    new_bridges = {bridge["name"]: bridge for bridge in new.get("bridges", [])}
    old_bridges |= {vrf["bridge"]["name"]: {**vrf["bridge"], "vrf": vrf["name"]}
                    for vrf in old.get("vrfs", []) if vrf.get("bridge")}
    new_bridges |= {vrf["bridge"]["name"]: {**vrf["bridge"], "vrf": vrf["name"]}
                    for vrf in new.get("vrfs", []) if vrf.get("bridge")}
    old_vrfs = {vrf["name"]: vrf for vrf in old.get("vrfs", [])}
    new_vrfs = {vrf["name"]: vrf for vrf in new.get("vrfs", [])}
    # A commit interrupted by a crash may have done part of this already: act on what exists now, where it is.
    location = device_locations(state, node_name)
    deletions: dict[str, list[str]] = {}
    deleted: set[str] = set()
    for name, bridge in {**old_bridges, **new_bridges}.items():
        if old_bridges.get(name) == new_bridges.get(name):
            continue
        for device in (bridge.get("vxlan", {}).get("name"), name):
            if device and device in location and device not in deleted:
                deletions.setdefault(location[device], []).append(f"link del {device}")
                deleted.add(device)
    for name, vrf in old_vrfs.items():
        if state.vrf_backend == "kernel" and name in location and new_vrfs.get(name) != vrf:
            deletions.setdefault(location[name], []).append(f"link del {name}")
            deleted.add(name)
    for namespace, commands in deletions.items():
        ip_batch(commands, netns=namespace)
    if state.vrf_backend == "netns":
        wanted = set(new_vrfs) | {b["vrf"] for b in new.get("bridges", []) if b.get("vrf")}
        for vrf in sorted(wanted - set(state.vrf_netns.get(node_name, {}))):
            add_netns_vrf(state, node_name, vrf)
        for vrf in sorted(set(state.vrf_netns.get(node_name, {})) - wanted):
            remove_netns_vrf(state, node_name, vrf)
        location = device_locations(state, node_name)
    batches = LinuxBatches(netns, state.vrf_backend, state.vrf_netns.get(node_name, {}), cabled, location)
    ip_cmds = batches.ip[netns]
    addresses = {(entry.get("ifname"), f"{info.get('local')}/{info.get('prefixlen')}")
                 for entry in json.loads(run(["ip", "-n", netns, "-j", "addr", "show"], timeout=30).stdout or "[]")
                 for info in entry.get("addr_info", [])}
    old_loopbacks, new_loopbacks = set(old.get("loopback_addresses", [])), set(new.get("loopback_addresses", []))
    ip_cmds += [f"addr del {address} dev lo" for address in sorted(old_loopbacks - new_loopbacks)
                if ("lo", address) in addresses]
    ip_cmds += [f"addr replace {address} dev lo" for address in sorted(new_loopbacks - old_loopbacks)]
    old_ports = {port["name"]: port for port in old.get("links", [])}
    for port in new.get("links", []):
        if port["name"] not in cabled:
            continue
        before = old_ports.get(port["name"], {})
        if port.get("mtu") and port.get("mtu") != before.get("mtu"):
            # A server port may sit in a VRF namespace (netns VRFs): set it where it is.
            batches.ip.setdefault(location.get(port["name"], netns), []).append(
                f"link set dev {port['name']} mtu {port['mtu']}")
        if port.get("address") != before.get("address"):
            if before.get("address") and (port["name"], before["address"]) in addresses:
                ip_cmds.append(f"addr del {before['address']} dev {port['name']}")
            if port.get("address"):
                ip_cmds.append(f"addr replace {port['address']} dev {port['name']}")
    for name, vrf in new_vrfs.items():
        if old_vrfs.get(name) != vrf or name in deleted:
            batches.add_vrf_device(vrf)
    for name, bridge in new_bridges.items():
        if old_bridges.get(name) != bridge:
            batches.add_bridge(bridge, bridge.get("vrf"))
    batches.apply()
    if new.get("sysctls") and new.get("sysctls") != old.get("sysctls"):
        ns_exec(netns, ["sysctl", "-qw", *(f"{key}={value}" for key, value in new["sysctls"].items())])
    if any(" mtu " in command for commands in batches.ip.values() for command in commands):
        # Linux keeps learned path-MTU exceptions (net.ipv4.route.mtu_expires, 10 min) on every node that got a
        # "fragmentation needed" through this node; hardware VTEPs have no such cache. Flush them twin-wide, or
        # an MTU fixed (or rolled back) here stays broken elsewhere (docs/twin-notes.md).
        for namespace in state.namespaces:
            run(["ip", "-n", namespace, "route", "flush", "cache"], check=False)


def device_locations(state: TwinState, node_name: str) -> dict[str, str]:
    """Link name -> the namespace of this switch it is in (its own, or one of its VRF namespaces)."""
    location: dict[str, str] = {}
    for namespace in reversed(state.switch_namespaces(node_name)):
        for link in json.loads(run(["ip", "-n", namespace, "-j", "link", "show"], timeout=30).stdout or "[]"):
            location.setdefault(link.get("ifname"), namespace)
    return location


def cabled_ports(topology: TwinTopology, node_name: str) -> set[str]:
    """The switch's ports that have a cable (a veth) in the twin."""
    ports = {link.a_ifname for link in topology.links if link.a_node == node_name}
    ports |= {link.b_ifname for link in topology.links if link.b_node == node_name}
    ports |= {i.peer_ifname for host in topology.hosts for i in host.interfaces if i.peer_node == node_name}
    return ports


def vxlan_add_command(vxlan: dict, into_netns: str | None = None) -> str:
    """``ip`` command creating a VXLAN device. nolearning: EVPN owns the FDB. df set: behave like hardware, drop
    instead of fragmenting the outer packet, otherwise underlay MTU faults stay hidden (docs/twin-notes.md pitfalls).
    ``into_netns``: run in the switch's namespace, the device is born in that (VRF) namespace while its underlay
    socket stays in the switch's, with the VTEP address and the routes (netns VRF backend)."""
    where = f" netns {into_netns}" if into_netns else ""
    return (f"link add name {vxlan['name']}{where} mtu {vxlan.get('mtu', 1500)} type vxlan id {vxlan['vni']} "
            f"local {vxlan['local']} dstport {vxlan.get('dstport', 4789)} nolearning df set")


def bridge_commands(bridge: dict, ip_cmds: list[str], bridge_cmds: list[str], master: str | None,
                    cabled: set[str], create_vxlan: bool = True) -> None:
    """Append the ``ip``/``bridge`` commands for one Linux-plan bridge (its VXLAN device, cabled members, anycast
    SVI; under ``master`` when the kernel has VRFs). ``create_vxlan=False``: the VXLAN device already exists in
    the namespace (netns VRFs)."""
    name = bridge["name"]
    ip_cmds.append(f"link add name {name} type bridge stp_state 0 mcast_snooping 0")
    if bridge.get("mtu"):
        ip_cmds.append(f"link set dev {name} mtu {bridge['mtu']}")
    if master:
        ip_cmds.append(f"link set dev {name} master {master}")
    vxlan = bridge.get("vxlan")
    if vxlan:
        if create_vxlan:
            ip_cmds.append(vxlan_add_command(vxlan))
        ip_cmds += [f"link set dev {vxlan['name']} master {name}", f"link set dev {vxlan['name']} up"]
        bridge_cmds.append(f"link set dev {vxlan['name']} learning off neigh_suppress on")
    for member in (member for member in bridge.get("members", []) if member in cabled):
        ip_cmds.append(f"link set dev {member} master {name}")
    svi = bridge.get("svi")
    if svi:
        # Distributed anycast gateway: the same IP and MAC on every leaf.
        if svi.get("mac"):
            ip_cmds.append(f"link set dev {name} address {svi['mac']}")
        ip_cmds.append(f"addr add {svi['address']} dev {name}")
    ip_cmds.append(f"link set dev {name} up")


def configure_host(topology: TwinTopology, host: TwinHost) -> None:
    """A server's NIC addresses and its one default route."""
    netns = topology.netns(host.name)
    commands = ["link set lo up"]
    default_set = False
    for interface in host.interfaces:
        commands += [f"addr add {interface.address} dev {interface.ifname}", f"link set dev {interface.ifname} up"]
    for interface in host.interfaces:
        # One default route: via the first NIC that has a gateway (multi-rail hosts reach other rails locally).
        if interface.gateway and not default_set:
            commands.append(f"route add default via {interface.gateway} dev {interface.ifname}")
            default_set = True
    ip_batch(commands, netns=netns)


def vtep_of(node: TwinNode) -> str | None:
    """The node's VTEP address (the ``local`` of its VXLAN devices), None on spines."""
    for bridge in node.linux_plan.get("bridges", []):
        if bridge.get("vxlan"):
            return str(ipaddress.ip_address(bridge["vxlan"]["local"]))
    return None
