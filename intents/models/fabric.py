"""The fabric intent: underlay/overlay design, pools, MTU targets and BGP policy of one inventory fabric.

Fields mirror ``compiler.model.FabricIntent``, ``Pools`` and ``BgpPolicy`` one to one (defaults included), so
``intents.adapters`` copies them without translation.
"""

import ipaddress
import re

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from common import names
from common.versioning import VersionedModel
from compiler import model as core
from compiler.names import server_address_problem
from compiler.secret_refs import SECRET_REFERENCE

from ..choices import AsnSchemeChoices, RouteTargetSchemeChoices, TierHashingChoices, UnderlayChoices
from ..constants import ASN_MAX, ASN_MIN, BGP_HOLD_MIN_S, MTU_MAX, MTU_MIN, VNI_MAX, VNI_MIN

__all__ = ("FabricIntent",)

_POOLS = core.Pools()
_BGP = core.BgpPolicy()
_INTENT = core.FabricIntent(name="", inventory_fabric="")
_MANAGEMENT = core.Management()
_HASHING = core.EcmpHashing()

MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}\Z")  # \Z: "$" would accept a trailing newline


POOL_FIELDS = ("loopback_pool", "vtep_pool", "p2p_pool")
POOL_SPACE = ipaddress.IPv4Network("10.0.0.0/8")  # RFC 1918: where free pools are suggested


def pool_prefix(value) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.IPv4Network(value)
    except (ValueError, TypeError):
        return None  # the field validator names the malformed value


def free_prefix(length: int, used: list[ipaddress.IPv4Network]) -> ipaddress.IPv4Network | None:
    """The first /``length`` of 10.0.0.0/8 that overlaps none of ``used``."""
    if length < POOL_SPACE.prefixlen:
        return None
    for candidate in POOL_SPACE.subnets(new_prefix=length):
        if not any(candidate.overlaps(other) for other in used):
            return candidate
    return None


def validate_ipv4_prefix(value: str) -> None:
    try:
        ipaddress.IPv4Network(value)
    except ValueError as exc:
        raise ValidationError(f"{value!r} is not an IPv4 prefix with host bits zero ({exc})") from exc


def validate_ntp_server_list(value) -> None:
    """A JSON list of NTP servers: IP addresses or host names (compiler.names.server_address_problem)."""
    if not isinstance(value, list):
        raise ValidationError(f"expected a list of IP addresses or host names, got {value!r}")
    for item in value:
        problem = server_address_problem(item, names=True)
        if problem:
            raise ValidationError(f"{item!r} is {problem}")


def validate_ip_address_list(value) -> None:
    """A JSON list of IPv4/IPv6 addresses (management servers)."""
    if not isinstance(value, list):
        raise ValidationError(f"expected a list of IP addresses, got {value!r}")
    for item in value:
        try:
            ipaddress.ip_address(item)
        except (ValueError, TypeError) as exc:
            raise ValidationError(f"{item!r} is not an IP address") from exc


def validate_role_list(value) -> None:
    """A JSON list of switch roles (compiler.model.Role)."""
    if not isinstance(value, list):
        raise ValidationError(f"expected a list of roles, got {value!r}")
    for item in value:
        if item not in core.Role.ALL:
            raise ValidationError(f"{item!r} is not a role: one of {', '.join(core.Role.ALL)}")


def _asn_field(default: int, help_text: str) -> models.PositiveBigIntegerField:
    return models.PositiveBigIntegerField(
        default=default, validators=[MinValueValidator(ASN_MIN), MaxValueValidator(ASN_MAX)], help_text=help_text)


def _vni_field(default: int, help_text: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(
        default=default, validators=[MinValueValidator(VNI_MIN), MaxValueValidator(VNI_MAX)], help_text=help_text)


class FabricIntent(VersionedModel):
    name = models.CharField(max_length=100, unique=True, validators=[names.object_name])
    fabric = models.ForeignKey("inventory.Fabric", on_delete=models.PROTECT, related_name="intents",
                               help_text="The inventory fabric this intent configures")
    description = models.CharField(max_length=200, blank=True, validators=[names.text])
    underlay = models.CharField(max_length=16, choices=UnderlayChoices.choices, default=_INTENT.underlay)
    asn_scheme = models.CharField(max_length=16, choices=AsnSchemeChoices.choices, default=_INTENT.asn_scheme)
    route_target_scheme = models.CharField(max_length=8, choices=RouteTargetSchemeChoices.choices,
                                           default=_INTENT.route_target_scheme)
    # --- pools
    loopback_pool = models.CharField(max_length=18, default=_POOLS.loopback, validators=[validate_ipv4_prefix],
                                     help_text="Router-id loopbacks, one /32 per switch")
    vtep_pool = models.CharField(max_length=18, default=_POOLS.vtep, validators=[validate_ipv4_prefix],
                                 help_text="VTEP loopbacks, one /32 per leaf")
    p2p_pool = models.CharField(max_length=18, default=_POOLS.p2p, validators=[validate_ipv4_prefix],
                                help_text="Fabric links, one /31 per link (numbered underlay)")
    asn_first = _asn_field(_POOLS.asn_first, "First leaf ASN (RFC 6996 private range by default)")
    asn_last = _asn_field(_POOLS.asn_last, "Last leaf ASN")
    spine_asn = _asn_field(_POOLS.spine_asn, "ASN of plane-0 spines (plane p uses spine_asn + p)")
    l2vni_base = models.PositiveIntegerField(default=_POOLS.l2vni_base, validators=[MaxValueValidator(VNI_MAX)],
                                             help_text="A network's default L2VNI is l2vni_base + VLAN ID")
    l3vni_first = _vni_field(_POOLS.l3vni_first, "First L3VNI for tenants without an explicit one")
    l3vni_last = _vni_field(_POOLS.l3vni_last, "Last L3VNI")
    # --- MTU targets
    underlay_mtu = models.PositiveIntegerField(default=_INTENT.underlay_mtu,
                                               validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)])
    host_mtu = models.PositiveIntegerField(default=_INTENT.host_mtu,
                                           validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)])
    # --- BGP policy
    bgp_maximum_paths = models.PositiveSmallIntegerField(default=_BGP.maximum_paths,
                                                         validators=[MinValueValidator(1), MaxValueValidator(512)])
    bgp_keepalive_s = models.PositiveSmallIntegerField(default=_BGP.keepalive_s,
                                                       validators=[MinValueValidator(1), MaxValueValidator(21845)])
    bgp_hold_s = models.PositiveSmallIntegerField(default=_BGP.hold_s,
                                                  validators=[MinValueValidator(BGP_HOLD_MIN_S),
                                                              MaxValueValidator(65535)])
    bgp_bfd = models.BooleanField(default=_BGP.bfd)
    bgp_bfd_interval_ms = models.PositiveIntegerField(default=_BGP.bfd_interval_ms,
                                                      validators=[MinValueValidator(50), MaxValueValidator(60000)])
    bgp_bfd_multiplier = models.PositiveSmallIntegerField(default=_BGP.bfd_multiplier,
                                                          validators=[MinValueValidator(2), MaxValueValidator(255)])
    anycast_gateway_mac = models.CharField(
        max_length=17, default=_INTENT.anycast_gateway_mac,
        validators=[RegexValidator(MAC_RE, "expected a lower-case MAC like 00:1c:73:00:00:99")])
    evpn_overlay = models.BooleanField(
        default=_INTENT.evpn_overlay,
        help_text="EVPN and a VXLAN interface on every VTEP even where no tenant or network is placed "
                  "(compiler.model.FabricIntent.evpn_overlay; set by adoption when a VTEP maps no VNI)")
    # --- RoCE-aware load balancing (compiler.model.EcmpHashing; validate_intent refuses a switch that cannot
    # express a request, compiler.hardware.HASHING_CAPABILITIES)
    ecmp_tier_hashing = models.CharField(max_length=24, choices=TierHashingChoices.choices,
                                         default=_HASHING.tier_hashing,
                                         help_text="Keep tiers' ECMP hashes apart: distinct functions or seeds")
    ecmp_dest_qp_hashing = models.BooleanField(default=_HASHING.dest_qp_hashing,
                                               help_text="Hash the RoCE BTH destination QP (UDP payload UDF)")
    ecmp_dlb = models.BooleanField(default=_HASHING.dlb, help_text="Dynamic load balancing on ECMP groups")
    ecmp_roles = models.JSONField(default=list, blank=True, validators=[validate_role_list],
                                  help_text="Switch roles the hashing requests apply to (empty: every role)")
    nccl_qps_per_connection = models.PositiveSmallIntegerField(
        default=_HASHING.qps_per_connection, validators=[MinValueValidator(1), MaxValueValidator(64)],
        help_text="NCCL_IB_QPS_PER_CONNECTION in every host's nccl.env")
    # --- management plane (compiler.model.Management; structured key "management")
    management_network = models.CharField(max_length=18, default=_MANAGEMENT.network,
                                          validators=[validate_ipv4_prefix],
                                          help_text="Management subnet the switches' mgmt_ip addresses come from")
    management_gateway = models.GenericIPAddressField(protocol="IPv4", null=True, blank=True,
                                                      help_text="Default gateway of the management VRF "
                                                                "(empty: the network's last host)")
    management_vrf = models.CharField(max_length=15, default=_MANAGEMENT.vrf,
                                      validators=[RegexValidator(r"^[A-Za-z][A-Za-z0-9_-]{0,14}$",
                                                                 "1-15 characters [A-Za-z0-9_-], starting with a letter")])
    ntp_servers = models.JSONField(default=list, blank=True, validators=[validate_ntp_server_list])
    syslog_servers = models.JSONField(default=list, blank=True, validators=[validate_ip_address_list])
    dns_servers = models.JSONField(default=list, blank=True, validators=[validate_ip_address_list])
    aaa_servers = models.JSONField(default=list, blank=True, validators=[validate_ip_address_list],
                                   help_text="TACACS+ servers")
    aaa_secret_ref = models.CharField(max_length=200, blank=True,
                                      validators=[RegexValidator(SECRET_REFERENCE.pattern,
                                                                 "a reference like vault:secret/path (path characters "
                                                                 "A-Za-z0-9_./:@+=-), never the secret")],
                                      help_text="Reference to the AAA shared secret (resolved by the push driver)")
    created = models.DateTimeField(auto_now_add=True)
    last_updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("name",)
        constraints = [
            models.CheckConstraint(condition=models.Q(asn_first__lte=models.F("asn_last")),
                                   name="fabricintent_asn_range_ordered"),
            models.CheckConstraint(condition=models.Q(l3vni_first__lte=models.F("l3vni_last")),
                                   name="fabricintent_l3vni_range_ordered"),
            models.CheckConstraint(condition=models.Q(bgp_hold_s__gte=models.F("bgp_keepalive_s") * 3),
                                   name="fabricintent_hold_at_least_3x_keepalive"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        errors = {}
        if self.asn_first is not None and self.asn_last is not None and self.asn_first > self.asn_last:
            errors["asn_last"] = f"{self.asn_last} is below asn_first {self.asn_first}"
        if self.l3vni_first is not None and self.l3vni_last is not None and self.l3vni_first > self.l3vni_last:
            errors["l3vni_last"] = f"{self.l3vni_last} is below l3vni_first {self.l3vni_first}"
        if self.bgp_hold_s is not None and self.bgp_keepalive_s and self.bgp_hold_s < 3 * self.bgp_keepalive_s:
            # RFC 4271 section 10 suggests keepalive = hold / 3; less than 3 keepalives per hold time flaps.
            errors["bgp_hold_s"] = f"{self.bgp_hold_s} s is less than 3 x keepalive ({self.bgp_keepalive_s} s)"
        if self.host_mtu and self.underlay_mtu and self.host_mtu + 50 > self.underlay_mtu:
            # VXLAN over IPv4 adds 50 bytes of outer headers (RFC 7348 section 5): the underlay must carry them.
            errors["host_mtu"] = (f"{self.host_mtu} + 50 bytes of VXLAN overhead exceeds underlay_mtu "
                                  f"{self.underlay_mtu}")
        if self.anycast_gateway_mac:
            self.anycast_gateway_mac = self.anycast_gateway_mac.lower()
        if self.management_gateway and self.management_network:
            try:
                inside = ipaddress.IPv4Address(self.management_gateway) in ipaddress.IPv4Network(
                    self.management_network)
            except ValueError:
                inside = True  # the field validators report the malformed value
            if not inside:
                errors["management_gateway"] = (f"{self.management_gateway} is not inside management_network "
                                                f"{self.management_network}")
        if self.aaa_servers and not self.aaa_secret_ref:
            errors["aaa_secret_ref"] = "AAA servers need a secret reference like vault:secret/path"
        errors.update(self._pool_clashes())
        if errors:
            raise ValidationError(errors)

    def _pool_clashes(self) -> dict[str, str]:
        """Loopback, VTEP and link pools must not overlap the pools of another inventory fabric's intents:
        router IDs, VTEPs and /31s are identities wherever two fabrics meet (a shared management or border
        network, one NetBox/IPAM). Intents of the same fabric (alternative designs) may share pools."""
        if not self.fabric_id:
            return {}
        own = {name: pool_prefix(getattr(self, name)) for name in POOL_FIELDS}
        others = FabricIntent.objects.exclude(fabric_id=self.fabric_id).exclude(pk=self.pk).only(
            "name", "fabric__name", *POOL_FIELDS).select_related("fabric")
        taken = [(pool_prefix(getattr(other, name)), other) for other in others for name in POOL_FIELDS]
        taken = [(prefix, other) for prefix, other in taken if prefix is not None]
        errors = {}
        for name, prefix in own.items():
            clash = next((other for theirs, other in taken if prefix is not None and theirs.overlaps(prefix)), None)
            if clash is None:
                continue
            used = [theirs for theirs, _ in taken] + [mine for field, mine in own.items() if field != name and mine]
            free = free_prefix(prefix.prefixlen, used)
            errors[name] = (f"{prefix} overlaps the pools of intent {clash.name} (fabric {clash.fabric.name}): "
                            f"give this fabric its own pool" + (f", e.g. {free}" if free else ""))
        return errors
