"""RoCE traffic classes: DSCP -> priority -> traffic class, lossless (PFC) or not, ECN/WRED thresholds, watchdog.

Fields mirror ``compiler.model.RoceClass`` one to one.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel
from compiler import model as core

from ..choices import HeadroomPolicyChoices
from ..constants import DSCP_MAX, DSCP_MIN, PRIORITY_MAX, PRIORITY_MIN, TRAFFIC_CLASS_MAX, TRAFFIC_CLASS_MIN

__all__ = ("RoceClass",)

_DEFAULT = core.RoceClass(name="", dscp=(), priority=0, traffic_class=0, lossless=False)


def _priority_field(**kwargs) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        validators=[MinValueValidator(PRIORITY_MIN), MaxValueValidator(PRIORITY_MAX)], **kwargs)


def validate_dscp_list(value) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError(f"expected a non-empty list of DSCP values, got {value!r}")
    for dscp in value:
        if isinstance(dscp, bool) or not isinstance(dscp, int) or not DSCP_MIN <= dscp <= DSCP_MAX:
            raise ValidationError(f"DSCP {dscp!r} is outside {DSCP_MIN}..{DSCP_MAX} (6-bit field, RFC 2474)")
    if len(set(value)) != len(value):
        raise ValidationError(f"DSCP values repeat: {value!r}")


class RoceClass(VersionedModel):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE,
                                      related_name="roce_classes")
    name = models.CharField(max_length=32, validators=[names.object_name])
    dscp = models.JSONField(validators=[validate_dscp_list], help_text="DSCP values mapped to this class, e.g. [26]")
    priority = _priority_field(help_text="802.1p / PFC priority")
    traffic_class = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(TRAFFIC_CLASS_MIN), MaxValueValidator(TRAFFIC_CLASS_MAX)],
        help_text="Switch traffic class == egress queue")
    lossless = models.BooleanField(help_text="PFC on this priority")
    ecn_min_kb = models.PositiveIntegerField(default=_DEFAULT.ecn_min_kb, help_text="ECN/WRED minimum threshold (KB)")
    ecn_max_kb = models.PositiveIntegerField(default=_DEFAULT.ecn_max_kb, help_text="ECN/WRED maximum threshold (KB)")
    ecn_mark_probability = models.PositiveSmallIntegerField(default=_DEFAULT.ecn_mark_probability,
                                                            validators=[MaxValueValidator(100)],
                                                            help_text="Marking probability at the maximum (%)")
    cnp_dscp = models.PositiveSmallIntegerField(null=True, blank=True,
                                                validators=[MinValueValidator(DSCP_MIN), MaxValueValidator(DSCP_MAX)],
                                                help_text="DSCP of DCQCN congestion notification packets")
    cnp_priority = _priority_field(null=True, blank=True)
    pfc_watchdog = models.BooleanField(default=_DEFAULT.pfc_watchdog)
    watchdog_detect_ms = models.PositiveIntegerField(default=_DEFAULT.watchdog_detect_ms,
                                                     validators=[MinValueValidator(1)])
    watchdog_restore_ms = models.PositiveIntegerField(default=_DEFAULT.watchdog_restore_ms,
                                                      validators=[MinValueValidator(1)])
    headroom_policy = models.CharField(max_length=8, choices=HeadroomPolicyChoices.choices,
                                       default=_DEFAULT.headroom_policy)
    headroom_bytes = models.PositiveIntegerField(default=_DEFAULT.headroom_bytes,
                                                 help_text="Per-port PG headroom when the policy is static")

    class Meta:
        ordering = ("fabric_intent", "priority", "name")
        verbose_name = "RoCE class"
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "name"), name="roceclass_unique_intent_name"),
            models.CheckConstraint(condition=models.Q(priority__gte=PRIORITY_MIN, priority__lte=PRIORITY_MAX),
                                   name="roceclass_priority_range"),
            models.CheckConstraint(condition=models.Q(traffic_class__gte=TRAFFIC_CLASS_MIN,
                                                      traffic_class__lte=TRAFFIC_CLASS_MAX),
                                   name="roceclass_traffic_class_range"),
            models.CheckConstraint(condition=models.Q(ecn_min_kb__lte=models.F("ecn_max_kb")),
                                   name="roceclass_ecn_min_le_max"),
            models.CheckConstraint(condition=models.Q(ecn_mark_probability__lte=100),
                                   name="roceclass_ecn_probability_range"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        errors = {}
        if self.ecn_min_kb is not None and self.ecn_max_kb is not None and self.ecn_min_kb > self.ecn_max_kb:
            errors["ecn_min_kb"] = f"{self.ecn_min_kb} KB is above ecn_max_kb {self.ecn_max_kb} KB"
        if self.headroom_policy == HeadroomPolicyChoices.STATIC and not self.headroom_bytes and self.lossless:
            errors["headroom_bytes"] = "a static headroom policy on a lossless class needs headroom_bytes > 0"
        if (self.cnp_dscp is None) != (self.cnp_priority is None):
            errors["cnp_priority"] = "cnp_dscp and cnp_priority are set together or not at all"
        if self.fabric_intent_id and self.name:
            other = RoceClass.objects.filter(fabric_intent_id=self.fabric_intent_id, name=self.name).exclude(pk=self.pk)
            if other.exists():
                errors["name"] = f"RoCE class {self.name!r} already exists in this fabric intent"
        if errors:
            raise ValidationError(errors)
