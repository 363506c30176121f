"""Serializers of the twins API: the Twin record and the inputs of its actions."""

from rest_framework import serializers

from twin.api import BriefModelSerializer

from ..choices import InjectionKindChoices
from ..models import Twin


class TwinSerializer(BriefModelSerializer):
    fabric_intent_name = serializers.CharField(source="fabric_intent.name", read_only=True)

    class Meta:
        model = Twin
        fields = ("id", "fabric_intent", "fabric_intent_name", "engine", "prefix", "status", "compile_run", "started",
                  "converged", "boot_s", "converge_s", "rss_mb", "switches", "hosts", "limitations", "error",
                  "last_report", "last_measured", "last_injection", "last_fidelity", "created", "updated")
        read_only_fields = tuple(name for name in fields if name not in ("fabric_intent", "engine"))
        validators = []  # creating the twin of an (intent, engine) that has one returns it (idempotent)


class TwinUpSerializer(serializers.Serializer):
    failover = serializers.BooleanField(default=False, help_text="also inject a link and a spine failure")


class TwinDownSerializer(serializers.Serializer):
    force = serializers.BooleanField(default=False, help_text="also remove leftovers named with the prefix")


class TwinCheckSerializer(TwinUpSerializer):
    pass


class TwinInjectSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=InjectionKindChoices.choices, default=InjectionKindChoices.LINK)
    target = serializers.CharField(required=False, allow_null=True, default=None,
                                   help_text="leaf1:Ethernet63/1 (link) or spine2 (spine); empty: the busiest uplink")


class TwinFidelitySerializer(serializers.Serializer):
    n_minus_1 = serializers.ChoiceField(choices=("sample", "all", "none"), default="sample",
                                        help_text="which static what-if failures to repeat in the twin")
