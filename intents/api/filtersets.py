"""<Model>FilterSet for the intents API (django-filter): names exact/contains, relations by id."""

import django_filters

from common.api_limits import BaseFilterSet

from ..models import Allocation, CompileRun, DeviceConfig, FabricIntent, Network, RoceClass, Tenant

_NAME = ["exact", "icontains"]


class FabricIntentFilterSet(BaseFilterSet):
    fabric = django_filters.CharFilter(field_name="fabric__name", help_text="Inventory fabric name")

    class Meta:
        model = FabricIntent
        fields = {"name": _NAME, "underlay": ["exact"], "asn_scheme": ["exact"]}


class TenantFilterSet(BaseFilterSet):
    class Meta:
        model = Tenant
        fields = {"name": _NAME, "fabric_intent": ["exact"], "vrf": ["exact"], "l3vni": ["exact"]}


class NetworkFilterSet(BaseFilterSet):
    leaf = django_filters.CharFilter(field_name="leaves__hostname", help_text="Networks explicitly on this leaf")

    class Meta:
        model = Network
        fields = {"name": _NAME, "fabric_intent": ["exact"], "tenant": ["exact"], "vlan_id": ["exact"],
                  "l2vni": ["exact"]}


class RoceClassFilterSet(BaseFilterSet):
    class Meta:
        model = RoceClass
        fields = {"name": _NAME, "fabric_intent": ["exact"], "priority": ["exact"], "lossless": ["exact"]}


class AllocationFilterSet(BaseFilterSet):
    class Meta:
        model = Allocation
        fields = {"fabric_intent": ["exact"], "kind": ["exact"], "key": ["exact", "startswith"], "value": ["exact"]}


class CompileRunFilterSet(BaseFilterSet):
    class Meta:
        model = CompileRun
        fields = {"fabric_intent": ["exact"], "status": ["exact"]}


class DeviceConfigFilterSet(BaseFilterSet):
    class Meta:
        model = DeviceConfig
        fields = {"run": ["exact"], "hostname": ["exact"], "platform": ["exact"]}
