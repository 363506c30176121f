"""Reads of the inventory: querysets shaped so lists cost a constant number of queries."""

from django.db.models import Prefetch, QuerySet

from .models import Cable, Fabric, Interface, NicPort, Optic, Platform, Rack, Server, Site, Switch, SwitchModel


def site_list() -> QuerySet[Site]:
    return Site.objects.all()


def fabric_list() -> QuerySet[Fabric]:
    return Fabric.objects.all()


def rack_list() -> QuerySet[Rack]:
    return Rack.objects.order_by("site_id", "name")


def switch_model_list() -> QuerySet[SwitchModel]:
    return SwitchModel.objects.all()


def platform_list() -> QuerySet[Platform]:
    return Platform.objects.all()


def switch_list() -> QuerySet[Switch]:
    return Switch.objects.all()


def interface_list() -> QuerySet[Interface]:
    return Interface.objects.select_related("switch").order_by("switch_id", "id")


def optic_list() -> QuerySet[Optic]:
    return Optic.objects.select_related("interface__switch", "nic_port__server")


def cable_list() -> QuerySet[Cable]:
    # Only what a cable's two ends print as ("leaf1:Ethernet1/1"): whole Switch/Server rows cost most of the list.
    return Cable.objects.prefetch_related(
        Prefetch("interfaces", queryset=Interface.objects.select_related("switch").only(
            "id", "name", "cable_id", "cable_end", "switch_id", "switch__hostname")),
        Prefetch("nic_ports", queryset=NicPort.objects.select_related("server").only(
            "id", "name", "cable_id", "cable_end", "server_id", "server__name")),
    )


def server_list() -> QuerySet[Server]:
    return Server.objects.all()


def nic_port_list() -> QuerySet[NicPort]:
    return NicPort.objects.select_related("server").order_by("server_id", "rail", "name")
