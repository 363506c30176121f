"""<Model>FilterSet for every inventory model (django-filter): exact and contains lookups on names, FKs by id."""

import django_filters

from common.api_limits import BaseFilterSet, StrictBooleanFilter

from ..models import (
    Cable,
    Fabric,
    Interface,
    NetboxSync,
    NicPort,
    Optic,
    Platform,
    Rack,
    Server,
    Site,
    Switch,
    SwitchModel,
)

_NAME = ["exact", "icontains"]


class SiteFilterSet(BaseFilterSet):
    class Meta:
        model = Site
        fields = {"name": _NAME}


class FabricFilterSet(BaseFilterSet):
    class Meta:
        model = Fabric
        fields = {"name": _NAME, "site": ["exact"]}


class RackFilterSet(BaseFilterSet):
    class Meta:
        model = Rack
        fields = {"name": _NAME, "site": ["exact"], "fabric": ["exact"], "row": ["exact"]}


class SwitchModelFilterSet(BaseFilterSet):
    class Meta:
        model = SwitchModel
        fields = {"name": _NAME, "vendor": _NAME, "form_factor": ["exact"], "max_speed_gbps": ["exact", "gte"]}


class PlatformFilterSet(BaseFilterSet):
    class Meta:
        model = Platform
        fields = {"slug": ["exact"], "name": _NAME}


class SwitchFilterSet(BaseFilterSet):
    fabric_name = django_filters.CharFilter(field_name="fabric__name")

    class Meta:
        model = Switch
        fields = {"hostname": _NAME, "fabric": ["exact"], "role": ["exact"], "plane": ["exact"], "rack": ["exact"],
                  "model": ["exact"], "platform": ["exact"], "status": ["exact"], "mgmt_ip": ["exact"],
                  "serial": ["exact"]}


class InterfaceFilterSet(BaseFilterSet):
    hostname = django_filters.CharFilter(field_name="switch__hostname")
    cabled = StrictBooleanFilter(field_name="cable", lookup_expr="isnull", exclude=True)

    class Meta:
        model = Interface
        fields = {"switch": ["exact"], "name": _NAME, "speed_gbps": ["exact"], "enabled": ["exact"],
                  "breakout_parent": ["exact"], "cable": ["exact"]}


class OpticFilterSet(BaseFilterSet):
    class Meta:
        model = Optic
        fields = {"interface": ["exact"], "nic_port": ["exact"], "form_factor": ["exact"], "media": ["exact"],
                  "speed_gbps": ["exact"], "serial": ["exact"]}


class CableFilterSet(BaseFilterSet):
    class Meta:
        model = Cable
        fields = {"label": _NAME, "cable_type": ["exact"], "status": ["exact"], "peer_link": ["exact"]}


class ServerFilterSet(BaseFilterSet):
    class Meta:
        model = Server
        fields = {"name": _NAME, "fabric": ["exact"], "rack": ["exact"], "mgmt_ip": ["exact"], "serial": ["exact"]}


class NicPortFilterSet(BaseFilterSet):
    class Meta:
        model = NicPort
        fields = {"server": ["exact"], "name": _NAME, "rail": ["exact"], "speed_gbps": ["exact"]}


class NetboxSyncFilterSet(BaseFilterSet):
    class Meta:
        model = NetboxSync
        fields = {"fabric_name": _NAME, "status": ["exact"], "dry_run": ["exact"], "trigger": ["exact"]}
