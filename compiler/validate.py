"""validate_intent: every check on the intent (and the inventory it refers to) before anything is compiled.

Collects ALL problems as FieldErrors (dotted field path + offending value + what is wrong) and raises one
IntentValidationError, so an engineer fixes the whole input in one round. The compiler stages after this assume
a valid snapshot: they never re-check.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter

from compiler import platforms
from compiler.allocate import (
    MAX_VNI,
    RESERVED_ASNS,
    allocate,
    needed_counts,
    spine_asn,
    super_spine_asn,
    transit_vlan,
    usable_hosts,
)
from compiler.catalog import SWITCH_MODELS
from compiler.errors import AllocationError, FieldError, IntentValidationError
from compiler.hardware import (
    EOS_FAMILIES,
    HashFeature,
    asic_family,
    base_mac_problem,
    hashing_capabilities,
    hashing_gap,
)
from compiler.model import (
    PEER_LINK_REFUSED,
    PLATFORM_LABEL,
    Allocations,
    AsnScheme,
    EcmpHashing,
    Endpoint,
    FabricIntent,
    Inventory,
    Platform,
    Role,
    RouteTargetScheme,
    Snapshot,
    TierHashing,
    Underlay,
)
from compiler.names import VRF_NAME, name_problem, server_address_problem, snapshot_name_errors
from compiler.qos_math import VXLAN_OVERHEAD_BYTES
from compiler.secret_refs import SECRET_REFERENCE
from compiler.topology import VTEP_ROLES, server_port_of

MAX_ASN = 4294967295  # 4-byte ASN space, RFC 6793
MAC_RE = re.compile(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}")
HEADROOM_POLICIES = ("dynamic", "static")


def validate_intent(snapshot: Snapshot) -> None:
    check_intent(snapshot)


def check_intent(snapshot: Snapshot) -> Allocations:
    """validate_intent that also returns the completed allocations it had to compute (compile_fabric reuses them)."""
    errors: list[FieldError] = []
    allocations: Allocations | None = None
    inventory, intent = snapshot.inventory, snapshot.intent
    # The name grammar first (compiler.names, the same rules as the Django models): a name with a line break or
    # a "/" must never reach a renderer or a path, whatever else is wrong.
    errors.extend(snapshot_name_errors(snapshot))
    _check_inventory(inventory, intent, errors)
    _check_fabric(intent, errors)
    _check_pools(inventory, intent, errors)
    _check_management(inventory, intent, errors)
    _check_asns(inventory, intent, snapshot, errors)
    _check_tenants_and_networks(inventory, intent, snapshot, errors)
    _check_roce(intent, errors)
    _check_roce_isolation(intent, errors)
    _check_roce_on_eos(inventory, intent, errors)
    _check_ecmp_hashing(inventory, intent.ecmp_hashing, errors)
    if not errors:
        # Only a structurally valid intent can be allocated; allocation problems (exhausted or colliding
        # stored values) and checks on allocated values are reported the same way.
        try:
            allocations = allocate(inventory, intent, snapshot.allocations)
        except AllocationError as exc:
            errors.extend(exc.errors)
        else:
            _check_allocated(intent, allocations, errors)
    if errors:
        raise IntentValidationError(errors)
    assert allocations is not None  # no error: allocate() ran and returned
    return allocations


def _check_allocated(intent: FabricIntent, allocations: Allocations, errors: list[FieldError]) -> None:
    vlan_owner = {network.vlan_id: network.name for network in intent.networks}
    for tenant in intent.tenants:
        l3vni = allocations.l3vnis[tenant.name]
        transit = transit_vlan(intent, l3vni)
        # Tenant transit VLANs (symmetric IRB on platforms that need a VLAN per L3VNI) must not collide.
        if transit in vlan_owner:
            errors.append(FieldError(f"tenants[{tenant.name}].l3vni", l3vni,
                                     f"transit VLAN {transit} of this L3VNI is used by network {vlan_owner[transit]}"))
        elif not 1 <= transit <= 4094:
            errors.append(FieldError(f"tenants[{tenant.name}].l3vni", l3vni,
                                     f"L3VNI gives transit VLAN {transit} outside 1..4094: keep L3VNIs within "
                                     f"pools.l3vni_first {intent.pools.l3vni_first} + 1093"))
    if intent.route_target_scheme == RouteTargetScheme.AUTO:
        # ASN:VNI route targets: a 4-byte ASN leaves 2 bytes for the VNI (type-2 RT, RFC 5668).
        big_asns = sorted({asn for asn in allocations.asns.values() if asn > 65535})
        carried = [(f"network {n.name}", allocations.l2vnis[n.name]) for n in intent.networks]
        carried += [(f"tenant {t.name}", allocations.l3vnis[t.name]) for t in intent.tenants]
        too_big = next(((owner, vni) for owner, vni in carried if vni > 65535), None)
        if big_asns and too_big:
            errors.append(FieldError("route_target_scheme", intent.route_target_scheme,
                                     f"ASN {big_asns[0]} is 4-byte and {too_big[0]} has VNI {too_big[1]} > 65535: "
                                     "no ASN:VNI route target can carry both; use the vni scheme"))
    # Type-1 route distinguishers carry 16 bits: VNIs above 65535 use their low 16 bits and must not clash.
    low_bits: dict[int, int] = {}
    vnis = [(f"networks[{n.name}].l2vni", allocations.l2vnis[n.name]) for n in intent.networks]
    vnis += [(f"tenants[{t.name}].l3vni", allocations.l3vnis[t.name]) for t in intent.tenants]
    for field, vni in vnis:
        key = vni if vni <= 65535 else vni & 0xFFFF
        if key in low_bits and low_bits[key] != vni:
            errors.append(FieldError(field, vni, f"route distinguisher number {key} clashes with VNI {low_bits[key]} "
                                                 "(type-1 RDs carry 16 bits)"))
        low_bits.setdefault(key, vni)


def _network_or_error(value: str, field: str, errors: list[FieldError]) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.IPv4Network(value)
    except (ValueError, TypeError) as exc:
        errors.append(FieldError(field, value, f"not an IPv4 prefix without host bits ({exc})"))
        return None


def _check_inventory(inventory: Inventory, intent: FabricIntent, errors: list[FieldError]) -> None:
    switches = inventory.switches_by_name
    if len(switches) != len(inventory.switches):
        for name, count in Counter(s.hostname for s in inventory.switches).items():
            if count > 1:
                errors.append(FieldError(f"switches[{name}].hostname", name, f"hostname used by {count} switches"))
    for switch in inventory.switches:
        if switch.role not in Role.ALL:
            errors.append(FieldError(f"switches[{switch.hostname}].role", switch.role, f"must be one of {Role.ALL}"))
        if switch.platform not in Platform.ALL:
            errors.append(FieldError(f"switches[{switch.hostname}].platform", switch.platform,
                                     f"must be one of {Platform.ALL}"))
        if switch.base_mac is not None and base_mac_problem(switch.base_mac):
            errors.append(FieldError(f"switches[{switch.hostname}].base_mac", switch.base_mac,
                                     base_mac_problem(switch.base_mac) or ""))
        if intent.underlay == Underlay.UNNUMBERED and switch.platform == Platform.EOS:
            errors.append(FieldError("underlay", intent.underlay,
                                     f"unnumbered eBGP (RFC 5549) is not supported by the EOS renderer; "
                                     f"{switch.hostname} is an EOS switch: use a numbered underlay"))
    for mac, count in Counter(s.base_mac.lower() for s in inventory.switches if s.base_mac).items():
        if count > 1:
            holders = sorted(s.hostname for s in inventory.switches if (s.base_mac or "").lower() == mac)
            errors.append(FieldError(f"switches[{holders[0]}].base_mac", mac,
                                     f"base MAC used by {count} switches ({', '.join(holders[:4])}): each switch has its own"))
    _check_ports_exist(inventory, errors)
    servers = inventory.servers_by_name
    # Keyed by (device, interface): a tuple of two strings hashes in C, an Endpoint through its dataclass __hash__
    # (65,536 fabric cables at 64x1024).
    seen: dict[tuple[str, str], str] = {}
    for cable in inventory.cables:
        for end in (cable.a, cable.b):
            device, interface = end.device, end.interface
            if device in switches:
                if interface not in switches[device].interfaces_by_name:
                    errors.append(FieldError(f"cables[{cable.label}]", str(end),
                                             f"{device} has no interface {interface}"))
            elif device in servers:
                if interface not in servers[device].nics_by_name:
                    errors.append(FieldError(f"cables[{cable.label}]", str(end),
                                             f"server {device} has no NIC port {interface}"))
            else:
                errors.append(FieldError(f"cables[{cable.label}]", str(end), "unknown device"))
            key = (device, interface)
            if key in seen:
                errors.append(FieldError(f"cables[{cable.label}]", str(end), f"port already used by cable {seen[key]}"))
            seen[key] = cable.label
        roles = {inventory.role_of(cable.a.device), inventory.role_of(cable.b.device)}
        if roles <= {Role.LEAF, Role.BORDER} and not cable.peer_link and "unknown" not in roles:
            errors.append(FieldError(f"cables[{cable.label}].peer_link", cable.peer_link,
                                     "leaf-to-leaf cable must be marked as a peer link"))
        if cable.peer_link:
            # MLAG (EOS) / MC-LAG (SONiC ICCP, FRR/Linux) is not modelled on any platform: the port would become a
            # routed port with no address on EOS, a bare PORT on SONiC and an unconfigured link on FRR/Linux.
            for platform in Platform.ALL:
                ends = [end.device for end in (cable.a, cable.b)
                        if end.device in switches and switches[end.device].platform == platform]
                if ends:
                    errors.append(FieldError(f"cables[{cable.label}].peer_link", cable.peer_link,
                                             f"{PEER_LINK_REFUSED} on {PLATFORM_LABEL[platform]} switches "
                                             f"({', '.join(ends)}): remove the cable or the peer_link flag"))
        if cable.length_m < 0:
            errors.append(FieldError(f"cables[{cable.label}].length_m", cable.length_m, "must not be negative"))


def _check_ports_exist(inventory: Inventory, errors: list[FieldError]) -> None:
    """Every switch interface exists on the switch's model under its OS (compiler/platforms, one home)."""
    port_counts = {model.name: model.port_count for model in inventory.switch_models}
    for problem in platforms.inventory_port_problems(inventory.switches, port_counts):
        if problem.interface is None:
            errors.append(FieldError(f"switches[{problem.hostname}].model", problem.model, problem.message))
        else:
            errors.append(FieldError(f"switches[{problem.hostname}].interfaces", problem.interface, problem.message))


MANAGEMENT_VRF_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,14}$")  # a Linux netdev name on SONiC/FRR (IFNAMSIZ)


def _check_management(inventory: Inventory, intent: FabricIntent, errors: list[FieldError]) -> None:
    """The management plane: a network, a gateway inside it, server addresses, switch addresses inside it."""
    policy = intent.management
    network = _network_or_error(policy.network, "management.network", errors)
    if not MANAGEMENT_VRF_NAME.match(policy.vrf or ""):
        errors.append(FieldError("management.vrf", policy.vrf, "expected 1-15 characters [A-Za-z0-9_-], "
                                                               "starting with a letter (a Linux netdev name)"))
    if policy.gateway is not None:
        try:
            gateway = ipaddress.IPv4Address(policy.gateway)
        except ValueError:
            errors.append(FieldError("management.gateway", policy.gateway, "not an IPv4 address"))
        else:
            if network is not None and gateway not in network:
                errors.append(FieldError("management.gateway", policy.gateway, f"not inside {policy.network}"))
    for name in ("ntp_servers", "syslog_servers", "dns_servers", "aaa_servers"):
        for server in getattr(policy, name):
            problem = server_address_problem(server, names=name == "ntp_servers")  # pool.ntp.org is common
            if problem:
                errors.append(FieldError(f"management.{name}", server, problem))
    if policy.aaa_servers and not SECRET_REFERENCE.match(policy.aaa_secret_ref or ""):
        errors.append(FieldError("management.aaa_secret_ref", policy.aaa_secret_ref,
                                 "AAA servers need a secret reference like 'vault:secret/path' (never the secret; path "
                                 "characters A-Za-z0-9_./:@+=-, so the marker a config carries stays one token)"))
    if network is None:
        return
    gateway_host = policy.gateway_address()
    for switch in inventory.switches:
        if not switch.mgmt_ip:
            continue
        try:
            address = ipaddress.IPv4Address(switch.mgmt_ip.split("/")[0])
        except ValueError:
            errors.append(FieldError(f"switches[{switch.hostname}].mgmt_ip", switch.mgmt_ip, "not an IPv4 address"))
            continue
        if address not in network or address in (network.network_address, network.broadcast_address):
            errors.append(FieldError(f"switches[{switch.hostname}].mgmt_ip", switch.mgmt_ip,
                                     f"not a host address of management.network {policy.network}"))
        elif str(address) == gateway_host:
            errors.append(FieldError(f"switches[{switch.hostname}].mgmt_ip", switch.mgmt_ip,
                                     "is the management gateway (management.gateway, default the network's last "
                                     "host): a switch cannot route through itself"))


def _check_fabric(intent: FabricIntent, errors: list[FieldError]) -> None:
    if intent.underlay not in Underlay.ALL:
        errors.append(FieldError("underlay", intent.underlay, f"must be one of {Underlay.ALL}"))
    if intent.asn_scheme not in AsnScheme.ALL:
        errors.append(FieldError("asn_scheme", intent.asn_scheme, f"must be one of {AsnScheme.ALL}"))
    if intent.route_target_scheme not in RouteTargetScheme.ALL:
        errors.append(FieldError("route_target_scheme", intent.route_target_scheme,
                                 f"must be one of {RouteTargetScheme.ALL}"))
    if not 1280 <= intent.underlay_mtu <= 9216:
        errors.append(FieldError("underlay_mtu", intent.underlay_mtu, "must be 1280..9216"))
    if not 576 <= intent.host_mtu <= 9216:
        errors.append(FieldError("host_mtu", intent.host_mtu, "must be 576..9216"))
    if intent.host_mtu + VXLAN_OVERHEAD_BYTES > intent.underlay_mtu:
        errors.append(FieldError("host_mtu", intent.host_mtu,
                                 f"host MTU + {VXLAN_OVERHEAD_BYTES} bytes VXLAN overhead (RFC 7348) = "
                                 f"{intent.host_mtu + VXLAN_OVERHEAD_BYTES} exceeds underlay_mtu {intent.underlay_mtu}"))
    bgp = intent.bgp
    if not 1 <= bgp.maximum_paths <= 1024:
        errors.append(FieldError("bgp.maximum_paths", bgp.maximum_paths, "must be 1..1024"))
    if bgp.hold_s != 0 and (bgp.hold_s < 3 or bgp.keepalive_s >= bgp.hold_s):
        errors.append(FieldError("bgp.hold_s", bgp.hold_s,
                                 f"hold time must be 0 or >= 3 s and above keepalive {bgp.keepalive_s} s (RFC 4271)"))
    if bgp.keepalive_s < 0:
        errors.append(FieldError("bgp.keepalive_s", bgp.keepalive_s, "must not be negative"))
    if bgp.bfd and (bgp.bfd_interval_ms < 50 or not 1 <= bgp.bfd_multiplier <= 255):
        errors.append(FieldError("bgp.bfd_interval_ms", bgp.bfd_interval_ms,
                                 "BFD interval must be >= 50 ms and multiplier 1..255"))
    mac = intent.anycast_gateway_mac
    if not MAC_RE.fullmatch(mac or ""):
        errors.append(FieldError("anycast_gateway_mac", mac, "not a MAC address aa:bb:cc:dd:ee:ff"))
    elif int(mac[:2], 16) & 1:
        errors.append(FieldError("anycast_gateway_mac", mac, "must be a unicast MAC (group bit of octet 1 set)"))


def _check_pools(inventory: Inventory, intent: FabricIntent, errors: list[FieldError]) -> None:
    pools = intent.pools
    needed = needed_counts(inventory, intent)
    parsed = {}
    for name in ("loopback", "vtep", "p2p"):
        network = _network_or_error(getattr(pools, name), f"pools.{name}", errors)
        if network is not None:
            parsed[name] = network
    for name, kind in (("loopback", "router-id loopbacks"), ("vtep", "VTEP loopbacks")):
        if name in parsed:
            first, last = usable_hosts(getattr(pools, name))
            available = max(last - first + 1, 0)
            if needed[name] > available:
                errors.append(FieldError(f"pools.{name}", getattr(pools, name),
                                         f"too small for {kind}: {needed[name]} addresses needed, {available} available"))
    if "p2p" in parsed and needed["p2p"] > parsed["p2p"].num_addresses // 2:
        errors.append(FieldError("pools.p2p", pools.p2p, f"too small for fabric links: {needed['p2p']} /31s needed, "
                                                         f"{parsed['p2p'].num_addresses // 2} available"))
    names = list(parsed)
    for index, first_pool in enumerate(names):
        for second_pool in names[index + 1:]:
            if parsed[first_pool].overlaps(parsed[second_pool]):
                errors.append(FieldError(f"pools.{second_pool}", getattr(pools, second_pool),
                                         f"overlaps pools.{first_pool} {getattr(pools, first_pool)}"))
    if not 1 <= pools.l2vni_base <= MAX_VNI:
        errors.append(FieldError("pools.l2vni_base", pools.l2vni_base, f"must be 1..{MAX_VNI}"))
    for field in ("l3vni_first", "l3vni_last"):
        value = getattr(pools, field)
        if not 1 <= value <= MAX_VNI:
            errors.append(FieldError(f"pools.{field}", value, f"VNI must be 1..{MAX_VNI}"))
    if pools.l3vni_first > pools.l3vni_last:
        errors.append(FieldError("pools.l3vni_last", pools.l3vni_last, f"below l3vni_first {pools.l3vni_first}"))
    elif needed["l3vni"] > pools.l3vni_last - pools.l3vni_first + 1:
        errors.append(FieldError("pools.l3vni_last", pools.l3vni_last,
                                 f"L3VNI range too small: {needed['l3vni']} needed, "
                                 f"{pools.l3vni_last - pools.l3vni_first + 1} available"))


def _asn_problem(asn: int) -> str | None:
    if not isinstance(asn, int) or not 1 <= asn <= MAX_ASN:
        return f"ASN must be 1..{MAX_ASN}"
    if asn in RESERVED_ASNS:
        return "reserved ASN (0: RFC 7607, 23456: AS_TRANS RFC 6793, 65535/4294967295: RFC 7300)"
    return None


def _check_asns(inventory: Inventory, intent: FabricIntent, snapshot: Snapshot, errors: list[FieldError]) -> None:
    pools = intent.pools
    for field in ("asn_first", "asn_last", "spine_asn"):
        problem = _asn_problem(getattr(pools, field))
        if problem:
            errors.append(FieldError(f"pools.{field}", getattr(pools, field), problem))
    if pools.asn_first > pools.asn_last:
        errors.append(FieldError("pools.asn_last", pools.asn_last, f"below asn_first {pools.asn_first}"))
        return
    core = {spine_asn(intent, s.plane, s.pod): s.hostname for s in inventory.switches if s.role == Role.SPINE}
    if any(s.role == Role.SUPER_SPINE for s in inventory.switches):
        core[super_spine_asn(intent)] = "super-spines"
    for asn, owner in sorted(core.items()):
        problem = _asn_problem(asn)
        if problem:
            errors.append(FieldError("pools.spine_asn", pools.spine_asn, f"{owner} would get ASN {asn}: {problem}"))
        elif pools.asn_first <= asn <= pools.asn_last:
            errors.append(FieldError("pools.spine_asn", pools.spine_asn,
                                     f"{owner} ASN {asn} lies inside the leaf range {pools.asn_first}-{pools.asn_last}"))
    stored = snapshot.allocations.asns
    usable = (pools.asn_last - pools.asn_first + 1
              - sum(1 for asn in RESERVED_ASNS | set(core) if pools.asn_first <= asn <= pools.asn_last))
    needed = needed_counts(inventory, intent)["asn"]
    if needed > usable:
        errors.append(FieldError("pools.asn_first", pools.asn_first,
                                 f"ASN range {pools.asn_first}-{pools.asn_last} too small: {needed} ASNs needed, "
                                 f"{usable} usable"))
    for name, asn in stored.items():
        problem = _asn_problem(asn)
        if problem:
            errors.append(FieldError(f"allocations.asns[{name}]", asn, problem))


def _check_tenants_and_networks(inventory: Inventory, intent: FabricIntent, snapshot: Snapshot,
                                errors: list[FieldError]) -> None:
    pools = intent.pools
    tenants = {}
    vrf_owner: dict[str, str] = {}
    for tenant in intent.tenants:
        field = f"tenants[{tenant.name}]"
        if tenant.name in tenants:
            errors.append(FieldError(f"{field}.name", tenant.name, "duplicate tenant name"))
        tenants[tenant.name] = tenant
        if name_problem(VRF_NAME, tenant.vrf):
            pass  # reported by snapshot_name_errors (compiler.names), reserved names included
        elif tenant.vrf in vrf_owner:
            errors.append(FieldError(f"{field}.vrf", tenant.vrf, f"VRF already used by tenant {vrf_owner[tenant.vrf]}"))
        vrf_owner.setdefault(tenant.vrf, tenant.name)
        if tenant.l3vni is not None and not 1 <= tenant.l3vni <= MAX_VNI:
            errors.append(FieldError(f"{field}.l3vni", tenant.l3vni, f"VNI must be 1..{MAX_VNI}"))

    vni_owner: dict[int, str] = {}

    def claim_vni(vni: int, owner: str, field: str) -> None:
        if vni in vni_owner:
            errors.append(FieldError(field, vni, f"duplicate VNI: already used by {vni_owner[vni]}"))
        else:
            vni_owner[vni] = owner

    stored = snapshot.allocations
    for tenant in intent.tenants:
        l3vni = tenant.l3vni if tenant.l3vni is not None else stored.l3vnis.get(tenant.name)
        if l3vni is not None and 1 <= l3vni <= MAX_VNI:
            claim_vni(l3vni, f"tenant {tenant.name}", f"tenants[{tenant.name}].l3vni")

    vtep_hosts = {s.hostname for s in inventory.switches if s.role in VTEP_ROLES}
    infra = {}
    for name in ("loopback", "vtep", "p2p"):
        try:
            infra[name] = ipaddress.IPv4Network(getattr(pools, name))
        except ValueError:
            pass
    network_names: set[str] = set()
    vlan_vni: dict[int, tuple[int, str]] = {}
    subnets: list[tuple[ipaddress.IPv4Network, str, str]] = []  # (subnet, vrf, network name)
    port_owner: dict[Endpoint, tuple[str, str]] = {}  # NIC port -> (network, tenant) that has it as an access port
    for network in intent.networks:
        field = f"networks[{network.name}]"
        if network.name in network_names:
            errors.append(FieldError(f"{field}.name", network.name, "duplicate network name"))
        network_names.add(network.name)
        network_tenant = tenants.get(network.tenant)
        if network_tenant is None:
            errors.append(FieldError(f"{field}.tenant", network.tenant, "unknown tenant"))
        if not isinstance(network.vlan_id, int) or not 1 <= network.vlan_id <= 4094:
            errors.append(FieldError(f"{field}.vlan_id", network.vlan_id, "VLAN must be 1..4094 (IEEE 802.1Q)"))
            vlan_ok = False
        else:
            vlan_ok = True
        vni = network.l2vni
        if vni is None:
            vni = stored.l2vnis.get(network.name, pools.l2vni_base + (network.vlan_id if vlan_ok else 0))
        if not 1 <= vni <= MAX_VNI:
            errors.append(FieldError(f"{field}.l2vni", vni, f"VNI must be 1..{MAX_VNI}"))
        else:
            claim_vni(vni, f"network {network.name}", f"{field}.l2vni")
        if vlan_ok:
            if network.vlan_id in vlan_vni and vlan_vni[network.vlan_id][0] != vni:
                other_vni, other = vlan_vni[network.vlan_id]
                errors.append(FieldError(f"{field}.vlan_id", network.vlan_id,
                                         f"VLAN reused with a different VNI: network {other} maps it to {other_vni}, "
                                         f"this network to {vni}"))
            vlan_vni.setdefault(network.vlan_id, (vni, network.name))
        subnet = _network_or_error(network.subnet, f"{field}.subnet", errors)
        if subnet is not None:
            vrf = network_tenant.vrf if network_tenant else network.tenant
            for other_subnet, other_vrf, other_name in subnets:
                if other_vrf == vrf and subnet.overlaps(other_subnet):
                    errors.append(FieldError(f"{field}.subnet", network.subnet,
                                             f"overlaps network {other_name} {other_subnet} in VRF {vrf}"))
            subnets.append((subnet, vrf, network.name))
            for pool_name, pool in infra.items():
                if subnet.overlaps(pool):
                    errors.append(FieldError(f"{field}.subnet", network.subnet,
                                             f"overlaps infrastructure pool pools.{pool_name} {pool}"))
            if network.gateway is not None:
                try:
                    gateway = ipaddress.IPv4Address(network.gateway)
                except ValueError:
                    errors.append(FieldError(f"{field}.gateway", network.gateway, "not an IPv4 address"))
                else:
                    if gateway not in subnet:
                        errors.append(FieldError(f"{field}.gateway", network.gateway,
                                                 f"gateway not inside subnet {subnet}"))
                    elif subnet.prefixlen < 31 and gateway in (subnet.network_address, subnet.broadcast_address):
                        errors.append(FieldError(f"{field}.gateway", network.gateway,
                                                 f"gateway is the network or broadcast address of {subnet}"))
        for leaf in network.leaves:
            if leaf not in vtep_hosts:
                errors.append(FieldError(f"{field}.leaves", leaf, "unknown leaf (no leaf or border switch of this name)"))
        for nic in network.attachments:
            owner = port_owner.setdefault(nic, (network.name, network.tenant))
            if owner[1] != network.tenant:
                # A second network on a NIC port turns its leaf port into a trunk without a native VLAN: across
                # tenants that hands tenant B's VLAN to tenant A's host. A port belongs to one tenant.
                errors.append(FieldError(f"{field}.attachments", str(nic),
                                         f"already an access port of network {owner[0]} of tenant {owner[1]}: "
                                         "detach it there first (a NIC port belongs to one tenant)"))
            server = inventory.servers_by_name.get(nic.device)
            if server is None or nic.interface not in server.nics_by_name:
                errors.append(FieldError(f"{field}.attachments", str(nic), "unknown server NIC port"))
                continue
            port = server_port_of(inventory, nic)
            if port is None or port.device not in vtep_hosts:
                errors.append(FieldError(f"{field}.attachments", str(nic), "NIC port is not cabled to a leaf"))
            elif network.leaves and port.device not in network.leaves:
                errors.append(FieldError(f"{field}.attachments", str(nic),
                                         f"NIC port is cabled to {port.device}, which is not in the network's leaves"))


def _check_roce(intent: FabricIntent, errors: list[FieldError]) -> None:
    names: set[str] = set()
    dscp_owner: dict[int, str] = {}
    lossless_priority: dict[int, tuple[tuple[int, ...], str]] = {}
    cnp_settings: set[tuple] = set()
    for roce in intent.roce_classes:
        field = f"roce_classes[{roce.name}]"
        if roce.name in names:
            errors.append(FieldError(f"{field}.name", roce.name, "duplicate RoCE class name"))
        names.add(roce.name)
        if not roce.dscp:
            errors.append(FieldError(f"{field}.dscp", list(roce.dscp), "at least one DSCP value is needed"))
        for dscp in roce.dscp:
            if not isinstance(dscp, int) or not 0 <= dscp <= 63:
                errors.append(FieldError(f"{field}.dscp", dscp, "DSCP must be 0..63 (6-bit field, RFC 2474)"))
            elif dscp in dscp_owner and dscp_owner[dscp] != roce.name:
                errors.append(FieldError(f"{field}.dscp", dscp, f"DSCP already mapped by class {dscp_owner[dscp]}"))
            else:
                dscp_owner[dscp] = roce.name
        for attr in ("priority", "traffic_class"):
            value = getattr(roce, attr)
            if not isinstance(value, int) or not 0 <= value <= 7:
                errors.append(FieldError(f"{field}.{attr}", value, "must be 0..7 (802.1p priority / 8 queues)"))
        if roce.lossless:
            previous = lossless_priority.get(roce.priority)
            if previous and tuple(sorted(previous[0])) != tuple(sorted(roce.dscp)):
                errors.append(FieldError(f"{field}.priority", roce.priority,
                                         f"lossless priority already used by class {previous[1]} with DSCP "
                                         f"{sorted(previous[0])}, this class uses DSCP {sorted(roce.dscp)}"))
            lossless_priority.setdefault(roce.priority, (roce.dscp, roce.name))
        _check_ecn(roce, field, errors)
        if roce.cnp_dscp is not None or roce.cnp_priority is not None:
            if roce.cnp_dscp is None or not 0 <= roce.cnp_dscp <= 63:
                errors.append(FieldError(f"{field}.cnp_dscp", roce.cnp_dscp, "CNP DSCP must be 0..63"))
            if roce.cnp_priority is None or not 0 <= roce.cnp_priority <= 7:
                errors.append(FieldError(f"{field}.cnp_priority", roce.cnp_priority, "CNP priority must be 0..7"))
            cnp_settings.add((roce.cnp_dscp, roce.cnp_priority))
        if roce.headroom_policy not in HEADROOM_POLICIES:
            errors.append(FieldError(f"{field}.headroom_policy", roce.headroom_policy,
                                     f"must be one of {HEADROOM_POLICIES}"))
        elif roce.lossless and roce.headroom_policy == "static" and roce.headroom_bytes <= 0:
            errors.append(FieldError(f"{field}.headroom_bytes", roce.headroom_bytes,
                                     "static headroom policy needs a positive headroom_bytes"))
        if roce.lossless and roce.pfc_watchdog and (roce.watchdog_detect_ms <= 0 or roce.watchdog_restore_ms <= 0):
            errors.append(FieldError(f"{field}.watchdog_detect_ms", roce.watchdog_detect_ms,
                                     "PFC watchdog detect and restore times must be positive"))
    if len(cnp_settings) > 1:
        errors.append(FieldError("roce_classes.cnp_dscp", sorted(cnp_settings, key=str),
                                 "classes disagree on the CNP DSCP/priority: one CNP class per fabric"))
    for dscp, priority in cnp_settings:
        owner = next((c for c in intent.roce_classes if c.name == dscp_owner.get(dscp)), None)
        # A class that carries the CNPs (the usual "cnp" class) is right when it is lossy and on the CNP
        # priority; anything else would pause or mis-queue the congestion notifications.
        if owner is not None and (owner.lossless or owner.priority != priority):
            errors.append(FieldError(
                "roce_classes.cnp_dscp", dscp,
                f"CNP DSCP is carried by class {owner.name} (priority {owner.priority}, "
                f"{'lossless' if owner.lossless else 'lossy'}); it must be lossy on the CNP priority {priority}",
            ))
        if priority in lossless_priority:
            errors.append(FieldError("roce_classes.cnp_priority", priority,
                                     f"CNP priority is the lossless priority of class {lossless_priority[priority][1]}; "
                                     "CNPs must not be paused behind the data they throttle"))


def _check_roce_isolation(intent: FabricIntent, errors: list[FieldError]) -> None:
    """A lossy class must not share an 802.1p priority or a traffic class (= egress queue, one queue per traffic
    class, compiler.structured.qos_policy) with a lossless class: PFC pauses per priority and headroom/ECN live per
    queue, so the lossy traffic would be paused with RoCE, or RoCE would sit in a queue sized and marked as lossy
    (issue 13: storage DSCP 10, priority 3, TC 5 beside RoCE on priority 3 made RoCE silently lossy on SONiC)."""
    lossless_by_priority: dict[int, str] = {}
    lossless_by_tc: dict[int, str] = {}
    for roce in intent.roce_classes:
        if roce.lossless:
            lossless_by_priority.setdefault(roce.priority, roce.name)
            lossless_by_tc.setdefault(roce.traffic_class, roce.name)
    for roce in intent.roce_classes:
        if roce.lossless:
            continue
        field = f"roce_classes[{roce.name}]"
        owner = lossless_by_priority.get(roce.priority)
        if owner is not None:
            errors.append(FieldError(f"{field}.priority", roce.priority,
                                     f"lossy class on priority {roce.priority}, the PFC priority of lossless class "
                                     f"{owner}: its traffic would be paused with RoCE and share its headroom; give it "
                                     "a priority of its own"))
        owner = lossless_by_tc.get(roce.traffic_class)
        if owner is not None:
            errors.append(FieldError(f"{field}.traffic_class", roce.traffic_class,
                                     f"lossy class in traffic class (egress queue) {roce.traffic_class} of lossless "
                                     f"class {owner}: RoCE would share a queue with lossy traffic; give it a queue of "
                                     "its own"))
    cnp_class = next((roce for roce in intent.roce_classes if roce.cnp_dscp is not None), None)
    carried = cnp_class is not None and any(cnp_class.cnp_dscp in roce.dscp for roce in intent.roce_classes)
    if cnp_class is not None and not carried and cnp_class.cnp_priority in lossless_by_tc:
        # Without a class carrying the CNP DSCP, CNPs get a lossy traffic class numbered like the CNP priority
        # (compiler.structured.qos_policy): that must not be a lossless class's queue.
        errors.append(FieldError("roce_classes.cnp_priority", cnp_class.cnp_priority,
                                 f"CNPs get traffic class (egress queue) {cnp_class.cnp_priority}, the queue of "
                                 f"lossless class {lossless_by_tc[cnp_class.cnp_priority]}: CNPs would share a queue "
                                 "with the data they throttle"))


def _check_roce_on_eos(inventory: Inventory, intent: FabricIntent, errors: list[FieldError]) -> None:
    """EOS pauses per traffic class: `priority-flow-control priority N no-drop` makes traffic class N lossless
    (the class a packet's DSCP is mapped to), and the PFC frames it sends carry that class number. A lossless class
    whose 802.1p priority differs from its traffic class would be paused on a priority its DSCP never lands on."""
    eos_switches = [switch.hostname for switch in inventory.switches if switch.platform == Platform.EOS]
    if not eos_switches:
        return
    if intent.roce_classes:
        # The EOS queue keyword (and whether EOS exists at all) depends on the ASIC family (compiler.hardware).
        hosts_by_model: dict[str, list[str]] = {}
        for switch in inventory.switches:
            if switch.platform == Platform.EOS:
                hosts_by_model.setdefault(switch.model, []).append(switch.hostname)
        for model, hosts in hosts_by_model.items():
            spec = inventory.models_by_name.get(model) or SWITCH_MODELS.get(model)
            family = asic_family(spec) if spec else None
            if family not in EOS_FAMILIES:
                errors.append(FieldError(
                    f"switches[{hosts[0]}].model", model,
                    f"RoCE classes need the switch's ASIC family on EOS ({', '.join(EOS_FAMILIES)}); model {model} "
                    f"has ASIC {spec.asic if spec else None!r} (family {family}); {len(hosts)} EOS switch(es) use it"))
    cnp_class = next((roce for roce in intent.roce_classes if roce.cnp_dscp is not None), None)
    if cnp_class is not None and cnp_class.cnp_priority is not None:
        # CNPs get a strict-priority queue (compiler.structured.qos_policy); EOS serves strict queues from the top,
        # so that queue must be above every weighted one (`no priority` on queue N makes 0..N round-robin).
        carrier = next((roce for roce in intent.roce_classes if cnp_class.cnp_dscp in roce.dscp), None)
        cnp_tc = carrier.traffic_class if carrier else cnp_class.cnp_priority
        above = sorted({roce.traffic_class for roce in intent.roce_classes if roce.traffic_class > cnp_tc})
        if above:
            errors.append(FieldError(
                "roce_classes.cnp_priority", cnp_class.cnp_priority,
                f"CNPs (traffic class {cnp_tc}) are served strict-priority and EOS needs that queue above every "
                f"weighted queue, but traffic class(es) {above} are higher; {eos_switches[0]} is an EOS switch"))
    for roce in intent.roce_classes:
        if roce.lossless and roce.pfc_watchdog:
            # EOS watchdog timers: seconds with 2 decimals, 0.01..60 s (compiler.render.eos.WATCHDOG_TIMER_MS).
            for attr in ("watchdog_detect_ms", "watchdog_restore_ms"):
                value = getattr(roce, attr)
                if value > 0 and (value % 10 or not 10 <= value <= 60_000):
                    errors.append(FieldError(f"roce_classes[{roce.name}].{attr}", value,
                                             "EOS takes PFC watchdog timers of 10..60000 ms in steps of 10 ms "
                                             f"(seconds with 2 decimals); {eos_switches[0]} is an EOS switch"))
        if roce.lossless and roce.priority != roce.traffic_class:
            errors.append(FieldError(
                f"roce_classes[{roce.name}].priority", roce.priority,
                f"lossless class on EOS switches ({eos_switches[0]}{' ...' if len(eos_switches) > 1 else ''}) must "
                f"use its traffic class {roce.traffic_class} as PFC priority: EOS pauses the traffic class its DSCP "
                "lands on"))


# NCCL_IB_QPS_PER_CONNECTION: NCCL takes 1..128; we allow the range validators.collective.check searches (1..64).
QPS_PER_CONNECTION_RANGE = (1, 64)


def requested_hash_features(hashing: EcmpHashing) -> dict[str, tuple[str, object]]:
    """The hashing features ``hashing`` asks of every switch, each with the intent field (and value) asking."""
    wanted: dict[str, tuple[str, object]] = {}
    if hashing.tier_hashing == TierHashing.DISTINCT_FUNCTIONS:
        wanted[HashFeature.TIER_FUNCTIONS] = ("ecmp_hashing.tier_hashing", hashing.tier_hashing)
    elif hashing.tier_hashing == TierHashing.DISTINCT_SEEDS:
        wanted[HashFeature.PER_SWITCH_SEED] = ("ecmp_hashing.tier_hashing", hashing.tier_hashing)
    if hashing.dest_qp_hashing:
        wanted[HashFeature.DEST_QP_UDF] = ("ecmp_hashing.dest_qp_hashing", True)
    if hashing.dlb:
        wanted[HashFeature.DLB] = ("ecmp_hashing.dlb", True)
    return wanted


def _check_ecmp_hashing(inventory: Inventory, hashing: EcmpHashing, errors: list[FieldError]) -> None:
    """Each requested hashing feature must be renderable on every switch (compiler.hardware.HASHING_CAPABILITIES):
    a fabric half of whose tiers ignore the request would be predicted balanced and run polarized."""
    if hashing.tier_hashing not in TierHashing.ALL:
        errors.append(FieldError("ecmp_hashing.tier_hashing", hashing.tier_hashing, f"must be one of {TierHashing.ALL}"))
    low, high = QPS_PER_CONNECTION_RANGE
    qps = hashing.qps_per_connection
    if isinstance(qps, bool) or not isinstance(qps, int) or not low <= qps <= high:
        errors.append(FieldError("ecmp_hashing.qps_per_connection", qps, f"must be an integer {low}..{high}"))
    roles = hashing.roles
    if isinstance(roles, str) or not isinstance(roles, tuple | list):
        errors.append(FieldError("ecmp_hashing.roles", roles, f"expected a list of roles from {Role.ALL}"))
        return
    for role in roles:
        if role not in Role.ALL:
            errors.append(FieldError("ecmp_hashing.roles", role, f"must be one of {Role.ALL}"))
    wanted = requested_hash_features(hashing)
    if not wanted:
        return
    lacking: dict[tuple[str, str, str | None], list[str]] = {}
    for switch in inventory.switches:
        if not hashing.applies_to(switch.role):
            continue
        spec = inventory.models_by_name.get(switch.model) or SWITCH_MODELS.get(switch.model)
        family = asic_family(spec) if spec else None
        have = hashing_capabilities(switch.platform, family)
        for feature in wanted:
            if feature not in have:
                lacking.setdefault((feature, switch.platform, family), []).append(switch.hostname)
    for (feature, platform, family), hosts in lacking.items():
        field, value = wanted[feature]
        errors.append(FieldError(field, value, f"not supported on {len(hosts)} switch(es) ({hosts[0]}"
                                 f"{' ...' if len(hosts) > 1 else ''}): {hashing_gap(platform, family, feature)}"))


def _check_ecn(roce, field: str, errors: list[FieldError]) -> None:
    low, high, probability = roce.ecn_min_kb, roce.ecn_max_kb, roce.ecn_mark_probability
    if low < 0 or high < 0:
        errors.append(FieldError(f"{field}.ecn_min_kb", low, "ECN thresholds must not be negative"))
        return
    if low == 0 and high == 0:
        if probability:
            errors.append(FieldError(f"{field}.ecn_mark_probability", probability,
                                     "marking probability set but ECN thresholds are 0 (ECN off)"))
        return
    if low > high:
        errors.append(FieldError(f"{field}.ecn_min_kb", low, f"ECN minimum threshold above maximum {high} KB"))
    elif low == high and probability != 100:
        errors.append(FieldError(f"{field}.ecn_mark_probability", probability,
                                 f"ECN min == max ({low} KB) is step marking: every packet above it is marked, so the "
                                 "probability must be 100 (a lower value would be ignored by some platforms)"))
    if not 1 <= probability <= 100:
        errors.append(FieldError(f"{field}.ecn_mark_probability", probability, "must be 1..100 percent when ECN is on"))
