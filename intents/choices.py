"""Choice sets for intent fields (NetBox style: one class per field; values are the pure core's constants)."""

from django.db import models

from compiler import model as core


class UnderlayChoices(models.TextChoices):
    NUMBERED = core.Underlay.NUMBERED, "Numbered (/31 per link)"
    UNNUMBERED = core.Underlay.UNNUMBERED, "Unnumbered (IPv6 link-local, RFC 5549)"


class AsnSchemeChoices(models.TextChoices):
    PER_LEAF = core.AsnScheme.PER_LEAF, "One ASN per leaf"
    PER_RACK = core.AsnScheme.PER_RACK, "One ASN per rack"


class RouteTargetSchemeChoices(models.TextChoices):
    VNI = core.RouteTargetScheme.VNI, "<vni>:<vni> on every leaf"
    AUTO = core.RouteTargetScheme.AUTO, "Automatic <asn>:<vni>"


class TierHashingChoices(models.TextChoices):
    DEFAULT = core.TierHashing.DEFAULT, "The platform's default hash on every switch"
    DISTINCT_FUNCTIONS = core.TierHashing.DISTINCT_FUNCTIONS, "A different ECMP hash function per tier"
    DISTINCT_SEEDS = core.TierHashing.DISTINCT_SEEDS, "A different ECMP hash seed per switch"


class HeadroomPolicyChoices(models.TextChoices):
    DYNAMIC = "dynamic", "Computed per port from speed and cable length"
    STATIC = "static", "Fixed headroom_bytes"


class PlatformChoices(models.TextChoices):
    EOS = core.Platform.EOS, "Arista EOS"
    SONIC = core.Platform.SONIC, "SONiC"
    FRR = core.Platform.FRR, "FRR on Linux"


class AllocationKindChoices(models.TextChoices):
    ASN = "asn", "ASN"
    LOOPBACK = "loopback", "Router-id loopback"
    VTEP = "vtep", "VTEP loopback"
    P2P = "p2p", "Fabric link address"
    L2VNI = "l2vni", "L2VNI"
    L3VNI = "l3vni", "L3VNI"



class DiffTargetChoices(models.TextChoices):
    """What a config diff compares against (intents.selectors.diff_baselines): what the target runs."""

    AUTO = "auto", "What the switch runs: the device when a rollout deployed it, else the running twin, else the last compile"
    DEVICE = "device", "The production device (what a production rollout deployed)"
    TWIN = "twin", "The running twin (the compile each twin switch runs)"
    COMPILE = "compile", "The last successful compile"


class DeployedTargetChoices(models.TextChoices):
    """Where a DeployedConfig row's config runs (the same words as DiffTargetChoices.DEVICE / TWIN)."""

    DEVICE = "device", "A production device (a production rollout deployed it, or marked by hand)"
    TWIN = "twin", "A switch of a running twin (booted, or a twin rollout pushed it)"


class DeployedSourceChoices(models.TextChoices):
    """How a twin switch came to run its config (``DeployedConfig.source`` of a twin row)."""

    BOOT = "boot", "Booted from the compile"
    ROLLOUT = "rollout", "Pushed by a rollout"
    ROLLBACK = "rollback", "Restored by a rollout's rollback"
