"""The twin's input: a plain description of what to boot (switch nodes, cables, hosts).

It deliberately does not depend on the compiler: ``labs.from_compile`` builds one from a CompileResult, tests
write one by hand. A switch node carries exactly what the FRR platform renderer emits: ``frr.conf`` text and
the ``linux-plan.json`` dict (shape in docs/structured-config.md "Linux plan").
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import secrets
from dataclasses import asdict, dataclass, field

from compiler.errors import FieldError, InputError
from compiler.names import TWIN_PREFIX_RE

# Linux IFNAMSIZ is 16 including the trailing NUL.
MAX_IFNAME = 15
# Node names become part of netns names, FRR pathspaces and file names: keep them shell- and path-safe.
NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")  # fullmatch: "$" would accept a trailing newline
NAME_PREFIX = TWIN_PREFIX_RE  # the one twin prefix grammar (compiler.names)


def new_prefix() -> str:
    """A unique twin prefix such as ``ft3fa91c``: every namespace and FRR pathspace of the twin starts with it."""
    return "ft" + secrets.token_hex(3)


@dataclass(frozen=True, slots=True)
class TwinNode:
    """A switch: FRR config text plus the Linux plan the twin applies in its namespace."""

    name: str
    frr_conf: str
    linux_plan: dict
    role: str = "leaf"  # spine | leaf | super-spine | border (used for expected ECMP widths)
    kind: str = "switch"


@dataclass(frozen=True, slots=True)
class TwinLink:
    """A cable between two switch ports. ``mtu`` is the intended link MTU the probes expect on both ends."""

    a_node: str
    a_ifname: str
    b_node: str
    b_ifname: str
    mtu: int = 9214
    label: str = ""  # the inventory's cable label, for reports

    @property
    def subject(self) -> str:
        return f"{self.a_node}:{self.a_ifname}<->{self.b_node}:{self.b_ifname}"


@dataclass(frozen=True, slots=True)
class HostInterface:
    """A server NIC port cabled to a switch port; ``address`` is CIDR, ``gateway`` the anycast gateway or None.
    ``roce_mtu`` is the RoCE (InfiniBand) MTU the NIC's MTU allows (``compiler.host_config.roce_mtu``), 0 where
    the fabric carries no RoCE class: the live probes send RoCE-sized frames of it."""

    ifname: str
    peer_node: str
    peer_ifname: str
    address: str
    gateway: str | None = None
    mtu: int = 9000
    network: str = ""
    tenant: str = ""
    roce_mtu: int = 0


@dataclass(frozen=True, slots=True)
class TwinHost:
    name: str
    interfaces: tuple[HostInterface, ...] = ()


@dataclass(frozen=True)
class TwinTopology:
    """Everything ``labs.runtime.up`` needs. ``name_prefix`` must be unique among running twins."""

    name_prefix: str
    nodes: tuple[TwinNode, ...] = ()
    links: tuple[TwinLink, ...] = ()
    hosts: tuple[TwinHost, ...] = ()
    label: str = ""  # free text (fabric name) shown in status
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Accept lists from callers; store tuples so the topology stays immutable.
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "links", tuple(self.links))
        object.__setattr__(self, "hosts", tuple(self.hosts))

    @property
    def nodes_by_name(self) -> dict[str, TwinNode]:
        return {node.name: node for node in self.nodes}

    def netns(self, node_name: str) -> str:
        return f"{self.name_prefix}-{node_name}"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TwinTopology:
        return cls(
            name_prefix=data["name_prefix"],
            nodes=tuple(TwinNode(**node) for node in data.get("nodes", ())),
            links=tuple(TwinLink(**link) for link in data.get("links", ())),
            hosts=tuple(
                TwinHost(name=host["name"], interfaces=tuple(HostInterface(**i) for i in host.get("interfaces", ())))
                for host in data.get("hosts", ())
            ),
            label=data.get("label", ""),
            extra=data.get("extra", {}),
        )

    def digest(self) -> str:
        """Content hash: ``up`` on a running twin with the same digest is a no-op, a different one is refused."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()


def validate_topology(topology: TwinTopology) -> None:
    """Raise InputError listing every problem (field path + value) before anything is created."""
    errors: list[FieldError] = []
    if not NAME_PREFIX.fullmatch(topology.name_prefix or ""):
        errors.append(FieldError("name_prefix", topology.name_prefix, "must be 3-16 lowercase letters/digits starting with a letter"))
    names: set[str] = set()
    for index, node in enumerate(topology.nodes):
        if not NODE_NAME.fullmatch(node.name):
            errors.append(FieldError(f"nodes[{index}].name", node.name, "use letters, digits, '_', '.', '-'"))
        if node.name in names:
            errors.append(FieldError(f"nodes[{index}].name", node.name, "duplicate node name"))
        names.add(node.name)
        if not isinstance(node.linux_plan, dict):
            errors.append(FieldError(f"nodes[{node.name}].linux_plan", type(node.linux_plan).__name__, "must be a dict"))
            continue
        errors.extend(_plan_errors(node))
    for index, host in enumerate(topology.hosts):
        if not NODE_NAME.fullmatch(host.name):
            errors.append(FieldError(f"hosts[{index}].name", host.name, "use letters, digits, '_', '.', '-'"))
        if host.name in names:
            errors.append(FieldError(f"hosts[{index}].name", host.name, "name already used by another node or host"))
        names.add(host.name)
        for interface in host.interfaces:
            path = f"hosts[{host.name}].interfaces[{interface.ifname}]"
            errors.extend(_ifname_errors(f"{path}.ifname", interface.ifname))
            errors.extend(_ifname_errors(f"{path}.peer_ifname", interface.peer_ifname))
            if interface.peer_node not in topology.nodes_by_name:
                errors.append(FieldError(f"{path}.peer_node", interface.peer_node, "unknown switch node"))
            try:
                ipaddress.ip_interface(interface.address)
            except ValueError:
                errors.append(FieldError(f"{path}.address", interface.address, "not an IP address with prefix"))
            if not 68 <= interface.mtu <= 65535:
                errors.append(FieldError(f"{path}.mtu", interface.mtu, "must be 68..65535"))
    used_ports: dict[tuple[str, str], str] = {}

    def claim(node: str, ifname: str, owner: str, path: str) -> None:
        if (node, ifname) in used_ports:
            errors.append(FieldError(path, f"{node}:{ifname}", f"port already used by {used_ports[(node, ifname)]}"))
        used_ports[(node, ifname)] = owner

    # A shard (labs.shard_run) holds cables to switches on other twin hosts: those ends are named, not created.
    remote = set((topology.extra.get("shard") or {}).get("remote_switches", ()))
    for index, link in enumerate(topology.links):
        path = f"links[{index}]"
        for side, node_name, ifname in (("a", link.a_node, link.a_ifname), ("b", link.b_node, link.b_ifname)):
            if node_name not in topology.nodes_by_name and node_name not in remote:
                errors.append(FieldError(f"{path}.{side}_node", node_name, "unknown switch node"))
            errors.extend(_ifname_errors(f"{path}.{side}_ifname", ifname))
            claim(node_name, ifname, link.subject, f"{path}.{side}_ifname")
        if not 68 <= link.mtu <= 65535:
            errors.append(FieldError(f"{path}.mtu", link.mtu, "must be 68..65535"))
    for host in topology.hosts:
        for interface in host.interfaces:
            claim(interface.peer_node, interface.peer_ifname, f"{host.name}:{interface.ifname}",
                  f"hosts[{host.name}].interfaces[{interface.ifname}].peer_ifname")
    if errors:
        raise InputError(errors)


def _ifname_errors(path: str, ifname: str) -> list[FieldError]:
    if not ifname or len(ifname) > MAX_IFNAME or not re.match(r"^[A-Za-z0-9_.-]+$", ifname):
        return [FieldError(path, ifname, f"Linux interface names are 1..{MAX_IFNAME} characters [A-Za-z0-9_.-]")]
    return []


def _plan_errors(node: TwinNode) -> list[FieldError]:
    plan = node.linux_plan
    errors: list[FieldError] = []
    base = f"nodes[{node.name}].linux_plan"
    for index, link in enumerate(plan.get("links", [])):
        errors.extend(_ifname_errors(f"{base}.links[{index}].name", link.get("name", "")))
    member_of: dict[str, str] = {}
    for index, bridge in enumerate(plan.get("bridges", [])):
        errors.extend(_ifname_errors(f"{base}.bridges[{index}].name", bridge.get("name", "")))
        if bridge.get("vxlan"):
            errors.extend(_ifname_errors(f"{base}.bridges[{index}].vxlan.name", bridge["vxlan"].get("name", "")))
        for member in bridge.get("members", []):
            # A port in two bridges would be a trunk; without VLAN-filtering bridges this kernel cannot model it.
            if member in member_of:
                errors.append(FieldError(f"{base}.bridges[{index}].members", member,
                                         f"port is already a member of {member_of[member]} (trunk ports are not "
                                         "supported by the twin)"))
            member_of[member] = bridge.get("name", "")
    return errors
