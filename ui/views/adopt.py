"""The adoption page (/fabrics/adopt/): upload an archive of a running fabric's configs, see the adoption report
(recognised, inferred cables, carried lines by kind, refused with file:line, semantic diff), and save it
(intents.adopt.fabric_adopt: one transaction, nothing saved on error). A dry run shows the report only; "Join
NetBox" joins the server's NetBox (FT_NETBOX_URL) and lists each disagreement."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import render

from common.api_limits import upload_request_check
from common.roles import EDIT_INVENTORY
from compiler.errors import FabricTwinError
from compiler.parse.files import configs_from_archive, upload_size_check
from intents.adopt import adoption_netbox_client, fabric_adopt

from .common import requires


@requires(EDIT_INVENTORY)
def fabric_adopt_page(request):
    context: dict = {"section": "fabrics", "title": "Adopt a running fabric", "outcome": None,
                     "name": request.POST.get("name", "adopted"), "dry_run": request.POST.get("dry_run") == "on",
                     "netbox": request.POST.get("netbox") == "on"}
    status = 200
    if request.method == "POST":
        try:
            upload_request_check(request)  # before Django spools the files to disk
            archive = request.FILES.get("archive")
            if archive is None:
                raise FabricTwinError("archive: upload one archive (.tar, .tar.gz, .zip) of the configs")
            upload_size_check("archive", archive.name, archive.size)  # before it is read into memory
            netbox_client = adoption_netbox_client(netbox=context["netbox"])
            device_files = configs_from_archive(archive.read(), archive.name)
            outcome = fabric_adopt(device_files=device_files, name=context["name"], dry_run=context["dry_run"],
                                   netbox_data=netbox_client.dump() if netbox_client else None)
            context["outcome"] = outcome
            context["devices"] = sorted(outcome.proof.devices.items())
            if outcome.dry_run:
                messages.info(request, "Dry run: nothing saved.")
            else:
                messages.success(request, f"Fabric {context['name']} adopted: inventory, intent, {outcome.pinned} "
                                          "pinned allocations and the carried lines saved.")
        except FabricTwinError as error:
            messages.error(request, f"Adoption refused, nothing saved: {error}")
            status = 400
    return render(request, "ui/fabric_adopt.html", context, status=status)
