"""Reads of the inventory: querysets shaped so lists cost a constant number of queries."""

from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Concat

from .models import (
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


def site_list() -> QuerySet[Site]:
    return Site.objects.all()


def fabric_list() -> QuerySet[Fabric]:
    return Fabric.objects.select_related("site")


def fabric_choices() -> QuerySet[Fabric]:
    """Every fabric, unjoined (a form's fabric choice)."""
    return Fabric.objects.all()


def fabric_names() -> QuerySet[Fabric, str]:
    """The fabric names, for a page's fabric picker."""
    return Fabric.objects.values_list("name", flat=True)


def fabric_first() -> Fabric | None:
    """The fabric a page opens on when none is named: the first by name."""
    return Fabric.objects.order_by("name").first()


def rack_list() -> QuerySet[Rack]:
    return Rack.objects.select_related("site", "fabric").order_by("site_id", "name")


def rack_list_of_row(*, site: str, row: str) -> QuerySet[Rack]:
    """The racks of one row of a site, in position order (the row page)."""
    return Rack.objects.filter(site__name=site, row=row).select_related("site", "fabric").order_by("position", "name")


def switch_model_list() -> QuerySet[SwitchModel]:
    return SwitchModel.objects.all()


def platform_list() -> QuerySet[Platform]:
    return Platform.objects.all()


def switch_list() -> QuerySet[Switch]:
    return Switch.objects.select_related("fabric", "rack", "model", "platform")


def switch_placed_list(*, racks) -> QuerySet[Switch]:
    """The switches with a U position in these racks (rack elevations)."""
    return Switch.objects.filter(rack__in=racks).exclude(u_position=None).select_related("model")


def switch_platforms(*, fabric_id: int) -> dict[str, str]:
    """hostname -> platform slug of the fabric's switches (one query)."""
    return dict(Switch.objects.filter(fabric=fabric_id).values_list("hostname", "platform__slug"))


def switch_leaf_choices(*, fabric_id: int) -> QuerySet[Switch]:
    """The fabric's leaf and border switches by hostname: the switches a network can span (the network form)."""
    return Switch.objects.filter(fabric_id=fabric_id, role__in=("leaf", "border")).order_by("hostname")


def interface_list(*, fabric_and_optic: bool = False) -> QuerySet[Interface]:
    """``fabric_and_optic=True`` also joins the switch's fabric and the optic (the interfaces page)."""
    queryset = Interface.objects.select_related("switch", "cable").order_by("switch_id", "id")
    return queryset.select_related("switch__fabric", "optic") if fabric_and_optic else queryset


def interface_list_of_switch(*, switch: Switch) -> QuerySet[Interface]:
    """A switch's interfaces with cable, optic and both cable ends (the switch page)."""
    return switch.interfaces.select_related("cable", "optic").prefetch_related(
        "cable__interfaces__switch", "cable__nic_ports__server")


def interface_speeds() -> QuerySet[Interface]:
    """The distinct interface speeds (Gb/s), for a filter."""
    return Interface.objects.values_list("speed_gbps", flat=True).distinct()


def interface_detail_list(*, peers: bool = False) -> QuerySet[Interface]:
    """Interfaces with their switch's fabric and cable; ``peers=True`` also prefetches both cable ends."""
    queryset = Interface.objects.select_related("switch__fabric", "cable")
    if peers:
        queryset = queryset.prefetch_related("cable__interfaces__switch", "cable__nic_ports__server")
    return queryset


def optic_list() -> QuerySet[Optic]:
    return Optic.objects.select_related("interface__switch", "nic_port__server")


def optic_list_of_devices(*, devices: set[str]) -> QuerySet[Optic]:
    """The optics in the ports of these switches (by hostname) or servers (by name)."""
    return optic_list().filter(Q(interface__switch__hostname__in=devices) | Q(nic_port__server__name__in=devices))


def optic_of_interface(*, interface: Interface) -> Optic | None:
    return Optic.objects.filter(interface=interface).first()


def optic_media() -> QuerySet[Optic]:
    """The distinct optic media, sorted, for a filter."""
    return Optic.objects.values_list("media", flat=True).distinct().order_by("media")


def optic_list_of_cable(*, cable: Cable) -> QuerySet[Optic]:
    """The optics in either end of this cable."""
    return Optic.objects.filter(Q(interface__cable=cable) | Q(nic_port__cable=cable))


def optic_list_of_server(*, server: Server) -> QuerySet[Optic]:
    return Optic.objects.filter(nic_port__server=server)


def cable_count_of_fabric(*, fabric: Fabric) -> int:
    """The cables with an end in this fabric (a switch port or a server NIC port)."""
    ends = Q(interfaces__switch__fabric=fabric) | Q(nic_ports__server__fabric=fabric)
    return Cable.objects.filter(ends).distinct().count()


def cable_list(*, ports: bool = False) -> QuerySet[Cable]:
    """Cables with both ends' ids and labels ("leaf1:Ethernet1/1") computed in SQL (indexed subqueries on the
    ports' cable id): no port or device rows are built per cable, which was most of a list page's time.
    ``ports=True`` also prefetches the two port rows (pages that link to them)."""
    annotations = {}
    for side in ("A", "B"):
        interfaces = Interface.objects.filter(cable=OuterRef("pk"), cable_end=side)
        nic_ports = NicPort.objects.filter(cable=OuterRef("pk"), cable_end=side)
        prefix = side.lower()
        annotations[f"{prefix}_interface_pk"] = Subquery(interfaces.values("pk")[:1])
        annotations[f"{prefix}_interface_label"] = Subquery(
            interfaces.annotate(label=Concat("switch__hostname", Value(":"), "name")).values("label")[:1])
        annotations[f"{prefix}_nic_port_pk"] = Subquery(nic_ports.values("pk")[:1])
        annotations[f"{prefix}_nic_port_label"] = Subquery(
            nic_ports.annotate(label=Concat("server__name", Value(":"), "name")).values("label")[:1])
    queryset = Cable.objects.annotate(**annotations)
    if ports:
        queryset = queryset.prefetch_related(
            Prefetch("interfaces", queryset=Interface.objects.select_related("switch")),
            Prefetch("nic_ports", queryset=NicPort.objects.select_related("server")),
        )
    return queryset


def server_list() -> QuerySet[Server]:
    return Server.objects.select_related("fabric", "rack")


def server_placed_list(*, racks) -> QuerySet[Server]:
    """The servers with a U position in these racks (rack elevations)."""
    return Server.objects.filter(rack__in=racks).exclude(u_position=None)


def nic_port_list_of_server(*, server: Server) -> QuerySet[NicPort]:
    """A server's NIC ports with their cable and both cable ends (the server page)."""
    return NicPort.objects.filter(server=server).select_related("cable", "server").prefetch_related(
        "cable__interfaces__switch", "cable__nic_ports__server")


def nic_port_list() -> QuerySet[NicPort]:
    return NicPort.objects.select_related("server", "cable").order_by("server_id", "rail", "name")


def nic_port_choices(*, fabric_id: int) -> QuerySet[NicPort]:
    """The fabric's server NIC ports by server and name (the network form's attachments)."""
    return NicPort.objects.filter(server__fabric_id=fabric_id).select_related("server").order_by("server__name",
                                                                                                  "name")


def netbox_sync_list():
    """NetBox import / re-sync runs, newest first (the JSON detail is read per row: lists are short and paged)."""
    return NetboxSync.objects.order_by("-created", "-id")


def count_of(model, field: str):
    """The number of ``model`` rows whose ``field`` is the outer row, as a subquery to annotate with. Several
    ``Count(..., distinct=True)`` over different relations join them all at once: the fabric list counted
    switches x servers x racks rows per fabric (the /fabrics/ page cost ~0.5 s of database CPU at 28 switches and
    192 servers; issue 29), and a ``Sum`` beside them was multiplied."""
    rows = model.objects.filter(**{field: OuterRef("pk")}).order_by().values(field)
    return Coalesce(Subquery(rows.annotate(count=Count("pk")).values("count"), output_field=IntegerField()), 0)
